//! The run's MCP servers: started together when the run starts, stopped when it ends (or
//! when the registry is dropped), and offered to each role in each stage as the tools its
//! config and the stage's selectors allow.
//!
//! A server that fails to start does not stop the run: it is reported unhealthy (the
//! TUI's status line and `youra tools list` show why) and offers no tools.

use std::sync::Arc;
use std::time::Duration;

use tokio::runtime::Runtime;

use super::config::{ServerConfig, ToolsSection};
use super::mcp::{self, McpServer, McpTool, Transport};
use super::{ToolError, stages};
use crate::llm::{ToolBox, ToolCall, ToolFailure, ToolSpec};

pub struct ToolRegistry {
    section: ToolsSection,
    entries: Vec<Entry>,
    // Declared last so the servers shut down (on it) before it is dropped.
    _rt: Arc<Runtime>,
}

struct Entry {
    config: ServerConfig,
    server: Option<McpServer>,
    /// The server's tools that `allowed_tools` lets this run use.
    tools: Vec<McpTool>,
    error: Option<String>,
}

/// A server as `youra tools list` and the TUI show it.
#[derive(Debug, Clone)]
pub struct ServerHealth {
    pub name: String,
    /// `stdio: <command> <args>` or `http: <url>`.
    pub endpoint: String,
    pub capability: String,
    pub roles: Vec<String>,
    /// Why the server is unusable, if it is.
    pub error: Option<String>,
    pub tools: Vec<McpTool>,
}

impl ServerHealth {
    pub fn healthy(&self) -> bool {
        self.error.is_none()
    }
}

impl ToolRegistry {
    /// Validate the section and start every server (in parallel, each bounded by
    /// `connect_timeout_s`). Only a configuration error fails; a server that does not come
    /// up is recorded as unhealthy.
    pub fn start(section: &ToolsSection) -> Result<ToolRegistry, ToolError> {
        section.validate()?;
        let rt = mcp::runtime()?;
        let connect = secs(section.connect_timeout_s);
        let entries = std::thread::scope(|scope| {
            let handles: Vec<_> = section
                .servers
                .iter()
                .map(|cfg| {
                    let rt = rt.clone();
                    scope.spawn(move || start_one(cfg, rt, connect))
                })
                .collect();
            handles
                .into_iter()
                .zip(&section.servers)
                .map(|(h, cfg)| {
                    h.join().unwrap_or_else(|_| Entry {
                        config: cfg.clone(),
                        server: None,
                        tools: Vec::new(),
                        error: Some("the thread starting it panicked".into()),
                    })
                })
                .collect()
        });
        Ok(ToolRegistry {
            section: section.clone(),
            entries,
            _rt: rt,
        })
    }

    pub fn health(&self) -> Vec<ServerHealth> {
        self.entries
            .iter()
            .map(|e| ServerHealth {
                name: e.config.name.clone(),
                endpoint: endpoint(&e.config),
                capability: e.config.capability(),
                roles: e.config.roles.clone(),
                error: e.error.clone(),
                tools: e.tools.clone(),
            })
            .collect()
    }

    /// The tools `role` may use in the stage `stage` (a `Stage::key`): the servers that
    /// allow the role, their allowed tools, narrowed by the stage's selectors
    /// (`[tools.stages]`, else YouRA Table 7).
    pub fn for_stage(&self, role: &str, stage: &str) -> RoleTools<'_> {
        let selectors = self
            .section
            .stages
            .get(stage)
            .cloned()
            .unwrap_or_else(|| stages::default_selectors(stage));
        let mut offered = Vec::new();
        for (index, e) in self.entries.iter().enumerate() {
            let role_ok = e.config.roles.is_empty() || e.config.roles.iter().any(|r| r == role);
            if !role_ok || e.server.is_none() {
                continue;
            }
            let capability = e.config.capability();
            for tool in &e.tools {
                if stages::selected(&selectors, &e.config.name, &capability, &tool.name) {
                    offered.push(Offered {
                        exposed: exposed_name(&e.config.name, &tool.name),
                        entry: index,
                        tool: tool.clone(),
                    });
                }
            }
        }
        RoleTools {
            registry: self,
            offered,
        }
    }

    /// The bound on model calls in one tool loop (`[tools] max_rounds`).
    pub fn max_rounds(&self) -> u32 {
        self.section.max_rounds
    }

    /// Stop every server (also done on drop).
    pub fn shutdown(&mut self) {
        for e in &mut self.entries {
            if let Some(s) = e.server.take() {
                s.shutdown(Duration::from_secs(3));
            }
        }
    }

    fn call_timeout(&self, entry: &Entry) -> Duration {
        secs(
            entry
                .config
                .timeout_s
                .unwrap_or(self.section.call_timeout_s),
        )
    }
}

