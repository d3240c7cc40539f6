//! The LLM layer: one [`Provider`] trait over every model endpoint, and the pieces that
//! wrap a provider so every exchange is recorded, replayable and charged.
//!
//! Providers are synchronous: the engine is a sequential state machine on its own thread,
//! so a blocking call keeps its control flow plain (see docs/ARCHITECTURE.md, "Engine").

mod anthropic;
mod anthropic_stream;
pub mod caps;
pub mod doctor;
mod error;
pub mod http;
mod http_config;
pub mod ledger;
mod openai;
mod openai_stream;
mod openai_wire;
mod outage_watch;
pub mod reasoning;
pub mod recorder;
pub mod replay;
pub mod reply;
pub mod retry;
pub mod role_config;
pub mod roles;
pub mod schema;
pub mod sse;
pub mod structured;
pub mod tokens;
pub mod tool_loop;
pub mod transcript;
mod types;

pub use anthropic::Anthropic;
pub use error::{LlmError, duration_words};
pub use http_config::HttpConfig;
pub use openai::OpenAiCompatible;
pub use role_config::{ProviderKind, RoleConfig};
pub use roles::{LlmSettings, Roles};
pub use schema::ReplySchema;
pub use structured::Structured;
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
    /// Whether its calls cost nothing when the price table names no price (a local server,
    /// a replay): otherwise an unpriced model's cost is unknown.
    fn free(&self) -> bool {
        false
    }
}

/// The HTTP provider for a role, from its layered settings: the provider kind fills what
/// the role leaves unset (base URL, key variable, dialect), and an `auto` dialect takes what
/// `youra doctor` remembered for this endpoint in `remembered`.
/// Outages are waited out for `outage` (`[llm] outage_wait_s`) and reported to `watch`.
fn http_provider(
    kind: ProviderKind,
    role: &str,
    cfg: &RoleConfig,
    remembered: &std::collections::BTreeMap<String, Structured>,
    outage: (std::time::Duration, &retry::OutageWatch),
) -> Result<std::sync::Arc<dyn Provider>, LlmError> {
    let mut http = http_config(kind, role, cfg, remembered, |k| std::env::var(k).ok())?;
    http.outage_wait = outage.0;
    let local = kind.local() || is_loopback(&http.base_url);
    let watch = outage.1.clone();
    Ok(match kind {
        ProviderKind::Anthropic => {
            std::sync::Arc::new(Anthropic::new(http)?.local(local).watch(watch))
        }
        _ => std::sync::Arc::new(OpenAiCompatible::new(http)?.local(local).watch(watch)),
    })
}

