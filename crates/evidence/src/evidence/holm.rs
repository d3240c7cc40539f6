//! Several claims tested in one run (issue 40 item 5): each gate's interval holds its own
//! error at 1 − confidence, so a run of m claims could make one false claim with a
//! probability near m times that. Holm's step-down correction (Holm 1979) keeps the
//! family-wise error at 1 − confidence and is never less powerful than Bonferroni.
//!
//! A claim's one-sided p-value is read back from its interval: the standard error is the
//! interval's half-width over the t quantile it was built with (for the corrected resampled
//! t the same holds, its correction being in the half-width), and p is the t tail beyond the
//! threshold in the claim's direction.

use statrs::distribution::{ContinuousCDF, StudentsT};

use super::stats::t_quantile;
use crate::vocab::Op;

/// The one-sided p-value of `op threshold` from a summary's mean, interval and n (at
/// `confidence`); `None` where it cannot be read back (one value, a zero-width interval, an
/// equality claim).
pub fn p_value(
    op: Op,
    threshold: f64,
    mean: f64,
    lo: f64,
    hi: f64,
    n: usize,
    confidence: f64,
) -> Option<f64> {
    // NaN bounds fail every comparison, so each check is written to fail closed on them.
    let spread = hi - lo;
    if n < 2
        || spread.is_nan()
        || spread <= 0.0
        || confidence.is_nan()
        || confidence <= 0.0
        || confidence >= 1.0
    {
        return None;
    }
    let df = (n - 1) as f64;
    let q = t_quantile(1.0 - (1.0 - confidence) / 2.0, df);
    let se = (hi - lo) / 2.0 / q;
    if !(se > 0.0 && se.is_finite()) {
        return None;
    }
    // The claim's side: for `>=`, evidence is the mean above the threshold.
    let t = match op {
        Op::Ge | Op::Gt => (mean - threshold) / se,
        Op::Le | Op::Lt => (threshold - mean) / se,
        Op::Eq => return None,
    };
    let dist = StudentsT::new(0.0, 1.0, df).ok()?;
    Some((1.0 - dist.cdf(t)).clamp(0.0, 1.0))
}

/// Holm-adjusted p-values, in the order given: sorted ascending, the k-th smallest (k from 0)
/// is multiplied by m − k, and the adjusted values are made non-decreasing along that order.
pub fn holm(ps: &[f64]) -> Vec<f64> {
    let m = ps.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| ps[a].total_cmp(&ps[b]));
    let mut out = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (k, &i) in order.iter().enumerate() {
        let adj = ((m - k) as f64 * ps[i]).min(1.0);
        running = running.max(adj);
        out[i] = running;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holm_matches_a_hand_computation_and_statsmodels() {
        // statsmodels.stats.multitest.multipletests([0.01, 0.04, 0.03, 0.005], method="holm")
        // gives [0.03, 0.06, 0.06, 0.02].
        let adj = holm(&[0.01, 0.04, 0.03, 0.005]);
        for (got, want) in adj.iter().zip([0.03, 0.06, 0.06, 0.02]) {
            assert!((got - want).abs() < 1e-12, "{adj:?}");
        }
        assert_eq!(holm(&[0.5]), vec![0.5]);
        assert_eq!(holm(&[0.6, 0.9]), vec![1.0, 1.0]);
        assert!(holm(&[]).is_empty());
    }

    #[test]
    fn a_p_value_is_read_back_from_its_interval() {
        // mean 0.936, sd 0.008, n 5: se 0.0035777; t(0.975, 4) = 2.7764451051977934.
        let se = 0.008 / 5f64.sqrt();
        let half = 2.7764451051977934 * se;
        let p = p_value(Op::Ge, 0.92, 0.936, 0.936 - half, 0.936 + half, 5, 0.95).unwrap();
        // Student's t with 4 degrees of freedom in closed form, F(t) = 1/2 + (3/8) u (1 − t² /
        // (12 (1 + t²/4))) with u = t / √(1 + t²/4): at t = 4.4721, 1 − F = 0.0055282467.
        assert!((p - 0.0055282467).abs() < 1e-8, "{p}");
        // At the lower bound the one-sided p is exactly α/2.
        let at_lo = p_value(
            Op::Ge,
            0.936 - half,
            0.936,
            0.936 - half,
            0.936 + half,
            5,
            0.95,
        )
        .unwrap();
        assert!((at_lo - 0.025).abs() < 1e-9, "{at_lo}");
        let le = p_value(Op::Le, 0.95, 0.936, 0.936 - half, 0.936 + half, 5, 0.95).unwrap();
        assert!(le < 0.01, "{le}");
        assert_eq!(p_value(Op::Ge, 0.9, 0.9, 0.9, 0.9, 1, 0.95), None);
        assert_eq!(p_value(Op::Eq, 0.9, 0.9, 0.8, 1.0, 5, 0.95), None);
    }
}
