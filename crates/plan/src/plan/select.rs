//! Descent (PrimeScientist §3.3 "Selection"): from the roots, choose one child per level
//! until an untested node (execute it), an evaluated leaf (expand it) or an evaluated node
//! whose children are all out of play (widen it). Pure: the tree, the budget and the draws
//! go in, a `Selection` with every candidate's weight, probability and reason comes out.

use super::budget::Budget;
use super::eligibility::Avail;
use super::error::PlanError;
use super::id::NodeId;
use super::policy::{
    Policy, Value, argmax, floored, probabilities, sample_index, uct_score, weight,
};
use super::rules::{ChildState, availability_under};
use super::selection::{Action, Candidate, Level, Selection};
use super::tree::PlanTree;
use crate::rng::Draw;

/// Choose the next research action.
pub fn select(
    tree: &PlanTree,
    budget: &Budget,
    reexpand_limit: u32,
    rng: &mut impl Draw,
) -> Selection {
    let ctx = Ctx::new(tree, budget, reexpand_limit);
    let mut levels = Vec::new();
    let mut path = Vec::new();
    let mut parent = None;
    let mut cands = ctx.roots.clone();
    let action = loop {
        let (candidates, scores) = ctx.level(parent, &cands);
        let Some((pick, why)) = ctx.choose(&cands, &candidates, &scores, rng) else {
            levels.push(ctx.finish(parent, candidates, None, nothing_eligible(&cands)));
            break Action::Exhausted;
        };
        let i = cands[pick];
        levels.push(ctx.finish(parent, candidates, Some(pick), why));
        let node = tree.nodes()[i].id.clone();
        path.push(node.clone());
        match ctx.avail[i] {
            Avail::Execute => break Action::Execute { node },
            Avail::Expand => break Action::Expand { node },
            Avail::Widen => break Action::Widen { node },
            // A consistent tree is acyclic, so this ends within `len` levels; the guard
            // keeps a bug elsewhere from hanging the engine.
            Avail::Descend | Avail::Blocked(_) if levels.len() <= tree.len() => {
                parent = Some(i);
                cands = ctx.kids[i].clone();
            }
            Avail::Descend | Avail::Blocked(_) => break Action::Exhausted,
        }
    };
    ctx.selection(path, action, levels)
}

/// The researcher forced `id`: the same levels are shown, but each names the forced path.
/// An untested node is executed; any other is expanded (widened if it has children).
pub fn force(
    tree: &PlanTree,
    budget: &Budget,
    reexpand_limit: u32,
    id: &NodeId,
) -> Result<Selection, PlanError> {
    let path = tree.path_to(id)?;
    let ctx = Ctx::new(tree, budget, reexpand_limit);
    let mut levels = Vec::new();
    let mut parent = None;
    let mut cands = ctx.roots.clone();
    for step in &path {
        let i = tree
            .position(step)
            .ok_or_else(|| PlanError::UnknownNode { id: step.clone() })?;
        let (candidates, _) = ctx.level(parent, &cands);
        let pick = cands.iter().position(|&c| c == i);
        let why = format!("{step}: forced by the researcher (on the path to {id})");
        levels.push(ctx.finish(parent, candidates, pick, why));
        parent = Some(i);
        cands = ctx.kids[i].clone();
    }
    let node = tree
        .get(id)
        .ok_or_else(|| PlanError::UnknownNode { id: id.clone() })?;
    let action = match node.status {
        super::NodeStatus::Running => return Err(PlanError::Running { id: id.clone() }),
        super::NodeStatus::Untested => Action::Execute { node: id.clone() },
        _ if node.children.is_empty() => Action::Expand { node: id.clone() },
        _ => Action::Widen { node: id.clone() },
    };
    Ok(ctx.selection(path, action, levels))
}

fn nothing_eligible(cands: &[usize]) -> String {
    if cands.is_empty() {
        "the tree is empty: draft a root plan".into()
    } else {
        "nothing to choose: every candidate is blocked".into()
    }
}

/// Everything a level needs, computed once per selection in O(nodes).
struct Ctx<'a> {
    tree: &'a PlanTree,
    policy: Policy,
    r: f64,
    alpha: Option<f64>,
    roots: Vec<usize>,
    kids: Vec<Vec<usize>>,
    avail: Vec<Avail>,
    /// The node is eligible and is, or leads to, an eligible pinned node.
    pin_below: Vec<bool>,
    /// Q above the roots: the mean of every reward, or 1 before any.
    top_q: f64,
    top_visits: u64,
}

