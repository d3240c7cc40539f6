//! `youra replay` of someone else's run does not carry its commands (issue 32, 6b): the
//! recorded run's `[[tools.servers]]` (a program youra would start on this machine) and its
//! `sandbox = "off"` are left out of the copy and named; the copy's engine starts no such
//! program; `--keep-commands` keeps them on the researcher's word. Real runs, the real binary,
//! a real MCP server process that leaves a mark each time it is started.

use crate::common;

use std::path::Path;

use common::script::{SCOPING, Script, replay_run};
use youra::engine::{Engine, Options, RunEnd};

const END: &str = r#"{"decision":"MUST_STOP","reason":"end of test"}"#;

fn run_to_end(dir: &Path) {
    let mut e = Engine::open(
        dir,
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
}

/// How many times the recorded run's tool server was started.
fn starts(marker: &Path) -> usize {
    std::fs::read_to_string(marker).map_or(0, |t| t.lines().count())
}

fn settings(dir: &Path) -> toml::Table {
    let text = std::fs::read_to_string(dir.join("youra.toml")).expect("the copy's youra.toml");
    toml::from_str(&text).expect("the copy's youra.toml parses")
}

#[test]
fn a_replay_copy_leaves_out_the_recorded_runs_commands_and_sandbox_unless_kept() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let marker = tmp.path().join("server-started");
    let server = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mcp_echo.py");
    let launch = format!(
        "echo started >> '{}'; exec python3 '{server}'",
        marker.display()
    );
    let mut s = Script::default();
    s.reply("executor", "problem_scoping", None, 1, SCOPING)
        .reply("controller", "problem_scoping", None, 1, END);
    let (_g, a) = replay_run(
        &s,
        &format!(
            "\n[exec]\nsandbox = \"off\"\n\n[[tools.servers]]\nname = \"echo\"\ncommand = \"sh\"\nargs = [\"-c\", {launch:?}]\n"
        ),
    );
    run_to_end(&a);
    assert_eq!(starts(&marker), 1, "the recorded run started its server");

    let b = tmp.path().join("b");
    let out = common::youra(&["replay", a.to_str().unwrap(), b.to_str().unwrap()]);
    let (stdout, stderr) = common::text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("left out of the copy's youra.toml")
            && stdout.contains("[[tools.servers]] echo: runs `sh -c echo started >>")
            && stdout.contains("[exec] sandbox: sandbox = \"off\"")
            && stdout.contains("--keep-commands"),
        "the output names what was left out:\n{stdout}"
    );
    let copy = settings(&b);
    assert!(
        copy.get("tools").and_then(|t| t.get("servers")).is_none(),
        "no tool server in the copy: {copy:?}"
    );
    assert!(
        copy.get("exec").and_then(|t| t.get("sandbox")).is_none(),
        "no sandbox setting in the copy (the default, required, applies): {copy:?}"
    );
    let config = youra::config::load_with(&b, None, &[]).expect("the copy's settings load");
    assert_eq!(
        config.exec.sandbox,
        youra::exec::SandboxMode::Required,
        "the copy is confined"
    );
    let history = youra::vsa::store::Store::new(b.join("verification_state.yaml"))
        .load()
        .expect("VSA")
        .vsa
        .history
        .clone();
    assert!(
        history.iter().any(|e| e
            .reason
            .as_deref()
            .is_some_and(|r| r.contains("[[tools.servers]] echo, [exec] sandbox: left out"))),
        "the copy's history says what was left out"
    );
    run_to_end(&b);
    assert_eq!(
        starts(&marker),
        1,
        "the copy did not start the recorded server"
    );

    let c = tmp.path().join("c");
    // The copy's kept settings are recorded as trusted: in the test's own config folder.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args([
            "replay",
            a.to_str().unwrap(),
            c.to_str().unwrap(),
            "--keep-commands",
        ])
        .env("YOURA_CONFIG_DIR", tmp.path().join("config"))
        .output()
        .unwrap();
    let (stdout, stderr) = common::text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("kept from the recorded run's youra.toml"),
        "{stdout}"
    );
    let kept = settings(&c);
    assert!(kept.get("tools").and_then(|t| t.get("servers")).is_some());
    assert_eq!(
        kept.get("exec")
            .and_then(|t| t.get("sandbox"))
            .and_then(|v| v.as_str()),
        Some("off")
    );
    // The mark is real: a copy that keeps the server does start it.
    run_to_end(&c);
    assert_eq!(starts(&marker), 2, "the kept server started with the copy");
}
