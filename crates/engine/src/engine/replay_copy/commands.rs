//! What a replay copy does not take from someone else's run unasked: the commands it would
//! start on this machine (`[[tools.servers]]`, which youra starts as MCP servers,
//! `[tools.coding_agent]`, `[notify] command`, which runs on the host unsandboxed), the
//! addresses it would send to (`[notify] webhook` and `ntfy`, which carry the run's progress
//! and paths; `[engine] semantic_scholar_url` and `arxiv_url`, which would get the
//! researcher's Semantic Scholar key), and the settings that choose where and how confined
//! experiments run (`sandbox`, under `[exec]` or, in older files, `[engine]`; `[engine]
//! allow_network`; `[exec] backend` and `[exec.slurm]`, whose flags and `conf` go to the
//! scheduler's programs). `[llm…]` never travels (the copy's models are the replay provider),
//! so no `base_url` does. A recorded run is data; its `youra.toml` is another person's choice
//! of what may run here and where its text goes. The copy drops them, names each one, and
//! keeps them only when the researcher says so (`youra replay --keep-commands`).
//!
//! The settings travel as text (comments kept, see `kept_tables`), so the dropping is done on
//! lines; the result is parsed again and refused if anything named here survived (a dotted
//! key or an inline table the line filter did not recognise), never copied in the hope.

/// The dotted paths of what a copy drops (a table, a key, or everything under them).
const UNTRUSTED: [&str; 10] = [
    "tools.servers",
    "tools.coding_agent",
    "notify",
    "engine.semantic_scholar_url",
    "engine.arxiv_url",
    "exec.sandbox",
    "exec.backend",
    "exec.slurm",
    "engine.sandbox",
    "engine.allow_network",
];

/// One setting a copy drops (or, with `--keep-commands`, kept on the researcher's word).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    /// Where it was: `[[tools.servers]] echo`, `[exec] sandbox`.
    pub setting: String,
    /// What it would have done: the command line, the value.
    pub what: String,
}

impl std::fmt::Display for Dropped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.setting, self.what)
    }
}

/// The settings of `table` (a run's whole `youra.toml`) a copy would drop.
pub fn untrusted(table: &toml::Table) -> Vec<Dropped> {
    let mut out = Vec::new();
    let tools = table.get("tools").and_then(toml::Value::as_table);
    let servers = tools
        .and_then(|t| t.get("servers"))
        .and_then(toml::Value::as_array);
    for s in servers.into_iter().flatten() {
        let name = s.get("name").and_then(toml::Value::as_str).unwrap_or("?");
        let what = match (s.get("command"), s.get("url")) {
            (Some(c), _) => {
                let args = s.get("args").map(words).unwrap_or_default();
                format!("runs `{}`", [words(c), args].join(" ").trim())
            }
            (None, Some(u)) => format!("connects to {}", u.as_str().unwrap_or("?")),
            _ => "an MCP server".into(),
        };
        out.push(Dropped {
            setting: format!("[[tools.servers]] {name}"),
            what,
        });
    }
    if let Some(agent) = tools.and_then(|t| t.get("coding_agent")) {
        let command = agent.get("command").map(words).unwrap_or_default();
        out.push(Dropped {
            setting: "[tools.coding_agent]".into(),
            what: format!("runs `{command}`"),
        });
    }
    if let Some(notify) = table.get("notify").and_then(toml::Value::as_table) {
        for (key, v) in notify {
            let what = match key.as_str() {
                "command" => format!("runs `{}` on this machine, unconfined", words(v)),
                "webhook" | "ntfy" => format!("posts the run's notices to {}", words(v)),
                _ => format!("{key} = {}", shown(v)),
            };
            out.push(Dropped {
                setting: format!("[notify] {key}"),
                what,
            });
        }
    }
    for key in ["semantic_scholar_url", "arxiv_url"] {
        if let Some(v) = table.get("engine").and_then(|t| t.get(key)) {
            out.push(Dropped {
                setting: format!("[engine] {key}"),
                what: format!(
                    "sends literature searches (and a Semantic Scholar key) to {}",
                    words(v)
                ),
            });
        }
    }
    if let Some(slurm) = table
        .get("exec")
        .and_then(|t| t.get("slurm"))
        .and_then(toml::Value::as_table)
    {
        for (key, v) in slurm {
            out.push(Dropped {
                setting: format!("[exec.slurm] {key}"),
                what: format!("{key} = {}", shown(v)),
            });
        }
    }
    for (section, key) in [
        ("exec", "sandbox"),
        ("exec", "backend"),
        ("engine", "sandbox"),
        ("engine", "allow_network"),
    ] {
        if let Some(v) = table.get(section).and_then(|t| t.get(key)) {
            out.push(Dropped {
                setting: format!("[{section}] {key}"),
                what: format!("{key} = {}", shown(v)),
            });
        }
    }
    out
}

