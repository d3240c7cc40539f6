//! The verdict on one written number, given the claim its context binds it to
//! ([`Binding`]). In this order:
//!
//! 1. it states one of its claim's values (1% or as rounded, `verify`'s forms) →
//!    [`Verdict::Bound`], or, when its context names no claim, any measured value →
//!    [`Verdict::Unbound`] (the registry as a whitelist: weaker, counted apart);
//! 2. it states a value the run declared (a gate threshold, a seed, a config value, a
//!    dataset's size) → [`Verdict::Declared`]; declared values are not bound, since a
//!    paper quotes a threshold wherever it discusses the metric;
//! 3. its context names a sub-hypothesis and a metric, it is written with two significant
//!    digits or more, and it states a measured value some sub-hypothesis owns outside its
//!    claim (ANOTHER sub-hypothesis's, or the named one's other metric or summary) →
//!    [`Verdict::WrongClaim`], however far that value lies from its own claim's (fail closed:
//!    a row that says "h-m1's gain" can carry neither h-c1's accuracy, the far swap a
//!    distance guard let through, nor h-m1's own accuracy or its gain's minimum). A
//!    one-digit number (`3/4 features`) says too little to tell whose it is (as in
//!    `verify`'s rounding rule);
//! 4. its context names an owner (a hypothesis or a condition), it states another claim's
//!    measured value and its claim has a value of its size (within 50%) →
//!    [`Verdict::WrongClaim`]: a value of a different metric or condition. Nowhere near
//!    (p = 1.1e-8 in a clause about R² of the baseline model, YouRA's own 045 document) says
//!    the binding read the wrong words (a condition or a metric is not an owner the way a
//!    sub-hypothesis is): unbound;
//! 5. else [`Verdict::Unverified`], with the nearest value of its claim (or of the
//!    registry when unbound).

use serde::Serialize;

use super::binding::Binding;
use super::registry::{Entry, Registry};
use super::verify::{self, Nearest, Written};

