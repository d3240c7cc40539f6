//! The controller bounded by cause and every loop capped (issue 41, items 1 and 2), from the
//! attacker's side: a controller that resets on a Method cause is vetoed with the cause named
//! and the table decides; an evidence contradiction lets the same reset through; the prompt
//! carries the table's choice only in the ablation; a gate refined `max_refines` times
//! escalates (INTERACTIVE) or stops (UNATTENDED) instead of refining again. Every other loop
//! of the engine and its bound: `engine_loops.rs`.

use crate::common;

use std::path::{Path, PathBuf};

use common::script::{CENTROID_PY, Script, brief, code_reply, replay_run, verdict, with_data};
use youra::engine::RunEnd;

fn raw() -> String {
    code_reply("centroid.py", CENTROID_PY, &[])
}

fn scaled() -> String {
    code_reply("centroid.py", CENTROID_PY, &["--standardize"])
}

/// The controller's reply as the schema now asks it: no `next_stage`.
fn route(level: &str, cause: u32) -> String {
    serde_json::json!({"level": level, "cause": cause, "records": [], "reason": format!("chose {level}")})
        .to_string()
}

/// Everything up to h-e1's first (failing) attempt.
fn start() -> Script {
    let mut s = Script::default();
    s.scoping()
        .literature()
        .debate(6, true)
        .planning()
        .design_and_plan("h-e1", &brief("accuracy", ">=", 0.92));
    s
}

/// h-e1's failing attempt in the script's current round (unscaled: 0.88 < 0.92), its causes
/// (h* of `category` at `severity`), the judge, and the controller's choice.
fn fails(s: &mut Script, category: &str, severity: f64, judge: &str, choice: &str) {
    s.failing_attempt("h-e1", &raw(), category, severity, judge)
        .reply("controller", "coding_validation", Some("h-e1"), 1, choice);
}

/// A replay run in `mode` with `extra` under `[engine]` (a `[recovery]` table may follow).
fn setup(s: &Script, mode: &str, extra: &str) -> (tempfile::TempDir, PathBuf) {
    let (g, dir) = replay_run(s, &format!("experiment_time_limit_s = 60\n{extra}"));
    with_data(&dir);
    if mode == "INTERACTIVE" {
        for (file, from, to) in [
            (
                "verification_state.yaml",
                "execution_mode: UNATTENDED",
                "execution_mode: INTERACTIVE",
            ),
            (
                "youra.toml",
                "execution_mode = \"UNATTENDED\"",
                "execution_mode = \"INTERACTIVE\"",
            ),
        ] {
            let p = dir.join(file);
            let text = std::fs::read_to_string(&p).unwrap().replace(from, to);
            std::fs::write(&p, text).unwrap();
        }
    }
    (g, dir)
}

fn end_reason(end: RunEnd) -> String {
    match end {
        RunEnd::Stopped(r) => r,
        other => format!("{other:?}"),
    }
}

fn field(dir: &Path, path: &str) -> Option<String> {
    common::vsa_field(dir, path)
}

fn messages(dir: &Path, kind: &str) -> Vec<String> {
    common::events_of(dir, kind)
        .into_iter()
        .map(|e| e.message.unwrap_or_default())
        .collect()
}

/// The prompts the controller was sent to choose h-e1's recovery level (from the run's own
/// `transcripts/`, which a replayed run records like a live one).
fn route_prompts(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir.join("transcripts"))
        .unwrap()
        .flatten()
    {
        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        let key = &v["key"];
        if key["role"] == "controller"
            && key["stage"] == "coding_validation"
            && v["request"]
                .to_string()
                .contains("You choose where the run")
        {
            out.push(v["request"].to_string());
        }
    }
    out
}

