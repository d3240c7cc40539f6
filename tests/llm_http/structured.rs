//! Structured replies on the wire: each dialect puts the schema where its servers read it,
//! a forced tool call comes back as the answer, reasoning is kept apart from the answer,
//! a reply that never ends is cut at the per-call limit, and `youra doctor` chooses the
//! dialect a server really honours.

use std::time::Duration;

use serde_json::{Value, json};
use youra::llm::doctor::{Probe, examine, probe_schema};
use youra::llm::{
    Anthropic, ChatRequest, HttpConfig, LlmError, LlmSettings, Message, OpenAiCompatible, Provider,
    ProviderKind, ReplySchema, RoleConfig, Structured, schema as js,
};

use super::server::{Reply, Server};

fn schema() -> ReplySchema {
    ReplySchema::new(
        "decision",
        js::object(&[("decision", js::one_of(&["PHASE_COMPLETE", "RESUME"]))]),
    )
}

fn request() -> ChatRequest {
    let mut r = ChatRequest::new(vec![Message::user("decide")]);
    r.json = true;
    r.schema = Some(schema());
    r
}

fn config(url: &str, dialect: Structured) -> HttpConfig {
    HttpConfig {
        structured: dialect,
        ..crate::config(url, false)
    }
}

fn completion(content: &str) -> String {
    json!({"model": "m", "choices": [{"message": {"content": content}, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": 3, "completion_tokens": 2}})
    .to_string()
}

#[test]
fn each_dialect_carries_the_schema_in_its_servers_field() {
    type Holds = dyn Fn(&Value) -> bool;
    let cases: [(Structured, &Holds); 5] = [
        (Structured::JsonSchema, &|b| {
            b["response_format"]["type"] == "json_schema"
                && b["response_format"]["json_schema"]["schema"] == schema().schema
                && b["response_format"]["json_schema"]["strict"] == true
        }),
        (Structured::JsonObject, &|b| {
            b["response_format"] == json!({"type": "json_object", "schema": schema().schema})
        }),
        (Structured::GuidedJson, &|b| {
            b["guided_json"] == schema().schema
        }),
        (Structured::Format, &|b| b["format"] == schema().schema),
        (Structured::None, &|b| {
            b.get("response_format").is_none() && b.get("format").is_none()
        }),
    ];
    for (dialect, holds) in cases {
        let server = Server::start(vec![Reply::json(
            200,
            &completion("{\"decision\":\"RESUME\"}"),
        )]);
        let client = OpenAiCompatible::new(config(&server.url, dialect)).unwrap();
        let reply = client.complete(&crate::key(), &request()).unwrap();
        assert_eq!(reply.content, "{\"decision\":\"RESUME\"}");
        let body = &server.requests()[0].body;
        assert!(holds(body), "{dialect:?}: {body}");
    }
}

#[test]
fn a_forced_tool_call_is_the_answer() {
    let body = json!({"model": "m", "choices": [{"message": {"content": null, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "decision", "arguments": "{\"decision\":\"PHASE_COMPLETE\"}"}}
    ]}, "finish_reason": "tool_calls"}]})
    .to_string();
    let server = Server::start(vec![Reply::json(200, &body)]);
    let client = OpenAiCompatible::new(config(&server.url, Structured::Tool)).unwrap();
    let reply = client.complete(&crate::key(), &request()).unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&reply.content).unwrap()["decision"],
        "PHASE_COMPLETE"
    );
    assert!(reply.tool_calls.is_empty());
    assert_eq!(reply.finish_reason.as_deref(), Some("stop"));
    let sent = &server.requests()[0].body;
    assert_eq!(sent["tool_choice"]["function"]["name"], "decision");
    assert_eq!(sent["tools"][0]["function"]["parameters"], schema().schema);
}

