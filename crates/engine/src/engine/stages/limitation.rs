//! A SHOULD_WORK gate not met, written down: the `limitation_<h>_run<n>.md` record in
//! YouRA's format and the VSA's `limitation` field, in the step's transaction. Both the gate
//! (`validation.rs`) and recovery's escalation (`engine::escalation`) record one, so it lives
//! below both.

use crate::engine::ctx::StageCtx;
use crate::engine::error::StageError;
use crate::engine::gates::GateOutcome;
use crate::vsa::mutation::{Change, Mutation};

/// The round the record keys are made of (the whole round, redesigns included).
pub(super) fn record_key(ctx: &StageCtx<'_>) -> String {
    ctx.round.to_string()
}

/// A SHOULD_WORK failure: a `limitation_<h>_run<n>.md` record in YouRA's format (written
/// now, keyed by the round so a resumed step rewrites the same file) and the VSA field,
/// added to the step's transaction (YouRA Algorithm 1).
pub(in crate::engine) fn limitation(
    ctx: &StageCtx<'_>,
    tx: &mut Mutation,
    id: &str,
    note: &str,
    gate: Option<&GateOutcome>,
) -> Result<(), StageError> {
    use crate::reflect::memory_writer::{GateCheck, LimitationInput, render_limitation};
    let memory = ctx.run.join("memory");
    let key = record_key(ctx);
    let run = crate::reflect::record_key::run_number(&memory, "limitation", id, &key);
    let undecided = gate.is_some_and(|g| g.verdict == crate::engine::gates::Verdict::Inconclusive);
    let checks = gate.map(|g| {
        g.measured
            .iter()
            .map(|(k, v)| {
                // An undecided criterion (INCONCLUSIVE) is not met either.
                let failed = g
                    .failed_checks
                    .iter()
                    .chain(&g.undecided)
                    .find(|c| &c.criterion == k);
                GateCheck {
                    name: k.clone(),
                    actual: v.to_string(),
                    threshold: failed.map_or("met".into(), |c| c.required.clone()),
                    passed: failed.is_none(),
                }
            })
            .collect()
    });
    let input = LimitationInput {
        hypothesis: id.to_string(),
        run,
        date: chrono::Utc::now(),
        gate_type: ctx
            .vsa()?
            .vsa
            .hypothesis(id)
            .and_then(|h| h.gate.gate_type.clone())
            .map_or("SHOULD_WORK".into(), |t| t.as_str().to_string()),
        gate_result: gate.map_or("FAIL".into(), |g| g.verdict.as_str().to_string()),
        checks: checks.unwrap_or_default(),
        root_causes: gate
            .map(|g| {
                g.failed_checks
                    .iter()
                    .chain(&g.undecided)
                    .map(|c| c.reason.clone())
                    .collect()
            })
            .unwrap_or_else(|| vec![note.to_string()]),
        lessons: vec![if undecided {
            format!(
                "{id} was not decided by its measurements; report it as inconclusive, not as support"
            )
        } else {
            format!("{id} does not hold as stated; report it as a limitation, not as support")
        }],
    };
    let rendered = render_limitation(&input)
        .map_err(|e| StageError::MustStop(format!("cannot render the limitation record: {e}")))?;
    crate::reflect::record_key::write_keyed(&memory, &rendered, &key)
        .map_err(|e| StageError::MustStop(format!("cannot write the limitation record: {e}")))?;
    tx.push(
        Change::Set {
            path: format!("sub_hypotheses.{id}.limitation"),
            value: note.to_string(),
        },
        "limitation_recorded",
        note,
    );
    Ok(())
}
