//! The printed table of `youra bench routing`, and the Wilson interval behind it.

use std::fmt::Write;

use super::{Report, Row, TARGETS};
use crate::reflect::corpus::Cause;

/// The 95% Wilson score interval of `hits` out of `n` (Wilson 1927): unlike the normal
/// approximation it stays inside [0,1] and is sensible at 0 % and 100 %. `n = 0` gives [0,1].
pub fn wilson(hits: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    const Z: f64 = 1.96;
    let n = n as f64;
    let p = hits as f64 / n;
    let denom = 1.0 + Z * Z / n;
    let centre = (p + Z * Z / (2.0 * n)) / denom;
    let half = Z * (p * (1.0 - p) / n + Z * Z / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Header, the table, and the comparison line.
pub fn render(r: &Report) -> String {
    let mix = Cause::ALL
        .iter()
        .zip(r.per_cause)
        .map(|(c, n)| format!("{} {n}", c.as_str()))
        .collect::<Vec<_>>()
        .join(", ");
    let mut s = format!(
        "routing benchmark: {} failed experiments, seed {} ({mix})\n",
        r.cases, r.seed
    );
    let _ = writeln!(
        s,
        "no metric (sent to repair before attribution): {}; signature other than the drawn shape: {}\n",
        r.no_metric, r.off_shape
    );
    let _ = write!(
        s,
        "{:<20} {:>8} {:>16}",
        "router", "accuracy", "95% interval"
    );
    for t in TARGETS {
        let _ = write!(s, " {:>8}", t.as_str());
    }
    s.push('\n');
    for row in &r.rows {
        let (lo, hi) = wilson(row.hits, row.cases);
        let _ = write!(
            s,
            "{:<20} {:>8.3} {:>16}",
            row.name,
            row.accuracy(),
            format!("[{lo:.3}, {hi:.3}]")
        );
        for recall in row.recall {
            let cell = recall.map_or_else(|| "-".to_string(), |v| format!("{v:.3}"));
            let _ = write!(s, " {cell:>8}");
        }
        s.push('\n');
    }
    s.push('\n');
    s.push_str(&compare(&r.rows));
    s
}

/// One line: the full pipeline against the best single fixed verdict.
pub fn compare(rows: &[Row]) -> String {
    let pipeline = rows.iter().find(|r| r.name == "pipeline");
    let best = rows
        .iter()
        .filter(|r| r.name.starts_with("always"))
        .max_by(|a, b| a.hits.cmp(&b.hits));
    let (Some(p), Some(b)) = (pipeline, best) else {
        return "no comparison: the pipeline or the single-verdict rows are missing\n".into();
    };
    let (p_lo, p_hi) = wilson(p.hits, p.cases);
    let (b_lo, b_hi) = wilson(b.hits, b.cases);
    let apart = p_lo > b_hi || b_lo > p_hi;
    format!(
        "pipeline {:.3} vs best single verdict ({}) {:.3}: {:+.3}, {}\n",
        p.accuracy(),
        b.name,
        b.accuracy(),
        p.accuracy() - b.accuracy(),
        if apart {
            "intervals do not overlap"
        } else {
            "intervals overlap"
        }
    )
}
