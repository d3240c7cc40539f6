//! The engine loop's steering half: directives taken one transaction at a time, an
//! escalation settled by the researcher or the waiting policy, and breakpoints. Split from
//! `run.rs`, which runs the steps; both are `impl Engine`.

use super::Engine;
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use super::error::EngineError;
use super::intake;
use super::progress::{self, Step};
use crate::rundir::events::Event;
use crate::stage::Stage;
use crate::steer::breakpoint::{Breakpoint, When, read_all};
use crate::vsa::enums::WorkflowStatus;
use crate::vsa::mutation::{Change, Mutation};
use crate::vsa::pause::PauseCause;

impl Engine {
    /// Apply pending directives one at a time, in id order, each decided under the store's
    /// lock against the state the previous one left and written with its mark as one
    /// transaction; `true` when any was taken (the caller re-reads).
    pub(super) fn take_directives(
        &mut self,
        _snap: &crate::vsa::store::Snapshot,
    ) -> Result<bool, EngineError> {
        let mut taken = false;
        loop {
            let run = self.run.clone();
            let plan_cfg = self.config.plan.clone();
            let decided = self.store.mutate_with(|s| {
                let Some((index, d)) = intake::pending(s).into_iter().next() else {
                    return Ok::<_, crate::vsa::store::StoreError>((Mutation::by("engine"), None));
                };
                let plan = match d.verb() {
                    Some(v) if v.is_plan() => {
                        let res = super::plan_search::steer(
                            &run,
                            &plan_cfg,
                            v.name(),
                            d.target.as_deref(),
                            d.plan_file.as_deref(),
                        );
                        let (applied, note) = match res {
                            Ok(note) => (true, note),
                            Err(why) => (false, why),
                        };
                        intake::Plan {
                            effects: Vec::new(),
                            applied,
                            note,
                            step: false,
                        }
                    }
                    _ => intake::plan(&d, s),
                };
                let next = progress::next(&s.doc, &s.vsa);
                Ok((intake::mutation(index, &d, &plan), Some((d, plan, next))))
            })?;
            let Some((d, plan, next)) = decided.1 else {
                return Ok(taken);
            };
            taken = true;
            if plan.applied
                && matches!(
                    d.verb(),
                    Some(crate::steer::Verb::Resume | crate::steer::Verb::Step)
                )
            {
                // Resuming releases the breakpoint the run waits at: the stage it would
                // start next (also after a restart, when nothing is remembered).
                self.at_breakpoint = None;
                self.released = Some(next);
            }
            let verdict = if plan.applied { "applied" } else { "rejected" };
            self.emit(
                Event::new("steer")
                    .action(d.verb.as_deref().unwrap_or("?"))
                    .result(verdict)
                    .message(plan.note.clone()),
            );
            self.log(&format!(
                "directive {} {verdict}: {}",
                d.id.as_deref().unwrap_or("?"),
                plan.note
            ));
        }
    }

    /// Apply a decided escalation, or decide an overdue one by the waiting policy; `true`
    /// when the VSA changed (the caller re-reads).
    pub(super) fn settle_escalation(
        &mut self,
        snap: &crate::vsa::store::Snapshot,
    ) -> Result<bool, EngineError> {
        if let Some(d) = snap
            .vsa
            .workflow
            .escalation
            .as_ref()
            .and_then(super::escalation::decided)
        {
            let ctx = self.ctx(
                Stage::CodingValidation,
                Some(d.hypothesis.clone()),
                0,
                1,
                None,
            );
            let done = match super::escalation::resolve(&ctx, &d) {
                Ok(done) => done,
                Err(e) => {
                    drop(ctx);
                    self.stop(&e.to_string())?;
                    return Ok(true);
                }
            };
            drop(ctx);
            self.log(&done);
            return Ok(true);
        }
        if self.holds_escalation(snap)? {
            return Ok(false);
        }
        let raised = snap
            .vsa
            .workflow
            .escalation
            .as_ref()
            .and_then(|e| e.raised_at.clone());
        let e = &self.config.engine;
        let Some(verdict) = super::escalation::overdue(
            raised.as_deref(),
            e.approval_timeout_s,
            e.approval_default.as_str(),
            chrono::Utc::now(),
        ) else {
            return Ok(false);
        };
        if verdict == "stop" {
            self.stop(&format!(
                "no decision on the escalation within {} s (approval_default = stop)",
                e.approval_timeout_s
            ))?;
            return Ok(true);
        }
        let value = crate::yaml::NewNode::Map(vec![
            (
                "verdict".into(),
                crate::yaml::NewNode::Scalar(verdict.clone()),
            ),
            ("by".into(), crate::yaml::NewNode::Scalar("policy".into())),
            ("at".into(), super::yamlout::now()),
            (
                "reason".into(),
                super::yamlout::text(&format!("no decision within {} s", e.approval_timeout_s)),
            ),
        ]);
        self.mutate(
            Change::Put {
                path: "workflow.pending_escalation.decision".into(),
                value,
            },
            "escalation",
            &format!("waiting policy: {verdict}"),
        )?;
        Ok(true)
    }