#[test]
fn anthropic_gets_one_forced_tool() {
    let body = json!({"model": "claude", "content": [
        {"type": "thinking", "thinking": "weighing it"},
        {"type": "tool_use", "id": "t", "name": "decision", "input": {"decision": "RESUME"}}
    ], "stop_reason": "tool_use", "usage": {"input_tokens": 5, "output_tokens": 7}})
    .to_string();
    let server = Server::start(vec![Reply::json(200, &body)]);
    let mut cfg = config(&server.url, Structured::Tool);
    cfg.base_url = server.url.clone();
    let client = Anthropic::new(cfg).unwrap();
    let reply = client.complete(&crate::key(), &request()).unwrap();
    assert_eq!(reply.content, "{\"decision\":\"RESUME\"}");
    assert_eq!(reply.reasoning, "weighing it");
    let sent = &server.requests()[0].body;
    assert_eq!(
        sent["tool_choice"],
        json!({"type": "tool", "name": "decision"})
    );
    assert_eq!(sent["tools"][0]["input_schema"], schema().schema);
}

#[test]
fn reasoning_is_kept_apart_from_the_answer() {
    // A reasoning field (vLLM, DeepSeek) and a think block (R1 distills in the content).
    let field = json!({"model": "m", "choices": [{"message": {"content": "{\"a\":1}", "reasoning_content": "first thoughts"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 9, "completion_tokens_details": {"reasoning_tokens": 6}}}).to_string();
    let think = completion("<think>the answer {is not} this</think>\n{\"a\":2}");
    let server = Server::start(vec![Reply::json(200, &field), Reply::json(200, &think)]);
    let client = OpenAiCompatible::new(config(&server.url, Structured::None)).unwrap();
    let one = client.complete(&crate::key(), &request()).unwrap();
    assert_eq!(
        (one.content.as_str(), one.reasoning.as_str()),
        ("{\"a\":1}", "first thoughts")
    );
    assert_eq!(one.usage.reasoning_tokens, 6);
    let two = client.complete(&crate::key(), &request()).unwrap();
    assert_eq!(two.content, "{\"a\":2}");
    assert_eq!(two.reasoning, "the answer {is not} this");
    assert!(
        two.usage.reasoning_tokens > 0,
        "estimated when the server gives none"
    );
    // Streamed: reasoning deltas and a think block across chunks.
    let chunk = |delta: Value| format!("data: {}\n\n", json!({"choices": [{"delta": delta}]}));
    let (a, b, c) = (
        chunk(json!({"reasoning": "hmm"})),
        chunk(json!({"content": "<think>more"})),
        chunk(json!({"content": "</think>{\"a\":3}"})),
    );
    let end = "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    let server = Server::start(vec![Reply::sse(&[&a, &b, &c, end])]);
    let mut cfg = config(&server.url, Structured::None);
    cfg.stream = true;
    let reply = OpenAiCompatible::new(cfg)
        .unwrap()
        .complete(&crate::key(), &request())
        .unwrap();
    assert_eq!(reply.content, "{\"a\":3}");
    assert_eq!(reply.reasoning, "hmm\n\nmore");
}

#[test]
fn a_reply_that_never_ends_is_cut_at_the_call_limit() {
    let piece = format!(
        "data: {}\n\n",
        json!({"choices": [{"delta": {"content": "and on "}}]})
    );
    let endless: Vec<&str> = std::iter::repeat_n(piece.as_str(), 2000).collect();
    let server = Server::start(vec![Reply::sse(&endless)]);
    let mut cfg = config(&server.url, Structured::None);
    cfg.stream = true;
    cfg.call_timeout = Duration::from_millis(300);
    let started = std::time::Instant::now();
    let err = OpenAiCompatible::new(cfg)
        .unwrap()
        .complete(&crate::key(), &request())
        .unwrap_err();
    assert!(matches!(err, LlmError::CallLimit { .. }), "{err}");
    assert!(!err.is_retryable(), "a degenerate reply is not asked again");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(err.to_string().contains("call_timeout_s"), "{err}");
}

fn settings(url: &str) -> LlmSettings {
    LlmSettings {
        default: RoleConfig {
            provider: Some(ProviderKind::Openai),
            base_url: Some(format!("{url}/v1")),
            model: Some("test-model".into()),
            api_key_env: Some("YOURA_DOCTOR_TEST_KEY".into()),
            max_retries: Some(0),
            ..RoleConfig::default()
        },
        ..LlmSettings::default()
    }
}

#[test]
fn doctor_picks_the_first_dialect_the_server_honours() {
    let models = json!({"data": [{"id": "test-model"}]}).to_string();
    let ignored = completion("{\"hello\": \"world\"}");
    let honoured = completion("{\"answer\": \"youra-probe\", \"n\": 41}");
    let stream_end = "data: {\"choices\":[{\"delta\":{\"content\":\"1 2 3\"},\"finish_reason\":\"stop\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":6}}\n\ndata: [DONE]\n\n";
    let tool = json!({"choices": [{"message": {"content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}]}, "finish_reason": "tool_calls"}]}).to_string();
    let server = Server::start(vec![
        Reply::json(200, &models),
        Reply::json(
            422,
            "{\"error\":{\"message\":\"unknown response_format type\"}}",
        ),
        Reply::json(200, &ignored),
        Reply::json(200, &honoured),
        Reply::sse(&[stream_end]),
        Reply::json(200, &honoured),
        Reply::json(200, &tool),
    ]);
    let report = examine(
        std::path::Path::new("/nonexistent"),
        &settings(&server.url),
        &["executor", "controller"],
        |_| None,
    );
    assert_eq!(report.endpoints.len(), 1, "two roles, one endpoint");
    let e = &report.endpoints[0];
    assert_eq!(e.roles, vec!["executor", "controller"]);
    assert!(e.usable(), "{:?}", e.problems);
    assert_eq!(e.structured, Structured::GuidedJson);
    let tried: Vec<Structured> = e.dialects.iter().map(|(d, _)| *d).collect();
    assert_eq!(
        tried,
        vec![
            Structured::JsonSchema,
            Structured::JsonObject,
            Structured::GuidedJson
        ]
    );
    assert!(matches!(&e.dialects[1].1, Probe::No(why) if why.contains("ignored the schema")));
    assert!(e.streaming.yes() && e.tool_calls.yes() && e.model_listed.yes());
    assert!(e.tokens_per_s.is_some() && e.latency_ms.is_some());
    let sent = server.requests();
    assert_eq!(sent[0].path, "/v1/models");
    assert_eq!(sent[3].body["guided_json"], probe_schema().schema);
    let text = youra::llm::doctor::render(&report);
    assert!(
        text.contains("structured   guided_json") && text.contains("verdict      ok"),
        "{text}"
    );
}

#[test]
fn doctor_says_what_to_change_and_never_shows_the_key() {
    // Nothing listens: the port of a server that was started and dropped.
    let url = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    let report = examine(
        std::path::Path::new("/nonexistent"),
        &settings(&url),
        &["executor"],
        |_| None,
    );
    assert!(!report.ok());
    let e = &report.endpoints[0];
    assert!(
        e.problems[0].contains("nothing answers") && e.problems[0].contains("base_url"),
        "{:?}",
        e.problems
    );
    // A server that echoes the key in its 401.
    let secret = "sk-doctor-secret-0123456789abcdef";
    // SAFETY: test-only variable, read by this test's doctor run.
    unsafe { std::env::set_var("YOURA_DOCTOR_TEST_KEY", secret) };
    let echo = "{\"error\":{\"message\":\"bad key {{authorization}}\"}}";
    let mut script = vec![Reply::json(401, echo)];
    script.extend((0..5).map(|_| Reply::json(401, echo)));
    let server = Server::start(script);
    let report = examine(
        std::path::Path::new("/nonexistent"),
        &settings(&server.url),
        &["executor"],
        |_| None,
    );
    let shown = format!(
        "{}{}",
        youra::llm::doctor::render(&report),
        serde_json::to_string(&report).unwrap()
    );
    assert!(!report.ok(), "{shown}");
    assert!(!shown.contains(secret), "{shown}");
    assert!(shown.contains("no chat request succeeded"), "{shown}");
}
