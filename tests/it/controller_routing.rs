//! The Independent Controller chooses the recovery level (YouRA §3.3, Algorithm 1), bounded
//! by SAGE's rules: on replay with real experiments, each level it can choose ends where
//! Algorithm 1 says — repair in Coding & Validation, redesign in Hypothesis Debate, reset in
//! Problem Scoping, a SHOULD_WORK retry in Experiment Design, a limitation or a proceed that
//! lets the loop go on — a refused choice falls back to the table with its veto in events
//! and history, and a controller that cannot answer leaves the table in charge. The demo's
//! rejected escalation leaves a failure record naming the route taken.

use crate::common;

use std::path::Path;

use common::script::{CENTROID_PY, Script, brief, code_reply, replay_run, verdict, with_data};
use youra::engine::RunEnd;

fn raw() -> String {
    code_reply("centroid.py", CENTROID_PY, &[])
}

fn scaled() -> String {
    code_reply("centroid.py", CENTROID_PY, &["--standardize"])
}

fn route(level: &str, stage: &str, cause: u32, records: &[&str]) -> String {
    serde_json::json!({"level": level, "next_stage": stage, "cause": cause, "records": records, "reason": format!("chose {level}")}).to_string()
}

/// A plan whose first sub-hypothesis has `gate` (MUST_WORK or SHOULD_WORK).
fn plan(gate: &str) -> String {
    common::script::PLAN.replacen(
        r#""gate":{"type":"MUST_WORK","criterion":"accuracy >= 0.9"}"#,
        &format!(r#""gate":{{"type":"{gate}","criterion":"accuracy >= 0.92"}}"#),
        1,
    )
}

/// Everything up to h-e1's first (failing) attempt, with h-e1's gate of type `gate`.
fn start(gate: &str) -> Script {
    let mut s = Script::default();
    s.scoping().literature().debate(6, true);
    s.reply("executor", "verification_planning", None, 1, &plan(gate))
        .ok("verification_planning", None, 1)
        .design_and_plan("h-e1", &brief("accuracy", ">=", 0.92));
    s
}

/// h-e1 passes; then h-m1, whose gate is SHOULD_WORK (`gain <= 0.02`), up to its attempt.
fn start_should_work() -> Script {
    let mut s = start("MUST_WORK");
    s.passing_attempt("h-e1", &scaled())
        .design_and_plan("h-m1", &brief("gain", "<=", 0.02));
    s
}

/// h-m1's failing attempt (body mass adds 0.0323 > 0.02), its causes and the choice.
fn mass_fails(s: &mut Script, category: &str, severity: f64, choice: &str) {
    s.failing_attempt(
        "h-m1",
        &mass(),
        category,
        severity,
        &verdict("NotValid", 0.3),
    )
    .reply("controller", "coding_validation", Some("h-m1"), 1, choice);
}

fn mass() -> String {
    code_reply(
        "centroid.py",
        CENTROID_PY,
        &["--standardize", "--compare", "body_mass_g"],
    )
}

/// h-e1's failing attempt (unscaled: 0.88 < 0.92), its causes and the controller's choice.
fn fails(s: &mut Script, category: &str, severity: f64, judge: &str, choice: &str) {
    s.failing_attempt("h-e1", &raw(), category, severity, judge)
        .reply("controller", "coding_validation", Some("h-e1"), 1, choice);
}

fn run(s: &Script, extra: &str) -> (tempfile::TempDir, std::path::PathBuf, String) {
    let (g, dir) = replay_run(s, &format!("experiment_time_limit_s = 60\n{extra}"));
    with_data(&dir);
    let end = common::script::run_engine(&dir, true);
    let why = match end {
        RunEnd::Stopped(r) => r,
        other => format!("{other:?}"),
    };
    (g, dir, why)
}

fn field(dir: &Path, path: &str) -> Option<String> {
    common::vsa_field(dir, path)
}

fn events(dir: &Path, kind: &str) -> Vec<youra::rundir::events::Event> {
    common::events_of(dir, kind)
}

fn record(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join("memory").join(name)).unwrap_or_default()
}

