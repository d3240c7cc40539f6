//! Recovery's deterministic core against the readers the TUI and CLI use: Reflective Memory
//! records written by `reflect::memory_writer` read back by `rundir::memory` field for field,
//! and `reflect::archive` moving a run's artifacts and leaving a marker `rundir::archive` reads.

use chrono::{TimeZone, Utc};
use std::fs;
use std::path::Path;
use youra::reflect::archive::{ArchiveKind, archive};
use youra::reflect::attribution::Category;
use youra::reflect::memory_writer::*;
use youra::reflect::routing::RoutingAction;
use youra::reflect::trajectory::{Trajectory, analyse};
use youra::rundir::archive::load_archives;
use youra::rundir::memory::{MemoryKind, MemoryRecord, load_dir};

fn date() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 5, 1, 12, 30, 0)
        .single()
        .expect("valid date")
}

fn note(action: RoutingAction) -> RoutingNote {
    let features = match analyse(&[0.4, 0.6, 0.7, 0.71, 0.71], true) {
        Trajectory::Features(f) => Some(f.describe()),
        Trajectory::Insufficient { .. } => None,
    };
    RoutingNote {
        pending: false,
        action,
        severity: 0.66,
        category: Category::Design,
        trajectory: features,
        evidence: "signature=saturation and log line 42: \"val acc plateau at 0.71\"".into(),
        note: Some("Verdict Clamp: none".into()),
    }
}

fn checks() -> Vec<GateCheck> {
    vec![
        GateCheck {
            name: "accuracy".into(),
            actual: "0.71".into(),
            threshold: "≥ 0.80".into(),
            passed: false,
        },
        GateCheck {
            name: "runtime".into(),
            actual: "14 min".into(),
            threshold: "≤ 60 min".into(),
            passed: true,
        },
    ]
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn written(dir: &Path) -> Vec<MemoryRecord> {
    let (records, warnings) = load_dir(dir);
    assert!(warnings.is_empty(), "{warnings:?}");
    records
}

fn table(r: &MemoryRecord) -> Vec<Vec<String>> {
    let t = r.results_table.as_ref().expect("a results table");
    assert_eq!(t.header, ["Check", "Actual", "Threshold", "Passed"]);
    t.rows.clone()
}

#[test]
fn failure_record_round_trips() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let input = FailureInput {
        hypothesis: "h-e2".into(),
        run: 3,
        date: date(),
        final_status: "FAIL".into(),
        failure_type: "MUST_WORK_FAIL".into(),
        gate_type: "MUST_WORK".into(),
        checks: checks(),
        root_causes: strings(&[
            "Too few samples for the interaction",
            "Regimes too close (KL 1.2)",
        ]),
        lessons: strings(&["Scale to n ≥ 5000", "Pick regimes with KL > 2"]),
        routing: note(RoutingAction::Pivot),
    };
    let path = write_record(tmp.path(), &render_failure(&input).expect("render")).expect("write");
    assert!(path.ends_with("failure_h-e2_run3.md"));
    let records = written(tmp.path());
    let r = &records[0];
    assert_eq!(
        (r.id.as_str(), r.kind),
        ("failure_h-e2_run3", MemoryKind::Failure)
    );
    assert_eq!(
        r.title.as_deref(),
        Some("Phase 4 Failure Record: h-e2 (Run 3)")
    );
    assert_eq!(r.hypothesis.as_deref(), Some("h-e2"));
    assert_eq!(r.run, Some(3));
    assert_eq!(r.date.as_deref(), Some("2026-05-01T12:30:00Z"));
    assert_eq!(r.final_status.as_deref(), Some("FAIL"));
    assert_eq!(r.failure_type.as_deref(), Some("MUST_WORK_FAIL"));
    assert_eq!(r.gate_type.as_deref(), Some("MUST_WORK"));
    assert_eq!(
        r.routing_decision.as_deref(),
        Some("ROUTED_TO_PHASE_2A (Pivot)")
    );
    assert_eq!(table(r)[0], ["accuracy", "0.71", "≥ 0.80", "❌"]);
    assert_eq!(table(r)[1], ["runtime", "14 min", "≤ 60 min", "✅"]);
    assert_eq!(r.root_causes, input.root_causes);
    assert_eq!(r.lessons, input.lessons);
    assert_eq!(r.field("Severity"), Some("0.66 (Design)"));
    assert!(
        r.field("Trajectory")
            .is_some_and(|t| t.contains("signature=saturation"))
    );
    assert_eq!(r.field("Evidence"), Some(input.routing.evidence.as_str()));
    // Memory is history: the same record is never overwritten.
    let again = write_record(tmp.path(), &render_failure(&input).expect("render"));
    assert!(
        matches!(again, Err(MemoryWriteError::Exists(_))),
        "{again:?}"
    );
}

