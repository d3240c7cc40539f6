//! Coding & Validation (Phase 4) for one sub-hypothesis: the executor writes the code
//! (only under `h-*/code/`), the experiment runs for real in the sandbox, its results are
//! checked for fabrication (by rule, then by the judge role), and the gate is judged by
//! rule on what was measured. Crashes, timeouts, missing results and fabrication findings
//! get bounded repair attempts with the failure as context.

use std::collections::BTreeMap;

use serde_json::Value;

pub use super::coding_state::{Flight, InFlight};
use super::coding_state::{Gated, Progress};
pub use super::coding_write::code_schema;
use super::coding_write::{Files, judge_fabrication, run_agent, write_files};
use super::experiment::{compliance, exit_event, start_job};
use super::fields::{criteria_now, snapshot_field};
use super::{Produced, StageRunner};
use crate::engine::ctx::{StageCtx, Vars};
use crate::engine::error::StageError;
use crate::engine::fabrication::{self, Evidence};
use crate::engine::gates;
use crate::engine::plan_search as search;
use crate::exec::JobOutcome;
use crate::rundir::events::Event;

pub struct CodingValidation;

/// One attempt's verdict before the gate: usable evidence, or what to repair.
pub enum Attempt {
    Measured {
        outcome: JobOutcome,
        measured: BTreeMap<String, f64>,
        /// The run's rows, one per repeat (issue 40), when it reported them.
        repeats: Option<Box<crate::evidence::Repeats>>,
    },
    Repair(String),
}

impl StageRunner for CodingValidation {
    fn run(&self, ctx: &StageCtx<'_>, hypothesis: Option<&str>) -> Result<Produced, StageError> {
        let id = hypothesis.ok_or_else(|| {
            StageError::NotAvailable("Coding & Validation needs a sub-hypothesis".into())
        })?;
        // Serially, each job is waited for at once: the same path as a parallel run, whose
        // engine keeps the started job in flight and calls `resume` later.
        let mut flight = start(ctx, id)?;
        loop {
            match flight {
                Flight::Done(produced) => return Ok(produced),
                Flight::Started(f) => flight = resume(ctx, *f)?,
            }
        }
    }
}

/// Begin the step: ask for code and start its experiment (or end at once: no attempt could
/// start one, or the plan budget is spent).
pub fn start(ctx: &StageCtx<'_>, id: &str) -> Result<Flight, StageError> {
    let brief = ctx
        .read(&format!("{id}/{}", super::artifacts::DESIGN_BRIEF))
        .unwrap_or_default();
    // What the code must measure: the criteria as they stand now. The gate itself is
    // judged against them as they stand after the experiment (a researcher's edit
    // during the run counts).
    let criteria = criteria_now(ctx, id, &brief)?.list;
    let tasks = ctx
        .read(&format!("{id}/{}", super::artifacts::TASKS))
        .unwrap_or_default();
    let refinement = snapshot_field(ctx, id, "refinement");
    let mut failure = ctx.resume.clone().or(refinement.map(|f| format!("The last attempt ran but missed its gate. The failure analysis asks for this change: {f}")));
    let mut settled = None;
    let step = match ctx.plan.budget_tokens > 0 {
        true => match search::next(ctx, ctx.plan, id, &format!("# Plan for {id}\n\n{brief}"))? {
            search::Next::Run(step) => Some(step),
            search::Next::Spent => {
                return super::search_step::budget_spent(ctx, id).map(Flight::Done);
            }
            search::Next::Settle(note) => {
                settled = Some(note);
                None
            }
        },
        false => None,
    };
    if let Some(s) = step.as_ref().filter(|s| !s.plan.starts_with("# Plan for ")) {
        let plan = format!("Execute this plan (plan-tree node {}):\n{}", s.node, s.plan);
        failure = Some(failure.map_or(plan.clone(), |f| format!("{plan}\n\n{f}")));
    }
    let seed_base = super::post_hoc::seed_base(&*ctx.vsa()?, id);
    let progress = Progress {
        id: id.to_string(),
        brief,
        tasks,
        criteria,
        failure,
        history: Vec::new(),
        step,
        attempt: 1,
        command: None,
        code: None,
        seeds: super::repeats::first_seeds(&ctx.evidence.rule(), seed_base),
        seed_base,
        prior: None,
        confirming: None,
    };
    if let Some(note) = settled {
        return super::coding_gate::settle_or_confirm(ctx, progress, note, None);
    }
    drive(ctx, progress)
}

