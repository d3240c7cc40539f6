//! A step's end: the Independent Controller's judgement of an attempt, and the completion
//! it leads to, written in one transaction with the step the controller chose to follow.

use super::Engine;
use super::controller::{Decision, judge};
use super::ends::{Attempted, Settled, StepEnd};
use super::error::{EngineError, StageError};
use super::next_choice::{self, Named};
use super::progress::{Step, loop_field};
use super::run::step_pause;
use super::yamlout::{now, text};
use crate::vsa::enums::PhaseStatus;
use crate::vsa::mutation::{Change, Mutation};
use crate::yaml::NewNode;

/// What the controller named with PHASE_COMPLETE, and the steps it could name.
pub(super) struct Chose {
    next: Named,
    legal: Vec<Step>,
}

impl Chose {
    /// The step taken (none when the steps could not be read ahead) and the veto's reason.
    fn bound(&self) -> (Option<Step>, Option<String>) {
        if self.legal.is_empty() {
            return (None, None);
        }
        let (s, veto) = next_choice::bound(&self.next, &self.legal);
        (Some(s), veto)
    }
}

impl Engine {
    /// What one attempt's result means for the step: its end (complete, stopped,
    /// rerouted), or another attempt with this instruction.
    pub(super) fn settle(
        &mut self,
        step: &Step,
        stepping: bool,
        at: Attempted,
        produced: Result<super::Produced, StageError>,
    ) -> Result<Settled, EngineError> {
        let Some(stage) = step.stage() else {
            return Ok(Settled::End(StepEnd::Complete));
        };
        let h = step.hypothesis();
        let (io_before, copy_before) = (self.store.io_time(), self.store.copy_time());
        let max = self.config.engine.max_resumes.saturating_add(1);
        let attempt = at.attempt;
        let produced = match produced {
            Ok(p) => p,
            Err(e) if e.resumable() && attempt < max => {
                self.log(&format!(
                    "{}: attempt {attempt}: {e}; resuming",
                    stage.name()
                ));
                return Ok(Settled::Again(e.to_string()));
            }
            Err(StageError::MustStop(reason)) => return Ok(Settled::End(StepEnd::Stop(reason))),
            // The endpoint stayed down for the whole outage window: no resume prompt can
            // help, and the stop is the infrastructure's, not the study's.
            Err(e) if e.is_outage() => {
                return Ok(Settled::End(StepEnd::Stop(super::outage::mark(&format!(
                    "{}: {e}",
                    step.describe()
                )))));
            }
            Err(StageError::Rerouted(note)) => {
                self.log(&note);
                return Ok(Settled::End(StepEnd::Rerouted));
            }
            Err(e) => {
                return Ok(Settled::End(StepEnd::Stop(format!(
                    "{}: {e}",
                    step.describe()
                ))));
            }
        };
        let elapsed = at.started.elapsed();
        if !produced.check.ok() {
            if attempt == max {
                return Ok(Settled::End(StepEnd::Stop(format!(
                    "{}: output check failed after {attempt} attempts: {}",
                    step.describe(),
                    produced.check.describe()
                ))));
            }
            return Ok(Settled::Again(format!(
                "Your output is incomplete ({}). Write it again with every required part.",
                produced.check.describe()
            )));
        }
        // The steps that may follow, read from the VSA as this completion would leave it:
        // the controller chooses among them, and the same list bounds its choice.
        let legal = self.legal_after(step, at.round % 1000, &produced);
        let options = if legal.is_empty() {
            "(the state after this stage cannot be read ahead: name no next stage; the lifecycle's order decides)".to_string()
        } else {
            next_choice::options(&legal)
        };
        let ctx = self.ctx(stage, h.map(str::to_string), at.round, attempt, at.resume);
        let decision = judge(
            &ctx,
            &produced.artifact,
            &produced.check.describe(),
            &options,
        );
        drop(ctx);
        self.timings.push(elapsed);
        match decision {
            Decision::PhaseComplete { reason, next } => {
                let chose = Chose { next, legal };
                self.complete(step, at.round % 1000, produced, &reason, stepping, &chose)?;
                self.step_timings.push(super::StepTiming {
                    wall: at.started.elapsed(),
                    io: self.store.io_time().saturating_sub(io_before),
                    copy: self.store.copy_time().saturating_sub(copy_before),
                });
                Ok(Settled::End(StepEnd::Complete))
            }
            Decision::MustStop { reason } => {
                Ok(Settled::End(StepEnd::Stop(format!("controller: {reason}"))))
            }
            Decision::Resume { prompt } => {
                self.emit(
                    self.stage_event("controller", stage, h)
                        .result("RESUME")
                        .message(prompt.clone()),
                );
                Ok(Settled::Again(prompt))
            }
        }
    }