/// A command as one line: a string as is, an array's items joined by blanks.
fn words(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Array(a) => a
            .iter()
            .map(|x| x.as_str().map_or_else(|| shown(x), str::to_string))
            .collect::<Vec<_>>()
            .join(" "),
        other => shown(other),
    }
}

/// A value as youra.toml writes it (the `toml` crate is built without its writer).
fn shown(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("{s:?}"),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Datetime(d) => d.to_string(),
        toml::Value::Array(a) => {
            format!("[{}]", a.iter().map(shown).collect::<Vec<_>>().join(", "))
        }
        toml::Value::Table(_) => "{…}".into(),
    }
}

/// `settings` (the tables a copy keeps, as text) without the lines of what [`untrusted`]
/// names: the `[[tools.servers]]` and `[tools.coding_agent…]` tables whole, `servers =` and
/// `coding_agent =` under `[tools]`, and the sandbox and network keys, each with every line
/// of a value that spans several. `Err` names what is still there after the filter.
pub(crate) fn without_untrusted(settings: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut table = String::new();
    let mut skip_table = false;
    let mut open = 0i32;
    for line in settings.lines() {
        if open > 0 {
            open += depth(line);
            continue;
        }
        if let Some(name) = super::table_header(line) {
            table = name.replace(' ', "");
            skip_table = UNTRUSTED
                .iter()
                .any(|u| table == *u || table.starts_with(&format!("{u}.")));
        }
        if skip_table {
            continue;
        }
        // The key's whole dotted path (`[tools]` + `coding_agent.command`), so dotted keys
        // are caught as well as tables.
        let path = line
            .split_once('=')
            .filter(|_| super::table_header(line).is_none())
            .map(|(k, _)| {
                let k: String = k
                    .chars()
                    .filter(|c| !matches!(c, ' ' | '"' | '\''))
                    .collect();
                if table.is_empty() {
                    k
                } else {
                    format!("{table}.{k}")
                }
            });
        let dropped = path.is_some_and(|p| {
            UNTRUSTED
                .iter()
                .any(|u| p == *u || p.starts_with(&format!("{u}.")))
        });
        if dropped {
            open = line.split_once('=').map_or(0, |(_, v)| depth(v));
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    let left: toml::Table = toml::from_str(&out)
        .map_err(|e| format!("its settings without their commands do not parse: {e}"))?;
    let still = untrusted(&left);
    if !still.is_empty() {
        let names: Vec<String> = still.iter().map(|d| d.setting.clone()).collect();
        return Err(format!(
            "cannot take {} out of the copied settings (written in a form the copy does not \
             recognise); write them as plain tables or keys, or pass --keep-commands to keep them",
            names.join(", ")
        ));
    }
    Ok(out)
}

/// How many brackets and braces `text` opens minus closes, outside strings and comments.
fn depth(text: &str) -> i32 {
    let mut d = 0;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in text.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' && q == '"' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                '"' | '\'' => quote = Some(c),
                '#' => break,
                '[' | '{' => d += 1,
                ']' | '}' => d -= 1,
                _ => {}
            },
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every form at once: tables, an inline coding agent, a value over several lines.
    const RUN: &str = r#"[engine]
# keep this
repair_attempts = 2
sandbox = "off"
allow_network = true

[exec]
sandbox = "off"
backend = "local"

[tools]
max_rounds = 4
coding_agent = { command = ["codex", "exec", "{prompt}"] }

[[tools.servers]]
name = "echo"
command = "python3"
args = ["mcp_echo.py",
        "--loud"]

[[tools.servers]]
name = "papers"
url = "http://127.0.0.1:8931/mcp"

[tools.stages]
coding_validation = ["code"]

[recovery]
kappa_min = 0.5
"#;

    #[test]
    fn commands_and_confinement_are_named_then_taken_out() {
        let named = untrusted(&toml::from_str(RUN).unwrap());
        let lines: Vec<String> = named.iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "[[tools.servers]] echo: runs `python3 mcp_echo.py --loud`",
                "[[tools.servers]] papers: connects to http://127.0.0.1:8931/mcp",
                "[tools.coding_agent]: runs `codex exec {prompt}`",
                "[exec] sandbox: sandbox = \"off\"",
                "[exec] backend: backend = \"local\"",
                "[engine] sandbox: sandbox = \"off\"",
                "[engine] allow_network: allow_network = true",
            ]
        );
        assert_eq!(
            without_untrusted(RUN).unwrap(),
            "[engine]\n# keep this\nrepair_attempts = 2\n\n[exec]\n\n\
             [tools]\nmax_rounds = 4\n\n[tools.stages]\ncoding_validation = [\"code\"]\n\n\
             [recovery]\nkappa_min = 0.5\n"
        );
        let inline =
            "[tools]\nservers = [\n  { name = \"x\", command = \"sh\" },\n]\nmax_rounds = 3\n";
        assert_eq!(
            without_untrusted(inline).unwrap(),
            "[tools]\nmax_rounds = 3\n"
        );
    }

    #[test]
    fn notices_endpoints_and_the_scheduler_are_named_then_taken_out() {
        let run = "[engine]\nrepair_attempts = 2\nsemantic_scholar_url = \"http://evil/s2\"\narxiv_url = \"http://evil/ax\"\n\n[notify]\ncommand = [\"sh\", \"-c\", \"touch /tmp/m\"]\nwebhook = \"http://127.0.0.1:9/hook\"\nntfy = \"https://ntfy.sh/x\"\ntimeout_s = 5\n\n[exec.slurm]\nconf = \"/tmp/slurm.conf\"\n\n[recovery]\nkappa_min = 0.5\n";
        let named: Vec<String> = untrusted(&toml::from_str(run).unwrap())
            .iter()
            .map(|d| d.setting.clone())
            .collect();
        assert_eq!(
            named,
            [
                "[notify] command",
                "[notify] webhook",
                "[notify] ntfy",
                "[notify] timeout_s",
                "[engine] semantic_scholar_url",
                "[engine] arxiv_url",
                "[exec.slurm] conf",
            ]
        );
        let kept = without_untrusted(run).unwrap();
        assert_eq!(
            kept,
            "[engine]\nrepair_attempts = 2\n\n[recovery]\nkappa_min = 0.5\n"
        );
        let dotted = "notify.ntfy = \"https://ntfy.sh/y\"\n[engine]\nrepair_attempts = 2\n";
        assert_eq!(
            without_untrusted(dotted).unwrap(),
            "[engine]\nrepair_attempts = 2\n"
        );
        let root = "notify = { command = [\"sh\"] }\n";
        assert_eq!(without_untrusted(root).unwrap(), "");
    }

    #[test]
    fn dotted_keys_are_taken_out_and_a_form_the_filter_misses_is_refused() {
        let dotted = "[tools]\ncoding_agent.command = [\"codex\"]\nmax_rounds = 3\n";
        assert_eq!(
            without_untrusted(dotted).unwrap(),
            "[tools]\nmax_rounds = 3\n"
        );
        let root = "tools.servers = [{ name = \"x\", command = \"sh\" }]\n";
        assert_eq!(without_untrusted(root).unwrap(), "");
        let inline = "tools = { servers = [{ name = \"x\", command = \"sh\" }] }\n";
        let err = without_untrusted(inline).unwrap_err();
        assert!(
            err.contains("[[tools.servers]] x") && err.contains("--keep-commands"),
            "{err}"
        );
        let plain = "[engine]\nrepair_attempts = 2\n";
        assert_eq!(without_untrusted(plain).unwrap(), plain);
    }
}
