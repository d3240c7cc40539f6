//! A comparative claim's evidence: the gain of an arm over its baseline, summarised from the
//! paired differences `arm[i] − baseline[i]` of the same repeat (seed, fold). Pairing is what
//! makes a small gain measurable: the split that makes one fold hard makes it hard for both
//! arms, and that shared noise cancels in the difference but not in two separate intervals.

use serde::Serialize;

use super::stats::{Spec, StatsError, Summary};

/// Both arms' own summaries (for the Results table) and the paired difference's (for the
/// gate).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Gain {
    pub arm: Summary,
    pub baseline: Summary,
    /// arm − baseline, repeat by repeat: its interval decides a gain's criterion.
    pub diff: Summary,
}

impl Gain {
    /// `arm[i]` and `baseline[i]` must come from the same repeat; unequal lengths are refused
    /// rather than truncated (a missing repeat is a failed run to report, not to hide).
    pub fn of(arm: &[f64], baseline: &[f64], spec: &Spec) -> Result<Gain, StatsError> {
        if arm.len() != baseline.len() {
            return Err(StatsError::Unpaired {
                arm: arm.len(),
                baseline: baseline.len(),
            });
        }
        let diffs: Vec<f64> = arm.iter().zip(baseline).map(|(a, b)| a - b).collect();
        let diff_spec = Spec {
            bounds: spec.bounds.map(|b| b.difference()),
            ..*spec
        };
        Ok(Gain {
            arm: Summary::of(arm, spec)?,
            baseline: Summary::of(baseline, spec)?,
            diff: Summary::of(&diffs, &diff_spec)?,
        })
    }
}
