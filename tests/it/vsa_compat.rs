//! Every VSA YouRA wrote in the shared corpus reads, with the values the files hold.

use crate::common;

use common::*;
use youra::vsa::enums::{GateResult, GateType, HypothesisStatus, WorkflowStatus};
use youra::vsa::invariants::{Invariant, violations};
use youra::vsa::{Store, Vsa, Warning};

fn load(rel: &str) -> Option<(Vsa, Vec<Warning>)> {
    let root = shared_fixtures()?;
    let run = youra::rundir::discover(&root.join(rel)).expect("run found");
    let snap = Store::new(run.vsa).load().expect("reads");
    Some((snap.vsa.clone(), snap.warnings.clone()))
}

#[test]
fn data_problems_reads_with_its_drift() {
    let Some((vsa, warnings)) = load(DATA_PROBLEMS_RUN) else {
        return;
    };
    assert_eq!(vsa.schema_version.as_deref(), Some("3.5"));
    assert_eq!(
        vsa.project_name.as_deref(),
        Some("Data Quality Metrics and FM Benchmark Performance")
    );
    assert_eq!(vsa.revision, 0);
    let ids: Vec<&str> = vsa.sub_hypotheses.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(ids, ["h-e1", "h-e1-v2", "h-m1", "h-m2", "h-m3"]);
    let e1 = vsa.hypothesis("h-e1").unwrap();
    assert_eq!(e1.status, HypothesisStatus::Completed);
    assert_eq!(e1.gate.gate_type, Some(GateType::MustWork));
    assert_eq!(e1.gate.satisfied, Some(false));
    assert_eq!(e1.gate.result, Some(GateResult::Partial));
    let check = &e1.gate.failed_checks[0];
    assert_eq!(check.criterion.as_deref(), Some("n_features_with_variance"));
    assert_eq!(
        (check.required.as_deref(), check.actual.as_deref()),
        (Some("3"), Some("2"))
    );
    assert_eq!(vsa.hypothesis("h-m3").unwrap().prerequisites, ["h-m2"]);
    assert_eq!(vsa.workflow.status, Some(WorkflowStatus::Active));
    assert_eq!(
        vsa.workflow.current_phase.as_deref(),
        Some("Phase 6.5.1 (COMPLETED)")
    );
    assert_eq!(vsa.workflow.next_action, None);
    assert_eq!(vsa.history.len(), 16);
    // The duplicated `details` of the last entry (lines 711-712): the last one wins, with a warning.
    let last = vsa.history.last().unwrap();
    assert!(
        last.details
            .as_deref()
            .unwrap()
            .starts_with("h-e1-v2 validation completed with PASS")
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.line == 712 && w.message.contains("duplicate key `details`")),
        "{warnings:?}"
    );
    // A status entry without `event` is kept.
    assert!(
        vsa.history
            .iter()
            .any(|h| h.event.is_none() && h.status.as_deref() == Some("ACTIVE"))
    );
    // The real file breaks the must-work invariant (COMPLETED with a PARTIAL gate): reported, not refused.
    let v = violations(&vsa);
    assert!(
        v.iter()
            .any(|v| v.invariant == Invariant::MustWorkGate && v.hypothesis == "h-e1"),
        "{v:?}"
    );
    assert!(vsa.unknown_keys.is_empty(), "{:?}", vsa.unknown_keys);
}

