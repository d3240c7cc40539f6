//! Metric series thinned for a chart: per pixel column, the points with the lowest and the
//! highest value, in their original order. A chart `w` columns wide cannot show more than
//! that, and a spike one step long is still drawn (an average or every-nth pick would lose
//! it). The cost is one pass over the series; the result has at most `2 × columns` points.

/// The column of `x` among `columns` equal slices of `[lo, hi]` (the last one closed).
pub fn column(x: f64, lo: f64, hi: f64, columns: usize) -> usize {
    if columns <= 1 || hi <= lo {
        return 0;
    }
    let c = ((x - lo) / (hi - lo) * columns as f64).floor();
    (c.max(0.0) as usize).min(columns - 1)
}

/// `points` thinned to each column's lowest and highest point (x picks the column), in the
/// order they had. Points with a non-finite coordinate cannot be drawn and are dropped; a
/// series already short enough comes back as it was (less those).
pub fn min_max(points: &[(f64, f64)], columns: usize) -> Vec<(f64, f64)> {
    let finite = |p: &&(f64, f64)| p.0.is_finite() && p.1.is_finite();
    if points.len() <= 2 * columns.max(1) {
        return points.iter().filter(finite).copied().collect();
    }
    let (lo, hi) = points
        .iter()
        .filter(finite)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.0), hi.max(p.0))
        });
    let columns = columns.max(1);
    // Per column: the index of its lowest and of its highest point.
    let mut extremes: Vec<Option<(usize, usize)>> = vec![None; columns];
    for (i, p) in points.iter().enumerate().filter(|(_, p)| finite(p)) {
        let slot = &mut extremes[column(p.0, lo, hi, columns)];
        *slot = Some(match *slot {
            None => (i, i),
            Some((min, max)) => (
                if p.1 < points[min].1 { i } else { min },
                if p.1 > points[max].1 { i } else { max },
            ),
        });
    }
    let mut keep: Vec<usize> = extremes
        .into_iter()
        .flatten()
        .flat_map(|(a, b)| [a, b])
        .collect();
    keep.sort_unstable();
    keep.dedup();
    keep.into_iter().map(|i| points[i]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_one_step_spike_survives_and_the_count_is_bounded() {
        let mut pts: Vec<(f64, f64)> = (0..10_000).map(|i| (i as f64, 0.5)).collect();
        pts[7_777].1 = 9.0;
        pts[123].1 = -3.0;
        let out = min_max(&pts, 80);
        assert!(out.len() <= 160, "{}", out.len());
        assert!(out.contains(&(7_777.0, 9.0)) && out.contains(&(123.0, -3.0)));
        assert!(out.windows(2).all(|w| w[0].0 <= w[1].0), "order kept");
        assert_eq!(min_max(&pts[..10], 80), pts[..10].to_vec(), "short: as is");
        assert_eq!(column(10.0, 0.0, 10.0, 4), 3, "the last slice is closed");
    }
}
