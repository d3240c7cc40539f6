//! The LLM layer: one [`Provider`] trait over every model endpoint, and the pieces that
//! wrap a provider so every exchange is recorded, replayable and charged.
//!
//! Providers are synchronous: the engine is a sequential state machine on its own thread,
//! so a blocking call keeps its control flow plain (see docs/ARCHITECTURE.md, "Engine").

mod anthropic;
mod anthropic_stream;
mod error;
pub mod http;
mod http_config;
pub mod ledger;
mod openai;
mod openai_stream;
pub mod recorder;
pub mod replay;
pub mod retry;
pub mod role_config;
pub mod roles;
pub mod sse;
pub mod tool_loop;
pub mod transcript;
mod types;

pub use anthropic::Anthropic;
pub use error::LlmError;
pub use http_config::HttpConfig;
pub use openai::OpenAiCompatible;
pub use role_config::{ProviderKind, RoleConfig};
pub use roles::{LlmSettings, Roles};
pub use tool_loop::{ToolBox, ToolFailure, ToolTrace, run_tools};
pub use types::{
    CallKey, ChatRequest, ChatResponse, Message, MessageRole, ToolCall, ToolSpec, Usage,
};

/// A model endpoint. Implementations: the OpenAI-compatible and Anthropic HTTP clients, the
/// replay provider, and the recorder that wraps any of them.
pub trait Provider: Send + Sync {
    /// A short label for logs and the ledger: `openai`, `anthropic`, `replay`.
    fn kind(&self) -> &str;
    /// The model this provider asks for (written to the ledger).
    fn model(&self) -> &str;
    /// One exchange. `key` says who asks (role, stage, hypothesis, attempt); providers that
    /// record or replay use it, HTTP clients ignore it.
    fn complete(&self, key: &CallKey, request: &ChatRequest) -> Result<ChatResponse, LlmError>;
}

/// The HTTP provider for a role, from its layered settings.
fn http_provider(
    kind: ProviderKind,
    role: &str,
    cfg: &RoleConfig,
) -> Result<std::sync::Arc<dyn Provider>, LlmError> {
    let mut http = HttpConfig {
        base_url: cfg.base_url.clone().unwrap_or_default(),
        model: cfg.model.clone().ok_or_else(|| LlmError::Config(format!("role `{role}` names no model: set `model` under [llm.default] or [llm.roles.{role}] in youra.toml")))?,
        api_key_env: cfg.api_key_env.clone(),
        temperature: cfg.temperature,
        max_tokens: cfg.max_tokens,
        ..HttpConfig::default()
    };
    if let Some(t) = cfg.timeout_s.filter(|t| *t > 0.0) {
        http.request_timeout = std::time::Duration::from_secs_f64(t);
        http.idle_timeout = std::time::Duration::from_secs_f64(t);
    }
    if let Some(r) = cfg.max_retries {
        http.max_retries = r;
    }
    if let Some(s) = cfg.stream {
        http.stream = s;
    }
    Ok(match kind {
        ProviderKind::Anthropic => std::sync::Arc::new(Anthropic::new(http)?),
        _ => std::sync::Arc::new(OpenAiCompatible::new(http)?),
    })
}
