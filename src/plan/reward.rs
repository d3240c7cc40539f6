//! The reward h(s) ∈ [0, 1] of one research attempt, from its gate's criteria and the
//! metrics it measured (pure). The engine builds `Criterion`s from the gate and the metrics
//! file; nothing here knows the VSA or the executor.
//!
//! Rule: each criterion scores a satisfaction in [0, 1]; the reward is their mean.
//! - met → 1;
//! - unmet → `PARTIAL_CAP · max(0, 1 − shortfall / max(|required|, SCALE_FLOOR))`, so an
//!   attempt that came close earns more than one that missed badly, yet any unmet criterion
//!   scores at most 0.5, below any met one;
//! - not measured (absent or not a finite number) → 0: a claim without a number is no
//!   evidence;
//! - a crash, no criteria, or no criterion measured at all → reward 0.
//!
//! Properties the tests pin: all met ⇒ 1; the reward never decreases when a measured value
//! moves in the criterion's direction; meeting one more criterion never lowers it.

use std::fmt;
use std::str::FromStr;

/// The most an unmet criterion can earn: half, so met and unmet never overlap.
pub const PARTIAL_CAP: f64 = 0.5;
/// The smallest scale a shortfall is measured against: a required value of 0 (e.g. "errors
/// ≤ 0") would otherwise divide by zero; 1e-3 makes any miss of 0.001 or more score 0.
pub const SCALE_FLOOR: f64 = 1e-3;
/// Relative tolerance of `=`: measured floats rarely equal a threshold bit for bit.
pub const EQ_TOLERANCE: f64 = 1e-6;

/// How the measured value must relate to the required one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Op {
    Ge,
    Gt,
    Le,
    Lt,
    Eq,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a comparison: use >=, >, <=, < or ==")]
pub struct UnknownOp(pub String);

impl FromStr for Op {
    type Err = UnknownOp;
    fn from_str(s: &str) -> Result<Op, UnknownOp> {
        match s.trim() {
            ">=" | "≥" | "ge" => Ok(Op::Ge),
            ">" | "gt" => Ok(Op::Gt),
            "<=" | "≤" | "le" => Ok(Op::Le),
            "<" | "lt" => Ok(Op::Lt),
            "==" | "=" | "eq" => Ok(Op::Eq),
            other => Err(UnknownOp(other.to_string())),
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Op::Ge => ">=",
            Op::Gt => ">",
            Op::Le => "<=",
            Op::Lt => "<",
            Op::Eq => "==",
        })
    }
}

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

/// h(s): the mean satisfaction, or 0 after a crash or without any measured criterion.
pub fn reward(criteria: &[Criterion], crashed: bool) -> f64 {
    let measured = criteria
        .iter()
        .any(|c| c.measured.is_some_and(f64::is_finite));
    if crashed || !measured {
        return 0.0;
    }
    let sum: f64 = criteria.iter().map(satisfaction).sum();
    (sum / criteria.len() as f64).clamp(0.0, 1.0)
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
        let met = c(Op::Ge, 0.5, Some(0.6));
        let close = c(Op::Ge, 1.0, Some(0.8)); // 0.4
        let missing = c(Op::Ge, 1.0, None);
        let table: &[(&[Criterion], bool, f64)] = &[
            (&[], false, 0.0),
            (std::slice::from_ref(&met), false, 1.0),
            (&[met.clone(), met.clone()], false, 1.0),
            (&[met.clone(), close.clone()], false, 0.7),
            (&[met.clone(), missing.clone()], false, 0.5),
            (std::slice::from_ref(&missing), false, 0.0),
            (&[met.clone(), met.clone()], true, 0.0), // a crash earns nothing
        ];
        for (criteria, crashed, want) in table {
            let got = reward(criteria, *crashed);
            assert!((got - want).abs() < 1e-12, "{criteria:?} {crashed}: {got}");
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
