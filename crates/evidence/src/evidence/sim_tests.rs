//! The simulated studies: their truth, their determinism, the error rates the rule promises,
//! and the coverage figures that chose `auto`'s switch to the bootstrap (decision 0033).

use super::*;

fn at_threshold(claim: Claim) -> Scenario {
    Scenario {
        name: "at",
        claim,
        op: Op::Ge,
        threshold: if claim == Claim::Gain { 0.02 } else { 0.92 },
        truth: if claim == Claim::Gain { 0.02 } else { 0.92 },
        sd: 0.026,
        arm_sd: 0.026,
    }
}

#[test]
fn the_threshold_counts_as_not_holding() {
    let s = at_threshold(Claim::Absolute);
    assert!(!s.truth_holds());
    assert!(Scenario { truth: 0.9201, ..s }.truth_holds());
    let le = Scenario {
        op: Op::Le,
        truth: 0.9199,
        ..s
    };
    assert!(le.truth_holds());
    assert!(!Scenario { truth: 0.92, ..le }.truth_holds());
}

#[test]
fn studies_are_seeded() {
    let s = at_threshold(Claim::Gain);
    let rule = Rule::default();
    assert_eq!(run(&s, &rule, 200, 9), run(&s, &rule, 200, 9));
    assert_ne!(run(&s, &rule, 200, 9), run(&s, &rule, 200, 10));
}

#[test]
fn at_the_threshold_one_measurement_is_a_coin_toss_and_the_interval_is_bounded() {
    let n = 2000;
    for claim in [Claim::Absolute, Claim::Gain] {
        let s = at_threshold(claim);
        let today = run(&s, &Gating::one_measurement().rule, n, 1);
        assert_eq!(
            (today.inconclusive, today.repeats),
            (0, n),
            "one value, always decided"
        );
        assert!(
            (0.46..0.54).contains(&today.pass_rate()),
            "{claim:?}: {today:?}"
        );
        let one_look = Rule {
            max_repeats: 5,
            ..Rule::default()
        };
        let once = run(&s, &one_look, n, 1);
        // One side of a 95% interval: 2.5% (± its binomial error at 2000 studies).
        assert!(once.pass_rate() < 0.045, "{claim:?}: {once:?}");
        let looped = run(&s, &Rule::default(), n, 1);
        assert!(looped.pass_rate() <= 0.05, "{claim:?}: {looped:?}");
        assert!(looped.mean_repeats() > 5.0 && looped.mean_repeats() <= 20.0);
        assert_eq!(looped.pass + looped.fail + looped.inconclusive, n);
    }
}

#[test]
fn a_real_effect_passes_more_often_with_repeats() {
    let s = Scenario {
        truth: 0.96,
        ..at_threshold(Claim::Absolute)
    };
    let once = run(
        &s,
        &Rule {
            max_repeats: 5,
            ..Rule::default()
        },
        1000,
        2,
    );
    let looped = run(&s, &Rule::default(), 1000, 2);
    assert!(looped.pass_rate() > once.pass_rate(), "{once:?} {looped:?}");
    assert!(looped.pass_rate() > 0.8, "{looped:?}");
}

#[test]
fn t_covers_at_its_rate_and_the_bootstrap_undercovers_at_small_n() {
    let normal = Noise::Normal {
        mean: 0.93,
        sd: 0.026,
    };
    let t5 = coverage(normal, 5, IntervalRule::T, 0.95, 4000, 1);
    assert!((0.935..0.965).contains(&t5.covers), "t at n 5: {t5:?}");
    assert!(t5.lo_above < 0.035 && t5.hi_below < 0.035, "{t5:?}");
    assert!((t5.covers + t5.lo_above + t5.hi_below - 1.0).abs() < 1e-12);
    let boot5 = coverage(normal, 5, IntervalRule::Bootstrap, 0.95, 1000, 1);
    assert!(boot5.covers < 0.90, "bootstrap at n 5: {boot5:?}");
    assert!(boot5.lo_above > t5.lo_above, "{boot5:?} {t5:?}");
    // A near-perfect fold's accuracy is skewed against 1: still t is not behind.
    let fold = Noise::Fold { size: 68, p: 0.98 };
    let t20 = coverage(fold, 20, IntervalRule::T, 0.95, 500, 1);
    let boot20 = coverage(fold, 20, IntervalRule::Bootstrap, 0.95, 500, 1);
    assert!(t20.covers >= boot20.covers, "{t20:?} {boot20:?}");
}
