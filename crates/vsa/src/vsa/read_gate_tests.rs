//! `gate.evidence` and `gate.undecided` as the engine writes them and as an outside writer
//! might leave them: every number that is not a finite number reads as `None`, nothing panics.

use crate::vocab::Op;
use crate::vsa::enums::GateResult;
use crate::vsa::model::{ArmInterval, Gate, GateCriterion};

fn gate_of(gate_yaml: &str) -> Gate {
    let text = format!("sub_hypotheses:\n  h-e1:\n    status: IN_PROGRESS\n    gate:\n{gate_yaml}");
    let doc = crate::yaml::parse(text.as_bytes()).expect("yaml");
    let (vsa, _) = super::super::read::read(&doc);
    vsa.hypothesis("h-e1").expect("h-e1").gate.clone()
}

/// The engine's own shape (`engine::stages::gate_evidence` doc), a gain included.
const WRITTEN: &str = "      type: MUST_WORK
      result: INCONCLUSIVE
      satisfied: false
      evidence:
      - metric: accuracy
        op: '>='
        threshold: 0.92
        verdict: INCONCLUSIVE
        n: 25
        repeats: 5
        mean: 0.934
        sd: 0.0271
        lo: 0.9038
        hi: 0.9641
        confidence: 0.95
        method: corrected t
        card: 0.934 ± 0.030, n 25 (5 seeds), 95% CI 0.904–0.964 vs ≥ 0.92
        why: 'INCONCLUSIVE: the 95% interval 0.9038–0.9641 holds the threshold of ≥ 0.92'
      - metric: accuracy
        baseline: accuracy_lda
        op: '>='
        threshold: 0.0
        verdict: PASS
        n: 5
        repeats: 5
        mean: 0.021
        sd: 0.004
        lo: 0.016
        hi: 0.026
        confidence: 0.95
        method: t
        card: 0.021 ± 0.005, n 5, 95% CI 0.016–0.026 vs ≥ 0
        why: 'PASS: lower bound clears'
        arm_mean: 0.934
        arm_lo: 0.90
        arm_hi: 0.96
        baseline_mean: 0.913
        baseline_lo: 0.89
        baseline_hi: 0.93
      undecided:
      - criterion: accuracy
        required: '>= 0.92'
        actual: 0.934 ± 0.030, n 25 (5 seeds), 95% CI 0.904–0.964 vs ≥ 0.92
        reason: the interval holds the threshold
";

#[test]
fn the_engines_evidence_reads_into_typed_fields() {
    let g = gate_of(WRITTEN);
    assert_eq!(g.result, Some(GateResult::Inconclusive));
    assert_eq!(g.evidence.len(), 2);
    let e = &g.evidence[0];
    assert_eq!(e.metric.as_deref(), Some("accuracy"));
    assert_eq!(e.baseline, None);
    assert_eq!(e.op, Some(Op::Ge));
    assert_eq!(e.threshold, Some(0.92));
    assert_eq!(e.verdict, Some(GateResult::Inconclusive));
    assert_eq!((e.n, e.repeats), (Some(25), Some(5)));
    assert_eq!(
        (e.mean, e.lo, e.hi),
        (Some(0.934), Some(0.9038), Some(0.9641))
    );
    assert_eq!(e.sd, Some(0.0271));
    assert_eq!(e.confidence, Some(0.95));
    assert_eq!(e.method.as_deref(), Some("corrected t"));
    assert_eq!(
        e.card_line(),
        "0.934 ± 0.030, n 25 (5 seeds), 95% CI 0.904–0.964 vs ≥ 0.92"
    );
    assert!(e.why.as_deref().unwrap().starts_with("INCONCLUSIVE"));
    assert_eq!((e.arm, e.baseline_arm), (None, None));
    let gain = &g.evidence[1];
    assert_eq!(gain.quantity(), "accuracy - accuracy_lda");
    assert_eq!(gain.verdict, Some(GateResult::Pass));
    assert_eq!(
        gain.arm,
        Some(ArmInterval {
            mean: 0.934,
            lo: 0.90,
            hi: 0.96
        })
    );
    assert_eq!(gain.baseline_arm.map(|a| a.mean), Some(0.913));
    assert_eq!(g.undecided.len(), 1);
    assert_eq!(g.undecided[0].criterion.as_deref(), Some("accuracy"));
    assert_eq!(
        g.undecided[0].reason.as_deref(),
        Some("the interval holds the threshold")
    );
}

