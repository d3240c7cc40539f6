//! The engine loop: take directives, honour pause and breakpoints, pick the next step from
//! the VSA, run its stage with the controller's judgement, record it, repeat.

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::ctx::StageCtx;
use super::ends::{Attempted, Settled, StepEnd};
use super::error::{EngineError, StageError};
use super::progress::{self, Step};
use super::{Engine, RunEnd};
use crate::rundir::events::Event;
use crate::stage::Stage;
use crate::vsa::enums::WorkflowStatus;
use crate::vsa::mutation::{Change, Mutation};
use crate::vsa::pause::PauseCause;

impl Engine {
    /// Run until the lifecycle completes, the run stops, or (with `exit_when_paused`) it
    /// pauses. Every decision is read back from the VSA first.
    pub fn run(&mut self) -> Result<RunEnd, EngineError> {
        self.emit(Event::new("engine_start").message(self.lock_note()));
        self.lift_infrastructure_stop()?;
        self.config_breakpoints()?;
        loop {
            if self.options.cancel.load(Ordering::Relaxed) {
                self.abandon_flying();
                return Ok(RunEnd::Cancelled);
            }
            let snap = match self.store.load_reconciled() {
                Ok(s) => s,
                Err(e) => {
                    self.log(&format!(
                        "the VSA cannot be read; waiting for it to be fixed: {e}"
                    ));
                    self.emit(Event::new("error").message(e.to_string()));
                    self.wait_for_change();
                    continue;
                }
            };
            if self.take_directives(&snap)? {
                continue;
            }
            // Paused, waiting or ending: experiments in flight land first, as a serial
            // run's step finishes before the loop looks at the status again.
            let active = matches!(
                snap.vsa.workflow.status,
                None | Some(WorkflowStatus::Active)
            );
            if !self.flying.is_empty() && !active {
                if let StepEnd::Stop(reason) = self.land()? {
                    return self.stop_flying(&reason);
                }
                continue;
            }
            match snap.vsa.workflow.status {
                Some(WorkflowStatus::AwaitingApproval) if self.settle_escalation(&snap)? => {
                    continue;
                }
                Some(WorkflowStatus::Paused | WorkflowStatus::AwaitingApproval) => {
                    // An `escalation` breakpoint holds it for the researcher: no policy.
                    let policy = self.config.engine.approval_timeout_s > 0.0
                        && !self.holds_escalation(&snap)?;
                    let awaiting =
                        snap.vsa.workflow.status == Some(WorkflowStatus::AwaitingApproval);
                    // `--until-pause` returns when the run waits for someone; an escalation
                    // with a waiting policy is decided without anyone, so it is waited out.
                    if self.options.exit_when_paused && !(policy && awaiting) {
                        return Ok(RunEnd::Paused);
                    }
                    // With a waiting policy, look again at least every half second.
                    self.wait_for_change_or(
                        (policy && awaiting).then(|| Duration::from_millis(500)),
                    );
                    continue;
                }
                Some(WorkflowStatus::Stopped | WorkflowStatus::Failed) => {
                    return Ok(RunEnd::Stopped(
                        snap.vsa
                            .workflow
                            .stop_reason
                            .clone()
                            .unwrap_or_else(|| "stopped".into()),
                    ));
                }
                Some(WorkflowStatus::Completed) => return Ok(RunEnd::Completed),
                _ => {}
            }
            // What the last step did may trip a conditional breakpoint (a gate's verdict,
            // a sandbox violation, the budget's share): the run pauses before the next.
            if self.conditional_stop(&snap)? {
                continue;
            }
            // Ids name folders: a hand-edited unsafe one (`/abs/dir`, `../x`) stops the run
            // before any folder is made from it (`crate::ids`).
            if let Some(v) = crate::vsa::invariants::unsafe_ids(&snap.vsa)
                .into_iter()
                .next()
            {
                let reason = format!(
                    "{}; rename it in verification_state.yaml, then resume",
                    v.message
                );
                self.stop(&reason)?;
                return Ok(RunEnd::Stopped(reason));
            }
            // A transition begun before a crash (a failed gate's recovery) is finished
            // before anything else, so no step can skip it.
            if let Some(t) = snap.vsa.workflow.pending_transition.clone() {
                match self.finish_transition(&t)? {
                    StepEnd::Stop(reason) => {
                        self.stop(&reason)?;
                        return Ok(RunEnd::Stopped(reason));
                    }
                    StepEnd::Complete | StepEnd::Rerouted | StepEnd::Flying => continue,
                }
            }
            let busy = self.busy();
            let busy: Vec<&str> = busy.iter().map(String::as_str).collect();
            let step = progress::next_besides(&snap.doc, &snap.vsa, &busy);
            let stepping = snap
                .doc
                .root
                .as_ref()
                .and_then(|r| r.get("workflow")?.get("step_once")?.as_scalar()?.as_bool())
                == Some(true);
            if self.must_land(&step, stepping) {
                if let StepEnd::Stop(reason) = self.land()? {
                    return self.stop_flying(&reason);
                }
                continue;
            }
            let Some(stage) = step.stage() else {
                self.set(
                    "workflow.status",
                    WorkflowStatus::Completed.as_str(),
                    "the lifecycle is complete",
                )?;
                self.emit(Event::new("completed").message("all stages complete"));
                return Ok(RunEnd::Completed);
            };
            if self.breakpoint(&snap, &step, stage)? {
                continue;
            }
            match self.run_step(&step, stepping)? {
                StepEnd::Complete | StepEnd::Flying => {}
                StepEnd::Stop(reason) => return self.stop_flying(&reason),
                // A step whose gate failed ends in its route, not a completion: the
                // researcher stepping through sees the gate and the route before the next
                // stage runs.
                StepEnd::Rerouted if stepping => self.pause_after_route(&step)?,
                StepEnd::Rerouted => {}
            }
        }
    }

