//! A stage with tools: the run's MCP server (a real process, tests/fixtures/mcp_echo.py)
//! is started with the engine, its health written for the TUI, and a replayed executor that
//! asks for a tool gets the server's answer through the tool loop; the call is an event, a
//! recorded exchange and a ledger row.

use crate::common;

use common::script::{LITERATURE, Script, replay_run};
use youra::engine::{Engine, Options, RunEnd};

#[test]
fn a_stage_calls_an_mcp_tool_through_the_engine() {
    let mut s = Script::default();
    s.scoping();
    s.tool_call(
        "executor",
        "literature_grounding",
        1,
        "echo__echo",
        serde_json::json!({"text": "palmer penguins"}),
    );
    s.reply("executor", "literature_grounding", None, 1, LITERATURE);
    s.reply(
        "controller",
        "literature_grounding",
        None,
        1,
        r#"{"decision":"MUST_STOP","reason":"end of test"}"#,
    );
    let (_g, dir) = with_echo_server(&s);
    let mut e = Engine::open(
        &dir,
        Options {
            exit_when_paused: true,
            ..Options::default()
        },
    )
    .expect("engine opens");
    assert_eq!(
        e.run().expect("runs"),
        RunEnd::Stopped("controller: end of test".into())
    );
    drop(e);
    let health = std::fs::read_to_string(dir.join(".youra/tools_health.json")).unwrap();
    assert!(
        health.contains("\"state\": \"up\"") && health.contains("\"name\": \"echo\""),
        "{health}"
    );
    let ev = youra::rundir::events::read(&dir.join("events.jsonl"));
    assert!(
        ev.iter().any(|e| e.kind == "tool_call"
            && e.message
                .as_deref()
                .is_some_and(|m| m.contains("echo__echo"))),
        "a tool_call event"
    );
    assert!(dir.join("01_targeted_research.md").is_file());
    let transcripts: Vec<String> = std::fs::read_dir(dir.join("transcripts"))
        .unwrap()
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
        .collect();
    assert!(
        transcripts
            .iter()
            .any(|t| t.contains("palmer penguins") && t.contains("\"role\": \"tool\"")),
        "the tool result went back to the model and was recorded"
    );
    let ledger = std::fs::read_to_string(dir.join("ledger.tsv")).unwrap();
    assert!(
        ledger.contains("executor:tool"),
        "the tool result was charged: {ledger}"
    );
}

#[test]
fn an_external_coding_agent_writes_the_code_and_youra_judges_it() {
    let mut s = Script::default();
    s.scoping()
        .literature()
        .debate(6, true)
        .planning()
        .design_and_plan("h-e1", &common::script::brief("accuracy", ">=", 0.92));
    s.reply(
        "judge",
        "coding_validation",
        Some("h-e1"),
        1,
        common::script::CONSISTENT,
    )
    .ok("coding_validation", Some("h-e1"), 1);
    // The agent runs in the sandbox, which hides /tmp: what it reads lies in the run's data
    // folder (bound read-only), wherever the checkout is.
    let (g, dir) = replay_run(&s, "");
    common::script::with_data(&dir);
    let agent = dir.join("data/fake_agent.py");
    let source = dir.join("data/centroid.py");
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fake_agent.py"),
        &agent,
    )
    .unwrap();
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo/code/centroid.py"),
        &source,
    )
    .unwrap();
    let toml = format!(
        "experiment_time_limit_s = 60\n\n[tools.coding_agent]\ncommand = [\"python3\", {agent:?}, \"{{code}}\", \"{{tasks}}\", {source:?}]\nmodel = \"fake-agent\"\nsandbox = \"required\"\nnetwork = false\ntime_limit_s = 60\n"
    );
    let toml = std::fs::read_to_string(dir.join("youra.toml")).unwrap() + &toml;
    std::fs::write(dir.join("youra.toml"), toml).unwrap();
    let _g = g;
    let mut e = Engine::open(
        &dir,
        Options {
            exit_when_paused: true,
            ..Options::default()
        },
    )
    .expect("engine opens");
    let end = e.run().expect("runs");
    drop(e);
    let RunEnd::Stopped(reason) = end else {
        panic!("expected the stop at h-m1, got {end:?}")
    };
    assert!(reason.contains("hypothesis=h-m1"), "{reason}");
    let snap = youra::vsa::store::Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    assert_eq!(
        snap.vsa.hypothesis("h-e1").unwrap().status.as_str(),
        "VALIDATED",
        "judged by youra on the measured accuracy"
    );
    let ledger = std::fs::read_to_string(dir.join("ledger.tsv")).unwrap();
    assert!(
        ledger.contains("fake-agent\t1500\t400"),
        "the agent's tokens are charged: {ledger}"
    );
    assert!(dir.join("h-e1/code/run.sh").is_file());
}

#[test]
fn an_mcp_server_that_dies_mid_call_leaves_a_warning_naming_it_in_the_log() {
    let mut s = Script::default();
    s.scoping();
    s.tool_call(
        "executor",
        "literature_grounding",
        1,
        "echo__exit",
        serde_json::json!({}),
    );
    s.reply("executor", "literature_grounding", None, 1, LITERATURE);
    s.reply(
        "controller",
        "literature_grounding",
        None,
        1,
        r#"{"decision":"MUST_STOP","reason":"end of test"}"#,
    );
    let (_g, dir) = with_echo_server(&s);
    // The researcher wrote the server into the run's settings, and trusts it.
    let config = common::trust::trusted(&dir, &_g.path().join("config"));
    // The binary: it installs the log's subscriber, as every run does.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["run", dir.to_str().unwrap()])
        .env("YOURA_CONFIG_DIR", &config)
        .env("RUST_LOG", "debug")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let log = std::fs::read_to_string(dir.join("youra.log")).unwrap();
    assert!(
        log.lines().any(|l| l.contains("WARN")
            && l.contains("tool_call{server=\"echo\" tool=exit}")
            && l.contains("MCP server `echo` is gone")),
        "a warning naming the server: {log}"
    );
    // RUST_LOG=debug: the call's span carries its key, so one grep follows it.
    assert!(
        log.lines().any(
            |l| l.contains("llm_call{role=executor stage=literature_grounding")
                && l.contains("reply")
                && l.contains("output_tokens=")
        ),
        "{log}"
    );
    assert!(
        log.lines()
            .any(|l| l.contains("stage{stage=literature_grounding") && l.contains("youra::engine")),
        "{log}"
    );
}

/// A replay run of `s` with the test MCP server `echo` (tests/fixtures/mcp_echo.py) for the
/// executor.
fn with_echo_server(s: &Script) -> (tempfile::TempDir, std::path::PathBuf) {
    let server = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mcp_echo.py");
    replay_run(
        s,
        &format!(
            "\n[[tools.servers]]\nname = \"echo\"\ncommand = \"python3\"\nargs = [{server:?}]\nroles = [\"executor\"]\n"
        ),
    )
}
