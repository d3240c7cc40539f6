//! youra's own fixtures: each drift shape normalises with a warning; each malformed file is
//! refused with its line and column.

use crate::common;

use common::own_fixture;
use youra::vsa::enums::{GateResult, GateType, HypothesisStatus};
use youra::vsa::{Store, StoreError};

fn load(name: &str) -> Result<std::sync::Arc<youra::vsa::Snapshot>, StoreError> {
    Store::new(own_fixture(&format!("vsa/{name}"))).load()
}

#[test]
fn drifted_shapes_normalise_and_are_reported() {
    let snap = load("drift_list.yaml").expect("reads");
    let vsa = &snap.vsa;
    let w = |needle: &str| {
        snap.warnings
            .iter()
            .find(|w| w.message.contains(needle))
            .map(|w| w.line)
    };
    let ids: Vec<&str> = vsa.sub_hypotheses.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(ids, ["h-e1", "h-m1", "h-m2", "h-c1"]);
    assert_eq!(w("`hypotheses:` list"), Some(5));
    assert_eq!(w("has no `id`"), Some(33));
    assert_eq!(w("no `workflow` block"), Some(1));

    let e1 = vsa.hypothesis("h-e1").unwrap();
    assert_eq!(e1.status, HypothesisStatus::Validated);
    assert_eq!(e1.gate.gate_type, Some(GateType::MustWork));
    assert_eq!(w("status `PASS` read as VALIDATED"), Some(8));
    assert_eq!(w("gate written as the string `MUST_PASS`"), Some(9));

    let m1 = vsa.hypothesis("h-m1").unwrap();
    assert_eq!(m1.status, HypothesisStatus::NotStarted);
    assert_eq!(m1.prerequisites, ["h-e1"]);
    assert_eq!(
        m1.gate.criteria,
        [
            ("accuracy".to_string(), ">= 0.9".to_string()),
            ("loss".to_string(), "< 0.1".to_string())
        ]
    );
    assert_eq!(w("h-m1: `dependencies`"), Some(14));
    assert_eq!(w("metric criteria"), Some(16));

    let m2 = vsa.hypothesis("h-m2").unwrap();
    assert_eq!(m2.status, HypothesisStatus::NotStarted);
    assert_eq!(m2.prerequisites, ["h-m1"]);
    assert_eq!(m2.gate.gate_type, Some(GateType::ShouldWork));
    assert_eq!(m2.gate.result, Some(GateResult::Fail));
    assert_eq!(
        w("h-m2: gate result is free text: classified FAIL"),
        Some(26)
    );

    let c1 = vsa.hypothesis("h-c1").unwrap();
    assert_eq!(c1.status, HypothesisStatus::Other("MYSTERY_STATE".into()));
    assert_eq!(c1.gate.gate_type, Some(GateType::DeterminesSuccess));
    assert_eq!(c1.gate.criteria, [("f1".to_string(), ">= 0.7".to_string())]);
    assert!(w("unknown status `MYSTERY_STATE`").is_some());

    assert_eq!(vsa.history.len(), 4);
    let stamps: Vec<bool> = vsa
        .history
        .iter()
        .map(|h| h.timestamp.unwrap().naive)
        .collect();
    assert_eq!(stamps, [true, false, false, true]);
    assert_eq!(
        vsa.history[0].timestamp.unwrap().at,
        chrono::DateTime::parse_from_rfc3339("2026-03-14T23:06:00Z").unwrap()
    );
    assert_eq!(vsa.history[2].details.as_deref(), Some("second"));
    assert_eq!(w("duplicate key `details`"), Some(42));
    assert_eq!(w("2 timestamp(s) without a time zone"), Some(36));
}

fn parse_error(name: &str) -> (usize, usize, String) {
    match load(name) {
        Err(StoreError::Parse { err, path }) => {
            assert!(path.ends_with(name));
            (err.line, err.col, err.message)
        }
        other => panic!("{name}: expected a parse error, got {other:?}"),
    }
}

#[test]
fn malformed_files_name_line_and_column() {
    let (line, col, msg) = parse_error("tabs.yaml");
    assert_eq!((line, col), (4, 1), "{msg}");
    assert!(msg.contains("tabs"), "{msg}");

    let (line, _, msg) = parse_error("bad_indent.yaml");
    assert_eq!(line, 3, "{msg}");

    let (line, _, msg) = parse_error("truncated.yaml");
    assert_eq!(line, 4, "{msg}");
    assert!(msg.contains("quoted"), "{msg}");

    let (line, _, msg) = parse_error("unclosed_flow.yaml");
    assert!(line >= 2, "{msg}");
}

#[test]
fn empty_and_duplicate_key_files_read_with_warnings() {
    let snap = load("empty.yaml").expect("an empty file reads as an empty state");
    assert_eq!(snap.warnings[0].message, "the file is empty");
    let snap = load("duplicate_keys.yaml").expect("reads");
    assert_eq!(
        snap.vsa.workflow.status.as_ref().map(|s| s.as_str()),
        Some("PAUSED")
    );
    assert_eq!(snap.warnings[0].line, 5);
}

#[test]
fn binary_junk_is_refused_with_its_position() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("verification_state.yaml");
    std::fs::write(&p, b"metadata:\n  name: ok\n  blob: \xff\xfe\x00junk\n").unwrap();
    match Store::new(&p).load() {
        Err(StoreError::Parse { err, .. }) => {
            assert_eq!((err.line, err.col), (3, 9));
            assert!(err.message.contains("UTF-8"));
        }
        other => panic!("{other:?}"),
    }
    std::fs::write(&p, b"\x00\x01\x02\x03 binary").unwrap();
    assert!(matches!(
        Store::new(&p).load(),
        Err(StoreError::Parse { .. })
    ));
}

#[test]
fn arbitrary_bytes_never_panic() {
    use proptest::prelude::*;
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 300,
        ..ProptestConfig::default()
    });
    let seed = std::fs::read(own_fixture("vsa/drift_list.yaml")).unwrap();
    runner
        .run(
            &(0..seed.len(), proptest::collection::vec(any::<u8>(), 0..8)),
            |(cut, junk)| {
                let mut bytes = seed[..cut].to_vec();
                bytes.extend(junk);
                if let Ok(doc) = youra::yaml::parse(&bytes) {
                    let _ = youra::vsa::read(&doc);
                }
                Ok(())
            },
        )
        .unwrap();
}