    /// A run an outage stopped goes on when an engine starts on it again (`youra run`):
    /// nothing about the study was wrong. Any other stop waits for the researcher's
    /// `youra steer <run> resume`.
    fn lift_infrastructure_stop(&mut self) -> Result<(), EngineError> {
        let snap = self.store.load()?;
        let wf = &snap.vsa.workflow;
        if wf.status != Some(WorkflowStatus::Stopped)
            || !super::outage::is_infrastructure(wf.stop_reason.as_deref())
        {
            return Ok(());
        }
        // The researcher's own `resume` waits in the steering list: it lifts the stop (and
        // is recorded as applied) when the loop takes it.
        let asked = super::intake::pending(&snap)
            .iter()
            .any(|(_, d)| d.verb() == Some(crate::steer::Verb::Resume));
        if asked {
            return Ok(());
        }
        let why = "youra run resumes the run after an infrastructure stop (a model endpoint that did not answer)";
        self.store.mutate(&super::outage::lift(why))?;
        self.log(why);
        self.emit(Event::new("resume").message(why));
        Ok(())
    }

    /// After a stepped stage that recovery rerouted: pause, unless the route itself waits
    /// (an escalation) or the step was already answered. Decided under the store's lock.
    fn pause_after_route(&mut self, step: &Step) -> Result<(), EngineError> {
        let after = format!("{} and its route", step.describe());
        let (_, paused) = self.store.mutate_with(|s| {
            let active = s.vsa.workflow.status == Some(WorkflowStatus::Active);
            let stepping = s
                .doc
                .root
                .as_ref()
                .and_then(|r| r.get("workflow")?.get("step_once")?.as_scalar()?.as_bool())
                == Some(true);
            if !(active && stepping) {
                return Ok::<_, crate::vsa::store::StoreError>((Mutation::by("engine"), false));
            }
            Ok((step_pause(&after), true))
        })?;
        // Said where `youra run --step` prints and the TUI lists events: it waits now.
        if paused {
            self.emit(Event::new("paused").message(PauseCause::Stepped { after }.reason()));
        }
        Ok(())
    }