#[test]
fn a_reset_on_a_method_cause_is_vetoed_naming_the_cause_and_the_table_decides() {
    // The critic believes a Method cause (0.72); the judge finds the hypothesis plausible.
    // SAGE's table never resets on a Method cause; the controller tries to.
    let mut s = start();
    fails(
        &mut s,
        "Method",
        0.72,
        &verdict("Valid", 0.55),
        &route("reset", 1),
    );
    s.round(1).passing_attempt("h-e1", &scaled());
    let (_g, dir) = setup(&s, "UNATTENDED", "");
    let why = end_reason(common::script::run_engine(&dir, true));
    assert!(
        why.contains("stage=experiment_design hypothesis=h-m1"),
        "the table's Method-Refine ran and h-e1 passed: {why}"
    );
    assert_eq!(
        field(&dir, "sub_hypotheses.h-e1.status").as_deref(),
        Some("VALIDATED")
    );
    let vetoes = messages(&dir, "controller_veto");
    assert_eq!(vetoes.len(), 1, "{vetoes:?}");
    for says in [
        "Design-Pivot (reset) needs a Design cause or an evidence contradiction (YouRA Table 8)",
        "cause 1 is a Method cause (s = 0.72)",
        "the judge finds the hypothesis still plausible (Valid, κ = 0.55)",
        "SAGE's table decides",
    ] {
        assert!(vetoes[0].contains(says), "{says}: {}", vetoes[0]);
    }
    let vsa = std::fs::read_to_string(dir.join("verification_state.yaml")).unwrap();
    assert!(
        vsa.contains("cause 1 is a Method cause (s = 0.72)"),
        "the veto is in recovery.vetoes"
    );
    assert_eq!(
        field(&dir, "sub_hypotheses.h-e1.reflection.router").as_deref(),
        Some("table (the controller's choice was vetoed)")
    );
    assert_eq!(
        field(&dir, "sub_hypotheses.h-e1.reflection.chosen_route").as_deref(),
        Some("Method-Refine")
    );
    assert!(
        youra::rundir::archive::load_archives(&dir).is_empty(),
        "nothing was reset"
    );
    assert_eq!(
        field(&dir, "sub_hypotheses.h-e1.refines").as_deref(),
        Some("1")
    );
}

#[test]
fn an_evidence_contradiction_lets_a_method_cause_reset() {
    // The same Method cause, but the independent judge finds the hypothesis contradicted
    // (NotValid, κ = 0.9 ≥ κ_min): YouRA Table 8's reset criterion.
    let mut s = start();
    fails(
        &mut s,
        "Method",
        0.72,
        &verdict("NotValid", 0.9),
        &route("reset", 1),
    );
    let (_g, dir) = setup(&s, "UNATTENDED", "");
    let why = end_reason(common::script::run_engine(&dir, true));
    assert!(
        why.contains("role=executor stage=problem_scoping round=1"),
        "back to Problem Scoping: {why}"
    );
    assert!(messages(&dir, "controller_veto").is_empty());
    assert_eq!(youra::rundir::archive::load_archives(&dir).len(), 1);
}

#[test]
fn the_controller_prompt_carries_no_table_choice_unless_the_run_asks() {
    let mut s = start();
    fails(
        &mut s,
        "Method",
        0.72,
        &verdict("Valid", 0.55),
        &route("repair", 1),
    );
    s.round(1).passing_attempt("h-e1", &scaled());
    for (extra, shown) in [
        ("", false),
        ("\n[recovery]\nshow_table_choice = false\n", false),
        ("\n[recovery]\nshow_table_choice = true\n", true),
    ] {
        let (_g, dir) = setup(&s, "UNATTENDED", extra);
        common::script::run_engine(&dir, true);
        let prompts = route_prompts(&dir);
        assert_eq!(prompts.len(), 1, "{extra}: {prompts:?}");
        let p = &prompts[0];
        assert_eq!(
            p.contains("SAGE's table would choose"),
            shown,
            "{extra}: {p}"
        );
        if shown {
            // π(Method, 0.72) = Method-Refine.
            assert!(
                p.contains("SAGE's table would choose: Method-Refine"),
                "{p}"
            );
        }
        assert!(
            p.contains("Refines of this gate so far: 0 of 3"),
            "the cap is shown: {p}"
        );
        assert!(!p.contains("next_stage"), "the reply names no stage: {p}");
        assert_eq!(
            field(&dir, "sub_hypotheses.h-e1.status").as_deref(),
            Some("VALIDATED"),
            "{extra}"
        );
    }
}