/// A number bound to one claim that states another claim's value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WrongClaim {
    /// The claim its context names (`h-e1 · accuracy`).
    pub claim: String,
    /// That claim's value nearest to the number: what the paper should state.
    pub expected: Nearest,
    /// The other claim's value the number does state.
    pub states: Nearest,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Verdict<'r> {
    Bound(&'r Entry),
    Unbound(&'r Entry),
    Declared(&'r Entry),
    WrongClaim(WrongClaim),
    Unverified(Option<Nearest>),
}

/// How far (relative) a number may lie from its claim's value and still be read as a
/// wrong value of that claim rather than a misread binding.
pub(crate) const PLAUSIBLE: f64 = 0.5;

fn exact(e: &Entry) -> Nearest {
    Nearest {
        key: e.key.clone(),
        value: e.value,
        location: e.location(),
        relative_diff: 0.0,
    }
}

/// Judge `w` against its binding (see the module rules).
pub fn judge<'r>(w: &Written, b: &Binding, registry: &'r Registry, tolerance: f64) -> Verdict<'r> {
    let candidates = || b.candidates.iter().map(|&i| &registry.entries[i]);
    if let Some(e) = verify::find_in(w, candidates(), tolerance) {
        return if b.is_bound() {
            Verdict::Bound(e)
        } else {
            Verdict::Unbound(e)
        };
    }
    if let Some(e) = verify::declared(w, registry, tolerance) {
        return Verdict::Declared(e);
    }
    let expected = verify::nearest_in(w, candidates());
    // The context names a run of its sub-hypothesis; the number is another run's value of
    // the same claim (h-e1's unscaled accuracy in the standardized row): wrong, however near.
    // The value named as the one it states is the closest measured one (0.0321 is h-m1's
    // gain_min, not the other run's gain 0.0323 that lies within 1% of it).
    let other = verify::find(w, registry, tolerance);
    let excluded = b.excluded.iter().map(|&i| &registry.entries[i]);
    if let (Some(claim), Some(expected), Some(other)) = (&b.claim, &expected, other)
        && verify::find_in(w, excluded, tolerance).is_some()
        && w.sig_digits >= 2
    {
        return Verdict::WrongClaim(WrongClaim {
            claim: claim.clone(),
            expected: expected.clone(),
            states: exact(other),
        });
    }
    // Not one of the candidates (step 1 would have bound it), so another claim's value.
    let owned = |e: &Entry| super::claim::ClaimKey::of(&e.key).hypothesis.is_some();
    if let (Some(claim), Some(expected), Some(other)) = (&b.claim, &expected, other)
        && !b.hypotheses.is_empty()
        && b.names_metric
        && w.sig_digits >= 2
        && owned(other)
    {
        return Verdict::WrongClaim(WrongClaim {
            claim: claim.clone(),
            expected: expected.clone(),
            states: exact(other),
        });
    }
    if let Some(other) = other {
        return match (&b.claim, expected) {
            (Some(claim), Some(expected))
                if b.names_owner && expected.relative_diff <= PLAUSIBLE && w.sig_digits >= 2 =>
            {
                Verdict::WrongClaim(WrongClaim {
                    claim: claim.clone(),
                    expected,
                    states: exact(other),
                })
            }
            _ => Verdict::Unbound(other),
        };
    }
    Verdict::Unverified(expected)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::binding::bind;
    use crate::report::mentions::ClaimIndex;
    use crate::report::numbers::scan;

    /// Fail closed within one sub-hypothesis too: h-m1's gain row cannot carry h-m1's own
    /// accuracy (far) or its gain's minimum (near), while a range's ends may.
    #[test]
    fn a_named_hypothesis_other_values_are_wrong_claims_near_or_far() {
        let reg = Registry {
            entries: vec![
                Entry::new("h-m1.results.metrics.gain".into(), 0.0342),
                Entry::new("h-m1.results.metrics.gain_min".into(), 0.0321),
                Entry::new("h-m1.results.metrics.gain_max".into(), 0.0352),
                Entry::new("h-m1.results.metrics.accuracy".into(), 0.9336),
            ],
            ..Registry::empty()
        };
        let index = ClaimIndex::new(&reg);
        let cases = [
            ("h-m1 gain", "0.0342", "bound h-m1.results.metrics.gain"),
            ("h-m1 gain", "0.9336", "wrong h-m1.results.metrics.accuracy"),
            ("h-m1 gain", "0.0321", "wrong h-m1.results.metrics.gain_min"),
            ("h-m1 gain", "0.0352", "wrong h-m1.results.metrics.gain_max"),
            (
                "h-m1's lowest gain",
                "0.0321",
                "bound h-m1.results.metrics.gain_min",
            ),
            (
                "h-m1's lowest gain",
                "0.0342",
                "wrong h-m1.results.metrics.gain",
            ),
            // No metric named: only a near value is read as a wrong one (step 4).
            ("h-m1", "0.9336", "bound h-m1.results.metrics.accuracy"),
        ];
        for (context, number, want) in cases {
            let w = Written::of(&scan(number)[0], false);
            let b = bind(&index, &reg, &index.mentions(context));
            let got = match judge(&w, &b, &reg, 0.01) {
                Verdict::Bound(e) => format!("bound {}", e.key),
                Verdict::WrongClaim(wc) => format!("wrong {}", wc.states.key),
                other => format!("{other:?}"),
            };
            assert_eq!(got, want, "{number} in “{context}”");
        }
    }

    #[test]
    fn judge_table() {
        let reg = Registry {
            entries: vec![
                Entry::new("h-e1.results.metrics.accuracy".into(), 0.91),
                Entry::new("h-e2.results.metrics.accuracy".into(), 0.85),
                Entry::new("h-e1.gate.criteria.0.value".into(), 0.9).declared(),
                Entry::new("h-e1.results.onset_step".into(), 11200.0),
                Entry::new("h-m1.results.onset_decay_0_3".into(), 12900.0),
            ],
            ..Registry::empty()
        };
        let index = ClaimIndex::new(&reg);
        let cases = [
            (
                "h-e1 accuracy",
                "0.91",
                "bound h-e1.results.metrics.accuracy",
            ),
            (
                "h-e2 accuracy",
                "0.85",
                "bound h-e2.results.metrics.accuracy",
            ),
            (
                "h-e1 accuracy",
                "0.85",
                "wrong h-e2.results.metrics.accuracy",
            ),
            (
                "h-e1 accuracy",
                "0.90",
                "declared h-e1.gate.criteria.0.value",
            ),
            (
                "h-e1 accuracy",
                "0.5",
                "unverified h-e1.results.metrics.accuracy",
            ),
            ("the mean", "0.85", "unbound h-e2.results.metrics.accuracy"),
            // Only a metric named: the number may be any owner's value of a related metric
            // (the registry's `onset_decay_0_3` is the paper's "onset step at decay 0.3").
            (
                "onset step",
                "12,900",
                "unbound h-m1.results.onset_decay_0_3",
            ),
            (
                "the mean",
                "0.5",
                "unverified h-e2.results.metrics.accuracy",
            ),
        ];
        for (context, number, want) in cases {
            let w = Written::of(&scan(number)[0], false);
            let b = bind(&index, &reg, &index.mentions(context));
            let got = match judge(&w, &b, &reg, 0.01) {
                Verdict::Bound(e) => format!("bound {}", e.key),
                Verdict::Unbound(e) => format!("unbound {}", e.key),
                Verdict::Declared(e) => format!("declared {}", e.key),
                Verdict::WrongClaim(wc) => {
                    assert_eq!(wc.claim, "h-e1 · accuracy");
                    assert_eq!(wc.expected.key, "h-e1.results.metrics.accuracy");
                    format!("wrong {}", wc.states.key)
                }
                Verdict::Unverified(n) => {
                    format!("unverified {}", n.map(|n| n.key).unwrap_or_default())
                }
            };
            assert_eq!(got, want, "{number} in “{context}”");
        }
    }
}
