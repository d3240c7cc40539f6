//! `youra tools list`: the MCP servers a run configures (or one given on the command line),
//! started, asked for their tools, and stopped: a quick check that a server works before a
//! run depends on it. Exit 0 when every server answered, 1 when one did not, 2 for usage
//! and configuration errors.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use color_eyre::eyre::Result;

use crate::tools::{ServerConfig, ServerHealth, ToolRegistry, ToolsSection};

#[derive(Debug, Subcommand)]
pub enum ToolsCommand {
    /// Start the run's MCP servers (`[[tools.servers]]` in youra.toml), or the one given
    /// with --stdio / --http, and list each server's health and tools.
    List(ListArgs),
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Run folder whose youra.toml configures the servers.
    #[arg(required_unless_present_any = ["stdio", "http"], conflicts_with_all = ["stdio", "http"])]
    pub dir: Option<PathBuf>,
    /// One server started by this shell command (it speaks MCP on stdin/stdout).
    #[arg(long, value_name = "COMMAND", conflicts_with = "http")]
    pub stdio: Option<String>,
    /// One server at this streamable HTTP URL.
    #[arg(long, value_name = "URL")]
    pub http: Option<String>,
    /// Seconds each server gets to start and to answer.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS")]
    pub timeout: f64,
    /// Print machine-readable JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(cmd: ToolsCommand) -> Result<i32> {
    let ToolsCommand::List(args) = cmd;
    // A run's servers start only when the researcher trusted its youra.toml (`youra trust`).
    if let Some(dir) = &args.dir
        && let Some(refused) = super::trust_cmd::guard(dir)
    {
        return Ok(refused + 1);
    }
    let section = match section(&args) {
        Ok(s) => s,
        Err(e) => {
            return Ok(super::fail(
                e,
                "see docs/ARCHITECTURE.md, \"Tool access\", for the [tools] section",
            ) + 1);
        }
    };
    if section.servers.is_empty() {
        let dir = args.dir.as_deref().unwrap_or(Path::new("."));
        println!(
            "no MCP servers configured in {}; add [[tools.servers]] (name, command/args or url)",
            dir.join("youra.toml").display()
        );
        return Ok(0);
    }
    let registry = match ToolRegistry::start(&section) {
        Ok(r) => r,
        Err(e) => return Ok(super::fail(e, "fix the [tools] section of youra.toml") + 1),
    };
    let health = registry.health();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&as_json(&health))?);
    } else {
        print!("{}", render(&health));
    }
    Ok(if health.iter().all(ServerHealth::healthy) {
        0
    } else {
        1
    })
}

fn section(args: &ListArgs) -> Result<ToolsSection, String> {
    let one = |cfg: ServerConfig| ToolsSection {
        connect_timeout_s: args.timeout,
        call_timeout_s: args.timeout,
        servers: vec![cfg],
        ..ToolsSection::default()
    };
    if let Some(command) = &args.stdio {
        // Through `sh -c`, so the command line is written exactly as in a terminal.
        return Ok(one(ServerConfig {
            name: "stdio".into(),
            command: Some("sh".into()),
            args: vec!["-c".into(), command.clone()],
            ..ServerConfig::default()
        }));
    }
    if let Some(url) = &args.http {
        return Ok(one(ServerConfig {
            name: "http".into(),
            url: Some(url.clone()),
            ..ServerConfig::default()
        }));
    }
    let dir = args.dir.as_deref().unwrap_or(Path::new("."));
    let mut section = crate::config::load(dir).map_err(|e| e.to_string())?.tools;
    section.connect_timeout_s = args.timeout;
    Ok(section)
}

/// The text listing: one block per server, its tools indented under it.
pub fn render(health: &[ServerHealth]) -> String {
    let mut out = String::new();
    for h in health {
        let roles = if h.roles.is_empty() {
            "every role".to_string()
        } else {
            h.roles.join(", ")
        };
        let state = match &h.error {
            None => format!("ok, {} tools", h.tools.len()),
            Some(e) => format!("FAILED: {e}"),
        };
        out.push_str(&format!(
            "{} ({}) [{}; {}]: {state}\n",
            h.name, h.endpoint, h.capability, roles
        ));
        let width = h.tools.iter().map(|t| t.name.len()).max().unwrap_or(0);
        for t in &h.tools {
            let first = t.description.lines().next().unwrap_or("");
            out.push_str(&format!("  {:width$}  {first}\n", t.name));
        }
    }
    out
}

fn as_json(health: &[ServerHealth]) -> serde_json::Value {
    serde_json::Value::Array(
        health
            .iter()
            .map(|h| {
                serde_json::json!({
                    "name": h.name,
                    "endpoint": h.endpoint,
                    "capability": h.capability,
                    "roles": h.roles,
                    "healthy": h.healthy(),
                    "error": h.error,
                    "tools": h.tools.iter().map(|t| serde_json::json!({
                        "name": t.name,
                        "description": t.description,
                        "input_schema": t.input_schema,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}
