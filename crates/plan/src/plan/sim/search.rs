//! One search on one synthetic task until the budget or the attempt cap is spent: a tree
//! policy through the real plan-tree code (`select`, `expand`, `record_outcome` with
//! pruning, `record_failed_attempt` with the engine's retries, the budget's r and α), or
//! AutoResearch's keep-or-revert loop. Every execution is an attempt (the paper's count);
//! a rewarded node's diagnosis is charged as the engine spends it (`TaskSpec::diagnosis`).

use std::collections::HashMap;

use super::mix;
use super::task::{Hidden, Task};
use crate::plan::budget::Budget;
use crate::plan::files::{Packet, Prior};
use crate::plan::id::NodeId;
use crate::plan::policy::Policy;
use crate::plan::rules::TreeRules;
use crate::plan::select::select;
use crate::plan::selection::Action;
use crate::plan::tree::{Draft, PlanTree};
use crate::plan::values::{DELTA, MAX_CHILDREN, REEXPAND_LIMIT};
use crate::rng::XorShift64;

/// What one search achieved.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outcome {
    /// The best true reward among the plans executed without failing (0 if none).
    pub best: f64,
    /// The best observed reward: the paper's "max reward".
    pub seen: f64,
    /// The running best true reward after each execution.
    pub trace: Vec<f64>,
    pub failures: usize,
    /// Plans executed: a node's runs (`exec_runs`) and its retries after failures are one.
    pub nodes: usize,
    /// Reflector calls: root drafts and expansions (0 for the linear loop).
    pub expansions: usize,
    /// Tokens spent, and the part of them spent by the reflector.
    pub tokens: u64,
    pub planning_tokens: u64,
    /// The part spent diagnosing rewarded nodes (the engine's attribution, critic, clamp
    /// judge and controller; 0 at the paper calibration).
    pub diagnosis_tokens: u64,
}

impl Outcome {
    pub fn attempts(&self) -> usize {
        self.trace.len()
    }

    /// Executions until the running best reached `target`, if it did.
    pub(crate) fn attempts_to(&self, target: f64) -> Option<usize> {
        self.trace.iter().position(|&b| b >= target).map(|i| i + 1)
    }

    fn executed(&mut self, h: Hidden, seen: Option<f64>) {
        match seen {
            Some(s) => {
                self.best = self.best.max(h.reward);
                self.seen = self.seen.max(s);
            }
            None => self.failures += 1,
        }
        self.trace.push(self.best);
    }
}

/// One search with `policy` under `rules` through the plan-tree code. When nothing is left
/// to select (every plan failed, pruned or dead-ended) a new root is drafted, as recovery
/// would redesign the plan. Each node is executed `exec_runs` times (FIRE's protocol).
pub fn run_tree(task: &Task, policy: Policy, rules: TreeRules, seed: u64) -> Outcome {
    let spec = &task.spec;
    let mut budget = Budget::tokens(spec.budget_tokens);
    budget.policy = policy;
    let mut rng = XorShift64::new(mix(seed ^ task.seed));
    let mut tree = PlanTree::new();
    tree.set_rules(rules, MAX_CHILDREN);
    let mut hidden: HashMap<NodeId, Hidden> = HashMap::new();
    let mut out = Outcome::default();
    let mut drafts = 0u64;
    while !budget.exhausted() && out.attempts() < spec.attempt_cap {
        let action = select(&tree, &budget, REEXPAND_LIMIT, &mut rng).action;
        let node = match &action {
            Action::Exhausted => {
                let root = task.root(drafts);
                drafts += 1;
                out.expansions += 1;
                let cost = task.draft_cost(root);
                out.planning_tokens += cost;
                charge(&mut budget, &mut out, cost);
                hidden.insert(tree.add_root(draft(0.5), "sim"), root);
                continue;
            }
            Action::Execute { node } | Action::Expand { node } | Action::Widen { node } => node,
        };
        let Some(&h) = hidden.get(node) else { break };
        if let Action::Execute { .. } = action {
            // Retries continue the node's executions: the k-th is its own draw.
            let runs = u64::from(spec.exec_runs.max(1));
            let retry = tree
                .get(node)
                .map_or(0, |n| n.failed_attempts().len() as u64);
            let before = out.seen;
            let (mut spent, mut seen) = (0u64, None::<f64>);
            for k in retry * runs..(retry + 1) * runs {
                let cost = task.execution_cost(h, k);
                spent += cost;
                charge(&mut budget, &mut out, cost);
                let r = task.observe_execution(h, k);
                out.executed(h, r);
                seen = match (seen, r) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    (a, b) => a.or(b),
                };
            }
            out.nodes += usize::from(retry == 0);
            let recorded = match seen {
                Some(reward) => tree.record_outcome(node, packet(reward), DELTA).map(|_| ()),
                None => tree
                    .record_failed_attempt(node, packet(0.0), spec.max_node_retries)
                    .map(|_| ()),
            };
            if recorded.is_err() {
                break;
            }
            if let Some(reward) = seen {
                let (miss, gain) = spec.diagnosis;
                let share = if reward > before { gain } else { miss };
                let tokens = (spent as f64 * share).round() as u64;
                out.diagnosis_tokens += tokens;
                charge(&mut budget, &mut out, tokens);
            }
            continue;
        }
        let Some(n) = tree.get(node) else { break };
        let first = n.children.len() as u64;
        out.expansions += 1;
        let cost = task.expand_cost(h, u64::from(n.expansions));
        out.planning_tokens += cost;
        charge(&mut budget, &mut out, cost);
        let Ok(room) = tree.room(node) else { break };
        let kids: Vec<Hidden> = (0..room as u64)
            .map(|i| task.reflected(h, first + i))
            .collect();
        let drafts = kids.iter().map(|&k| draft(task.prior(k))).collect();
        let Ok(ids) = tree.expand(node, drafts, MAX_CHILDREN, "sim") else {
            break;
        };
        hidden.extend(ids.into_iter().zip(kids));
    }
    out
}

