//! The hypothesis loop on replay with real experiment execution: generated code runs in
//! the sandbox on the penguin data, a crash is repaired, gates are judged on what was
//! measured, a SHOULD_WORK failure is recorded as a limitation and the loop goes on.

use crate::common;

use std::path::Path;

use common::script::{CENTROID_PY, Script, brief, code_reply, replay_run, with_data};

/// A SHOULD_WORK miss is recorded as a limitation at once (no retry from Experiment Design:
/// `tests/it/controller_routing.rs` covers that path), so these scripts need no attribution.
const LIMITATION_AT_ONCE: &str =
    "experiment_time_limit_s = 60\n\n[recovery]\nshould_work_retries = 0\n";
use youra::engine::RunEnd;
use youra::vsa::store::Store;

fn run(dir: &Path) -> RunEnd {
    common::script::run_engine(dir, true)
}

fn gate(dir: &Path, h: &str) -> (String, String) {
    let s = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    let x = s.vsa.hypothesis(h).unwrap();
    (
        x.status.as_str().to_string(),
        x.gate
            .result
            .as_ref()
            .map_or("-".into(), |r| r.as_str().to_string()),
    )
}

fn loop_script() -> Script {
    let mut s = Script::default();
    s.scoping().literature().debate(6, true).planning();
    let buggy = CENTROID_PY.replace(
        "def load(path, columns):",
        "def load(path, columns):\n    columns = columns + ['bill_len']",
    );
    s.loop_for(
        "h-e1",
        &brief("accuracy", ">=", 0.92),
        &[
            code_reply("centroid.py", &buggy, &["--standardize"]),
            code_reply("centroid.py", CENTROID_PY, &["--standardize"]),
        ],
    );
    s.loop_for(
        "h-m1",
        &brief("gain", "<=", 0.02),
        &[code_reply(
            "centroid.py",
            CENTROID_PY,
            &["--standardize", "--compare", "body_mass_g"],
        )],
    );
    s.loop_for(
        "h-c1",
        &brief("min_group_accuracy", ">=", 0.9),
        &[code_reply(
            "centroid.py",
            CENTROID_PY,
            &["--standardize", "--by", "sex"],
        )],
    );
    s
}

