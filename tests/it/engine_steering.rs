//! Steering a running engine: breakpoints pause, resume and step release them, a directive
//! written by another process is applied at the next boundary, and an engine killed with
//! SIGKILL mid-stage resumes cleanly when restarted.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::script::{Script, replay_run};
use youra::engine::RunEnd;
use youra::rundir::Layout;
use youra::steer::{Request, Verb};
use youra::vsa::store::Store;

fn run(dir: &Path) -> RunEnd {
    common::script::run_engine(dir, true)
}

fn steer(dir: &Path, verb: Verb, target: Option<&str>) {
    let store = Store::new(dir.join("verification_state.yaml"));
    youra::steer::apply(&store, &Request::new(verb, target, "test"), Layout::Native)
        .expect("steer");
}

fn completed(dir: &Path) -> Vec<String> {
    let s = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    let Some(phases) = s
        .doc
        .root
        .as_ref()
        .and_then(|r| r.get("phases"))
        .and_then(|p| p.as_map())
    else {
        return Vec::new();
    };
    phases
        .iter()
        .filter(|(_, v)| v.get("status").and_then(|x| x.as_str()) == Some("COMPLETED"))
        .filter_map(|(k, _)| k.as_str().map(str::to_string))
        .collect()
}

fn status(dir: &Path) -> String {
    let s = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    s.vsa
        .workflow
        .status
        .as_ref()
        .map_or("?".into(), |x| x.as_str().to_string())
}

#[test]
fn a_breakpoint_pauses_and_resume_goes_on() {
    let mut s = Script::default();
    s.through_design();
    let (_g, dir) = replay_run(&s, "");
    steer(&dir, Verb::Breakpoint, Some("Phase 1"));
    assert_eq!(run(&dir), RunEnd::Paused);
    assert_eq!(completed(&dir), ["problem_scoping"]);
    assert_eq!(status(&dir), "PAUSED");
    steer(&dir, Verb::Resume, None);
    let RunEnd::Stopped(reason) = run(&dir) else {
        panic!("expected the stop at the loop's edge")
    };
    assert!(reason.contains("Coding & Validation"), "{reason}");
    assert_eq!(completed(&dir).len(), 4);
    let snap = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    let d = youra::steer::directives(&snap.doc);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].state, youra::steer::DirectiveState::Applied);
    assert_eq!(d[0].note.as_deref(), Some("resumed"));
}

#[test]
fn step_advances_exactly_one_stage() {
    let mut s = Script::default();
    s.through_design();
    let (_g, dir) = replay_run(&s, "");
    steer(&dir, Verb::Breakpoint, Some("Phase 1"));
    assert_eq!(run(&dir), RunEnd::Paused);
    steer(&dir, Verb::Step, None);
    assert_eq!(run(&dir), RunEnd::Paused);
    assert_eq!(completed(&dir), ["problem_scoping", "literature_grounding"]);
    steer(&dir, Verb::Step, None);
    assert_eq!(run(&dir), RunEnd::Paused);
    assert_eq!(completed(&dir).len(), 3);
}

#[test]
fn rejected_directives_say_why() {
    let mut s = Script::default();
    s.scoping();
    let (_g, dir) = replay_run(&s, "");
    steer(&dir, Verb::Resume, None);
    steer(&dir, Verb::Pause, None);
    assert_eq!(run(&dir), RunEnd::Paused);
    let snap = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    let d = youra::steer::directives(&snap.doc);
    assert_eq!(d[0].state, youra::steer::DirectiveState::Rejected);
    assert_eq!(d[0].note.as_deref(), Some("the run is not paused"));
    assert_eq!(d[1].state, youra::steer::DirectiveState::Applied);
    assert!(completed(&dir).is_empty(), "paused before the first stage");
}

fn slow_run(turns_delay_ms: u64) -> (tempfile::TempDir, std::path::PathBuf, usize) {
    let mut s = Script::default();
    s.through_design();
    let (g, dir) = replay_run(&s, "");
    let toml = std::fs::read_to_string(dir.join("youra.toml")).unwrap();
    let toml = toml.replace(
        "replay = \"replay.jsonl\"",
        &format!("replay = \"replay.jsonl\"\nreplay_delay_ms = {turns_delay_ms}"),
    );
    std::fs::write(dir.join("youra.toml"), toml).unwrap();
    (g, dir, s.len())
}

