//! Compatibility with real YouRA run state: Reflective Memory records and archive markers
//! from a third-party run, read in place from `../shared/fixtures/youra` (never copied here).
//! Skipped, with a note, when that folder is absent.

use std::path::{Path, PathBuf};
use youra::rundir::archive::load_archives;
use youra::rundir::memory::{MemoryKind, MemoryRecord, load_dir, parse_record};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/fixtures/youra");
const RUN: &str = "results/generations/youra/sonnet45/iclr2025_data_problems";

fn fixtures() -> Option<PathBuf> {
    let root = PathBuf::from(FIXTURES);
    if root.is_dir() {
        return Some(root);
    }
    eprintln!("memory_compat: skipped, {FIXTURES} is absent");
    None
}

fn by_id<'a>(records: &'a [MemoryRecord], id: &str) -> &'a MemoryRecord {
    match records.iter().find(|r| r.id == id) {
        Some(r) => r,
        None => panic!("no record {id}"),
    }
}

fn s(value: &Option<String>) -> Option<&str> {
    value.as_deref()
}

fn load_memories(root: &Path) -> Vec<MemoryRecord> {
    let (records, warnings) = load_dir(&root.join(RUN).join(".serena/memories"));
    assert!(warnings.is_empty(), "{warnings:?}");
    records
}

#[test]
fn every_memory_record_is_read_with_its_kind() {
    let Some(root) = fixtures() else { return };
    let records = load_memories(&root);
    let ids: Vec<_> = records.iter().map(|r| (r.id.as_str(), r.kind)).collect();
    use MemoryKind::*;
    assert_eq!(
        ids,
        [
            ("failure_h-e1_run1", Failure),
            ("failure_h-e1_run2", Failure),
            ("failure_h-e1_run3", Failure),
            ("failure_h-m1_run1", Failure),
            ("failures/h-m1_must_work_fail", Failure),
            ("limitation_h-e1_20260317", Limitation),
            ("phase4/h-e1_completion_snapshot_20260317T110000", Snapshot),
            ("phase4/h-e1_snapshot_20260317", Snapshot),
            ("pivot/h-e1_to_h-e1-v2_scope_refinement", Pivot),
            ("snapshot/h-e1-v2_phase4_completed_20260317", Snapshot),
            ("snapshot/h-m1_phase4_failed_20260510T123000", Snapshot),
            ("snapshot_h-e1_20260317", Snapshot),
            ("snapshot_h-e1_20260511_031944", Snapshot),
        ]
    );
    for r in &records {
        assert!(
            r.title.is_some() && r.hypothesis.is_some() && r.date.is_some(),
            "{}",
            r.id
        );
        assert!(!r.body.is_empty() && !r.body.contains('\r'), "{}", r.id);
    }
}

#[test]
fn failure_records() {
    let Some(root) = fixtures() else { return };
    let records = load_memories(&root);
    let r = by_id(&records, "failure_h-e1_run1");
    assert_eq!((s(&r.hypothesis), r.run), (Some("h-e1"), Some(1)));
    assert_eq!(s(&r.date), Some("2026-03-17T04:00:00Z"));
    assert_eq!(s(&r.final_status), Some("FAIL"));
    assert_eq!(s(&r.failure_type), Some("MUST_WORK_FAIL"));
    assert_eq!(s(&r.routing_decision), Some("ROUTED_TO_PHASE_0"));
    assert_eq!(r.root_causes.len(), 4);
    assert!(r.root_causes[0].starts_with("**Regime simulation insufficient**"));
    assert_eq!(r.lessons.len(), 5);
    let table = r.results_table.clone().unwrap_or_default();
    assert_eq!(table.header, ["Check", "Actual", "Threshold", "Passed"]);
    assert_eq!(table.rows.len(), 4);
    assert_eq!(
        table.rows[0],
        ["ANOVA interaction p-value", "0.8844", "< 0.01", "❌"]
    );

    let r = by_id(&records, "failure_h-e1_run2");
    assert_eq!(
        (r.run, s(&r.routing_decision)),
        (Some(2), Some("ROUTED_TO_PHASE_0"))
    );
    assert!(s(&r.failure_type).is_some_and(|t| t.starts_with("IMPLEMENTATION_BUG")));
    assert_eq!((r.root_causes.len(), r.lessons.len()), (12, 6));
    assert!(r.lessons[0].starts_with("DateTime Handling in Python APIs — **Lesson:**"));

    let r = by_id(&records, "failure_h-e1_run3");
    assert_eq!((r.run, s(&r.gate_type)), (Some(3), Some("MUST_WORK")));
    assert_eq!(s(&r.routing_decision), Some("ROUTED_TO_PHASE_0"));
    assert_eq!((r.root_causes.len(), r.lessons.len()), (5, 5));

    let r = by_id(&records, "failure_h-m1_run1");
    assert_eq!(
        (s(&r.hypothesis), r.run, s(&r.routing_decision)),
        (Some("h-m1"), Some(1), None)
    );
    assert_eq!(r.results_table.as_ref().map(|t| t.rows.len()), Some(3));

    let r = by_id(&records, "failures/h-m1_must_work_fail");
    assert_eq!(
        (s(&r.hypothesis), s(&r.final_status)),
        (Some("h-m1"), Some("FAIL"))
    );
    assert_eq!(
        (s(&r.date), s(&r.gate_type)),
        (Some("2026-05-10T12:21:30Z"), Some("MUST_WORK"))
    );
    assert_eq!(r.field("Phase"), Some("Phase 4"));
    assert!(s(&r.routing_decision).is_some_and(|d| d.contains("Phase 0")));
    assert_eq!((r.root_causes.len(), r.lessons.len()), (3, 4));
}

