//! The HTTP clients against a real (scripted) HTTP/1.1 server on loopback: what they send,
//! what they make of each reply, and which failures they retry.

mod llm_http {
    pub mod anthropic;
    pub mod redaction;
    pub mod server;
    pub mod structured;
}

use std::time::{Duration, Instant};

use llm_http::server::{Reply, Server};
use serde_json::json;
use youra::llm::{
    CallKey, ChatRequest, ChatResponse, HttpConfig, LlmError, Message, OpenAiCompatible, Provider,
    ToolCall, ToolSpec,
};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Fast retries so the file stays quick; the Retry-After case sets its own.
pub fn config(url: &str, stream: bool) -> HttpConfig {
    HttpConfig {
        base_url: format!("{url}/v1/"),
        model: "test-model".into(),
        stream,
        max_retries: 2,
        backoff_base: ms(10),
        backoff_max: ms(40),
        request_timeout: ms(2000),
        idle_timeout: ms(2000),
        ..HttpConfig::default()
    }
}

pub fn key() -> CallKey {
    CallKey::new("executor", "test", None, 1)
}

fn ask(config: HttpConfig, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
    let client = OpenAiCompatible::new(config).expect("client builds");
    client.complete(&key(), request)
}

fn hello() -> ChatRequest {
    ChatRequest::new(vec![Message::system("be brief"), Message::user("hello")])
}

const OK_BODY: &str = r#"{"id":"x","model":"test-model-2025","choices":[{"index":0,"message":{"role":"assistant","content":"Hi there."},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":3}}"#;

#[test]
fn non_streaming_success() {
    let server = Server::start(vec![Reply::json(200, OK_BODY)]);
    let mut request = hello();
    request.temperature = Some(0.25);
    request.max_tokens = Some(77);
    let reply = ask(config(&server.url, false), &request).expect("success");
    assert_eq!(reply.content, "Hi there.");
    assert_eq!(
        (reply.usage.input_tokens, reply.usage.output_tokens),
        (12, 3)
    );
    assert!(!reply.usage.estimated);
    assert_eq!(reply.model, "test-model-2025");
    assert_eq!(reply.finish_reason.as_deref(), Some("stop"));
    let sent = server.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].path, "/v1/chat/completions");
    assert_eq!(sent[0].header("authorization"), None, "no key configured");
    let body = &sent[0].body;
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["temperature"], 0.25);
    assert_eq!(body["max_tokens"], 77);
    assert_eq!(
        body["messages"][0],
        json!({"role": "system", "content": "be brief"})
    );
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": "hello"})
    );
    assert_eq!(body.get("stream"), None);
}

fn content_chunk(text: &str) -> String {
    format!(
        "data: {}\n\n",
        json!({"model": "m-stream", "choices": [{"index": 0, "delta": {"content": text}}]})
    )
}

const STREAM_END: &str =
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n";
const STREAM_USAGE: &str = "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":4}}\n\ndata: [DONE]\n\n";

#[test]
fn streaming_success() {
    let (a, b, c) = (
        content_chunk("The "),
        content_chunk("answer "),
        content_chunk("is 42."),
    );
    let server = Server::start(vec![Reply::sse(&[
        ": keep-alive\n\n",
        &a,
        &b,
        &c,
        STREAM_END,
        STREAM_USAGE,
    ])]);
    let reply = ask(config(&server.url, true), &hello()).expect("success");
    assert_eq!(reply.content, "The answer is 42.");
    assert_eq!(
        (reply.usage.input_tokens, reply.usage.output_tokens),
        (9, 4)
    );
    assert_eq!(reply.model, "m-stream");
    let body = &server.requests()[0].body;
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"]["include_usage"], true);
}