    /// Finish a journaled transition: the recovery of a failed gate, from where it stood.
    fn finish_transition(
        &mut self,
        t: &crate::vsa::model::Transition,
    ) -> Result<StepEnd, EngineError> {
        self.log(&format!(
            "finishing the recovery of {} begun before (step {:?})",
            t.hypothesis, t.step
        ));
        let ctx = self.ctx(
            Stage::CodingValidation,
            Some(t.hypothesis.clone()),
            t.round,
            t.attempt,
            None,
        );
        let res = super::escalation::finish(&ctx, t);
        drop(ctx);
        match res {
            Ok(done) | Err(StageError::Rerouted(done)) => {
                self.log(&done);
                Ok(StepEnd::Rerouted)
            }
            Err(StageError::MustStop(reason)) => Ok(StepEnd::Stop(reason)),
            Err(e) => Ok(StepEnd::Stop(format!("recovery of {}: {e}", t.hypothesis))),
        }
    }

    pub(super) fn run_step(&mut self, step: &Step, stepping: bool) -> Result<StepEnd, EngineError> {
        let Some(stage) = step.stage() else {
            return Ok(StepEnd::Complete);
        };
        let h = step.hypothesis().map(str::to_string);
        let _span = tracing::info_span!(
            "stage",
            stage = %stage.key(),
            hypothesis = %h.as_deref().unwrap_or("-")
        )
        .entered();
        let round = self
            .store
            .load()
            .map(|s| progress::round(&s.doc, step))
            .unwrap_or(0);
        self.set(
            "workflow.current_phase",
            stage.label(),
            &format!("start {}", step.describe()),
        )?;
        self.emit(self.stage_event("stage_start", stage, h.as_deref()));
        self.log(&format!("start {}", step.describe()));
        self.attempts(step, stepping, round, 1, None)
    }

    /// The step's attempts from `first` on: the stage runs, its output is checked and the
    /// controller judges it; a resume goes round again. A Coding & Validation step in a
    /// parallel run may instead leave its experiment in flight (`StepEnd::Flying`).
    pub(super) fn attempts(
        &mut self,
        step: &Step,
        stepping: bool,
        round: u32,
        first: u32,
        mut resume: Option<String>,
    ) -> Result<StepEnd, EngineError> {
        let Some(stage) = step.stage() else {
            return Ok(StepEnd::Complete);
        };
        let h = step.hypothesis().map(str::to_string);
        let runner = super::stages::runner(stage);
        let max = self.config.engine.max_resumes.saturating_add(1);
        for attempt in first..=max {
            let _attempt = tracing::info_span!("attempt", attempt).entered();
            let started = std::time::Instant::now();
            let ctx = self.ctx(stage, h.clone(), round, attempt, resume.clone());
            let produced = match (self.may_fly(step, stepping), h.as_deref()) {
                (true, Some(id)) => match super::stages::coding::start(&ctx, id) {
                    Ok(super::stages::coding::Flight::Started(flight)) => {
                        let decisions = ctx.decisions.clone();
                        drop(ctx);
                        self.flying.push(super::parallel::Flying {
                            step: step.clone(),
                            round,
                            attempt,
                            resume,
                            started,
                            decisions,
                            flight,
                        });
                        return Ok(StepEnd::Flying);
                    }
                    Ok(super::stages::coding::Flight::Done(p)) => Ok(p),
                    Err(e) => Err(e),
                },
                _ => runner.run(&ctx, h.as_deref()),
            };
            drop(ctx);
            let attempted = Attempted {
                round,
                attempt,
                resume: resume.clone(),
                started,
            };
            match self.settle(step, stepping, attempted, produced)? {
                Settled::End(end) => return Ok(end),
                Settled::Again(prompt) => resume = Some(prompt),
            }
        }
        Ok(StepEnd::Stop(format!(
            "{}: the controller asked for a resume {} times without PHASE_COMPLETE (limit engine.max_resumes = {})",
            step.describe(),
            max,
            self.config.engine.max_resumes
        )))
    }

