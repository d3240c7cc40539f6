//! Allocation rules (PrimeScientist §3.3) as pure functions: the alpha schedule, the
//! selection weights and their floor, UCT's score, normalisation and sampling. Descent
//! (`select.rs`) applies them level by level.

use std::f64::consts::SQRT_2;
use std::fmt;
use std::str::FromStr;

/// The smallest remaining share: r is clamped into (0, 1] so 1/r stays finite.
pub const MIN_SHARE: f64 = 1e-9;

/// α's cap (PrimeScientist §4.1).
pub const ALPHA_MAX: f64 = 10.0;
/// The exponent of the fixed-α ablation (PrimeScientist §4.1 compares α = 3).
pub const FIXED_ALPHA: f64 = 3.0;
/// UCT's exploration constant.
pub const UCT_C: f64 = SQRT_2;
/// The weight floor. Q = 0 (a failed parent, a zero reward) would otherwise make a plan
/// unreachable for good; 1e-6 is below the weight of any Q ≥ 0.26 even at α = 10, so it
/// changes nothing among plans worth choosing and only keeps the hopeless ones possible.
pub const EPSILON: f64 = 1e-6;

/// How a level's candidate is chosen; set in the run config and `plan/budget.json` as a
/// string: `adaptive`, `uct` (`uct:<c>`), `greedy`, `random`, `fixed` (`fixed:<α>`).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Policy {
    /// Weights Q^α / (Q(parent)·√P)^α with α = min(1/r, α_max), sampled.
    #[default]
    Adaptive,
    /// Deterministic argmax of Q + c·√(ln N(parent) / N); unvisited first.
    Uct { c: f64 },
    /// Deterministic argmax of Q / Q(parent)·√P.
    Greedy,
    /// Uniform among the eligible candidates.
    Random,
    /// The adaptive weights with a constant α.
    FixedAlpha { alpha: f64 },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not an allocation policy: use adaptive, uct, uct:<c>, greedy, random, fixed or fixed:<alpha>"
)]
pub struct UnknownPolicy(pub String);

impl FromStr for Policy {
    type Err = UnknownPolicy;
    fn from_str(s: &str) -> Result<Policy, UnknownPolicy> {
        let bad = || UnknownPolicy(s.to_string());
        let lower = s.trim().to_ascii_lowercase();
        let (name, arg) = match lower.split_once(':') {
            Some((n, a)) => (n.trim(), Some(a.trim())),
            None => (lower.as_str(), None),
        };
        let number = |default: f64| -> Result<f64, UnknownPolicy> {
            match arg {
                None => Ok(default),
                Some(a) => a
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && *v >= 0.0)
                    .ok_or_else(bad),
            }
        };
        match name {
            "adaptive" if arg.is_none() => Ok(Policy::Adaptive),
            "greedy" if arg.is_none() => Ok(Policy::Greedy),
            "random" if arg.is_none() => Ok(Policy::Random),
            "uct" => Ok(Policy::Uct { c: number(UCT_C)? }),
            "fixed" | "fixed_alpha" | "fixed-alpha" => Ok(Policy::FixedAlpha {
                alpha: number(FIXED_ALPHA)?,
            }),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Policy::Adaptive => f.write_str("adaptive"),
            Policy::Uct { c } if *c == UCT_C => f.write_str("uct"),
            Policy::Uct { c } => write!(f, "uct:{c}"),
            Policy::Greedy => f.write_str("greedy"),
            Policy::Random => f.write_str("random"),
            Policy::FixedAlpha { alpha } => write!(f, "fixed:{alpha}"),
        }
    }
}

impl TryFrom<String> for Policy {
    type Error = UnknownPolicy;
    fn try_from(s: String) -> Result<Policy, UnknownPolicy> {
        s.parse()
    }
}

impl From<Policy> for String {
    fn from(p: Policy) -> String {
        p.to_string()
    }
}

impl Policy {
    /// The exponent this policy weights with at remaining share `r`, if it uses one.
    pub fn alpha(self, r: f64, alpha_max: f64) -> Option<f64> {
        match self {
            Policy::Adaptive => Some(alpha(r, alpha_max)),
            Policy::FixedAlpha { alpha } => Some(alpha),
            Policy::Uct { .. } | Policy::Greedy | Policy::Random => None,
        }
    }
}

