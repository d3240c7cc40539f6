//! What can go wrong in one exchange, in words a researcher can act on.

use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("configuration: {0}")]
    Config(String),
    #[error("could not reach {url}: {detail}")]
    Transport { url: String, detail: String },
    #[error("{url} did not answer within {after:?}")]
    Timeout { url: String, after: Duration },
    #[error("{url} answered HTTP {status}: {body}")]
    Http {
        url: String,
        status: u16,
        body: String,
    },
    #[error("{url} is rate limiting (HTTP 429){}", retry_after.map(|d| format!(", retry after {d:?}")).unwrap_or_default())]
    RateLimited {
        url: String,
        retry_after: Option<Duration>,
    },
    #[error("malformed reply from {url}: {detail}")]
    Malformed { url: String, detail: String },
    #[error("the reply from {url} was cut off: {detail}")]
    Truncated { url: String, detail: String },
    #[error(
        "no recorded exchange for {key} (call #{ordinal}); record this run live or add the exchange to the bundle"
    )]
    MissingRecording { key: String, ordinal: u32 },
    #[error("gave up after {attempts} attempts: {last}")]
    Exhausted { attempts: u32, last: Box<LlmError> },
    /// The endpoint did not answer for the whole outage window (`[llm] outage_wait_s`):
    /// an infrastructure stop, which `youra run` resumes.
    #[error(
        "{url} did not answer for {} (the outage window, [llm] outage_wait_s = {}): {last}",
        duration_words(*waited),
        window.as_secs()
    )]
    Outage {
        url: String,
        waited: Duration,
        window: Duration,
        last: Box<LlmError>,
    },
    #[error(
        "the model still asked for tools after {rounds} rounds (last: {last}); raise `max_rounds` under [tools] in youra.toml or offer the stage fewer tools"
    )]
    ToolRounds { rounds: u32, last: String },
    #[error(
        "{url} was still answering after {limit:?}, the per-call limit; the reply was dropped (raise `call_timeout_s` for this role in youra.toml, or lower its max_tokens)"
    )]
    CallLimit { url: String, limit: Duration },
    #[error("{0}")]
    Io(String),
}

impl LlmError {
    /// Whether waiting and asking again may help (rate limits, server errors, timeouts,
    /// dropped connections and cut-off streams); a 4xx or a missing recording will not.
    pub fn is_retryable(&self) -> bool {
        match self {
            LlmError::Transport { .. }
            | LlmError::Timeout { .. }
            | LlmError::RateLimited { .. } => true,
            LlmError::Truncated { .. } => true,
            LlmError::Http { status, .. } => *status >= 500 || *status == 408,
            _ => false,
        }
    }

    /// Whether the endpoint itself is down or refusing work for now (refused or dropped
    /// connections, timeouts, 429, 408 and 5xx): worth waiting out for `[llm] outage_wait_s`,
    /// where a cut-off reply or a 4xx is not.
    pub fn is_outage(&self) -> bool {
        match self {
            LlmError::Transport { .. }
            | LlmError::Timeout { .. }
            | LlmError::RateLimited { .. }
            | LlmError::Outage { .. } => true,
            LlmError::Http { status, .. } => *status >= 500 || *status == 408,
            LlmError::Exhausted { last, .. } => last.is_outage(),
            _ => false,
        }
    }

    /// What went wrong in a few words, for a status line: `Connection refused (os error
    /// 111)`, `HTTP 503`, `no answer within 10s`; the whole text otherwise.
    pub fn cause(&self) -> String {
        match self {
            LlmError::Transport { detail, .. } => detail
                .rsplit(": ")
                .find(|part| !part.trim().is_empty())
                .unwrap_or(detail)
                .to_string(),
            LlmError::Timeout { after, .. } => format!("no answer within {after:?}"),
            LlmError::Http { status, .. } => format!("HTTP {status}"),
            LlmError::RateLimited { .. } => "HTTP 429 (rate limited)".into(),
            LlmError::Exhausted { last, .. } | LlmError::Outage { last, .. } => last.cause(),
            other => other.to_string(),
        }
    }

    /// The endpoint the error is about, when it names one.
    pub fn url(&self) -> Option<&str> {
        match self {
            LlmError::Transport { url, .. }
            | LlmError::Timeout { url, .. }
            | LlmError::Http { url, .. }
            | LlmError::RateLimited { url, .. }
            | LlmError::Malformed { url, .. }
            | LlmError::Truncated { url, .. }
            | LlmError::CallLimit { url, .. }
            | LlmError::Outage { url, .. } => Some(url),
            LlmError::Exhausted { last, .. } => last.url(),
            _ => None,
        }
    }
}

/// `95 s`, `31 min`: how long an outage lasted, in the unit a researcher reads.
pub fn duration_words(d: Duration) -> String {
    match d.as_secs() {
        s if s < 120 => format!("{:.0} s", d.as_secs_f64()),
        s => format!("{} min", s / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_are_short_and_say_what() {
        let url = || "http://127.0.0.1:9/v1/chat/completions".to_string();
        let refused = LlmError::Transport {
            url: url(),
            detail: "error sending request for url (http://127.0.0.1:9/v1): client error (Connect): tcp connect error: Connection refused (os error 111)".into(),
        };
        assert_eq!(refused.cause(), "Connection refused (os error 111)");
        let http = LlmError::Http {
            url: url(),
            status: 503,
            body: "<html>…".into(),
        };
        assert_eq!(http.cause(), "HTTP 503");
        let gone = LlmError::Outage {
            url: url(),
            waited: Duration::from_secs(1800),
            window: Duration::from_secs(1800),
            last: Box::new(refused),
        };
        assert_eq!(gone.cause(), "Connection refused (os error 111)");
        assert!(
            gone.to_string().contains("did not answer for 30 min"),
            "{gone}"
        );
        assert!(gone.is_outage() && !gone.is_retryable());
        let cut = LlmError::Truncated {
            url: url(),
            detail: "x".into(),
        };
        assert!(cut.is_retryable() && !cut.is_outage());
        assert!(
            !LlmError::Http {
                url: url(),
                status: 404,
                body: String::new()
            }
            .is_outage()
        );
    }
}
