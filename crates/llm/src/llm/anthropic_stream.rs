//! Assembling an Anthropic stream: `message_start` (model, input tokens), per-block
//! `content_block_start` / `content_block_delta` (`text_delta`, `input_json_delta` pieces of
//! a tool's input), `message_delta` (stop reason, output tokens so far), `message_stop`.
//! There is no `[DONE]`: a stream without `message_stop` is `Truncated`.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::time::Duration;

use serde_json::Value;

use super::http;
use super::openai_wire::tool_arguments;
use super::sse::{SseItem, SseReader};
use super::{ChatResponse, LlmError, ToolCall, Usage};

#[derive(Default)]
struct Assembly {
    content: String,
    reasoning: String,
    tools: BTreeMap<u64, (String, String, String)>, // index → (id, name, input JSON so far)
    usage: Usage,
    model: String,
    stop_reason: Option<String>,
}

enum Step {
    Continue,
    Stop,
}

impl Assembly {
    fn add(&mut self, url: &str, event: &Value) -> Result<Step, LlmError> {
        let tokens = |v: &Value| v.as_u64();
        match event["type"].as_str().unwrap_or_default() {
            "message_start" => {
                let message = &event["message"];
                self.model = message["model"].as_str().unwrap_or_default().to_string();
                self.usage.input_tokens = tokens(&message["usage"]["input_tokens"]).unwrap_or(0);
                self.usage.output_tokens = tokens(&message["usage"]["output_tokens"]).unwrap_or(0);
            }
            "content_block_start" => {
                let block = &event["content_block"];
                let index = event["index"].as_u64().unwrap_or(0);
                match block["type"].as_str() {
                    Some("tool_use") => {
                        let text = |k: &str| block[k].as_str().unwrap_or_default().to_string();
                        self.tools
                            .insert(index, (text("id"), text("name"), String::new()));
                    }
                    Some("text") => self
                        .content
                        .push_str(block["text"].as_str().unwrap_or_default()),
                    _ => {}
                }
            }
            "content_block_delta" => self.delta(event),
            "message_delta" => {
                if let Some(reason) = event["delta"]["stop_reason"].as_str() {
                    self.stop_reason = Some(finish_reason(reason));
                }
                // Cumulative counts; input tokens appear here too on newer API versions.
                if let Some(n) = tokens(&event["usage"]["output_tokens"]) {
                    self.usage.output_tokens = n;
                }
                if let Some(n) = tokens(&event["usage"]["input_tokens"]) {
                    self.usage.input_tokens = n;
                }
            }
            "message_stop" => return Ok(Step::Stop),
            "error" => return Err(stream_error(url, &event["error"])),
            _ => {} // ping, content_block_stop, and event kinds added later
        }
        Ok(Step::Continue)
    }

    fn delta(&mut self, event: &Value) {
        let delta = &event["delta"];
        let piece = |k: &str| delta[k].as_str().unwrap_or_default();
        match delta["type"].as_str() {
            Some("text_delta") => self.content.push_str(piece("text")),
            Some("input_json_delta") => {
                let index = event["index"].as_u64().unwrap_or(0);
                if let Some(tool) = self.tools.get_mut(&index) {
                    tool.2.push_str(piece("partial_json"));
                }
            }
            Some("thinking_delta") => self.reasoning.push_str(piece("thinking")),
            _ => {} // signature_delta: not passed on
        }
    }

    fn finish(self, url: &str) -> Result<ChatResponse, LlmError> {
        let mut tool_calls = Vec::new();
        for (id, name, input) in self.tools.into_values() {
            let arguments = tool_arguments(url, &name, Value::String(input))?;
            tool_calls.push(ToolCall {
                id,
                name,
                arguments,
            });
        }
        Ok(ChatResponse {
            content: self.content,
            tool_calls,
            usage: self.usage,
            model: self.model,
            finish_reason: self.stop_reason,
            reasoning: self.reasoning,
        })
    }
}

/// An `error` event mid-stream: overloaded (the HTTP 529 case) and server errors stay
/// retryable, a rate limit is a rate limit, anything else is the request's fault.
fn stream_error(url: &str, error: &Value) -> LlmError {
    let message = http::excerpt(error["message"].as_str().unwrap_or("(no message)"));
    let status = match error["type"].as_str().unwrap_or_default() {
        "rate_limit_error" => {
            return LlmError::RateLimited {
                url: url.to_string(),
                retry_after: None,
            };
        }
        "overloaded_error" => 529,
        "api_error" => 500,
        _ => 400,
    };
    LlmError::Http {
        url: url.to_string(),
        status,
        body: message,
    }
}

/// Read a stream to `message_stop` and assemble the reply. `idle` is what a read timeout means.
pub(crate) fn read_stream(
    url: &str,
    idle: Duration,
    input: impl BufRead,
) -> Result<ChatResponse, LlmError> {
    let mut reader = SseReader::new(input);
    let mut assembly = Assembly::default();
    loop {
        let item = reader
            .next_item()
            .map_err(|e| http::body_error(url, idle, &e))?;
        let data = match item {
            Some(SseItem::Event { data, .. }) => data,
            Some(SseItem::Done) => continue,
            None => {
                return Err(LlmError::Truncated {
                    url: url.to_string(),
                    detail: format!(
                        "the stream ended before message_stop after {} characters",
                        assembly.content.chars().count()
                    ),
                });
            }
        };
        let event: Value = http::parse_json(url, data.as_bytes())?;
        if let Step::Stop = assembly.add(url, &event)? {
            return assembly.finish(url);
        }
    }
}

/// Anthropic's stop reasons in the OpenAI words the rest of youra uses.
pub(super) fn finish_reason(stop_reason: &str) -> String {
    match stop_reason {
        "end_turn" | "stop_sequence" => "stop",
        "max_tokens" => "length",
        "tool_use" => "tool_calls",
        other => other,
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_overloaded_event_is_retryable_and_a_missing_stop_truncates() {
        let overloaded = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
        let err =
            read_stream("http://x", Duration::from_secs(1), overloaded.as_bytes()).unwrap_err();
        assert!(matches!(err, LlmError::Http { status: 529, .. }) && err.is_retryable());
        let cut = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"c\",\"usage\":{\"input_tokens\":3}}}\n\n";
        let err = read_stream("http://x", Duration::from_secs(1), cut.as_bytes()).unwrap_err();
        assert!(matches!(err, LlmError::Truncated { .. }));
    }
}
