//! Re-attaching to a scheduler job after a restart. When a back end gives a job a scheduler
//! id (a Slurm job id), Coding & Validation records it in the VSA before waiting:
//! `sub_hypotheses.<h>.slurm_job: {id, submitted_at, attempt, command}`, and adds
//! `ended_at` and `exit` once the outcome is collected. An engine killed meanwhile leaves
//! the job running; the next one finds a record without `ended_at` for the same command and
//! asks the back end to [`attach`](crate::exec::Backend::attach) instead of submitting
//! again. This module is the one reader and writer of that record.

use crate::engine::ctx::StageCtx;
use crate::engine::error::StageError;
use crate::engine::yamlout;
use crate::exec::{ATTEMPTS_DIR, ExecError, Job, RESULTS_DIR, RunningJob, attempt_numbers};
use crate::rundir::events::Event;
use crate::vsa::mutation::{Change, Mutation};
use crate::yaml::NewNode;

/// The field under `sub_hypotheses.<h>`.
pub const FIELD: &str = "slurm_job";

/// A recorded scheduler job still in flight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InFlight {
    pub id: String,
    pub command: String,
}

/// The job of `hypothesis` that was submitted and not yet collected, if any.
pub(crate) fn in_flight(ctx: &StageCtx<'_>, hypothesis: &str) -> Option<InFlight> {
    let snap = ctx.vsa().ok()?;
    let rec = snap
        .doc
        .root
        .as_ref()?
        .get("sub_hypotheses")?
        .get(hypothesis)?
        .get(FIELD)?;
    let text = |k: &str| rec.get(k).and_then(|v| v.as_str()).map(str::to_string);
    if text("ended_at").is_some() {
        return None;
    }
    Some(InFlight {
        id: text("id")?,
        command: text("command").unwrap_or_default(),
    })
}

fn command_of(job: &Job) -> String {
    // The seeds are part of what runs: a top-up's job is not its first run's.
    match job.env.iter().find(|(k, _)| k == super::repeats::SEEDS_VAR) {
        Some((_, seeds)) => format!("{} [seeds {seeds}]", job.argv.join(" ")),
        None => job.argv.join(" "),
    }
}

/// Follows the recorded job when the back end still knows it, or starts `job` (and records
/// it when it has a scheduler id). The back end's error is kept typed: the caller decides
/// whether it is the code's fault or the machine's (`start_error.rs`).
pub(crate) fn start_or_attach(
    ctx: &StageCtx<'_>,
    hypothesis: &str,
    job: &Job,
) -> Result<Box<dyn RunningJob>, ExecError> {
    let command = command_of(job);
    if let Some(rec) = in_flight(ctx, hypothesis).filter(|r| r.command == command) {
        match ctx.backend.attach(job, &rec.id) {
            Ok(Some(running)) => {
                ctx.emit(
                    Event::new("experiment_attach")
                        .hypothesis(hypothesis)
                        .result(&rec.id)
                        .message(format!(
                            "re-attached to scheduler job {} ({command})",
                            rec.id
                        )),
                );
                return Ok(running);
            }
            Ok(None) => ctx.emit(
                Event::new("experiment_attach")
                    .hypothesis(hypothesis)
                    .result("gone")
                    .message(format!(
                        "scheduler job {} is no longer known; submitting again",
                        rec.id
                    )),
            ),
            Err(e) => {
                tracing::warn!(job = %rec.id, "cannot re-attach: {e}");
                return Err(e);
            }
        }
    }
    let running = ctx.backend.start(job)?;
    if let Some(id) = running.scheduler_id() {
        // The attempt is the workspace's: earlier ones were just moved to results/attempts/<n>.
        let attempt = attempt_numbers(&job.workspace.join(RESULTS_DIR).join(ATTEMPTS_DIR))
            .last()
            .map_or(1, |n| n + 1);
        let value = NewNode::Map(vec![
            ("id".into(), yamlout::text(&id)),
            ("submitted_at".into(), yamlout::now()),
            ("attempt".into(), NewNode::Scalar(attempt.to_string())),
            ("command".into(), yamlout::text(&command)),
        ]);
        if let Err(e) = put(
            ctx,
            hypothesis,
            value,
            &format!("submitted as scheduler job {id}"),
        ) {
            // Without the record a restart would submit again; the job itself is fine.
            ctx.emit(
                Event::new("warning")
                    .hypothesis(hypothesis)
                    .message(e.to_string()),
            );
        }
        // After the record: whoever sees this event can rely on a restart finding the job.
        ctx.emit(
            Event::new("experiment_submitted")
                .hypothesis(hypothesis)
                .result(&id)
                .message(command),
        );
    }
    Ok(running)
}

/// Marks the recorded job collected (so it is never re-attached).
pub fn collected(ctx: &StageCtx<'_>, hypothesis: &str, running: &dyn RunningJob, exit: &str) {
    let Some(id) = running.scheduler_id() else {
        return;
    };
    let path = format!("sub_hypotheses.{hypothesis}.{FIELD}");
    let mut m = Mutation::new(
        Change::Put {
            path: format!("{path}.ended_at"),
            value: yamlout::now(),
        },
        FIELD,
        "engine",
        &format!("scheduler job {id} ended (exit={exit})"),
    )
    .with(
        Change::Put {
            path: format!("{path}.exit"),
            value: yamlout::text(exit),
        },
        FIELD,
        "the job's exit",
    )
    .with(
        // A node-failure resubmission changed the id: the record names the job that ran.
        Change::Put {
            path: format!("{path}.id"),
            value: yamlout::text(&id),
        },
        FIELD,
        "the job that ran",
    );
    m.create = true;
    if let Err(e) = ctx.store.mutate(&m) {
        ctx.emit(
            Event::new("warning")
                .hypothesis(hypothesis)
                .message(e.to_string()),
        );
    }
}

fn put(
    ctx: &StageCtx<'_>,
    hypothesis: &str,
    value: NewNode,
    reason: &str,
) -> Result<(), StageError> {
    let mut m = Mutation::new(
        Change::Put {
            path: format!("sub_hypotheses.{hypothesis}.{FIELD}"),
            value,
        },
        FIELD,
        "engine",
        reason,
    );
    m.create = true;
    ctx.store.mutate(&m)?;
    Ok(())
}