/// Wait for the step's experiment (at once if it has ended), judge what it measured, and
/// go on: the gate's record, or a repair attempt that starts the next experiment.
pub fn resume(ctx: &StageCtx<'_>, f: InFlight) -> Result<Flight, StageError> {
    let InFlight {
        mut progress,
        files,
        job,
    } = f;
    let mut outcome = job.wait();
    // A reviewed node's forecast is checked against its wall time (issue 42 item 4).
    if let Some(step) = &progress.step {
        super::review_gate::record_wall(ctx, &step.node, outcome.duration.as_secs_f64())?;
    }
    // What the experiment did to `code/` is a violation, undone before anything reads it
    // (plan/code_snapshot.rs); recorded with the job's other violations just below.
    if let Some(code) = &progress.code {
        match code.after_run(&ctx.run.join(&progress.id)) {
            Ok(v) => outcome.violations.extend(v),
            Err(e) => outcome.violations.push(format!(
                "code/ could not be checked against what youra wrote ({e}); the attempt is not trusted"
            )),
        }
    }
    // What youra collected is recorded outside the workspace; attempts the experiment
    // planted become violations (exec/trust.rs).
    if let Err(e) = crate::exec::trust::settle(ctx.run, &progress.id, &mut outcome) {
        ctx.emit(Event::new("warning").hypothesis(&progress.id).message(format!(
            "youra could not record what it collected under {} ({e}): report check will not count this attempt as measured",
            crate::exec::trust::MANIFEST_DIR
        )));
    }
    // A planted attempt folder leaves the workspace now: no reader ever sees it.
    match crate::exec::planted::move_aside(ctx.run, &progress.id) {
        Ok(moved) => {
            for m in moved {
                ctx.emit(Event::new("warning").hypothesis(&progress.id).message(m));
            }
        }
        Err(e) => ctx.emit(Event::new("warning").hypothesis(&progress.id).message(format!(
            "youra could not move the planted attempt folders out of {} ({e}); they are not measured",
            progress.id
        ))),
    }
    if let Some(step) = &progress.step {
        // Another sub-hypothesis's node may have been selected while this one flew: the
        // rows of this attempt's judging are this node's.
        ctx.roles
            .ledger()
            .set_plan_node(Some(step.node.to_string()));
    }
    super::reattach::collected(ctx, &progress.id, job.as_ref(), &outcome.exit.log_label());
    drop(job);
    exit_event(ctx, &progress.id, &outcome);
    match judge_outcome(ctx, &progress, &files, outcome)? {
        Attempt::Measured {
            outcome,
            measured,
            repeats,
        } => match super::coding_gate::measured_step(
            ctx,
            progress,
            files,
            outcome,
            measured,
            repeats.map(|r| *r),
        )? {
            Gated::Flight(f) => Ok(f),
            Gated::Repair(mut p, why) => {
                p.repair(ctx, why);
                drive(ctx, *p)
            }
        },
        Attempt::Repair(why) => {
            progress.repair(ctx, why);
            drive(ctx, progress)
        }
    }
}