#[test]
fn pivot_limitation_and_superseded_round_trip() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let pivot = PivotInput {
        from: "h-e1".into(),
        to: "h-e1-v2".into(),
        date: date(),
        gate_type: "MUST_WORK".into(),
        gate_result: "PARTIAL".into(),
        what_happened: strings(&["Two of four features had no variance"]),
        lessons: strings(&["Sample by model family"]),
        routing: note(RoutingAction::Pivot),
        summary: "Targeted family sampling".into(),
    };
    let limitation = LimitationInput {
        hypothesis: "h-m2".into(),
        run: 1,
        date: date(),
        gate_type: "SHOULD_WORK".into(),
        gate_result: "FAIL".into(),
        checks: checks(),
        root_causes: strings(&["Corpus access gated"]),
        lessons: strings(&["Use an open substitute corpus"]),
    };
    let superseded = SupersededInput {
        hypothesis: "h-m1".into(),
        superseded_by: "h-m1-v2".into(),
        date: date(),
        reason: "Its prerequisite pivoted".into(),
        lessons: strings(&["Re-derive after the prerequisite"]),
    };
    for rendered in [
        render_pivot(&pivot),
        render_limitation(&limitation),
        render_superseded(&superseded),
    ] {
        write_record(tmp.path(), &rendered.expect("render")).expect("write");
    }
    let records = written(tmp.path());
    let ids: Vec<_> = records.iter().map(|r| (r.id.as_str(), r.kind)).collect();
    assert_eq!(
        ids,
        [
            ("limitation_h-m2_run1", MemoryKind::Limitation),
            ("pivot_h-e1_h-e1-v2", MemoryKind::Pivot),
            ("superseded_h-m1", MemoryKind::Superseded),
        ]
    );
    let (l, p, s) = (&records[0], &records[1], &records[2]);
    assert_eq!(
        (p.hypothesis.as_deref(), p.to_hypothesis.as_deref()),
        (Some("h-e1"), Some("h-e1-v2"))
    );
    assert_eq!(
        (p.final_status.as_deref(), p.gate_type.as_deref()),
        (Some("PARTIAL"), Some("MUST_WORK"))
    );
    assert_eq!(
        p.routing_decision.as_deref(),
        Some("ROUTED_TO_PHASE_2A (Pivot)")
    );
    assert_eq!(p.lessons, pivot.lessons);
    assert_eq!((l.hypothesis.as_deref(), l.run), (Some("h-m2"), Some(1)));
    assert_eq!(l.title.as_deref(), Some("Limitation Record: h-m2 (Run 1)"));
    assert_eq!(l.routing_decision.as_deref(), Some("LIMITATION_RECORDED"));
    assert_eq!(
        (l.final_status.as_deref(), l.gate_type.as_deref()),
        (Some("FAIL"), Some("SHOULD_WORK"))
    );
    assert_eq!(l.date.as_deref(), Some("2026-05-01T12:30:00Z"));
    assert_eq!(table(l).len(), 2);
    assert_eq!(
        (l.root_causes.clone(), l.lessons.clone()),
        (limitation.root_causes, limitation.lessons)
    );
    assert_eq!(
        (s.hypothesis.as_deref(), s.to_hypothesis.as_deref()),
        (Some("h-m1"), Some("h-m1-v2"))
    );
    assert_eq!(s.final_status.as_deref(), Some("SUPERSEDED"));
    assert_eq!(s.lessons, superseded.lessons);
}