#[test]
fn tool_call_round_trip() {
    let call = r#"{"model":"m","choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_7","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"notes.md\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":20,"completion_tokens":8}}"#;
    let server = Server::start(vec![Reply::json(200, call), Reply::json(200, OK_BODY)]);
    let client = OpenAiCompatible::new(config(&server.url, false)).expect("client builds");
    let tool = ToolSpec {
        name: "read_file".into(),
        description: "Read a file".into(),
        parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
    };
    let mut request = ChatRequest::new(vec![Message::user("read notes.md")]);
    request.tools = vec![tool];
    let first = client.complete(&key(), &request).expect("tool call");
    let expected = ToolCall {
        id: "call_7".into(),
        name: "read_file".into(),
        arguments: json!({"path": "notes.md"}),
    };
    assert_eq!(first.tool_calls, vec![expected.clone()]);
    assert_eq!(first.finish_reason.as_deref(), Some("tool_calls"));

    let mut asked = Message::assistant(first.content.clone());
    asked.tool_calls = first.tool_calls.clone();
    request.messages.push(asked);
    request
        .messages
        .push(Message::tool_result("call_7", "# Notes"));
    let second = client.complete(&key(), &request).expect("final answer");
    assert_eq!(second.content, "Hi there.");

    let sent = server.requests();
    assert_eq!(sent[0].body["tools"][0]["type"], "function");
    assert_eq!(sent[0].body["tools"][0]["function"]["name"], "read_file");
    let messages = &sent[1].body["messages"];
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["tool_calls"][0]["id"], "call_7");
    assert_eq!(messages[1]["tool_calls"][0]["type"], "function");
    let args = messages[1]["tool_calls"][0]["function"]["arguments"].as_str();
    assert_eq!(
        args.map(serde_json::from_str::<serde_json::Value>)
            .and_then(Result::ok),
        Some(json!({"path": "notes.md"}))
    );
    assert_eq!(
        messages[2],
        json!({"role": "tool", "tool_call_id": "call_7", "content": "# Notes"})
    );
}