#[test]
fn the_loop_repairs_a_crash_judges_gates_and_records_a_limitation() {
    let s = loop_script();
    let (_g, dir) = replay_run(&s, LIMITATION_AT_ONCE);
    with_data(&dir);
    let end = run(&dir);
    let RunEnd::Stopped(reason) = &end else {
        panic!("expected the stop after the loop, got {end:?}")
    };
    assert!(reason.contains("Evidence Check"), "{reason}");
    assert_eq!(gate(&dir, "h-e1"), ("VALIDATED".into(), "PASS".into()));
    assert_eq!(gate(&dir, "h-m1"), ("FAILED".into(), "FAIL".into()));
    assert_eq!(gate(&dir, "h-c1"), ("VALIDATED".into(), "PASS".into()));
    let results: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("h-e1/results/experiment_results.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(results["metrics"]["accuracy"], 0.9356);
    let metrics = std::fs::read_to_string(dir.join("h-e1/results/metrics.jsonl")).unwrap();
    assert_eq!(
        metrics.lines().count(),
        5,
        "one line per step of the learning curve"
    );
    let log = std::fs::read_to_string(dir.join("h-e1/results/run.log")).unwrap();
    assert!(
        log.trim_end().ends_with("EXPERIMENT COMPLETE (exit=0)"),
        "{log}"
    );
    let validation = std::fs::read_to_string(dir.join("h-e1/04_validation.md")).unwrap();
    assert!(validation.contains("**Sandboxed:** true"), "{validation}");
    assert!(
        validation.contains("## Repairs") && validation.contains("exit=1"),
        "{validation}"
    );
    let snap = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    let limitation = snap.doc.root.as_ref().and_then(|r| {
        r.get("sub_hypotheses")?
            .get("h-m1")?
            .get("limitation")?
            .as_str()
            .map(str::to_string)
    });
    assert!(
        limitation
            .unwrap_or_default()
            .starts_with("SHOULD_WORK gate FAIL"),
        "the limitation is in the VSA"
    );
    let checks = &snap.vsa.hypothesis("h-m1").unwrap().gate.failed_checks;
    assert_eq!(checks.len(), 1);
    assert_eq!(checks[0].criterion.as_deref(), Some("gain"));
    assert_eq!(checks[0].actual.as_deref(), Some("0.0323"));
    let (records, _) = youra::rundir::memory::load_dir(&dir.join("memory"));
    let lim = records
        .iter()
        .find(|r| r.id == "limitation_h-m1_run1")
        .expect("a limitation record");
    assert_eq!(lim.hypothesis.as_deref(), Some("h-m1"));
    assert_eq!(lim.gate_type.as_deref(), Some("SHOULD_WORK"));
    let ev = youra::rundir::events::read(&dir.join("events.jsonl"));
    assert_eq!(ev.iter().filter(|e| e.kind == "repair").count(), 1);
    assert_eq!(ev.iter().filter(|e| e.kind == "experiment_exit").count(), 4);
}

#[test]
fn a_path_escape_is_refused_and_repaired() {
    let mut s = Script::default();
    s.scoping().literature().debate(6, true).planning();
    let escape = code_reply("../../../escape.py", "print('x')", &[]);
    let fine = code_reply("centroid.py", CENTROID_PY, &["--standardize"]);
    s.loop_for("h-e1", &brief("accuracy", ">=", 0.92), &[escape, fine]);
    let (g, dir) = replay_run(&s, LIMITATION_AT_ONCE);
    with_data(&dir);
    let _ = run(&dir);
    assert!(!g.path().join("escape.py").exists() && !dir.join("escape.py").exists());
    assert_eq!(gate(&dir, "h-e1"), ("VALIDATED".into(), "PASS".into()));
    let v = std::fs::read_to_string(dir.join("h-e1/04_validation.md")).unwrap();
    assert!(v.contains("refused to write \"../../../escape.py\""), "{v}");
}

#[test]
fn results_planted_as_links_are_a_sandbox_violation_sent_to_repair() {
    let mut s = Script::default();
    s.scoping().literature().debate(6, true).planning();
    // Code that "reports" by linking its results to a file outside its workspace.
    let planted = "import os\nopen('/tmp/claimed.json', 'w').write('{\"accuracy\": 0.99}')\nos.symlink('/tmp/claimed.json', os.environ['YOURA_RESULTS_DIR'] + '/experiment_results.json')\n";
    let cheat = code_reply("cheat.py", planted, &[]);
    let fine = code_reply("centroid.py", CENTROID_PY, &["--standardize"]);
    s.loop_for("h-e1", &brief("accuracy", ">=", 0.92), &[cheat, fine]);
    let (_g, dir) = replay_run(&s, LIMITATION_AT_ONCE);
    with_data(&dir);
    let _ = run(&dir);
    let ev = youra::rundir::events::read(&dir.join("events.jsonl"));
    assert_eq!(
        ev.iter().filter(|e| e.kind == "sandbox_violation").count(),
        1
    );
    assert!(
        ev.iter().any(|e| e.kind == "sandbox_violation"
            && e.message
                .as_deref()
                .is_some_and(|m| m.contains("experiment_results.json"))),
        "a sandbox_violation event"
    );
    let v = std::fs::read_to_string(dir.join("h-e1/04_validation.md")).unwrap();
    assert!(
        v.contains("sandbox violation, a fabrication suspect"),
        "{v}"
    );
    assert_eq!(
        gate(&dir, "h-e1"),
        ("VALIDATED".into(), "PASS".into()),
        "the repair measured honestly"
    );
}

#[test]
fn a_must_work_gate_that_fails_stops_with_the_evidence_when_no_pivot_is_left() {
    let mut s = Script::default();
    s.scoping()
        .literature()
        .debate(6, true)
        .planning()
        .design_and_plan("h-e1", &brief("accuracy", ">=", 0.92));
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
    let end = run(&dir);
    let RunEnd::Stopped(reason) = end else {
        panic!("expected a stop")
    };
    assert!(
        reason.contains("h-e1: MUST_WORK gate FAIL")
            && reason.contains("0.8832 does not satisfy accuracy >= 0.92")
            && reason.contains("recovery:"),
        "{reason}"
    );
    assert_eq!(gate(&dir, "h-e1"), ("FAILED".into(), "FAIL".into()));
    assert!(
        dir.join("memory/failure_h-e1_run1.md").is_file(),
        "the failure is recorded before the stop"
    );
}

#[test]
fn the_whole_lifecycle_completes_with_a_grounded_paper() {
    let mut s = loop_script();
    s.paper();
    let (_g, dir) = replay_run(&s, LIMITATION_AT_ONCE);
    with_data(&dir);
    assert_eq!(run(&dir), RunEnd::Completed);
    let snap = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    assert_eq!(
        snap.vsa.workflow.status.as_ref().map(|s| s.as_str()),
        Some("COMPLETED")
    );
    let evidence = std::fs::read_to_string(dir.join("045_validated_hypothesis.md")).unwrap();
    assert!(
        evidence.contains("| h-e1 |") && evidence.contains("| supported |"),
        "{evidence}"
    );
    assert!(
        evidence.contains("| refuted |"),
        "h-m1 failed on measured metrics: {evidence}"
    );
    let registry = std::fs::read_to_string(dir.join("paper/065_ground_truth.yaml")).unwrap();
    assert!(registry.contains("0.9356"), "{registry}");
    let paper = std::fs::read_to_string(dir.join("paper/06_paper_final.md")).unwrap();
    assert!(paper.contains("| h-e1 | accuracy | 0.9356 |"), "{paper}");
    let out = common::youra(&["report", "check", dir.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "the final paper passes report check: {:?}",
        common::text(&out)
    );
}

#[test]
fn an_unmeasured_number_in_a_drafted_table_becomes_a_dash() {
    let mut s = loop_script();
    s.reply(
        "executor",
        "evidence_check",
        None,
        1,
        common::script::EVIDENCE,
    )
    .ok("evidence_check", None, 1);
    let fabricated = common::script::EVIDENCE_SECTIONS.replace(
        "| h-c1 | min_group_accuracy | 0.9638 |",
        "| h-c1 | min_group_accuracy | 0.7123 |",
    );
    for part in [
        common::script::FOUNDATION,
        fabricated.as_str(),
        common::script::CLOSURE,
        common::script::ABSTRACT,
    ] {
        s.reply("executor", "manuscript_drafting", None, 1, part);
    }
    s.ok("manuscript_drafting", None, 1);
    let (_g, dir) = replay_run(&s, LIMITATION_AT_ONCE);
    with_data(&dir);
    let _ = run(&dir);
    let paper = std::fs::read_to_string(dir.join("paper/06_paper.md")).unwrap();
    assert!(
        paper.contains("| h-c1 | min_group_accuracy | --- |"),
        "{paper}"
    );
    assert!(
        paper.contains("| h-e1 | accuracy | 0.9356 |"),
        "measured values stay"
    );
    let report = std::fs::read_to_string(dir.join("paper/review/sanitizer_06_paper.md")).unwrap();
    assert!(
        report.contains("0.7123"),
        "the replacement is listed: {report}"
    );
}

#[test]
fn tests_first_when_the_tasks_ask_run_before_the_experiment() {
    let tasks = common::script::TASKS.replace("\"test_first\":false", "\"test_first\":true");
    let mut s = Script::default();
    s.scoping().literature().debate(6, true).planning();
    s.reply(
        "executor",
        "experiment_design",
        Some("h-e1"),
        1,
        &brief("accuracy", ">=", 0.92),
    )
    .ok("experiment_design", Some("h-e1"), 1);
    s.reply(
        "executor",
        "implementation_planning",
        Some("h-e1"),
        1,
        &tasks,
    )
    .ok("implementation_planning", Some("h-e1"), 1);
    let with_tests = |test: &str| {
        serde_json::json!({"files": [{"path": "centroid.py", "content": CENTROID_PY}, {"path": "test_centroid.py", "content": test}], "command": ["python3", "centroid.py", "--standardize"], "test_command": ["python3", "test_centroid.py"]}).to_string()
    };
    s.reply(
        "executor",
        "coding_validation",
        Some("h-e1"),
        1,
        &code_reply("centroid.py", CENTROID_PY, &["--standardize"]),
    );
    s.reply("executor", "coding_validation", Some("h-e1"), 1, &with_tests("import centroid\nassert centroid.load('../../data/penguins.csv', ['bill_length_mm']) == [], 'rows load'\n"));
    s.reply("executor", "coding_validation", Some("h-e1"), 1, &with_tests("import centroid\nrows = centroid.load('../../data/penguins.csv', ['bill_length_mm', 'bill_depth_mm'])\nassert len(rows) == 342, len(rows)\n"));
    s.reply(
        "judge",
        "coding_validation",
        Some("h-e1"),
        1,
        common::script::CONSISTENT,
    )
    .ok("coding_validation", Some("h-e1"), 1);
    let (_g, dir) = replay_run(&s, LIMITATION_AT_ONCE);
    with_data(&dir);
    let _ = run(&dir);
    assert_eq!(gate(&dir, "h-e1"), ("VALIDATED".into(), "PASS".into()));
    let v = std::fs::read_to_string(dir.join("h-e1/04_validation.md")).unwrap();
    assert!(
        v.contains("test_command"),
        "the first attempt gave no tests: {v}"
    );
    assert!(
        v.contains("compliance tests failed"),
        "the second attempt's tests failed: {v}"
    );
    let ev = youra::rundir::events::read(&dir.join("events.jsonl"));
    assert_eq!(ev.iter().filter(|e| e.kind == "tests").count(), 2);
}

/// YouRA §3: only MUST_WORK gates block. h-m1's SHOULD_WORK gate misses (a limitation), and
/// h-c1, which depends on it, still runs; the run stops only where the bundle ends.
#[test]
fn a_failed_should_work_gate_lets_its_dependants_proceed() {
    let plan = r#"{"sub_hypotheses":[
 {"id":"h-e1","type":"EXISTENCE","statement":"A nearest-centroid classifier on standardized bill length and depth reaches accuracy >= 0.9.","gate":{"type":"MUST_WORK","criterion":"accuracy >= 0.9"},"prerequisites":[]},
 {"id":"h-m1","type":"MECHANISM","statement":"The same rule reaches accuracy >= 0.99.","gate":{"type":"SHOULD_WORK","criterion":"accuracy >= 0.99"},"prerequisites":["h-e1"]},
 {"id":"h-c1","type":"CONDITION","statement":"It keeps accuracy >= 0.9 within each sex.","gate":{"type":"SHOULD_WORK","criterion":"min_group_accuracy >= 0.9"},"prerequisites":["h-m1"]}
],"rationale":"A claim, a stronger one that may fail, and a condition on the stronger one."}"#;
    let mut s = Script::default();
    s.scoping().literature().debate(6, true);
    s.reply("executor", "verification_planning", None, 1, plan)
        .ok("verification_planning", None, 1);
    let scaled = code_reply("centroid.py", CENTROID_PY, &["--standardize"]);
    s.design_and_plan("h-e1", &brief("accuracy", ">=", 0.9))
        .passing_attempt("h-e1", &scaled);
    s.design_and_plan("h-m1", &brief("accuracy", ">=", 0.99))
        .passing_attempt("h-m1", &scaled);
    s.design_and_plan("h-c1", &brief("min_group_accuracy", ">=", 0.9))
        .passing_attempt(
            "h-c1",
            &code_reply(
                "centroid.py",
                CENTROID_PY,
                &["--standardize", "--by", "sex"],
            ),
        );
    let (_g, dir) = replay_run(&s, LIMITATION_AT_ONCE);
    with_data(&dir);
    let end = run(&dir);
    assert!(
        matches!(&end, RunEnd::Stopped(r) if r.contains("evidence_check")),
        "{end:?}"
    );
    assert_eq!(gate(&dir, "h-m1"), ("FAILED".into(), "FAIL".into()));
    assert_eq!(
        gate(&dir, "h-c1"),
        ("VALIDATED".into(), "PASS".into()),
        "a SHOULD_WORK failure is a limitation, not a block"
    );
}