    /// Record the step as done in one transaction: what the stage produced for the VSA
    /// (a gate's judgement, a plan), YouRA's phase status or the sub-hypothesis's loop
    /// field, with `step` the pause after it, and the controller's choice of what follows
    /// (`workflow.next_hypothesis`, or its veto in `recovery.vetoes`).
    fn complete(
        &mut self,
        step: &Step,
        round: u32,
        produced: super::Produced,
        reason: &str,
        stepping: bool,
        chose: &Chose,
    ) -> Result<(), EngineError> {
        let Some(stage) = step.stage() else {
            return Ok(());
        };
        let (mut tx, why) = self.completion(step, round, &produced, reason)?;
        let (taken, veto) = chose.bound();
        // Only a choice the controller made is kept (one it left to the order needs no
        // record), and a reopened stage (the plan search goes on) hands the loop to nobody.
        if let Some(taken) = &taken
            && !chose.next.is_empty()
            && next_choice::opens_loop(step)
            && !produced.reopen
            && let Step::Hypothesis(_, h) = taken
        {
            tx.push(
                Change::Put {
                    path: "workflow.next_hypothesis".into(),
                    value: text(h),
                },
                "controller_next",
                &format!("the Independent Controller takes {} next", taken.describe()),
            );
        }
        if let Some(veto) = &veto {
            tx.push(
                Change::Append {
                    list: "recovery.vetoes".into(),
                    item: NewNode::Map(vec![
                        ("after".into(), text(&step.describe())),
                        ("chosen_by".into(), text("controller")),
                        ("veto".into(), text(veto)),
                        ("at".into(), now()),
                    ]),
                },
                "controller_veto",
                veto,
            );
        }
        if stepping {
            tx.extend(step_pause(&step.describe()));
        }
        self.store.mutate(&tx)?;
        for e in produced.events {
            self.emit(e);
        }
        if let Some(veto) = veto {
            self.emit(
                self.stage_event("controller_veto", stage, step.hypothesis())
                    .message(veto),
            );
        }
        if let Some(taken) = taken {
            let named = if chose.next.is_empty() {
                "rule"
            } else {
                "named"
            };
            self.emit(
                self.stage_event("controller_next", stage, step.hypothesis())
                    .result(named)
                    .message(taken.describe()),
            );
        }
        self.emit(
            self.stage_event("stage_end", stage, step.hypothesis())
                .result("PHASE_COMPLETE")
                .message(reason.to_string()),
        );
        self.log(&why);
        Ok(())
    }

    /// The completion's transaction (what the stage produced, then its status entry) and
    /// its history's words.
    fn completion(
        &self,
        step: &Step,
        round: u32,
        produced: &super::Produced,
        reason: &str,
    ) -> Result<(Mutation, String), EngineError> {
        let artifact = produced.artifact.as_str();
        let Some(stage) = step.stage() else {
            return Ok((Mutation::by("engine"), String::new()));
        };
        let path = match step.hypothesis() {
            Some(h) => format!("sub_hypotheses.{h}.{}", loop_field(stage)),
            None => format!("phases.{}", stage.key()),
        };
        let entry = if produced.reopen {
            let snap = self.store.load()?;
            super::progress::status_entry(&snap.doc, &path, PhaseStatus::NotStarted)
        } else {
            NewNode::Map(vec![
                (
                    "status".into(),
                    NewNode::Scalar(PhaseStatus::Completed.as_str().into()),
                ),
                ("completed_at".into(), now()),
                ("file".into(), text(artifact)),
                ("round".into(), NewNode::Scalar(round.to_string())),
            ])
        };
        let why = format!(
            "{} complete: {}",
            step.describe(),
            if reason.is_empty() {
                "PHASE_COMPLETE"
            } else {
                reason
            }
        );
        let mut tx = produced.commit.clone();
        tx.push(Change::Put { path, value: entry }, "phase_complete", &why);
        Ok((tx, why))
    }

    /// The steps that may follow `step`'s completion, from the VSA as it would leave it
    /// (`Store::preview`); empty when that cannot be read, and the order decides.
    fn legal_after(&self, step: &Step, round: u32, produced: &super::Produced) -> Vec<Step> {
        let Ok((tx, _)) = self.completion(step, round, produced, "") else {
            return Vec::new();
        };
        let Ok(after) = self.store.preview(&tx) else {
            return Vec::new();
        };
        let busy = self.busy();
        let busy: Vec<&str> = busy.iter().map(String::as_str).collect();
        let mut legal = next_choice::legal(&after.doc, &after.vsa, step, &busy);
        // A stage that reopens (the plan search goes on) is not done: only its own next
        // attempt follows, never another hypothesis.
        if produced.reopen {
            legal.truncate(1);
        }
        legal
    }
}
