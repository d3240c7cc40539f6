//! Coding & Validation's gate once an experiment has measured (issue 40): the interval gate
//! on the repeats, the top-up of an INCONCLUSIVE gate (the same code on new seeds), the plan
//! tree's bookkeeping, and — where the plan asks for repeats — the confirmation run that keeps
//! selection apart from reporting: the search chooses its node on the selection seeds, and
//! the gate and the paper read that node's run on fresh seeds the search never saw.

use std::collections::BTreeMap;

use super::coding_state::{Flight, Gated, InFlight, Progress};
use super::coding_write::Files;
use super::experiment::start_job;
use super::fields::criteria_now;
use crate::engine::ctx::StageCtx;
use crate::engine::error::StageError;
use crate::engine::gates;
use crate::engine::plan_search as search;
use crate::exec::JobOutcome;
use crate::rundir::events::Event;

/// The first seed of a confirmation run: far above any seed a selection's looks reach
/// (`max_repeats` ≤ 1000), so no row of the search is measured again. A post-hoc claim adds
/// its own stride (`post_hoc::seed_base`), so no confirmation row is one measured before it.
pub(crate) const CONFIRMATION_SEED: i64 = 1_000_000;

/// Whether a settled search is confirmed on fresh seeds: where the plan asks for repeats.
fn confirms(ctx: &StageCtx<'_>) -> bool {
    ctx.evidence.rule().min_repeats > 1
}

/// The gate judged on what was measured, scored in the plan tree where there is one. An
/// INCONCLUSIVE gate that more repeats can decide runs the same code on new seeds first.
pub(super) fn measured_step(
    ctx: &StageCtx<'_>,
    mut p: Progress,
    files: Files,
    outcome: JobOutcome,
    measured: BTreeMap<String, f64>,
    repeats: Option<crate::evidence::Repeats>,
) -> Result<Gated, StageError> {
    let judged = criteria_now(ctx, &p.id, &p.brief)?;
    let criteria = judged.list.clone();
    let rule = ctx.evidence.rule();
    let merged = repeats.map(|r| super::repeats::merge(p.prior.as_ref(), r));
    let (gate, measured) = match &merged {
        Some(rows) => {
            let gate = gates::evaluate_repeats(&criteria, rows, &rule);
            let means = gate.measured.clone();
            (gate, means)
        }
        None => (gates::evaluate(&criteria, &measured), measured),
    };
    if let (Some(rows), crate::evidence::Next::MoreRepeats { want, .. }) = (&merged, gate.next) {
        let seeds = super::repeats::top_up(rows, want);
        if let (false, Some(argv)) = (seeds.is_empty(), p.command.clone()) {
            ctx.emit(
                Event::new("repeats")
                    .hypothesis(&p.id)
                    .result("INCONCLUSIVE")
                    .message(format!(
                        "{}; running seeds {} of the same code",
                        gate.undecided
                            .iter()
                            .map(|c| format!("{}: {}", c.criterion, c.actual))
                            .collect::<Vec<_>>()
                            .join("; "),
                        super::repeats::seeds_text(&seeds)
                    )),
            );
            p.prior = merged;
            p.seeds = seeds;
            return match start_job(ctx, &p.id, argv, &p.seeds) {
                Ok(job) => Ok(Gated::Flight(Flight::Started(Box::new(InFlight {
                    progress: p,
                    files,
                    job,
                })))),
                Err(e) => {
                    let why = e.repair_or_stop(&p.id)?;
                    Ok(Gated::Repair(Box::new(p), why))
                }
            };
        }
    }
    if let Some(note) = p.confirming.take() {
        // The selected node's confirmation run decided: its gate is the gate (item 3).
        return super::search_step::settle_confirmed(
            ctx,
            &p.id,
            &judged,
            &gate,
            &outcome,
            &p.history,
            note,
            merged.as_ref(),
        )
        .map(|d| Gated::Flight(Flight::Done(d)));
    }
    let id = p.id.clone();
    let id = id.as_str();
    if let Some(node) = p.step.as_ref().map(|s| s.node.clone()) {
        let scored: Vec<crate::plan::Criterion> = criteria
            .iter()
            .map(|c| {
                crate::plan::Criterion::new(
                    &c.metric,
                    c.op,
                    c.value,
                    measured.get(&c.metric).copied(),
                )
            })
            .collect();
        let logs = vec![format!("{id}/results/run.log")];
        let passed = gate.verdict == gates::Verdict::Pass;
        search::record(
            ctx,
            ctx.plan,
            &node,
            Some(search::Scored {
                reward: crate::plan::reward(&scored, false),
                measured: &measured,
                passed,
            }),
            logs,
            search::Ran {
                code: p.code.as_ref(),
                command: p.command.as_deref(),
            },
        )?;
        // The attempt's own values of what the gate judges (not every number it logged).
        let gated = |k: &String| {
            criteria
                .iter()
                .any(|c| &c.metric == k || c.baseline.as_ref() == Some(k))
        };
        let own = search::AttemptRecord {
            node: node.to_string(),
            result: gate.verdict.as_str().to_string(),
            measured: measured
                .iter()
                .filter(|(k, _)| gated(k))
                .map(|(k, v)| (k.clone(), *v))
                .collect(),
        };
        match search::after_attempt(ctx, ctx.plan, id)? {
            search::After::Open => {}
            search::After::Continue(mut note) => {
                note.attempt = Some(own);
                return super::validation::search_step(
                    ctx,
                    id,
                    &judged,
                    Some((&gate, &outcome)),
                    &p.history,
                    &note,
                )
                .map(|d| Gated::Flight(Flight::Done(d)));
            }
            search::After::Settle(mut note) => {
                note.attempt = Some(own);
                // The attempt's own exit and log belong in the report only when it is the best.
                let own = (note.best.node == node).then_some(&outcome);
                return settle_or_confirm(ctx, p, note, own).map(Gated::Flight);
            }
        }
    }
    super::validation::record(ctx, id, &judged, &gate, Some(&outcome), &p.history, None)
        .map(|d| Gated::Flight(Flight::Done(d)))
}

