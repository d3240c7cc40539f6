//! Whether a number written in the manuscript states a measured value. Pure rules:
//!
//! - **Tolerance**: written `a` verifies registry `b` when |a − b| ≤ tol·|b| (relative to the
//!   measured value; tol = 0.01 by default). A registry value of exactly 0 needs an exact 0.
//!   A relative slack of 1e-9 absorbs binary floating point (1.01 × 0.8123 must still pass).
//! - **Rounding as written**: `a` also verifies `b` when `b` rounds to `a` at the precision
//!   written (|a − b| ≤ half a unit of the last digit), provided `a` has at least two
//!   significant digits: `0.012` verifies 0.01249, but a bare `3` does not verify 2.6.
//! - **Percent and fraction**: a number written with `%` (or in a table column whose header
//!   has `%`) is compared both as written and divided by 100, so `96.5%` verifies 96.5
//!   (a `_pct` key) and 0.965 (a fraction). A plain number is compared as written and, when
//!   the registry entry is a percentage (unit `%`), multiplied by 100: `0.965` verifies
//!   `documentation_sparsity_pct: 96.5`. Nothing else is rescaled.
//! - The number's sign is kept: `3.45` does not verify -3.45.

use serde::Serialize;

use super::numbers::Number;
use super::registry::{Entry, Registry};

/// The default relative tolerance (SAGE's 1%).
pub const DEFAULT_TOLERANCE: f64 = 0.01;

/// Floating-point slack on the tolerance edges.
const SLACK: f64 = 1e-9;

/// What the comparison needs of a written number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Written {
    pub value: f64,
    pub half_step: f64,
    pub sig_digits: u32,
    pub percent: bool,
}

impl Written {
    pub fn of(n: &Number, percent_column: bool) -> Self {
        Written {
            value: n.value,
            half_step: n.half_step,
            sig_digits: n.sig_digits,
            percent: n.percent || percent_column,
        }
    }
}

/// The closest registry value to a written number, for the reader.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Nearest {
    pub key: String,
    pub value: f64,
    pub location: String,
    /// |a − b| / |b| under the best scaling (percent/fraction) tried.
    pub relative_diff: f64,
}

/// |a − b| ≤ tol·|b|; exact for b = 0.
pub fn within(a: f64, b: f64, tolerance: f64) -> bool {
    if b == 0.0 {
        return a == 0.0;
    }
    (a - b).abs() <= tolerance * b.abs() * (1.0 + SLACK)
}

/// `b` rounds to `a` at the written precision, and `a` is precise enough for that to mean
/// something (two significant digits or more).
pub(crate) fn rounds_to(a: f64, half_step: f64, sig_digits: u32, b: f64) -> bool {
    sig_digits >= 2 && (a - b).abs() <= half_step * (1.0 + SLACK)
}

/// The scalings under which `w` may be compared with `entry` (see the module rules).
fn scales(w: &Written, entry: &Entry) -> &'static [f64] {
    match (w.percent, entry.is_percent()) {
        (true, _) => &[1.0, 0.01],
        (false, true) => &[1.0, 100.0],
        (false, false) => &[1.0],
    }
}

/// Whether `w` verifies `entry`.
pub fn verifies(w: &Written, entry: &Entry, tolerance: f64) -> bool {
    scales(w, entry).iter().any(|s| {
        let a = w.value * s;
        within(a, entry.value, tolerance)
            || rounds_to(a, w.half_step * s, w.sig_digits, entry.value)
    })
}

/// The measured registry entry `w` verifies most closely, if any (`find_in`).
pub fn find<'r>(w: &Written, registry: &'r Registry, tolerance: f64) -> Option<&'r Entry> {
    find_in(
        w,
        registry.entries.iter().filter(|e| !e.declared),
        tolerance,
    )
}

/// The declared value (a threshold, a seed, a config value) `w` states, if any. A declared
/// value is stated as chosen, not rounded from a measurement: `w` states it only where the
/// value rounds to `w` at `w`'s own precision ("0.9" states the threshold 0.9; "0.8953" does
/// not, however near: it is a measurement, to be bound as one).
pub fn declared<'r>(w: &Written, registry: &'r Registry, _tolerance: f64) -> Option<&'r Entry> {
    registry.entries.iter().filter(|e| e.declared).find(|e| {
        scales(w, e).iter().any(|s| {
            let a = w.value * s;
            (a - e.value).abs() <= w.half_step * s * (1.0 + SLACK)
        })
    })
}

/// The registry value closest to `w` (relative difference, best scaling), if any.
pub fn nearest(w: &Written, registry: &Registry) -> Option<Nearest> {
    nearest_in(w, registry.entries.iter().filter(|e| !e.declared))
}

/// The one of `entries` that `w` verifies most closely (ties: the first), so that a number
/// is shown against the value it states rather than a neighbour within tolerance.
pub(crate) fn find_in<'r>(
    w: &Written,
    entries: impl Iterator<Item = &'r Entry>,
    tolerance: f64,
) -> Option<&'r Entry> {
    let mut best: Option<(f64, &Entry)> = None;
    for e in entries.filter(|e| verifies(w, e, tolerance)) {
        let d = distance(w, e);
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, e));
        }
    }
    best.map(|(_, e)| e)
}

/// |a − b| / |b| under the best scaling tried (infinite against a 0 that `a` is not).
fn distance(w: &Written, e: &Entry) -> f64 {
    scales(w, e)
        .iter()
        .map(|s| {
            let a = w.value * s;
            if e.value == 0.0 {
                if a == 0.0 { 0.0 } else { f64::INFINITY }
            } else {
                (a - e.value).abs() / e.value.abs()
            }
        })
        .fold(f64::INFINITY, f64::min)
}

