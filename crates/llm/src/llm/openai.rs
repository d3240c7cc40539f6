//! The OpenAI-compatible chat client: OpenAI, OpenRouter, vLLM, Ollama (`…/v1`) and the
//! llama.cpp server all take `POST {base_url}/chat/completions` in this shape.
//!
//! Differences between servers that change behaviour are handled where they arise:
//! - tool-call `arguments` are a JSON *string* (OpenAI, vLLM, OpenRouter) but some servers
//!   send an object or an empty string; all three are read (`tool_arguments`);
//! - `stream_options.include_usage` is honoured by OpenAI, vLLM and llama.cpp; a server that
//!   ignores it sends no usage, which we then estimate (`Usage::estimated`);
//! - OpenRouter reports upstream failures as a 200 whose body is `{"error": …}`.
//! - `max_tokens` is sent as such: every server here accepts it, but OpenAI's reasoning models
//!   want `max_completion_tokens` instead (leave `max_tokens` unset for them).

use reqwest::blocking::Client;
use serde::Deserialize;
use serde_json::{Value, json};

use super::http::{self, Post};
use super::openai_stream::read_stream;
use super::openai_wire::{WireUsage, error_in_body, estimated_usage, tool_arguments};
use super::{
    CallKey, ChatRequest, ChatResponse, HttpConfig, LlmError, Message, MessageRole, Provider,
    ToolCall, retry,
};

const DEFAULT_BASE: &str = "https://api.openai.com/v1";

#[derive(Debug)]
pub struct OpenAiCompatible {
    config: HttpConfig,
    url: String,
    client: Client,
    local: bool,
    /// Told when an outage is waited out (`retry::OutageWatch`); the run's roles share one.
    watch: retry::OutageWatch,
}

impl OpenAiCompatible {
    pub fn new(config: HttpConfig) -> Result<Self, LlmError> {
        if config.model.trim().is_empty() {
            return Err(LlmError::Config(
                "no model is configured for the OpenAI-compatible endpoint; set `model`".into(),
            ));
        }
        let url = config.endpoint(DEFAULT_BASE, "chat/completions");
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

    /// One request, no retries.
    fn once(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let mut own = Vec::new();
        if let Some(key) = self.config.api_key()? {
            own.push(("authorization", format!("Bearer {key}")));
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
            read_stream(&self.url, self.config.idle_timeout, read, request)?
        } else {
            let bytes = http::read_body(&self.url, &self.config, response)?;
            parse_completion(&self.url, &bytes, request)?
        };
        Ok(answer_of(reply, request, self.config.dialect()))
    }
}

impl Provider for OpenAiCompatible {
    fn kind(&self) -> &str {
        "openai"
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

/// The JSON body. The request's temperature and max_tokens win over the configured ones.
pub(crate) fn request_body(config: &HttpConfig, request: &ChatRequest) -> Value {
    let mut body = json!({
        "model": config.model,
        "messages": request.messages.iter().map(wire_message).collect::<Vec<_>>(),
    });
    if let Some(t) = request.temperature.or(config.temperature) {
        body["temperature"] = json!(t);
    }
    if let Some(n) = request.max_tokens.or(config.max_tokens) {
        body["max_tokens"] = json!(n);
    }
    if request.json {
        config
            .dialect()
            .openai_fields(request.schema.as_ref(), &mut body);
    }
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                json!({ "type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.parameters,
                }})
            })
            .collect();
        body["tools"] = Value::Array(tools);
    }
    if config.stream {
        body["stream"] = json!(true);
        body["stream_options"] = json!({ "include_usage": true });
    }
    body
}

fn wire_message(m: &Message) -> Value {
    let role = match m.role {
        MessageRole::System => "system",
        MessageRole::User => "user",
        MessageRole::Assistant => "assistant",
        MessageRole::Tool => "tool",
    };
    let mut out = json!({ "role": role, "content": m.content });
    if !m.tool_calls.is_empty() {
        let calls: Vec<Value> = m
            .tool_calls
            .iter()
            .map(|c| {
                json!({ "id": c.id, "type": "function", "function": {
                    "name": c.name, "arguments": c.arguments.to_string(),
                }})
            })
            .collect();
        out["tool_calls"] = Value::Array(calls);
    }
    if let Some(id) = &m.tool_call_id {
        out["tool_call_id"] = json!(id);
    }
    out
}

#[derive(Deserialize)]
struct Completion {
    #[serde(default)]
    model: String,
    #[serde(default)]
    choices: Vec<Choice>,
    usage: Option<WireUsage>,
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Choice {
    message: WireMessage,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct WireMessage {
    content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<WireToolCall>,
    /// vLLM, DeepSeek and llama-server's thoughts.
    reasoning_content: Option<String>,
    /// Ollama's and OpenRouter's.
    reasoning: Option<String>,
}

#[derive(Deserialize)]
struct WireToolCall {
    id: Option<String>,
    function: WireFunction,
}

#[derive(Deserialize)]
struct WireFunction {
    name: String,
    #[serde(default)]
    arguments: Value,
}

/// The answer as the caller wants it: a forced tool call's arguments as the JSON content
/// (the `tool` dialect), and the thoughts of a reasoning model moved out of the content.
pub(super) fn answer_of(
    mut reply: ChatResponse,
    request: &ChatRequest,
    dialect: super::Structured,
) -> ChatResponse {
    if dialect == super::Structured::Tool
        && let Some(schema) = &request.schema
        && let Some(i) = reply.tool_calls.iter().position(|c| c.name == schema.name)
    {
        let call = reply.tool_calls.remove(i);
        reply.content = call.arguments.to_string();
        if reply.finish_reason.as_deref() == Some("tool_calls") {
            reply.finish_reason = Some("stop".into());
        }
    }
    let field = std::mem::take(&mut reply.reasoning);
    reply.separate_reasoning(&field)
}

fn parse_completion(
    url: &str,
    bytes: &[u8],
    request: &ChatRequest,
) -> Result<ChatResponse, LlmError> {
    let reply: Completion = http::parse_json(url, bytes)?;
    if let Some(error) = reply.error {
        return Err(error_in_body(url, &error));
    }
    let Some(choice) = reply.choices.into_iter().next() else {
        return Err(LlmError::Malformed {
            url: url.to_string(),
            detail: format!(
                "the reply has no choices: {:?}",
                http::excerpt(&String::from_utf8_lossy(bytes))
            ),
        });
    };
    let content = choice.message.content.unwrap_or_default();
    let reasoning = choice
        .message
        .reasoning_content
        .or(choice.message.reasoning)
        .unwrap_or_default();
    let mut tool_calls = Vec::new();
    for (i, call) in choice.message.tool_calls.into_iter().enumerate() {
        let arguments = tool_arguments(url, &call.function.name, call.function.arguments)?;
        tool_calls.push(ToolCall {
            id: call.id.unwrap_or_else(|| format!("call_{i}")),
            name: call.function.name,
            arguments,
        });
    }
    let usage = match reply.usage {
        Some(u) => u.into(),
        None => estimated_usage(request, &content),
    };
    Ok(ChatResponse {
        content,
        tool_calls,
        usage,
        model: reply.model,
        finish_reason: choice.finish_reason,
        reasoning,
    })
}
