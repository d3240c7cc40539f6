//! Assembling an OpenAI-style stream: content deltas appended, tool-call deltas merged by
//! their `index` (the id and name come in the first piece, the arguments in many), usage from
//! the last chunk (`stream_options.include_usage`). A stream is complete when it said
//! `[DONE]` or gave a finish reason; ending without either is `Truncated`.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::http;
use super::openai_wire::{WireUsage, error_in_body, estimated_usage, tool_arguments};
use super::sse::{SseItem, SseReader};
use super::{ChatRequest, ChatResponse, LlmError, ToolCall, Usage};

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    model: String,
    #[serde(default)]
    choices: Vec<ChunkChoice>,
    usage: Option<WireUsage>,
    error: Option<Value>,
}

#[derive(Deserialize)]
struct ChunkChoice {
    #[serde(default)]
    delta: Option<Delta>,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct Delta {
    content: Option<String>,
    tool_calls: Option<Vec<ToolDelta>>,
    reasoning_content: Option<String>,
    reasoning: Option<String>,
}

#[derive(Deserialize)]
struct ToolDelta {
    #[serde(default)]
    index: u32,
    id: Option<String>,
    function: Option<FunctionDelta>,
}

#[derive(Deserialize)]
struct FunctionDelta {
    name: Option<String>,
    arguments: Option<Value>,
}

#[derive(Default)]
struct PartialCall {
    id: Option<String>,
    name: String,
    arguments: String,
}

#[derive(Default)]
struct Assembly {
    content: String,
    reasoning: String,
    calls: BTreeMap<u32, PartialCall>,
    usage: Option<Usage>,
    model: String,
    finish_reason: Option<String>,
}

impl Assembly {
    fn add(&mut self, chunk: Chunk) {
        if !chunk.model.is_empty() {
            self.model = chunk.model;
        }
        if let Some(usage) = chunk.usage {
            self.usage = Some(usage.into());
        }
        // Only the first choice is asked for (`n` is never sent).
        let Some(choice) = chunk.choices.into_iter().next() else {
            return;
        };
        if let Some(reason) = choice.finish_reason {
            self.finish_reason = Some(reason);
        }
        let Some(delta) = choice.delta else { return };
        if let Some(text) = delta.content {
            self.content.push_str(&text);
        }
        if let Some(text) = delta.reasoning_content.or(delta.reasoning) {
            self.reasoning.push_str(&text);
        }
        for piece in delta.tool_calls.unwrap_or_default() {
            let call = self.calls.entry(piece.index).or_default();
            if piece.id.is_some() {
                call.id = piece.id;
            }
            let Some(function) = piece.function else {
                continue;
            };
            if let Some(name) = function.name {
                call.name.push_str(&name);
            }
            match function.arguments {
                Some(Value::String(s)) => call.arguments.push_str(&s),
                Some(Value::Null) | None => {}
                Some(whole) => call.arguments = whole.to_string(),
            }
        }
    }

    fn finish(self, url: &str, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let mut tool_calls = Vec::new();
        for (index, call) in self.calls {
            let arguments = tool_arguments(url, &call.name, Value::String(call.arguments))?;
            tool_calls.push(ToolCall {
                id: call.id.unwrap_or_else(|| format!("call_{index}")),
                name: call.name,
                arguments,
            });
        }
        let usage = match self.usage {
            Some(usage) => usage,
            None => estimated_usage(request, &self.content),
        };
        Ok(ChatResponse {
            content: self.content,
            tool_calls,
            usage,
            model: self.model,
            finish_reason: self.finish_reason,
            reasoning: self.reasoning,
        })
    }
}

/// Read a stream to its end and assemble the reply. `idle` is what a read timeout means.
pub(crate) fn read_stream(
    url: &str,
    idle: Duration,
    input: impl BufRead,
    request: &ChatRequest,
) -> Result<ChatResponse, LlmError> {
    let mut reader = SseReader::new(input);
    let mut assembly = Assembly::default();
    let mut done = false;
    while let Some(item) = reader
        .next_item()
        .map_err(|e| http::body_error(url, idle, &e))?
    {
        let data = match item {
            SseItem::Done => {
                done = true;
                break;
            }
            SseItem::Event { data, .. } => data,
        };
        let chunk: Chunk = http::parse_json(url, data.as_bytes())?;
        if let Some(error) = &chunk.error {
            return Err(error_in_body(url, error));
        }
        assembly.add(chunk);
    }
    if !done && assembly.finish_reason.is_none() {
        return Err(LlmError::Truncated {
            url: url.to_string(),
            detail: format!(
                "the stream ended without [DONE] or a finish reason after {} characters",
                assembly.content.chars().count()
            ),
        });
    }
    assembly.finish(url, request)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(text: &str) -> Result<ChatResponse, LlmError> {
        read_stream(
            "http://x",
            Duration::from_secs(1),
            text.as_bytes(),
            &ChatRequest::default(),
        )
    }

    #[test]
    fn tool_call_pieces_merge_by_index() {
        let text = concat!(
            "data: {\"model\":\"m\",\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"grep\",\"arguments\":\"\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"q\\\":\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"x\\\"}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}\n\n",
            "data: [DONE]\n\n",
        );
        let reply = run(text).expect("stream assembles");
        assert_eq!(reply.tool_calls.len(), 1);
        assert_eq!(reply.tool_calls[0].id, "c1");
        assert_eq!(reply.tool_calls[0].arguments, json!({"q": "x"}));
        assert_eq!(reply.finish_reason.as_deref(), Some("tool_calls"));
        assert_eq!(
            (reply.usage.input_tokens, reply.usage.output_tokens),
            (5, 2)
        );
        assert!(!reply.usage.estimated);
    }

    #[test]
    fn no_usage_is_estimated_and_no_end_is_truncated() {
        let ok = "data: {\"choices\":[{\"delta\":{\"content\":\"abcdefgh\"},\"finish_reason\":\"stop\"}]}\n\n";
        let reply = run(ok).expect("finish reason suffices");
        assert!(reply.usage.estimated);
        assert_eq!(reply.usage.output_tokens, 2);
        let cut = "data: {\"choices\":[{\"delta\":{\"content\":\"abc\"}}]}\n\n";
        assert!(matches!(run(cut), Err(LlmError::Truncated { .. })));
    }
}
