//! A downsampled metric series keeps what a chart must show (issue 30): the global lowest
//! and highest value, and in every pixel column its own lowest and highest point.

use proptest::prelude::*;
use youra::tui::downsample::{column, min_max};

fn series() -> impl Strategy<Value = Vec<(f64, f64)>> {
    prop::collection::vec((-1e6f64..1e6, -1e9f64..1e9), 0..3_000)
}

proptest! {
    #[test]
    fn a_downsampled_series_keeps_every_columns_extremes(
        pts in series(),
        columns in 1usize..300,
        sorted in any::<bool>(),
    ) {
        let mut pts = pts;
        if sorted {
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        let out = min_max(&pts, columns);
        prop_assert!(out.len() <= pts.len().min(2 * columns), "{} points", out.len());
        // Every point comes from the series, in the series' order.
        let mut at = 0;
        for p in &out {
            let found = pts[at..].iter().position(|q| q == p);
            prop_assert!(found.is_some(), "{:?} is not in the series after {}", p, at);
            at += found.unwrap_or(0) + 1;
        }
        if pts.is_empty() {
            prop_assert!(out.is_empty());
            return Ok(());
        }
        let ys = |v: &[(f64, f64)]| v.iter().map(|p| p.1).collect::<Vec<_>>();
        let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
        let max = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        prop_assert_eq!(min(&ys(&out)), min(&ys(&pts)));
        prop_assert_eq!(max(&ys(&out)), max(&ys(&pts)));
        // Per column, the same extremes in the input and in the output.
        let (lo, hi) = pts.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.0), hi.max(p.0))
        });
        let per_column = |v: &[(f64, f64)]| {
            let mut cols = vec![(f64::INFINITY, f64::NEG_INFINITY); columns];
            for p in v {
                let c = &mut cols[column(p.0, lo, hi, columns)];
                *c = (c.0.min(p.1), c.1.max(p.1));
            }
            cols
        };
        prop_assert_eq!(per_column(&out), per_column(&pts));
    }
}
