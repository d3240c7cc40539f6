//! How one role reaches its model: provider kind, endpoint, model and sampling settings.
//! Deserialised from the layered configuration (`crate::config`); keys are never here,
//! only the NAME of the environment variable that holds one.

use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// Any OpenAI-compatible chat-completions endpoint (OpenAI, OpenRouter, vLLM, Ollama,
    /// llama.cpp's server).
    #[serde(
        alias = "openai-compatible",
        alias = "openai_compatible",
        alias = "vllm",
        alias = "ollama"
    )]
    Openai,
    Anthropic,
    /// Recorded exchanges (offline demo, tests, debugging re-runs).
    #[default]
    Replay,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
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
            replay: self.replay.clone().or_else(|| fallback.replay.clone()),
            replay_delay_ms: self.replay_delay_ms.or(fallback.replay_delay_ms),
        }
    }
}