#[test]
fn repair_chosen_by_the_controller_runs_coding_again_and_passes() {
    let mut s = start("MUST_WORK");
    fails(
        &mut s,
        "Method",
        0.7,
        &verdict("NotValid", 0.3),
        &route("repair", "coding_validation", 1, &[]),
    );
    s.round(1).passing_attempt("h-e1", &scaled());
    let (_g, dir, why) = run(&s, "");
    assert!(
        why.contains("stage=experiment_design hypothesis=h-m1"),
        "on to the next sub-hypothesis: {why}"
    );
    assert_eq!(
        field(&dir, "sub_hypotheses.h-e1.status").as_deref(),
        Some("VALIDATED")
    );
    assert_eq!(
        field(&dir, "sub_hypotheses.h-e1.reflection.router").as_deref(),
        Some("controller")
    );
    let chosen = events(&dir, "controller_route");
    assert_eq!(chosen.len(), 1, "{chosen:?}");
    assert!(events(&dir, "controller_fallback").is_empty());
    let r = record(&dir, "failure_h-e1_run1.md");
    assert!(r.contains("SAME_HYPOTHESIS_RETRY (Method-Refine)"), "{r}");
    assert!(
        r.contains("routed by the controller; because chose repair"),
        "{r}"
    );
    assert!(!r.contains("veto"), "a legal choice is not vetoed: {r}");
}

#[test]
fn redesign_chosen_where_the_table_would_refine_goes_back_to_the_debate() {
    // The table would say Local-Refine (Method, s = 0.3): the controller decides otherwise.
    let mut s = start("MUST_WORK");
    fails(
        &mut s,
        "Method",
        0.3,
        &verdict("NotValid", 0.9),
        &route("redesign", "hypothesis_debate", 1, &[]),
    );
    let (_g, dir, why) = run(&s, "");
    assert!(
        why.contains("stage=hypothesis_debate round=1"),
        "back to the debate: {why}"
    );
    assert_eq!(
        youra::rundir::archive::load_archives(&dir).len(),
        1,
        "archived"
    );
    assert_eq!(field(&dir, "recovery.pivots").as_deref(), Some("1"));
    let (records, _) = youra::rundir::memory::load_dir(&dir.join("memory"));
    assert!(records.iter().any(|r| r.id.starts_with("pivot_h-e1")));
    let r = record(&dir, "failure_h-e1_run1.md");
    assert!(r.contains("ROUTED_TO_PHASE_2A (Pivot)"), "{r}");
}

#[test]
fn reset_chosen_by_the_controller_goes_back_to_problem_scoping() {
    let mut s = start("MUST_WORK");
    fails(
        &mut s,
        "Design",
        0.5,
        &verdict("NotValid", 0.9),
        &route("reset", "problem_scoping", 1, &[]),
    );
    let (_g, dir, why) = run(&s, "");
    assert!(
        why.contains("role=executor stage=problem_scoping round=1"),
        "back to scoping: {why}"
    );
    assert!(
        !dir.join("00_brainstorm_session.md").exists(),
        "a reset moves everything"
    );
    assert_eq!(youra::rundir::archive::load_archives(&dir).len(), 1);
}

#[test]
fn proceed_chosen_lets_the_failure_stand_and_the_loop_go_on() {
    let mut s = start("MUST_WORK");
    fails(
        &mut s,
        "Method",
        0.7,
        &verdict("NotValid", 0.3),
        &route("proceed", "evidence_check", 2, &[]),
    );
    let (_g, dir, why) = run(&s, "");
    assert_eq!(
        field(&dir, "sub_hypotheses.h-e1.status").as_deref(),
        Some("FAILED")
    );
    assert!(
        !why.contains("coding_validation hypothesis=h-e1"),
        "h-e1 is not retried: {why}"
    );
    let r = record(&dir, "failure_h-e1_run1.md");
    assert!(r.contains("PROCEED (Proceed)"), "{r}");
}

