//! Where a Coding & Validation step ends a plan-tree search rather than judging one attempt:
//! the search settles on its best node (its code and results checked out into the workspace,
//! the gate judged on its measured values), or
//! the plan budget is spent and the open sub-hypotheses are skipped.

use crate::engine::ctx::StageCtx;
use crate::engine::error::StageError;
use crate::engine::gates;
use crate::engine::plan_search as search;
use crate::exec::JobOutcome;

use super::Produced;

/// The search of `id` ends after a pass: the gate is judged on its best node's measured
/// values, against the criteria as they stand now (a researcher's edit counts).
pub(super) fn settle(
    ctx: &StageCtx<'_>,
    id: &str,
    brief: &str,
    note: search::Note,
    outcome: Option<&JobOutcome>,
    history: &[String],
) -> Result<Produced, StageError> {
    // The best node's code and results become the workspace's: what `results/` holds and
    // what the paper's method check reads (`report/corpus.rs` searches `h-*/code/**`).
    search::restore_best(ctx, ctx.plan, id, &note.best.node)?;
    let judged = super::fields::criteria_now(ctx, id, brief)?;
    let gate = gates::evaluate(&judged.list, &note.best.measured);
    super::validation::record(ctx, id, &judged, &gate, outcome, history, Some(&note))
}

/// The selected node's confirmation run decided the gate (issue 40 item 3): recorded as the
/// gate, with the search's fields naming the node and the fresh seeds it was confirmed on.
#[allow(clippy::too_many_arguments)]
pub(super) fn settle_confirmed(
    ctx: &StageCtx<'_>,
    id: &str,
    judged: &crate::engine::criteria::Criteria,
    gate: &gates::GateOutcome,
    outcome: &JobOutcome,
    history: &[String],
    mut note: search::Note,
    rows: Option<&crate::evidence::Repeats>,
) -> Result<Produced, StageError> {
    let seeds: Vec<i64> = rows
        .map(|r| r.seeds().into_iter().collect())
        .unwrap_or_default();
    note.confirmed_on = Some(super::repeats::seeds_text(&seeds));
    super::validation::record(ctx, id, judged, gate, Some(outcome), history, Some(&note))
}

/// The plan budget is spent: the sub-hypotheses not yet settled are skipped, with the
/// reason, and the run moves on to Evidence Check with what it has.
pub(super) fn budget_spent(ctx: &StageCtx<'_>, id: &str) -> Result<Produced, StageError> {
    use crate::vsa::enums::HypothesisStatus as S;
    let snap = ctx.vsa()?;
    for h in snap
        .vsa
        .sub_hypotheses
        .iter()
        .filter(|h| matches!(h.status, S::Ready | S::NotStarted | S::InProgress))
    {
        let mut m = crate::vsa::mutation::Mutation::new(
            crate::vsa::mutation::Change::Set {
                path: format!("sub_hypotheses.{}.status", h.id),
                value: S::Skipped.as_str().into(),
            },
            "plan_budget",
            "engine",
            "the plan tree's budget is spent; the run goes on to Evidence Check with what it has",
        );
        m.create = true;
        ctx.store.mutate(&m)?;
    }
    Err(StageError::Rerouted(format!(
        "{id}: the plan budget is spent; on to Evidence Check"
    )))
}
