//! `youra bench allocation`: every allocation policy on the same seeded synthetic tasks
//! (`sim.rs`) at equal budget, plus AutoResearch's linear keep-or-revert loop, summarised
//! as a table and checked against PrimeScientist's ordering (Table 5).
//!
//! Per task, rewards are normalised by a reference best: the larger of the best true reward
//! in the task's first-m-children tree to depth 5 and the best any searcher found there,
//! so 1 means "as good as anything seen on this task". "To 90%" counts executions until the
//! running best reached 90% of that reference, over the tasks where it did.

use std::fmt::Write;

use super::policy::{Policy, UCT_C};
use super::sim::{Outcome, Task, TaskSpec, run_linear, run_tree};

/// PrimeScientist Table 5, average over 8 tasks.
pub const PAPER: [(&str, f64); 4] = [
    ("adaptive", 0.598),
    ("greedy", 0.563),
    ("uct", 0.551),
    ("random", 0.546),
];
/// The reference tree's depth: 1 + 3 + … + 3^5 = 364 plans.
const REFERENCE_DEPTH: u32 = 5;

/// Who searches: a tree policy, or the linear loop.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Searcher {
    Tree(Policy),
    KeepOrRevert,
}

impl Searcher {
    pub fn name(self) -> String {
        match self {
            Searcher::Tree(p) => p.to_string(),
            Searcher::KeepOrRevert => "keep-or-revert".into(),
        }
    }

    fn run(self, task: &Task, seed: u64) -> Outcome {
        match self {
            Searcher::Tree(p) => run_tree(task, p, seed),
            Searcher::KeepOrRevert => run_linear(task),
        }
    }
}

/// The searchers compared, in table order.
pub fn searchers() -> Vec<Searcher> {
    vec![
        Searcher::Tree(Policy::Adaptive),
        Searcher::Tree(Policy::Greedy),
        Searcher::Tree(Policy::Uct { c: UCT_C }),
        Searcher::Tree(Policy::Random),
        Searcher::Tree(Policy::FixedAlpha { alpha: 1.0 }),
        Searcher::Tree(Policy::FixedAlpha { alpha: 3.0 }),
        Searcher::Tree(Policy::FixedAlpha { alpha: 10.0 }),
        Searcher::KeepOrRevert,
    ]
}

/// One row of the table.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Row {
    pub name: String,
    /// Mean normalised best true reward, and the half-width of its 95% interval.
    pub mean: f64,
    pub ci95: f64,
    /// Mean best true reward, not normalised.
    pub raw: f64,
    /// Mean executions per task.
    pub attempts: f64,
    /// Mean executions to reach 90% of the reference, over the tasks that did; their share.
    pub to_90: Option<f64>,
    pub reached: f64,
}

/// The benchmark over `tasks` tasks from `seed`.
pub fn run(tasks: usize, seed: u64) -> Vec<Row> {
    let spec = TaskSpec::default();
    let who = searchers();
    // results[searcher][task]
    let mut results: Vec<Vec<Outcome>> = vec![Vec::with_capacity(tasks); who.len()];
    let mut reference = Vec::with_capacity(tasks);
    for t in 0..tasks {
        let task = Task {
            seed: seed.wrapping_mul(1_000_003).wrapping_add(t as u64),
            spec,
        };
        let mut best = task.reference_best(REFERENCE_DEPTH);
        for (s, searcher) in who.iter().enumerate() {
            let o = searcher.run(&task, seed);
            best = best.max(o.best);
            results[s].push(o);
        }
        reference.push(best);
    }
    who.iter()
        .zip(&results)
        .map(|(s, outs)| row(s.name(), outs, &reference))
        .collect()
}

