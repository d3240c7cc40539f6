//! The LLM layer: one [`Provider`] trait over every model endpoint, and the pieces that
//! wrap a provider so every exchange is recorded, replayable and charged.
//!
//! Providers are synchronous: the engine is a sequential state machine on its own thread,
//! so a blocking call keeps its control flow plain (see docs/ARCHITECTURE.md, "Engine").

mod anthropic;
mod anthropic_stream;
mod error;
mod http;
mod http_config;
mod openai;
mod openai_stream;
pub mod retry;
pub mod sse;
mod types;

pub use anthropic::Anthropic;
pub use error::LlmError;
pub use http_config::HttpConfig;
pub use openai::OpenAiCompatible;
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
