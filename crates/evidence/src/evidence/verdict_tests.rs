//! The interval rule as a table, then the rule's looks, refusals and a judged sequence.

use super::*;
use crate::evidence::stats::Method;
use crate::evidence::{judge, judge_gain};

fn summary(n: usize, lo: f64, hi: f64) -> Summary {
    Summary {
        n,
        repeats: n,
        mean: (lo + hi) / 2.0,
        sd: 0.01,
        lo,
        hi,
        confidence: 0.95,
        method: Method::T,
    }
}

/// (op, threshold, n, lo, hi, verdict, reason, next)
type Row = (Op, f64, usize, f64, f64, Verdict, Reason, Next);

const DONE: Next = Next::Done;
const fn more(have: usize, want: usize) -> Next {
    Next::MoreRepeats { have, want }
}

#[test]
fn the_interval_rule() {
    use Reason::*;
    use Verdict::*;
    let rule = Rule::default();
    // (op, threshold, n, lo, hi) → (verdict, reason, next)
    #[rustfmt::skip]
    let table: &[Row] = &[
        // >=: the lower bound decides PASS, the upper bound FAIL.
        (Op::Ge, 0.92, 5, 0.928, 0.944, Pass, Clears, DONE),
        (Op::Ge, 0.92, 5, 0.920, 0.944, Pass, Clears, DONE),
        (Op::Ge, 0.92, 5, 0.900, 0.915, Fail, Misses, DONE),
        (Op::Ge, 0.92, 5, 0.900, 0.920, Inconclusive, Straddles, more(5, 10)),
        (Op::Ge, 0.92, 5, 0.910, 0.930, Inconclusive, Straddles, more(5, 10)),
        (Op::Ge, 0.92, 10, 0.910, 0.930, Inconclusive, Straddles, more(10, 15)),
        (Op::Ge, 0.92, 15, 0.910, 0.930, Inconclusive, Straddles, more(15, 20)),
        (Op::Ge, 0.92, 7, 0.910, 0.930, Inconclusive, Straddles, more(7, 10)),
        // At the cap (or past it) the researcher decides; never a pass.
        (Op::Ge, 0.92, 20, 0.910, 0.930, Inconclusive, Straddles, Next::Researcher),
        (Op::Ge, 0.92, 25, 0.910, 0.930, Inconclusive, Straddles, Next::Researcher),
        // >: the bound on the threshold does not clear it.
        (Op::Gt, 0.92, 5, 0.920, 0.944, Inconclusive, Straddles, more(5, 10)),
        (Op::Gt, 0.92, 5, 0.900, 0.920, Fail, Misses, DONE),
        // <= mirrored: the upper bound decides PASS, the lower bound FAIL.
        (Op::Le, 0.08, 5, 0.050, 0.070, Pass, Clears, DONE),
        (Op::Le, 0.08, 5, 0.050, 0.080, Pass, Clears, DONE),
        (Op::Le, 0.08, 5, 0.090, 0.100, Fail, Misses, DONE),
        (Op::Le, 0.08, 5, 0.070, 0.090, Inconclusive, Straddles, more(5, 10)),
        (Op::Lt, 0.08, 5, 0.050, 0.080, Inconclusive, Straddles, more(5, 10)),
        (Op::Lt, 0.08, 5, 0.080, 0.100, Fail, Misses, DONE),
        // ==: an interval shows a difference, never an equality.
        (Op::Eq, 0.5, 5, 0.40, 0.60, Inconclusive, EqualityUnprovable, Next::Researcher),
        (Op::Eq, 0.5, 5, 0.60, 0.70, Fail, Misses, DONE),
        // Fewer than min_repeats: inconclusive whatever the interval says.
        (Op::Ge, 0.92, 3, 0.95, 0.97, Inconclusive, MoreRepeats, more(3, 5)),
        (Op::Ge, 0.92, 2, 0.80, 0.85, Inconclusive, MoreRepeats, more(2, 5)),
        // Gains are decided on their paired interval (the summary of the differences).
        (Op::Ge, 0.02, 5, 0.024, 0.036, Pass, Clears, DONE),
        (Op::Ge, 0.02, 5, -0.010, 0.015, Fail, Misses, DONE),
        (Op::Ge, 0.02, 5, 0.005, 0.061, Inconclusive, Straddles, more(5, 10)),
    ];
    for &(op, threshold, n, lo, hi, verdict, reason, next) in table {
        let got = decide(op, threshold, &summary(n, lo, hi), &rule)
            .unwrap_or_else(|e| panic!("{op} {threshold} n {n}: {e}"));
        assert_eq!(
            got,
            Decision {
                verdict,
                reason,
                next
            },
            "{op} {threshold}, n {n}, [{lo}, {hi}]"
        );
    }
}

