//! What the Plan tree pane shows, read off the UI thread: the nodes in display order with
//! their status, Q, visits and P, the last selection's weight, probability and reason per
//! candidate, the budget with its remaining share and α, and each sub-hypothesis's best node
//! (the search's result) with why it was chosen. A long study's tree is thousands of node
//! folders: the first read of a run shows the view [`pending`] (the budget, and a line
//! saying the nodes are being read) and the next read fills it; a ledger append recharges
//! the budget alone ([`recharged`]). The rows are shared, so keeping the view costs no copy.

use std::path::Path;
use std::sync::Arc;

use crate::plan::{self, Avail, Budget, Plans, Selection};

#[derive(Debug, Clone, PartialEq)]
pub struct PlanRow {
    pub depth: usize,
    pub id: String,
    pub status: &'static str,
    pub q: f64,
    pub visits: u64,
    pub p: f64,
    pub pinned: bool,
    pub vetoed: bool,
    pub hypothesis: Option<String>,
    /// From the last selection, when this node was a candidate there.
    pub weight: Option<f64>,
    pub probability: Option<f64>,
    pub why: Option<String>,
    pub on_path: bool,
    /// The search's result for its sub-hypothesis: why it is the best node.
    pub best: Option<String>,
    /// The review's forecast of its tokens and what it cost once it ran (issue 42 item 4).
    pub forecast: Option<Forecast>,
    /// A sub-hypothesis's root, on a run that forecasts: what its branch has spent and the
    /// forecast of its next node (the mean of its nodes that ran), in tokens.
    pub branch: Option<(u64, Option<u64>)>,
    /// Who changed its code at review (✎), and who rejected it there (decision 0040).
    pub edited_by: Option<String>,
    pub rejected_by: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct PlanView {
    pub rows: Arc<Vec<PlanRow>>,
    pub budget: Option<Budget>,
    /// `plan/budget.json` as saved; `budget` adds the ledger's rows since the engine's last
    /// charge, so a ledger append recharges from this without reading the tree.
    pub saved_budget: Option<Budget>,
    pub selection: Option<Selection>,
    /// Warnings and errors of the read, as `file:line:col: message`.
    pub problems: Vec<String>,
    /// The nodes are still being read: the pane says so (its line in `problems`) rather
    /// than show an empty tree as if it were empty.
    pub loading: bool,
    /// The node files this view was read from, for the next read to keep.
    pub files: KeptFiles,
}

/// The node files of a read, kept for the next (`plan::load_since`). Not part of what a
/// view shows, so two views that show the same are equal whatever they keep.
#[derive(Debug, Clone, Default)]
pub struct KeptFiles(pub Option<Arc<plan::NodeFilesCache>>);

impl PartialEq for KeptFiles {
    fn eq(&self, _: &KeptFiles) -> bool {
        true
    }
}

/// The line a [`pending`] view shows in place of its rows.
pub const LOADING: &str = "reading the plan tree's nodes (plan/nodes/)…";

/// What the pane shows while the node files are still being read: the budget (one file)
/// and [`LOADING`]. `None` when the run has no plan tree.
pub fn pending(run_root: &Path) -> Option<PlanView> {
    if !plan::plan_dir(run_root).join(plan::TREE_FILE).is_file() {
        return None;
    }
    let saved_budget =
        crate::fsutil::read_run_file(plan::plan_dir(run_root).join(plan::BUDGET_FILE))
            .ok()
            .and_then(|b| serde_json::from_slice::<Budget>(&b).ok());
    Some(PlanView {
        budget: charged(run_root, saved_budget.as_ref()),
        saved_budget,
        problems: vec![LOADING.to_string()],
        loading: true,
        ..PlanView::default()
    })
}

/// `view` with its budget charged again from the ledger: after appends to `ledger.tsv`
/// alone, nothing else of the plan changed.
pub(crate) fn recharged(view: &PlanView, run_root: &Path) -> PlanView {
    PlanView {
        budget: charged(run_root, view.saved_budget.as_ref()),
        ..view.clone()
    }
}

/// With the ledger's rows since the engine's last charge, as `youra status` shows it.
fn charged(run_root: &Path, saved: Option<&Budget>) -> Option<Budget> {
    saved.map(|b| plan::spent_now(run_root, b).unwrap_or_else(|_| b.clone()))
}

impl PlanView {
    /// r of the sub-hypothesis the search is at (issue 41: each has its own budget).
    pub fn remaining_share(&self) -> Option<f64> {
        self.searched_budget().map(|b| b.remaining_share())
    }

