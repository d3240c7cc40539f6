//! How to reach one HTTP model endpoint: where, which model, how long to wait, how often
//! to retry. Read from TOML (durations as seconds, `1.5`); holds no secret.
//!
//! The API key is named, never held: `api_key_env` is the *name* of an environment variable,
//! read at call time ([`HttpConfig::api_key`]) so the key never sits in anything that is
//! serialised, logged, or shown by `Debug`.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Deserializer};

use super::LlmError;
use super::retry::RetryPolicy;

#[derive(Clone, PartialEq, Deserialize)]
// No `deny_unknown_fields`: the run configuration may `#[serde(flatten)]` this into a role's
// table beside its own keys, and serde refuses that combination.
#[serde(default)]
pub struct HttpConfig {
    /// Empty means the provider's own default (`https://api.openai.com/v1`,
    /// `https://api.anthropic.com`). A trailing slash is accepted.
    pub base_url: String,
    pub model: String,
    /// The name of the environment variable holding the key (`OPENAI_API_KEY`); `None`
    /// for local servers (Ollama, llama.cpp, vLLM) that need none.
    pub api_key_env: Option<String>,
    /// Used when the request does not set its own.
    pub temperature: Option<f32>,
    /// Used when the request does not set its own.
    pub max_tokens: Option<u32>,
    #[serde(deserialize_with = "seconds")]
    pub connect_timeout: Duration,
    /// The whole exchange, for a non-streaming call.
    #[serde(deserialize_with = "seconds")]
    pub request_timeout: Duration,
    /// The longest silence allowed between two chunks of a stream (and before its headers).
    #[serde(deserialize_with = "seconds")]
    pub idle_timeout: Duration,
    /// Retries after the first attempt; 4 means at most 5 requests.
    pub max_retries: u32,
    #[serde(deserialize_with = "seconds")]
    pub backoff_base: Duration,
    #[serde(deserialize_with = "seconds")]
    pub backoff_max: Duration,
    pub stream: bool,
    /// Send `response_format: json_object` when the request asks for JSON (OpenAI-compatible
    /// endpoints only); turn off for a server that rejects the field (the same as
    /// `structured = "none"`).
    pub json_mode: bool,
    /// How a reply's JSON Schema is sent (`super::structured`); `auto` is resolved when the
    /// provider is built (`youra doctor`'s choice, else the provider kind's).
    pub structured: super::Structured,
    /// The longest one call may take, streaming or not, however steadily the server talks:
    /// a degenerate reply that never ends is cut off here.
    #[serde(deserialize_with = "seconds")]
    pub call_timeout: Duration,
    /// Sent with every request (OpenRouter's `HTTP-Referer`, a proxy's routing header).
    pub extra_headers: BTreeMap<String, String>,
    /// How long an endpoint that does not answer is waited for once the retries are spent
    /// (`super::retry`); set from `[llm] outage_wait_s` for a run's roles, zero elsewhere
    /// (`youra doctor` must answer now, not in half an hour).
    #[serde(deserialize_with = "seconds")]
    pub outage_wait: Duration,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            base_url: String::new(),
            model: String::new(),
            api_key_env: None,
            temperature: None,
            max_tokens: None,
            connect_timeout: Duration::from_secs(10),
            // Long generations on a busy server take minutes; the retry loop bounds the rest.
            request_timeout: Duration::from_secs(600),
            idle_timeout: Duration::from_secs(120),
            max_retries: 4,
            backoff_base: Duration::from_secs(1),
            backoff_max: Duration::from_secs(30),
            stream: true,
            json_mode: true,
            structured: super::Structured::Auto,
            call_timeout: Duration::from_secs(300),
            extra_headers: BTreeMap::new(),
            outage_wait: Duration::ZERO,
        }
    }
}

impl HttpConfig {
    /// The dialect requests are sent in: `none` when JSON mode is off.
    pub fn dialect(&self) -> super::Structured {
        if self.json_mode {
            self.structured
        } else {
            super::Structured::None
        }
    }

    pub(crate) fn retry_policy(&self) -> RetryPolicy {
        RetryPolicy {
            max_retries: self.max_retries,
            backoff_base: self.backoff_base,
            backoff_max: self.backoff_max,
            outage_wait: self.outage_wait,
        }
    }

