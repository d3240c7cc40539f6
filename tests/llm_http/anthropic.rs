//! The Anthropic Messages client against the scripted server.

use serde_json::json;
use youra::llm::{Anthropic, ChatRequest, LlmError, Message, Provider, ToolCall, ToolSpec};

use super::server::{Reply, Server};
use crate::{config, key};

fn client(url: &str, stream: bool) -> Anthropic {
    let mut cfg = config(url, stream);
    cfg.base_url = url.to_string(); // the client adds /v1/messages
    Anthropic::new(cfg).expect("client builds")
}

fn event(kind: &str, data: serde_json::Value) -> String {
    format!("event: {kind}\ndata: {data}\n\n")
}

#[test]
fn anthropic_non_streaming() {
    let body = r#"{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[{"type":"text","text":"Bonjour."}],"stop_reason":"end_turn","usage":{"input_tokens":15,"output_tokens":4}}"#;
    let server = Server::start(vec![Reply::json(200, body)]);
    let request = ChatRequest::new(vec![
        Message::system("answer in French"),
        Message::user("hello"),
    ]);
    let reply = client(&server.url, false)
        .complete(&key(), &request)
        .expect("success");
    assert_eq!(reply.content, "Bonjour.");
    assert_eq!(
        (reply.usage.input_tokens, reply.usage.output_tokens),
        (15, 4)
    );
    assert_eq!(reply.model, "claude-test");
    assert_eq!(reply.finish_reason.as_deref(), Some("stop"));

    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/v1/messages");
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(sent.header("x-api-key"), None, "no key configured");
    assert_eq!(sent.body["system"], "answer in French");
    assert_eq!(sent.body["max_tokens"], 4096);
    assert_eq!(
        sent.body["messages"],
        json!([{"role": "user", "content": [{"type": "text", "text": "hello"}]}])
    );
}

#[test]
fn anthropic_streaming() {
    let start = event(
        "message_start",
        json!({"type": "message_start", "message": {"model": "claude-test", "usage": {"input_tokens": 25, "output_tokens": 1}}}),
    );
    let block = event(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    );
    let text = |t: &str| {
        event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}}),
        )
    };
    let (a, b, c) = (text("Three "), text("small "), text("pieces."));
    let delta = event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 6}}),
    );
    let stop = event("message_stop", json!({"type": "message_stop"}));
    let ping = event("ping", json!({"type": "ping"}));
    let server = Server::start(vec![Reply::sse(&[
        &start, &block, &ping, &a, &b, &c, &delta, &stop,
    ])]);
    let reply = client(&server.url, true)
        .complete(&key(), &ChatRequest::new(vec![Message::user("go")]))
        .expect("success");
    assert_eq!(reply.content, "Three small pieces.");
    assert_eq!(
        (reply.usage.input_tokens, reply.usage.output_tokens),
        (25, 6)
    );
    assert_eq!(reply.finish_reason.as_deref(), Some("length"));
    assert_eq!(server.requests()[0].body["stream"], true);
}

#[test]
fn anthropic_tool_use_round_trip() {
    let start = event(
        "message_start",
        json!({"type": "message_start", "message": {"model": "claude-test", "usage": {"input_tokens": 30, "output_tokens": 1}}}),
    );
    let tool = event(
        "content_block_start",
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "run", "input": {}}}),
    );
    let json_piece = |p: &str| {
        event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": p}}),
        )
    };
    let (a, b) = (json_piece("{\"cmd\": \"l"), json_piece("s -la\"}"));
    let delta = event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 12}}),
    );
    let stop = event("message_stop", json!({"type": "message_stop"}));
    let server = Server::start(vec![
        Reply::sse(&[&start, &tool, &a, &b, &delta, &stop]),
        Reply::json(
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        ),
        Reply::sse(&[
            &event(
                "message_start",
                json!({"type": "message_start", "message": {"model": "claude-test", "usage": {"input_tokens": 50}}}),
            ),
            &event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Two files."}}),
            ),
            &event(
                "message_delta",
                json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}}),
            ),
            &stop,
        ]),
    ]);
    let anthropic = client(&server.url, true);
    let spec = ToolSpec {
        name: "run".into(),
        description: "Run a shell command".into(),
        parameters: json!({"type": "object", "properties": {"cmd": {"type": "string"}}}),
    };
    let mut request = ChatRequest::new(vec![Message::user("list files")]);
    request.tools = vec![spec];
    let first = anthropic.complete(&key(), &request).expect("tool use");
    let call = ToolCall {
        id: "toolu_1".into(),
        name: "run".into(),
        arguments: json!({"cmd": "ls -la"}),
    };
    assert_eq!(first.tool_calls, vec![call]);
    assert_eq!(first.finish_reason.as_deref(), Some("tool_calls"));

    let mut asked = Message::assistant(first.content.clone());
    asked.tool_calls = first.tool_calls.clone();
    request.messages.push(asked);
    request
        .messages
        .push(Message::tool_result("toolu_1", "a.txt b.txt"));
    // The 529 (overloaded) in between is retried.
    let second = anthropic
        .complete(&key(), &request)
        .expect("answer after 529");
    assert_eq!(second.content, "Two files.");

    let sent = server.requests();
    assert_eq!(sent.len(), 3);
    assert_eq!(sent[0].body["tools"][0]["input_schema"]["type"], "object");
    let messages = &sent[2].body["messages"];
    assert_eq!(
        messages[1],
        json!({"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "run", "input": {"cmd": "ls -la"}}]})
    );
    assert_eq!(
        messages[2],
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt b.txt"}]})
    );
}

#[test]
fn anthropic_sends_the_key_as_x_api_key() {
    const VAR: &str = "YOURA_TEST_ANTHROPIC_KEY";
    // SAFETY: this variable is read and written by this test only.
    unsafe { std::env::set_var(VAR, "sk-ant-test-1234") };
    let server = Server::start(vec![Reply::json(
        400,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too large"}}"#,
    )]);
    let mut cfg = config(&server.url, false);
    cfg.base_url = server.url.clone();
    cfg.api_key_env = Some(VAR.into());
    let err = Anthropic::new(cfg)
        .expect("builds")
        .complete(&key(), &ChatRequest::new(vec![Message::user("x")]))
        .expect_err("400");
    assert!(
        matches!(&err, LlmError::Http { status: 400, body, .. } if body.contains("too large")),
        "{err}"
    );
    let sent = server.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].header("x-api-key"), Some("sk-ant-test-1234"));
    assert_eq!(sent[0].header("authorization"), None);
}