    pub fn alpha(&self) -> Option<f64> {
        let b = self.searched_budget()?;
        Some(plan::alpha(b.remaining_share(), b.alpha_max))
    }

    /// The sub-hypothesis the search is at: the current row's root's.
    pub fn searched(&self) -> Option<&str> {
        let at = self.current()?;
        let root = self.rows[..=at].iter().rev().find(|r| r.depth == 0)?;
        root.hypothesis.as_deref()
    }

    /// The budget as the searched sub-hypothesis's search reads it (`Budget::for_hypothesis`);
    /// the run's where no search is placed.
    pub(crate) fn searched_budget(&self) -> Option<Budget> {
        let b = self.budget.as_ref()?;
        Some(match self.searched() {
            Some(h) => b.for_hypothesis(h),
            None => b.clone(),
        })
    }

    /// The row the search is at: the node running now, else the last selection's node.
    /// The pane keeps it in sight while it is not focused, and focusing puts the cursor there.
    pub fn current(&self) -> Option<usize> {
        self.rows
            .iter()
            .position(|r| r.status == "running")
            .or_else(|| {
                let s = self.selection.as_ref()?;
                let id = s.path.last()?;
                self.rows.iter().position(|r| r.id == id.as_str())
            })
    }

    /// The selection's one-line account of the chosen action.
    pub fn action(&self) -> Option<String> {
        let s = self.selection.as_ref()?;
        let what = match &s.action {
            plan::Action::Execute { node } => format!("execute {}", node.as_str()),
            plan::Action::Expand { node } => format!("expand {}", node.as_str()),
            plan::Action::Widen { node } => format!("widen {}", node.as_str()),
            plan::Action::Exhausted => "budget exhausted".into(),
        };
        Some(format!(
            "last selection: {what} ({})",
            s.levels.last().map(|l| l.why.as_str()).unwrap_or("")
        ))
    }
}

fn status_name(s: plan::NodeStatus) -> &'static str {
    match s {
        plan::NodeStatus::Untested => "untested",
        plan::NodeStatus::Running => "running",
        plan::NodeStatus::Evaluated => "evaluated",
        plan::NodeStatus::Pruned => "pruned",
        plan::NodeStatus::Failed => "failed",
    }
}

/// The problems the view keeps: the pane lists them above the rows, and a tree whose
/// every node has one (5,000 stale `stats.json`) would hide the rows and cost each frame
/// and each copy of the view thousands of lines.
pub(crate) const SHOWN_PROBLEMS: usize = 5;

/// A `tree.json` above this size (a few hundred nodes, each with three files to read) is
/// left by a run's first read to the next one: [`read_plan_first`].
pub(crate) const LATER_FROM_BYTES: u64 = 64 * 1024;

/// The first read's view: a small tree whole, a large one [`pending`].
pub(crate) fn read_plan_first(run_root: &Path) -> Option<PlanView> {
    let tree = plan::plan_dir(run_root).join(plan::TREE_FILE);
    match std::fs::metadata(&tree) {
        Ok(m) if m.len() >= LATER_FROM_BYTES => pending(run_root),
        _ => read_plan(run_root),
    }
}

/// `None` when the run has no plan tree.
pub(crate) fn read_plan(run_root: &Path) -> Option<PlanView> {
    read_plan_since(run_root, None, &|_| true)
}

