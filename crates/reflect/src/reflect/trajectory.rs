//! TrajPivot (SAGE): features of a gate metric's trajectory over steps, folds or epochs, so
//! attribution is grounded in observed dynamics rather than free-form logs.
//!
//! Every feature is computed on the *oriented* series `y = o·x` (o = +1 when higher is
//! better, −1 when lower is better, so "up is good" for a loss too) and divided by the
//! series' magnitude `m = max(max|y|, 1e-12)`, so features compare across metrics of any
//! unit. With `n` points and gains `g_i = (y_{i+1} − y_i)/m`:
//!
//! | feature | formula | reads as |
//! |---|---|---|
//! | decay D | `1 − ḡ_last / max(ε, ḡ_first)`, ε = [`EPSILON`] | ≈0 gains sustained, ≈1 gains vanished, >1 late steps lose ground |
//! | slope S | least-squares slope of `y` over the index × (n−1) / m | the fitted net change over the whole series, as a share of m |
//! | volatility V | `(Σ|Δy| − |y_n − y_1|) / ((n−1)·m)` | back-and-forth per step that bought no net progress; 0 for a monotone series |
//!
//! `ḡ_first` / `ḡ_last` are the mean gains of the first / last third of the steps (at least
//! one step each): single steps are too noisy to compare. SAGE's D is a *marginal* decay:
//! it compares gains, not levels, which is what tells saturation from a plateau at the start.
//! ε keeps D finite when the early gain is nil; D is then large in magnitude and meaningless,
//! which is why [`Signature::Saturation`] also asks for a real early rise.

use serde::Serialize;

/// Below this mean early gain (0.1 % of the magnitude per step) D's denominator is ε.
pub const EPSILON: f64 = 1e-3;
/// Magnitude floor, so an all-zero series gives zero features instead of NaN.
const MAGNITUDE_FLOOR: f64 = 1e-12;
/// V at or above this (5 % of the magnitude per step of wasted motion) is Instability.
pub(crate) const VOLATILITY_MIN: f64 = 0.05;
/// |S| below this (fitted net change under 2 % of the magnitude) is Stagnation.
pub(crate) const FLAT_SLOPE: f64 = 0.02;
/// An early mean gain above this (1 % per step) counts as having risen.
pub(crate) const RISE_MIN: f64 = 0.01;
/// D at or above this (late gains under 30 % of early ones) is Saturation.
pub(crate) const SATURATION_DECAY: f64 = 0.7;

/// The shape of a failed gate's metric over time. The engine only analyses failed gates, so
/// every signature is "below target": Stagnation is flat far from it, Saturation rose and
/// plateaued short of it, Improving was still climbing when the run stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Signature {
    /// Wasted motion (or a non-finite value: a diverged run).
    Instability,
    /// No net progress.
    Stagnation,
    /// Rose, then the gains died out.
    Saturation,
    /// Still gaining at the end: more budget might have passed the gate.
    Improving,
    /// Net progress was negative: the metric got worse.
    Decline,
}

impl Signature {
    pub fn as_str(self) -> &'static str {
        match self {
            Signature::Instability => "instability",
            Signature::Stagnation => "stagnation",
            Signature::Saturation => "saturation",
            Signature::Improving => "improving",
            Signature::Decline => "decline",
        }
    }
}

/// Features of a series with at least two finite points.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Features {
    /// Finite points analysed.
    pub points: usize,
    /// Non-finite points dropped (NaN, ±inf); any makes the signature Instability.
    pub dropped: usize,
    pub decay: f64,
    pub slope: f64,
    pub volatility: f64,
    pub signature: Signature,
}

impl Features {
    /// One line for prompts and memory records; its names are the ones evidence may cite.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "decay={:.3} slope={:.3} volatility={:.3} signature={} (n={})",
            self.decay,
            self.slope,
            self.volatility,
            self.signature.as_str(),
            self.points
        );
        if self.dropped > 0 {
            s.push_str(&format!(", {} non-finite dropped", self.dropped));
        }
        s
    }
}

/// What can be said about a trajectory.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Trajectory {
    /// Fewer than two finite points: nothing to attribute from. The engine sends such runs to
    /// implementation repair (a run that logged no curve failed to run, not to learn).
    Insufficient {
        points: usize,
    },
    Features(Features),
}

/// Analyses the gate metric's values in order. Pure and total.
pub fn analyse(values: &[f64], higher_is_better: bool) -> Trajectory {
    let o = if higher_is_better { 1.0 } else { -1.0 };
    let y: Vec<f64> = values
        .iter()
        .filter(|v| v.is_finite())
        .map(|v| o * v)
        .collect();
    let dropped = values.len() - y.len();
    if y.len() < 2 {
        return Trajectory::Insufficient { points: y.len() };
    }
    let m = y
        .iter()
        .fold(0.0_f64, |a, v| a.max(v.abs()))
        .max(MAGNITUDE_FLOOR);
    let gains: Vec<f64> = y.windows(2).map(|w| (w[1] - w[0]) / m).collect();
    let (first, last) = window_means(&gains);
    let decay = 1.0 - last / first.max(EPSILON);
    let slope = ls_slope(&y) * (y.len() - 1) as f64 / m;
    let wasted = gains.iter().map(|g| g.abs()).sum::<f64>() - gains.iter().sum::<f64>().abs();
    let volatility = (wasted / gains.len() as f64).max(0.0);
    let signature = classify(dropped, decay, slope, volatility, first);
    Trajectory::Features(Features {
        points: y.len(),
        dropped,
        decay,
        slope,
        volatility,
        signature,
    })
}

/// Mean gain of the first and of the last third of the steps (at least one step each).
fn window_means(gains: &[f64]) -> (f64, f64) {
    let w = gains.len().div_ceil(3).max(1);
    let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len() as f64;
    (mean(&gains[..w]), mean(&gains[gains.len() - w..]))
}

/// Ordinary least-squares slope of `y` against 0, 1, …, n−1 (n ≥ 2, so the index varies).
fn ls_slope(y: &[f64]) -> f64 {
    let n = y.len() as f64;
    let mean_x = (n - 1.0) / 2.0;
    let mean_y = y.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, v) in y.iter().enumerate() {
        let dx = i as f64 - mean_x;
        sxy += dx * (v - mean_y);
        sxx += dx * dx;
    }
    sxy / sxx
}

/// The first rule that holds, in this order: instability hides every other shape, a flat
/// series cannot have saturated, and saturation is a special case of net gain.
pub fn classify(
    dropped: usize,
    decay: f64,
    slope: f64,
    volatility: f64,
    early_gain: f64,
) -> Signature {
    if dropped > 0 || volatility >= VOLATILITY_MIN {
        Signature::Instability
    } else if slope.abs() < FLAT_SLOPE {
        Signature::Stagnation
    } else if slope > 0.0 && early_gain > RISE_MIN && decay >= SATURATION_DECAY {
        Signature::Saturation
    } else if slope > 0.0 {
        Signature::Improving
    } else {
        Signature::Decline
    }
}

#[cfg(test)]
#[path = "trajectory_tests.rs"]
mod tests;
