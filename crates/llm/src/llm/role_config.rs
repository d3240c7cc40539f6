//! How one role reaches its model: provider kind, endpoint, model and sampling settings.
//! Deserialised from the layered configuration (`crate::config`); keys are never here,
//! only the NAME of the environment variable that holds one.

use serde::{Deserialize, Serialize};

use super::Structured;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// Any OpenAI-compatible chat-completions endpoint; without a `base_url`, OpenAI's own
    /// (or `OPENAI_BASE_URL`).
    #[serde(alias = "openai-compatible", alias = "openai_compatible")]
    Openai,
    /// OpenRouter (`https://openrouter.ai/api/v1`, key in `OPENROUTER_API_KEY`).
    Openrouter,
    /// Ollama's OpenAI-compatible endpoint (`http://localhost:11434/v1`).
    Ollama,
    /// vLLM's OpenAI-compatible server (`http://localhost:8000/v1`).
    Vllm,
    /// llama.cpp's server or llama-cpp-python's (`http://localhost:8080/v1`).
    #[serde(alias = "llama.cpp", alias = "llama-cpp", alias = "llama_cpp")]
    Llamacpp,
    Anthropic,
    /// Recorded exchanges (offline demo, tests, debugging re-runs).
    #[default]
    Replay,
}

impl ProviderKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Openai => "openai",
            ProviderKind::Openrouter => "openrouter",
            ProviderKind::Ollama => "ollama",
            ProviderKind::Vllm => "vllm",
            ProviderKind::Llamacpp => "llamacpp",
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Replay => "replay",
        }
    }

    /// Where the endpoint is when `base_url` is unset (`None`: the client's own default,
    /// OpenAI's or Anthropic's host). `env` reads `OPENAI_BASE_URL` for the `openai` kind.
    pub(crate) fn default_base_url(self, env: impl Fn(&str) -> Option<String>) -> Option<String> {
        match self {
            ProviderKind::Openai => env("OPENAI_BASE_URL").filter(|u| !u.trim().is_empty()),
            ProviderKind::Openrouter => Some("https://openrouter.ai/api/v1".into()),
            ProviderKind::Ollama => Some("http://localhost:11434/v1".into()),
            ProviderKind::Vllm => Some("http://localhost:8000/v1".into()),
            ProviderKind::Llamacpp => Some("http://localhost:8080/v1".into()),
            ProviderKind::Anthropic | ProviderKind::Replay => None,
        }
    }

    /// The variable holding the key when `api_key_env` is unset (local servers need none).
    pub(crate) fn default_key_env(self) -> Option<&'static str> {
        match self {
            ProviderKind::Openai => Some("OPENAI_API_KEY"),
            ProviderKind::Openrouter => Some("OPENROUTER_API_KEY"),
            ProviderKind::Anthropic => Some("ANTHROPIC_API_KEY"),
            _ => None,
        }
    }

    /// The dialect `auto` means before `youra doctor` has probed the endpoint.
    pub(crate) fn default_structured(self) -> Structured {
        match self {
            ProviderKind::Llamacpp => Structured::JsonObject,
            ProviderKind::Anthropic => Structured::Tool,
            ProviderKind::Replay => Structured::None,
            _ => Structured::JsonSchema,
        }
    }

    /// A server on the researcher's own machine or cluster: its calls cost no dollars.
    pub fn local(self) -> bool {
        matches!(
            self,
            ProviderKind::Ollama
                | ProviderKind::Vllm
                | ProviderKind::Llamacpp
                | ProviderKind::Replay
        )
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Default, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct RoleConfig {
    pub provider: Option<ProviderKind>,
    pub base_url: Option<String>,
    pub model: Option<String>,
    /// The environment variable that holds the API key (`OPENAI_API_KEY`); never the key.
    pub api_key_env: Option<String>,
    pub temperature: Option<f32>,
    pub max_tokens: Option<u32>,
    pub timeout_s: Option<f64>,
    pub max_retries: Option<u32>,
    pub stream: Option<bool>,
    /// How reply schemas are sent (`super::structured`); `auto` (the default) uses what
    /// `youra doctor` chose for this endpoint, else the provider's usual dialect.
    pub structured: Option<Structured>,
    /// The longest one call may take in all, streaming included (seconds; default 300).
    pub call_timeout_s: Option<f64>,
    /// Replay bundle (a `.jsonl` file or a transcripts folder), relative to the run.
    pub replay: Option<String>,
    /// Replay at a watchable pace: wait this long before serving each recorded reply.
    pub replay_delay_ms: Option<u64>,
}

impl RoleConfig {
    /// This role's settings with `fallback`'s filling what this one leaves unset.
    pub fn or(&self, fallback: &RoleConfig) -> RoleConfig {
        RoleConfig {
            provider: self.provider.or(fallback.provider),
            base_url: self.base_url.clone().or_else(|| fallback.base_url.clone()),
            model: self.model.clone().or_else(|| fallback.model.clone()),
            api_key_env: self
                .api_key_env
                .clone()
                .or_else(|| fallback.api_key_env.clone()),
            temperature: self.temperature.or(fallback.temperature),
            max_tokens: self.max_tokens.or(fallback.max_tokens),
            timeout_s: self.timeout_s.or(fallback.timeout_s),
            max_retries: self.max_retries.or(fallback.max_retries),
            stream: self.stream.or(fallback.stream),
            structured: self.structured.or(fallback.structured),
            call_timeout_s: self.call_timeout_s.or(fallback.call_timeout_s),
            replay: self.replay.clone().or_else(|| fallback.replay.clone()),
            replay_delay_ms: self.replay_delay_ms.or(fallback.replay_delay_ms),
        }
    }
}
