//! Engine transitions read the VSA as it is when they decide: directives queued together
//! are decided one after another, and a researcher's threshold edit decides the next gate.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use common::revisions::{Field, one_revision};

use youra::vsa::Store;

const BIN: &str = env!("CARGO_BIN_EXE_youra");

/// `youra <args up to the run folder> <dir> <rest>`: `vsa get`/`vsa set` take it second.
fn youra(args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(BIN);
    let at = if args[0] == "vsa" { 2 } else { 1 };
    c.args(&args[..at]).arg(dir).args(&args[at..]);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("youra runs")
}

/// A demo run folder stopped (killed) after its first revisions.
fn early_demo(dir: &Path) {
    let out = Command::new(BIN)
        .args(["demo", "--headless", "--dir"])
        .arg(dir)
        .env("YOURA_CRASH_AT", "after:2")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), None, "killed at the crash point");
}

#[test]
fn pause_then_resume_queued_together_leaves_the_run_resumed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    early_demo(&dir);
    for verb in ["pause", "resume"] {
        let out = youra(&["steer", verb, "--reason", "test"], &dir, &[]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = youra(&["run", "--until-pause"], &dir, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "the run completes instead of staying paused: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let snap = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    let states: Vec<String> = (0..2)
        .map(|i| {
            let p = format!("workflow.steering[{i}].state");
            let out = youra(&["vsa", "get", &p], &dir, &[]);
            String::from_utf8_lossy(&out.stdout).trim().to_string()
        })
        .collect();
    assert_eq!(states, ["applied", "applied"], "both applied, in order");
    // Each directive and its mark are one write.
    let paused = one_revision(
        &dir,
        0,
        "pause applied",
        &[
            Field("workflow.status", "PAUSED"),
            Field("workflow.steering[0]", "state: applied"),
        ],
    );
    one_revision(
        &dir,
        paused,
        "resume applied",
        &[
            Field("workflow.status", "ACTIVE"),
            Field("workflow.steering[1]", "state: applied"),
        ],
    );
    assert_eq!(
        snap.vsa.workflow.status.as_ref().unwrap().as_str(),
        "COMPLETED"
    );
}

#[test]
fn a_threshold_edit_decides_the_next_gate_and_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    early_demo(&dir);
    // The recorded run never asked the controller about h-e1's first validation (its gate
    // failed); with the lower threshold it will, so the bundle gets that reply.
    let bundle = dir.join("replay/demo.jsonl");
    let text = std::fs::read_to_string(&bundle).unwrap();
    let line = text
        .lines()
        .find(|l| {
            l.contains(
                r#""hypothesis":"h-e1","role":"controller","round":2,"stage":"coding_validation""#,
            )
        })
        .expect("the bundle judges h-e1's third validation (the plan tree's standardized node)")
        .replace(r#""round":2,"#, "");
    std::fs::write(&bundle, format!("{text}{line}\n")).unwrap();
    let bp = youra(
        &[
            "steer",
            "breakpoint",
            "Coding & Validation",
            "--reason",
            "t",
        ],
        &dir,
        &[],
    );
    assert!(
        bp.status.success(),
        "{}",
        String::from_utf8_lossy(&bp.stderr)
    );
    let out = youra(&["run", "--until-pause"], &dir, &[]);
    assert_eq!(out.status.code(), Some(3), "paused at the breakpoint");
    let path = "sub_hypotheses.h-e1.gate.criteria[0].value";
    let get = youra(&["vsa", "get", path], &dir, &[]);
    assert!(
        get.status.success(),
        "{}",
        String::from_utf8_lossy(&get.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&get.stdout).trim(), "0.93");
    let set = youra(
        &[
            "vsa",
            "set",
            path,
            "0.85",
            "--reason",
            "0.85 is enough",
            "--as",
            "researcher",
        ],
        &dir,
        &[],
    );
    assert!(
        set.status.success(),
        "{}",
        String::from_utf8_lossy(&set.stderr)
    );
    youra(&["steer", "step", "--reason", "t"], &dir, &[]);
    let out = youra(&["run", "--until-pause"], &dir, &[]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let snap = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    let h = snap.vsa.hypothesis("h-e1").unwrap();
    // 0.8953 (95% CI 0.8711–0.9194) >= 0.85: the root passes. The demo's search goes on for one node after a pass
    // (`after_pass = 1`), so h-e1 stays IN_PROGRESS with the root as its best node so far.
    assert_eq!(
        h.status.as_str(),
        "IN_PROGRESS",
        "0.8711 >= 0.85, the search goes on"
    );
    assert_eq!(h.gate.satisfied, Some(true));
    let vsa = std::fs::read_to_string(dir.join("verification_state.yaml")).unwrap();
    assert!(vsa.contains("best_node: n-0001"), "{vsa}");
    assert_eq!(h.gate.rules[0].value, 0.85, "the edited key is still there");
    let record = std::fs::read_to_string(dir.join("h-e1/04_validation.md")).unwrap();
    assert!(
        record.contains("threshold 0.93 → 0.85 by researcher"),
        "{record}"
    );
}

#[test]
fn run_json_streams_events_as_json_lines_and_ends_with_the_outcome() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    early_demo(&dir);
    let out = youra(&["run", "--json"], &dir, &[]);
    assert_eq!(out.status.code(), Some(0), "the demo completes");
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    assert!(lines.len() > 10, "{} events", lines.len());
    for l in &lines {
        assert!(l["kind"].is_string() && l["time"].is_string(), "{l}");
    }
    assert!(lines.iter().any(|l| l["kind"] == "gate"));
    let last = lines.last().unwrap();
    assert_eq!(
        (&last["kind"], &last["result"]),
        (&"run_end".into(), &"completed".into())
    );
    // The same shape as the run's own events.jsonl.
    let logged = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    let first_logged: serde_json::Value =
        serde_json::from_str(logged.lines().last().unwrap()).unwrap();
    let keys = |v: &serde_json::Value| {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert!(
        keys(&first_logged)
            .iter()
            .all(|k| lines.iter().any(|l| l.as_object().unwrap().contains_key(k)))
    );
}
