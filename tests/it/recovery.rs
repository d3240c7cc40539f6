//! Recovery end to end on replay with real experiments: a MUST_WORK gate that fails on the
//! penguin data is attributed, routed and recovered — method refine then pass, redesign and
//! reset with their archives, and in INTERACTIVE mode approve, reject, override and the
//! waiting policy. Records written are read back by the memory reader.

use crate::common;

use std::path::Path;

use common::revisions::{Field, one_revision};
use common::script::{CENTROID_PY, Script, brief, code_reply, replay_run, verdict, with_data};
use youra::engine::{Engine, Options, RunEnd};
use youra::rundir::Layout;
use youra::steer::{Request, Verb};
use youra::vsa::store::Store;

fn run(dir: &Path, exit_when_paused: bool) -> RunEnd {
    let mut e = Engine::open(
        dir,
        Options {
            exit_when_paused,
            ..Options::default()
        },
    )
    .expect("engine opens");
    e.run().expect("engine runs")
}

fn raw() -> String {
    code_reply("centroid.py", CENTROID_PY, &[])
}

fn scaled() -> String {
    code_reply("centroid.py", CENTROID_PY, &["--standardize"])
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

fn setup(s: &Script, mode: &str, extra: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let (g, dir) = replay_run(s, &format!("experiment_time_limit_s = 60\n{extra}"));
    with_data(&dir);
    if mode == "INTERACTIVE" {
        let vsa = dir.join("verification_state.yaml");
        let text = std::fs::read_to_string(&vsa)
            .unwrap()
            .replace("execution_mode: UNATTENDED", "execution_mode: INTERACTIVE");
        std::fs::write(&vsa, text).unwrap();
        let toml = dir.join("youra.toml");
        let text = std::fs::read_to_string(&toml).unwrap().replace(
            "execution_mode = \"UNATTENDED\"",
            "execution_mode = \"INTERACTIVE\"",
        );
        std::fs::write(&toml, text).unwrap();
    }
    (g, dir)
}

fn field(dir: &Path, path: &[&str]) -> Option<String> {
    let s = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    let n = path
        .iter()
        .try_fold(s.doc.root.as_ref()?, |n, k| n.get(k))?;
    n.as_scalar().map(|x| x.text.clone())
}

fn status(dir: &Path, h: &str) -> String {
    field(dir, &["sub_hypotheses", h, "status"]).unwrap_or_default()
}

fn stopped(end: RunEnd) -> String {
    match end {
        RunEnd::Stopped(r) => r,
        other => panic!("expected a stop, got {other:?}"),
    }
}

#[test]
fn method_refine_then_pass() {
    let mut s = start();
    s.failing_attempt("h-e1", &raw(), "Method", 0.7, &verdict("NotValid", 0.3))
        .round(1)
        .passing_attempt("h-e1", &scaled());
    let (_g, dir) = setup(&s, "UNATTENDED", "");
    let reason = stopped(run(&dir, true));
    assert!(
        reason.contains("stage=experiment_design hypothesis=h-m1"),
        "went on to the next sub-hypothesis: {reason}"
    );
    assert_eq!(status(&dir, "h-e1"), "VALIDATED");
    assert!(
        field(&dir, &["sub_hypotheses", "h-e1", "refinement"])
            .unwrap()
            .contains("standardize")
    );
    assert_eq!(
        field(
            &dir,
            &["sub_hypotheses", "h-e1", "reflection", "proposed_action"]
        )
        .as_deref(),
        Some("Method-Refine"),
        "the reflection block"
    );
    let (records, _) = youra::rundir::memory::load_dir(&dir.join("memory"));
    let r = records
        .iter()
        .find(|r| r.id == "failure_h-e1_run1")
        .expect("failure record");
    assert_eq!(r.hypothesis.as_deref(), Some("h-e1"));
    assert_eq!(r.run, Some(1));
    assert!(
        r.routing_decision
            .as_deref()
            .unwrap_or("")
            .contains("Method-Refine"),
        "{:?}",
        r.routing_decision
    );
    assert_eq!(r.root_causes.len(), 3);
    let ev = youra::rundir::events::read(&dir.join("events.jsonl"));
    assert!(ev.iter().any(|e| e.kind == "routing"
        && e.action.as_deref() == Some("Method-Refine")
        && e.result.is_none()));
    // The decision (reflection + journal at `decided`), then the reroute that applies it
    // (the sub-hypothesis reopened with its fix, dependants waiting again, journal closed).
    let decided = one_revision(
        &dir,
        0,
        "the recovery decision",
        &[
            Field("sub_hypotheses.h-e1.reflection", "Method-Refine"),
            Field("workflow.pending_transition", "step: decided"),
        ],
    );
    one_revision(
        &dir,
        decided,
        "the reroute (Method-Refine)",
        &[
            Field("sub_hypotheses.h-e1.status", "READY"),
            Field("sub_hypotheses.h-e1.refinement", "standardize"),
            Field("sub_hypotheses.h-m1.status", "NOT_STARTED"),
            Field("workflow.pending_transition", "null"),
        ],
    );
}

#[test]
fn redesign_archives_and_goes_back_to_the_debate() {
    let mut s = start();
    s.failing_attempt("h-e1", &raw(), "Design", 0.6, &verdict("NotValid", 0.9));
    let (_g, dir) = setup(&s, "UNATTENDED", "");
    let reason = stopped(run(&dir, true));
    assert!(
        reason.contains("stage=hypothesis_debate round=1 attempt=1 (call #0)"),
        "back to the debate: {reason}"
    );
    let archives = youra::rundir::archive::load_archives(&dir);
    assert_eq!(archives.len(), 1);
    assert!(
        !dir.join("02b_verification_plan.md").exists() && !dir.join("h-e1").exists(),
        "moved"
    );
    assert!(
        dir.join("00_brainstorm_session.md").exists()
            && dir.join("01_targeted_research.md").exists(),
        "kept by a redesign"
    );
    assert_eq!(field(&dir, &["recovery", "pivots"]).as_deref(), Some("1"));
    assert_eq!(
        field(&dir, &["phases", "hypothesis_debate", "status"]).as_deref(),
        Some("NOT_STARTED")
    );
    assert_eq!(
        field(&dir, &["phases", "literature_grounding", "status"]).as_deref(),
        Some("COMPLETED")
    );
    let (records, _) = youra::rundir::memory::load_dir(&dir.join("memory"));
    assert!(
        records.iter().any(|r| r.id.starts_with("pivot_h-e1")),
        "{:?}",
        records.iter().map(|r| &r.id).collect::<Vec<_>>()
    );
    assert!(
        records.iter().any(|r| r.id.starts_with("superseded_h-e1")),
        "a superseded record"
    );
}

#[test]
fn reset_archives_everything_and_goes_back_to_scoping() {
    let mut s = start();
    s.failing_attempt("h-e1", &raw(), "Design", 0.9, &verdict("NotValid", 0.9));
    let (_g, dir) = setup(&s, "UNATTENDED", "");
    let reason = stopped(run(&dir, true));
    assert!(
        reason.contains("role=executor stage=problem_scoping round=1 attempt=1 (call #0)"),
        "back to scoping: {reason}"
    );
    assert!(
        !dir.join("00_brainstorm_session.md").exists(),
        "a reset moves everything"
    );
    assert!(dir.join("verification_state.yaml").exists() && dir.join("memory").is_dir());
    assert_eq!(youra::rundir::archive::load_archives(&dir).len(), 1);
}

#[test]
fn the_clamp_keeps_a_valid_hypothesis() {
    let mut s = start();
    s.failing_attempt("h-e1", &raw(), "Design", 0.6, &verdict("Valid", 0.8))
        .round(1)
        .passing_attempt("h-e1", &scaled());
    let (_g, dir) = setup(&s, "UNATTENDED", "");
    let _ = run(&dir, true);
    assert_eq!(
        status(&dir, "h-e1"),
        "VALIDATED",
        "Pivot clamped to Method-Refine, then passed"
    );
    assert!(youra::rundir::archive::load_archives(&dir).is_empty());
}

fn steer(dir: &Path, verb: Verb, target: Option<&str>) {
    let store = Store::new(dir.join("verification_state.yaml"));
    youra::steer::apply(
        &store,
        &Request::new(verb, target, "test decision"),
        Layout::Native,
    )
    .expect("steer");
}

fn interactive_pivot() -> Script {
    let mut s = start();
    s.failing_attempt("h-e1", &raw(), "Design", 0.6, &verdict("NotValid", 0.9));
    s
}

#[test]
fn an_escalation_waits_then_approve_applies_the_pivot() {
    let (_g, dir) = setup(&interactive_pivot(), "INTERACTIVE", "");
    assert_eq!(run(&dir, true), RunEnd::Paused);
    assert_eq!(
        field(&dir, &["workflow", "status"]).as_deref(),
        Some("AWAITING_APPROVAL")
    );
    assert_eq!(
        field(&dir, &["workflow", "pending_escalation", "proposed_action"]).as_deref(),
        Some("Pivot")
    );
    assert!(
        field(
            &dir,
            &["workflow", "pending_escalation", "trajectory", "signature"]
        )
        .is_some()
    );
    assert!(
        dir.join("h-e1").exists(),
        "nothing discarded before the decision"
    );
    // Each transition was one write: the gate judgement with its journal entry, then the
    // attribution's outcome (the reflection block and the escalation raised).
    let gate = one_revision(
        &dir,
        0,
        "the gate judgement",
        &[
            Field("sub_hypotheses.h-e1.gate.result", "FAIL"),
            Field("sub_hypotheses.h-e1.gate.satisfied", "false"),
            Field("sub_hypotheses.h-e1.gate.failed_checks", "accuracy"),
            Field("sub_hypotheses.h-e1.status", "FAILED"),
            Field("workflow.pending_transition", "attributing"),
        ],
    );
    let raised = one_revision(
        &dir,
        gate,
        "raising the escalation",
        &[
            Field("sub_hypotheses.h-e1.reflection", "Pivot"),
            Field("workflow.pending_escalation", "Pivot"),
            Field("workflow.status", "AWAITING_APPROVAL"),
        ],
    );
    steer(&dir, Verb::Approve, None);
    let reason = stopped(run(&dir, true));
    assert!(
        reason.contains("stage=hypothesis_debate round=1"),
        "{reason}"
    );
    let answered = one_revision(
        &dir,
        raised,
        "answering the escalation",
        &[
            Field("workflow.escalation_log", "approved"),
            Field("workflow.pending_escalation", "null"),
            Field("workflow.status", "ACTIVE"),
            Field("workflow.pending_transition", "decided"),
        ],
    );
    let rerouted = one_revision(
        &dir,
        answered,
        "the reroute (Pivot)",
        &[
            Field("workflow.pending_transition", "null"),
            Field("phases.hypothesis_debate", "NOT_STARTED"),
        ],
    );
    one_revision(
        &dir,
        rerouted,
        "the stop",
        &[
            Field("workflow.stop_reason", "hypothesis_debate"),
            Field("workflow.status", "STOPPED"),
        ],
    );
    assert_eq!(youra::rundir::archive::load_archives(&dir).len(), 1);
    assert_eq!(
        field(&dir, &["workflow", "pending_escalation"]),
        Some("null".into())
    );
}

#[test]
fn reject_keeps_the_hypothesis_and_refines_it() {
    let mut s = interactive_pivot();
    // The continuation recorded after the rejection (δ(Pivot) = Method-Refine applied).
    s.after("Method-Refine")
        .round(1)
        .passing_attempt("h-e1", &scaled());
    let (_g, dir) = setup(&s, "INTERACTIVE", "");
    assert_eq!(run(&dir, true), RunEnd::Paused);
    steer(&dir, Verb::Reject, None);
    let _ = run(&dir, true);
    assert_eq!(status(&dir, "h-e1"), "VALIDATED");
    assert!(youra::rundir::archive::load_archives(&dir).is_empty());
    let log = std::fs::read_to_string(dir.join("verification_state.yaml")).unwrap();
    assert!(
        log.contains("applied: Method-Refine"),
        "the escalation log says what was applied"
    );
}

#[test]
fn override_applies_the_researchers_action() {
    let (_g, dir) = setup(&interactive_pivot(), "INTERACTIVE", "");
    assert_eq!(run(&dir, true), RunEnd::Paused);
    steer(&dir, Verb::Override, Some("Design-Refine"));
    let end = run(&dir, true);
    let reason = stopped(end);
    assert!(
        reason.contains(
            "stage=experiment_design hypothesis=h-e1 round=1 attempt=1 decisions=Design-Refine (call #0)"
        ),
        "design again: {reason}"
    );
    assert!(field(&dir, &["sub_hypotheses", "h-e1", "design_constraint"]).is_some());
}

#[test]
fn the_waiting_policy_decides_when_nobody_does() {
    let mut s = interactive_pivot();
    s.after("Method-Refine")
        .round(1)
        .passing_attempt("h-e1", &scaled());
    let (_g, dir) = setup(
        &s,
        "INTERACTIVE",
        "approval_timeout_s = 0.3\napproval_default = \"reject\"\n",
    );
    let t = std::time::Instant::now();
    let reason = stopped(run(&dir, false));
    assert!(
        t.elapsed() >= std::time::Duration::from_millis(300),
        "it waited"
    );
    assert!(reason.contains("hypothesis=h-m1"), "{reason}");
    assert_eq!(status(&dir, "h-e1"), "VALIDATED");
    let log = std::fs::read_to_string(dir.join("verification_state.yaml")).unwrap();
    assert!(log.contains("by: policy"), "decided by the policy");
}

const EXPANSION: &str = r##"{"children": [
 {"plan": "# Standardize the features\n\nPut bill length and bill depth on one scale (z-scores fitted on each training fold) before computing the centroids; keep the 5-fold protocol.", "prior": {"estimate": 0.7, "hypothesis": "scale is the problem", "rationale": "the saturating curve", "changes": ["z-scores"], "risks": ["none"]}},
 {"plan": "# Add flipper length\n\nKeep millimetres but add a third measurement, flipper length, so Gentoo separates on size as well as shape; a different design of the feature set.", "prior": {"estimate": 0.3, "hypothesis": "a third feature helps", "rationale": "Gentoo are larger", "changes": ["a feature"], "risks": ["changes the claim"]}}
]}"##;

