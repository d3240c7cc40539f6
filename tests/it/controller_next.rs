//! The Independent Controller names the step that follows each stage (YouRA §3.3), bounded
//! by the lifecycle's order and the gates: on replay, a choice of which ready sub-hypothesis
//! goes next is followed (and survives a restart: it is in the VSA), and a named skip is
//! vetoed, with its reason in events and history, while the order goes on.

use crate::common;

use std::path::Path;

use common::script::{
    CENTROID_PY, CONSISTENT, LITERATURE, PLAN, Script, brief, code_reply, replay_run, with_data,
};
use youra::engine::RunEnd;
use youra::vsa::store::Store;

fn complete(next_stage: &str, next_hypothesis: Option<&str>) -> String {
    let mut v = serde_json::json!({"decision": "PHASE_COMPLETE", "reason": "done", "next_stage": next_stage});
    if let Some(h) = next_hypothesis {
        v["next_hypothesis"] = h.into();
    }
    v.to_string()
}

fn run(s: &Script) -> (tempfile::TempDir, std::path::PathBuf, String) {
    let (g, dir) = replay_run(s, "experiment_time_limit_s = 60\n");
    with_data(&dir);
    match common::script::run_engine(&dir, false) {
        RunEnd::Stopped(why) => (g, dir, why),
        other => panic!("expected the recording to run out, got {other:?}"),
    }
}

fn field(dir: &Path, path: &str) -> Option<String> {
    common::vsa_field(dir, path)
}

fn events(dir: &Path, kind: &str) -> Vec<youra::rundir::events::Event> {
    common::events_of(dir, kind)
}

fn history_kinds(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("verification_state.yaml")).unwrap();
    text.lines()
        .filter_map(|l| l.trim().trim_start_matches("- ").strip_prefix("event: "))
        .map(|k| k.trim_matches(['\'', '"']).to_string())
        .collect()
}

#[test]
fn the_controller_takes_a_ready_sub_hypothesis_out_of_file_order() {
    let mut s = Script::default();
    s.scoping().literature().debate(6, true);
    s.reply("executor", "verification_planning", None, 1, PLAN)
        .ok("verification_planning", None, 1)
        .design_and_plan("h-e1", &brief("accuracy", ">=", 0.9));
    // h-e1 passes; h-m1 (first in file order) and h-c1 are both ready: the controller
    // takes h-c1 first.
    s.reply(
        "executor",
        "coding_validation",
        Some("h-e1"),
        1,
        &code_reply("centroid.py", CENTROID_PY, &["--standardize"]),
    )
    .reply("judge", "coding_validation", Some("h-e1"), 1, CONSISTENT)
    .reply(
        "controller",
        "coding_validation",
        Some("h-e1"),
        1,
        &complete("Experiment Design", Some("h-c1")),
    )
    .reply(
        "executor",
        "experiment_design",
        Some("h-c1"),
        1,
        &brief("min_group_accuracy", ">=", 0.85),
    )
    .reply(
        "controller",
        "experiment_design",
        Some("h-c1"),
        1,
        &complete("Implementation Planning", None),
    );
    let (_g, dir, why) = run(&s);
    assert!(
        why.contains("implementation_planning") && why.contains("h-c1"),
        "h-c1 goes on, not h-m1: {why}"
    );
    assert_eq!(
        field(&dir, "workflow.next_hypothesis").as_deref(),
        Some("h-c1")
    );
    assert_eq!(
        field(&dir, "sub_hypotheses.h-c1.experiment_design.status").as_deref(),
        Some("COMPLETED")
    );
    assert_ne!(
        field(&dir, "sub_hypotheses.h-m1.experiment_design.status").as_deref(),
        Some("COMPLETED"),
        "h-m1 waits"
    );
    let next = events(&dir, "controller_next");
    assert!(
        next.iter()
            .any(|e| e.message.as_deref() == Some("Experiment Design (Phase 2C) for h-c1")),
        "{next:?}"
    );
    assert!(events(&dir, "controller_veto").is_empty());
    // A restarted engine reads the choice from the VSA: it resumes h-c1, not h-m1.
    let doc = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    assert_eq!(
        youra::engine::progress::next(&doc.doc, &doc.vsa),
        youra::engine::progress::Step::Hypothesis(
            youra::stage::Stage::ImplementationPlanning,
            "h-c1".into()
        )
    );
}

#[test]
fn a_named_skip_is_vetoed_and_the_lifecycle_goes_on_in_order() {
    let mut s = Script::default();
    s.scoping();
    s.reply("executor", "literature_grounding", None, 1, LITERATURE)
        .reply(
            "controller",
            "literature_grounding",
            None,
            1,
            &complete("Verification Planning", None),
        );
    let (_g, dir, why) = run(&s);
    assert!(
        why.contains("hypothesis_debate"),
        "the debate is next: {why}"
    );
    assert_eq!(
        field(&dir, "phases.literature_grounding.status").as_deref(),
        Some("COMPLETED")
    );
    let vetoes = events(&dir, "controller_veto");
    assert_eq!(vetoes.len(), 1, "{vetoes:?}");
    let why = vetoes[0].message.clone().unwrap_or_default();
    assert!(
        why.contains("Verification Planning") && why.contains("Hypothesis Debate"),
        "the veto names what was asked and what is taken: {why}"
    );
    assert!(history_kinds(&dir).contains(&"controller_veto".to_string()));
    let text = std::fs::read_to_string(dir.join("verification_state.yaml")).unwrap();
    assert!(
        text.contains("vetoes:") && text.contains("chosen_by: controller"),
        "{text}"
    );
}
