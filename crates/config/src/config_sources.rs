//! Where each configuration value comes from. The layers, highest first: command-line flags
//! (`--provider`, `--model`, `--base-url`, `--role ROLE=MODEL`), `YOURA_*` variables, the
//! run's `youra.toml`, the user's `youra.toml` (`YOURA_CONFIG_DIR` or the platform's config
//! folder), compiled defaults. `config::load` merges them; this module also records, for
//! `youra config show`, which layer set each leaf and where (file:line, variable, flag).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use toml::{Table, Value};

/// A value's key, one element per table level (`["llm", "caps", "executor.manuscript_drafting"]`).
pub(crate) type KeyPath = Vec<String>;

/// The configuration flags a command was given; set once, in `cli::run`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Flags {
    pub provider: Option<String>,
    pub model: Option<String>,
    pub base_url: Option<String>,
    /// `--role controller=gpt-4o`: that role's model.
    pub roles: Vec<(String, String)>,
}

static FLAGS: OnceLock<Flags> = OnceLock::new();

/// Record the command line's flags for every later `config::load` in this process.
pub fn set_flags(flags: Flags) {
    let _ = FLAGS.set(flags);
}

pub fn flags() -> Flags {
    FLAGS.get().cloned().unwrap_or_default()
}

/// `ROLE=MODEL`, the role one of `llm::roles::ROLES`.
pub fn parse_role(s: &str) -> Result<(String, String), String> {
    let (role, model) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}`: want ROLE=MODEL, e.g. controller=gpt-4o"))?;
    let role = role.trim().to_ascii_lowercase();
    if !crate::llm::roles::ROLES.contains(&role.as_str()) {
        return Err(format!(
            "`{role}` is not a role (known: {})",
            crate::llm::roles::ROLES.join(", ")
        ));
    }
    if model.trim().is_empty() {
        return Err(format!("`{s}`: the model is empty"));
    }
    Ok((role, model.trim().to_string()))
}

#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    Default,
    File { path: PathBuf, line: usize },
    Env(String),
    Flag(String),
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Default => write!(f, "default"),
            Source::File { path, line } => write!(f, "{}:{line}", path.display()),
            Source::Env(v) => write!(f, "${v}"),
            Source::Flag(flag) => write!(f, "flag {flag}"),
        }
    }
}

/// One layer: its table and where each key in it was set.
#[derive(Debug, Default)]
pub(crate) struct Layer {
    pub table: Table,
    pub sources: BTreeMap<KeyPath, Source>,
}

impl Layer {
    fn set(&mut self, path: &[&str], value: &str, source: Source) {
        let (last, parents) = path.split_last().expect("a key path is never empty");
        let mut cur = &mut self.table;
        for p in parents {
            let entry = cur
                .entry(p.to_string())
                .or_insert_with(|| Value::Table(Table::new()));
            if !entry.is_table() {
                *entry = Value::Table(Table::new());
            }
            cur = entry.as_table_mut().expect("made a table above");
        }
        cur.insert(last.to_string(), Value::String(value.to_string()));
        self.sources
            .insert(path.iter().map(|s| s.to_string()).collect(), source);
    }
}

/// The flags as a layer.
pub(crate) fn flag_layer(flags: &Flags) -> Layer {
    let mut l = Layer::default();
    let pairs = [
        ("provider", &flags.provider, "--provider"),
        ("model", &flags.model, "--model"),
        ("base_url", &flags.base_url, "--base-url"),
    ];
    for (key, value, flag) in pairs {
        if let Some(v) = value {
            l.set(
                &["llm", "default", key],
                v,
                Source::Flag(format!("{flag} {v}")),
            );
        }
    }
    for (role, model) in &flags.roles {
        l.set(
            &["llm", "roles", role, "model"],
            model,
            Source::Flag(format!("--role {role}={model}")),
        );
    }
    l
}

/// `YOURA_PROVIDER`, `YOURA_MODEL`, `YOURA_BASE_URL`, `YOURA_API_KEY_ENV`, `YOURA_REPLAY` set
/// the default role; `YOURA_<ROLE>_<FIELD>` (`YOURA_CONTROLLER_MODEL`) one role; `YOURA_MODE`
/// the execution mode.
pub(crate) fn env_layer(env: &[(String, String)]) -> Layer {
    let mut l = Layer::default();
    let fields = ["PROVIDER", "MODEL", "BASE_URL", "API_KEY_ENV", "REPLAY"];
    for (k, v) in env {
        let Some(rest) = k.strip_prefix("YOURA_") else {
            continue;
        };
        if rest == "MODE" {
            l.set(&["run", "execution_mode"], v, Source::Env(k.clone()));
            continue;
        }
        for f in fields {
            let key = f.to_ascii_lowercase();
            if rest == f {
                l.set(&["llm", "default", &key], v, Source::Env(k.clone()));
            } else if let Some(role) = rest.strip_suffix(&format!("_{f}")) {
                let role = role.to_ascii_lowercase();
                if crate::llm::roles::ROLES.contains(&role.as_str()) {
                    l.set(&["llm", "roles", &role, &key], v, Source::Env(k.clone()));
                }
            }
        }
    }
    l
}

/// The line each key of a TOML file is set on: `[table]` and `[[array]]` headers, dotted
/// and quoted keys. A key inside an inline table or array is found by its nearest listed
/// ancestor (`source_of`).
pub(crate) fn file_lines(path: &Path, text: &str) -> BTreeMap<KeyPath, Source> {
    let mut out = BTreeMap::new();
    let mut prefix: KeyPath = Vec::new();
    let mut arrays: BTreeMap<KeyPath, usize> = BTreeMap::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let at = Source::File {
            path: path.to_path_buf(),
            line: i + 1,
        };
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(h) = line.strip_prefix("[[").and_then(|l| l.split("]]").next()) {
            let base = split_key(h);
            let n = arrays.entry(base.clone()).or_insert(0);
            let mut p = base;
            if let Some(last) = p.last_mut() {
                last.push_str(&format!("[{n}]"));
            }
            *n += 1;
            prefix = p;
            continue;
        }
        // A header alone sets nothing: the defaults fill the keys it leaves out.
        if let Some(h) = line.strip_prefix('[').and_then(|l| l.split(']').next()) {
            prefix = split_key(h);
            continue;
        }
        let Some((key, _)) = split_assignment(line) else {
            continue;
        };
        let mut p = prefix.clone();
        p.extend(split_key(key));
        out.insert(p, at);
    }
    out
}

/// `a.b = 1` → `a.b`; a `=` inside a quoted key is part of the key.
fn split_assignment(line: &str) -> Option<(&str, &str)> {
    let mut quote = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '=') => return Some((line[..i].trim(), line[i + 1..].trim())),
            _ => {}
        }
    }
    None
}

/// `llm.caps."executor.x"` → `["llm", "caps", "executor.x"]`.
fn split_key(key: &str) -> KeyPath {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote = None;
    for c in key.trim().chars() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '.') => out.push(std::mem::take(&mut cur).trim().to_string()),
            (_, c) => cur.push(c),
        }
    }
    out.push(cur.trim().to_string());
    out
}

/// The source of `key` in a layer: the key itself, else its nearest listed ancestor (an
/// inline table), with array indices `servers[0]` matched as written.
pub(crate) fn source_of<'a>(
    sources: &'a BTreeMap<KeyPath, Source>,
    key: &[String],
) -> Option<&'a Source> {
    (1..=key.len())
        .rev()
        .find_map(|n| sources.get(&key[..n].to_vec()))
}

/// Every leaf of `value` with its key path (array items as `name[i]`).
pub fn leaves(value: &Value) -> Vec<(KeyPath, Value)> {
    let mut out = Vec::new();
    walk(value, &mut Vec::new(), &mut out);
    out
}

fn walk(value: &Value, at: &mut KeyPath, out: &mut Vec<(KeyPath, Value)>) {
    match value {
        Value::Table(t) if !t.is_empty() => {
            for (k, v) in t {
                at.push(k.clone());
                walk(v, at, out);
                at.pop();
            }
        }
        Value::Array(items) if items.iter().all(Value::is_table) && !items.is_empty() => {
            for (i, item) in items.iter().enumerate() {
                let mut p = at.clone();
                if let Some(last) = p.last_mut() {
                    last.push_str(&format!("[{i}]"));
                }
                walk(item, &mut p, out);
            }
        }
        other => out.push((at.clone(), other.clone())),
    }
}

/// A value as TOML writes it (strings quoted, arrays and inline tables spelled out).
pub fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => serde_json::to_string(s).unwrap_or_default(),
        Value::Integer(n) => n.to_string(),
        Value::Float(f) => format!("{f:?}"),
        Value::Boolean(b) => b.to_string(),
        Value::Datetime(d) => d.to_string(),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(value_text).collect::<Vec<_>>().join(", ")
        ),
        Value::Table(t) if t.is_empty() => "{}".into(),
        Value::Table(t) => format!(
            "{{ {} }}",
            t.iter()
                .map(|(k, v)| format!(
                    "{} = {}",
                    display_key(std::slice::from_ref(k)),
                    value_text(v)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A key path as one would write it in a file (`llm.caps."executor.x"`).
pub fn display_key(key: &[String]) -> String {
    key.iter()
        .map(|k| {
            let (name, index) = match k.find('[') {
                Some(i) if k.ends_with(']') => (&k[..i], &k[i..]),
                _ => (k.as_str(), ""),
            };
            if name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                format!("{name}{index}")
            } else {
                format!("\"{name}\"{index}")
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_keys_are_found_on_their_lines() {
        let text = "[run]\nname = \"x\"\n\n[llm.default]\nmodel = \"m\"\n[llm.caps]\n\"executor.manuscript_drafting\" = 8000\n[[tools.servers]]\nname = \"a\"\n[[tools.servers]]\nname = \"b\"\n[llm.prices]\n\"gpt-x\" = { input = 1, output = 2 }\n";
        let p = Path::new("/r/youra.toml");
        let lines = file_lines(p, text);
        let line = |k: &[&str]| match source_of(
            &lines,
            &k.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        ) {
            Some(Source::File { line, .. }) => *line,
            other => panic!("{k:?}: {other:?}"),
        };
        assert_eq!(line(&["run", "name"]), 2);
        assert_eq!(line(&["llm", "default", "model"]), 5);
        assert_eq!(line(&["llm", "caps", "executor.manuscript_drafting"]), 7);
        assert_eq!(line(&["tools", "servers[1]", "name"]), 11);
        assert_eq!(line(&["llm", "prices", "gpt-x", "input"]), 13);
        assert_eq!(
            display_key(&["llm".into(), "caps".into(), "executor.x".into()]),
            "llm.caps.\"executor.x\""
        );
    }

    #[test]
    fn flags_and_roles_parse_and_land_where_the_files_would_put_them() {
        assert_eq!(
            parse_role("Controller=gpt-4o"),
            Ok(("controller".into(), "gpt-4o".into()))
        );
        assert!(parse_role("boss=gpt").unwrap_err().contains("not a role"));
        assert!(parse_role("controller").is_err());
        let l = flag_layer(&Flags {
            model: Some("m".into()),
            roles: vec![("critic".into(), "c".into())],
            ..Flags::default()
        });
        assert_eq!(l.table["llm"]["default"]["model"].as_str(), Some("m"));
        assert_eq!(
            l.table["llm"]["roles"]["critic"]["model"].as_str(),
            Some("c")
        );
        let env = env_layer(&[
            ("YOURA_CONTROLLER_MODEL".into(), "x".into()),
            ("YOURA_MODE".into(), "unattended".into()),
        ]);
        assert_eq!(
            env.sources[&vec![
                "llm".to_string(),
                "roles".into(),
                "controller".into(),
                "model".into()
            ]],
            Source::Env("YOURA_CONTROLLER_MODEL".into())
        );
    }
}