/// The view, keeping `prev`'s node files for the nodes `changed` does not name.
pub(crate) fn read_plan_since(
    run_root: &Path,
    prev: Option<&PlanView>,
    changed: &(dyn Fn(&str) -> bool + Sync),
) -> Option<PlanView> {
    if !plan::plan_dir(run_root).join(plan::TREE_FILE).is_file() {
        return None;
    }
    let mut view = PlanView::default();
    let kept = prev.and_then(|p| p.files.0.as_deref());
    let loaded = match plan::load_since(run_root, Plans::Skip, kept, changed) {
        Ok((l, files)) => {
            view.files = KeptFiles(Some(Arc::new(files)));
            l
        }
        Err(e) => {
            view.problems.push(e.to_string());
            return Some(view);
        }
    };
    view.problems
        .extend(loaded.warnings.iter().map(ToString::to_string));
    let (selection, warnings) = plan::read_selection(run_root);
    view.problems
        .extend(warnings.iter().map(ToString::to_string));
    let candidate = |id: &str| {
        selection.as_ref().and_then(|s| {
            s.levels
                .iter()
                .flat_map(|l| l.candidates.iter())
                .find(|c| c.id.as_str() == id)
        })
    };
    let on_path = |id: &str| {
        selection
            .as_ref()
            .is_some_and(|s| s.path.iter().any(|p| p.as_str() == id))
    };
    // The sub-hypothesis the last selection searched for: other sub-hypotheses' roots were
    // set aside by the engine (not vetoed by anyone), and their line says so in these terms.
    let attempt = selection
        .as_ref()
        .and_then(|s| s.path.last())
        .and_then(|n| loaded.tree.get(n))
        .and_then(|n| n.hypothesis_id.clone());
    let set_aside = |n: &plan::PlanNode, c: &plan::Candidate| {
        let other = n.hypothesis_id.is_some() && n.hypothesis_id != attempt;
        match (&attempt, other && !n.vetoed, &c.avail) {
            (Some(a), true, Avail::Blocked(plan::Blocked::Vetoed)) => Some(format!(
                "set aside: the last selection was for {a}, so only {a}'s nodes were candidates"
            )),
            _ => None,
        }
    };
    let bests: Vec<plan::Best> = loaded
        .tree
        .roots()
        .filter_map(|r| r.hypothesis_id.as_deref())
        .filter_map(|h| plan::best_passing(&loaded.tree, h))
        .collect();
    let best = |id: &str| {
        bests
            .iter()
            .find(|b| b.node.as_str() == id)
            .map(|b| format!("best node of its sub-hypothesis — {}", b.why()))
    };
    // Per sub-hypothesis: tokens its nodes cost, how many ran, whether any was forecast.
    let mut branches: std::collections::HashMap<String, (u64, u64, bool)> = Default::default();
    for n in loaded.tree.nodes() {
        let Some(h) = plan::node_code::node_hypothesis(&loaded.tree, &n.id) else {
            continue;
        };
        let b = branches.entry(h).or_default();
        if let Some(p) = &n.packet {
            b.0 += p.cost_tokens;
            b.1 += 1;
        }
        b.2 |= n.extra.contains_key(crate::vsa::review::NODE_FORECAST_KEY);
    }
    view.rows = Arc::new(
        loaded
            .tree
            .preorder()
            .into_iter()
            .map(|(depth, n)| {
                let c = candidate(n.id.as_str());
                PlanRow {
                    depth,
                    id: n.id.as_str().to_string(),
                    status: status_name(n.status),
                    q: n.stats.q,
                    visits: n.stats.visits,
                    p: n.p(),
                    pinned: n.pinned,
                    vetoed: n.vetoed,
                    hypothesis: n.hypothesis_id.clone(),
                    weight: c.map(|c| c.weight),
                    probability: c
                        .filter(|c| !matches!(c.avail, Avail::Blocked(_)))
                        .map(|c| c.probability),
                    why: c.map(|c| set_aside(n, c).unwrap_or_else(|| c.why.clone())),
                    on_path: on_path(n.id.as_str()),
                    best: best(n.id.as_str()),
                    forecast: forecast_of(n),
                    branch: n
                        .parent
                        .is_none()
                        .then(|| n.hypothesis_id.as_deref().and_then(|h| branches.get(h)))
                        .flatten()
                        .filter(|b| b.2)
                        .map(|b| (b.0, (b.1 > 0).then(|| b.0 / b.1))),
                    edited_by: review_mark(n, crate::vsa::review::NODE_EDIT_KEY),
                    rejected_by: review_mark(n, crate::vsa::review::NODE_REJECT_KEY),
                }
            })
            .collect(),
    );
    if view.problems.len() > SHOWN_PROBLEMS {
        let more = view.problems.len() - SHOWN_PROBLEMS;
        view.problems.truncate(SHOWN_PROBLEMS);
        view.problems
            .push(format!("… and {more} more problems with the plan's files"));
    }
    view.budget = charged(run_root, loaded.budget.as_ref());
    view.saved_budget = loaded.budget;
    view.selection = selection;
    Some(view)
}