    /// Pause before a stage the researcher marked, unless a resume or step released this
    /// very step; a release is used up when its step starts.
    pub(super) fn breakpoint(
        &mut self,
        snap: &crate::vsa::store::Snapshot,
        step: &Step,
        stage: Stage,
    ) -> Result<bool, EngineError> {
        let items = &snap.vsa.workflow.breakpoints;
        // A sub-hypothesis with no gate verdict yet starts a new branch of the plan tree:
        // its first experiment is the next Coding & Validation step.
        let new_branch = stage == Stage::CodingValidation
            && step.hypothesis().is_some_and(|h| {
                snap.vsa
                    .sub_hypotheses
                    .iter()
                    .any(|s| s.id == h && s.gate.result.is_none() && s.gate.satisfied.is_none())
            });
        let marked: Vec<(usize, Breakpoint)> = read_all(items)
            .into_iter()
            .filter(|(_, b)| match b.when {
                When::BeforeStage(s) => s == stage,
                When::NewBranch => new_branch,
                _ => false,
            })
            .collect();
        let released = self.released.take();
        let Some((_, first)) = marked.first() else {
            return Ok(false);
        };
        if released.as_ref() == Some(step) {
            return Ok(false);
        }
        self.at_breakpoint = Some(stage);
        let cause = match first.when {
            When::NewBranch => {
                PauseCause::Condition(format!("{}: {}", first.describe(), step.describe()))
            }
            _ => PauseCause::Breakpoint(stage),
        };
        let used: Vec<usize> = marked
            .iter()
            .filter(|(_, b)| b.once)
            .map(|(i, _)| *i)
            .collect();
        let reason = cause.reason();
        let mut m = Mutation::by("engine");
        m.push(
            Change::Set {
                path: "workflow.status".into(),
                value: WorkflowStatus::Paused.as_str().into(),
            },
            "engine",
            &reason,
        );
        if !used.is_empty() {
            m.push(
                super::breakpoints::without(items, &used),
                "engine",
                "one-shot breakpoint used",
            );
        }
        self.store.mutate(&m)?;
        self.emit(
            Event::new("breakpoint")
                .stage(stage.name())
                .message(format!("paused before this stage ({reason})")),
        );
        Ok(true)
    }

    /// Sleep until the VSA changes on disk (or the engine is cancelled): a look every
    /// `wait_poll_s` at its size and modification time, no busy loop.
    pub(super) fn wait_for_change(&self) {
        self.wait_for_change_or(None);
    }

    /// As `wait_for_change`, but back after `at_most` even if nothing changed (an
    /// escalation's waiting policy must be able to decide while the file stays quiet).
    pub(super) fn wait_for_change_or(&self, at_most: Option<Duration>) {
        let started = std::time::Instant::now();
        let stamp = || {
            std::fs::metadata(self.store.path())
                .ok()
                .map(|m| (m.len(), m.modified().unwrap_or(SystemTime::UNIX_EPOCH)))
        };
        let before = stamp();
        let pause = Duration::from_secs_f64(self.config.engine.wait_poll_s.clamp(0.01, 5.0));
        while stamp() == before
            && !self.options.cancel.load(Ordering::Relaxed)
            && at_most.is_none_or(|m| started.elapsed() < m)
        {
            std::thread::sleep(pause);
        }
    }
}
