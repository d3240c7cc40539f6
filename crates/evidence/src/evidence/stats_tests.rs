//! Intervals against reference values from an independent implementation: SciPy 1.17.1
//! (`scipy.stats.t.ppf`, `scipy.stats.t.interval(c, n-1, loc=mean, scale=sd/sqrt(n))`,
//! `scipy.stats.bootstrap(..., method='percentile', n_resamples=400000, random_state=0)`),
//! pasted here with the inputs that produced them. The t quantiles also match the textbook
//! tables (t(0.975, 4) = 2.776, t(0.975, 9) = 2.262, t(0.975, 29) = 2.045).

use super::*;
use crate::evidence::Gain;
use crate::vocab::Op;

fn spec(confidence: f64, interval: IntervalRule, bounds: Option<Bounds>) -> Spec {
    Spec {
        confidence,
        interval,
        bounds,
        cv: None,
    }
}

fn close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got}, want {want} (±{tol})"
    );
}

#[test]
fn t_quantiles_match_scipy() {
    // (p, df, scipy.stats.t.ppf(p, df))
    let table = [
        (0.975, 1.0, 12.706204736174694),
        (0.975, 2.0, 4.302652729749462),
        (0.975, 4.0, 2.7764451051977934),
        (0.975, 9.0, 2.262157162798205),
        (0.975, 19.0, 2.0930240544083087),
        (0.975, 29.0, 2.045229642132703),
        (1.0 - 0.05 / 3.0 / 2.0, 9.0, 2.93332408837399),
        (1.0 - 0.05 / 3.0 / 2.0, 14.0, 2.7177551594597733),
        (1.0 - 0.05 / 3.0 / 2.0, 19.0, 2.625105913222787),
        (0.995, 4.0, 4.604094871349992),
    ];
    for (p, df, want) in table {
        close(t_quantile(p, df), want, 1e-9, &format!("t({p}, {df})"));
    }
    assert_eq!(t_quantile(1.0, 4.0), f64::INFINITY, "p = 1 has no quantile");
}

#[test]
fn t_intervals_match_scipy() {
    // The demo's five folds of seed 0 (nearest centroid, standardised bills), ten seeds'
    // CV means, a 30-value sweep and a pair: (values, confidence, n, mean, sd, lo, hi).
    let a = [0.971, 0.913, 0.9265, 0.9265, 0.9412];
    let b = [
        0.9356, 0.9327, 0.9328, 0.9358, 0.9329, 0.9327, 0.9327, 0.9327, 0.9327, 0.9356,
    ];
    let c: Vec<f64> = (0..30)
        .map(|i| ((0.80 + 0.01 * ((7 * i) % 13) as f64) * 100.0).round() / 100.0)
        .collect();
    let d = [0.5, 0.7];
    // (values, confidence, mean, sd, lo, hi)
    type Row<'a> = (&'a [f64], f64, f64, f64, f64, f64);
    let table: [Row; 8] = [
        (
            &a,
            0.95,
            0.9356399999999999,
            0.02214098010477403,
            0.9081483421189562,
            0.9631316578810436,
        ),
        (
            &a,
            0.99,
            0.9356399999999999,
            0.02214098010477403,
            0.8900514159440566,
            0.9812285840559433,
        ),
        (
            &b,
            0.95,
            0.9336200000000001,
            0.0014148419621207845,
            0.93260788303154,
            0.9346321169684603,
        ),
        (
            &b,
            0.99,
            0.9336200000000001,
            0.0014148419621207845,
            0.9321659835636347,
            0.9350740164363656,
        ),
        (
            &c,
            0.95,
            0.8573333333333333,
            0.03841096586719182,
            0.8429904429597179,
            0.8716762237069486,
        ),
        (
            &c,
            0.99,
            0.8573333333333333,
            0.03841096586719182,
            0.8380032101876015,
            0.8766634564790651,
        ),
        (
            &d,
            0.95,
            0.6,
            0.14142135623730948,
            -0.6706204736174691,
            1.870620473617469,
        ),
        (
            &d,
            0.99,
            0.6,
            0.14142135623730948,
            -5.765674116287151,
            6.9656741162871505,
        ),
    ];
    for (values, conf, mean, sd, lo, hi) in table {
        let s = Summary::of(values, &spec(conf, IntervalRule::T, None)).unwrap();
        let at = format!("n {} at {conf}", values.len());
        assert_eq!(
            (s.n, s.method, s.confidence),
            (values.len(), Method::T, conf)
        );
        close(s.mean, mean, 1e-12, &at);
        close(s.sd, sd, 1e-12, &at);
        close(s.lo, lo, 1e-9, &at);
        close(s.hi, hi, 1e-9, &at);
    }
    // Auto is t even where t leaves [0, 1]; the interval is clipped to the bounds.
    let s = Summary::of(&d, &spec(0.95, IntervalRule::Auto, Some(Bounds::UNIT))).unwrap();
    assert_eq!((s.method, s.lo, s.hi), (Method::T, 0.0, 1.0));
}

