//! `youra bench audit` on issue 44's public corpus (tests/fixtures/audit/public: 56 outputs
//! of five agent systems, labelled by reading before any audit). The figures measured when
//! the corpus was built are floors here, so a rule change that loses ground fails; the
//! issue's targets (precision and recall ≥ 0.8 for "not real", every fabricated output
//! caught) are not met yet and are asserted by an ignored test (docs/decisions/0039).

use std::path::Path;

use youra::audit::bench;
use youra::audit::verdict::Verdict;

fn scores() -> bench::Scores {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/audit/public");
    bench::score(&corpus).expect("the public corpus scores")
}

#[test]
fn the_public_corpus_is_large_and_varied_enough_and_keeps_its_measured_scores() {
    let s = scores();
    assert!(s.rows.len() >= 40, "{} outputs", s.rows.len());
    let count = |v: Verdict| s.rows.iter().filter(|r| r.label == v).count();
    assert!(count(Verdict::Real) >= 10 && count(Verdict::Synthetic) >= 10);
    assert!(count(Verdict::Fabricated) >= 5);
    // Every cited file:line is a line of the output.
    assert!(s.cited > 100, "{} cited", s.cited);
    assert_eq!(s.cited_exist, s.cited);
    // Measured 2026-12-05: not real P 0.95 R 0.53; fabricated P 0.43 R 0.43; 20 of 22
    // real outputs audited Real.
    assert!(s.not_real_precision >= 0.9, "{s:?}");
    assert!(s.not_real_recall >= 0.5, "{s:?}");
    assert!(s.fabricated_recall >= 0.4, "{s:?}");
    assert!(s.matrix[0][0] >= 20, "{:?}", s.matrix);
    // No real output is called fabricated more than once (the weights table, below).
    assert!(s.matrix[0][2] <= 1, "{:?}", s.matrix);
}

#[test]
#[ignore = "issue 44's targets are not met yet: see docs/decisions/0039-audit-corpus.md"]
fn the_issue_targets_are_met_on_the_public_corpus() {
    let s = scores();
    assert!(s.not_real_precision >= 0.8, "{s:?}");
    assert!(s.not_real_recall >= 0.8, "{s:?}");
    assert_eq!(s.fabricated_recall, 1.0, "{s:?}");
}