impl<'a> Ctx<'a> {
    fn new(tree: &'a PlanTree, budget: &Budget, reexpand_limit: u32) -> Ctx<'a> {
        let nodes = tree.nodes();
        let kids: Vec<Vec<usize>> = nodes
            .iter()
            .map(|n| n.children.iter().filter_map(|c| tree.position(c)).collect())
            .collect();
        let roots: Vec<usize> = (0..nodes.len())
            .filter(|&i| nodes[i].parent.is_none())
            .collect();
        let order = preorder(&roots, &kids);
        let mut avail = vec![Avail::Blocked(super::eligibility::Blocked::DeadEnd); nodes.len()];
        let mut pin_below = vec![false; nodes.len()];
        let mut settled = vec![true; nodes.len()];
        let (rules, width) = (tree.rules(), tree.max_children());
        for &i in order.iter().rev() {
            let children: Vec<ChildState> = kids[i]
                .iter()
                .map(|&c| ChildState {
                    avail: avail[c],
                    settled: settled[c],
                })
                .collect();
            let n = &nodes[i];
            avail[i] = availability_under(
                rules,
                n.status,
                n.vetoed,
                &children,
                n.expansions,
                reexpand_limit,
                width,
            );
            settled[i] = super::rules::settled(n.status, n.vetoed, &children);
            pin_below[i] =
                avail[i].eligible() && (n.pinned || kids[i].iter().any(|&c| pin_below[c]));
        }
        let top_visits: u64 = roots.iter().map(|&i| nodes[i].stats.visits).sum();
        let top_sum: f64 = roots
            .iter()
            .map(|&i| nodes[i].stats.q * nodes[i].stats.visits as f64)
            .sum();
        let r = budget.remaining_share();
        Ctx {
            tree,
            policy: budget.policy,
            r,
            alpha: budget.policy.alpha(r, budget.alpha_max),
            roots,
            kids,
            avail,
            pin_below,
            top_q: if top_visits == 0 {
                1.0
            } else {
                top_sum / top_visits as f64
            },
            top_visits,
        }
    }

    fn parent_q_visits(&self, parent: Option<usize>) -> (f64, u64) {
        match parent {
            Some(p) => {
                let s = &self.tree.nodes()[p].stats;
                (s.q, s.visits)
            }
            None => (self.top_q, self.top_visits),
        }
    }

    /// Every candidate with its weight and reason; the scores of the eligible ones.
    fn level(&self, parent: Option<usize>, cands: &[usize]) -> (Vec<Candidate>, Vec<Option<f64>>) {
        let (parent_q, parent_visits) = self.parent_q_visits(parent);
        let mut scores = Vec::with_capacity(cands.len());
        let mut out = Vec::with_capacity(cands.len());
        for &i in cands {
            let n = &self.tree.nodes()[i];
            let avail = self.avail[i];
            let value = if n.status.has_reward() || n.stats.visits > 0 {
                Value::Evaluated { q: n.stats.q }
            } else {
                Value::unvisited(parent_q, n.p(), parent_visits > 0)
            };
            let (w, why) = if avail.eligible() {
                let (w, formula) = self.score(value, n.stats.visits, parent_visits);
                let failed = n.failed_attempts().len();
                let retry = if failed > 0 && avail == Avail::Execute {
                    format!(" · again after {failed} failed execution(s)")
                } else {
                    String::new()
                };
                let pin = if n.pinned {
                    " · pinned"
                } else if self.pin_below[i] {
                    " · leads to a pinned node"
                } else {
                    ""
                };
                (
                    Some(w),
                    format!("{}: {formula}{retry}{pin}", avail.describe()),
                )
            } else {
                (None, avail.describe().to_string())
            };
            scores.push(w);
            out.push(Candidate {
                id: n.id.clone(),
                avail,
                pinned: n.pinned,
                weight: w.unwrap_or(0.0),
                probability: 0.0,
                why,
            });
        }
        let probs = match self.policy {
            Policy::Greedy | Policy::Uct { .. } => one_hot(cands.len(), argmax(&scores)),
            _ => probabilities(&scores.iter().map(|s| s.unwrap_or(0.0)).collect::<Vec<_>>()),
        };
        for (c, p) in out.iter_mut().zip(probs) {
            c.probability = p;
        }
        (out, scores)
    }

    /// The policy's weight or score for one eligible candidate, with its formula.
    fn score(&self, value: Value, visits: u64, parent_visits: u64) -> (f64, String) {
        match self.policy {
            Policy::Adaptive | Policy::FixedAlpha { .. } => {
                let a = self.alpha.unwrap_or(1.0);
                let w = weight(value, a);
                let floor = if floored(value, a) {
                    " → floor ε"
                } else {
                    ""
                };
                let formula = match value {
                    Value::Evaluated { q } => format!("Q {q:.3}^{a:.2} = {}{floor}", num(w)),
                    Value::Unvisited { parent_q, p } => format!(
                        "(Q(parent) {parent_q:.3} × √P {p:.3})^{a:.2} = {}{floor}",
                        num(w)
                    ),
                    Value::Prior { p } => format!(
                        "Q(parent) 0 → √P {p:.3} alone: ({:.3})^{a:.2} = {}{floor}",
                        p.clamp(0.0, 1.0).sqrt(),
                        num(w)
                    ),
                };
                (w, formula)
            }
            Policy::Greedy => {
                let w = value.base();
                let formula = match value {
                    Value::Evaluated { q } => format!("Q {q:.3}"),
                    Value::Unvisited { parent_q, p } => {
                        format!("Q(parent) {parent_q:.3} × √P {p:.3} = {w:.3}")
                    }
                    Value::Prior { p } => {
                        format!("Q(parent) 0 → √P {p:.3} alone = {w:.3}")
                    }
                };
                (w, formula)
            }
            Policy::Uct { c } => {
                let q = match value {
                    Value::Evaluated { q } => q,
                    Value::Unvisited { .. } | Value::Prior { .. } => 0.0,
                };
                let w = uct_score(q, visits, parent_visits, c);
                let formula = if w.is_infinite() {
                    "never visited: UCT tries it first".to_string()
                } else {
                    format!("Q {q:.3} + {c:.2}·√(ln {parent_visits} / {visits}) = {w:.3}")
                };
                (w, formula)
            }
            Policy::Random => (1.0, "uniform".to_string()),
        }
    }

    /// The index chosen among `cands` and the level's reason; `None` if nothing is eligible.
    fn choose(
        &self,
        cands: &[usize],
        candidates: &[Candidate],
        scores: &[Option<f64>],
        rng: &mut impl Draw,
    ) -> Option<(usize, String)> {
        let eligible = scores.iter().filter(|s| s.is_some()).count();
        if eligible == 0 {
            return None;
        }
        if let Some(k) = cands.iter().position(|&i| self.pin_below[i]) {
            let id = &candidates[k].id;
            let why = if candidates[k].pinned {
                format!("{id}: chosen first, pinned by the researcher")
            } else {
                format!("{id}: chosen first, it leads to a pinned node")
            };
            return Some((k, why));
        }
        let only = |k: usize| {
            (
                k,
                format!("{}: the only eligible candidate", candidates[k].id),
            )
        };
        if eligible == 1 {
            return scores.iter().position(Option::is_some).map(only);
        }
        match self.policy {
            Policy::Greedy | Policy::Uct { .. } => {
                let k = argmax(scores)?;
                let c = &candidates[k];
                let why = match self.policy {
                    Policy::Greedy => format!("{}: highest value {:.3} (greedy)", c.id, c.weight),
                    _ if c.weight.is_infinite() => {
                        format!("{}: first never-visited child (UCT)", c.id)
                    }
                    _ => format!("{}: highest UCT score {:.3}", c.id, c.weight),
                };
                Some((k, why))
            }
            _ => {
                let u = rng.draw();
                let probs: Vec<f64> = candidates.iter().map(|c| c.probability).collect();
                let k = sample_index(&probs, u)?;
                let c = &candidates[k];
                let why = match self.alpha {
                    Some(a) => format!(
                        "{}: sampled with p {:.3} (draw {u:.3}; α {a:.2}, r {:.3})",
                        c.id, c.probability, self.r
                    ),
                    None => format!("{}: drawn uniformly among {eligible} (draw {u:.3})", c.id),
                };
                Some((k, why))
            }
        }
    }

    fn finish(
        &self,
        parent: Option<usize>,
        candidates: Vec<Candidate>,
        chosen: Option<usize>,
        why: String,
    ) -> Level {
        Level {
            parent: parent.map(|p| self.tree.nodes()[p].id.clone()),
            parent_q: self.parent_q_visits(parent).0,
            candidates,
            chosen,
            why,
        }
    }

    fn selection(&self, path: Vec<NodeId>, action: Action, levels: Vec<Level>) -> Selection {
        Selection {
            policy: self.policy,
            remaining_share: self.r,
            alpha: self.alpha,
            path,
            action,
            levels,
        }
    }
}

fn one_hot(len: usize, at: Option<usize>) -> Vec<f64> {
    (0..len)
        .map(|i| if Some(i) == at { 1.0 } else { 0.0 })
        .collect()
}

/// Weights span many orders of magnitude at α = 10: keep three significant digits.
fn num(w: f64) -> String {
    if w != 0.0 && w.abs() < 1e-3 {
        format!("{w:.2e}")
    } else {
        format!("{w:.4}")
    }
}

/// Parents before children, over the nodes reachable from `roots`.
fn preorder(roots: &[usize], kids: &[Vec<usize>]) -> Vec<usize> {
    let mut seen = vec![false; kids.len()];
    let mut out = Vec::with_capacity(kids.len());
    let mut stack: Vec<usize> = roots.iter().rev().copied().collect();
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        out.push(i);
        stack.extend(kids[i].iter().rev());
    }
    out
}

#[cfg(test)]
#[path = "select_tests.rs"]
mod tests;
