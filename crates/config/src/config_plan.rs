//! `[plan]` in youra.toml: the plan-tree search's budget, policy and rules (its own file so
//! `config.rs` stays the run's settings at large).

use serde::{Deserialize, Serialize};

/// `[plan]`: with a token budget, Coding & Validation of a sub-hypothesis is a plan-tree
/// search (PrimeScientist): each attempt executes the node the policy selects, the search goes
/// on after the first pass while the budget lasts, and the best node's result is the gate's.
/// An exhausted budget moves the run to Evidence Check.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlanSettings {
    /// Tokens of the plan's own calls (planning and execution, from the ledger, from the
    /// plan's start) the search may spend; 0 = no plan tree.
    pub budget_tokens: u64,
    /// Optional wall-time budget in seconds (r is the smaller share).
    pub budget_secs: Option<f64>,
    /// adaptive, uct, uct:<c>, greedy (the default), random, fixed or fixed:<α>: anything
    /// else is an error naming these.
    pub policy: crate::plan::Policy,
    /// α's cap.
    pub alpha_max: f64,
    /// Pruning threshold δ: a child more than δ below its parent's Q leaves selection.
    pub delta: f64,
    /// Children per expansion at most (m).
    pub max_children: usize,
    /// Re-expansions of a node whose children were all pruned, after its first.
    pub reexpand_limit: u32,
    /// Times a node whose execution failed (no reward: a crash, repairs exhausted; not a
    /// scored gate FAIL) is left unrun and may be selected again before it is Failed for
    /// good. Each execution is an attempt, charged to the budget.
    pub max_node_retries: u32,
    /// How Q and widening are computed: `reference` (PrimeScientist's code: pruned and failed
    /// children stay out of their ancestors' Q; a node is widened up to m children in play
    /// once they have all run) or `youra` (the earlier rules, for comparison). Anything else
    /// is an error naming these. See docs/decisions/0005-plan-tree-rules.md.
    pub tree_rules: crate::plan::TreeRules,
    /// Attempts a sub-hypothesis's search may make after its first pass; unset = while the
    /// budget lasts (the paper's search). The VSA's `sub_hypotheses.<h>.search.after_pass`,
    /// when set, overrides it for that sub-hypothesis.
    pub after_pass: Option<u32>,
    /// Who drafts each search's root plan: `design` (the design brief is the root, no
    /// call) or `reflector` (PrimeScientist: the reflector drafts it from the brief and
    /// what the run's other searches found, a charged call). See decision 0041.
    pub root_plan: crate::plan::RootPlan,
    /// Seed of the selection's draws (with the tree's size, so a restart draws the same).
    pub seed: u64,
}

impl Default for PlanSettings {
    fn default() -> Self {
        PlanSettings {
            budget_tokens: 0,
            budget_secs: None,
            // The allocation sweep's choice around the engine's model (decision 0041,
            // `plan::bench::choice`): greedy behind no policy in 34 settings.
            policy: crate::plan::Policy::Greedy,
            alpha_max: crate::plan::ALPHA_MAX,
            delta: crate::plan::DELTA,
            max_children: crate::plan::MAX_CHILDREN,
            reexpand_limit: crate::plan::REEXPAND_LIMIT,
            max_node_retries: crate::plan::MAX_NODE_RETRIES,
            tree_rules: crate::plan::TreeRules::default(),
            after_pass: None,
            root_plan: crate::plan::RootPlan::Design,
            seed: 7,
        }
    }
}

impl PlanSettings {
    /// `[plan] budget_tokens` as `youra init` writes it: each sub-hypothesis's own budget.
    /// The demo's searches spent 14k–32k tokens each (8k an attempt, decision 0041); 150000 is
    /// about 19 such attempts, between the paper's mean of 13.33 and its caps of 25–30.
    pub const INIT_BUDGET_TOKENS: u64 = 150_000;

    /// The `[plan]` part of a new run's `youra.toml`: the plan tree on (the compiled default
    /// stays 0, so a youra.toml without `[plan]` searches no tree, as before).
    pub fn init_toml() -> String {
        format!(
            "# The plan tree (PrimeScientist's search over each sub-hypothesis's method): each\n\
             # sub-hypothesis searches under its own budget_tokens (0 = no plan tree).\n\
             [plan]\n\
             budget_tokens = {}\n\
             # The reflector drafts each search's first plan from the design (\"design\": the brief is it).\n\
             root_plan = \"reflector\"\n\
             # policy = \"greedy\"        # greedy, adaptive, uct, random, fixed\n\
             # after_pass = 1           # attempts after the first pass; unset = while the budget lasts\n\
             # max_node_retries = 2     # a node whose run failed is run again before it is Failed\n",
            Self::INIT_BUDGET_TOKENS
        )
    }

    /// What a configured value cannot mean, named with its key.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !(self.alpha_max.is_finite() && self.alpha_max >= 1.0) {
            out.push(format!(
                "[plan] alpha_max = {}: give a number >= 1",
                self.alpha_max
            ));
        }
        if !(self.delta.is_finite() && (0.0..=1.0).contains(&self.delta)) {
            out.push(format!(
                "[plan] delta = {}: give a number in [0, 1]",
                self.delta
            ));
        }
        if !(1..=8).contains(&self.max_children) {
            out.push(format!(
                "[plan] max_children = {}: give 1 to 8",
                self.max_children
            ));
        }
        if self
            .budget_secs
            .is_some_and(|t| !(t.is_finite() && t > 0.0))
        {
            out.push("[plan] budget_secs: give a positive number of seconds".into());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_writes_the_plan_tree_on() {
        let value: toml::Table =
            toml::from_str(&PlanSettings::init_toml()).expect("the [plan] TOML parses");
        let plan: PlanSettings = value["plan"].clone().try_into().expect("a [plan]");
        assert_eq!(plan.budget_tokens, PlanSettings::INIT_BUDGET_TOKENS);
        assert_eq!(plan.root_plan, crate::plan::RootPlan::Reflector);
        assert_eq!(
            PlanSettings::default().root_plan,
            crate::plan::RootPlan::Design
        );
        assert!(plan.budget_tokens > 0);
        // Everything else is the compiled default, which keeps the tree off without [plan].
        let default = PlanSettings::default();
        assert_eq!(default.budget_tokens, 0);
        assert_eq!(
            (plan.policy, plan.max_node_retries, plan.after_pass),
            (default.policy, default.max_node_retries, default.after_pass)
        );
        assert!(plan.problems().is_empty());
    }
}
