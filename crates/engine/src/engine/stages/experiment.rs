//! The experiment job of Coding & Validation: the compliance tests a test-first task list asks
//! for, then the sandboxed job with the run's limits (started, or followed when an earlier
//! engine submitted it to a scheduler), and the events that say when it started, where it
//! runs and how it ended. Split from `coding.rs`, which decides what to run and judges it.

use std::time::Duration;

use super::start_error::StartError;
use crate::engine::ctx::StageCtx;
use crate::engine::error::StageError;
use crate::exec::{Job, JobOutcome};
use crate::rundir::events::Event;

/// Whether any task asks for its compliance tests first (`test_first: true` in 03_tasks.yaml).
pub(crate) fn wants_tests_first(tasks_yaml: &str) -> bool {
    crate::yaml::parse(tasks_yaml.as_bytes())
        .ok()
        .and_then(|d| d.root)
        .and_then(|r| {
            r.get("tasks").and_then(|t| t.as_seq()).map(|t| {
                t.iter().any(|x| {
                    x.get("test_first").and_then(|v| v.as_scalar()?.as_bool()) == Some(true)
                })
            })
        })
        .unwrap_or(false)
}

/// Tests first, where the tasks ask: the coder's `test_command` runs (sandboxed, like the
/// experiment) before the experiment; missing or failing tests send the attempt to repair.
pub(super) fn compliance(
    ctx: &StageCtx<'_>,
    id: &str,
    tasks: &str,
    tests: Option<Vec<String>>,
) -> Result<Option<String>, StageError> {
    if ctx.coding_agent.is_some() || !wants_tests_first(tasks) {
        return Ok(None);
    }
    let Some(argv) = tests else {
        return Ok(Some("the tasks ask for compliance tests first (test_first: true): write them and give the command that runs them as \"test_command\"".into()));
    };
    ctx.emit(Event::new("tests").hypothesis(id).message(argv.join(" ")));
    match run(ctx, id, argv) {
        Ok(o) if o.exit.success() => Ok(None),
        Ok(o) => Ok(Some(format!(
            "the compliance tests failed (exit={}). Log tail:\n{}",
            o.exit.log_label(),
            crate::exec::tail_lines(&o.log_path, 20).join("\n")
        ))),
        Err(StartError::Code(why)) => {
            Ok(Some(format!("the compliance tests could not run: {why}")))
        }
        Err(e @ (StartError::Machine(_) | StartError::Outage(_))) => e.repair_or_stop(id).map(Some),
    }
}

/// Start the experiment in the sandbox with the run's limits; it runs on while the caller
/// goes on.
pub(super) fn start_job(
    ctx: &StageCtx<'_>,
    id: &str,
    argv: Vec<String>,
    seeds: &[i64],
) -> Result<Box<dyn crate::exec::RunningJob>, StartError> {
    let s = ctx.settings;
    let mut job = Job::new(ctx.run.join(id), argv.clone());
    // The repeats youra asks for (issue 40): the experiment runs exactly these seeds and
    // reports one row per seed (and fold) in `repeats`.
    job.env.push((
        super::repeats::SEEDS_VAR.into(),
        super::repeats::seeds_text(seeds),
    ));
    job.time_limit = Duration::from_secs_f64(s.experiment_time_limit_s.max(1.0));
    job.memory_limit =
        (s.experiment_memory_mb > 0 && s.gpus == 0).then(|| s.experiment_memory_mb * 1024 * 1024);
    job.max_processes = (s.experiment_max_processes > 0).then_some(s.experiment_max_processes);
    job.network = s.allow_network;
    job.gpus = s.gpus;
    let data = ctx.run.join("data");
    if data.is_dir() {
        job.read_only.push(data);
    }
    job.sandbox = ctx.sandbox;
    // Emitted once started, so its time is when the job began (after any wait for a GPU)
    // and it can say where the job runs.
    // A scheduler job an earlier engine submitted is followed, not submitted again.
    // Registered so a signal to youra ends it (engine/signals.rs).
    let started = submit(ctx, id, &job).map(|r| crate::engine::signals::follow(id, r));
    let placement = started.as_ref().map(|r| r.placement()).unwrap_or_default();
    // A start that failed is no `experiment_start`: the queue would call it running.
    ctx.emit(match &started {
        Ok(_) => Event::new("experiment_start")
            .hypothesis(id)
            .message(argv.join(" "))
            .action(&placement),
        Err(StartError::Code(why)) => Event::new("experiment_not_started")
            .hypothesis(id)
            .result("code")
            .message(why.clone()),
        Err(StartError::Machine(why)) => Event::new("experiment_not_started")
            .hypothesis(id)
            .result("machine")
            .message(why.clone()),
        Err(StartError::Outage(why)) => Event::new("experiment_not_started")
            .hypothesis(id)
            .result("outage")
            .message(why.clone()),
    });
    if let Ok(running) = &started {
        // Where a scheduler placed the job is known later (a Slurm job's node), on the
        // back end's thread: each change is an `experiment_placed` event.
        let (events, stage, h) = (std::sync::Arc::clone(ctx.events), ctx.stage, id.to_string());
        running.follow_placement(
            &placement,
            std::sync::Arc::new(move |now: &str| {
                let _ = events.emit(
                    Event::new("experiment_placed")
                        .stage(stage.name())
                        .hypothesis(&h)
                        .action(now),
                );
            }),
        );
    }
    started
}

