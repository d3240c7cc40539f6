//! `youra bench allocation`: every allocation policy on the same seeded synthetic tasks
//! (`sim/`) at equal budget, plus AutoResearch's linear keep-or-revert loop, summarised
//! as a table and set beside PrimeScientist's Table 5. `--sweep` (`sweep.rs`) repeats it
//! while varying the task properties the paper does not pin down.
//!
//! Per task, true rewards are normalised by a reference best: the larger of the best true
//! reward in the task's first-m-children tree to depth 5 and the best any searcher found,
//! so 1 means "as good as anything seen on this task". "Max obs" is the paper's measure, the
//! best observed (noisy) reward. "First" repeats the paper's protocol: the share of disjoint
//! draws of 8 tasks on which a searcher has the highest mean max observed reward.

pub mod choice;
mod knob;
mod stats;
pub mod sweep;

use std::fmt::Write;

pub use stats::{DRAW, Verdict, draws, first_shares, mean_se, paired};

use super::policy::{Policy, UCT_C};
use super::rules::TreeRules;
use super::sim::{Outcome, Task, TaskSpec, run_linear, run_tree};

/// PrimeScientist Table 5, average max reward over 8 tasks, one search each.
pub const PAPER: [(&str, f64); 4] = [
    ("adaptive", 0.598),
    ("greedy", 0.563),
    ("uct", 0.551),
    ("random", 0.546),
];
/// The reference tree's depth: 1 + 3 + … + 3^5 = 364 plans.
const REFERENCE_DEPTH: u32 = 5;

/// Who searches: a tree policy under a set of tree rules, or the linear loop.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Searcher {
    Tree(Policy, TreeRules),
    KeepOrRevert,
}

impl Searcher {
    /// The policy's name under the reference rules; `<policy>/youra` under youra's.
    pub fn name(self) -> String {
        match self {
            Searcher::Tree(p, TreeRules::Reference) => p.to_string(),
            Searcher::Tree(p, rules) => format!("{p}/{rules}"),
            Searcher::KeepOrRevert => "keep-or-revert".into(),
        }
    }

    fn run(self, task: &Task, seed: u64) -> Outcome {
        match self {
            Searcher::Tree(p, rules) => run_tree(task, p, rules, seed),
            Searcher::KeepOrRevert => run_linear(task),
        }
    }
}

/// The searchers compared, in table order: Table 5's four first (reference rules), then
/// fixed α, adaptive under youra's earlier rules, and the loop.
pub(crate) fn searchers() -> Vec<Searcher> {
    let r = TreeRules::Reference;
    vec![
        Searcher::Tree(Policy::Adaptive, r),
        Searcher::Tree(Policy::Greedy, r),
        Searcher::Tree(Policy::Uct { c: UCT_C }, r),
        Searcher::Tree(Policy::Random, r),
        Searcher::Tree(Policy::FixedAlpha { alpha: 1.0 }, r),
        Searcher::Tree(Policy::FixedAlpha { alpha: 3.0 }, r),
        Searcher::Tree(Policy::FixedAlpha { alpha: 10.0 }, r),
        Searcher::Tree(Policy::Adaptive, TreeRules::Youra),
        Searcher::KeepOrRevert,
    ]
}

/// How many leading searchers are Table 5's field.
const TABLE5: usize = PAPER.len();

/// Every searcher's outcome on every task, with the tasks' references.
#[derive(Debug, Clone, PartialEq)]
pub struct Results {
    pub names: Vec<String>,
    /// outcomes[searcher][task]
    pub outcomes: Vec<Vec<Outcome>>,
    pub reference: Vec<f64>,
}

/// Every searcher on `tasks` tasks of `spec`. Task t's seed depends on (seed, t) only, so
/// two specs meet the same task seeds.
pub fn evaluate(spec: TaskSpec, tasks: usize, seed: u64) -> Results {
    let who = searchers();
    let mut outcomes: Vec<Vec<Outcome>> = vec![Vec::with_capacity(tasks); who.len()];
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
            outcomes[s].push(o);
        }
        reference.push(best);
    }
    Results {
        names: who.iter().map(|s| s.name()).collect(),
        outcomes,
        reference,
    }
}

impl Results {
    /// Searcher `s`'s best true reward over the reference, task by task.
    pub fn normalised(&self, s: usize) -> Vec<f64> {
        self.outcomes[s]
            .iter()
            .zip(&self.reference)
            .map(|(o, &r)| if r > 0.0 { o.best / r } else { 0.0 })
            .collect()
    }

    /// Searcher `s`'s max observed reward, task by task.
    pub fn seen(&self, s: usize) -> Vec<f64> {
        self.outcomes[s].iter().map(|o| o.seen).collect()
    }

