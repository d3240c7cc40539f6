//! The reward h(s) ∈ [0, 1] of one research attempt, from its gate's criteria and the
//! metrics it measured (pure). The engine builds `Criterion`s from the gate and the metrics
//! file; nothing here knows the VSA or the executor.
//!
//! PrimeScientist rewards a node with the task's score. A gate's metric has no fixed range
//! (an accuracy, a gain, a loss), so the score is normalised against the gate's own
//! threshold, and the gate's verdict still decides which half of [0, 1] the reward is in:
//!
//! | the attempt                    | reward                                                   |
//! |--------------------------------|----------------------------------------------------------|
//! | every criterion met            | mean of `0.5 + 0.5 · m / (1 + m)`, m = margin / scale     |
//! | some criterion unmet           | mean of: met → 0.5, unmet → `satisfaction` (≤ 0.5)        |
//! | crash, no criteria, none measured | 0                                                     |
//!
//! - margin: how far past the threshold, in the criterion's direction (0 at the threshold;
//!   `==` met counts as margin ∞, i.e. 1); scale = `max(|required|, SCALE_FLOOR)`. So a pass
//!   scores in [0.5, 1) and a better measurement scores more: the search has something to
//!   climb after its first pass, and the best node is the best measured one.
//! - `satisfaction` of an unmet criterion is `PARTIAL_CAP · max(0, 1 − shortfall / scale)`:
//!   an attempt that came close earns more than one that missed badly; not measured → 0.
//! - a pass never scores below a miss (both meet at 0.5 only at the threshold itself).
//!
//! Properties the tests pin: a pass ≥ 0.5 ≥ a miss; the reward never decreases when a
//! measured value moves in the criterion's direction; meeting one more criterion never
//! lowers it.

/// The most an unmet criterion can earn: half, so met and unmet never overlap.
pub(crate) const PARTIAL_CAP: f64 = 0.5;
/// The smallest scale a shortfall is measured against: a required value of 0 (e.g. "errors
/// ≤ 0") would otherwise divide by zero; 1e-3 makes any miss of 0.001 or more score 0.
pub(crate) const SCALE_FLOOR: f64 = 1e-3;
/// Relative tolerance of `=`: measured floats rarely equal a threshold bit for bit.
pub(crate) const EQ_TOLERANCE: f64 = 1e-6;

pub use crate::vocab::{Op, UnknownOp};

/// One gate criterion with what the attempt measured for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Criterion {
    pub metric: String,
    pub op: Op,
    pub required: f64,
    /// `None` when the metric was not reported.
    pub measured: Option<f64>,
}

impl Criterion {
    pub fn new(metric: &str, op: Op, required: f64, measured: Option<f64>) -> Criterion {
        Criterion {
            metric: metric.to_string(),
            op,
            required,
            measured,
        }
    }
}

/// Whether `measured` meets `op required`.
pub fn met(op: Op, required: f64, measured: f64) -> bool {
    match op {
        Op::Ge => measured >= required,
        Op::Gt => measured > required,
        Op::Le => measured <= required,
        Op::Lt => measured < required,
        Op::Eq => (measured - required).abs() <= EQ_TOLERANCE * required.abs().max(1.0),
    }
}

/// How far `measured` is from meeting the criterion, ≥ 0 (0 when met, or when a strict
/// comparison misses only by equality).
pub fn shortfall(op: Op, required: f64, measured: f64) -> f64 {
    let gap = match op {
        Op::Ge | Op::Gt => required - measured,
        Op::Le | Op::Lt => measured - required,
        Op::Eq => (measured - required).abs(),
    };
    gap.max(0.0)
}

/// One criterion's satisfaction in [0, 1] (see the module's rule).
pub fn satisfaction(c: &Criterion) -> f64 {
    let Some(m) = c.measured.filter(|m| m.is_finite()) else {
        return 0.0;
    };
    if !c.required.is_finite() {
        return 0.0;
    }
    if met(c.op, c.required, m) {
        return 1.0;
    }
    let scale = c.required.abs().max(SCALE_FLOOR);
    let relative = shortfall(c.op, c.required, m) / scale;
    PARTIAL_CAP * (1.0 - relative).max(0.0)
}