/// Start (or re-attach to) `job`; a scheduler whose controller does not answer is waited out
/// for the back end's window (`scheduler_wait.rs`), said in the status and the events.
fn submit(
    ctx: &StageCtx<'_>,
    id: &str,
    job: &Job,
) -> Result<Box<dyn crate::exec::RunningJob>, StartError> {
    use super::scheduler_wait::{Note, Waited, with_wait};
    let Some(window) = ctx.backend.outage_window() else {
        return super::reattach::start_or_attach(ctx, id, job)
            .map_err(|e| StartError::from_exec(&e));
    };
    let endpoint = "the Slurm controller";
    let note = |n: Note| match n {
        Note::Waiting {
            since,
            until,
            error,
        } => {
            let w = crate::engine::outage::record(ctx.run, endpoint, since, until, &error);
            ctx.emit(
                Event::new("scheduler_waiting")
                    .hypothesis(id)
                    .message(w.line()),
            );
        }
        Note::Back { waited } => {
            crate::engine::outage::clear(ctx.run);
            ctx.emit(Event::new("scheduler_back").hypothesis(id).message(format!(
                "{endpoint} answers again after {}; the experiment is submitted",
                crate::llm::duration_words(waited)
            )));
        }
    };
    match with_wait(
        window,
        || super::reattach::start_or_attach(ctx, id, job),
        note,
        std::thread::sleep,
    ) {
        Ok(r) => Ok(r),
        Err(Waited::Exec(e)) => Err(StartError::from_exec(&e)),
        Err(Waited::GaveUp { waited, error }) => {
            crate::engine::outage::clear(ctx.run);
            Err(StartError::Outage(format!(
                "{endpoint} did not answer for {} ({error})",
                crate::llm::duration_words(waited)
            )))
        }
    }
}

/// Run a job to its end (the compliance tests: short, and always waited for).
fn run(ctx: &StageCtx<'_>, id: &str, argv: Vec<String>) -> Result<JobOutcome, StartError> {
    // The compliance tests run the claim's seeds too (fresh for a post-hoc claim).
    let base = ctx
        .vsa()
        .map_or(0, |snap| super::post_hoc::seed_base(&snap, id));
    let seeds = super::repeats::first_seeds(&ctx.evidence.rule(), base);
    let running = start_job(ctx, id, argv, &seeds)?;
    let outcome = running.wait();
    super::reattach::collected(ctx, id, running.as_ref(), &outcome.exit.log_label());
    exit_event(ctx, id, &outcome);
    Ok(outcome)
}

pub(super) fn exit_event(ctx: &StageCtx<'_>, id: &str, outcome: &JobOutcome) {
    ctx.emit(
        Event::new("experiment_exit")
            .hypothesis(id)
            .result(&outcome.exit.log_label())
            .message(format!(
                "{:.1}s, {} metric records{}",
                outcome.duration.as_secs_f64(),
                outcome.metrics.len(),
                if outcome.sandboxed { ", sandboxed" } else { "" }
            )),
    );
}
