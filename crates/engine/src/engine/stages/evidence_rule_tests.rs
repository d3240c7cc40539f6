//! Table tests of Evidence Check's rule: which verdicts the gates allow, and the binding of
//! the model's claims to them (refused outside, every problem named).

use super::rule::{Basis, Outcome, Prediction, Verdict, allowed, bind};
use super::*;

fn b(id: &str, must_work: bool, outcome: Outcome) -> Basis {
    Basis {
        id: id.into(),
        must_work,
        outcome,
        measured: vec!["accuracy = 0.9356".into()],
    }
}

#[test]
fn the_gates_decide_which_verdicts_are_allowed() {
    use Outcome::*;
    use Verdict::*;
    // (what the prediction rests on, the verdicts the evidence allows)
    let table: Vec<(Vec<Basis>, Vec<Verdict>)> = vec![
        (vec![], vec![Inconclusive]),
        (vec![b("h-e1", true, NotMeasured)], vec![Inconclusive]),
        (
            vec![b("h-e1", true, Passed)],
            vec![Supported, PartiallySupported],
        ),
        (
            vec![b("h-e1", true, Passed), b("h-c1", false, Passed)],
            vec![Supported, PartiallySupported],
        ),
        (
            vec![b("h-e1", true, Passed), b("h-c1", false, PartlyPassed)],
            vec![PartiallySupported],
        ),
        (
            vec![b("h-e1", true, Passed), b("h-m1", true, NotMeasured)],
            vec![PartiallySupported, Inconclusive],
        ),
        (vec![b("h-m1", true, Failed)], vec![Refuted, Inconclusive]),
        (
            vec![b("h-e1", true, Passed), b("h-m1", true, Failed)],
            vec![Refuted, Inconclusive],
        ),
        (
            vec![b("h-e1", true, Passed), b("h-c1", false, Failed)],
            vec![PartiallySupported, Refuted, Inconclusive],
        ),
        (vec![b("h-c1", false, Failed)], vec![Refuted, Inconclusive]),
        (
            vec![b("h-c1", false, Failed), b("h-m1", true, NotMeasured)],
            vec![Refuted, Inconclusive],
        ),
    ];
    for (rests_on, want) in table {
        assert_eq!(allowed(&rests_on), want, "{rests_on:?}");
    }
}

#[test]
fn outcomes_are_read_off_the_status_and_the_gate() {
    use GateResult as G;
    // (status, gate result, outcome)
    let table = [
        (S::Validated, Some(G::Pass), Outcome::Passed),
        (S::Partial, Some(G::Partial), Outcome::PartlyPassed),
        (S::Failed, Some(G::Fail), Outcome::Failed),
        (S::Blocked, Some(G::Fail), Outcome::NotMeasured),
        (S::Failed, None, Outcome::NotMeasured),
        (S::Skipped, Some(G::Skipped), Outcome::NotMeasured),
        (S::Superseded, Some(G::Pass), Outcome::NotMeasured),
    ];
    for (status, result, want) in table {
        assert_eq!(Outcome::of(&status, result.as_ref()), want, "{status:?}");
    }
    assert_eq!(verdict(&S::Validated, Some(&G::Pass)), "supported");
    assert_eq!(verdict(&S::Failed, Some(&G::Fail)), "refuted");
}

#[test]
fn verdict_words_parse_and_nothing_else_does() {
    let table = [
        ("supported", Some(Verdict::Supported)),
        ("Partially supported", Some(Verdict::PartiallySupported)),
        ("partial", Some(Verdict::PartiallySupported)),
        ("REFUTED", Some(Verdict::Refuted)),
        ("inconclusive", Some(Verdict::Inconclusive)),
        ("mostly true", None),
        ("", None),
    ];
    for (word, want) in table {
        assert_eq!(Verdict::parse(word), want, "{word}");
    }
}

fn p(id: &str, rests_on: Vec<Basis>) -> Prediction {
    Prediction {
        id: id.into(),
        statement: format!("statement of {id}"),
        rests_on,
    }
}

type Claim = (String, String, String);

fn claim(id: &str, verdict: &str) -> Claim {
    (id.into(), verdict.into(), "because".into())
}

#[test]
fn a_verdict_the_evidence_does_not_allow_is_refused() {
    let preds = vec![
        p("P1", vec![b("h-e1", true, Outcome::Passed)]),
        p("P2", vec![b("h-m1", true, Outcome::Failed)]),
        p("P3", vec![]),
    ];
    let ok = bind(
        &preds,
        &[
            claim("P1", "supported"),
            claim("p2", "refuted"),
            claim("P3", "inconclusive"),
        ],
    )
    .unwrap();
    let verdicts: Vec<Verdict> = ok.iter().map(|j| j.verdict).collect();
    assert_eq!(
        verdicts,
        [Verdict::Supported, Verdict::Refuted, Verdict::Inconclusive]
    );
    // (claims, what the refusal must name)
    let table: [(Vec<Claim>, &str); 5] = [
        (
            vec![
                claim("P1", "supported"),
                claim("P2", "supported"),
                claim("P3", "inconclusive"),
            ],
            "P2: supported is not what the evidence allows (refuted or inconclusive); rests on h-m1 (MUST_WORK FAIL: accuracy = 0.9356)",
        ),
        (
            vec![
                claim("P1", "inconclusive"),
                claim("P2", "refuted"),
                claim("P3", "inconclusive"),
            ],
            "P1: inconclusive is not what the evidence allows (supported or partially_supported)",
        ),
        (
            vec![
                claim("P1", "supported"),
                claim("P2", "refuted"),
                claim("P3", "supported"),
            ],
            "P3: supported is not what the evidence allows (inconclusive); rests on no sub-hypothesis",
        ),
        (
            vec![claim("P1", "supported"), claim("P2", "refuted")],
            "P3 has no verdict",
        ),
        (
            vec![
                claim("P1", "supported"),
                claim("P2", "refuted"),
                claim("P3", "inconclusive"),
                claim("P9", "supported"),
            ],
            "P9 is not a prediction of the main hypothesis (they are P1, P2, P3)",
        ),
    ];
    for (claims, want) in table {
        let e = bind(&preds, &claims).unwrap_err().join("\n");
        assert!(e.contains(want), "{want}\n--\n{e}");
    }
}

#[test]
fn the_discussion_reads_the_prediction_table_back() {
    let preds = vec![p("P1", vec![b("h-e1", true, Outcome::Passed)])];
    let judged = bind(&preds, &[claim("P1", "supported")]).unwrap();
    let doc = format!(
        "# E\n\n## {PREDICTIONS_SECTION}\n\n{}\n\n## Mechanism Claims\n\nx\n",
        predictions_markdown(&judged)
    );
    assert_eq!(
        discussion_points(&doc),
        vec![
            "- **P1** (statement of P1): supported; rests on h-e1 (MUST_WORK PASS: accuracy = 0.9356). because"
        ]
    );
    assert!(discussion_points("# no table").is_empty());
}