/// Attempts from `p.attempt` on until one starts an experiment, or none is left.
pub(super) fn drive(ctx: &StageCtx<'_>, mut p: Progress) -> Result<Flight, StageError> {
    while p.attempt <= ctx.settings.repair_attempts.saturating_add(1) {
        match prepare(ctx, &p)? {
            Prepared::Repair(why) => p.repair(ctx, why),
            // Rejected at review: a node is pruned and the step starts again; with no node
            // to prune the coder hears why (decision 0040).
            Prepared::Rejected(r) => match super::review_gate::after_rejection(ctx, &p, &r)? {
                Some(note) => return Err(StageError::Rerouted(note)),
                None => p.repair(ctx, r.prompt()),
            },
            Prepared::Started {
                files,
                job,
                argv,
                code,
            } => {
                p.command = Some(argv);
                p.code = Some(code);
                // While the job runs the loop may work on other sub-hypotheses: their calls
                // are not this node's (`resume` tags the judging again).
                if p.step.is_some() {
                    ctx.roles.ledger().set_plan_node(None);
                }
                return Ok(Flight::Started(Box::new(InFlight {
                    progress: p,
                    files,
                    job,
                })));
            }
        }
    }
    if let Some(step) = &p.step {
        let retry = search::record(
            ctx,
            ctx.plan,
            &step.node,
            None,
            vec![format!("{}/results/run.log", p.id)],
            search::Ran {
                code: p.code.as_ref(),
                command: p.command.as_deref(),
            },
        )?;
        if retry {
            // The plan tree left the node unrun (issue 41, as PrimeScientist re-selects a
            // failed node): another attempt of this step selects and runs it again.
            return Err(StageError::Output(format!(
                "plan tree: {}'s run gave no usable result ({}); it is selected again",
                step.node,
                p.history.last().map(String::as_str).unwrap_or("no result")
            )));
        }
        let own = search::AttemptRecord {
            node: step.node.to_string(),
            result: "NO RESULT".into(),
            measured: BTreeMap::new(),
        };
        match search::after_attempt(ctx, ctx.plan, &p.id)? {
            search::After::Open => {}
            search::After::Continue(mut note) => {
                note.attempt = Some(own);
                let criteria = criteria_now(ctx, &p.id, &p.brief)?;
                return super::validation::search_step(
                    ctx, &p.id, &criteria, None, &p.history, &note,
                )
                .map(Flight::Done);
            }
            search::After::Settle(mut note) => {
                note.attempt = Some(own);
                return super::coding_gate::settle_or_confirm(ctx, p, note, None);
            }
        }
    }
    super::validation::exhausted(ctx, &p.id, &p.history).map(Flight::Done)
}

/// One attempt up to its experiment: code written, tests first where asked, the job
/// started; or what to repair before anything could run.
enum Prepared {
    Repair(String),
    Rejected(super::review_gate::Rejection),
    Started {
        files: Files,
        job: Box<dyn crate::exec::RunningJob>,
        argv: Vec<String>,
        code: crate::plan::code_snapshot::CodeSnapshot,
    },
}

fn prepare(ctx: &StageCtx<'_>, p: &Progress) -> Result<Prepared, StageError> {
    let (id, attempt, tasks) = (p.id.as_str(), p.attempt, p.tasks.as_str());
    let failure = p.failure.as_deref();
    let vars: Vars = [
        ("hypothesis", id.to_string()),
        ("attempt", attempt.to_string()),
        ("brief", p.brief.clone()),
        ("tasks", tasks.to_string()),
        (
            "results_schema",
            super::repeats::schema_text(&ctx.evidence.rule()),
        ),
        (
            "failure",
            failure
                .map(|f| format!("The previous attempt failed. Fix this:\n{f}"))
                .unwrap_or_default(),
        ),
    ]
    .into_iter()
    .collect();
    let mut tests = None;
    // The brief or tasks the last experiment replaced with links are put back from youra's
    // own copies (`rundir::own`); that experiment was already sent to repair for it.
    if let Err(e) = crate::rundir::own::restore(ctx.run, id) {
        return Err(StageError::io("restore", &ctx.run.join(id), e));
    }
    let written = match ctx.coding_agent {
        Some(agent) => run_agent(ctx, id, agent, failure),
        None => {
            let reply = ctx.ask_json(
                "executor",
                "system/executor",
                "coding",
                &vars,
                &code_schema(),
            )?;
            tests = reply
                .get("test_command")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect::<Vec<_>>()
                })
                .filter(|a| !a.is_empty());
            write_files(ctx, id, &reply)
        }
    };
    let (files, argv) = match written {
        Ok(x) => x,
        Err(why) => return Ok(Prepared::Repair(why)),
    };
    // What runs is what youra wrote: taken before the tests and the experiment run it.
    let code = match crate::plan::code_snapshot::CodeSnapshot::take(&ctx.run.join(id)) {
        Ok(c) => c,
        Err(why) => return Ok(Prepared::Repair(why)),
    };
    let tested = compliance(ctx, id, tasks, tests)?;
    // The compliance tests run the code too: what they left in `code/` is undone before
    // the experiment runs it.
    let left = code.after_run(&ctx.run.join(id)).unwrap_or_else(|e| {
        vec![format!(
            "code/ could not be checked after the compliance tests ({e})"
        )]
    });
    if !left.is_empty() {
        ctx.emit(
            Event::new("sandbox_violation")
                .hypothesis(id)
                .message(left.join("; ")),
        );
        return Ok(Prepared::Repair(format!(
            "sandbox violation: the compliance tests changed code/:\n- {}\nTests must not write into code/.",
            left.join("\n- ")
        )));
    }
    if let Some(why) = tested {
        return Ok(Prepared::Repair(why));
    }
    // `[review] before_experiment`: the researcher may read, edit or reject it first.
    let code = match super::review_gate::before_experiment(ctx, p, &argv, code)? {
        super::review_gate::Reviewed::Run(code) => code,
        super::review_gate::Reviewed::Rejected(r) => return Ok(Prepared::Rejected(r)),
    };
    match start_job(ctx, id, argv.clone(), &p.seeds) {
        Ok(job) => Ok(Prepared::Started {
            files,
            job,
            argv,
            code,
        }),
        // The machine's fault stops the run here; only the code's is repaired.
        Err(e) => Ok(Prepared::Repair(e.repair_or_stop(id)?)),
    }
}

