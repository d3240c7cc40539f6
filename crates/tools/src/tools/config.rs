//! The `[tools]` section of youra.toml: the run's MCP servers, who may use them, and the
//! bounds of every tool call.
//!
//! ```toml
//! [tools]
//! max_rounds = 8            # model calls per tool loop
//! call_timeout_s = 60       # one tool call; a hung server becomes an error, not a hung run
//!
//! [[tools.servers]]
//! name = "serena"           # also its Table 7 capability when it is a known name
//! command = "uvx"
//! args = ["--from", "git+https://github.com/oraios/serena", "serena", "start-mcp-server"]
//! env = { SERENA_LOG = "warn" }
//! pass_env = ["EXA_API_KEY"]  # variables passed through from youra's environment
//! allowed_tools = ["find_*", "get_symbols_overview"]   # globs; empty: all
//! roles = ["executor", "coder"]                        # empty: every role
//!
//! [[tools.servers]]
//! name = "papers"
//! url = "http://127.0.0.1:8931/mcp"   # streamable HTTP instead of a command
//! capability = "literature"
//!
//! [tools.stages]             # replaces the Table 7 default for a stage
//! coding_validation = ["code", "papers:search*"]
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::ToolError;
use super::mcp::Transport;
use crate::exec::agent::AgentConfig;

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ToolsSection {
    /// Model calls in one tool loop before it stops with an error.
    pub max_rounds: u32,
    /// Seconds one tool call may take (per server: `timeout_s`).
    pub call_timeout_s: f64,
    /// Seconds a server may take to start and finish the MCP handshake.
    pub connect_timeout_s: f64,
    pub servers: Vec<ServerConfig>,
    /// Stage key → selectors (capability, server name, or `server:tool-glob`), replacing
    /// the Table 7 default for that stage (`stages::STAGE_TOOLS`).
    pub stages: BTreeMap<String, Vec<String>>,
    /// An external coding agent for Coding & Validation (`exec/agent.rs`).
    pub coding_agent: Option<AgentConfig>,
}

impl Default for ToolsSection {
    fn default() -> Self {
        ToolsSection {
            max_rounds: 8,
            call_timeout_s: 60.0,
            connect_timeout_s: 30.0,
            servers: Vec::new(),
            stages: BTreeMap::new(),
            coding_agent: None,
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    pub name: String,
    /// A program speaking MCP over stdio (with `args`), or …
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    /// Variables set for the server (on top of PATH, HOME, LANG and `pass_env`).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Names of youra's own variables the server gets (its API key, for instance): the
    /// server's environment is otherwise cleared, so no other secret reaches it.
    #[serde(default)]
    pub pass_env: Vec<String>,
    /// … a streamable HTTP endpoint.
    pub url: Option<String>,
    /// Tool-name globs this run may use (`*`, `?`); empty allows every tool.
    #[serde(default)]
    pub allowed_tools: Vec<String>,
    /// Roles that may use this server; empty allows every role.
    #[serde(default)]
    pub roles: Vec<String>,
    /// The Table 7 column it fills: memory, web_search, literature, code, reasoning, or
    /// general (offered in every stage). Default: from a known name, else general.
    pub capability: Option<String>,
    /// Seconds one call to this server may take (default: `[tools] call_timeout_s`).
    pub timeout_s: Option<f64>,
}

impl ServerConfig {
    /// How to reach the server; exactly one of `command` and `url` must be set.
    pub fn transport(&self) -> Result<Transport, ToolError> {
        match (&self.command, &self.url) {
            (Some(command), None) => {
                let mut env: Vec<(String, String)> = self
                    .pass_env
                    .iter()
                    .filter_map(|k| Some((k.clone(), std::env::var(k).ok()?)))
                    .collect();
                env.extend(self.env.iter().map(|(k, v)| (k.clone(), v.clone())));
                Ok(Transport::Stdio {
                    command: command.clone(),
                    args: self.args.clone(),
                    env,
                })
            }
            (None, Some(url)) => Ok(Transport::Http { url: url.clone() }),
            _ => Err(ToolError::Config(format!(
                "server `{}` needs exactly one of `command` (stdio) and `url` (streamable HTTP) under [[tools.servers]]",
                self.name
            ))),
        }
    }

    /// The Table 7 capability this server provides.
    pub fn capability(&self) -> String {
        self.capability
            .clone()
            .unwrap_or_else(|| super::stages::capability_of_name(&self.name).to_string())
    }
}

impl ToolsSection {
    /// Check what serde cannot: names unique and path-safe, one transport each, sane limits.
    pub fn validate(&self) -> Result<(), ToolError> {
        let mut seen = std::collections::BTreeSet::new();
        for s in &self.servers {
            let ok = !s.name.is_empty()
                && s.name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if !ok {
                return Err(ToolError::Config(format!(
                    "server name `{}` must be letters, digits, `_` or `-` (it prefixes the tool names the model sees)",
                    s.name
                )));
            }
            if !seen.insert(s.name.as_str()) {
                return Err(ToolError::Config(format!(
                    "two [[tools.servers]] are named `{}`; give each its own name",
                    s.name
                )));
            }
            s.transport()?;
        }
        if self.max_rounds == 0 || self.call_timeout_s <= 0.0 || self.connect_timeout_s <= 0.0 {
            return Err(ToolError::Config(
                "max_rounds, call_timeout_s and connect_timeout_s under [tools] must be above 0"
                    .into(),
            ));
        }
        Ok(())
    }
}
