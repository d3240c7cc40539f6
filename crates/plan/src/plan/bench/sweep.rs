//! `youra bench allocation --sweep`: the benchmark repeated while one task property the
//! paper does not measure is varied at a time around the paper calibration (drift, the
//! correlation of early rewards with long-run value, the prior's informativeness, noise;
//! also the root's headroom and the long-run spread among siblings), and, beside them, the
//! planning cost and the budget; the reflection's quality (issue 27: a reflector's child
//! better than a blind edit), FIRE's double execution, and D.1's stated expansion cost
//! against the joint calibration; and what the engine adds to the paper (a failed node's
//! retries, the diagnosis of each rewarded node). One at a time, not a grid: 34 settings
//! around the engine's model (`TaskSpec::engine`), since the policy chosen here is the one
//! the engine runs by default (`choice`: the tree policy that loses least to the others).
//! Every setting meets the same task seeds. Per setting: the table, and adaptive against
//! the best other tree policy and against keep-or-revert as paired 95% intervals, so the
//! verdict is read from a distribution and not from one ordering.

use std::fmt::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::{DRAW, Verdict};
use super::{Results, Row, describe, draws, evaluate, mean_se, paired, table};
use crate::plan::sim::TaskSpec;

pub use super::knob::Knob;

/// One point of the sweep: the default, or the default with one knob moved.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Setting {
    pub knob: Option<Knob>,
    pub value: f64,
    pub spec: TaskSpec,
}

impl Setting {
    pub fn label(&self) -> String {
        match self.knob {
            None => "default".into(),
            Some(k) => format!("{} {}", k.name(), k.show(self.value)),
        }
    }
}

/// The default (the engine's model) first, then each knob's other levels (one at a time,
/// not a grid).
pub fn settings() -> Vec<Setting> {
    let base = TaskSpec::engine();
    let mut out = vec![Setting {
        knob: None,
        value: 0.0,
        spec: base,
    }];
    for k in Knob::ALL {
        for &v in k.levels() {
            if v != k.get(&base) {
                out.push(Setting {
                    knob: Some(k),
                    value: v,
                    spec: k.set(base, v),
                });
            }
        }
    }
    out
}

/// What a searcher is scored by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    /// Best true reward over the task's reference.
    BestRef,
    /// Max observed reward, the paper's measure.
    MaxObs,
}

impl Measure {
    pub fn as_str(self) -> &'static str {
        match self {
            Measure::BestRef => "best/ref",
            Measure::MaxObs => "max obs",
        }
    }
}

/// Adaptive against another searcher: the paired difference of a measure, and what it says.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Versus {
    pub other: String,
    pub measure: Measure,
    pub diff: f64,
    pub ci95: f64,
    pub verdict: Verdict,
}

/// One setting's result.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Point {
    pub setting: Setting,
    pub label: String,
    pub rows: Vec<Row>,
    /// adaptive's rank by mean best/ref among all searchers (1 = best).
    pub adaptive_rank: usize,
    pub versus: Vec<Versus>,
    /// `CHECKS`, on best/ref.
    pub checks: Vec<Check>,
    /// Each tree policy against every other on best/ref (`choice` reads them).
    pub standings: Vec<Standing>,
}

impl super::choice::Standings for Point {
    fn standings(&self) -> &[Standing] {
        &self.standings
    }
}

const ADAPTIVE: &str = "adaptive";
const LOOP: &str = "keep-or-revert";
/// Adaptive under youra's earlier tree rules: not a rival policy, the rules' comparison.
const YOURA: &str = "adaptive/youra";

/// One paired comparison every setting reports on best/ref, beside adaptive's against its
/// rival and the loop: adaptive against greedy (the policy the evidence favours), the
/// reference rules against youra's, greedy against the loop.
pub(crate) const CHECKS: [(&str, &str); 3] =
    [(ADAPTIVE, "greedy"), (ADAPTIVE, YOURA), ("greedy", LOOP)];

/// `a` against `b` on best/ref.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Check {
    pub a: String,
    pub b: String,
    pub diff: f64,
    pub ci95: f64,
    pub verdict: Verdict,
}

fn checks(r: &Results) -> Vec<Check> {
    CHECKS
        .iter()
        .filter_map(|&(a, b)| {
            let (diff, ci95) = paired(&r.normalised(r.index(a)?), &r.normalised(r.index(b)?));
            Some(Check {
                a: a.into(),
                b: b.into(),
                diff,
                ci95,
                verdict: Verdict::of(diff, ci95),
            })
        })
        .collect()
}