fn wait_for(dir: &Path, what: &str, pred: impl Fn(&[youra::rundir::events::Event]) -> bool) {
    let t = Instant::now();
    while !pred(&youra::rundir::events::read(&dir.join("events.jsonl"))) {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn engine_process(dir: &Path, args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_youra"))
        .arg("run")
        .arg(dir)
        .args(args)
        .env("YOURA_CONFIG_DIR", dir.join("no-user-config"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("engine starts")
}

#[test]
fn a_directive_from_another_process_is_applied_at_the_next_boundary() {
    let (_g, dir, _) = slow_run(60);
    let mut engine = engine_process(&dir, &["--until-pause"]);
    wait_for(&dir, "the debate to start", |ev| {
        ev.iter()
            .any(|e| e.kind == "stage_start" && e.stage.as_deref() == Some("Hypothesis Debate"))
    });
    let out = common::youra(&[
        "steer",
        dir.to_str().unwrap(),
        "pause",
        "--reason",
        "look at the debate",
    ]);
    assert!(out.status.success(), "{:?}", common::text(&out));
    let status_code = engine.wait().expect("engine exits").code();
    assert_eq!(status_code, Some(3), "exit 3 means paused");
    // The debate that was running finished; nothing started after the pause.
    assert_eq!(
        completed(&dir),
        [
            "problem_scoping",
            "literature_grounding",
            "hypothesis_debate"
        ]
    );
    let ev = youra::rundir::events::read(&dir.join("events.jsonl"));
    let pause_at = ev
        .iter()
        .position(|e| e.kind == "steer" && e.action.as_deref() == Some("pause"))
        .expect("pause applied");
    assert!(
        !ev[pause_at..].iter().any(|e| e.kind == "stage_start"),
        "no stage started after the pause"
    );
    assert_eq!(status(&dir), "PAUSED");
}

#[test]
fn kill_nine_mid_stage_then_restart_resumes_without_duplicating_history() {
    let (_g, dir, n) = slow_run(40);
    let mut engine = engine_process(&dir, &[]);
    wait_for(&dir, "the debate's third call", |ev| {
        ev.iter()
            .filter(|e| e.kind == "llm_call" && e.stage.as_deref() == Some("Hypothesis Debate"))
            .count()
            >= 3
    });
    engine.kill().expect("SIGKILL");
    let _ = engine.wait();
    assert_eq!(completed(&dir), ["problem_scoping", "literature_grounding"]);
    let mut again = engine_process(&dir, &[]);
    assert_eq!(
        again.wait().expect("engine exits").code(),
        Some(1),
        "stops at the loop's edge"
    );
    assert_eq!(completed(&dir).len(), 4);
    let snap = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    for stage in [
        "Problem Scoping",
        "Literature Grounding",
        "Hypothesis Debate",
        "Verification Planning",
    ] {
        let n = snap
            .vsa
            .history
            .iter()
            .filter(|h| {
                h.event.as_deref() == Some("phase_complete")
                    && h.reason.as_deref().is_some_and(|r| r.starts_with(stage))
            })
            .count();
        assert_eq!(n, 1, "{stage} completed once in the history");
    }
    let ev = youra::rundir::events::read(&dir.join("events.jsonl"));
    assert!(
        ev.iter().any(|e| e.kind == "engine_start"
            && e.message
                .as_deref()
                .is_some_and(|m| m.contains("took over"))),
        "the second engine took over the dead one's lock"
    );
    let transcripts = std::fs::read_dir(dir.join("transcripts")).unwrap().count();
    assert!(
        transcripts > n,
        "the interrupted debate was recorded twice: {transcripts} vs {n}"
    );
}

#[test]
fn a_detached_engine_survives_the_hang_up_of_its_terminal() {
    let (_g, dir, _) = slow_run(60);
    let out = Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["run", dir.to_str().unwrap(), "--detach"])
        .env("YOURA_CONFIG_DIR", dir.join("no-user-config"))
        .output()
        .expect("youra run --detach");
    let (stdout, _) = common::text(&out);
    assert!(out.status.success(), "{stdout}");
    let pid: i32 = stdout
        .split("(pid ")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .and_then(|p| p.parse().ok())
        .expect("the pid is printed");
    wait_for(&dir, "the engine to start", |ev| {
        ev.iter().any(|e| e.kind == "stage_start")
    });
    // SAFETY: sends a signal to the process this test started.
    assert_eq!(
        unsafe { libc::kill(pid, libc::SIGHUP) },
        0,
        "the detached engine is alive"
    );
    wait_for(&dir, "the run to stop at the loop's edge", |ev| {
        ev.iter().any(|e| e.kind == "stop")
    });
    assert_eq!(completed(&dir).len(), 4, "it ran on after the hang-up");
    // The engine prints its outcome after it records the stop event, so the log may lag the
    // event by a moment: wait for the line rather than read once (CI caught the race).
    let t = Instant::now();
    loop {
        let log = std::fs::read_to_string(dir.join("youra.log")).unwrap_or_default();
        if log.contains("MUST_STOP") {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "its output went to youra.log: {log}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