/// α = min(1/r, α_max): near 1 while the budget is fresh (weights ≈ values: explore),
/// growing as it shrinks (sharper weights: exploit). A non-positive or NaN cap falls back to
/// the default rather than producing weights of 1 or NaN.
pub fn alpha(r: f64, alpha_max: f64) -> f64 {
    let cap = if alpha_max.is_nan() || alpha_max <= 0.0 {
        ALPHA_MAX
    } else {
        alpha_max
    };
    let r = if r.is_nan() {
        MIN_SHARE
    } else {
        r.clamp(MIN_SHARE, 1.0)
    };
    (1.0 / r).min(cap)
}

/// What a candidate's value rests on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// The node (or its subtree) has been evaluated: its branch value Q.
    Evaluated { q: f64 },
    /// Not yet executed: the parent's Q scaled by the square root of the prior P.
    Unvisited { parent_q: f64, p: f64 },
    /// Not yet executed, under a parent evaluated at Q = 0: Q(parent)·√P would be 0 for every
    /// child (each floored to ε, the prior ignored), so the child falls back to √P, as the
    /// reference's code does.
    Prior { p: f64 },
}

impl Value {
    /// The quantity greedy maximises and the adaptive weight raises to α.
    pub fn base(self) -> f64 {
        match self {
            Value::Evaluated { q } => unit(q),
            Value::Unvisited { parent_q, p } => unit(parent_q) * unit(p).sqrt(),
            Value::Prior { p } => unit(p).sqrt(),
        }
    }

    /// An unexecuted child's value: Q(parent)·√P, or √P alone when the parent's Q is 0
    /// (`parent_evaluated`: it has a reward; an unevaluated Q of 0 means nothing yet).
    pub(crate) fn unvisited(parent_q: f64, p: f64, parent_evaluated: bool) -> Value {
        if parent_evaluated && unit(parent_q) == 0.0 {
            Value::Prior { p }
        } else {
            Value::Unvisited { parent_q, p }
        }
    }
}

/// Values outside [0, 1] (a hand-edited file) are clamped; NaN counts as 0.
fn unit(x: f64) -> f64 {
    if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }
}

/// The adaptive (and fixed-α) weight: base^α, floored at EPSILON.
pub fn weight(value: Value, alpha: f64) -> f64 {
    floor(value.base().powf(alpha))
}

/// Whether the floor, not the value, decided a weight (the TUI says so).
pub fn floored(value: Value, alpha: f64) -> bool {
    let raw = value.base().powf(alpha);
    raw.is_nan() || raw < EPSILON
}

fn floor(w: f64) -> f64 {
    if w.is_nan() || w < EPSILON {
        EPSILON
    } else {
        w
    }
}

/// UCT: Q + c·√(ln N(parent) / N(v)); a node never visited scores +∞ (tried first).
pub fn uct_score(q: f64, visits: u64, parent_visits: u64, c: f64) -> f64 {
    if visits == 0 {
        return f64::INFINITY;
    }
    let ln = (parent_visits.max(1) as f64).ln();
    unit(q) + c * (ln / visits as f64).sqrt()
}

/// Weights → probabilities summing to 1; all zero stays all zero (nothing to choose).
pub fn probabilities(weights: &[f64]) -> Vec<f64> {
    let total: f64 = weights.iter().filter(|w| w.is_finite() && **w > 0.0).sum();
    weights
        .iter()
        .map(|&w| {
            if total > 0.0 && w.is_finite() && w > 0.0 {
                w / total
            } else {
                0.0
            }
        })
        .collect()
}

/// The index a draw `u` in [0, 1) lands on; the last positive one absorbs rounding.
pub fn sample_index(probabilities: &[f64], u: f64) -> Option<usize> {
    let mut cumulative = 0.0;
    let mut last = None;
    for (i, &p) in probabilities.iter().enumerate() {
        if p <= 0.0 {
            continue;
        }
        cumulative += p;
        last = Some(i);
        if u < cumulative {
            return Some(i);
        }
    }
    last
}