fn charge(budget: &mut Budget, out: &mut Outcome, tokens: u64) {
    budget.charge(tokens, 0.0);
    out.tokens += tokens;
}

fn packet(reward: f64) -> Packet {
    Packet {
        reward,
        ..Packet::default()
    }
}

fn draft(p: f64) -> Draft {
    Draft {
        plan: String::new(),
        prior: Prior {
            estimate: Some(p),
            ..Prior::default()
        },
        hypothesis_id: None,
    }
}

/// The linear keep-or-revert loop of AutoResearch: each iteration is one coding-agent
/// invocation that edits the incumbent (its next untried child), runs it, and keeps the
/// edit only if the observed reward improved. No reflector, so no planning cost beyond
/// the execution's own tokens; the same budget and attempt cap.
pub fn run_linear(task: &Task) -> Outcome {
    let spec = &task.spec;
    let mut out = Outcome::default();
    let mut incumbent = task.root(0);
    out.tokens += task.exec_cost(incumbent);
    let mut incumbent_seen = task.observe(incumbent);
    out.executed(incumbent, incumbent_seen);
    out.nodes += 1;
    let mut tries = 0u64;
    while out.tokens < spec.budget_tokens && out.attempts() < spec.attempt_cap {
        let next = task.child(incumbent, tries);
        out.tokens += task.exec_cost(next);
        let seen = task.observe(next);
        out.executed(next, seen);
        out.nodes += 1;
        if seen > incumbent_seen {
            (incumbent, incumbent_seen, tries) = (next, seen, 0);
        } else {
            tries += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::sim::TaskSpec;

    #[test]
    fn searches_are_deterministic_and_keep_to_the_budget() {
        let t = Task {
            seed: 3,
            spec: TaskSpec::default(),
        };
        for p in [
            Policy::Adaptive,
            Policy::Greedy,
            Policy::Random,
            Policy::Uct { c: 2f64.sqrt() },
        ] {
            let a = run_tree(&t, p, TreeRules::Reference, 1);
            assert_eq!(a, run_tree(&t, p, TreeRules::Reference, 1), "{p}");
            assert!((4..=25).contains(&a.attempts()), "{p}: {}", a.attempts());
            assert!(a.trace.windows(2).all(|w| w[0] <= w[1]));
            assert_eq!(a.best, *a.trace.last().unwrap());
            // The last charge may overshoot B by one call, never by more.
            assert!(
                a.tokens < t.spec.budget_tokens + t.spec.expand_cost.1.max(t.spec.exec_cost.1),
                "{p}"
            );
        }
        let l = run_linear(&t);
        assert_eq!(l, run_linear(&t));
        assert!((15..=25).contains(&l.attempts()), "{}", l.attempts());
        assert_eq!(l.expansions, 0);
        assert_eq!(l.attempts_to(0.0), Some(1));
        assert_eq!(l.attempts_to(2.0), None);
    }

    #[test]
    fn a_failed_execution_scores_nothing() {
        let spec = TaskSpec {
            fail_rate: 1.0,
            ..TaskSpec::default()
        };
        let t = Task { seed: 4, spec };
        for o in [
            run_tree(&t, Policy::Greedy, TreeRules::Reference, 1),
            run_tree(&t, Policy::Greedy, TreeRules::Youra, 1),
            run_linear(&t),
        ] {
            assert_eq!((o.best, o.seen), (0.0, 0.0));
            assert_eq!(o.failures, o.attempts());
            assert!(o.attempts() >= 1);
        }
    }
}