/// h-e1 fails twice, and the controller asks for a repair both times; with
/// `max_refines = 1` the second repair is past the cap.
fn refined_twice() -> Script {
    let mut s = start();
    fails(
        &mut s,
        "Method",
        0.72,
        &verdict("NotValid", 0.3),
        &route("repair", 1),
    );
    s.round(1);
    fails(
        &mut s,
        "Method",
        0.7,
        &verdict("NotValid", 0.3),
        &route("repair", 1),
    );
    s
}

#[test]
fn max_refines_reached_escalates_a_redesign_to_the_researcher() {
    let (_g, dir) = setup(
        &refined_twice(),
        "INTERACTIVE",
        "\n[recovery]\nmax_refines = 1\n",
    );
    let end = common::script::run_engine(&dir, true);
    assert_eq!(end, RunEnd::Paused, "the run waits for the researcher");
    assert_eq!(
        field(&dir, "workflow.status").as_deref(),
        Some("AWAITING_APPROVAL")
    );
    assert_eq!(
        field(&dir, "workflow.pending_escalation.proposed_action").as_deref(),
        Some("Pivot"),
        "repair is bounded: a redesign is proposed"
    );
    assert_eq!(
        field(&dir, "sub_hypotheses.h-e1.refines").as_deref(),
        Some("1"),
        "one refine applied, the second not"
    );
    assert_eq!(
        field(&dir, "workflow.pending_escalation.router").as_deref(),
        Some("controller, then the refine cap"),
        "who proposed the redesign"
    );
    let capped = messages(&dir, "refine_cap");
    assert_eq!(capped.len(), 1, "{capped:?}");
    assert!(
        capped[0].contains(
            "h-e1: Method-Refine would be refine 2 of this gate, but [recovery] max_refines = 1"
        ),
        "{}",
        capped[0]
    );
    let vsa = std::fs::read_to_string(dir.join("verification_state.yaml")).unwrap();
    assert!(
        vsa.contains("a redesign is proposed to the researcher"),
        "the cap's reason is on the card and in the history"
    );
    assert!(
        youra::rundir::archive::load_archives(&dir).is_empty(),
        "nothing discarded before the researcher decides"
    );
}

#[test]
fn max_refines_reached_unattended_stops_with_the_reason() {
    let (_g, dir) = setup(
        &refined_twice(),
        "UNATTENDED",
        "\n[recovery]\nmax_refines = 1\n",
    );
    let why = end_reason(common::script::run_engine(&dir, true));
    assert!(
        why.contains(
            "h-e1: Method-Refine would be refine 2 of this gate, but [recovery] max_refines = 1"
        ),
        "{why}"
    );
    assert!(why.contains("the run stops for the researcher"), "{why}");
    assert_eq!(field(&dir, "workflow.status").as_deref(), Some("STOPPED"));
    assert_eq!(
        field(&dir, "sub_hypotheses.h-e1.refines").as_deref(),
        Some("1")
    );
    // The failure the cap stopped on is still a record of its own, saying why.
    let (records, _) = youra::rundir::memory::load_dir(&dir.join("memory"));
    let ids: Vec<_> = records.iter().map(|r| r.id.as_str()).collect();
    assert!(ids.contains(&"failure_h-e1_run2"), "{ids:?}");
    let record = std::fs::read_to_string(dir.join("memory/failure_h-e1_run2.md")).unwrap();
    assert!(
        record.contains("veto: h-e1: Method-Refine would be refine 2"),
        "{record}"
    );
    assert_eq!(messages(&dir, "refine_cap").len(), 1);
}

