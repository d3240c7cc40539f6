//! One MCP server, connected through rmcp (the official Rust SDK) and used synchronously.
//!
//! rmcp is async (tokio); the engine is a sequential thread. Each [`McpServer`] runs on a
//! runtime it is given (the registry owns one per run, with one worker thread) and every
//! method blocks on it with a timeout: a server that hangs costs its call `timeout`, a
//! server that exits turns into [`ToolError::ServerGone`] with the last lines it wrote to
//! stderr. Nothing here can block the engine for longer than the timeout it was given.

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ContentBlock, Implementation,
    ProtocolVersion,
};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{Peer, RoleClient, ServiceError, ServiceExt};
use tokio::runtime::Runtime;

use super::ToolError;

/// How to reach a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        /// Set on top of a cleared environment (see `BASE_ENV`).
        env: Vec<(String, String)>,
    },
    /// A streamable HTTP endpoint.
    Http { url: String },
}

/// What a stdio server inherits from youra's environment besides its configured variables:
/// enough to find programs and a home folder, and no API key of youra's.
const BASE_ENV: &[&str] = &["PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "USER", "TERM"];

/// The stderr lines kept for error messages.
const STDERR_LINES: usize = 20;

/// A tool as the server describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct McpTool {
    pub name: String,
    pub description: String,
    pub input_schema: serde_json::Value,
}

/// A tool's answer, flattened to text for the model.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOutcome {
    pub text: String,
    /// The server flagged the result as an error (the text says what went wrong).
    pub is_error: bool,
}

pub struct McpServer {
    name: String,
    rt: Arc<Runtime>,
    peer: Peer<RoleClient>,
    service: Mutex<Option<RunningService<RoleClient, ClientConfig>>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
}

/// A runtime for MCP clients: one worker thread is plenty for a few servers, and the
/// engine thread blocks on it rather than joining it.
pub fn runtime() -> Result<Arc<Runtime>, ToolError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("youra-mcp")
        .enable_all()
        .build()
        .map(Arc::new)
        .map_err(|e| ToolError::Runtime(e.to_string()))
}

fn client_config() -> ClientConfig {
    // The newest version that still has the `initialize` handshake: every server released
    // so far speaks it, and the SDK negotiates down from there.
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("youra", env!("CARGO_PKG_VERSION")),
    )
    .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
}