#[test]
fn garbled_fields_read_as_none_and_never_panic() {
    // (field as written, what `mean` reads as)
    let means: &[(&str, Option<f64>)] = &[
        ("0.93", Some(0.93)),
        ("'0.93'", Some(0.93)),
        ("high", None),
        (".nan", None),
        ("NaN", None),
        ("inf", None),
        ("-1e400", None),
        ("[0.9, 0.95]", None),
        ("{a: 1}", None),
        ("null", None),
        ("~", None),
        ("''", None),
    ];
    for (written, want) in means {
        let g = gate_of(&format!(
            "      result: PASS\n      evidence:\n      - {{metric: acc, mean: {written}}}\n"
        ));
        assert_eq!(g.evidence.len(), 1, "{written}");
        assert_eq!(g.evidence[0].mean, *want, "mean: {written}");
    }
    // (field as written, what `n` reads as)
    let counts: &[(&str, Option<u64>)] = &[
        ("5", Some(5)),
        ("5.0", Some(5)),
        ("-5", None),
        ("5.5", None),
        ("five", None),
        ("1e300", None),
        ("99999999999999999999999", None),
    ];
    for (written, want) in counts {
        let g = gate_of(&format!(
            "      result: PASS\n      evidence:\n      - {{metric: acc, n: {written}}}\n"
        ));
        assert_eq!(g.evidence[0].n, *want, "n: {written}");
    }
    // A confidence outside (0, 1), an unknown verdict word, an op that is not one.
    let g = gate_of(
        "      result: PASS\n      evidence:\n      - {metric: acc, confidence: 95, verdict: MAYBE, op: '=>>'}\n",
    );
    let e = &g.evidence[0];
    assert_eq!((e.confidence, e.verdict.clone(), e.op), (None, None, None));
    // Items that are not maps, and evidence that is not a list, are skipped.
    assert_eq!(
        gate_of("      result: PASS\n      evidence:\n      - just text\n      - [1, 2]\n      - {metric: acc}\n")
            .evidence
            .len(),
        1
    );
    for shape in [
        "evidence: 0.93",
        "evidence: {metric: acc}",
        "evidence: null",
    ] {
        let g = gate_of(&format!("      result: PASS\n      {shape}\n"));
        assert!(g.evidence.is_empty(), "{shape}");
    }
    // An arm needs all three numbers.
    let g = gate_of(
        "      result: PASS\n      evidence:\n      - {metric: acc, arm_mean: 0.9, arm_lo: x, arm_hi: 0.95}\n",
    );
    assert_eq!(g.evidence[0].arm, None);
}

#[test]
fn a_missing_card_is_rebuilt_from_the_numbers_as_the_engine_writes_it() {
    // (fields, card line)
    let table: &[(&str, &str)] = &[
        (
            "metric: accuracy, op: '>=', threshold: 0.92, n: 5, repeats: 5, mean: 0.9356, lo: 0.928, hi: 0.944, confidence: 0.95, method: t",
            "0.936 ± 0.008, n 5, 95% CI 0.928–0.944 vs ≥ 0.92",
        ),
        (
            "metric: accuracy, op: '>=', threshold: 0.921, n: 10, repeats: 10, mean: 0.9351, lo: 0.92351, hi: 0.9467, confidence: 0.983333, method: t",
            "0.935 ± 0.012, n 10, 98.3% CI 0.924–0.947 vs ≥ 0.921",
        ),
        (
            "metric: accuracy, op: '>=', threshold: 0.92, n: 25, repeats: 5, mean: 0.934, lo: 0.9038, hi: 0.9641, confidence: 0.95, method: corrected t",
            "0.934 ± 0.030, n 25 (5 seeds), 95% CI 0.904–0.964 vs ≥ 0.92",
        ),
        (
            "metric: error, op: '<=', threshold: 0.08, n: 1, repeats: 1, mean: 0.07, lo: 0.07, hi: 0.07, confidence: 0.95, method: single",
            "0.070, n 1 (no interval) vs ≤ 0.08",
        ),
        (
            "metric: error, op: '<', threshold: 0.1, n: 5, mean: 0.07",
            "0.070, n 5, no interval recorded vs < 0.1",
        ),
        ("metric: error", "no mean recorded"),
        (
            "metric: error, card: '   ', mean: 0.5, op: '>', threshold: 1",
            "0.500, n ?, no interval recorded vs > 1",
        ),
    ];
    for (fields, want) in table {
        let g = gate_of(&format!(
            "      result: PASS\n      evidence:\n      - {{{fields}}}\n"
        ));
        assert_eq!(g.evidence[0].card_line(), *want, "{fields}");
    }
}