#[test]
fn dl4c_without_schema_or_workflow_status_reads() {
    let Some((vsa, warnings)) = load(DL4C) else {
        return;
    };
    assert_eq!(vsa.schema_version, None);
    assert_eq!(vsa.sub_hypotheses.len(), 4);
    let e1 = vsa.hypothesis("h-e1").unwrap();
    assert_eq!(e1.status, HypothesisStatus::Failed);
    assert_eq!(
        e1.gate.result,
        Some(GateResult::Fail),
        "free text classified from satisfied: false"
    );
    assert!(
        e1.gate
            .result_text
            .as_deref()
            .unwrap()
            .starts_with("Experiment crashed at 53%")
    );
    assert_eq!(
        vsa.hypothesis("h-m2").unwrap().gate.gate_type,
        Some(GateType::ShouldWork)
    );
    assert_eq!(vsa.workflow.status, None);
    assert_eq!(
        vsa.workflow.next_action.as_deref(),
        Some("Upload to Overleaf or submit")
    );
    for key in [
        "execution",
        "phases",
        "dependency_graph",
        "critical_path",
        "total_duration_weeks",
    ] {
        assert!(vsa.unknown_keys.iter().any(|k| k == key), "{key} kept");
    }
    assert_eq!(vsa.history.len(), 1);
    assert!(warnings.iter().any(|w| w.message.contains("free text")));
}

#[test]
fn bi_align_with_sorted_keys_reads() {
    let Some((vsa, warnings)) = load(BI_ALIGN_RUN) else {
        return;
    };
    let statuses: Vec<String> = vsa
        .sub_hypotheses
        .iter()
        .map(|h| format!("{}:{}", h.id, h.status))
        .collect();
    assert_eq!(
        statuses,
        [
            "h-e1:VALIDATED",
            "h-m1:VALIDATED",
            "h-m2:VALIDATED",
            "h-m3:FAILED",
            "h-m4:FAILED"
        ]
    );
    assert_eq!(
        vsa.hypothesis("h-m4").unwrap().prerequisites,
        ["h-m1", "h-m2", "h-m3"]
    );
    let m3 = vsa.hypothesis("h-m3").unwrap();
    assert_eq!(
        m3.gate.failed_checks[0].text.as_deref(),
        Some("models_passing=0 (threshold: >=2)")
    );
    assert_eq!(vsa.workflow.status, Some(WorkflowStatus::Completed));
    assert_eq!(vsa.history.len(), 29);
    assert!(vsa.unknown_keys.contains(&"paper_review".to_string()));
    assert!(
        warnings
            .iter()
            .any(|w| w.message.contains("without a time zone")),
        "naive stamps reported"
    );
    assert!(violations(&vsa).is_empty());
}

#[test]
fn the_task_folder_finds_its_run_and_the_template_reads() {
    let Some(root) = shared_fixtures() else {
        return;
    };
    let run = youra::rundir::discover(&root.join(DATA_PROBLEMS)).unwrap();
    assert!(run.root.ends_with("2026_data_problems"));
    assert!(
        run.task_root
            .as_ref()
            .unwrap()
            .ends_with("iclr2025_data_problems")
    );
    let template = root.join("YOURA_no_IC/bmad-custom-src/custom/modules/youra-research/workflows/verification_state_template.yaml");
    let snap = Store::new(template).load().unwrap();
    assert_eq!(snap.vsa.schema_version.as_deref(), Some("3.5"));
    assert_eq!(snap.vsa.workflow.current_phase.as_deref(), Some("Phase 2B"));
    assert!(snap.vsa.sub_hypotheses.is_empty());
}

#[test]
fn every_yaml_in_the_corpus_parses_without_panic() {
    let Some(root) = shared_fixtures() else {
        return;
    };
    let mut n = 0;
    let mut refused = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "yaml") {
                match youra::yaml::parse(&std::fs::read(&p).unwrap()) {
                    Ok(doc) => drop(youra::vsa::read(&doc)),
                    Err(e) => refused.push((
                        p.file_name().unwrap().to_string_lossy().into_owned(),
                        e.line,
                        e.col,
                    )),
                }
                n += 1;
            }
        }
    }
    assert!(n >= 10, "read {n} yaml files");
    // The one real file PyYAML refuses too, at the same place ("could not find expected ':'").
    assert_eq!(refused, [("03_tasks.yaml".to_string(), 49, 9)]);
}