/// The search settled on `note.best`: with one measurement per gate its values decide
/// (`search_step::settle`); with repeats its code runs again on fresh seeds and that run's
/// interval decides.
pub(super) fn settle_or_confirm(
    ctx: &StageCtx<'_>,
    mut p: Progress,
    note: search::Note,
    own: Option<&JobOutcome>,
) -> Result<Flight, StageError> {
    let id = p.id.clone();
    if !confirms(ctx) {
        return super::search_step::settle(ctx, &id, &p.brief, note, own, &p.history)
            .map(Flight::Done);
    }
    let node = note.best.node.clone();
    search::restore_best(ctx, ctx.plan, &id, &node)?;
    let argv = search::best_command(ctx, ctx.plan, &id, &node)?.ok_or_else(|| {
        StageError::MustStop(format!(
            "{id}: the plan tree chose {node}, whose commit records no command to confirm it \
             with; run `youra plan show` on the run, then `youra steer <run> resume`"
        ))
    })?;
    let ws = ctx.run.join(&id);
    let code = crate::plan::code_snapshot::CodeSnapshot::take(&ws).map_err(|e| {
        StageError::MustStop(format!("{id}: {node}'s restored code cannot be read: {e}"))
    })?;
    let rule = ctx.evidence.rule();
    // A claim stated after a pivot confirms on its own fresh range too: the plain range was
    // measured before the claim was stated (by the archived hypothesis's confirmation).
    let base = CONFIRMATION_SEED + p.seed_base;
    let seeds: Vec<i64> = (base..base + rule.min_repeats as i64).collect();
    ctx.emit(
        Event::new("confirmation")
            .hypothesis(&id)
            .action(&node.to_string())
            .message(format!(
                "{node} was selected on its selection seeds ({}); its gate reads a confirmation \
                 run on fresh seeds {}",
                note.best.why(),
                super::repeats::seeds_text(&seeds)
            )),
    );
    let files = super::coding_write::code_files(&ws.join("code"));
    p.confirming = Some(note);
    p.prior = None;
    p.seeds = seeds;
    p.command = Some(argv.clone());
    p.code = Some(code);
    match start_job(ctx, &id, argv, &p.seeds) {
        Ok(job) => Ok(Flight::Started(Box::new(InFlight {
            progress: p,
            files,
            job,
        }))),
        Err(e) => {
            let why = e.repair_or_stop(&id)?;
            Err(StageError::MustStop(format!(
                "{id}: the confirmation run of {node} could not start: {why}; fix it, then \
                 `youra steer <run> resume`"
            )))
        }
    }
}