#[test]
fn a_waiting_policy_that_rejects_cannot_refine_past_the_cap_forever() {
    // INTERACTIVE, but nobody answers: the policy rejects the cap's redesign after 0.2 s,
    // which refines once more (refine 2 > max_refines = 1); at the next failure the cap
    // stops instead of asking again.
    let mut s = refined_twice();
    s.after("Method-Refine").round(2);
    fails(
        &mut s,
        "Method",
        0.7,
        &verdict("NotValid", 0.3),
        &route("repair", 1),
    );
    let (_g, dir) = setup(
        &s,
        "INTERACTIVE",
        "approval_timeout_s = 0.2\n\n[recovery]\nmax_refines = 1\n",
    );
    let why = end_reason(common::script::run_engine(&dir, true));
    assert!(
        why.contains("h-e1: Method-Refine would be refine 3 of this gate"),
        "{why}"
    );
    assert!(
        why.contains("the waiting policy decided the last escalation"),
        "{why}"
    );
    assert_eq!(
        field(&dir, "sub_hypotheses.h-e1.refines").as_deref(),
        Some("2")
    );
    let capped = messages(&dir, "refine_cap");
    assert_eq!(capped.len(), 2, "one escalation, then the stop: {capped:?}");
    assert!(
        capped[0].contains("a redesign is proposed"),
        "{}",
        capped[0]
    );
    assert!(capped[1].contains("the run stops"), "{}", capped[1]);
}

#[test]
fn a_should_work_miss_past_the_cap_is_recorded_as_a_limitation() {
    // h-m1's SHOULD_WORK gate (gain <= 0.02; body mass adds 0.0323) is retried from
    // Experiment Design, then asked again: should_work_retries (2) would allow it, the refine
    // cap (1) does not, and a SHOULD_WORK miss past the cap is a limitation, not a stop.
    let mass = code_reply(
        "centroid.py",
        CENTROID_PY,
        &["--standardize", "--compare", "body_mass_g"],
    );
    let mut s = start();
    s.passing_attempt("h-e1", &scaled())
        .design_and_plan("h-m1", &brief("gain", "<=", 0.02));
    for round in [0, 1] {
        if round > 0 {
            s.round(round)
                .design_and_plan("h-m1", &brief("gain", "<=", 0.02));
        }
        s.failing_attempt("h-m1", &mass, "Design", 0.5, &verdict("NotValid", 0.3))
            .reply(
                "controller",
                "coding_validation",
                Some("h-m1"),
                1,
                &route("Design-Refine", 1),
            );
    }
    let (_g, dir) = setup(
        &s,
        "UNATTENDED",
        "\n[recovery]\nshould_work_retries = 2\nmax_refines = 1\n",
    );
    let why = end_reason(common::script::run_engine(&dir, true));
    assert!(
        why.contains("stage=experiment_design hypothesis=h-c1"),
        "the loop went on: {why}"
    );
    assert_eq!(
        field(&dir, "sub_hypotheses.h-m1.refines").as_deref(),
        Some("1")
    );
    assert!(field(&dir, "sub_hypotheses.h-m1.limitation").is_some());
    let capped = messages(&dir, "refine_cap");
    assert_eq!(capped.len(), 1, "{capped:?}");
    assert!(
        capped[0].contains("h-m1: Design-Refine would be refine 2 of this gate")
            && capped[0].contains("recorded as a limitation"),
        "{}",
        capped[0]
    );
}

#[test]
fn within_the_default_cap_the_same_two_refines_run() {
    // The default (3) leaves room for both repairs: the second runs Coding & Validation
    // again (round 2, which this script does not record).
    let (_g, dir) = setup(&refined_twice(), "UNATTENDED", "");
    let why = end_reason(common::script::run_engine(&dir, true));
    assert!(
        why.contains("stage=coding_validation hypothesis=h-e1 round=2"),
        "{why}"
    );
    assert_eq!(
        field(&dir, "sub_hypotheses.h-e1.refines").as_deref(),
        Some("2")
    );
    assert!(messages(&dir, "refine_cap").is_empty());
}