/// The one of `entries` closest to `w` (relative difference, best scaling), if any.
pub(crate) fn nearest_in<'r>(
    w: &Written,
    entries: impl Iterator<Item = &'r Entry>,
) -> Option<Nearest> {
    let mut best: Option<(f64, &Entry)> = None;
    for e in entries {
        let d = distance(w, e);
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, e));
        }
    }
    best.filter(|(d, _)| d.is_finite()).map(|(d, e)| Nearest {
        key: e.key.clone(),
        value: e.value,
        location: e.location(),
        relative_diff: d,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::numbers::scan;

    fn written(text: &str) -> Written {
        let n = scan(text);
        assert_eq!(n.len(), 1, "{text:?} should hold one number: {n:?}");
        Written::of(&n[0], false)
    }

    fn entry(key: &str, value: f64) -> Entry {
        Entry::new(key.into(), value)
    }

    #[test]
    fn a_declared_value_is_stated_only_at_its_written_precision() {
        let mut r = Registry::empty();
        r.entries = vec![
            entry("h-c1.gate.criteria.0.value", 0.9).declared(),
            entry("h-e1.gate.evidence.0.confidence", 0.95).declared(),
        ];
        let found = |text: &str| declared(&written(text), &r, DEFAULT_TOLERANCE).map(|e| e.value);
        let cases: &[(&str, Option<f64>)] = &[
            ("0.9", Some(0.9)),
            ("0.90", Some(0.9)),
            // Within 1% of 0.9, but written to four places: a measurement, not the threshold.
            ("0.8953", None),
            ("0.9012", None),
            ("95%", Some(0.95)),
            ("95.4%", None),
        ];
        for (text, want) in cases {
            assert_eq!(found(text), *want, "{text}");
        }
    }

    #[test]
    fn within_at_the_tolerance_edges() {
        let cases = [
            (99.0, 100.0, true),   // 0.99×
            (101.0, 100.0, true),  // 1.01×
            (98.9, 100.0, false),  // just outside below
            (101.1, 100.0, false), // just outside above
            (-101.0, -100.0, true),
            (0.0, 0.0, true),
            (0.0001, 0.0, false),
            (0.8123 * 1.01, 0.8123, true),
            (0.8123 * 0.99, 0.8123, true),
            (0.8123 * 1.0101, 0.8123, false),
            (0.8123 * 0.9899, 0.8123, false),
        ];
        for (a, b, want) in cases {
            assert_eq!(within(a, b, DEFAULT_TOLERANCE), want, "{a} vs {b}");
        }
    }

    #[test]
    fn form_rules_table() {
        let cases = [
            ("0.81", "acc", 0.8123, true),         // within 1%
            ("0.812", "acc", 0.8123, true),        // within 1% and rounds
            ("0.012", "x", 0.01249, true),         // rounding as written, 3.9% off
            ("0.01", "x", 0.0132, false),          // one significant digit: no rounding
            ("3", "x", 2.6, false),                // bare small integer: no rounding
            ("96.5%", "sparsity_pct", 96.5, true), // percent vs percent
            ("96.5%", "sparsity", 0.965, true),    // percent vs fraction
            ("96%", "sparsity", 0.965, true),      // 0.96 within 1% of 0.965
            ("0.965", "sparsity_pct", 96.5, true), // fraction vs a percent entry
            ("0.965", "sparsity", 96.5, false),    // no rescale for a plain entry
            ("96.5", "sparsity", 0.965, false),    // a plain number is not a percent
            ("4,493", "n", 4493.0, true),
            ("4.5k", "n", 4493.0, true), // 4500 within 1%
            ("1.1×10⁻⁸", "p", 1.1e-8, true),
            ("1.1e-8", "p", 1.1e-8, true),
            ("1.2e-8", "p", 1.1e-8, false),
            ("−3.45", "beta", -3.45, true),
            ("3.45", "beta", -3.45, false),
            ("0", "zero", 0.0, true),
            ("0.0", "zero", 0.0, true),
            ("0.001", "zero", 0.0, false),
        ];
        for (text, key, value, want) in cases {
            let got = verifies(&written(text), &entry(key, value), DEFAULT_TOLERANCE);
            assert_eq!(got, want, "{text} vs {key} = {value}");
        }
    }

    #[test]
    fn percent_column_counts_as_percent() {
        let n = &scan("96.5")[0];
        let e = entry("sparsity", 0.965);
        assert!(!verifies(&Written::of(n, false), &e, DEFAULT_TOLERANCE));
        assert!(verifies(&Written::of(n, true), &e, DEFAULT_TOLERANCE));
    }

    #[test]
    fn find_in_takes_the_closest_match() {
        let entries = [entry("gain_min", 0.0321), entry("gain", 0.0323)];
        let got = find_in(&written("0.0323"), entries.iter(), DEFAULT_TOLERANCE);
        assert_eq!(got.map(|e| e.key.as_str()), Some("gain"));
        assert_eq!(
            find_in(&written("0.5"), entries.iter(), DEFAULT_TOLERANCE),
            None
        );
    }

    #[test]
    fn nearest_names_the_closest_value() {
        let registry = Registry {
            entries: vec![entry("a", 0.5), entry("b", 0.9), entry("c", 0.0)],
            ..Registry::empty()
        };
        let n = nearest(&written("0.95"), &registry).expect("a nearest value");
        assert_eq!(n.key, "b");
        assert!((n.relative_diff - 0.05 / 0.9).abs() < 1e-12);
        assert_eq!(nearest(&written("0.95"), &Registry::empty()), None);
    }
}