/// A role's endpoint settings, resolved (pure but for `env`, which tests replace).
pub(crate) fn http_config(
    kind: ProviderKind,
    role: &str,
    cfg: &RoleConfig,
    remembered: &std::collections::BTreeMap<String, Structured>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<HttpConfig, LlmError> {
    let mut http = HttpConfig {
        base_url: cfg
            .base_url
            .clone()
            .or_else(|| kind.default_base_url(&env))
            .unwrap_or_default(),
        model: cfg.model.clone().ok_or_else(|| LlmError::Config(format!("role `{role}` names no model: set `model` under [llm.default] or [llm.roles.{role}] in youra.toml")))?,
        api_key_env: cfg
            .api_key_env
            .clone()
            .or_else(|| kind.default_key_env().map(str::to_string)),
        temperature: cfg.temperature,
        max_tokens: cfg.max_tokens,
        ..HttpConfig::default()
    };
    if let Some(t) = cfg.timeout_s.filter(|t| *t > 0.0) {
        http.request_timeout = std::time::Duration::from_secs_f64(t);
        http.idle_timeout = std::time::Duration::from_secs_f64(t);
    }
    if let Some(t) = cfg.call_timeout_s.filter(|t| *t > 0.0) {
        http.call_timeout = std::time::Duration::from_secs_f64(t);
    }
    if let Some(r) = cfg.max_retries {
        http.max_retries = r;
    }
    if let Some(s) = cfg.stream {
        http.stream = s;
    }
    http.structured = match cfg.structured.unwrap_or_default() {
        Structured::Auto => remembered
            .get(&structured::endpoint_key(&http.base_url, &http.model))
            .copied()
            .unwrap_or_else(|| kind.default_structured()),
        chosen => chosen,
    };
    Ok(http)
}

/// `localhost`, `127.x`, `[::1]`: a server on this machine (its calls cost no dollars).
fn is_loopback(base_url: &str) -> bool {
    let rest = base_url
        .split_once("://")
        .map_or(base_url, |(_, r)| r)
        .trim_start_matches('[');
    ["localhost", "127.", "::1"]
        .iter()
        .any(|h| rest.starts_with(h))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn cfg(model: &str) -> RoleConfig {
        RoleConfig {
            model: Some(model.into()),
            ..RoleConfig::default()
        }
    }

    #[test]
    fn provider_aliases_fill_base_url_key_and_dialect() {
        let none = |_: &str| None;
        let table = [
            (
                ProviderKind::Ollama,
                "http://localhost:11434/v1",
                None,
                Structured::JsonSchema,
            ),
            (
                ProviderKind::Vllm,
                "http://localhost:8000/v1",
                None,
                Structured::JsonSchema,
            ),
            (
                ProviderKind::Llamacpp,
                "http://localhost:8080/v1",
                None,
                Structured::JsonObject,
            ),
            (
                ProviderKind::Openrouter,
                "https://openrouter.ai/api/v1",
                Some("OPENROUTER_API_KEY"),
                Structured::JsonSchema,
            ),
            (
                ProviderKind::Openai,
                "",
                Some("OPENAI_API_KEY"),
                Structured::JsonSchema,
            ),
            (
                ProviderKind::Anthropic,
                "",
                Some("ANTHROPIC_API_KEY"),
                Structured::Tool,
            ),
        ];
        for (kind, url, key, dialect) in table {
            let h = http_config(kind, "executor", &cfg("m"), &BTreeMap::new(), none).unwrap();
            assert_eq!(h.base_url, url, "{kind:?}");
            assert_eq!(h.api_key_env.as_deref(), key, "{kind:?}");
            assert_eq!(h.structured, dialect, "{kind:?}");
        }
        let env = |k: &str| (k == "OPENAI_BASE_URL").then(|| "http://proxy:9/v1".to_string());
        let h = http_config(ProviderKind::Openai, "x", &cfg("m"), &BTreeMap::new(), env).unwrap();
        assert_eq!(h.base_url, "http://proxy:9/v1");
        let mut own = cfg("m");
        own.base_url = Some("http://mine/v1".into());
        let h = http_config(ProviderKind::Openai, "x", &own, &BTreeMap::new(), env).unwrap();
        assert_eq!(h.base_url, "http://mine/v1", "the role's own URL wins");
    }

    #[test]
    fn auto_takes_the_doctors_choice_for_that_endpoint() {
        let mut memory = BTreeMap::new();
        memory.insert(
            structured::endpoint_key("http://localhost:11434/v1", "m"),
            Structured::Format,
        );
        let none = |_: &str| None;
        let h = http_config(ProviderKind::Ollama, "x", &cfg("m"), &memory, none).unwrap();
        assert_eq!(h.structured, Structured::Format);
        let h = http_config(ProviderKind::Ollama, "x", &cfg("other"), &memory, none).unwrap();
        assert_eq!(h.structured, Structured::JsonSchema);
        let mut fixed = cfg("m");
        fixed.structured = Some(Structured::None);
        let h = http_config(ProviderKind::Ollama, "x", &fixed, &memory, none).unwrap();
        assert_eq!(h.structured, Structured::None, "an explicit dialect wins");
        assert!(is_loopback("http://127.0.0.1:8080/v1") && is_loopback("http://[::1]:1"));
        assert!(!is_loopback("https://api.openai.com/v1"));
    }
}