impl Drop for ToolRegistry {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn start_one(cfg: &ServerConfig, rt: Arc<Runtime>, connect: Duration) -> Entry {
    let started = cfg
        .transport()
        .and_then(|t| McpServer::connect(&cfg.name, &t, rt, connect))
        .and_then(|server| {
            let tools = server.list_tools(connect)?;
            Ok((server, tools))
        });
    match started {
        Ok((server, tools)) => Entry {
            tools: tools
                .into_iter()
                .filter(|t| {
                    cfg.allowed_tools.is_empty()
                        || cfg.allowed_tools.iter().any(|g| stages::glob(g, &t.name))
                })
                .collect(),
            config: cfg.clone(),
            server: Some(server),
            error: None,
        },
        Err(e) => Entry {
            config: cfg.clone(),
            server: None,
            tools: Vec::new(),
            error: Some(e.to_string()),
        },
    }
}

fn secs(s: f64) -> Duration {
    Duration::try_from_secs_f64(s).unwrap_or(Duration::from_secs(60))
}

/// How a server is reached, for people.
pub fn endpoint(cfg: &ServerConfig) -> String {
    match cfg.transport() {
        Ok(Transport::Stdio { command, args, .. }) => {
            format!("stdio: {command} {}", args.join(" "))
                .trim_end()
                .to_string()
        }
        Ok(Transport::Http { url }) => format!("http: {url}"),
        Err(e) => e.to_string(),
    }
}

/// The name the model sees: `<server>__<tool>`, so two servers' tools never collide, in
/// the characters and length every provider accepts (`[A-Za-z0-9_-]{1,64}`).
pub(crate) fn exposed_name(server: &str, tool: &str) -> String {
    let raw = format!("{server}__{tool}");
    raw.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect()
}

struct Offered {
    exposed: String,
    entry: usize,
    tool: McpTool,
}

/// The tools one role may use in one stage: a [`ToolBox`] for `llm::run_tools`.
pub struct RoleTools<'a> {
    registry: &'a ToolRegistry,
    offered: Vec<Offered>,
}

impl RoleTools<'_> {
    pub fn is_empty(&self) -> bool {
        self.offered.is_empty()
    }

    /// The names the model sees.
    pub fn names(&self) -> Vec<String> {
        self.offered.iter().map(|o| o.exposed.clone()).collect()
    }
}

impl ToolBox for RoleTools<'_> {
    fn specs(&self) -> Vec<ToolSpec> {
        self.offered
            .iter()
            .map(|o| ToolSpec {
                name: o.exposed.clone(),
                description: o.tool.description.clone(),
                parameters: o.tool.input_schema.clone(),
            })
            .collect()
    }

    fn call(&self, call: &ToolCall) -> Result<String, ToolFailure> {
        let Some(o) = self.offered.iter().find(|o| o.exposed == call.name) else {
            return Err(ToolError::UnknownTool {
                name: call.name.clone(),
                offered: self.names().join(", "),
            }
            .into());
        };
        let entry = &self.registry.entries[o.entry];
        let server = entry.server.as_ref().ok_or_else(|| {
            ToolFailure(format!("MCP server `{}` was shut down", entry.config.name))
        })?;
        let timeout = self.registry.call_timeout(entry);
        let server_name = entry.config.name.as_str();
        let _span =
            tracing::info_span!("tool_call", server = server_name, tool = %o.tool.name).entered();
        let outcome = server
            .call(&o.tool.name, &call.arguments, timeout)
            .inspect_err(|e| {
                // The server misbehaved (exited, timed out, spoke garbage): the model gets the
                // failure as its tool result, the researcher this line in youra.log.
                tracing::warn!(server = server_name, "{e}");
            })?;
        if outcome.is_error {
            return Err(ToolFailure(format!(
                "`{}` reported an error: {}",
                o.tool.name, outcome.text
            )));
        }
        Ok(outcome.text)
    }
}