#[test]
fn rate_limit_waits_for_retry_after() {
    let server = Server::start(vec![
        Reply::json(429, r#"{"error":{"message":"slow down"}}"#).header("retry-after", "1"),
        Reply::json(200, OK_BODY),
    ]);
    let mut cfg = config(&server.url, false);
    // Retry-After is capped at 4 × backoff_max; the fast test setting would cap 1 s to 160 ms.
    cfg.backoff_max = Duration::from_secs(1);
    let started = Instant::now();
    let reply = ask(cfg, &hello()).expect("success after waiting");
    let elapsed = started.elapsed();
    assert_eq!(reply.content, "Hi there.");
    assert!(elapsed >= ms(900), "waited only {elapsed:?}");
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn server_error_is_retried() {
    let server = Server::start(vec![
        Reply::json(500, "{\"error\":\"boom\"}"),
        Reply::json(200, OK_BODY),
    ]);
    let reply = ask(config(&server.url, false), &hello()).expect("success on retry");
    assert_eq!(reply.content, "Hi there.");
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn a_slow_server_times_out_and_runs_out_of_attempts() {
    let slow = || Reply::json(200, OK_BODY).delayed(ms(1500));
    let server = Server::start(vec![slow(), slow()]);
    let mut cfg = config(&server.url, false);
    cfg.request_timeout = ms(300);
    cfg.max_retries = 1;
    let started = Instant::now();
    let err = ask(cfg, &hello()).expect_err("must time out");
    assert!(
        started.elapsed() < ms(1400),
        "gave up late: {:?}",
        started.elapsed()
    );
    match err {
        LlmError::Exhausted { attempts: 2, last } => {
            assert!(
                matches!(*last, LlmError::Timeout { after, .. } if after == ms(300)),
                "{last:?}"
            );
        }
        other => panic!("expected Exhausted(Timeout), got {other:?}"),
    }
}

#[test]
fn malformed_json_says_what_and_where() {
    let server = Server::start(vec![Reply::json(200, "{\"choices\": [oops]}")]);
    let err = ask(config(&server.url, false), &hello()).expect_err("malformed");
    let LlmError::Malformed { detail, .. } = &err else {
        panic!("expected Malformed, got {err:?}");
    };
    assert!(detail.contains("line 1 column 14"), "{detail}");
    assert!(detail.contains("oops"), "{detail}");
    assert_eq!(
        server.requests().len(),
        1,
        "malformed replies are not retried"
    );
}

#[test]
fn unparsable_tool_arguments_name_the_tool() {
    let bad = r#"{"choices":[{"message":{"content":"","tool_calls":[{"id":"c","function":{"name":"grep","arguments":"{\"q\": "}}]},"finish_reason":"tool_calls"}]}"#;
    let server = Server::start(vec![Reply::json(200, bad)]);
    let err = ask(config(&server.url, false), &hello()).expect_err("malformed");
    assert!(
        matches!(&err, LlmError::Malformed { detail, .. } if detail.contains("`grep`")),
        "{err}"
    );
}

#[test]
fn a_cut_stream_is_truncated_and_retried() {
    let (a, b) = (content_chunk("partial "), content_chunk("answer"));
    let cut = || Reply::sse(&[&a, &b, STREAM_END, STREAM_USAGE]).cut_after(200);
    let good = Reply::sse(&[&a, &b, STREAM_END, STREAM_USAGE]);
    let server = Server::start(vec![cut(), good]);
    let reply = ask(config(&server.url, true), &hello()).expect("retried to success");
    assert_eq!(reply.content, "partial answer");
    assert_eq!(server.requests().len(), 2);

    let server = Server::start(vec![cut()]);
    let mut cfg = config(&server.url, true);
    cfg.max_retries = 0;
    let err = ask(cfg, &hello()).expect_err("cut");
    let LlmError::Exhausted { last, .. } = err else {
        panic!("expected Exhausted, got {err:?}");
    };
    assert!(matches!(*last, LlmError::Truncated { .. }), "{last:?}");
}

#[test]
fn a_body_cut_short_is_truncated_and_retried() {
    let server = Server::start(vec![
        Reply::json(200, OK_BODY).cut_after(150),
        Reply::json(200, OK_BODY),
    ]);
    let reply = ask(config(&server.url, false), &hello()).expect("retried to success");
    assert_eq!(reply.content, "Hi there.");
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn a_stream_that_ends_without_done_is_truncated() {
    let (a, b, c) = (
        content_chunk("one "),
        content_chunk("two "),
        content_chunk("three"),
    );
    let server = Server::start(vec![Reply::sse(&[&a, &b, &c])]);
    let mut cfg = config(&server.url, true);
    cfg.max_retries = 0;
    let err = ask(cfg, &hello()).expect_err("no end");
    assert!(err.to_string().contains("without [DONE]"), "{err}");
}

#[test]
fn bad_request_is_not_retried() {
    let body = r#"{"error":{"message":"model 'nope' not found","type":"invalid_request_error"}}"#;
    let server = Server::start(vec![Reply::json(400, body), Reply::json(200, OK_BODY)]);
    let err = ask(config(&server.url, false), &hello()).expect_err("400");
    assert!(
        matches!(&err, LlmError::Http { status: 400, body, .. } if body.contains("model 'nope' not found")),
        "{err}"
    );
    assert!(!err.is_retryable());
    assert_eq!(server.requests().len(), 1);
}

const KEY_VAR: &str = "YOURA_TEST_LLM_HTTP_KEY";
const FAKE_KEY: &str = "sk-youra-test-9f8e7d6c5b4a";

#[test]
fn the_api_key_is_sent_and_never_shown() {
    // SAFETY: this variable is read and written by this test only.
    unsafe { std::env::set_var(KEY_VAR, FAKE_KEY) };
    let server = Server::start(vec![
        Reply::json(200, OK_BODY),
        Reply::json(401, r#"{"error":{"message":"invalid key"}}"#),
        Reply::json(200, "{not json"),
    ]);
    let mut cfg = config(&server.url, false);
    cfg.api_key_env = Some(KEY_VAR.into());
    cfg.extra_headers.insert("x-title".into(), "youra".into());
    let client = OpenAiCompatible::new(cfg.clone()).expect("client builds");
    client.complete(&key(), &hello()).expect("success");
    let sent = server.requests();
    assert_eq!(
        sent[0].header("authorization"),
        Some(format!("Bearer {FAKE_KEY}").as_str())
    );
    assert_eq!(sent[0].header("x-title"), Some("youra"));

    let mut errors = vec![
        client.complete(&key(), &hello()).expect_err("401"),
        client.complete(&key(), &hello()).expect_err("malformed"),
    ];
    cfg.base_url = "http://127.0.0.1:9/v1".into(); // discard port: connection refused
    cfg.max_retries = 0;
    let unreachable = OpenAiCompatible::new(cfg).expect("client builds");
    errors.push(unreachable.complete(&key(), &hello()).expect_err("refused"));
    for err in &errors {
        for shown in [err.to_string(), format!("{err:?}")] {
            assert!(!shown.contains(FAKE_KEY), "the key leaked: {shown}");
        }
    }
    for shown in [format!("{client:?}"), format!("{unreachable:?}")] {
        assert!(!shown.contains(FAKE_KEY), "the key leaked: {shown}");
    }
}

#[test]
fn a_missing_key_is_named_in_the_401() {
    let server = Server::start(vec![Reply::json(401, r#"{"error":{"message":"no key"}}"#)]);
    let mut cfg = config(&server.url, false);
    cfg.api_key_env = Some("YOURA_TEST_LLM_HTTP_UNSET_KEY".into());
    let err = ask(cfg, &hello()).expect_err("401");
    assert!(
        err.to_string()
            .contains("YOURA_TEST_LLM_HTTP_UNSET_KEY is not set"),
        "{err}"
    );
    assert_eq!(server.requests()[0].header("authorization"), None);
}

#[test]
fn the_api_key_never_reaches_a_transcript_the_ledger_or_the_log() {
    // SAFETY: every test that sets this variable sets the same value.
    unsafe { std::env::set_var(KEY_VAR, FAKE_KEY) };
    let server = Server::start(vec![
        Reply::json(200, OK_BODY),
        Reply::json(401, r#"{"error":{"message":"invalid key"}}"#),
        Reply::json(401, r#"{"error":"bad credentials: {{authorization}}"}"#),
    ]);
    let mut cfg = config(&server.url, false);
    cfg.api_key_env = Some(KEY_VAR.into());
    cfg.max_retries = 0;
    let client = OpenAiCompatible::new(cfg).expect("client builds");
    let run = tempfile::tempdir().unwrap();
    let roles = youra::llm::Roles::from_provider(run.path(), std::sync::Arc::new(client));
    let executor = roles.get("executor").unwrap();
    executor
        .complete(&key(), &hello())
        .expect("success through the recorder");
    let _ = executor
        .complete(&key(), &hello())
        .expect_err("401 recorded as an error");
    // An endpoint that echoes the Authorization header: the error names what happened, not
    // the key, so it cannot reach a stop reason, the history or the log.
    let echoed = executor
        .complete(&key(), &hello())
        .expect_err("401 echoing the header");
    let shown = echoed.to_string();
    assert!(
        shown.contains("bad credentials: Bearer [redacted]"),
        "{shown}"
    );
    assert!(!shown.contains(FAKE_KEY), "{shown}");
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some(format!("Bearer {FAKE_KEY}").as_str()),
        "the key was used"
    );
    let mut written = Vec::new();
    let mut stack = vec![run.path().to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                written.push((
                    e.path(),
                    std::fs::read_to_string(e.path()).unwrap_or_default(),
                ));
            }
        }
    }
    assert!(
        written.len() >= 3,
        "two transcripts and the ledger: {written:?}"
    );
    for (path, text) in &written {
        assert!(
            !text.contains(FAKE_KEY),
            "the key leaked into {}",
            path.display()
        );
    }
}