#[test]
fn a_should_work_failure_is_retried_from_experiment_design_then_recorded_as_a_limitation() {
    let mut s = start_should_work();
    mass_fails(
        &mut s,
        "Design",
        0.5,
        &route("Design-Refine", "experiment_design", 1, &[]),
    );
    // The retry: Experiment Design again under the failure, then the same miss, which is
    // now a limitation (no improvement path left) accepted by the controller at stage end.
    s.round(1)
        .design_and_plan("h-m1", &brief("gain", "<=", 0.02))
        .reply("executor", "coding_validation", Some("h-m1"), 1, &mass())
        .reply(
            "judge",
            "coding_validation",
            Some("h-m1"),
            1,
            common::script::CONSISTENT,
        )
        .ok("coding_validation", Some("h-m1"), 1);
    let (_g, dir, why) = run(&s, "");
    assert!(
        why.contains("stage=experiment_design hypothesis=h-c1"),
        "the loop went on after the limitation: {why}"
    );
    assert!(
        field(&dir, "sub_hypotheses.h-m1.design_constraint").is_some(),
        "the failure became the design's constraint"
    );
    let (records, _) = youra::rundir::memory::load_dir(&dir.join("memory"));
    let ids: Vec<_> = records.iter().map(|r| r.id.as_str()).collect();
    assert!(ids.contains(&"failure_h-m1_run1"), "{ids:?}");
    assert!(
        record(&dir, "failure_h-m1_run1.md").contains("ROUTED_TO_PHASE_2C (Design-Refine)"),
        "{}",
        record(&dir, "failure_h-m1_run1.md")
    );
    assert!(
        ids.iter().any(|i| i.starts_with("limitation_h-m1")),
        "no improvement path left: a limitation: {ids:?}"
    );
    assert!(
        field(&dir, "sub_hypotheses.h-m1.limitation").is_some(),
        "the VSA records the limitation"
    );
}

#[test]
fn a_limitation_chosen_for_a_should_work_failure_goes_on_at_once() {
    let mut s = start_should_work();
    mass_fails(
        &mut s,
        "Method",
        0.3,
        &route("limitation", "experiment_design", 1, &[]),
    );
    let (_g, dir, why) = run(&s, "");
    assert!(
        why.contains("stage=experiment_design hypothesis=h-c1"),
        "{why}"
    );
    let (records, _) = youra::rundir::memory::load_dir(&dir.join("memory"));
    assert!(records.iter().any(|r| r.id.starts_with("limitation_h-m1")));
    assert!(
        events(&dir, "routing")
            .iter()
            .any(|e| e.action.as_deref() == Some("Limitation"))
    );
}

#[test]
fn the_table_retries_a_should_work_failure_from_experiment_design() {
    let mut s = start_should_work();
    s.failing_attempt("h-m1", &mass(), "Method", 0.3, &verdict("NotValid", 0.3));
    let (_g, dir, why) = run(&s, "\n[recovery]\nrouter = \"table\"\n");
    assert!(
        why.contains("stage=experiment_design hypothesis=h-m1 round=1"),
        "Algorithm 1 line 9: {why}"
    );
    assert!(field(&dir, "sub_hypotheses.h-m1.design_constraint").is_some());
}

#[test]
fn an_illegal_choice_is_vetoed_and_the_table_decides() {
    // A MUST_WORK failure cannot be a limitation: vetoed, and π's Method-Refine applies.
    let mut s = start("MUST_WORK");
    fails(
        &mut s,
        "Method",
        0.7,
        &verdict("NotValid", 0.3),
        &route("limitation", "evidence_check", 1, &[]),
    );
    s.round(1).passing_attempt("h-e1", &scaled());
    let (_g, dir, _) = run(&s, "");
    assert_eq!(
        field(&dir, "sub_hypotheses.h-e1.status").as_deref(),
        Some("VALIDATED")
    );
    let vetoes = events(&dir, "controller_veto");
    assert_eq!(vetoes.len(), 1, "{vetoes:?}");
    assert!(
        vetoes[0]
            .message
            .as_deref()
            .unwrap_or("")
            .contains("cannot be recorded as a limitation")
    );
    let vsa = std::fs::read_to_string(dir.join("verification_state.yaml")).unwrap();
    assert!(vsa.contains("vetoes:") && vsa.contains("cannot be recorded as a limitation"));
    let history = std::fs::read_to_string(dir.join("verification_state.yaml")).unwrap();
    assert!(history.contains("controller_veto"), "the veto is history");
    assert_eq!(
        field(&dir, "sub_hypotheses.h-e1.reflection.proposed_action").as_deref(),
        Some("Method-Refine")
    );
}