#[test]
fn one_measurement_is_refused_where_the_plan_asks_for_repeats() {
    let rule = Rule::default();
    let e = decide(Op::Ge, 0.92, &summary(1, 0.95, 0.95), &rule).unwrap_err();
    assert_eq!(e, Refused::TooFewRepeats { n: 1, min: 5 });
    assert!(e.to_string().contains("5 seeds"), "{e}");
    assert_eq!(
        judge(Op::Ge, 0.92, &[0.95], None, &rule).unwrap_err(),
        Refused::TooFewRepeats { n: 1, min: 5 }
    );
    assert_eq!(
        judge(Op::Ge, 0.92, &[], None, &rule).unwrap_err(),
        Refused::Values(crate::evidence::StatsError::Empty)
    );
    assert!(matches!(
        decide(Op::Ge, f64::NAN, &summary(5, 0.9, 0.95), &rule),
        Err(Refused::Threshold(t)) if t.is_nan()
    ));
    assert!(matches!(
        decide(Op::Ge, f64::INFINITY, &summary(5, 0.9, 0.95), &rule),
        Err(Refused::Threshold(t)) if t.is_infinite()
    ));
    // Where the plan asks for one measurement, one value is today's rule: value vs threshold.
    let today = Rule {
        min_repeats: 1,
        max_repeats: 1,
        ..Rule::default()
    };
    for (value, want) in [
        (0.9356, Verdict::Pass),
        (0.92, Verdict::Pass),
        (0.9199, Verdict::Fail),
    ] {
        let j = judge(Op::Ge, 0.92, &[value], None, &today).unwrap();
        assert_eq!(
            (j.decision.verdict, j.summary.method),
            (want, Method::Single),
            "{value}"
        );
    }
}

#[test]
fn looks_come_in_steps_of_min_repeats_and_each_top_up_is_stricter() {
    let r = |min, max| Rule {
        min_repeats: min,
        max_repeats: max,
        ..Rule::default()
    };
    for (min, max, top_ups) in [
        (5, 20, 3),
        (5, 5, 0),
        (5, 22, 4),
        (1, 1, 0),
        (3, 10, 3),
        (5, 3, 0),
    ] {
        assert_eq!(r(min, max).top_up_looks(), top_ups, "{min}..{max}");
    }
    let d = Rule::default();
    let looks: Vec<usize> = [3, 5, 10, 15, 19, 20]
        .iter()
        .map(|&n| d.next_look(n))
        .collect();
    assert_eq!(looks, [5, 10, 15, 20, 20, 20]);
    assert_eq!(r(3, 10).next_look(9), 10);
    assert_eq!(d.confidence_at(5), 0.95);
    assert!((d.confidence_at(10) - (1.0 - 0.05 / 3.0)).abs() < 1e-15);
    assert_eq!(d.confidence_at(10), d.confidence_at(20));
    assert_eq!(r(5, 5).confidence_at(9), 0.95, "no top-up: no adjustment");
    // The error budget: first look one side of 1 − c, top-ups the other side together.
    let spent = (1.0 - d.confidence_at(5)) / 2.0
        + d.top_up_looks() as f64 * (1.0 - d.confidence_at(10)) / 2.0;
    assert!((spent - 0.05).abs() < 1e-12, "{spent}");
}

#[test]
fn inconclusive_then_more_repeats_then_a_verdict() {
    // Five folds around 0.935 straddle 0.92; ten more-tightly-measured repeats clear it.
    let rule = Rule::default();
    let first = [0.971, 0.913, 0.9265, 0.9265, 0.9412];
    let j = judge(Op::Ge, 0.92, &first, Some(Bounds::UNIT), &rule).unwrap();
    assert_eq!(j.decision.verdict, Verdict::Inconclusive);
    assert_eq!(j.decision.next, more(5, 10));
    assert_eq!(j.summary.confidence, 0.95);
    let mut all = first.to_vec();
    all.extend([0.94, 0.945, 0.95, 0.938, 0.947]);
    let j = judge(Op::Ge, 0.92, &all, Some(Bounds::UNIT), &rule).unwrap();
    assert!(
        (j.summary.confidence - (1.0 - 0.05 / 3.0)).abs() < 1e-15,
        "a top-up look"
    );
    assert_eq!(j.decision.verdict, Verdict::Pass, "{:?}", j.summary);
    assert!(
        j.decision
            .why(&j.summary, Op::Ge, 0.92)
            .starts_with("PASS: the 98.3% interval")
    );
}

#[test]
fn a_gain_is_judged_on_its_pairs() {
    let rule = Rule::default();
    let base = [0.80, 0.90, 0.85, 0.95, 0.88];
    let arm = [0.835, 0.925, 0.885, 0.98, 0.905];
    let j = judge_gain(Op::Ge, 0.02, &arm, &base, Some(Bounds::UNIT), &rule).unwrap();
    assert_eq!(j.decision.verdict, Verdict::Pass, "{:?}", j.gain.diff);
    // The same gain read as two unpaired arms would straddle: their intervals overlap.
    assert!(j.gain.arm.lo < j.gain.baseline.hi);
    // A gain on fewer repeats than planned, or unpaired, gets no verdict.
    let e = judge_gain(Op::Ge, 0.02, &arm[..1], &base[..1], None, &rule).unwrap_err();
    assert_eq!(e, Refused::TooFewRepeats { n: 1, min: 5 });
    assert!(matches!(
        judge_gain(Op::Ge, 0.02, &arm, &base[..4], None, &rule),
        Err(Refused::Values(
            crate::evidence::StatsError::Unpaired { .. }
        ))
    ));
}
