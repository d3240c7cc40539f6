//! Synthetic research tasks for `youra bench allocation`: a hidden true reward per plan,
//! noisy observed outcomes, children correlated with their parent, token costs for planning
//! and for execution, one fixed budget. A policy is run through the real plan-tree code
//! (`select`, `expand`, `record_outcome` with pruning, the budget's r and α).
//!
//! Every hidden quantity is a pure function of (task seed, the node's place in the tree):
//! the k-th child of a node is the same plan whichever policy reaches it, with the same
//! observed outcome and the same costs. Policies are thus compared on common random numbers,
//! and a run is reproducible from its seed.

use std::collections::HashMap;

use super::budget::Budget;
use super::files::{Packet, Prior};
use super::id::NodeId;
use super::policy::Policy;
use super::rng::{Draw, XorShift64};
use super::select::select;
use super::selection::Action;
use super::tree::{Draft, PlanTree};
use super::values::{DELTA, MAX_CHILDREN, REEXPAND_LIMIT};

/// The shape of the synthetic tasks. Costs follow PrimeScientist's accounting (Appendix D.1:
/// planning ≈ 38% of tokens; ≈ 20 attempts per 1M tokens).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TaskSpec {
    pub budget_tokens: u64,
    /// An expansion (up to m children) or the root's draft: uniform in [lo, hi).
    pub expand_cost: (u64, u64),
    /// One execution of a plan.
    pub exec_cost: (u64, u64),
    /// The root's true reward: uniform in [lo, hi).
    pub root_reward: (f64, f64),
    /// A direction's ceiling: what refining it can reach. The root's is its reward plus
    /// uniform [lo, hi); a child's is its parent's + N(0, ceiling_sd): a new direction.
    pub headroom: (f64, f64),
    pub ceiling_sd: f64,
    /// A child closes this share of the gap to its ceiling, ± N(0, step_sd): refining a
    /// direction has diminishing returns, so a search can sit on a local optimum.
    pub pull: f64,
    pub step_sd: f64,
    /// Observed reward = true + N(0, noise), clamped.
    pub noise: f64,
    /// How much the reflector's P knows: P = 0.5 + skill·(child − parent) + N(0, 0.15).
    pub prior_skill: f64,
}

impl Default for TaskSpec {
    fn default() -> TaskSpec {
        TaskSpec {
            budget_tokens: 1_000_000,
            expand_cost: (30_000, 60_000),
            exec_cost: (25_000, 45_000),
            root_reward: (0.15, 0.45),
            headroom: (0.1, 0.5),
            ceiling_sd: 0.12,
            pull: 0.3,
            step_sd: 0.08,
            noise: 0.05,
            prior_skill: 1.5,
        }
    }
}

/// One hidden plan: its key (its place in the tree) and true reward.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hidden {
    pub key: u64,
    pub reward: f64,
    pub ceiling: f64,
}

/// What one search achieved.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The best true reward among the plans executed (0 if none).
    pub best: f64,
    /// The running best true reward after each execution.
    pub trace: Vec<f64>,
}

impl Outcome {
    pub fn attempts(&self) -> usize {
        self.trace.len()
    }

    /// Executions until the running best reached `target`, if it did.
    pub fn attempts_to(&self, target: f64) -> Option<usize> {
        self.trace.iter().position(|&b| b >= target).map(|i| i + 1)
    }

    fn executed(&mut self, reward: f64) {
        self.best = self.best.max(reward);
        self.trace.push(self.best);
    }
}

