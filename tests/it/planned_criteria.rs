//! The gate is judged by the planned criteria (issue 32, 6b). Verification Planning says
//! `accuracy >= 0.92`; an Experiment Design reply that writes `0.5` is refused and resumed
//! with the reason, so the unscaled experiment's 0.8832 fails the gate at 0.92 instead of
//! passing at 0.5; a design that keeps lowering the bar stops the run; a stricter one is
//! accepted and the history says so. Real replay runs, real experiment code.

use crate::common;

use std::path::Path;

use common::script::{CENTROID_PY, PLAN, Script, brief, code_reply, replay_run, with_data};
use youra::engine::RunEnd;
use youra::vsa::store::{Snapshot, Store};

fn snap(dir: &Path) -> std::sync::Arc<Snapshot> {
    Store::new(dir.join("verification_state.yaml"))
        .load()
        .expect("VSA reads")
}

/// The script's plan with h-e1 planned at `accuracy >= 0.92`.
fn planned_at_092(s: &mut Script) {
    let plan = PLAN.replace(
        r#""criterion":"accuracy >= 0.9""#,
        r#""criterion":"accuracy >= 0.92""#,
    );
    assert_ne!(plan, PLAN, "the plan fixture names h-e1's criterion");
    s.scoping().literature().debate(6, true);
    s.reply("executor", "verification_planning", None, 1, &plan)
        .ok("verification_planning", None, 1);
}

fn transcript(dir: &Path, name_part: &str) -> String {
    let entry = std::fs::read_dir(dir.join("transcripts"))
        .expect("transcripts")
        .filter_map(|e| e.ok())
        .find(|e| e.file_name().to_string_lossy().contains(name_part))
        .unwrap_or_else(|| panic!("no transcript {name_part}"));
    std::fs::read_to_string(entry.path()).expect("read transcript")
}

#[test]
fn a_design_that_lowers_the_planned_bar_is_refused_and_the_gate_judged_at_the_plan() {
    let mut s = Script::default();
    planned_at_092(&mut s);
    let h = Some("h-e1");
    s.reply(
        "executor",
        "experiment_design",
        h,
        1,
        &brief("accuracy", ">=", 0.5),
    )
    .reply(
        "executor",
        "experiment_design",
        h,
        2,
        &brief("accuracy", ">=", 0.92),
    )
    .ok("experiment_design", h, 2)
    .implementation("h-e1");
    s.failing_attempt(
        "h-e1",
        &code_reply("centroid.py", CENTROID_PY, &[]),
        "Design",
        0.6,
        &common::script::verdict("NotValid", 0.9),
    );
    let (_g, dir) = replay_run(
        &s,
        "experiment_time_limit_s = 60\n[recovery]\nmax_pivots = 0\n",
    );
    with_data(&dir);
    let RunEnd::Stopped(reason) = common::script::run_engine(&dir, true) else {
        panic!("expected a stop at the failed MUST_WORK gate")
    };
    assert!(
        reason.contains("0.8832 does not satisfy accuracy >= 0.92"),
        "judged at the planned bar: {reason}"
    );
    let v = snap(&dir);
    let gate = &v.vsa.hypothesis("h-e1").expect("h-e1").gate;
    assert_eq!(
        gate.rules.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
        ["accuracy >= 0.92"]
    );
    assert!(!gate.is_met(), "0.8832 never passes");
    let resumed = transcript(&dir, "experiment_design-executor-h-e1-a2-");
    assert!(
        resumed.contains("`accuracy >= 0.5` is weaker than the planned `accuracy >= 0.92`"),
        "the resume names what was refused"
    );
    assert!(
        !v.vsa
            .history
            .iter()
            .any(|e| e.new.as_deref().is_some_and(|n| n.contains("0.5"))),
        "the lowered bar never reached the VSA"
    );
}

#[test]
fn a_design_that_keeps_lowering_the_bar_stops_the_run() {
    let mut s = Script::default();
    planned_at_092(&mut s);
    for attempt in 1..=3 {
        s.reply(
            "executor",
            "experiment_design",
            Some("h-e1"),
            attempt,
            // Renamed and flipped on the way: neither is the plan.
            &brief(
                ["accuracy", "cv_accuracy", "accuracy"][attempt as usize - 1],
                [">=", ">=", "<="][attempt as usize - 1],
                [0.5, 0.92, 0.92][attempt as usize - 1],
            ),
        );
    }
    let (_g, dir) = replay_run(&s, "");
    let RunEnd::Stopped(reason) = common::script::run_engine(&dir, true) else {
        panic!("expected a stop")
    };
    assert!(
        reason.contains("`accuracy <= 0.92` flips the planned `accuracy >= 0.92`"),
        "{reason}"
    );
    assert!(
        transcript(&dir, "experiment_design-executor-h-e1-a3-")
            .contains("dropped or renamed (the design has `cv_accuracy >= 0.92` instead)"),
        "the rename was named in the resume"
    );
    let v = snap(&dir);
    let h = v.vsa.hypothesis("h-e1").expect("h-e1");
    assert!(h.gate.rules.is_empty(), "no criteria adopted");
    assert!(
        !dir.join("h-e1/02c_experiment_brief.md").exists(),
        "no refused brief on disk for a later stage to read"
    );
}

#[test]
fn a_stricter_design_is_accepted_and_recorded() {
    let mut s = Script::default();
    planned_at_092(&mut s);
    s.reply(
        "executor",
        "experiment_design",
        Some("h-e1"),
        1,
        &brief("accuracy", ">=", 0.95),
    )
    .ok("experiment_design", Some("h-e1"), 1);
    let (_g, dir) = replay_run(&s, "");
    // The script ends before Implementation Planning: the run stops there.
    let RunEnd::Stopped(reason) = common::script::run_engine(&dir, true) else {
        panic!("expected a stop")
    };
    assert!(reason.contains("implementation_planning"), "{reason}");
    let v = snap(&dir);
    let h = v.vsa.hypothesis("h-e1").expect("h-e1");
    assert_eq!(h.gate.rules[0].to_string(), "accuracy >= 0.95");
    let note = v
        .vsa
        .history
        .iter()
        .filter_map(|e| e.reason.as_deref())
        .find(|r| r.contains("gate criteria for h-e1"))
        .expect("a history entry for the criteria");
    assert!(
        note.contains("`accuracy >= 0.95` is stricter than the planned `accuracy >= 0.92`"),
        "{note}"
    );
}