#[test]
fn bootstrap_matches_scipy_within_its_monte_carlo_error() {
    // Twenty near-perfect fold accuracies, skewed left (scipy.stats.skew: -2.4238).
    let s20 = [
        0.99, 1.0, 1.0, 0.97, 1.0, 1.0, 0.99, 1.0, 0.93, 1.0, 1.0, 0.98, 1.0, 1.0, 1.0, 0.96, 1.0,
        0.99, 1.0, 0.88,
    ];
    let boot = Summary::of(
        &s20,
        &spec(0.95, IntervalRule::Bootstrap, Some(Bounds::UNIT)),
    )
    .unwrap();
    // scipy percentile bootstrap, 400000 resamples: [0.97, 0.9955].
    assert_eq!(boot.method, Method::Bootstrap);
    close(boot.lo, 0.97, 0.002, "bootstrap lo");
    close(boot.hi, 0.9955, 0.002, "bootstrap hi");
    // Auto keeps t's symmetric [0.9702, 0.9988] even here: it covers better (decision 0033).
    let auto = Summary::of(&s20, &spec(0.95, IntervalRule::Auto, Some(Bounds::UNIT))).unwrap();
    assert_eq!(auto.method, Method::T);
    let t = Summary::of(&s20, &spec(0.95, IntervalRule::T, Some(Bounds::UNIT))).unwrap();
    close(t.lo, 0.970217385816664, 1e-9, "t lo");
    close(t.hi, 0.9987826141833359, 1e-9, "t hi");
    // The same values give the same interval (the seed is theirs), other values another.
    assert_eq!(
        Summary::of(&s20, &spec(0.95, IntervalRule::Bootstrap, None)).unwrap(),
        boot
    );
    let mut other = s20;
    other[0] = 0.98;
    let o = Summary::of(&other, &spec(0.95, IntervalRule::Bootstrap, None)).unwrap();
    assert_ne!((o.lo, o.hi), (boot.lo, boot.hi));
}

#[test]
fn hostile_values_are_refused_by_kind() {
    let sp = spec(0.95, IntervalRule::Auto, None);
    assert_eq!(Summary::of(&[], &sp), Err(StatsError::Empty));
    let e = Summary::of(&[0.9, f64::NAN, 0.8], &sp).unwrap_err();
    assert!(matches!(e, StatsError::NotFinite { index: 1, .. }), "{e:?}");
    assert!(e.to_string().contains("repeat 1"), "{e}");
    let e = Summary::of(&[0.9, 0.8, f64::INFINITY], &sp).unwrap_err();
    assert!(matches!(e, StatsError::NotFinite { index: 2, .. }), "{e:?}");
    for c in [0.0, 1.0, -0.5, f64::NAN, 1.5] {
        assert!(matches!(
            Summary::of(&[0.9, 0.8], &spec(c, IntervalRule::T, None)),
            Err(StatsError::Confidence(_))
        ));
    }
}

#[test]
fn one_value_is_its_own_interval_and_equal_values_have_no_width() {
    let sp = spec(0.95, IntervalRule::Auto, Some(Bounds::UNIT));
    let s = Summary::of(&[0.9356], &sp).unwrap();
    assert_eq!(
        (s.n, s.sd, s.lo, s.hi, s.method),
        (1, 0.0, 0.9356, 0.9356, Method::Single)
    );
    let s = Summary::of(&[1.0; 5], &sp).unwrap();
    assert_eq!((s.sd, s.lo, s.hi), (0.0, 1.0, 1.0));
}

#[test]
fn gains_are_paired_and_pairing_narrows_the_interval() {
    // Two arms whose fold-to-fold noise is shared: apart their intervals overlap, the paired
    // differences (all 0.03 ± 0.005) clear 0.02.
    let base = [0.80, 0.90, 0.85, 0.95, 0.88];
    let arm = [0.835, 0.925, 0.885, 0.98, 0.905];
    let sp = spec(0.95, IntervalRule::T, Some(Bounds::UNIT));
    let g = Gain::of(&arm, &base, &sp).unwrap();
    assert!(g.arm.lo < g.baseline.hi, "the arms' own intervals overlap");
    close(g.diff.mean, 0.03, 1e-12, "gain");
    assert!(g.diff.lo > 0.02, "{:?}", g.diff);
    close(
        g.diff.mean,
        g.arm.mean - g.baseline.mean,
        1e-12,
        "mean of differences",
    );
    // Unpaired lengths are refused, not truncated; a NaN names its repeat.
    assert_eq!(
        Gain::of(&arm[..4], &base, &sp),
        Err(StatsError::Unpaired {
            arm: 4,
            baseline: 5
        })
    );
    let mut bad = base;
    bad[3] = f64::NAN;
    assert!(matches!(
        Gain::of(&arm, &bad, &sp),
        Err(StatsError::NotFinite { index: 3, .. })
    ));
}

#[test]
fn the_card_reads_as_the_issue_writes_it() {
    let s = Summary {
        n: 5,
        repeats: 5,
        mean: 0.936,
        sd: 0.0064,
        lo: 0.928,
        hi: 0.944,
        confidence: 0.95,
        method: Method::T,
    };
    assert_eq!(
        s.card(Op::Ge, 0.92),
        "0.936 ± 0.008, n 5, 95% CI 0.928–0.944 vs ≥ 0.92"
    );
    assert_eq!(percent(1.0 - 0.05 / 3.0), "98.3%");
    let one = Summary {
        n: 1,
        repeats: 1,
        method: Method::Single,
        lo: 0.936,
        hi: 0.936,
        ..s
    };
    assert_eq!(one.card(Op::Le, 0.1), "0.936, n 1 (no interval) vs ≤ 0.1");
}