/// A run folder holding every kind of top-level entry the archive rule distinguishes.
fn populated_run(run: &Path) {
    let files = [
        "00_brainstorm_session.md",
        "01_targeted_research.md",
        "01_round_table/round_1.md",
        "discussion_log.md",
        "02_synthesis.yaml",
        "02b_verification_plan.md",
        "045_validated_hypothesis.md",
        "h-e1/02c_experiment_brief.md",
        "h-e1/code/train.py",
        "paper/main.tex",
        "verification_state.yaml",
        "youra.toml",
        "events.jsonl",
        "ledger.tsv",
        "youra.log",
        "transcripts/0001.json",
        "memory/failure_h-e1_run1.md",
        "plan/tree.json",
        ".youra/vsa.lock",
        "replay/x.json",
        "data/penguins.csv",
        "prompts/p.md",
        "notes.txt",
    ];
    for f in files {
        let path = run.join(f);
        fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        fs::write(&path, f).expect("write");
    }
}

fn top_level(run: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(run)
        .expect("read run")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

const KEPT_ALWAYS: [&str; 14] = [
    ".youra",
    "_archive",
    "data",
    "events.jsonl",
    "ledger.tsv",
    "memory",
    "notes.txt",
    "plan",
    "prompts",
    "replay",
    "transcripts",
    "verification_state.yaml",
    "youra.log",
    "youra.toml",
];

#[test]
fn reset_moves_every_stage_artifact_and_the_reader_reads_the_marker() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let run = tmp.path();
    populated_run(run);
    let now = Utc
        .with_ymd_and_hms(2026, 3, 17, 3, 55, 2)
        .single()
        .expect("date");
    let report = archive(
        run,
        ArchiveKind::Reset,
        "h-e1 (Design-Pivot)",
        "evidence contradicts the framing",
        now,
    )
    .expect("archive");
    assert_eq!(
        report.dir,
        run.join("_archive/20260317T035502_routing_recovery")
    );
    assert_eq!(
        report.moved,
        [
            "00_brainstorm_session.md",
            "01_round_table",
            "01_targeted_research.md",
            "02_synthesis.yaml",
            "02b_verification_plan.md",
            "045_validated_hypothesis.md",
            "discussion_log.md",
            "h-e1",
            "paper",
        ]
    );
    assert_eq!(report.files_moved, 10);
    assert_eq!(top_level(run), KEPT_ALWAYS);
    assert_eq!(
        fs::read_to_string(report.dir.join("h-e1/code/train.py")).expect("moved"),
        "h-e1/code/train.py"
    );
    let markers = load_archives(run);
    assert_eq!(markers.len(), 1);
    let m = &markers[0];
    assert!(m.has_marker);
    assert_eq!(m.archived_at.as_deref(), Some("20260317T035502"));
    assert_eq!(m.label, "routing_recovery");
    assert_eq!(m.route_target.as_deref(), Some("Phase 0"));
    assert_eq!(m.trigger.as_deref(), Some("h-e1 (Design-Pivot)"));
    assert_eq!(
        m.reason.as_deref(),
        Some("evidence contradicts the framing")
    );
    assert_eq!(m.files_moved, Some(10));
}

#[test]
fn redesign_keeps_scoping_and_grounding_and_a_second_archive_gets_its_own_folder() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let run = tmp.path();
    populated_run(run);
    let now = Utc
        .with_ymd_and_hms(2026, 3, 17, 7, 16, 3)
        .single()
        .expect("date");
    let report = archive(
        run,
        ArchiveKind::Redesign,
        "h-e1 (Pivot)",
        "mechanism revision",
        now,
    )
    .expect("archive");
    assert!(
        !report
            .moved
            .iter()
            .any(|n| n.starts_with("00_") || n == "01_targeted_research.md")
    );
    assert!(report.moved.iter().any(|n| n == "01_round_table"));
    let mut kept: Vec<&str> = KEPT_ALWAYS.to_vec();
    kept.extend(["00_brainstorm_session.md", "01_targeted_research.md"]);
    kept.sort();
    assert_eq!(top_level(run), kept);
    // The same second again: nothing left to move but the grounding is still kept.
    let second =
        archive(run, ArchiveKind::Redesign, "h-e1-v2 (Pivot)", "again", now).expect("archive");
    assert!(second.moved.is_empty() && second.files_moved == 0);
    assert!(second.dir.ends_with("20260317T071603_routing_recovery_2"));
    let markers = load_archives(run);
    let got: Vec<_> = markers
        .iter()
        .map(|m| (m.route_target.as_deref(), m.files_moved))
        .collect();
    assert_eq!(
        got,
        [
            (Some("Phase 2A"), Some(report.files_moved)),
            (Some("Phase 2A"), Some(0))
        ]
    );
}