    /// The key, read from the environment now. `Ok(None)` when no variable is configured or
    /// it is unset/empty: local servers need no key, and a server that does will say 401
    /// (the error then names the variable, see [`HttpConfig::missing_key_hint`]).
    pub fn api_key(&self) -> Result<Option<String>, LlmError> {
        let Some(name) = &self.api_key_env else {
            return Ok(None);
        };
        match std::env::var(name) {
            Ok(key) if key.trim().is_empty() => Ok(None),
            Ok(key) => Ok(Some(key.trim().to_string())),
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => Err(LlmError::Config(format!(
                "the environment variable {name} holds non-UTF-8 bytes; set it to the plain API key"
            ))),
        }
    }

    /// Words to add to a 401/403: which variable to set, when it is configured but unset.
    pub(crate) fn missing_key_hint(&self) -> String {
        match &self.api_key_env {
            Some(name) if matches!(self.api_key(), Ok(None)) => {
                format!(" (the environment variable {name} is not set; export your API key there)")
            }
            None => " (no api_key_env is configured for this endpoint)".to_string(),
            Some(_) => String::new(),
        }
    }

    /// `base_url` (or `default`) without trailing slashes, then `path`.
    pub fn endpoint(&self, default: &str, path: &str) -> String {
        let base = if self.base_url.trim().is_empty() {
            default
        } else {
            self.base_url.trim()
        };
        format!(
            "{}/{}",
            base.trim_end_matches('/'),
            path.trim_start_matches('/')
        )
    }
}

/// Header values may carry credentials (a proxy's token), so `Debug` names them only.
impl fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key_env", &self.api_key_env)
            .field("temperature", &self.temperature)
            .field("max_tokens", &self.max_tokens)
            .field("connect_timeout", &self.connect_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("max_retries", &self.max_retries)
            .field("backoff_base", &self.backoff_base)
            .field("backoff_max", &self.backoff_max)
            .field("stream", &self.stream)
            .field("json_mode", &self.json_mode)
            .field("structured", &self.structured)
            .field("call_timeout", &self.call_timeout)
            .field("outage_wait", &self.outage_wait)
            .field(
                "extra_headers",
                &self.extra_headers.keys().collect::<Vec<_>>(),
            )
            .finish()
    }
}

fn seconds<'de, D: Deserializer<'de>>(de: D) -> Result<Duration, D::Error> {
    let secs = f64::deserialize(de)?;
    Duration::try_from_secs_f64(secs).map_err(|_| {
        serde::de::Error::custom(format!(
            "{secs} is not a duration in seconds (want a number ≥ 0, e.g. 1.5)"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_reads_seconds_and_keeps_defaults() {
        let text = r#"
            base_url = "http://127.0.0.1:8000/v1/"
            model = "qwen"
            request_timeout = 2.5
            stream = false
            [extra_headers]
            X-Title = "youra"
        "#;
        let cfg: HttpConfig = toml::from_str(text).expect("fixture parses");
        assert_eq!(cfg.request_timeout, Duration::from_millis(2500));
        assert_eq!(cfg.idle_timeout, Duration::from_secs(120));
        assert_eq!(cfg.max_retries, 4);
        assert!(!cfg.stream && cfg.json_mode);
        assert_eq!(
            cfg.endpoint("https://x", "/chat/completions"),
            "http://127.0.0.1:8000/v1/chat/completions"
        );
        assert!(toml::from_str::<HttpConfig>("request_timeout = -1").is_err());
    }

    #[test]
    fn empty_base_url_uses_the_default() {
        let cfg = HttpConfig::default();
        assert_eq!(
            cfg.endpoint("https://api.anthropic.com", "v1/messages"),
            "https://api.anthropic.com/v1/messages"
        );
    }

    #[test]
    fn debug_shows_header_names_not_values() {
        let mut cfg = HttpConfig::default();
        cfg.extra_headers
            .insert("X-Proxy-Token".into(), "s3cr3t-value".into());
        let shown = format!("{cfg:?}");
        assert!(shown.contains("X-Proxy-Token") && !shown.contains("s3cr3t-value"));
    }
}
