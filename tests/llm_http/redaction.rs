//! The request a model endpoint receives is masked like the saved transcript (issue 32, 6b):
//! a prompt that quotes youra's own environment (a brief the experiment replaced with a link
//! to `/proc/self/environ`) reaches the loopback server with every secret masked, for the
//! OpenAI-compatible and the Anthropic client alike, while the `Authorization` header still
//! carries the real key.
//!
//! The environment is real: the test re-runs its own binary with secrets set (a test cannot
//! set variables in its own multi-threaded process safely), and the child reads
//! `/proc/self/environ` as the engine would read the linked brief.

use std::process::Command;
use std::sync::{Arc, Mutex};

use youra::llm::ledger::{Ledger, PriceTable};
use youra::llm::recorder::{Counters, Recorder};
use youra::llm::{Anthropic, ChatRequest, Message, OpenAiCompatible, Provider};

use super::server::{Reply, Server};
use crate::{config, key};

const CHILD: &str = "YOURA_REDACTION_CHILD";
const AWS: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const HF: &str = "hf_QwErTyUiOpAsDfGhJkLzXcVbNm";
const DB_PASSWORD: &str = "pa55-w0rd-of-the-lab";
/// The role's key lives in a variable whose name does not look secret.
const LAB_KEY: &str = "lab-endpoint-key-0123456789";
const OK_OPENAI: &str = r#"{"id":"x","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}"#;
const OK_ANTHROPIC: &str = r#"{"id":"m1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}"#;

#[test]
fn an_environ_dump_in_a_prompt_reaches_the_endpoint_masked() {
    if std::env::var_os(CHILD).is_some() {
        return child();
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let out = Command::new(exe)
        .args([
            "--exact",
            "llm_http::redaction::an_environ_dump_in_a_prompt_reaches_the_endpoint_masked",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .env("AWS_SECRET_ACCESS_KEY", AWS)
        .env("HF_TOKEN", HF)
        .env(
            "DATABASE_URL",
            format!("postgres://youra:{DB_PASSWORD}@db.lab:5432/runs"),
        )
        .env("LAB_LLM", LAB_KEY)
        .output()
        .expect("the child test runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "child failed:\n{text}");
    assert!(text.contains("1 passed"), "the child ran the test:\n{text}");
}

/// Runs with the secrets in its environment.
fn child() {
    let environ = std::fs::read("/proc/self/environ").expect("read /proc/self/environ");
    let environ = String::from_utf8_lossy(&environ).into_owned();
    assert!(environ.contains(HF), "the child has the secrets to leak");
    let request = ChatRequest::new(vec![
        Message::system("You design experiments."),
        Message::user(format!("## Experiment brief\n{environ}\n## End")),
    ]);

    let openai = Server::start(vec![Reply::json(200, OK_OPENAI)]);
    let mut cfg = config(&openai.url, false);
    cfg.api_key_env = Some("LAB_LLM".into());
    let dir = tempfile::tempdir().expect("tempdir");
    let ledger = Arc::new(Ledger::new(
        dir.path().join("ledger.tsv"),
        PriceTable::default(),
    ));
    let recorded = Recorder::new(
        Arc::new(OpenAiCompatible::new(cfg).expect("client")),
        dir.path().join("transcripts"),
        ledger,
        Arc::new(Mutex::new(Counters::default())),
    );
    recorded.complete(&key(), &request).expect("openai reply");
    let sent = &openai.requests()[0];
    assert_eq!(
        sent.header("authorization"),
        Some(format!("Bearer {LAB_KEY}").as_str()),
        "the header still carries the real key"
    );
    let prompt = sent.body["messages"][1]["content"]
        .as_str()
        .expect("the user message as text");
    assert_masked(prompt, "openai");

    let transcript = std::fs::read_dir(dir.path().join("transcripts"))
        .expect("transcripts written")
        .filter_map(|e| e.ok())
        .map(|e| std::fs::read_to_string(e.path()).expect("read transcript"))
        .collect::<String>();
    for secret in [AWS, HF, DB_PASSWORD] {
        assert!(!transcript.contains(secret), "transcript leaks {secret}");
    }

    let anthropic = Server::start(vec![Reply::json(200, OK_ANTHROPIC)]);
    let mut cfg = config(&anthropic.url, false);
    cfg.base_url = anthropic.url.clone();
    cfg.api_key_env = Some("LAB_LLM".into());
    Anthropic::new(cfg)
        .expect("client")
        .complete(&key(), &request)
        .expect("anthropic reply");
    let sent = &anthropic.requests()[0];
    assert_eq!(
        sent.header("x-api-key"),
        Some(LAB_KEY),
        "the real key in its header"
    );
    let body = sent.body.to_string();
    assert_masked(&body, "anthropic");
}

fn assert_masked(sent: &str, who: &str) {
    for secret in [AWS, HF, DB_PASSWORD, LAB_KEY] {
        assert!(
            !sent.contains(secret),
            "{who}: the endpoint received {secret}"
        );
    }
    for masked in [
        "AWS_SECRET_ACCESS_KEY=[redacted]",
        "HF_TOKEN=[redacted]",
        "postgres://youra:[redacted]@db.lab:5432/runs",
        "LAB_LLM=[redacted]",
    ] {
        assert!(
            sent.contains(masked),
            "{who}: expected {masked} in the body"
        );
    }
    // What is not secret still reaches the model.
    assert!(sent.contains("## Experiment brief"), "{who}");
    assert!(sent.contains("PATH=/"), "{who}: ordinary variables pass");
}