/// A node's forecast at review and, once it ran, what it cost (tokens).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Forecast {
    pub tokens: Option<u64>,
    pub actual: Option<u64>,
    /// The wall time forecast and what the experiment took, in seconds.
    pub wall_s: Option<f64>,
    pub actual_wall_s: Option<f64>,
}

impl Forecast {
    /// `forecast ~12k → 15k (+25%)`, `forecast ~12k, not run yet`, `no forecast → 15k`.
    pub fn text(&self) -> String {
        let k = |t: u64| match t {
            t if t >= 10_000 => format!("{}k", t / 1000),
            t => t.to_string(),
        };
        let tokens = match (self.tokens, self.actual) {
            (Some(f), Some(a)) if f > 0 => {
                let err = (a as f64 - f as f64) / f as f64 * 100.0;
                format!("forecast ~{} → {} ({err:+.0}%)", k(f), k(a))
            }
            (Some(f), Some(a)) => format!("forecast ~{} → {}", k(f), k(a)),
            (Some(f), None) => format!("forecast ~{}, not run yet", k(f)),
            (None, Some(a)) => format!("no forecast (nothing similar had run) → {}", k(a)),
            (None, None) => "no forecast (nothing similar had run)".into(),
        };
        let wall = match (self.wall_s, self.actual_wall_s) {
            (Some(f), Some(a)) if f > 0.0 => {
                format!(", ~{f:.0} s → {a:.0} s ({:+.0}%)", (a - f) / f * 100.0)
            }
            (_, Some(a)) => format!(", took {a:.0} s"),
            _ => String::new(),
        };
        format!("{tokens}{wall}")
    }
}

fn forecast_of(n: &crate::plan::PlanNode) -> Option<Forecast> {
    let f = n.extra.get(crate::vsa::review::NODE_FORECAST_KEY)?;
    Some(Forecast {
        tokens: f.get("tokens").and_then(|t| t.as_u64()),
        actual: n.packet.as_ref().map(|p| p.cost_tokens),
        wall_s: f.get("wall_s").and_then(|t| t.as_f64()),
        actual_wall_s: f.get("actual_wall_s").and_then(|t| t.as_f64()),
    })
}

/// Who a review mark on `n` names (`review_edit` / `review_rejected`: `{by, reason, …}`).
fn review_mark(n: &crate::plan::PlanNode, key: &str) -> Option<String> {
    let m = n.extra.get(key)?;
    Some(
        m.get("by")
            .and_then(|b| b.as_str())
            .unwrap_or("the researcher")
            .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::Forecast;

    #[test]
    fn a_forecast_is_shown_against_what_the_node_cost() {
        let f = |tokens, actual| {
            Forecast {
                tokens,
                actual,
                wall_s: None,
                actual_wall_s: None,
            }
            .text()
        };
        let table = [
            (f(Some(12_000), Some(15_000)), "forecast ~12k → 15k (+25%)"),
            (f(Some(20_000), Some(10_000)), "forecast ~20k → 10k (-50%)"),
            (f(Some(800), Some(800)), "forecast ~800 → 800 (+0%)"),
            (f(Some(0), Some(5)), "forecast ~0 → 5"),
            (f(Some(12_000), None), "forecast ~12k, not run yet"),
            (
                f(None, Some(9)),
                "no forecast (nothing similar had run) → 9",
            ),
        ];
        for (got, want) in table {
            assert_eq!(got, want);
        }
        let timed = Forecast {
            tokens: Some(12_000),
            actual: Some(15_000),
            wall_s: Some(40.0),
            actual_wall_s: Some(50.0),
        };
        assert_eq!(
            timed.text(),
            "forecast ~12k → 15k (+25%), ~40 s → 50 s (+25%)"
        );
        let untimed = Forecast {
            wall_s: None,
            ..timed
        };
        assert_eq!(untimed.text(), "forecast ~12k → 15k (+25%), took 50 s");
    }
}
