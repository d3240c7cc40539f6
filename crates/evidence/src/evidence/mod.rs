//! Evidence from repeated measurements (issue 40, decision 0033): what a gate may conclude
//! from n values of one metric, one per repeat (seed, fold or both).
//!
//! - `stats`: `Summary` (n, mean, sd and a confidence interval: Student's t from statrs, or a
//!   seeded percentile bootstrap) and the rule that picks between them.
//! - `gain`: a comparative claim's `Gain`, summarised from the paired differences
//!   (arm − baseline, repeat by repeat), so the seed-to-seed noise both arms share cancels.
//! - `holm`: a claim's one-sided p-value read back from its interval, and Holm's correction
//!   across a run's claims.
//! - `repeats`: the results schema's one row per repeat (seed, fold), checked, and a metric's
//!   (or a gain's paired) `Sample` from it.
//! - `verdict`: the pure interval rule (PASS when the interval clears the threshold, FAIL when
//!   it misses it, INCONCLUSIVE between) and what an INCONCLUSIVE asks next, as data.
//! - `sim` + `bench`: simulated studies with known truth, measuring the false-claim rate and
//!   the power of one-measurement gating beside interval gating (`youra bench claims`).
//!
//! Pure computation: no I/O, no model call, no engine. Randomness comes from `crate::rng`.

pub mod bench;
pub mod gain;
pub mod holm;
pub mod repeats;
pub mod sim;
pub mod stats;
pub mod verdict;

pub use gain::Gain;
pub use repeats::{Repeats, Sample};
pub use stats::{Bounds, Cv, IntervalRule, Method, Spec, StatsError, Summary};
pub use verdict::{Decision, Next, Reason, Refused, Rule, Verdict};

/// `[evidence] min_repeats`'s default: five repeats, the smallest n at which a t-interval's
/// quantile (2.776 at 95%) is no longer dominated by its own uncertainty (12.7 at n = 2).
pub(crate) const MIN_REPEATS: usize = 5;
/// `[evidence] max_repeats`'s default: four looks of five (5, 10, 15, 20).
pub(crate) const MAX_REPEATS: usize = 20;
/// `[evidence] confidence`'s default.
pub const CONFIDENCE: f64 = 0.95;

/// A gate's judgement of one metric: its values summarised at the confidence the look calls
/// for (`Rule::confidence_at`), then decided against the criterion.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Judged {
    pub summary: Summary,
    pub decision: Decision,
}

/// Summarise `values` (one per repeat) for the look at `values.len()` repeats and decide
/// `op threshold` on the interval: the one call a gate makes for an absolute criterion.
pub fn judge(
    op: crate::vocab::Op,
    threshold: f64,
    values: &[f64],
    bounds: Option<Bounds>,
    rule: &Rule,
) -> Result<Judged, Refused> {
    rule.admit(values.len())?;
    let spec = rule.spec(values.len(), bounds);
    let summary = Summary::of(values, &spec).map_err(Refused::Values)?;
    let decision = verdict::decide(op, threshold, &summary, rule)?;
    Ok(Judged { summary, decision })
}

/// A gate's judgement of a gain (`arm − baseline`, paired by repeat): the decision reads the
/// paired interval, and both arms' own summaries come along for the Results table.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct JudgedGain {
    pub gain: Gain,
    pub decision: Decision,
}

/// `judge` for a comparative claim: `arm[i]` and `baseline[i]` are the same repeat (seed,
/// fold), so their difference carries no seed-to-seed noise the two arms share.
pub fn judge_gain(
    op: crate::vocab::Op,
    threshold: f64,
    arm: &[f64],
    baseline: &[f64],
    bounds: Option<Bounds>,
    rule: &Rule,
) -> Result<JudgedGain, Refused> {
    rule.admit(arm.len().min(baseline.len()))?;
    let spec = rule.spec(arm.len(), bounds);
    let gain = Gain::of(arm, baseline, &spec).map_err(Refused::Values)?;
    let decision = verdict::decide(op, threshold, &gain.diff, rule)?;
    Ok(JudgedGain { gain, decision })
}

/// A gate's judgement of one criterion from the results' repeats: a plain metric, or a gain
/// (`sample.arms`) decided on its paired differences. Cross-validation folds pooled over seeds
/// get the corrected interval and count their seeds as the repeats.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct JudgedSample {
    /// The decided quantity: the metric, or the gain's paired difference.
    pub summary: Summary,
    /// A gain's arm and baseline, each summarised on its own (for the Results table).
    pub arms: Option<(Summary, Summary)>,
    pub decision: Decision,
}

/// A metric's summary from its sample at the rule's first-look confidence, without a
/// criterion: what the paper states for an attempt's value or a baseline (no look is taken,
/// so no stricter confidence applies).
pub fn summarise(sample: &Sample, rule: &Rule) -> Result<Summary, Refused> {
    rule.admit(sample.values.len())?;
    let spec = Spec {
        cv: sample.cv,
        confidence: rule.confidence,
        ..rule.spec(sample.values.len(), None)
    };
    Summary::of(&sample.values, &spec).map_err(Refused::Values)
}

pub fn judge_sample(
    op: crate::vocab::Op,
    threshold: f64,
    sample: &Sample,
    bounds: Option<Bounds>,
    rule: &Rule,
) -> Result<JudgedSample, Refused> {
    rule.admit(sample.values.len())?;
    let units = sample.cv.map_or(sample.values.len(), |cv| cv.seeds);
    let spec = Spec {
        cv: sample.cv,
        ..rule.spec(units, bounds)
    };
    let (summary, arms) = match &sample.arms {
        None => (
            Summary::of(&sample.values, &spec).map_err(Refused::Values)?,
            None,
        ),
        Some((arm, base)) => {
            let g = Gain::of(arm, base, &spec).map_err(Refused::Values)?;
            (g.diff, Some((g.arm, g.baseline)))
        }
    };
    let decision = verdict::decide(op, threshold, &summary, rule)?;
    Ok(JudgedSample {
        summary,
        arms,
        decision,
    })
}