#[test]
fn with_a_plan_budget_attempts_execute_plan_nodes_and_refinement_expands_the_tree() {
    let mut s = start();
    s.failing_attempt("h-e1", &raw(), "Method", 0.7, &verdict("NotValid", 0.3));
    s.round(1)
        .reply("reflector", "coding_validation", Some("h-e1"), 1, EXPANSION)
        .passing_attempt("h-e1", &scaled());
    let (_g, dir) = setup(
        &s,
        "UNATTENDED",
        // after_pass = 0: the search ends at its first pass (this test is about the
        // expansion; `plan_tree.rs` follows a search past its pass).
        "\n[plan]\nbudget_tokens = 1000000\npolicy = \"greedy\"\nafter_pass = 0\n",
    );
    let reason = stopped(run(&dir, true));
    assert!(reason.contains("hypothesis=h-m1"), "{reason}");
    assert_eq!(status(&dir, "h-e1"), "VALIDATED");
    // The budget starts with the plan: the debate and the papers before it are not the
    // search's, so the first selection sees all of it (r = 1).
    let events = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    assert!(
        events.contains("n-0001 (policy Greedy, r = 1.00)"),
        "the first selection had the whole budget: {events}"
    );
    let loaded = youra::plan::load(&dir, youra::plan::Plans::Read).unwrap();
    let nodes = loaded.tree.nodes();
    assert_eq!(nodes.len(), 3, "the root and two children");
    let root = &nodes[0];
    assert_eq!(root.hypothesis_id.as_deref(), Some("h-e1"));
    let root_reward = root.packet.as_ref().unwrap().reward;
    assert!(
        root_reward > 0.0 && root_reward < 0.5,
        "unmet gate: partial credit {root_reward}"
    );
    let executed: Vec<_> = nodes.iter().filter(|n| n.packet.is_some()).collect();
    assert_eq!(executed.len(), 2, "the root, then the child greedy chose");
    let passed = executed[1].packet.as_ref().unwrap().reward;
    assert!(
        (0.5..1.0).contains(&passed),
        "the standardized child met the gate: {passed}"
    );
    assert!(
        executed[1]
            .plan
            .as_deref()
            .unwrap_or("")
            .contains("Standardize"),
        "greedy took the higher prior"
    );
    let budget = loaded.budget.unwrap();
    assert!(budget.used_tokens > 0, "the ledger was charged");
    let ledger = std::fs::read_to_string(dir.join("ledger.tsv")).unwrap();
    assert!(
        ledger
            .lines()
            .any(|l| l.split('\t').nth(7) == Some(executed[1].id.as_str())),
        "rows of the executed node carry it: {ledger}"
    );
    assert!(
        executed[1].packet.as_ref().unwrap().cost_tokens > 0,
        "the node's packet has its cost"
    );
    assert!(
        youra::plan::read_selection(&dir).0.is_some(),
        "the last selection is on disk for the TUI"
    );
}

