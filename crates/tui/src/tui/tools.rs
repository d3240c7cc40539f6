//! The run's MCP servers and their health, for the status line. Configured servers come from
//! `youra.toml` (`[[tools.servers]]`, each with a `name`); their health from
//! `<run>/.youra/tools_health.json`, which the engine rewrites as servers start, answer or
//! die: `[{"name", "state": "up"|"down"|"unknown", "tools": N, "error"}]`. A configured server
//! the file does not mention (or every server, when there is no file) is `unknown`. Read off
//! the UI thread with the rest of the run.

use std::path::Path;

/// Where the engine writes server health, relative to the run.
pub(crate) const HEALTH_FILE: &str = ".youra/tools_health.json";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Up,
    Down,
    Unknown,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Server {
    pub name: String,
    pub state: State,
    /// How many tools the server offers, when it answered.
    pub tools: Option<u64>,
    pub error: Option<String>,
}

/// Servers in the order youra.toml lists them, then any others the health file names.
pub(crate) fn read_servers(root: &Path) -> Vec<Server> {
    let configured = configured(root);
    let health = health(root);
    let mut out: Vec<Server> = configured
        .iter()
        .map(|name| {
            health
                .iter()
                .find(|s| &s.name == name)
                .cloned()
                .unwrap_or_else(|| Server {
                    name: name.clone(),
                    state: State::Unknown,
                    tools: None,
                    error: None,
                })
        })
        .collect();
    out.extend(health.into_iter().filter(|s| !configured.contains(&s.name)));
    out
}

/// Names of `[[tools.servers]]` in youra.toml; a file that does not parse lists none (the
/// engine reports the configuration error itself).
fn configured(root: &Path) -> Vec<String> {
    let Ok(text) = crate::fsutil::read_run_text(root.join("youra.toml")) else {
        return Vec::new();
    };
    let Ok(table) = toml::from_str::<toml::Table>(&text) else {
        return Vec::new();
    };
    table
        .get("tools")
        .and_then(|t| t.get("servers"))
        .and_then(toml::Value::as_array)
        .map(|servers| {
            servers
                .iter()
                .filter_map(|s| s.get("name")?.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn health(root: &Path) -> Vec<Server> {
    let Ok(text) = crate::fsutil::read_run_text(root.join(HEALTH_FILE)) else {
        return Vec::new();
    };
    let Ok(serde_json::Value::Array(items)) = serde_json::from_str(&text) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|v| {
            let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
            Some(Server {
                name: s("name")?,
                state: match s("state").as_deref() {
                    Some("up") => State::Up,
                    Some("down") => State::Down,
                    _ => State::Unknown,
                },
                tools: v.get("tools").and_then(serde_json::Value::as_u64),
                error: s("error").filter(|e| !e.is_empty()),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn health_overlays_the_configured_servers() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read_servers(dir.path()).is_empty());
        std::fs::write(
            dir.path().join("youra.toml"),
            "[[tools.servers]]\nname = \"scholar\"\ncommand = \"npx\"\n\n\
             [[tools.servers]]\nname = \"code\"\nurl = \"http://localhost:9\"\n",
        )
        .unwrap();
        let names = |v: &[Server]| {
            v.iter()
                .map(|s| (s.name.clone(), s.state))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            names(&read_servers(dir.path())),
            [
                ("scholar".into(), State::Unknown),
                ("code".into(), State::Unknown)
            ]
        );
        std::fs::create_dir_all(dir.path().join(".youra")).unwrap();
        std::fs::write(
            dir.path().join(HEALTH_FILE),
            r#"[{"name":"code","state":"down","tools":0,"error":"exit 1"},{"name":"x","state":"up","tools":3}]"#,
        )
        .unwrap();
        let got = read_servers(dir.path());
        assert_eq!(
            names(&got),
            [
                ("scholar".into(), State::Unknown),
                ("code".into(), State::Down),
                ("x".into(), State::Up)
            ]
        );
        assert_eq!(got[1].error.as_deref(), Some("exit 1"));
        assert_eq!(got[2].tools, Some(3));
    }
}