impl McpServer {
    /// Start (stdio) or reach (HTTP) the server and finish the handshake within `timeout`.
    pub fn connect(
        name: &str,
        transport: &Transport,
        rt: Arc<Runtime>,
        timeout: Duration,
    ) -> Result<McpServer, ToolError> {
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let handshake =
            |detail: String, stderr: &Arc<Mutex<VecDeque<String>>>| ToolError::Handshake {
                server: name.to_string(),
                detail,
                stderr: stderr_note(stderr),
            };
        let started = rt.block_on(async {
            let serving = match transport {
                Transport::Stdio { command, args, env } => {
                    let process = spawn(name, command, args, env, &stderr)?;
                    tokio::time::timeout(timeout, client_config().serve(process)).await
                }
                Transport::Http { url } => {
                    let http = http_transport(name, url)?;
                    tokio::time::timeout(timeout, client_config().serve(http)).await
                }
            };
            match serving {
                Ok(Ok(service)) => Ok(service),
                Ok(Err(e)) => Err(handshake(e.to_string(), &stderr)),
                Err(_) => Err(handshake(format!("no answer within {timeout:?}"), &stderr)),
            }
        })?;
        Ok(McpServer {
            name: name.to_string(),
            peer: started.peer().clone(),
            rt,
            service: Mutex::new(Some(started)),
            stderr,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Every tool the server offers (all pages).
    pub fn list_tools(&self, timeout: Duration) -> Result<Vec<McpTool>, ToolError> {
        let tools = self.bounded("tools/list", timeout, self.peer.list_all_tools())?;
        Ok(tools
            .into_iter()
            .map(|t| McpTool {
                name: t.name.to_string(),
                description: t.description.map(|d| d.to_string()).unwrap_or_default(),
                input_schema: serde_json::Value::Object((*t.input_schema).clone()),
            })
            .collect())
    }

    /// Call `tool` with `arguments` (a JSON object, or null for none).
    pub fn call(
        &self,
        tool: &str,
        arguments: &serde_json::Value,
        timeout: Duration,
    ) -> Result<CallOutcome, ToolError> {
        let mut params = CallToolRequestParams::new(tool.to_string());
        match arguments {
            serde_json::Value::Object(map) => params = params.with_arguments(map.clone()),
            serde_json::Value::Null => {}
            other => {
                return Err(ToolError::Protocol {
                    server: self.name.clone(),
                    op: format!("tools/call {tool}"),
                    detail: format!("arguments must be a JSON object, got {other}"),
                });
            }
        }
        let op = format!("tools/call {tool}");
        let result = self.bounded(&op, timeout, self.peer.call_tool(params))?;
        let text = result
            .content
            .iter()
            .map(content_text)
            .collect::<Vec<_>>()
            .join("\n");
        let text = match (text.is_empty(), &result.structured_content) {
            (true, Some(v)) => v.to_string(),
            _ => text,
        };
        Ok(CallOutcome {
            text,
            is_error: result.is_error.unwrap_or(false),
        })
    }

    /// Close the connection and stop the server (stdio: the SDK closes stdin, then
    /// terminates and kills the child). Waits at most `timeout`; idempotent.
    pub fn shutdown(&self, timeout: Duration) {
        let taken = self
            .service
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(mut service) = taken {
            let _ = self
                .rt
                .block_on(async { service.close_with_timeout(timeout).await });
        }
    }

    /// Run one request with a deadline, translating what went wrong into a [`ToolError`].
    fn bounded<T>(
        &self,
        op: &str,
        timeout: Duration,
        request: impl Future<Output = Result<T, ServiceError>>,
    ) -> Result<T, ToolError> {
        match self
            .rt
            .block_on(async { tokio::time::timeout(timeout, request).await })
        {
            Ok(Ok(v)) => Ok(v),
            Err(_) => Err(ToolError::Timeout {
                server: self.name.clone(),
                op: op.to_string(),
                after: timeout,
                stderr: stderr_note(&self.stderr),
            }),
            Ok(Err(ServiceError::McpError(e))) => Err(ToolError::Protocol {
                server: self.name.clone(),
                op: op.to_string(),
                detail: e.to_string(),
            }),
            Ok(Err(_)) => Err(ToolError::ServerGone {
                server: self.name.clone(),
                op: op.to_string(),
                stderr: stderr_note(&self.stderr),
            }),
        }
    }
}

impl Drop for McpServer {
    fn drop(&mut self) {
        self.shutdown(Duration::from_secs(2));
    }
}

fn spawn(
    name: &str,
    command: &str,
    args: &[String],
    env: &[(String, String)],
    stderr: &Arc<Mutex<VecDeque<String>>>,
) -> Result<TokioChildProcess, ToolError> {
    let mut cmd = tokio::process::Command::new(command);
    cmd.args(args).env_clear().kill_on_drop(true);
    for key in BASE_ENV {
        if let Some(v) = std::env::var_os(key) {
            cmd.env(key, v);
        }
    }
    cmd.envs(env.iter().map(|(k, v)| (k, v)));
    let (process, err) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| ToolError::Spawn {
            server: name.to_string(),
            command: command.to_string(),
            detail: e.to_string(),
        })?;
    if let Some(err) = err {
        tokio::spawn(keep_stderr(err, stderr.clone()));
    }
    Ok(process)
}

/// Keep the last lines a server writes to stderr: they say why it died.
async fn keep_stderr(err: tokio::process::ChildStderr, keep: Arc<Mutex<VecDeque<String>>>) {
    use tokio::io::AsyncBufReadExt;
    let mut lines = tokio::io::BufReader::new(err).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let mut k = keep.lock().unwrap_or_else(|p| p.into_inner());
        if k.len() == STDERR_LINES {
            k.pop_front();
        }
        k.push_back(line);
    }
}

fn stderr_note(keep: &Arc<Mutex<VecDeque<String>>>) -> String {
    let k = keep.lock().unwrap_or_else(|p| p.into_inner());
    if k.is_empty() {
        return String::new();
    }
    let lines: Vec<&str> = k.iter().map(String::as_str).collect();
    format!("; its last output: {}", lines.join(" | "))
}

fn http_transport(
    name: &str,
    url: &str,
) -> Result<StreamableHttpClientTransport<reqwest::Client>, ToolError> {
    // Our reqwest uses rustls without a built-in provider: install ring before building a
    // client, or reqwest panics (docs/ARCHITECTURE.md, "LLM clients").
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| ToolError::Spawn {
            server: name.to_string(),
            command: url.to_string(),
            detail: format!("could not build the HTTP client: {e}"),
        })?;
    Ok(StreamableHttpClientTransport::with_client(
        client,
        StreamableHttpClientTransportConfig::with_uri(url.to_string()),
    ))
}

/// A content block as text; binary content is described, not pasted (base64 is no use to
/// a model and would eat the budget).
fn content_text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(t) => t.text.clone(),
        ContentBlock::Image(i) => format!("[image {}, {} base64 bytes]", i.mime_type, i.data.len()),
        ContentBlock::Audio(_) => "[audio]".to_string(),
        other => serde_json::to_string(other).unwrap_or_else(|_| "[unreadable content]".into()),
    }
}