#[test]
fn a_spent_plan_budget_moves_the_run_on_to_evidence_check() {
    // The root's attempt (the coder and the fabrication judge) spends more than the whole
    // budget; the refinement that reopens h-e1 then finds it spent.
    let mut s = start();
    s.failing_attempt("h-e1", &raw(), "Method", 0.7, &verdict("NotValid", 0.3));
    let (_g, dir) = setup(&s, "UNATTENDED", "\n[plan]\nbudget_tokens = 200\n");
    let reason = stopped(run(&dir, true));
    assert!(reason.contains("stage=evidence_check"), "{reason}");
    assert_eq!(status(&dir, "h-e1"), "SKIPPED");
    assert_eq!(status(&dir, "h-m1"), "SKIPPED");
}

#[test]
fn pin_veto_and_force_act_on_the_plan_tree() {
    let mut s = start();
    s.failing_attempt("h-e1", &raw(), "Method", 0.7, &verdict("NotValid", 0.3));
    s.round(1)
        .reply("reflector", "coding_validation", Some("h-e1"), 1, EXPANSION)
        .passing_attempt(
            "h-e1",
            &code_reply(
                "centroid.py",
                CENTROID_PY,
                &[
                    "--standardize",
                    "--features",
                    "bill_length_mm,bill_depth_mm,flipper_length_mm",
                ],
            ),
        );
    let (_g, dir) = setup(
        &s,
        "UNATTENDED",
        "\n[plan]\nbudget_tokens = 1000000\npolicy = \"greedy\"\n",
    );
    let _ = run(&dir, true);
    let tree = youra::plan::load(&dir, youra::plan::Plans::Read)
        .unwrap()
        .tree;
    assert_eq!(tree.nodes().len(), 3);
    let flipper = tree
        .nodes()
        .iter()
        .find(|n| n.plan.as_deref().unwrap_or("").contains("flipper"))
        .unwrap()
        .id
        .to_string();
    // The greedy choice ran; the researcher pins the other child for later.
    steer(&dir, Verb::Pin, Some(&flipper));
    let _ = run(&dir, true);
    let tree = youra::plan::load(&dir, youra::plan::Plans::Read)
        .unwrap()
        .tree;
    assert!(
        tree.nodes()
            .iter()
            .any(|n| n.id.to_string() == flipper && n.pinned),
        "pinned through the engine's intake"
    );
    let snap = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    let d = youra::steer::directives(&snap.doc);
    assert_eq!(
        d.last().unwrap().state,
        youra::steer::DirectiveState::Applied,
        "{:?}",
        d.last().unwrap().note
    );
}

