//! The tool-call loop: offer tools, run the calls the model asks for, hand the results back,
//! and repeat until the model answers without a tool call or the rounds run out.
//!
//! The loop knows nothing of MCP: tools arrive as a [`ToolBox`] (`tools::RoleTools` is the
//! MCP one; tests pass their own). Every model call goes through the provider it is given,
//! so with a recorder the assistant's tool calls and the tool results (inside the next
//! request) land in `transcripts/`, and a replayed run serves the same replies offline.
//! The recorder also charges the tool results (see `recorder.rs`, `charge_tool_results`).

use std::time::Instant;

use serde::Serialize;

use super::{CallKey, ChatRequest, ChatResponse, LlmError, Message, Provider, ToolCall, ToolSpec};

/// A tool result longer than this is cut: one runaway result (a whole web page, a 10 MB
/// file) must not fill the model's context or the budget. The model is told it was cut.
pub(crate) const MAX_RESULT_CHARS: usize = 32_000;

/// Something that offers tools and runs calls to them.
pub trait ToolBox: Send + Sync {
    /// The tools to offer the model, by the names the model will call them by.
    fn specs(&self) -> Vec<ToolSpec>;
    /// Run one call. An `Err` is not fatal to the loop: its message goes back to the model
    /// as the tool's result (so it can try something else) and into the trace.
    fn call(&self, call: &ToolCall) -> Result<String, ToolFailure>;
}

/// Why a tool call produced no result, in words for the model and the researcher.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ToolFailure(pub String);

/// One executed tool call, for the events log and the stage's artifacts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolTrace {
    /// Which model call asked for it (1 for the first).
    pub round: u32,
    pub call: ToolCall,
    /// What the model was given back (the result, or the failure's message).
    pub result: String,
    pub failed: bool,
    pub elapsed_ms: u64,
    /// The result's size in tokens (chars/4): what the recorder charges for it.
    pub tokens: u64,
}

/// Ask `provider` with `tools` offered, running tool calls through `tools`, for at most
/// `max_rounds` model calls. Returns the reply without tool calls and every call made.
/// `request` supplies the messages and sampling settings; its `tools` are replaced.
pub fn run_tools(
    provider: &dyn Provider,
    key: &CallKey,
    request: ChatRequest,
    tools: &dyn ToolBox,
    max_rounds: u32,
) -> Result<(ChatResponse, Vec<ToolTrace>), LlmError> {
    let mut request = ChatRequest {
        tools: tools.specs(),
        ..request
    };
    let mut traces = Vec::new();
    let mut last_asked = Vec::new();
    for round in 1..=max_rounds {
        let reply = provider.complete(key, &request)?;
        if reply.tool_calls.is_empty() {
            return Ok((reply, traces));
        }
        let mut asked = Message::assistant(reply.content.clone());
        asked.tool_calls = reply.tool_calls.clone();
        request.messages.push(asked);
        last_asked.clear();
        for call in &reply.tool_calls {
            let trace = execute(tools, call, round);
            request
                .messages
                .push(Message::tool_result(&call.id, trace.result.clone()));
            last_asked.push(call.name.clone());
            traces.push(trace);
        }
    }
    Err(LlmError::ToolRounds {
        rounds: max_rounds,
        last: last_asked.join(", "),
    })
}

fn execute(tools: &dyn ToolBox, call: &ToolCall, round: u32) -> ToolTrace {
    let started = Instant::now();
    let (result, failed) = match tools.call(call) {
        Ok(text) => (cap(text), false),
        Err(failure) => (format!("tool error: {failure}"), true),
    };
    ToolTrace {
        round,
        call: call.clone(),
        tokens: super::http::estimate_tokens(result.chars().count()),
        result,
        failed,
        elapsed_ms: started.elapsed().as_millis() as u64,
    }
}

/// Cut a result at [`MAX_RESULT_CHARS`] (on a character boundary) and say how much is gone.
pub fn cap(text: String) -> String {
    let total = text.chars().count();
    if total <= MAX_RESULT_CHARS {
        return text;
    }
    let mut kept: String = text.chars().take(MAX_RESULT_CHARS).collect();
    kept.push_str(&format!(
        "\n[… result cut: {} more characters not shown]",
        total - MAX_RESULT_CHARS
    ));
    kept
}

