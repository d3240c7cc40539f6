//! Simulated studies with a known truth, judged by youra's own gate logic (`evidence::judge`,
//! `judge_gain`): how often a gate passes a claim the truth fails (a false claim) and passes
//! one the truth holds (power), under one-measurement gating and interval gating. Each repeat
//! is the truth plus normal noise of a stated sd, clamped to the metric's [0, 1]. Seeded:
//! the same seed draws the same studies, and every gating of one scenario sees the same draws
//! (its first repeat is the one measurement), so their rates differ by the rule alone.

use serde::Serialize;

use super::stats::{Bounds, IntervalRule, Spec, Summary};
use super::verdict::{Next, Rule, Verdict};
use crate::rng::{Draw, XorShift64};
use crate::vocab::Op;

/// What a scenario's claim is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Claim {
    /// A metric against a threshold ("accuracy >= 0.92").
    Absolute,
    /// An arm's gain over a paired baseline against a threshold ("gain >= 0.02").
    Gain,
}

/// The baseline arm's level in gain scenarios: low enough that the arm plus noise stays
/// inside [0, 1], so clamping does not bend the paired differences.
pub(crate) const GAIN_BASELINE: f64 = 0.85;

/// A claim, the truth behind it and the noise of one repeat.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Scenario {
    pub name: &'static str,
    pub claim: Claim,
    pub op: Op,
    pub threshold: f64,
    /// The metric's (or the gain's) true value.
    pub truth: f64,
    /// One repeat's sd (for a gain: of the paired difference).
    pub sd: f64,
    /// For a gain: each arm's own seed-to-seed sd (shared by both arms, so it cancels).
    pub arm_sd: f64,
}

impl Scenario {
    /// Whether the claim is true. The threshold itself counts as not holding: a claim of
    /// "≥ 0.92" for a method whose truth is 0.92 has nothing to show, and a PASS there is the
    /// test's size, the worst case of a false claim.
    pub fn truth_holds(&self) -> bool {
        match self.op {
            Op::Ge | Op::Gt => self.truth > self.threshold,
            Op::Le | Op::Lt => self.truth < self.threshold,
            Op::Eq => false,
        }
    }
}

/// A gating rule with its label.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Gating {
    pub label: &'static str,
    pub rule: Rule,
}

impl Gating {
    /// Today's gate: one value, PASS when it meets the threshold (`Rule` with one repeat
    /// and no top-up, so `decide` compares the value itself).
    pub(crate) fn one_measurement() -> Gating {
        Gating {
            label: "one measurement",
            rule: Rule {
                min_repeats: 1,
                max_repeats: 1,
                ..Rule::default()
            },
        }
    }
}

/// Outcomes of `studies` simulated studies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Tally {
    pub studies: u64,
    pub pass: u64,
    pub fail: u64,
    pub inconclusive: u64,
    /// Repeats run, over all studies.
    pub repeats: u64,
}

impl Tally {
    pub fn pass_rate(&self) -> f64 {
        self.pass as f64 / self.studies.max(1) as f64
    }
    pub(crate) fn mean_repeats(&self) -> f64 {
        self.repeats as f64 / self.studies.max(1) as f64
    }
}