#[test]
fn each_criterion_finds_its_own_evidence() {
    let g = gate_of(
        "      result: PARTIAL
      criteria:
      - {metric: accuracy, op: '>=', value: 0.9}
      - {metric: accuracy, op: '<=', value: 0.99}
      - {metric: accuracy, baseline: accuracy_lda, op: '>=', value: 0.0}
      evidence:
      - {metric: accuracy, op: '<=', threshold: 0.99, verdict: PASS}
      - {metric: accuracy, op: '>=', threshold: 0.9, verdict: FAIL}
      - {metric: accuracy, baseline: accuracy_lda, op: '>=', threshold: 0, verdict: INCONCLUSIVE}
      - {metric: loss, op: '<', threshold: 1, verdict: PASS}
",
    );
    let rule = |metric: &str, baseline: Option<&str>, op: Op, value: f64| GateCriterion {
        index: 0,
        metric: metric.into(),
        op,
        value,
        baseline: baseline.map(str::to_string),
    };
    let verdict = |r: GateCriterion| g.evidence_for(&r).and_then(|e| e.verdict.clone());
    assert_eq!(
        verdict(rule("accuracy", None, Op::Ge, 0.9)),
        Some(GateResult::Fail)
    );
    assert_eq!(
        verdict(rule("accuracy", None, Op::Le, 0.99)),
        Some(GateResult::Pass)
    );
    assert_eq!(
        verdict(rule("accuracy", Some("accuracy_lda"), Op::Ge, 0.0)),
        Some(GateResult::Inconclusive)
    );
    assert_eq!(verdict(rule("accuracy", None, Op::Ge, 0.95)), None);
    let rest: Vec<_> = g
        .unmatched_evidence()
        .map(|e| e.metric.clone().unwrap())
        .collect();
    assert_eq!(rest, ["loss"]);
}

#[test]
fn the_rebuilt_card_is_the_engines_card() {
    use crate::evidence::{Method, Summary};
    // (n, repeats, mean, lo, hi, confidence, method, op, threshold)
    let table = [
        (5, 5, 0.9356, 0.928, 0.944, 0.95, Method::T, Op::Ge, 0.92),
        (
            10,
            10,
            0.93512,
            0.92351,
            0.94673,
            0.983_333,
            Method::T,
            Op::Ge,
            0.921,
        ),
        (
            25,
            5,
            0.934,
            0.9038,
            0.9641,
            0.95,
            Method::CorrectedT,
            Op::Ge,
            0.92,
        ),
        (
            5,
            5,
            0.021,
            0.016,
            0.026,
            0.95,
            Method::Bootstrap,
            Op::Gt,
            0.0,
        ),
        (1, 1, 0.07, 0.07, 0.07, 0.95, Method::Single, Op::Le, 0.08),
        (8, 8, -0.31, -0.52, -0.1, 0.9, Method::T, Op::Le, -0.8),
    ];
    for (n, repeats, mean, lo, hi, confidence, method, op, th) in table {
        let s = Summary {
            n,
            repeats,
            mean,
            sd: 0.01,
            lo,
            hi,
            confidence,
            method,
        };
        let e = crate::vsa::model::GateEvidence {
            op: Some(op),
            threshold: Some(th),
            n: Some(n as u64),
            repeats: Some(repeats as u64),
            mean: Some(mean),
            lo: Some(lo),
            hi: Some(hi),
            confidence: Some(confidence),
            method: Some(method.as_str().into()),
            ..Default::default()
        };
        assert_eq!(e.card_line(), s.card(op, th), "{method:?} n {n}");
    }
}