    pub(super) fn ctx(
        &self,
        stage: Stage,
        hypothesis: Option<String>,
        round: u32,
        attempt: u32,
        resume: Option<String>,
    ) -> StageCtx<'_> {
        StageCtx {
            run: &self.run,
            store: &self.store,
            roles: &self.roles,
            prompts: &self.prompts,
            events: &self.events,
            settings: &self.config.engine,
            debate: &self.config.debate,
            stage,
            round,
            attempt,
            // Read when the step starts: a decision is applied between steps, never inside one.
            decisions: self
                .store
                .load()
                .map(|s| crate::vsa::escalation::decisions(&s.doc))
                .unwrap_or_default(),
            resume,
            topic: self.topic.clone(),
            hypothesis,
            backend: self.backend.as_ref(),
            recovery: &self.config.recovery,
            tools: self.tools.as_ref(),
            coding_agent: self.config.tools.coding_agent.as_ref(),
            plan: &self.config.plan,
            sandbox: self.config.exec.sandbox,
            paper: &self.config.paper,
            evidence: &self.config.evidence,
            review: &self.config.review,
            cancel: &self.options.cancel,
        }
    }

    /// Stop the run; experiments still in flight are killed (their steps never recorded).
    fn stop_flying(&mut self, reason: &str) -> Result<RunEnd, EngineError> {
        self.abandon_flying();
        self.stop(reason)?;
        Ok(RunEnd::Stopped(reason.to_string()))
    }

    pub(super) fn stop(&mut self, reason: &str) -> Result<(), EngineError> {
        // A model endpoint's outage outlasted its window, whichever way its error reached
        // this stop (a stage's, the controller's): an infrastructure stop, resumable.
        let marked;
        let reason = if self.roles.outage_watch().take_gave_up().is_some() {
            marked = super::outage::mark(reason);
            marked.as_str()
        } else {
            reason
        };
        self.log(&format!("MUST_STOP: {reason}"));
        self.emit(
            Event::new("stop")
                .result("MUST_STOP")
                .message(reason.to_string()),
        );
        self.store.mutate(&stop_mutation(reason))?;
        Ok(())
    }

    pub(super) fn stage_event(&self, kind: &str, stage: Stage, h: Option<&str>) -> Event {
        let e = Event::new(kind).stage(stage.name());
        match h {
            Some(h) => e.hypothesis(h),
            None => e,
        }
    }

    pub(super) fn set(&self, path: &str, value: &str, reason: &str) -> Result<(), EngineError> {
        let mut m = Mutation::new(
            Change::Set {
                path: path.into(),
                value: value.into(),
            },
            "engine",
            "engine",
            reason,
        );
        m.create = true;
        self.store.mutate(&m)?;
        Ok(())
    }

    pub(super) fn mutate(
        &self,
        change: Change,
        event: &str,
        reason: &str,
    ) -> Result<(), EngineError> {
        self.store
            .mutate(&Mutation::new(change, event, "engine", reason))?;
        Ok(())
    }
}

/// The pause that ends a `step`: the flag cleared and the status PAUSED, with the cause.
pub(super) fn step_pause(after: &str) -> Mutation {
    Mutation::by("engine")
        .with(
            Change::Set {
                path: "workflow.step_once".into(),
                value: "false".into(),
            },
            "engine",
            "step: one stage done",
        )
        .with(
            Change::Set {
                path: "workflow.status".into(),
                value: WorkflowStatus::Paused.as_str().into(),
            },
            "engine",
            &PauseCause::Stepped {
                after: after.to_string(),
            }
            .reason(),
        )
}

/// Stopping is one transaction: the reason and the status together.
pub(crate) fn stop_mutation(reason: &str) -> Mutation {
    Mutation::by("engine")
        .with(
            Change::Set {
                path: "workflow.stop_reason".into(),
                value: reason.into(),
            },
            "engine",
            "MUST_STOP",
        )
        .with(
            Change::Set {
                path: "workflow.status".into(),
                // YouRA's MUST_STOP is an alias the store writes as the canonical STOPPED.
                value: WorkflowStatus::Stopped.as_str().into(),
            },
            "engine",
            reason,
        )
}

impl From<StageError> for EngineError {
    fn from(e: StageError) -> Self {
        EngineError::Io(e.to_string())
    }
}
