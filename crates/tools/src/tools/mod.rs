//! Tool access over the Model Context Protocol: MCP servers configured per run and per role
//! (`[[tools.servers]]` in youra.toml), offered to a stage's model calls as tools.
//!
//! - `config.rs`: the `[tools]` section (servers, limits, stage overrides).
//! - `mcp.rs`: one connected server (rmcp client on a small tokio runtime, blocking API,
//!   every call bounded by a timeout).
//! - `registry.rs`: the run's servers, started and stopped with the run; which tools a
//!   role may use in a stage (YouRA Table 7 as the default); [`RoleTools`], the
//!   [`ToolBox`](crate::llm::ToolBox) the tool-call loop runs calls through.
//! - `stages.rs`: the Table 7 mapping as data, and tool-name globs.
//!
//! See docs/ARCHITECTURE.md, "Tool access".

pub mod config;
pub mod mcp;
pub mod registry;
pub mod stages;

pub use config::{ServerConfig, ToolsSection};
pub use mcp::{McpServer, McpTool, Transport};
pub use registry::{RoleTools, ServerHealth, ToolRegistry};

use std::time::Duration;

/// What went wrong with a tool server or call, in words a researcher can act on.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("tools configuration: {0}")]
    Config(String),
    #[error("could not start the MCP client runtime: {0}")]
    Runtime(String),
    #[error(
        "cannot start MCP server `{server}` ({command}): {detail}; check that it is installed and on PATH"
    )]
    Spawn {
        server: String,
        command: String,
        detail: String,
    },
    #[error("MCP server `{server}` did not finish its handshake: {detail}{stderr}")]
    Handshake {
        server: String,
        detail: String,
        stderr: String,
    },
    #[error(
        "MCP server `{server}` did not answer `{op}` within {after:?}; it may hang: check it alone with `youra tools list`, or raise `call_timeout_s` under [tools]{stderr}"
    )]
    Timeout {
        server: String,
        op: String,
        after: Duration,
        stderr: String,
    },
    #[error(
        "MCP server `{server}` is gone (it exited or closed the connection) during `{op}`{stderr}; check its command, or run it alone with `youra tools list --stdio`"
    )]
    ServerGone {
        server: String,
        op: String,
        stderr: String,
    },
    #[error("MCP server `{server}` answered `{op}` with an error: {detail}")]
    Protocol {
        server: String,
        op: String,
        detail: String,
    },
    #[error("no tool `{name}` is offered here (offered: {offered})")]
    UnknownTool { name: String, offered: String },
}

impl From<ToolError> for crate::llm::ToolFailure {
    fn from(e: ToolError) -> Self {
        crate::llm::ToolFailure(e.to_string())
    }
}