/// Set `path` to `value` in the run's VSA, as a researcher's edit.
fn edit(dir: &Path, path: &str, value: &str) {
    let mut m = youra::vsa::mutation::Mutation::new(
        youra::vsa::mutation::Change::Set {
            path: path.into(),
            value: value.into(),
        },
        "field_edit",
        "dana",
        "the researcher's edit",
    );
    m.create = true;
    Store::new(dir.join("verification_state.yaml"))
        .mutate(&m)
        .unwrap();
}

#[test]
fn the_search_goes_on_after_a_pass_until_the_researcher_limits_it_in_the_vsa() {
    let mut s = start();
    s.failing_attempt("h-e1", &raw(), "Method", 0.7, &verdict("NotValid", 0.3));
    s.round(1)
        .reply("reflector", "coding_validation", Some("h-e1"), 1, EXPANSION)
        .passing_attempt("h-e1", &scaled());
    // The settling step of round 2 (after the researcher's limit) is checked by the
    // controller like any other.
    s.round(2).ok("coding_validation", Some("h-e1"), 1);
    // No `after_pass`: the search goes on while the budget lasts.
    let (_g, dir) = setup(
        &s,
        "UNATTENDED",
        "\n[plan]\nbudget_tokens = 1000000\npolicy = \"greedy\"\n",
    );
    let reason = stopped(run(&dir, true));
    // It went on after the pass: the next node of h-e1 (round 2) has no recorded reply.
    assert!(
        reason.contains("hypothesis=h-e1") && reason.contains("round=2"),
        "{reason}"
    );
    assert_eq!(
        status(&dir, "h-e1"),
        "IN_PROGRESS",
        "passed, still searching"
    );
    let vsa = std::fs::read_to_string(dir.join("verification_state.yaml")).unwrap();
    assert!(
        vsa.contains("best_node: n-0003") || vsa.contains("best_node: n-0002"),
        "{vsa}"
    );
    assert!(vsa.contains("settled: false"), "{vsa}");
    // The researcher ends the search at its pass: read when the engine decides the next node.
    edit(&dir, "sub_hypotheses.h-e1.search.after_pass", "0");
    edit(&dir, "workflow.status", "ACTIVE");
    let reason = stopped(run(&dir, true));
    assert!(reason.contains("hypothesis=h-m1"), "{reason}");
    assert_eq!(status(&dir, "h-e1"), "VALIDATED");
    let vsa = std::fs::read_to_string(dir.join("verification_state.yaml")).unwrap();
    assert!(vsa.contains("settled: true"), "{vsa}");
    assert!(vsa.contains("the limit is 0"), "{vsa}");
    let report = std::fs::read_to_string(dir.join("h-e1/04_validation.md")).unwrap();
    assert!(report.contains("## Plan-tree search"), "{report}");
    assert!(report.contains("Best node: n-000"), "{report}");
}
