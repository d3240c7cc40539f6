//! The statistics of the allocation benchmark, pure: means with 95% intervals, paired
//! differences (searchers meet the same tasks, so a per-task difference removes the tasks'
//! spread), the paper's protocol repeated (who ranks first on a draw of 8 tasks), and the
//! verdict a paired interval supports.

use std::ops::Range;

/// Tasks per draw: PrimeScientist's Table 5 compares policies on 8 tasks, one search each.
pub const DRAW: usize = 8;

/// Mean and standard error of the mean.
pub fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len();
    if n == 0 {
        return (0.0, 0.0);
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return (mean, 0.0);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    (mean, (var / n as f64).sqrt())
}

/// Mean of a − b task by task, and the half-width of its 95% interval (1.96 s.e.).
pub fn paired(a: &[f64], b: &[f64]) -> (f64, f64) {
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let (m, se) = mean_se(&d);
    (m, 1.96 * se)
}

/// The tasks split into consecutive, disjoint draws of `DRAW` (a remainder is left out);
/// fewer tasks than that make one draw of all of them.
pub fn draws(tasks: usize) -> Vec<Range<usize>> {
    if tasks < DRAW {
        return (tasks > 0).then_some(0..tasks).into_iter().collect();
    }
    (0..tasks / DRAW)
        .map(|d| d * DRAW..(d + 1) * DRAW)
        .collect()
}

/// For each competitor (a row of `scores`, one score per task), the share of `draws` in
/// which its mean score is the highest. A tie splits the draw among those tied.
pub fn first_shares(scores: &[&[f64]], draws: &[Range<usize>]) -> Vec<f64> {
    let mut wins = vec![0.0; scores.len()];
    for d in draws {
        let means: Vec<f64> = scores
            .iter()
            .map(|s| s[d.clone()].iter().sum::<f64>() / d.len().max(1) as f64)
            .collect();
        let top = means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let tied: Vec<usize> = (0..means.len()).filter(|&i| means[i] == top).collect();
        for &i in &tied {
            wins[i] += 1.0 / tied.len() as f64;
        }
    }
    let n = draws.len().max(1) as f64;
    wins.into_iter().map(|w| w / n).collect()
}

/// What a paired difference (a − b, ± its 95% half-width) says about a against b.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Wins,
    Loses,
    /// The interval contains 0.
    Indistinct,
}

impl Verdict {
    pub fn of(diff: f64, ci95: f64) -> Verdict {
        if diff - ci95 > 0.0 {
            Verdict::Wins
        } else if diff + ci95 < 0.0 {
            Verdict::Loses
        } else {
            Verdict::Indistinct
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Wins => "wins",
            Verdict::Loses => "loses",
            Verdict::Indistinct => "tie",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_standard_error_by_hand() {
        let table: &[(&[f64], f64, f64)] = &[
            (&[], 0.0, 0.0),
            (&[0.5], 0.5, 0.0),
            (&[1.0, 3.0], 2.0, 1.0), // sd √2, se √2/√2
            (
                &[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0],
                5.0,
                (32.0f64 / 7.0 / 8.0).sqrt(),
            ),
        ];
        for &(xs, mean, se) in table {
            let got = mean_se(xs);
            assert!(
                (got.0 - mean).abs() < 1e-12 && (got.1 - se).abs() < 1e-12,
                "{xs:?}: {got:?}"
            );
        }
    }

    #[test]
    fn a_paired_difference_ignores_what_both_share() {
        // The tasks differ by a lot, the searchers by a constant 0.1: no spread is left.
        let a = [0.2, 0.9, 0.5];
        let b = [0.1, 0.8, 0.4];
        let (d, ci) = paired(&a, &b);
        assert!((d - 0.1).abs() < 1e-12 && ci < 1e-12, "{d} {ci}");
        let (d, ci) = paired(&[1.0, 0.0], &[0.0, 1.0]);
        assert_eq!((d, ci), (0.0, 1.96));
    }

    #[test]
    fn draws_are_disjoint_runs_of_eight() {
        // (tasks, the draws as (start, end))
        let table: &[(usize, &[(usize, usize)])] = &[
            (0, &[]),
            (3, &[(0, 3)]),
            (8, &[(0, 8)]),
            (20, &[(0, 8), (8, 16)]),
            (24, &[(0, 8), (8, 16), (16, 24)]),
        ];
        for &(n, want) in table {
            let got: Vec<(usize, usize)> = draws(n).iter().map(|r| (r.start, r.end)).collect();
            assert_eq!(got, want, "{n}");
        }
    }

    #[test]
    fn first_shares_count_draws_and_split_ties() {
        let a = [1.0, 1.0, 0.0, 0.0, 0.5, 0.5];
        let b = [0.0, 0.0, 1.0, 1.0, 0.5, 0.5];
        let c = [0.1, 0.1, 0.1, 0.1, 0.1, 0.1];
        let d = [0..2, 2..4, 4..6];
        let got = first_shares(&[&a, &b, &c], &d);
        let want = [0.5, 0.5, 0.0]; // one each, the third draw split between a and b
        assert!(
            got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-12),
            "{got:?}"
        );
        assert_eq!(first_shares(&[&a], &[]), vec![0.0]);
    }

    #[test]
    fn a_verdict_needs_an_interval_clear_of_zero() {
        let table = [
            (0.03, 0.01, Verdict::Wins),
            (-0.03, 0.01, Verdict::Loses),
            (0.005, 0.01, Verdict::Indistinct),
            (-0.01, 0.01, Verdict::Indistinct), // touching 0 is not clear of it
            (0.0, 0.0, Verdict::Indistinct),
        ];
        for (d, ci, want) in table {
            assert_eq!(Verdict::of(d, ci), want, "{d} ± {ci}");
        }
    }
}