#[test]
fn a_redesign_under_a_valid_verdict_is_clamped() {
    let mut s = start("MUST_WORK");
    fails(
        &mut s,
        "Design",
        0.6,
        &verdict("Valid", 0.9),
        &route("redesign", "hypothesis_debate", 1, &[]),
    );
    s.round(1).passing_attempt("h-e1", &scaled());
    let (_g, dir, _) = run(&s, "");
    assert_eq!(
        field(&dir, "sub_hypotheses.h-e1.status").as_deref(),
        Some("VALIDATED")
    );
    assert!(youra::rundir::archive::load_archives(&dir).is_empty());
    assert!(
        events(&dir, "controller_veto").iter().any(|e| e
            .message
            .as_deref()
            .unwrap_or("")
            .contains("Verdict Clamp"))
    );
}

#[test]
fn without_an_answer_from_the_controller_the_table_decides() {
    let mut s = start("MUST_WORK");
    s.failing_attempt("h-e1", &raw(), "Method", 0.7, &verdict("NotValid", 0.3))
        .round(1)
        .passing_attempt("h-e1", &scaled());
    let (_g, dir, _) = run(&s, "");
    assert_eq!(
        field(&dir, "sub_hypotheses.h-e1.status").as_deref(),
        Some("VALIDATED")
    );
    let fb = events(&dir, "controller_fallback");
    assert_eq!(fb.len(), 1, "{fb:?}");
    assert!(
        fb[0]
            .message
            .as_deref()
            .unwrap_or("")
            .contains("SAGE's table decides")
    );
    assert!(
        field(&dir, "sub_hypotheses.h-e1.reflection.router")
            .unwrap_or_default()
            .starts_with("table (fallback")
    );
}

#[test]
fn the_table_router_asks_no_controller() {
    let mut s = start("MUST_WORK");
    // A controller reply is there, but `router = "table"` never asks for it.
    fails(
        &mut s,
        "Method",
        0.7,
        &verdict("NotValid", 0.3),
        &route("redesign", "hypothesis_debate", 1, &[]),
    );
    s.round(1).passing_attempt("h-e1", &scaled());
    let (_g, dir, _) = run(&s, "\n[recovery]\nrouter = \"table\"\n");
    assert_eq!(
        field(&dir, "sub_hypotheses.h-e1.status").as_deref(),
        Some("VALIDATED")
    );
    assert!(events(&dir, "controller_route").is_empty());
    assert!(events(&dir, "controller_fallback").is_empty());
    assert_eq!(
        field(&dir, "sub_hypotheses.h-e1.reflection.router").as_deref(),
        Some("table")
    );
}

#[test]
fn the_demos_rejected_escalation_leaves_a_record_of_the_route_taken() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["demo", "--headless", "--dir", dir.to_str().unwrap()])
        .env("YOURA_CONFIG_DIR", tmp.path().join("no-config"))
        .output()
        .expect("youra demo runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = record(&dir, "failure_h-m1_run1.md");
    assert!(
        r.contains("SAME_HYPOTHESIS_RETRY (Method-Refine)"),
        "the route taken after the reject: {r}"
    );
    assert!(
        !r.contains("ROUTED_TO_PHASE_2A") && !r.contains("AWAITING"),
        "{r}"
    );
    assert!(r.contains("rejected by"), "who decided: {r}");
    assert!(r.contains("proposed Pivot by the controller"), "{r}");
    // Lessons come from the causes the critic believed (0.62, 0.35), not the one it
    // rejected (0.1: standardize within each sex).
    let lessons = &r[r.find("## Lessons Learned").unwrap()..r.find("## Routing Decision").unwrap()];
    assert!(
        lessons.contains("score the gain with more folds"),
        "{lessons}"
    );
    assert!(!lessons.contains("within each sex"), "{lessons}");
    // The controller's choices are in the events, the second one resting on the first record.
    let routes = events(&dir, "controller_route");
    assert_eq!(routes.len(), 4, "{routes:?}");
}