/// The first index holding the largest score (ties keep the tree's order).
pub fn argmax(scores: &[Option<f64>]) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, s) in scores.iter().enumerate() {
        if let Some(s) = *s
            && best.is_none_or(|(_, b)| s > b)
        {
            best = Some((i, s));
        }
    }
    best.map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn alpha_schedule() {
        let table: &[(f64, f64, f64)] = &[
            (1.0, 10.0, 1.0),
            (0.5, 10.0, 2.0),
            (0.1, 10.0, 10.0),
            (0.01, 10.0, 10.0),
            (0.25, 10.0, 4.0),
            (0.0, 10.0, 10.0),
            (-1.0, 10.0, 10.0),
            (f64::NAN, 10.0, 10.0),
            (2.0, 10.0, 1.0),
            (0.01, 3.0, 3.0),
            (0.01, 0.0, 10.0),
            (0.01, f64::NAN, 10.0),
            (1.0, 0.5, 0.5),
        ];
        for &(r, cap, want) in table {
            assert!(
                close(alpha(r, cap), want),
                "r={r} cap={cap}: {}",
                alpha(r, cap)
            );
        }
    }

    #[test]
    fn prior_fallback_at_a_zero_parent() {
        // (parent Q, P, parent evaluated, value, weight at α = 1)
        let table: &[(f64, f64, bool, Value, f64)] = &[
            // Evaluated at 0: √P, not ε.
            (0.0, 0.81, true, Value::Prior { p: 0.81 }, 0.9),
            (0.0, 0.25, true, Value::Prior { p: 0.25 }, 0.5),
            (f64::NAN, 0.04, true, Value::Prior { p: 0.04 }, 0.2),
            (-0.2, 0.64, true, Value::Prior { p: 0.64 }, 0.8),
            // A positive parent: Q(parent)·√P as before.
            (
                0.5,
                0.64,
                true,
                Value::Unvisited {
                    parent_q: 0.5,
                    p: 0.64,
                },
                0.4,
            ),
            // Not evaluated yet (Q 0 means nothing): unchanged, floored.
            (
                0.0,
                0.64,
                false,
                Value::Unvisited {
                    parent_q: 0.0,
                    p: 0.64,
                },
                EPSILON,
            ),
            // A zero prior stays at the floor.
            (0.0, 0.0, true, Value::Prior { p: 0.0 }, EPSILON),
        ];
        for &(parent_q, p, evaluated, want, w) in table {
            let v = Value::unvisited(parent_q, p, evaluated);
            match (v, want) {
                (Value::Unvisited { .. }, Value::Unvisited { .. }) => assert_eq!(v, want),
                (Value::Prior { p: a }, Value::Prior { p: b }) => assert_eq!(a, b),
                _ => panic!("{parent_q} {p} {evaluated}: {v:?}, want {want:?}"),
            }
            assert!(
                close(weight(v, 1.0), w),
                "{parent_q} {p}: {}",
                weight(v, 1.0)
            );
            assert_eq!(floored(v, 1.0), w == EPSILON, "{parent_q} {p}");
        }
        // At α = 2 the prior is raised like any value: (√0.81)² = 0.81.
        assert!(close(weight(Value::Prior { p: 0.81 }, 2.0), 0.81));
    }

    #[test]
    fn weights_by_kind() {
        // (value, α, weight) computed by hand.
        let table: &[(Value, f64, f64)] = &[
            (Value::Evaluated { q: 0.6 }, 1.0, 0.6),
            (Value::Evaluated { q: 0.6 }, 2.0, 0.36),
            (Value::Evaluated { q: 0.5 }, 10.0, 0.0009765625),
            (
                Value::Unvisited {
                    parent_q: 0.6,
                    p: 0.25,
                },
                1.0,
                0.3,
            ),
            (
                Value::Unvisited {
                    parent_q: 0.6,
                    p: 0.25,
                },
                2.0,
                0.09,
            ),
            (
                Value::Unvisited {
                    parent_q: 0.8,
                    p: 0.64,
                },
                3.0,
                0.262144,
            ),
            // Floors: a zero value, a tiny one at α_max, NaN, and out-of-range clamps.
            (Value::Evaluated { q: 0.0 }, 1.0, EPSILON),
            (Value::Evaluated { q: 0.2 }, 10.0, EPSILON),
            (
                Value::Unvisited {
                    parent_q: 0.0,
                    p: 0.9,
                },
                1.0,
                EPSILON,
            ),
            (Value::Evaluated { q: f64::NAN }, 1.0, EPSILON),
            (Value::Evaluated { q: 1.7 }, 2.0, 1.0),
            (
                Value::Unvisited {
                    parent_q: 0.5,
                    p: -0.3,
                },
                1.0,
                EPSILON,
            ),
        ];
        for &(v, a, want) in table {
            assert!(close(weight(v, a), want), "{v:?} α={a}: {}", weight(v, a));
        }
        assert!(floored(Value::Evaluated { q: 0.2 }, 10.0));
        assert!(!floored(Value::Evaluated { q: 0.3 }, 10.0));
    }

    #[test]
    fn probabilities_and_sampling() {
        let p = probabilities(&[0.36, 0.09, 0.45]);
        for (got, want) in p.iter().zip([0.4, 0.1, 0.5]) {
            assert!(close(*got, want), "{p:?}");
        }
        assert_eq!(probabilities(&[0.0, 0.0]), vec![0.0, 0.0]);
        assert_eq!(probabilities(&[0.0, 2.0]), vec![0.0, 1.0]);
        let table: &[(f64, Option<usize>)] = &[
            (0.0, Some(0)),
            (0.399, Some(0)),
            (0.4, Some(1)),
            (0.49, Some(1)),
            (0.5, Some(2)),
            (0.999_999, Some(2)),
            (1.0, Some(2)),
        ];
        for &(u, want) in table {
            assert_eq!(sample_index(&[0.4, 0.1, 0.5], u), want, "u={u}");
        }
        assert_eq!(sample_index(&[0.0, 1.0, 0.0], 0.0), Some(1));
        assert_eq!(sample_index(&[0.0, 0.0], 0.3), None);
    }

    #[test]
    fn uct_scores() {
        // Q + √2·√(ln N / n), by hand: ln 10 = 2.302585…
        let table: &[(f64, u64, u64, f64)] = &[
            (0.5, 0, 10, f64::INFINITY),
            (0.5, 10, 10, 0.5 + SQRT_2 * (10f64.ln() / 10.0).sqrt()),
            (0.5, 2, 10, 0.5 + SQRT_2 * (10f64.ln() / 2.0).sqrt()),
            (0.7, 1, 1, 0.7),
            (0.7, 1, 0, 0.7),
        ];
        for &(q, n, parent, want) in table {
            let got = uct_score(q, n, parent, UCT_C);
            assert!(got == want || close(got, want), "{q} {n} {parent}: {got}");
        }
        // 0.5 + 1.414214 · √(2.302585 / 2) = 0.5 + 1.517427
        assert!((uct_score(0.5, 2, 10, UCT_C) - 2.017_427).abs() < 1e-6);
    }

    #[test]
    fn greedy_argmax_keeps_order_on_ties() {
        assert_eq!(argmax(&[Some(0.3), Some(0.5), Some(0.5)]), Some(1));
        assert_eq!(argmax(&[None, Some(0.1)]), Some(1));
        assert_eq!(argmax(&[None, None]), None);
        assert_eq!(argmax(&[Some(f64::INFINITY), Some(f64::INFINITY)]), Some(0));
    }

    #[test]
    fn policy_names_round_trip() {
        let table: &[(&str, Option<Policy>)] = &[
            ("adaptive", Some(Policy::Adaptive)),
            (" Greedy ", Some(Policy::Greedy)),
            ("random", Some(Policy::Random)),
            ("uct", Some(Policy::Uct { c: UCT_C })),
            ("uct:0.5", Some(Policy::Uct { c: 0.5 })),
            ("fixed", Some(Policy::FixedAlpha { alpha: 3.0 })),
            ("fixed:2.5", Some(Policy::FixedAlpha { alpha: 2.5 })),
            ("fixed:-1", None),
            ("uct:x", None),
            ("greedy:2", None),
            ("mcts", None),
        ];
        for &(s, want) in table {
            assert_eq!(s.parse::<Policy>().ok(), want, "{s}");
            if let Some(p) = want {
                assert_eq!(p.to_string().parse::<Policy>().unwrap(), p);
            }
        }
        assert_eq!(Policy::Adaptive.alpha(0.5, 10.0), Some(2.0));
        assert_eq!(
            Policy::FixedAlpha { alpha: 3.0 }.alpha(0.5, 10.0),
            Some(3.0)
        );
        assert_eq!(Policy::Greedy.alpha(0.5, 10.0), None);
    }
}