/// The tool results a request hands back for the first time: the tool messages after its
/// last assistant message (earlier ones were charged with the request that first carried them).
pub(crate) fn new_tool_results(request: &ChatRequest) -> impl Iterator<Item = &Message> {
    let start = request
        .messages
        .iter()
        .rposition(|m| m.role == super::MessageRole::Assistant)
        .map_or(0, |i| i + 1);
    request.messages[start..]
        .iter()
        .filter(|m| m.role == super::MessageRole::Tool)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Replies in order; records what it was asked.
    struct Scripted(Mutex<Vec<ChatResponse>>, Mutex<Vec<ChatRequest>>);

    impl Provider for Scripted {
        fn kind(&self) -> &str {
            "scripted"
        }
        fn model(&self) -> &str {
            "m"
        }
        fn complete(&self, _: &CallKey, r: &ChatRequest) -> Result<ChatResponse, LlmError> {
            self.1.lock().unwrap().push(r.clone());
            let mut q = self.0.lock().unwrap();
            Ok(if q.is_empty() {
                ChatResponse::default()
            } else {
                q.remove(0)
            })
        }
    }

    struct Echo;
    impl ToolBox for Echo {
        fn specs(&self) -> Vec<ToolSpec> {
            vec![ToolSpec {
                name: "echo".into(),
                description: "echo".into(),
                parameters: serde_json::json!({"type": "object"}),
            }]
        }
        fn call(&self, call: &ToolCall) -> Result<String, ToolFailure> {
            match call.name.as_str() {
                "echo" => Ok(call.arguments["text"].as_str().unwrap_or("").to_string()),
                other => Err(ToolFailure(format!("no tool `{other}`"))),
            }
        }
    }

    fn asks(name: &str, id: &str) -> ChatResponse {
        ChatResponse {
            tool_calls: vec![ToolCall {
                id: id.into(),
                name: name.into(),
                arguments: serde_json::json!({"text": "hi"}),
            }],
            ..ChatResponse::default()
        }
    }

    #[test]
    fn results_go_back_and_failures_are_not_fatal() {
        let answer = ChatResponse {
            content: "done".into(),
            ..ChatResponse::default()
        };
        let p = Scripted(
            Mutex::new(vec![asks("echo", "a"), asks("nope", "b"), answer]),
            Mutex::new(vec![]),
        );
        let key = CallKey::new("executor", "s", None, 1);
        let req = ChatRequest::new(vec![Message::user("go")]);
        let (reply, traces) = run_tools(&p, &key, req, &Echo, 5).unwrap();
        assert_eq!(reply.content, "done");
        assert_eq!(traces.len(), 2);
        assert_eq!((traces[0].result.as_str(), traces[0].failed), ("hi", false));
        assert!(traces[1].failed && traces[1].result.contains("no tool `nope`"));
        let sent = p.1.lock().unwrap();
        assert_eq!(sent[0].tools.len(), 1);
        let last = &sent[2].messages;
        assert_eq!(last.len(), 5);
        assert_eq!(last[4].tool_call_id.as_deref(), Some("b"));
        assert_eq!(new_tool_results(&sent[2]).count(), 1);
        assert_eq!(new_tool_results(&sent[0]).count(), 0);
    }

    #[test]
    fn rounds_are_bounded() {
        let p = Scripted(
            Mutex::new(vec![asks("echo", "a"), asks("echo", "b")]),
            Mutex::new(vec![]),
        );
        let key = CallKey::new("executor", "s", None, 1);
        let e = run_tools(&p, &key, ChatRequest::default(), &Echo, 2).unwrap_err();
        assert!(matches!(e, LlmError::ToolRounds { rounds: 2, .. }), "{e}");
        assert!(e.to_string().contains("echo"), "{e}");
    }

    #[test]
    fn long_results_are_cut_and_say_so() {
        let s = cap("é".repeat(MAX_RESULT_CHARS + 10));
        assert!(
            s.ends_with("10 more characters not shown]"),
            "{}",
            &s[s.len() - 60..]
        );
        assert_eq!(cap("short".into()), "short");
    }
}
