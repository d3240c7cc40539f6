//! The Anthropic Messages client: `POST {base_url}/v1/messages` with `x-api-key` and
//! `anthropic-version`. The shape differs from OpenAI's in ways the caller never sees:
//! system prompts travel beside the messages, `max_tokens` is required, tool calls are
//! `tool_use` content blocks and their results are `tool_result` blocks in a *user* turn.
//!
//! Stop reasons are translated to the OpenAI words [`ChatResponse::finish_reason`] documents
//! (`end_turn`/`stop_sequence` → `stop`, `max_tokens` → `length`, `tool_use` → `tool_calls`),
//! so a caller checks for `length` once, whatever the provider.

use reqwest::blocking::Client;
use serde::Deserialize;
use serde_json::{Value, json};

use super::anthropic_stream::{finish_reason, read_stream};
use super::http::{self, Post};
use super::{
    CallKey, ChatRequest, ChatResponse, HttpConfig, LlmError, Message, MessageRole, Provider,
    ToolCall, Usage, retry,
};

const DEFAULT_BASE: &str = "https://api.anthropic.com";
const API_VERSION: &str = "2023-06-01";
/// The API refuses a request without `max_tokens`; this is used when neither the request
/// nor the configuration names one.
pub(crate) const DEFAULT_MAX_TOKENS: u32 = 4096;

#[derive(Debug)]
pub struct Anthropic {
    config: HttpConfig,
    url: String,
    client: Client,
    local: bool,
    /// Told when an outage is waited out (`retry::OutageWatch`); the run's roles share one.
    watch: retry::OutageWatch,
}

impl Anthropic {
    pub fn new(config: HttpConfig) -> Result<Self, LlmError> {
        if config.model.trim().is_empty() {
            return Err(LlmError::Config(
                "no model is configured for the Anthropic endpoint; set `model`".into(),
            ));
        }
        let url = config.endpoint(DEFAULT_BASE, "v1/messages");
        let client = http::build_client(&config)?;
        Ok(Self {
            config,
            url,
            client,
            local: false,
            watch: retry::OutageWatch::default(),
        })
    }

    /// Mark the endpoint as on this machine or cluster: its calls cost no dollars.
    pub fn local(mut self, local: bool) -> Self {
        self.local = local;
        self
    }

    /// Report outages waited out to `watch`.
    pub fn watch(mut self, watch: retry::OutageWatch) -> Self {
        self.watch = watch;
        self
    }

    fn once(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let mut own = vec![("anthropic-version", API_VERSION.to_string())];
        if let Some(key) = self.config.api_key()? {
            own.push(("x-api-key", key));
        }
        let body = request_body(&self.config, request);
        let post = Post {
            url: &self.url,
            body: &body,
            headers: http::headers(&self.config, &own)?,
            stream: self.config.stream,
        };
        let started = std::time::Instant::now();
        let response = http::post(&self.client, &self.config, post)?;
        let reply = if self.config.stream {
            let timed = http::Deadline::new(response, started, self.config.call_timeout);
            let read = std::io::BufReader::new(timed);
            read_stream(&self.url, self.config.idle_timeout, read)?
        } else {
            let bytes = http::read_body(&self.url, &self.config, response)?;
            parse_message(&self.url, &bytes)?
        };
        Ok(super::openai::answer_of(
            reply,
            request,
            self.config.dialect(),
        ))
    }
}

impl Provider for Anthropic {
    fn kind(&self) -> &str {
        "anthropic"
    }
    fn model(&self) -> &str {
        &self.config.model
    }
    fn free(&self) -> bool {
        self.local
    }
    fn complete(&self, _key: &CallKey, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let policy = self.config.retry_policy();
        let mut jitter = retry::clock_jitter();
        retry::retry_loop(
            &policy,
            &mut jitter,
            &mut retry::RealClock,
            &self.watch,
            |_| self.once(request),
        )
    }
}

/// The JSON body. A reply schema travels as one forced tool (the `tool` dialect, the only
/// way the Messages API constrains a reply); otherwise the prompt asks for JSON.
pub(crate) fn request_body(config: &HttpConfig, request: &ChatRequest) -> Value {
    let system: Vec<&str> = request
        .messages
        .iter()
        .filter(|m| m.role == MessageRole::System)
        .map(|m| m.content.as_str())
        .collect();
    let max_tokens = request
        .max_tokens
        .or(config.max_tokens)
        .unwrap_or(DEFAULT_MAX_TOKENS);
    let mut body = json!({
        "model": config.model,
        "max_tokens": max_tokens,
        "messages": wire_messages(&request.messages),
    });
    if !system.is_empty() {
        body["system"] = json!(system.join("\n\n"));
    }
    if let Some(t) = request.temperature.or(config.temperature) {
        body["temperature"] = json!(t);
    }
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| json!({ "name": t.name, "description": t.description, "input_schema": t.parameters }))
            .collect();
        body["tools"] = Value::Array(tools);
    }
    if let (true, Some(s), super::Structured::Tool) =
        (request.json, &request.schema, config.dialect())
    {
        body["tools"] = json!([{
            "name": s.name,
            "description": "Give your answer as this tool's input.",
            "input_schema": s.schema,
        }]);
        body["tool_choice"] = json!({"type": "tool", "name": s.name});
    }
    if config.stream {
        body["stream"] = json!(true);
    }
    body
}

