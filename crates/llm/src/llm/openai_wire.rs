//! What the OpenAI-compatible client and its stream reader share: the usage a server
//! reports, tool arguments in any of their shapes, an error inside a 200, and the estimate
//! for a server that reports no usage. Below both, so neither imports the other.

use serde::Deserialize;
use serde_json::{Value, json};

use super::http;
use super::{ChatRequest, LlmError, Usage};

#[derive(Deserialize)]
pub(super) struct WireUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    completion_tokens_details: Option<WireDetails>,
}

#[derive(Deserialize)]
pub(super) struct WireDetails {
    #[serde(default)]
    reasoning_tokens: u64,
}

impl From<WireUsage> for Usage {
    fn from(u: WireUsage) -> Self {
        Usage {
            input_tokens: u.prompt_tokens,
            output_tokens: u.completion_tokens,
            estimated: false,
            counted: false,
            reasoning_tokens: u
                .completion_tokens_details
                .map_or(0, |d| d.reasoning_tokens),
        }
    }
}

/// Tool arguments: a JSON string (the standard), an object (some local servers), or
/// nothing/empty (a tool without parameters).
pub(super) fn tool_arguments(url: &str, tool: &str, raw: Value) -> Result<Value, LlmError> {
    match raw {
        Value::String(s) if s.trim().is_empty() => Ok(json!({})),
        Value::String(s) => serde_json::from_str(&s).map_err(|e| LlmError::Malformed {
            url: url.to_string(),
            detail: format!(
                "the arguments for tool `{tool}` are not JSON ({e}): {:?}",
                http::excerpt(&s)
            ),
        }),
        Value::Null => Ok(json!({})),
        other => Ok(other),
    }
}

/// `{"error": {"message", "code"}}` in a 200 (OpenRouter) or in a stream chunk. The code is
/// used as the status when it is one, so a 429 or 5xx upstream stays retryable.
pub(super) fn error_in_body(url: &str, error: &Value) -> LlmError {
    let message = error["message"].as_str().unwrap_or("(no message)");
    let status = error["code"]
        .as_u64()
        .filter(|c| (400..600).contains(c))
        .unwrap_or(502) as u16;
    LlmError::Http {
        url: url.to_string(),
        status,
        body: http::excerpt(message),
    }
}

/// chars/4 for a server that reports no usage, marked as an estimate.
pub(super) fn estimated_usage(request: &ChatRequest, content: &str) -> Usage {
    let prompt: usize = request
        .messages
        .iter()
        .map(|m| m.content.chars().count())
        .sum();
    Usage {
        input_tokens: http::estimate_tokens(prompt),
        output_tokens: http::estimate_tokens(content.chars().count()),
        estimated: true,
        counted: false,
        reasoning_tokens: 0,
    }
}