    pub fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    pub fn rows(&self) -> Vec<Row> {
        let seen: Vec<Vec<f64>> = (0..self.names.len()).map(|s| self.seen(s)).collect();
        let refs: Vec<&[f64]> = seen.iter().map(Vec::as_slice).collect();
        let d = draws(self.reference.len());
        let first_all = first_shares(&refs, &d);
        let first_four = first_shares(&refs[..TABLE5.min(refs.len())], &d);
        (0..self.names.len())
            .map(|s| {
                let mut r = row(self.names[s].clone(), &self.outcomes[s], &self.reference);
                r.first_of_4 = first_four.get(s).copied();
                r.first = first_all[s];
                r
            })
            .collect()
    }
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
    /// Mean max observed reward (the paper's measure), and its 95% half-width.
    pub seen: f64,
    pub seen_ci95: f64,
    /// Mean executions per task, and the share of them that failed.
    pub attempts: f64,
    pub failed: f64,
    /// Mean plans executed per task (a node's runs and retries are one).
    pub nodes: f64,
    /// Mean reflector calls per task, and the share of tokens they took (D.1: 38%).
    pub calls: f64,
    pub planning: f64,
    /// The share of tokens spent diagnosing (the engine's; 0 at the paper calibration).
    pub diagnosis: f64,
    /// Mean executions to reach 90% of the reference, over the tasks that did; their share.
    pub to_90: Option<f64>,
    pub reached: f64,
    /// Share of 8-task draws ranked first among Table 5's four (`None` for the others)
    /// and among all searchers.
    pub first_of_4: Option<f64>,
    pub first: f64,
}

fn row(name: String, outs: &[Outcome], reference: &[f64]) -> Row {
    let norm: Vec<f64> = outs
        .iter()
        .zip(reference)
        .map(|(o, &r)| if r > 0.0 { o.best / r } else { 0.0 })
        .collect();
    let (mean, se) = mean_se(&norm);
    let seen: Vec<f64> = outs.iter().map(|o| o.seen).collect();
    let (seen_mean, seen_se) = mean_se(&seen);
    let reached: Vec<f64> = outs
        .iter()
        .zip(reference)
        .filter_map(|(o, &r)| o.attempts_to(0.9 * r).map(|a| a as f64))
        .collect();
    let n = outs.len().max(1) as f64;
    let attempts: usize = outs.iter().map(Outcome::attempts).sum();
    let failures: usize = outs.iter().map(|o| o.failures).sum();
    let tokens = outs.iter().map(|o| o.tokens).sum::<u64>().max(1) as f64;
    Row {
        name,
        mean,
        ci95: 1.96 * se,
        raw: outs.iter().map(|o| o.best).sum::<f64>() / n,
        seen: seen_mean,
        seen_ci95: 1.96 * seen_se,
        attempts: attempts as f64 / n,
        failed: failures as f64 / attempts.max(1) as f64,
        nodes: outs.iter().map(|o| o.nodes as f64).sum::<f64>() / n,
        calls: outs.iter().map(|o| o.expansions as f64).sum::<f64>() / n,
        planning: outs.iter().map(|o| o.planning_tokens).sum::<u64>() as f64 / tokens,
        diagnosis: outs.iter().map(|o| o.diagnosis_tokens).sum::<u64>() as f64 / tokens,
        to_90: (!reached.is_empty()).then(|| mean_se(&reached).0),
        reached: reached.len() as f64 / n,
        first_of_4: None,
        first: 0.0,
    }
}

/// The benchmark at the paper calibration over `tasks` tasks from `seed`.
pub fn run(tasks: usize, seed: u64) -> Results {
    evaluate(TaskSpec::default(), tasks, seed)
}

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// The rows as a table (shared with the sweep's blocks).
pub fn table(rows: &[Row]) -> String {
    let mut s = format!(
        "{:<16} {:>8} {:>6} {:>6} {:>7} {:>6} {:>8} {:>6} {:>5} {:>5} {:>5} {:>6} {:>7} {:>6} {:>6}\n",
        "searcher",
        "best/ref",
        "±95%",
        "best",
        "max obs",
        "±95%",
        "attempts",
        "failed",
        "calls",
        "plan",
        "diag",
        "to 90%",
        "reached",
        "1st/4",
        "1st"
    );
    for r in rows {
        let to = r.to_90.map_or_else(|| "-".into(), |t| format!("{t:.1}"));
        let _ = writeln!(
            s,
            "{:<16} {:>8.3} {:>6.3} {:>6.3} {:>7.3} {:>6.3} {:>8.1} {:>6} {:>5.1} {:>5} {:>5} {:>6} {:>7} {:>6} {:>6}",
            r.name,
            r.mean,
            r.ci95,
            r.raw,
            r.seen,
            r.seen_ci95,
            r.attempts,
            pct(r.failed),
            r.calls,
            pct(r.planning),
            pct(r.diagnosis),
            to,
            pct(r.reached),
            r.first_of_4.map_or_else(|| "-".into(), pct),
            pct(r.first)
        );
    }
    s
}

