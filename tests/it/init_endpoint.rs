//! `youra init` for a real endpoint: the model the researcher names reaches every role (no
//! role left on a model nobody chose), `[plan]` is on (issue 41), and `youra doctor`
//! judges the model name by the server's answers, not by an assumption about servers.

use crate::common::llm_server::LlmServer;

use std::path::Path;
use std::process::{Command, Output};

/// `youra` with no `YOURA_*` variable of the machine's and an empty user config: only the
/// run's own files decide.
fn youra(args: &[&str], home: &Path) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_youra"));
    for (k, _) in std::env::vars() {
        if k.starts_with("YOURA_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("YOURA_CONFIG_DIR", home)
        .args(args)
        .output()
        .expect("youra runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn init(dir: &Path, home: &Path, model: &str, base_url: &str) {
    let d = dir.to_str().unwrap();
    let out = youra(
        &[
            "init",
            d,
            "--topic",
            "Do bill measurements separate penguin species?",
            "--provider",
            "openai",
            "--model",
            model,
            "--base-url",
            base_url,
        ],
        home,
    );
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn the_chosen_model_reaches_every_role() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    init(&run, tmp.path(), "my-model", "http://127.0.0.1:9/v1");
    let toml = std::fs::read_to_string(run.join("youra.toml")).unwrap();
    assert!(!toml.contains("gpt-4o"), "a model nobody chose:\n{toml}");
    assert!(
        toml.contains("\n[plan]\nbudget_tokens = 150000\n"),
        "{toml}"
    );
    let shown = youra(&["config", "show", run.to_str().unwrap()], tmp.path());
    let shown = text(&shown);
    assert!(
        shown.contains("llm.default.base_url = \"http://127.0.0.1:9/v1\""),
        "{shown}"
    );
    for role in youra::llm::roles::ROLES {
        let line = shown
            .lines()
            .find(|l| l.starts_with(&format!("llm.roles.{role}.model = ")))
            .unwrap_or_else(|| panic!("no model line for {role}:\n{shown}"));
        assert!(line.contains("\"my-model\""), "{role}: {line}");
    }
    // The file alone decides: the layered configuration agrees with what was shown.
    let config = youra::config::load(&run).unwrap();
    let settings = config.llm.settings();
    for role in youra::llm::roles::ROLES {
        assert_eq!(
            settings.role(role).model.as_deref(),
            Some("my-model"),
            "{role}"
        );
    }
    assert_eq!(config.llm.outage_wait_s, 1800.0);
}

#[test]
fn a_provider_without_a_model_is_refused_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let out = youra(
        &[
            "init",
            run.to_str().unwrap(),
            "--topic",
            "t",
            "--provider",
            "ollama",
        ],
        tmp.path(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("--provider ollama needs --model"),
        "{}",
        text(&out)
    );
    assert!(!run.join("youra.toml").exists());
}

/// Doctor on `run`: its exit code and its output. The sandbox's line may fail on a machine
/// without bubblewrap, so the tests read the endpoint's own verdict.
fn doctor(run: &Path, home: &Path) -> (Option<i32>, String) {
    let out = youra(&["doctor", run.to_str().unwrap()], home);
    (out.status.code(), text(&out))
}

#[test]
fn doctor_reports_a_model_the_server_does_not_serve() {
    // Ollama's way: one model listed, every other name refused with 404.
    let server = LlmServer::start(0, &["other-model"], true, |_| "1 2 3".to_string());
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    init(&run, tmp.path(), "my-model", &server.base_url());
    let (code, out) = doctor(&run, tmp.path());
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("CANNOT WORK"), "{out}");
    assert!(out.contains("does not serve the model `my-model`"), "{out}");
    assert!(out.contains("listed: other-model"), "{out}");
    assert!(
        out.contains("not found"),
        "the server's own refusal is quoted: {out}"
    );
    assert!(!out.contains("answers any name"), "{out}");
    assert_eq!(
        server.answered(),
        0,
        "no call under the wrong name was answered"
    );
}

#[test]
fn doctor_accepts_a_name_the_server_answers_even_unlisted() {
    // llama.cpp's way: it lists the file it was started with and answers any name.
    let lenient = LlmServer::start(0, &["/models/smollm2.gguf"], false, |_| "1 2 3".to_string());
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    init(&run, tmp.path(), "smollm2", &lenient.base_url());
    let (_, out) = doctor(&run, tmp.path());
    assert!(
        out.contains("verdict      ok") && !out.contains("CANNOT WORK"),
        "{out}"
    );
    assert!(out.contains("answered a call under that name"), "{out}");
    // And the listed name against the strict server: listed, usable.
    let strict = LlmServer::start(0, &["other-model"], true, |_| "1 2 3".to_string());
    let run2 = tmp.path().join("run2");
    init(&run2, tmp.path(), "other-model", &strict.base_url());
    let (_, out) = doctor(&run2, tmp.path());
    assert!(
        out.contains("verdict      ok") && !out.contains("CANNOT WORK"),
        "{out}"
    );
    assert!(out.contains("1 model(s) listed"), "{out}");
}
