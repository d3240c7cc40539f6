//! The end of a sub-hypothesis's plan-tree search (PrimeScientist §3.2: the search spends its
//! budget and its result is the best node): after each scored attempt, whether anything has
//! passed and whether the search goes on (`plan::goes_on`), and what the VSA records of it
//! (`sub_hypotheses.<h>.search`). Everything it decides from is read at the moment it decides:
//! the tree and the budget on disk, and from the VSA the attempts since the first pass, the
//! researcher's `after_pass` limit and the sub-hypotheses still open.

use crate::config::PlanSettings;
use crate::plan::{Action, Best, Room};
use crate::rundir::events::Event;

use super::ctx::StageCtx;
use super::error::StageError;
use super::plan_open::{choose, err, open};

/// Where a sub-hypothesis's search stands after an attempt that was scored.
#[derive(Debug, Clone)]
pub enum After {
    /// Nothing in its subtree has passed: the gate is judged as always.
    Open,
    /// It has passed, and the search goes on.
    Continue(Note),
    /// It has passed, and the search ends: the best node is the result.
    Settle(Note),
}

/// What the VSA records of a search that has passed (`sub_hypotheses.<h>.search`).
#[derive(Debug, Clone)]
pub struct Note {
    pub best: Best,
    /// Why it goes on or ends.
    pub why: String,
    /// Attempts made since the first pass.
    pub after_pass_attempts: u32,
    /// The fresh seeds of the selected node's confirmation run, once it has decided the gate
    /// (issue 40 item 3): the gate and the paper read that run, not the selection's.
    pub confirmed_on: Option<String>,
    /// The attempt that just ran, with its own verdict and measured values, when it is not
    /// (necessarily) the best node: what `compare` and the report name for that attempt
    /// (issue 40: n-0004 measured 0.7746 while the gate shows n-0003's 0.9356).
    pub attempt: Option<AttemptRecord>,
}

/// One plan-tree attempt's own outcome, beside the search's best.
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptRecord {
    pub node: String,
    pub result: String,
    pub measured: std::collections::BTreeMap<String, f64>,
}

impl Note {
    /// The search's fields as edits of one transaction (the engine's keys only: a
    /// researcher's `after_pass` limit beside them stays).
    pub fn edits(&self, tx: &mut crate::vsa::mutation::Mutation, id: &str, settled: bool) {
        use crate::vsa::mutation::Change;
        use crate::yaml::NewNode;
        let s = |v: String| NewNode::Scalar(v);
        let base = format!("sub_hypotheses.{id}.{SEARCH_KEY}");
        let fields = [
            ("best_node", s(self.best.node.to_string())),
            ("best_reward", s(format!("{:.4}", self.best.reward))),
            ("passing_nodes", s(self.best.passing.to_string())),
            (
                "after_pass_attempts",
                s(self.after_pass_attempts.to_string()),
            ),
            ("settled", s(settled.to_string())),
            (
                "why",
                crate::engine::yamlout::text(&format!("{} — {}", self.best.why(), self.why)),
            ),
        ];
        for (k, v) in fields {
            tx.push(
                Change::at(format!("{base}.{k}"), v),
                "plan_search",
                &self.why,
            );
        }
        if let Some(a) = &self.attempt {
            let measured = a
                .measured
                .iter()
                .map(|(k, v)| (k.clone(), s(format!("{v}"))))
                .collect();
            tx.push(
                Change::at(
                    format!("{base}.attempt"),
                    NewNode::Map(vec![
                        ("node".into(), crate::engine::yamlout::text(&a.node)),
                        ("result".into(), crate::engine::yamlout::text(&a.result)),
                        ("measured".into(), NewNode::Map(measured)),
                    ]),
                ),
                "plan_search",
                "the attempt's own outcome, beside the search's best",
            );
        }
        if let Some(seeds) = &self.confirmed_on {
            tx.push(
                Change::at(
                    format!("{base}.confirmation_seeds"),
                    crate::engine::yamlout::text(seeds),
                ),
                "plan_search",
                "the selected node confirmed on fresh seeds",
            );
        }
    }
}