/// The calibration in one line.
pub fn describe(spec: &TaskSpec) -> String {
    format!(
        "B {:.1}M tokens, expansion {}–{}k, root draft {}–{}k, execution {}–{}k ×{} per tree \
         node, {:.0}% of executions fail, a failed node retried {}×, diagnosis {:.0}%/{:.0}% of \
         a miss's/gain's execution, reflection gain {:+.2}, at most {} attempts (executions)",
        spec.budget_tokens as f64 / 1e6,
        spec.expand_cost.0 / 1000,
        spec.expand_cost.1 / 1000,
        spec.draft_cost.0 / 1000,
        spec.draft_cost.1 / 1000,
        spec.exec_cost.0 / 1000,
        spec.exec_cost.1 / 1000,
        spec.exec_runs,
        spec.fail_rate * 100.0,
        spec.max_node_retries,
        spec.diagnosis.0 * 100.0,
        spec.diagnosis.1 * 100.0,
        spec.reflect_gain,
        spec.attempt_cap
    )
}

/// The table, then the comparison with the paper's Table 5.
pub fn render(results: &Results, seed: u64) -> String {
    let spec = TaskSpec::default();
    let tasks = results.reference.len();
    let mut s = format!(
        "allocation benchmark: {tasks} synthetic tasks, seed {seed}; {}\n\
         1st/4, 1st: share of {} disjoint draws of {DRAW} tasks ranked first by mean max obs, \
         among Table 5's four / among all\n\n",
        describe(&spec),
        draws(tasks).len()
    );
    s.push_str(&table(&results.rows()));
    s.push('\n');
    s.push_str(&compare(results));
    s
}

/// Our order of Table 5's four policies by mean max observed reward (the paper's measure)
/// beside the paper's, and which adjacent pairs a paired 95% interval tells apart.
pub fn compare(results: &Results) -> String {
    let ours: Vec<(&str, usize, f64)> = PAPER
        .iter()
        .filter_map(|(name, _)| results.index(name).map(|i| (*name, i)))
        .map(|(name, i)| (name, i, mean_se(&results.seen(i)).0))
        .collect();
    let paper = PAPER
        .iter()
        .map(|(n, v)| format!("{n} {v:.3}"))
        .collect::<Vec<_>>()
        .join(" > ");
    let mut sorted = ours.clone();
    sorted.sort_by(|a, b| b.2.total_cmp(&a.2));
    let mine = sorted
        .iter()
        .map(|(n, _, v)| format!("{n} {v:.3}"))
        .collect::<Vec<_>>()
        .join(" > ");
    let same = sorted.iter().map(|r| r.0).eq(PAPER.iter().map(|p| p.0));
    let mut s = format!("PrimeScientist (Table 5): {paper}\nthis benchmark (max obs):  {mine}\n");
    let verdict = if same {
        "agrees: the same order"
    } else {
        "disagrees: a different order"
    };
    let _ = writeln!(s, "ordering {verdict}");
    for pair in sorted.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let (d, ci) = paired(&results.seen(a.1), &results.seen(b.1));
        let told = match Verdict::of(d, ci) {
            Verdict::Indistinct => "not told apart",
            _ => "told apart",
        };
        let _ = writeln!(s, "  {} − {}: {d:+.3} ± {ci:.3} paired ({told})", a.0, b.0);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results(seen: &[(&str, &[f64])]) -> Results {
        let outcomes = seen
            .iter()
            .map(|(_, xs)| {
                xs.iter()
                    .map(|&x| Outcome {
                        best: x,
                        seen: x,
                        trace: vec![x],
                        ..Outcome::default()
                    })
                    .collect()
            })
            .collect();
        Results {
            names: seen.iter().map(|(n, _)| n.to_string()).collect(),
            outcomes,
            reference: vec![1.0; seen[0].1.len()],
        }
    }

    #[test]
    fn the_comparison_names_the_order_and_the_pairs_told_apart() {
        let agree = results(&[
            ("adaptive", &[0.9, 0.8]),
            ("greedy", &[0.8, 0.7]),
            ("uct", &[0.7, 0.6]),
            ("random", &[0.6, 0.7]),
        ]);
        let text = compare(&agree);
        assert!(text.contains("ordering agrees"), "{text}");
        assert!(
            text.contains("adaptive − greedy: +0.100 ± 0.000 paired (told apart)"),
            "{text}"
        );
        assert!(text.contains("uct − random: +0.000"), "{text}");
        assert!(text.contains("(not told apart)"), "{text}");
        let disagree = results(&[
            ("adaptive", &[0.7]),
            ("greedy", &[0.8]),
            ("uct", &[0.7]),
            ("random", &[0.6]),
        ]);
        assert!(compare(&disagree).contains("ordering disagrees"));
    }

    #[test]
    fn rows_carry_the_first_shares() {
        let r = results(&[
            ("adaptive", &[0.9, 0.1]),
            ("greedy", &[0.1, 0.2]),
            ("uct", &[0.0, 0.0]),
            ("random", &[0.0, 0.0]),
            ("keep-or-revert", &[1.0, 1.0]),
        ])
        .rows();
        // One draw of both tasks: adaptive leads the four, the loop leads all.
        assert_eq!(r[0].first_of_4, Some(1.0));
        assert_eq!((r[0].first, r[4].first, r[4].first_of_4), (0.0, 1.0, None));
        assert!((r[0].mean - 0.5).abs() < 1e-12 && (r[0].seen - 0.5).abs() < 1e-12);
    }
}