/// Messages as content blocks. Consecutive turns of one role merge into one, because the
/// API wants user and assistant to alternate and wants all the results of one assistant
/// turn's tool calls together in the next user turn.
fn wire_messages(messages: &[Message]) -> Vec<Value> {
    let mut turns: Vec<(&str, Vec<Value>)> = Vec::new();
    for m in messages {
        let (role, blocks) = match m.role {
            MessageRole::System => continue,
            MessageRole::User => ("user", text_block(&m.content)),
            MessageRole::Assistant => {
                let mut blocks = text_block(&m.content);
                blocks.extend(m.tool_calls.iter().map(|c| {
                    json!({ "type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments })
                }));
                ("assistant", blocks)
            }
            MessageRole::Tool => (
                "user",
                vec![json!({
                    "type": "tool_result",
                    "tool_use_id": m.tool_call_id.as_deref().unwrap_or_default(),
                    "content": m.content,
                })],
            ),
        };
        match turns.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    turns
        .into_iter()
        .filter(|(_, blocks)| !blocks.is_empty())
        .map(|(role, blocks)| json!({ "role": role, "content": blocks }))
        .collect()
}

/// The API refuses empty text blocks, so empty text is left out.
fn text_block(text: &str) -> Vec<Value> {
    if text.is_empty() {
        Vec::new()
    } else {
        vec![json!({ "type": "text", "text": text })]
    }
}

#[derive(Deserialize)]
struct Reply {
    #[serde(default)]
    model: String,
    #[serde(default)]
    content: Vec<Block>,
    stop_reason: Option<String>,
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block {
    Text {
        text: String,
    },
    Thinking {
        #[serde(default)]
        thinking: String,
    },
    ToolUse {
        id: String,
        name: String,
        #[serde(default)]
        input: Value,
    },
    /// `thinking` and block kinds added later carry nothing we pass on.
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
pub(super) struct WireUsage {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
}

fn parse_message(url: &str, bytes: &[u8]) -> Result<ChatResponse, LlmError> {
    let reply: Reply = http::parse_json(url, bytes)?;
    let mut content = String::new();
    let mut reasoning = String::new();
    let mut tool_calls = Vec::new();
    for block in reply.content {
        match block {
            Block::Text { text } => content.push_str(&text),
            Block::Thinking { thinking } => reasoning.push_str(&thinking),
            Block::ToolUse { id, name, input } => tool_calls.push(ToolCall {
                id,
                name,
                arguments: if input.is_null() { json!({}) } else { input },
            }),
            Block::Other => {}
        }
    }
    let usage = reply.usage.map(|u| Usage {
        input_tokens: u.input_tokens,
        output_tokens: u.output_tokens,
        estimated: false,
        counted: false,
        reasoning_tokens: 0,
    });
    Ok(ChatResponse {
        content,
        tool_calls,
        usage: usage.unwrap_or_default(),
        model: reply.model,
        finish_reason: reply.stop_reason.map(|r| finish_reason(&r)),
        reasoning,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_is_hoisted_and_tool_results_join_one_user_turn() {
        let call = ToolCall {
            id: "t1".into(),
            name: "grep".into(),
            arguments: json!({"q": "x"}),
        };
        let mut asked = Message::assistant("");
        asked.tool_calls = vec![
            call.clone(),
            ToolCall {
                id: "t2".into(),
                ..call
            },
        ];
        let request = ChatRequest::new(vec![
            Message::system("be brief"),
            Message::user("find x"),
            asked,
            Message::tool_result("t1", "found"),
            Message::tool_result("t2", "none"),
        ]);
        let body = request_body(&HttpConfig::default(), &request);
        assert_eq!(body["system"], "be brief");
        assert_eq!(body["max_tokens"], DEFAULT_MAX_TOKENS);
        let messages = body["messages"].as_array().expect("messages array");
        assert_eq!(messages.len(), 3);
        assert_eq!(messages[1]["content"].as_array().map(Vec::len), Some(2));
        assert_eq!(messages[2]["role"], "user");
        assert_eq!(messages[2]["content"][1]["tool_use_id"], "t2");
        assert_eq!(messages[2]["content"][1]["type"], "tool_result");
    }

    #[test]
    fn stop_reasons_translate() {
        let table = [
            ("end_turn", "stop"),
            ("max_tokens", "length"),
            ("tool_use", "tool_calls"),
            ("refusal", "refusal"),
        ];
        for (theirs, ours) in table {
            assert_eq!(finish_reason(theirs), ours);
        }
    }
}