/// What the ended experiment is worth: usable measurements, or what to repair.
fn judge_outcome(
    ctx: &StageCtx<'_>,
    p: &Progress,
    files: &Files,
    outcome: JobOutcome,
) -> Result<Attempt, StageError> {
    let (id, brief, criteria) = (p.id.as_str(), p.brief.as_str(), &p.criteria);
    let files = files.as_slice();
    if !outcome.violations.is_empty() {
        ctx.emit(
            crate::rundir::events::Event::new("sandbox_violation")
                .hypothesis(id)
                .message(outcome.violations.join("; ")),
        );
        return Ok(Attempt::Repair(format!(
            "sandbox violation, a fabrication suspect: the experiment planted links or files where youra reads:\n{}\nWrite results only as plain files under results/ (never under results/attempts/), computed from the data, and leave the workspace's other files as youra wrote them.",
            outcome
                .violations
                .iter()
                .map(|v| format!("- {v}"))
                .collect::<Vec<_>>()
                .join("\n")
        )));
    }
    if !outcome.exit.success() {
        let tail = crate::exec::tail_lines(&outcome.log_path, 20).join("\n");
        return Ok(Attempt::Repair(format!(
            "the experiment ended with exit={} after {:.1}s. Log tail:\n{tail}",
            outcome.exit.log_label(),
            outcome.duration.as_secs_f64()
        )));
    }
    let records: Vec<BTreeMap<String, f64>> =
        outcome.metrics.iter().map(|r| r.values.clone()).collect();
    let rule = ctx.evidence.rule();
    let baselines = super::baselines::recorded(&*ctx.vsa()?, id);
    let accepted = super::repeats::accept(
        outcome.results.as_ref(),
        &p.seeds,
        criteria,
        &baselines,
        &rule,
    );
    let repeats = match accepted {
        Ok(r) => r,
        Err(why) => return Ok(Attempt::Repair(why)),
    };
    let measured = match &repeats {
        // youra's means over the repeats, never the experiment's own summary.
        Some(rows) => rows.means(),
        None => gates::measured(outcome.results.as_ref(), &records),
    };
    if criteria.iter().all(|c| !measured.contains_key(&c.metric)) {
        return Ok(Attempt::Repair(format!(
            "the experiment exited 0 but reported none of the gate's metrics ({}) in results/experiment_results.json or results/metrics.jsonl",
            criteria
                .iter()
                .map(|c| c.metric.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let metrics: Vec<String> = criteria.iter().map(|c| c.metric.clone()).collect();
    let dataset = crate::engine::check::section_body(brief, "Dataset")
        .map(|d| d.lines().next().unwrap_or("").trim().to_string())
        .filter(|d| !d.is_empty());
    let findings = fabrication::check(&Evidence {
        files,
        metrics: &metrics,
        real_dataset: dataset.as_deref(),
        records: &records,
    });
    if !findings.is_empty() {
        let list = findings
            .iter()
            .map(|f| format!("- {f}"))
            .collect::<Vec<_>>()
            .join("\n");
        return Ok(Attempt::Repair(format!(
            "fabrication checks found:\n{list}\nCompute every reported value from the data."
        )));
    }
    if let Some(why) = judge_fabrication(ctx, id, brief, files, &outcome)? {
        return Ok(Attempt::Repair(why));
    }
    Ok(Attempt::Measured {
        outcome,
        measured,
        repeats: repeats.map(Box::new),
    })
}