/// Adaptive against the best other tree policy (by mean best/ref) and against the loop.
fn versus(r: &Results) -> Vec<Versus> {
    let Some(a) = r.index(ADAPTIVE) else {
        return Vec::new();
    };
    let norm: Vec<Vec<f64>> = (0..r.names.len()).map(|s| r.normalised(s)).collect();
    let rival = (0..r.names.len())
        .filter(|&s| s != a && r.names[s] != LOOP && r.names[s] != YOURA)
        .max_by(|&x, &y| mean_se(&norm[x]).0.total_cmp(&mean_se(&norm[y]).0));
    let mut out = Vec::new();
    let mut push = |other: usize, measure: Measure, x: &[f64], y: &[f64]| {
        let (diff, ci95) = paired(x, y);
        out.push(Versus {
            other: r.names[other].clone(),
            measure,
            diff,
            ci95,
            verdict: Verdict::of(diff, ci95),
        });
    };
    for other in rival.into_iter().chain(r.index(LOOP)) {
        push(other, Measure::BestRef, &norm[a], &norm[other]);
        push(other, Measure::MaxObs, &r.seen(a), &r.seen(other));
    }
    out
}

fn point(setting: Setting, tasks: usize, seed: u64) -> Point {
    let r = evaluate(setting.spec, tasks, seed);
    let standings = standings(&r);
    let rows = r.rows();
    let adaptive_rank = rows
        .iter()
        .find(|x| x.name == ADAPTIVE)
        .map_or(0, |a| 1 + rows.iter().filter(|x| x.mean > a.mean).count());
    Point {
        label: setting.label(),
        setting,
        versus: versus(&r),
        checks: checks(&r),
        rows,
        adaptive_rank,
        standings,
    }
}

/// Every setting on `tasks` tasks from `seed`, on up to `threads` threads (the result does
/// not depend on how many). Workers take the next setting from a shared counter, largest
/// budget first, so the long settings do not queue behind each other on one thread.
pub fn run(tasks: usize, seed: u64, threads: usize) -> Vec<Point> {
    let all = settings();
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(all[i].spec.budget_tokens));
    let next = AtomicUsize::new(0);
    let threads = threads.clamp(1, all.len());
    let mut out: Vec<Option<Point>> = vec![None; all.len()];
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                        done.push((i, point(all[i], tasks, seed)));
                    }
                    done
                })
            })
            .collect();
        for h in handles {
            // A panicking worker is a bug in the benchmark: surface it.
            for (i, p) in h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)) {
                out[i] = Some(p);
            }
        }
    });
    out.into_iter().flatten().collect()
}

fn versus_cell(v: &Versus) -> String {
    format!("{:+.3}±{:.3} {}", v.diff, v.ci95, v.verdict.as_str())
}

/// Every setting's table, then one summary line per setting.
pub fn render(points: &[Point], tasks: usize, seed: u64) -> String {
    let mut s = format!(
        "allocation sweep: {tasks} synthetic tasks per setting, seed {seed}; one parameter \
         varied at a time around the default\n\
         default: {}\n\
         1st/4, 1st: share of {} disjoint draws of {DRAW} tasks ranked first by mean max obs\n",
        describe(&TaskSpec::engine()),
        draws(tasks).len()
    );
    let d = TaskSpec::engine();
    let levels: Vec<String> = Knob::ALL
        .iter()
        .map(|k| format!("{} {}", k.name(), k.show(k.get(&d))))
        .collect();
    let _ = writeln!(s, "default levels: {}\n", levels.join(", "));
    for p in points {
        let _ = writeln!(s, "== {} ==", p.label);
        s.push_str(&table(&p.rows));
        s.push('\n');
    }
    s.push_str(&summary(points));
    s
}

/// One line per setting: adaptive's rank, and its paired differences.
pub fn summary(points: &[Point]) -> String {
    let mut s = format!(
        "summary: adaptive's rank by best/ref (of {}), its 1st/4 share, and adaptive − rival paired\n  \
         over tasks with 95% intervals; rival = the best other tree policy by best/ref, loop = \
         keep-or-revert\n\
         {:<18} {:>4} {:>5} {:<14} {:<20} {:<20} {:<20} {:<20}\n",
        super::searchers().len(),
        "setting",
        "rank",
        "1st/4",
        "rival",
        "vs rival best/ref",
        "vs rival max obs",
        "vs loop best/ref",
        "vs loop max obs"
    );
    for p in points {
        let cell = |other_is_loop: bool, measure: Measure| {
            p.versus
                .iter()
                .find(|v| (v.other == LOOP) == other_is_loop && v.measure == measure)
                .map_or_else(|| "-".into(), versus_cell)
        };
        let rival = p
            .versus
            .iter()
            .find(|v| v.other != LOOP)
            .map_or("-", |v| v.other.as_str());
        let first = p
            .rows
            .iter()
            .find(|r| r.name == ADAPTIVE)
            .and_then(|r| r.first_of_4)
            .map_or_else(|| "-".into(), |f| format!("{:.0}%", f * 100.0));
        let _ = writeln!(
            s,
            "{:<18} {:>4} {:>5} {:<14} {:<20} {:<20} {:<20} {:<20}",
            p.label,
            p.adaptive_rank,
            first,
            rival,
            cell(false, Measure::BestRef),
            cell(false, Measure::MaxObs),
            cell(true, Measure::BestRef),
            cell(true, Measure::MaxObs)
        );
    }
    s.push('\n');
    for (against_loop, whom) in [(false, "its rival"), (true, "keep-or-revert")] {
        let counts: Vec<String> = [Measure::BestRef, Measure::MaxObs]
            .iter()
            .map(|&m| {
                let [w, t, l] = tally(points, against_loop, m);
                format!("{}: wins {w}, ties {t}, loses {l}", m.as_str())
            })
            .collect();
        let _ = writeln!(
            s,
            "adaptive against {whom}, over {} settings: {}",
            points.len(),
            counts.join("; ")
        );
    }
    for (against_loop, whom) in [(false, "its rival"), (true, "keep-or-revert")] {
        for (verdict, verb) in [(Verdict::Wins, "beats"), (Verdict::Loses, "loses to")] {
            let _ = writeln!(
                s,
                "adaptive {verb} {whom} on best/ref in: {}",
                where_(points, against_loop, verdict)
            );
        }
    }
    for (a, b) in CHECKS {
        let _ = writeln!(s, "{}", check_line(points, a, b));
    }
    s.push('\n');
    s.push_str(&super::choice::render(points));
    s
}