fn row(name: String, outs: &[Outcome], reference: &[f64]) -> Row {
    let norm: Vec<f64> = outs
        .iter()
        .zip(reference)
        .map(|(o, &r)| if r > 0.0 { o.best / r } else { 0.0 })
        .collect();
    let (mean, se) = mean_se(&norm);
    let reached: Vec<f64> = outs
        .iter()
        .zip(reference)
        .filter_map(|(o, &r)| o.attempts_to(0.9 * r).map(|a| a as f64))
        .collect();
    let n = outs.len().max(1) as f64;
    Row {
        name,
        mean,
        ci95: 1.96 * se,
        raw: outs.iter().map(|o| o.best).sum::<f64>() / n,
        attempts: outs.iter().map(|o| o.attempts() as f64).sum::<f64>() / n,
        to_90: (!reached.is_empty()).then(|| mean_se(&reached).0),
        reached: reached.len() as f64 / n,
    }
}

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

/// The table, then the comparison with the paper's ordering.
pub fn render(rows: &[Row], tasks: usize, seed: u64) -> String {
    let spec = TaskSpec::default();
    let mut s = format!(
        "allocation benchmark: {tasks} synthetic tasks, seed {seed}, budget {} tokens each\n\n",
        spec.budget_tokens
    );
    let _ = writeln!(
        s,
        "{:<16} {:>10} {:>8} {:>8} {:>9} {:>7} {:>8}",
        "policy", "best/ref", "±95%", "best", "attempts", "to 90%", "reached"
    );
    for r in rows {
        let to = r
            .to_90
            .map_or_else(|| "-".to_string(), |t| format!("{t:.1}"));
        let _ = writeln!(
            s,
            "{:<16} {:>10.3} {:>8.3} {:>8.3} {:>9.1} {:>7} {:>7.0}%",
            r.name,
            r.mean,
            r.ci95,
            r.raw,
            r.attempts,
            to,
            r.reached * 100.0
        );
    }
    s.push('\n');
    s.push_str(&compare(rows));
    s
}

/// Whether our ordering of the paper's four policies matches adaptive > greedy > UCT > random.
pub fn compare(rows: &[Row]) -> String {
    let ours: Vec<(&str, f64, f64)> = PAPER
        .iter()
        .filter_map(|(name, _)| {
            rows.iter()
                .find(|r| r.name == *name)
                .map(|r| (*name, r.mean, r.ci95))
        })
        .collect();
    let paper = PAPER
        .iter()
        .map(|(n, v)| format!("{n} {v:.3}"))
        .collect::<Vec<_>>()
        .join(" > ");
    let mut sorted = ours.clone();
    sorted.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mine = sorted
        .iter()
        .map(|(n, v, _)| format!("{n} {v:.3}"))
        .collect::<Vec<_>>()
        .join(" > ");
    let same = sorted.iter().map(|r| r.0).eq(PAPER.iter().map(|p| p.0));
    let mut s = format!("PrimeScientist (Table 5): {paper}\nthis benchmark:           {mine}\n");
    let verdict = if same {
        "agrees: the same order"
    } else {
        "disagrees: a different order"
    };
    let _ = writeln!(s, "ordering {verdict}");
    // Which adjacent pairs of the paper's order are told apart by the 95% intervals.
    for pair in ours.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let apart = (a.1 - b.1).abs() > a.2 + b.2;
        let _ = writeln!(
            s,
            "  {} vs {}: {:+.3} ({})",
            a.0,
            b.0,
            a.1 - b.1,
            if apart {
                "intervals do not overlap"
            } else {
                "within the intervals' overlap"
            }
        );
    }
    s
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
    fn the_comparison_names_the_order() {
        let r = |name: &str, mean: f64| Row {
            name: name.into(),
            mean,
            ci95: 0.01,
            raw: mean,
            attempts: 20.0,
            to_90: None,
            reached: 0.0,
        };
        let agree = [
            r("adaptive", 0.9),
            r("greedy", 0.8),
            r("uct", 0.7),
            r("random", 0.695),
        ];
        let text = compare(&agree);
        assert!(text.contains("ordering agrees"), "{text}");
        assert!(text.contains("uct vs random: +0.005 (within"), "{text}");
        assert!(
            text.contains("adaptive vs greedy: +0.100 (intervals do not overlap)"),
            "{text}"
        );
        let disagree = [
            r("adaptive", 0.7),
            r("greedy", 0.8),
            r("uct", 0.7),
            r("random", 0.6),
        ];
        assert!(compare(&disagree).contains("ordering disagrees"));
    }
}