/// A scalar of `sub_hypotheses.<id>.search` as the VSA has it now.
pub(super) fn search_field(ctx: &StageCtx<'_>, id: &str, key: &str) -> Option<String> {
    super::stages::fields::hypothesis_text(ctx, id, &[SEARCH_KEY, key])
}

/// After a scored attempt of `id` (recorded in the tree): whether anything passed, and if so
/// whether the search goes on. Read at the moment it decides: the tree, the budget, and from
/// the VSA the attempts since the first pass, the researcher's `after_pass` limit and the
/// sub-hypotheses still open.
pub fn after_attempt(ctx: &StageCtx<'_>, s: &PlanSettings, id: &str) -> Result<After, StageError> {
    let (tree, mut budget) = open(ctx.run, s)?;
    let Some(best) = crate::plan::best_passing(&tree, id) else {
        return Ok(After::Open);
    };
    crate::plan::charge_from_ledger(ctx.run, &mut budget, None)
        .map_err(err("charge the ledger"))?;
    // What is left is this sub-hypothesis's own budget (issue 41: B per sub-hypothesis).
    let budget = budget.for_hypothesis(id);
    let passed_before = search_field(ctx, id, "best_node").is_some();
    let before: u32 = search_field(ctx, id, "after_pass_attempts")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let after_pass = before + u32::from(passed_before);
    let limit = search_field(ctx, id, "after_pass")
        .and_then(|v| v.parse().ok())
        .or(s.after_pass);
    let ids = crate::plan::subtree(&tree, id);
    let costs: Vec<u64> = ids
        .iter()
        .filter_map(|n| budget.node_tokens.get(n.as_str()).copied())
        .collect();
    // This sub-hypothesis's own executions and expansions, as its spend is its own.
    let executed: u64 = costs.iter().sum();
    let expansions: u64 = ids
        .iter()
        .filter_map(|n| tree.get(n))
        .map(|n| u64::from(n.expansions))
        .sum();
    let per_attempt = costs.iter().sum::<u64>() / (costs.len().max(1) as u64)
        + budget.used_tokens.saturating_sub(executed) / expansions.max(1);
    let others = {
        use crate::vsa::enums::HypothesisStatus as S;
        let snap = ctx.vsa()?;
        snap.vsa
            .sub_hypotheses
            .iter()
            .filter(|h| h.id != id && matches!(h.status, S::Ready | S::NotStarted | S::InProgress))
            .count() as u64
    };
    let exhausted = matches!(choose(&tree, &budget, s, id)?.action, Action::Exhausted);
    let room = Room {
        after_pass,
        limit,
        remaining: budget.total_tokens.saturating_sub(budget.used_tokens),
        per_attempt,
        others,
        exhausted,
    };
    let decided = crate::plan::goes_on(&room);
    let going = decided.is_ok();
    let why = decided.unwrap_or_else(|e| e);
    ctx.emit(
        Event::new("plan")
            .hypothesis(id)
            .action(if going { "search_on" } else { "search_end" })
            .message(format!("best {} — {why}", best.why())),
    );
    let note = Note {
        best,
        why,
        after_pass_attempts: after_pass,
        confirmed_on: None,
        attempt: None,
    };
    Ok(if going {
        After::Continue(note)
    } else {
        After::Settle(note)
    })
}

/// The VSA map of a sub-hypothesis's search: `sub_hypotheses.<h>.search`.
pub(crate) const SEARCH_KEY: &str = "search";

/// Why `id`'s search may not try another node after its pass, read from the VSA now: the
/// attempts since the first pass have reached `search.after_pass` (or `[plan] after_pass`).
pub(super) fn limit_reached(ctx: &StageCtx<'_>, s: &PlanSettings, id: &str) -> Option<String> {
    search_field(ctx, id, "best_node")?;
    let done: u32 = search_field(ctx, id, "after_pass_attempts")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let limit = search_field(ctx, id, "after_pass")
        .and_then(|v| v.parse().ok())
        .or(s.after_pass)?;
    (done >= limit).then(|| format!("{done} attempt(s) after the first pass, the limit is {limit}"))
}