/// Where `a` beats and loses to `b` on best/ref across the settings.
fn check_line(points: &[Point], a: &str, b: &str) -> String {
    let mut by = [Vec::new(), Vec::new(), Vec::new()];
    for p in points {
        for c in p.checks.iter().filter(|c| c.a == a && c.b == b) {
            let k = match c.verdict {
                Verdict::Wins => 0,
                Verdict::Indistinct => 1,
                Verdict::Loses => 2,
            };
            by[k].push(format!("{} {:+.3}", p.label, c.diff));
        }
    }
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    format!(
        "{a} − {b} (best/ref): wins {}, ties {}, loses {}; wins in: {}; loses in: {}",
        by[0].len(),
        by[1].len(),
        by[2].len(),
        list(&by[0]),
        list(&by[2])
    )
}

/// The settings where adaptive's best/ref verdict against its rival (or the loop) is
/// `verdict`, or "none".
fn where_(points: &[Point], against_loop: bool, verdict: Verdict) -> String {
    let labels: Vec<&str> = points
        .iter()
        .filter(|p| {
            p.versus.iter().any(|v| {
                (v.other == LOOP) == against_loop
                    && v.measure == Measure::BestRef
                    && v.verdict == verdict
            })
        })
        .map(|p| p.label.as_str())
        .collect();
    if labels.is_empty() {
        "none".into()
    } else {
        labels.join(", ")
    }
}

/// Across settings, how often adaptive wins, ties and loses against its rival (or the
/// loop) on `measure`.
pub fn tally(points: &[Point], against_loop: bool, measure: Measure) -> [usize; 3] {
    let mut n = [0; 3];
    for v in points.iter().flat_map(|p| &p.versus) {
        if (v.other == LOOP) == against_loop && v.measure == measure {
            n[match v.verdict {
                Verdict::Wins => 0,
                Verdict::Indistinct => 1,
                Verdict::Loses => 2,
            }] += 1;
        }
    }
    n
}

pub use super::choice::{Standing, standings};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_move_one_knob_at_a_time_from_the_default() {
        let all = settings();
        let base = TaskSpec::engine();
        assert_eq!(all[0].spec, base);
        let others: usize = Knob::ALL.iter().map(|k| k.levels().len() - 1).sum();
        assert_eq!(
            all.len(),
            1 + others,
            "each knob's default appears in its levels"
        );
        for s in &all[1..] {
            let k = s.knob.unwrap();
            assert_eq!(k.get(&s.spec), s.value);
            assert_eq!(k.set(s.spec, k.get(&base)), base, "{}", s.label());
        }
        assert!(all.iter().any(|s| s.label() == "early~long -0.60"));
    }

    #[test]
    fn the_tally_counts_verdicts_per_opponent_and_measure() {
        let v = |other: &str, measure, verdict| Versus {
            other: other.into(),
            measure,
            diff: 0.0,
            ci95: 0.0,
            verdict,
        };
        let point = |versus| Point {
            setting: settings()[0],
            label: "x".into(),
            rows: Vec::new(),
            adaptive_rank: 1,
            versus,
            checks: Vec::new(),
            standings: Vec::new(),
        };
        let points = [
            point(vec![
                v("greedy", Measure::BestRef, Verdict::Loses),
                v("greedy", Measure::MaxObs, Verdict::Indistinct),
                v(LOOP, Measure::BestRef, Verdict::Wins),
            ]),
            point(vec![v("fixed:10", Measure::BestRef, Verdict::Loses)]),
        ];
        assert_eq!(tally(&points, false, Measure::BestRef), [0, 0, 2]);
        assert_eq!(tally(&points, false, Measure::MaxObs), [0, 1, 0]);
        assert_eq!(tally(&points, true, Measure::BestRef), [1, 0, 0]);
        assert_eq!(tally(&points, true, Measure::MaxObs), [0, 0, 0]);
    }

    #[test]
    fn the_sweep_does_not_depend_on_the_threads() {
        assert_eq!(run(3, 5, 1), run(3, 5, 4));
    }
}