/// A standard normal draw (Box–Muller; `1 − u` keeps the log's argument in (0, 1]).
pub fn normal(rng: &mut impl Draw) -> f64 {
    let u1 = 1.0 - rng.draw();
    let u2 = rng.draw();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// One repeat: (arm, baseline) values; the baseline is unused for an absolute claim.
fn repeat(s: &Scenario, rng: &mut impl Draw) -> (f64, f64) {
    let unit = |x: f64| x.clamp(0.0, 1.0);
    match s.claim {
        Claim::Absolute => (unit(s.truth + s.sd * normal(rng)), 0.0),
        Claim::Gain => {
            let base = GAIN_BASELINE + s.arm_sd * normal(rng);
            (unit(base + s.truth + s.sd * normal(rng)), unit(base))
        }
    }
}

/// One study under `rule`: repeats until the verdict asks for no more. Returns the verdict
/// and the repeats it took.
pub fn study(s: &Scenario, rule: &Rule, rng: &mut impl Draw) -> (Verdict, usize) {
    let (mut arm, mut base) = (Vec::new(), Vec::new());
    let mut want = rule.min_repeats.max(1);
    loop {
        while arm.len() < want {
            let (a, b) = repeat(s, rng);
            arm.push(a);
            base.push(b);
        }
        let bounds = Some(Bounds::UNIT);
        let decision = match s.claim {
            Claim::Absolute => {
                super::judge(s.op, s.threshold, &arm, bounds, rule).map(|j| j.decision)
            }
            Claim::Gain => {
                super::judge_gain(s.op, s.threshold, &arm, &base, bounds, rule).map(|j| j.decision)
            }
        };
        match decision {
            Ok(d) => match d.next {
                Next::MoreRepeats { want: w, .. } if w > arm.len() => want = w,
                _ => return (d.verdict, arm.len()),
            },
            // Unreachable with finite draws and a valid rule; never counted as a pass.
            Err(_) => return (Verdict::Inconclusive, arm.len()),
        }
    }
}

/// `studies` studies of `s` under `rule`, drawn from `seed`.
pub fn run(s: &Scenario, rule: &Rule, studies: u64, seed: u64) -> Tally {
    let mut rng = XorShift64::new(seed);
    let mut t = Tally {
        studies,
        ..Tally::default()
    };
    for _ in 0..studies {
        let (verdict, n) = study(s, rule, &mut rng);
        t.repeats += n as u64;
        match verdict {
            Verdict::Pass => t.pass += 1,
            Verdict::Fail => t.fail += 1,
            Verdict::Inconclusive => t.inconclusive += 1,
        }
    }
    t
}

/// The noise a coverage check draws from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Noise {
    /// Normal around `mean` with `sd` (a fold's accuracy far from the bounds).
    Normal { mean: f64, sd: f64 },
    /// A fold of `size` items each right with probability `p`: near 1 the fold accuracy is
    /// skewed and hugs the bound.
    Fold { size: u32, p: f64 },
}

impl Noise {
    fn truth(&self) -> f64 {
        match *self {
            Noise::Normal { mean, .. } => mean,
            Noise::Fold { p, .. } => p,
        }
    }

    fn draw(&self, rng: &mut impl Draw) -> f64 {
        match *self {
            Noise::Normal { mean, sd } => (mean + sd * normal(rng)).clamp(0.0, 1.0),
            Noise::Fold { size, p } => {
                (0..size).filter(|_| rng.draw() < p).count() as f64 / f64::from(size)
            }
        }
    }
}

/// How often intervals hold the truth, and on which side they miss it: `lo_above` is the
/// share whose lower bound lies above the truth (a false PASS of a `>=` claim whose
/// threshold is the truth), `hi_below` the mirror for `<=`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Coverage {
    pub covers: f64,
    pub lo_above: f64,
    pub hi_below: f64,
}

/// `trials` intervals of `n` values each, at `confidence`, against the truth.
pub fn coverage(
    noise: Noise,
    n: usize,
    interval: IntervalRule,
    confidence: f64,
    trials: u64,
    seed: u64,
) -> Coverage {
    let mut rng = XorShift64::new(seed);
    let spec = Spec {
        confidence,
        interval,
        bounds: Some(Bounds::UNIT),
        cv: None,
    };
    let truth = noise.truth();
    let (mut above, mut below) = (0u64, 0u64);
    for _ in 0..trials {
        let values: Vec<f64> = (0..n).map(|_| noise.draw(&mut rng)).collect();
        match Summary::of(&values, &spec) {
            Ok(s) if s.lo > truth => above += 1,
            Ok(s) if s.hi < truth => below += 1,
            Ok(_) => {}
            // Unreachable for finite draws; counted as a miss rather than a cover.
            Err(_) => above += 1,
        }
    }
    let t = trials.max(1) as f64;
    Coverage {
        covers: 1.0 - (above + below) as f64 / t,
        lo_above: above as f64 / t,
        hi_below: below as f64 / t,
    }
}

#[cfg(test)]
#[path = "sim_tests.rs"]
mod tests;