/// A met criterion's normalised score in [0.5, 1]: 0.5 at the threshold, rising with the
/// margin past it (relative to the threshold's scale) towards 1. An unmet or unmeasured one
/// scores its `satisfaction` (≤ 0.5).
pub fn score(c: &Criterion) -> f64 {
    let Some(m) = c.measured.filter(|m| m.is_finite()) else {
        return 0.0;
    };
    if !c.required.is_finite() || !met(c.op, c.required, m) {
        return satisfaction(c);
    }
    let margin = match c.op {
        Op::Ge | Op::Gt => m - c.required,
        Op::Le | Op::Lt => c.required - m,
        Op::Eq => return 1.0,
    };
    let x = (margin / c.required.abs().max(SCALE_FLOOR)).max(0.0);
    PARTIAL_CAP + (1.0 - PARTIAL_CAP) * x / (1.0 + x)
}

/// Whether every criterion is met (false without criteria).
pub fn all_met(criteria: &[Criterion]) -> bool {
    !criteria.is_empty()
        && criteria.iter().all(|c| {
            c.measured.is_some_and(|m| {
                m.is_finite() && c.required.is_finite() && met(c.op, c.required, m)
            })
        })
}

/// h(s) (see the module's table), or 0 after a crash or without any measured criterion.
pub fn reward(criteria: &[Criterion], crashed: bool) -> f64 {
    let measured = criteria
        .iter()
        .any(|c| c.measured.is_some_and(f64::is_finite));
    if crashed || !measured {
        return 0.0;
    }
    let n = criteria.len() as f64;
    let sum: f64 = if all_met(criteria) {
        criteria.iter().map(score).sum()
    } else {
        criteria
            .iter()
            .map(|c| satisfaction(c).min(PARTIAL_CAP))
            .sum()
    };
    (sum / n).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(op: Op, required: f64, measured: Option<f64>) -> Criterion {
        Criterion::new("m", op, required, measured)
    }

    #[test]
    fn satisfaction_table() {
        let table: &[(Op, f64, Option<f64>, f64)] = &[
            (Op::Ge, 0.9, Some(0.95), 1.0),
            (Op::Ge, 0.9, Some(0.9), 1.0),
            (Op::Ge, 0.9, Some(0.81), 0.5 * (1.0 - 0.09 / 0.9)), // 0.45
            (Op::Ge, 0.9, Some(0.0), 0.0),
            (Op::Ge, 0.9, Some(-3.0), 0.0),
            (Op::Gt, 0.9, Some(0.9), 0.5), // misses only by equality
            (Op::Le, 2.0, Some(1.5), 1.0),
            (Op::Le, 2.0, Some(3.0), 0.25),
            (Op::Lt, 2.0, Some(2.0), 0.5),
            (Op::Le, 0.0, Some(0.0005), 0.25), // scale floor 1e-3
            (Op::Le, 0.0, Some(0.5), 0.0),
            (Op::Eq, 10.0, Some(10.0 + 1e-7), 1.0),
            (Op::Eq, 10.0, Some(9.0), 0.45),
            (Op::Eq, 10.0, Some(11.0), 0.45),
            (Op::Ge, -1.0, Some(-1.5), 0.25), // negative thresholds scale by |required|
            (Op::Ge, 0.9, None, 0.0),
            (Op::Ge, 0.9, Some(f64::NAN), 0.0),
            (Op::Ge, f64::NAN, Some(1.0), 0.0),
            (Op::Le, 1.0, Some(f64::INFINITY), 0.0),
        ];
        for &(op, required, measured, want) in table {
            let got = satisfaction(&c(op, required, measured));
            assert!(
                (got - want).abs() < 1e-12,
                "{op} {required} {measured:?}: {got}"
            );
        }
    }

    #[test]
    fn reward_table() {
        let met = c(Op::Ge, 0.5, Some(0.6)); // margin 0.1 / 0.5 = 0.2 → 0.5 + 0.5·0.2/1.2
        let far = c(Op::Ge, 0.5, Some(1.0)); // margin 1 → 0.75
        let close = c(Op::Ge, 1.0, Some(0.8)); // 0.4
        let missing = c(Op::Ge, 1.0, None);
        let at = c(Op::Ge, 0.5, Some(0.5)); // met at the threshold: 0.5
        let table: &[(&[Criterion], bool, f64)] = &[
            (&[], false, 0.0),
            (std::slice::from_ref(&met), false, 0.5 + 0.5 * 0.2 / 1.2),
            (std::slice::from_ref(&far), false, 0.75),
            (std::slice::from_ref(&at), false, 0.5),
            (
                &[met.clone(), far.clone()],
                false,
                (0.5 + 0.5 * 0.2 / 1.2 + 0.75) / 2.0,
            ),
            // Not all met: a met criterion counts 0.5, so no miss outranks a pass.
            (&[met.clone(), close.clone()], false, (0.5 + 0.4) / 2.0),
            (&[far.clone(), close.clone()], false, (0.5 + 0.4) / 2.0),
            (&[met.clone(), missing.clone()], false, 0.25),
            (std::slice::from_ref(&close), false, 0.4),
            (std::slice::from_ref(&missing), false, 0.0),
            (&[met.clone(), met.clone()], true, 0.0), // a crash earns nothing
            (&[c(Op::Eq, 3.0, Some(3.0))], false, 1.0),
            (&[c(Op::Le, 0.02, Some(0.01))], false, 0.5 + 0.5 * 0.5 / 1.5),
        ];
        for (criteria, crashed, want) in table {
            let got = reward(criteria, *crashed);
            assert!((got - want).abs() < 1e-12, "{criteria:?} {crashed}: {got}");
        }
    }

    #[test]
    fn a_pass_never_scores_below_a_miss_and_better_passes_score_more() {
        let mut last = -1.0;
        for i in 0..=400 {
            let m = 0.5 + i as f64 * 0.005; // 0.5 ..= 2.5 against >= 1.0
            let r = reward(&[c(Op::Ge, 1.0, Some(m))], false);
            if m < 1.0 {
                assert!(r <= 0.5, "{m}: {r}");
            } else {
                assert!((0.5..1.0).contains(&r), "{m}: {r}");
            }
            assert!(r >= last, "{m}: {r} < {last}");
            last = r;
        }
    }

    #[test]
    fn unmet_always_scores_below_met() {
        for op in [Op::Ge, Op::Gt, Op::Le, Op::Lt, Op::Eq] {
            for i in -200..=200 {
                let m = 1.0 + i as f64 * 0.01;
                let s = satisfaction(&c(op, 1.0, Some(m)));
                assert!((0.0..=1.0).contains(&s));
                if met(op, 1.0, m) {
                    assert_eq!(s, 1.0);
                } else {
                    assert!(s <= PARTIAL_CAP, "{op} {m}: {s}");
                }
            }
        }
    }

    #[test]
    fn monotone_in_the_criterion_direction() {
        // Moving the measured value in the direction the criterion asks never lowers the
        // satisfaction nor the reward (the other criterion held fixed).
        let other = c(Op::Le, 3.0, Some(4.0));
        for (op, step) in [
            (Op::Ge, 0.01),
            (Op::Gt, 0.01),
            (Op::Le, -0.01),
            (Op::Lt, -0.01),
        ] {
            for required in [-2.0, 0.0, 0.5, 10.0] {
                let mut last = (-1.0, -1.0);
                for i in -300..=300 {
                    let m = required - step * 150.0 + step * (i + 300) as f64 * 0.5;
                    let one = c(op, required, Some(m));
                    let now = (satisfaction(&one), reward(&[one, other.clone()], false));
                    assert!(now.0 >= last.0 && now.1 >= last.1, "{op} {required} {m}");
                    last = now;
                }
            }
        }
    }

    #[test]
    fn ops_parse_and_print() {
        for (s, op) in [
            (">=", Op::Ge),
            ("≥", Op::Ge),
            (" < ", Op::Lt),
            ("==", Op::Eq),
        ] {
            assert_eq!(s.parse::<Op>().unwrap(), op);
            assert_eq!(op.to_string().parse::<Op>().unwrap(), op);
        }
        let e = "~".parse::<Op>().unwrap_err();
        assert!(e.to_string().contains(">="), "{e}");
    }
}