#[test]
fn pivot_limitation_and_snapshots() {
    let Some(root) = fixtures() else { return };
    let records = load_memories(&root);
    let r = by_id(&records, "pivot/h-e1_to_h-e1-v2_scope_refinement");
    assert_eq!(
        (s(&r.hypothesis), s(&r.to_hypothesis)),
        (Some("h-e1"), Some("h-e1-v2"))
    );
    assert_eq!(r.field("Modification Type"), Some("SCOPE_REFINEMENT"));
    assert_eq!(s(&r.final_status), Some("PARTIAL"));

    let r = by_id(&records, "limitation_h-e1_20260317");
    assert_eq!(
        r.front_matter
            .first()
            .map(|(k, v)| (k.as_str(), v.as_str())),
        Some(("name", "limitation_h-e1_20260317"))
    );
    assert_eq!(r.front_matter.len(), 3);
    assert_eq!(
        (s(&r.hypothesis), s(&r.date)),
        (Some("h-e1"), Some("2026-03-17"))
    );
    assert_eq!(
        (s(&r.final_status), s(&r.routing_decision)),
        (Some("PARTIAL"), Some("LIMITATION_RECORDED"))
    );
    assert_eq!((r.root_causes.len(), r.lessons.len()), (1, 5));

    let r = by_id(&records, "snapshot_h-e1_20260317");
    assert_eq!(
        r.front_matter.first().map(|(_, v)| v.as_str()),
        Some("snapshot_h-e1_20260317")
    );
    assert_eq!(s(&r.routing_decision), Some("LIMITATION_RECORDED"));

    let r = by_id(&records, "snapshot_h-e1_20260511_031944");
    assert_eq!(
        (s(&r.final_status), s(&r.routing_decision)),
        (Some("FAILED"), Some("ROUTED_TO_PHASE_0"))
    );
    assert_eq!((r.root_causes.len(), r.lessons.len()), (3, 4));

    let r = by_id(&records, "phase4/h-e1_completion_snapshot_20260317T110000");
    assert_eq!(s(&r.routing_decision), Some("SELF_MODIFY → h-e1-v2"));
    let r = by_id(&records, "snapshot/h-e1-v2_phase4_completed_20260317");
    assert_eq!(
        (s(&r.hypothesis), s(&r.final_status)),
        (Some("h-e1-v2"), Some("COMPLETED"))
    );
    let r = by_id(&records, "snapshot/h-m1_phase4_failed_20260510T123000");
    assert_eq!(
        (s(&r.hypothesis), s(&r.routing_decision)),
        (Some("h-m1"), Some("ROUTED_TO_PHASE_0"))
    );
}

#[test]
fn archive_markers() {
    let Some(root) = fixtures() else { return };
    let markers = load_archives(
        &root
            .join(RUN)
            .join("docs/youra_research/2026_data_problems"),
    );
    let got: Vec<_> = markers
        .iter()
        .map(|m| {
            (
                m.label.as_str(),
                s(&m.route_target),
                s(&m.trigger),
                m.files_moved,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("reflection_recovery", Some("Phase 0"), None, Some(0)),
            (
                "routing_recovery",
                Some("Phase 0"),
                Some("h-e1 (ROUTED_TO_PHASE_0)"),
                Some(17)
            ),
            (
                "routing_recovery",
                Some("Phase 0"),
                Some("h-e1 (LIMITATION_RECORDED)"),
                Some(16)
            ),
        ]
    );
    assert_eq!(markers[0].dir_name, "20260317T000000_reflection_recovery");
    assert_eq!(
        s(&markers[0].archived_at),
        Some("20260317T000000 (Reflection Recovery)")
    );
    assert!(s(&markers[0].reason).is_some_and(|r| r.starts_with("ROUTE_TO_0")));
    assert!(markers[0].failure_context.is_some() && markers[0].recovery.is_some());
    assert_eq!(s(&markers[1].archived_at), Some("20260317T035502"));
    assert_eq!(
        s(&markers[2].reason),
        Some("Deterministic archive before routing restart")
    );
}

#[test]
fn crlf_templates_parse() {
    let Some(root) = fixtures() else { return };
    let dir = "bmad-custom-src/custom/modules/youra-research/workflows/phase4-coding/templates";
    let read =
        |p: PathBuf| std::fs::read(&p).map(|b| (String::from_utf8_lossy(&b).into_owned(), p));
    let Ok((text, path)) = read(
        root.join("YOURA_no_VSA")
            .join(dir)
            .join("failure_record_template.md"),
    ) else {
        panic!("failure template missing");
    };
    assert!(text.contains("\r\n"));
    let r = parse_record("failures/template", &path, &text);
    assert_eq!((r.kind, s(&r.hypothesis)), (MemoryKind::Failure, None));
    assert_eq!(s(&r.title), Some("Failure Record: {{hypothesis_id}}"));
    assert_eq!(
        (s(&r.final_status), s(&r.routing_decision)),
        (Some("FAILED"), Some("{{route_destination}}"))
    );
    assert_eq!(r.root_causes, ["**Root Cause:** {{root_cause_summary}}"]);
    assert_eq!(r.lessons, ["{{lessons_learned_list}}"]);
    let Ok((text, path)) = read(
        root.join("YOURA_no_VSA_no_IC")
            .join(dir)
            .join("pivot_record_template.md"),
    ) else {
        panic!("pivot template missing");
    };
    let r = parse_record("pivot/template", &path, &text);
    assert_eq!(
        (r.kind, s(&r.hypothesis), s(&r.to_hypothesis)),
        (MemoryKind::Pivot, None, None)
    );
    assert_eq!(r.field("Modification Type"), Some("{{modification_type}}"));
    assert_eq!(r.sections.len(), 5);
}
