//! Which settings of a run's own `youra.toml` need the researcher's word before youra acts on
//! them, and whether they have it (issue 39, item 4). A run folder can be someone else's (a lab
//! shares runs): its `youra.toml` may name a program youra would start on this machine, an
//! address youra would send the run's text or the researcher's key to, or confinement youra
//! would lift. Those keys are [`COMMAND_BEARING`]; when the run's OWN file sets one, the
//! commands that act on them (`youra run`, the TUI's engine, `youra doctor`, `youra tools
//! list`) refuse until `youra trust <run>` recorded exactly those values, direnv's `allow`
//! step. The user's config file, `YOURA_*` variables and flags are the researcher's own and
//! never asked about.
//!
//! What is recorded lives outside the run folder (`store.rs`: `<user config dir>/
//! trusted-runs.json`, the run's canonical path → the sha256 of the settings' canonical JSON),
//! so a stranger cannot ship a forged approval; any change to one of those values asks again.

use std::path::{Path, PathBuf};

use toml::Value;

use crate::config_sources::{KeyPath, display_key, file_lines, leaves, source_of, value_text};

pub mod store;

#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Parse(String),
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "no user config folder to keep the trusted runs in: set YOURA_CONFIG_DIR (or HOME) to one"
    )]
    NoConfigDir,
}

/// One kind of setting that runs, sends or unconfines: its key (`*` stands for any one name,
/// e.g. a role; array items match without their index), why it matters, and the values that
/// only keep youra's own safe default (written as TOML writes them), which need no trust.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CommandBearing {
    pub key: &'static str,
    pub why: &'static str,
    pub harmless: &'static [&'static str],
}

const fn entry(
    key: &'static str,
    why: &'static str,
    harmless: &'static [&'static str],
) -> CommandBearing {
    CommandBearing { key, why, harmless }
}

const ENDPOINT: &str = "receives every prompt of that role, and the API key youra sends with it";
const KEY_NAME: &str = "names which of your environment variables is sent as the API key";
const SERVER: &str =
    "an MCP server youra starts on this machine (command, args, env) or connects to (url)";

/// The settings a run's own `youra.toml` may not set unasked. A key under one of these (a
/// server's `env.X`) is covered by it.
pub(crate) const COMMAND_BEARING: &[CommandBearing] = &[
    entry(
        "notify.command",
        "runs on this machine, outside the sandbox, when the run waits or ends",
        &[],
    ),
    entry(
        "notify.webhook",
        "receives the run's notices (progress, stop reasons, local paths)",
        &[],
    ),
    entry(
        "notify.ntfy",
        "receives the run's notices (progress, stop reasons, local paths)",
        &[],
    ),
    entry("llm.default.base_url", ENDPOINT, &[]),
    entry("llm.roles.*.base_url", ENDPOINT, &[]),
    entry("llm.default.api_key_env", KEY_NAME, &[]),
    entry("llm.roles.*.api_key_env", KEY_NAME, &[]),
    entry("tools.servers.command", SERVER, &[]),
    entry("tools.servers.args", SERVER, &[]),
    entry("tools.servers.env", SERVER, &[]),
    entry(
        "tools.servers.pass_env",
        "names which of your environment variables (API keys) an MCP server gets",
        &[],
    ),
    entry("tools.servers.url", SERVER, &[]),
    entry(
        "tools.coding_agent.command",
        "a coding agent youra starts on this machine",
        &[],
    ),
    entry(
        "tools.coding_agent.env",
        "variables the coding agent youra starts gets",
        &[],
    ),
    entry(
        "tools.coding_agent.sandbox",
        "`off` runs the coding agent unconfined on this machine",
        &["\"required\""],
    ),
    entry(
        "tools.coding_agent.network",
        "lets the coding agent reach the network",
        &["false"],
    ),
    entry(
        "engine.semantic_scholar_url",
        "receives the literature searches and your Semantic Scholar key",
        &["\"https://api.semanticscholar.org\""],
    ),
    entry(
        "engine.arxiv_url",
        "receives the literature searches",
        &["\"https://export.arxiv.org\""],
    ),
    entry(
        "exec.sandbox",
        "`off` runs model-written code unconfined on this machine",
        &["\"required\""],
    ),
    entry(
        "engine.allow_network",
        "lets model-written experiments reach the network",
        &["false"],
    ),
    entry(
        "exec.backend",
        "`slurm` hands the experiments to the cluster's programs",
        &["\"local\""],
    ),
    entry("exec.slurm.extra_args", "flags youra passes to sbatch", &[]),
    entry(
        "exec.slurm.conf",
        "the Slurm configuration the scheduler's programs read (it can name programs)",
        &[],
    ),
];

