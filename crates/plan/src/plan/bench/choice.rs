//! The sweep's choice of the engine's default `[plan] policy`. Per setting, each tree policy
//! under the reference rules meets every other on best/ref, paired over the same tasks
//! (`standings`); across settings the choice is the policy that loses least, then wins
//! most, then ranks best on average (`choose`). A pure rule over the points, so decision
//! 0041 quotes a figure the code computes, not a reading of the tables.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::Results;
use super::stats::{Verdict, mean_se, paired};

/// One tree policy in one setting (or summed over settings by `choose`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Standing {
    pub name: String,
    /// Its rank by mean best/ref among the tree policies (1 = best).
    pub rank: usize,
    /// Rivals it beats and loses to, each by a paired 95% interval that excludes 0.
    pub wins: usize,
    pub losses: usize,
}

/// Whether `name` is a policy a run can choose, under the rules the engine runs: not the
/// loop, not a policy under youra's earlier rules (`<policy>/youra`).
fn is_policy(name: &str) -> bool {
    name != "keep-or-revert" && !name.contains('/')
}

/// Each tree policy of `r` against every other, on best/ref.
pub fn standings(r: &Results) -> Vec<Standing> {
    let who: Vec<usize> = (0..r.names.len())
        .filter(|&s| is_policy(&r.names[s]))
        .collect();
    let norm: BTreeMap<usize, Vec<f64>> = who.iter().map(|&s| (s, r.normalised(s))).collect();
    let means: Vec<f64> = who.iter().map(|s| mean_se(&norm[s]).0).collect();
    who.iter()
        .enumerate()
        .map(|(i, &a)| {
            let (mut wins, mut losses) = (0, 0);
            for &b in who.iter().filter(|&&b| b != a) {
                let (diff, ci95) = paired(&norm[&a], &norm[&b]);
                match Verdict::of(diff, ci95) {
                    Verdict::Wins => wins += 1,
                    Verdict::Loses => losses += 1,
                    Verdict::Indistinct => {}
                }
            }
            Standing {
                name: r.names[a].clone(),
                rank: 1 + means.iter().filter(|&&m| m > means[i]).count(),
                wins,
                losses,
            }
        })
        .collect()
}

/// A policy's record over the settings.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Record {
    pub name: String,
    pub losses: usize,
    pub wins: usize,
    /// Settings where it ranked first.
    pub first: usize,
    pub mean_rank: f64,
    /// Settings where it lost to at least one rival.
    pub behind_in: usize,
}

/// What the choice reads of one setting's result (the sweep's `Point`): its standings.
pub trait Standings {
    fn standings(&self) -> &[Standing];
}

/// Every policy's record over `points`, the choice first: fewest losses, then most wins,
/// then the best mean rank, then the name (so the order is total and reproducible).
pub fn choose<P: Standings>(points: &[P]) -> Vec<Record> {
    let mut by: BTreeMap<&str, Record> = BTreeMap::new();
    for st in points.iter().flat_map(|p| p.standings()) {
        let r = by.entry(&st.name).or_insert_with(|| Record {
            name: st.name.clone(),
            ..Record::default()
        });
        r.losses += st.losses;
        r.wins += st.wins;
        r.first += usize::from(st.rank == 1);
        r.behind_in += usize::from(st.losses > 0);
        r.mean_rank += st.rank as f64;
    }
    let mut out: Vec<Record> = by.into_values().collect();
    for r in &mut out {
        r.mean_rank /= points.len().max(1) as f64;
    }
    out.sort_by(|a, b| {
        a.losses
            .cmp(&b.losses)
            .then(b.wins.cmp(&a.wins))
            .then(a.mean_rank.total_cmp(&b.mean_rank))
            .then(a.name.cmp(&b.name))
    });
    out
}

/// The records as a table and the choice in one line.
pub fn render<P: Standings>(points: &[P]) -> String {
    let records = choose(points);
    let mut s = format!(
        "policy by the sweep: each tree policy (reference rules) against every other on \
         best/ref, paired, over {} settings\n{:<10} {:>6} {:>5} {:>9} {:>6} {:>9}\n",
        points.len(),
        "policy",
        "losses",
        "wins",
        "behind in",
        "first",
        "mean rank"
    );
    for r in &records {
        let _ = writeln!(
            s,
            "{:<10} {:>6} {:>5} {:>9} {:>6} {:>9.2}",
            r.name, r.losses, r.wins, r.behind_in, r.first, r.mean_rank
        );
    }
    if let Some(c) = records.first() {
        let _ = writeln!(
            s,
            "the sweep's choice for [plan] policy: {} (fewest losses, then most wins)",
            c.name
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::bench::sweep::{Point, settings};

    fn point(standings: &[(&str, usize, usize, usize)]) -> Point {
        Point {
            setting: settings()[0],
            label: "x".into(),
            rows: Vec::new(),
            adaptive_rank: 1,
            versus: Vec::new(),
            checks: Vec::new(),
            standings: standings
                .iter()
                .map(|&(n, rank, wins, losses)| Standing {
                    name: n.into(),
                    rank,
                    wins,
                    losses,
                })
                .collect(),
        }
    }

    #[test]
    fn the_choice_loses_least_then_wins_most_then_ranks_best() {
        // (points, expected order)
        let table: [(Vec<Point>, [&str; 3]); 3] = [
            (
                vec![
                    point(&[("a", 1, 2, 1), ("b", 2, 1, 0), ("c", 3, 0, 2)]),
                    point(&[("a", 1, 2, 0), ("b", 2, 0, 0), ("c", 3, 0, 2)]),
                ],
                ["b", "a", "c"],
            ),
            (
                vec![point(&[("a", 2, 1, 0), ("b", 1, 2, 0), ("c", 3, 0, 3)])],
                ["b", "a", "c"],
            ),
            (
                vec![point(&[("b", 2, 0, 0), ("a", 1, 0, 0), ("c", 3, 0, 0)])],
                ["a", "b", "c"],
            ),
        ];
        for (points, want) in table {
            let got: Vec<String> = choose(&points).into_iter().map(|r| r.name).collect();
            assert_eq!(got, want);
        }
        let r = &choose(&[point(&[("a", 1, 1, 0)]), point(&[("a", 3, 0, 2)])])[0];
        assert_eq!((r.losses, r.wins, r.first, r.behind_in), (2, 1, 1, 1));
        assert!((r.mean_rank - 2.0).abs() < 1e-12);
    }

    #[test]
    fn standings_pair_every_policy_and_skip_the_loop_and_the_old_rules() {
        let r = super::super::evaluate(crate::plan::sim::TaskSpec::engine(), 12, 4);
        let st = standings(&r);
        let names: Vec<&str> = st.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "adaptive", "greedy", "uct", "random", "fixed:1", "fixed:3", "fixed:10"
            ]
        );
        // A win of one is a loss of another.
        let (w, l): (usize, usize) = st
            .iter()
            .fold((0, 0), |(w, l), s| (w + s.wins, l + s.losses));
        assert_eq!(w, l);
        assert!(st.iter().any(|s| s.rank == 1));
    }
}