/// splitmix64: decorrelates neighbouring keys. Shared with `reflect::corpus`.
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A standard normal draw (Box–Muller).
pub fn normal(rng: &mut XorShift64) -> f64 {
    let u = 1.0 - rng.draw(); // (0, 1]: ln is finite
    let v = rng.draw();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// Draws that depend on `key` and on what they are for (`salt`) only.
fn stream(key: u64, salt: u64) -> XorShift64 {
    XorShift64::new(mix(key ^ mix(salt)))
}

fn uniform_u64(rng: &mut XorShift64, (lo, hi): (u64, u64)) -> u64 {
    lo + (rng.draw() * hi.saturating_sub(lo) as f64) as u64
}

const SALT_REWARD: u64 = 1;
const SALT_OBSERVE: u64 = 2;
const SALT_PRIOR: u64 = 3;
const SALT_EXPAND: u64 = 4;
const SALT_EXEC: u64 = 5;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Task {
    pub seed: u64,
    pub spec: TaskSpec,
}

impl Task {
    pub fn root(&self) -> Hidden {
        let key = mix(self.seed);
        let (lo, hi) = self.spec.root_reward;
        let mut rng = stream(key, SALT_REWARD);
        let reward = lo + (hi - lo) * rng.draw();
        let (hlo, hhi) = self.spec.headroom;
        let ceiling = (reward + hlo + (hhi - hlo) * rng.draw()).min(1.0);
        Hidden {
            key,
            reward,
            ceiling,
        }
    }

    /// The `index`-th child ever proposed for `parent`.
    pub fn child(&self, parent: Hidden, index: u64) -> Hidden {
        let key = mix(parent.key ^ mix(index.wrapping_add(0x51)));
        let mut rng = stream(key, SALT_REWARD);
        let ceiling = (parent.ceiling + self.spec.ceiling_sd * normal(&mut rng)).clamp(0.0, 1.0);
        let step =
            self.spec.pull * (ceiling - parent.reward) + self.spec.step_sd * normal(&mut rng);
        Hidden {
            key,
            reward: (parent.reward + step).clamp(0.0, 1.0),
            ceiling,
        }
    }

    pub fn observe(&self, h: Hidden) -> f64 {
        (h.reward + self.spec.noise * normal(&mut stream(h.key, SALT_OBSERVE))).clamp(0.0, 1.0)
    }

    /// The reflector's prior estimate P for `child`.
    pub fn prior(&self, parent: Hidden, child: Hidden) -> f64 {
        let e = 0.15 * normal(&mut stream(child.key, SALT_PRIOR));
        (0.5 + self.spec.prior_skill * (child.reward - parent.reward) + e).clamp(0.02, 0.98)
    }

    pub fn expand_cost(&self, parent: Hidden, expansion: u64) -> u64 {
        uniform_u64(
            &mut stream(parent.key ^ expansion, SALT_EXPAND),
            self.spec.expand_cost,
        )
    }

    pub fn exec_cost(&self, h: Hidden) -> u64 {
        uniform_u64(&mut stream(h.key, SALT_EXEC), self.spec.exec_cost)
    }

    /// The best true reward among the first m children of every node down to `depth`: a
    /// reference for what the task allows (policies that widen can find more).
    pub fn reference_best(&self, depth: u32) -> f64 {
        let mut level = vec![self.root()];
        let mut best = level[0].reward;
        for _ in 0..depth {
            level = level
                .iter()
                .flat_map(|&p| (0..MAX_CHILDREN as u64).map(move |i| (p, i)))
                .map(|(p, i)| self.child(p, i))
                .collect();
            best = level.iter().map(|h| h.reward).fold(best, f64::max);
        }
        best
    }
}

/// One search with `policy` through the plan-tree code, until the budget is spent.
pub fn run_tree(task: &Task, policy: Policy, seed: u64) -> Outcome {
    let mut budget = Budget::tokens(task.spec.budget_tokens);
    budget.policy = policy;
    let mut rng = XorShift64::new(mix(seed ^ task.seed));
    let mut tree = PlanTree::new();
    let mut hidden: HashMap<NodeId, Hidden> = HashMap::new();
    let root = task.root();
    budget.charge(task.expand_cost(root, u64::MAX), 0.0); // drafting the root plan
    hidden.insert(tree.add_root(draft(0.5), "sim"), root);
    let mut out = Outcome {
        best: 0.0,
        trace: Vec::new(),
    };
    while !budget.exhausted() {
        let action = select(&tree, &budget, REEXPAND_LIMIT, &mut rng).action;
        let node = match &action {
            Action::Exhausted => break,
            Action::Execute { node } | Action::Expand { node } | Action::Widen { node } => node,
        };
        let Some(&h) = hidden.get(node) else { break };
        match action {
            Action::Execute { .. } => {
                budget.charge(task.exec_cost(h), 0.0);
                let packet = Packet {
                    reward: task.observe(h),
                    ..Packet::default()
                };
                if tree.record_outcome(node, packet, DELTA).is_err() {
                    break;
                }
                out.executed(h.reward);
            }
            _ => {
                let Some(n) = tree.get(node) else { break };
                let first = n.children.len() as u64;
                budget.charge(task.expand_cost(h, u64::from(n.expansions)), 0.0);
                let kids: Vec<Hidden> = (0..MAX_CHILDREN as u64)
                    .map(|i| task.child(h, first + i))
                    .collect();
                let drafts = kids.iter().map(|&k| draft(task.prior(h, k))).collect();
                let Ok(ids) = tree.expand(node, drafts, MAX_CHILDREN, "sim") else {
                    break;
                };
                hidden.extend(ids.into_iter().zip(kids));
            }
        }
    }
    out
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

/// The linear keep-or-revert loop of AutoResearch: each iteration edits the incumbent (a
/// child of it, without a reflector: a tenth of an expansion's planning cost) and runs it,
/// and keeps the edit only if the observed reward improved.
pub fn run_linear(task: &Task) -> Outcome {
    let mut used = 0u64;
    let mut out = Outcome {
        best: 0.0,
        trace: Vec::new(),
    };
    let mut incumbent = task.root();
    used += task.exec_cost(incumbent);
    let mut incumbent_seen = task.observe(incumbent);
    out.executed(incumbent.reward);
    let mut tries = 0u64;
    while used < task.spec.budget_tokens {
        let next = task.child(incumbent, tries);
        used += task.exec_cost(next) + task.expand_cost(next, tries) / 10;
        out.executed(next.reward);
        let seen = task.observe(next);
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

    #[test]
    fn hidden_plans_are_a_function_of_their_place() {
        let t = Task {
            seed: 9,
            spec: TaskSpec::default(),
        };
        let r = t.root();
        assert_eq!(t.child(r, 2), t.child(r, 2));
        assert_ne!(t.child(r, 2).key, t.child(r, 1).key);
        assert_eq!(t.observe(r), t.observe(r));
        let other = Task { seed: 10, ..t };
        assert_ne!(other.root().key, r.key);
        for i in 0..200 {
            let c = t.child(r, i);
            assert!((0.0..=1.0).contains(&c.reward) && (0.0..=1.0).contains(&t.observe(c)));
            assert!((0.02..=0.98).contains(&t.prior(r, c)));
            let cost = t.exec_cost(c);
            assert!((25_000..45_000).contains(&cost), "{cost}");
        }
        assert!(t.reference_best(3) >= r.reward);
    }

    #[test]
    fn searches_are_deterministic_and_spend_the_budget() {
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
            let a = run_tree(&t, p, 1);
            assert_eq!(a, run_tree(&t, p, 1), "{p}");
            assert!((10..40).contains(&a.attempts()), "{p}: {}", a.attempts());
            assert!(a.trace.windows(2).all(|w| w[0] <= w[1]));
            assert_eq!(a.best, *a.trace.last().unwrap());
        }
        let l = run_linear(&t);
        assert_eq!(l, run_linear(&t));
        assert!((15..40).contains(&l.attempts()), "{}", l.attempts());
        assert_eq!(l.attempts_to(0.0), Some(1));
        assert_eq!(l.attempts_to(2.0), None);
    }
}