/// One command-bearing value the run's file sets: where, what, and why it matters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    /// The key as written in a file (`tools.servers[0].command`).
    pub key: String,
    /// The value as TOML writes it.
    pub value: String,
    /// The file and line that set it (0: the line was not found).
    pub path: PathBuf,
    pub line: usize,
    pub why: &'static str,
    /// Its value in canonical JSON (object keys sorted): what the fingerprint hashes.
    canonical: serde_json::Value,
}

impl std::fmt::Display for Setting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            0 => write!(f, "{}", self.path.display())?,
            n => write!(f, "{}:{n}", self.path.display())?,
        }
        write!(f, ": {} = {}", self.key, self.value)
    }
}

/// The entry that covers `key`, if any: its components (array indices dropped) start with
/// the entry's.
fn covering(key: &KeyPath) -> Option<&'static CommandBearing> {
    let bare: Vec<&str> = key
        .iter()
        .map(|k| match k.find('[') {
            Some(i) if k.ends_with(']') => &k[..i],
            _ => k.as_str(),
        })
        .collect();
    COMMAND_BEARING.iter().find(|e| {
        let want: Vec<&str> = e.key.split('.').collect();
        want.len() <= bare.len() && want.iter().zip(&bare).all(|(w, k)| *w == "*" || w == k)
    })
}

/// The command-bearing settings of one file's text (`path` is what the lines are named by).
/// Empty values (`command = []`) set nothing that runs and are left out, as are values the
/// entry lists as harmless.
pub(crate) fn command_bearing(path: &Path, text: &str) -> Result<Vec<Setting>, String> {
    let table: toml::Table =
        toml::from_str(text).map_err(|e| format!("{}: {e}", path.display()))?;
    let lines = file_lines(path, text);
    let mut out = Vec::new();
    for (key, value) in leaves(&Value::Table(table)) {
        let Some(entry) = covering(&key) else {
            continue;
        };
        let empty = match &value {
            Value::Array(a) => a.is_empty(),
            Value::Table(t) => t.is_empty(),
            _ => false,
        };
        let shown = value_text(&value);
        if empty || entry.harmless.contains(&shown.as_str()) {
            continue;
        }
        // An inline array of tables (`servers = [{…}]`) is listed by its bare key.
        let bare: KeyPath = key
            .iter()
            .map(|k| k.split('[').next().unwrap_or(k).to_string())
            .collect();
        let line = match source_of(&lines, &key).or_else(|| source_of(&lines, &bare)) {
            Some(crate::config_sources::Source::File { line, .. }) => *line,
            _ => 0,
        };
        out.push(Setting {
            key: display_key(&key),
            value: shown,
            path: path.to_path_buf(),
            line,
            why: entry.why,
            canonical: canonical(&value),
        });
    }
    // In the file's order, as the researcher reads it.
    out.sort_by(|a, b| (a.line, &a.key).cmp(&(b.line, &b.key)));
    Ok(out)
}

/// The command-bearing settings of `run`'s own `youra.toml` (none when it has no file), read
/// as every run-folder file is: no link, regular file, capped.
pub(crate) fn of_run(run: &Path) -> Result<Vec<Setting>, TrustError> {
    let path = run.join("youra.toml");
    let text = match crate::fsutil::read_run_text(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(TrustError::Read { path, source }),
    };
    command_bearing(&path, &text).map_err(TrustError::Parse)
}

/// sha256 (hex) of the settings' canonical JSON: `[[key, value], …]` sorted by key, each
/// value with its object keys sorted. Lines and comments are not in it: moving a line asks
/// nothing, changing a value asks again.
pub fn fingerprint(settings: &[Setting]) -> String {
    use sha2::{Digest, Sha256};
    let mut pairs: Vec<(&str, &serde_json::Value)> = settings
        .iter()
        .map(|s| (s.key.as_str(), &s.canonical))
        .collect();
    pairs.sort_by(|a, b| a.0.cmp(b.0));
    let json = serde_json::to_string(&pairs).unwrap_or_default();
    format!("{:x}", Sha256::digest(json.as_bytes()))
}

/// A TOML value as JSON with every table's keys inserted in sorted order, so the text does
/// not depend on the order they were written in.
fn canonical(v: &Value) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        Value::String(s) => J::String(s.clone()),
        Value::Integer(i) => J::from(*i),
        Value::Float(f) => J::String(format!("{f:?}")),
        Value::Boolean(b) => J::Bool(*b),
        Value::Datetime(d) => J::String(d.to_string()),
        Value::Array(a) => J::Array(a.iter().map(canonical).collect()),
        Value::Table(t) => {
            let mut keys: Vec<&String> = t.keys().collect();
            keys.sort();
            let mut m = serde_json::Map::new();
            for k in keys {
                m.insert(k.clone(), canonical(&t[k.as_str()]));
            }
            J::Object(m)
        }
    }
}

#[cfg(test)]
mod tests;
