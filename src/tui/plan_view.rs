//! What the Plan tree pane shows, read off the UI thread: the nodes in display order with
//! their status, Q, visits and P, the last selection's weight, probability and reason per
//! candidate, the budget with its remaining share and α, and each sub-hypothesis's best node
//! (the search's result) with why it was chosen.

use std::path::Path;

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
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct PlanView {
    pub rows: Vec<PlanRow>,
    pub budget: Option<Budget>,
    pub selection: Option<Selection>,
    /// Warnings and errors of the read, as `file:line:col: message`.
    pub problems: Vec<String>,
}

impl PlanView {
    pub fn remaining_share(&self) -> Option<f64> {
        self.budget.as_ref().map(Budget::remaining_share)
    }

    pub fn alpha(&self) -> Option<f64> {
        let b = self.budget.as_ref()?;
        Some(plan::alpha(b.remaining_share(), b.alpha_max))
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

/// `None` when the run has no plan tree.
pub fn read_plan(run_root: &Path) -> Option<PlanView> {
    if !plan::plan_dir(run_root).join(plan::TREE_FILE).is_file() {
        return None;
    }
    let mut view = PlanView::default();
    let loaded = match plan::load(run_root, Plans::Skip) {
        Ok(l) => l,
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
    view.rows = loaded
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
                why: c.map(|c| c.why.clone()),
                on_path: on_path(n.id.as_str()),
                best: best(n.id.as_str()),
            }
        })
        .collect();
    // With the ledger's rows since the engine's last charge, as `youra status` shows it.
    view.budget = loaded
        .budget
        .map(|b| plan::spent_now(run_root, &b).unwrap_or(b));
    view.selection = selection;
    Some(view)
}
