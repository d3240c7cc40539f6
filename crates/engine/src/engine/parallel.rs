//! Parallel experiments (`[exec] max_parallel` > 1): a Coding & Validation step may start
//! its experiment and leave it in flight, so the loop goes on with the next ready
//! sub-hypothesis's stages while it runs. Everything else stays as in a serial run: steps
//! are chosen in file order, model calls are made one at a time on the engine's thread,
//! and a flying step *lands* (its outcome judged, its gate recorded, recovery routed) only
//! at points the VSA decides, head first in file order, never in completion order, so a
//! replayed run writes the same VSA. See "Parallel experiments" in docs/ARCHITECTURE.md.

use std::time::Instant;

use super::Engine;
use super::ends::{Attempted, Settled, StepEnd};
use super::error::EngineError;
use super::progress::Step;
use super::stages::coding::{self, Flight, InFlight};
use crate::stage::Stage;

/// A step whose experiment runs now, with what its controller attempt needs to go on.
pub(super) struct Flying {
    pub step: Step,
    pub round: u32,
    pub attempt: u32,
    pub resume: Option<String>,
    pub started: Instant,
    /// The escalation decisions when the step started: part of its call keys, which must
    /// not change because it landed later than a serial step would have ended.
    pub decisions: String,
    pub flight: Box<InFlight>,
}

/// The landing rule: with `flying` steps in flight and `slots` in all, whether one must land
/// before `step` starts. Pure, so every run lands at the same points.
pub(crate) fn must_land(flying: usize, slots: usize, step: &Step, stepping: bool) -> bool {
    flying > 0
        && (stepping
            || step.hypothesis().is_none()
            || (step.stage() == Some(Stage::CodingValidation) && flying >= slots))
}

impl Engine {
    /// Whether this step may leave its experiment in flight. Never with one slot (the
    /// serial engine, unchanged), and never when stepping (a step ends before the pause).
    /// With the plan tree on, the nodes that fly together are those of different
    /// sub-hypotheses selected in the same round of the loop: one sub-hypothesis never has
    /// two nodes in flight, since `busy` keeps it out of the loop until its node lands (its
    /// next node depends on the last one's reward).
    pub(super) fn may_fly(&self, step: &Step, stepping: bool) -> bool {
        self.max_parallel > 1
            && !stepping
            && step.stage() == Some(Stage::CodingValidation)
            && step.hypothesis().is_some()
    }

    /// The sub-hypotheses whose experiments are in flight.
    pub(super) fn busy(&self) -> Vec<String> {
        self.flying
            .iter()
            .map(|f| f.flight.hypothesis().to_string())
            .collect()
    }

    /// Whether a flying step must land before `step` may start: the loop is leaving the
    /// hypothesis loop (or nothing else is ready), every slot is taken, or the researcher
    /// steps. Decided from the VSA and the flying set only, never from the clock, so the
    /// points where outcomes are applied are the same in every run.
    pub(super) fn must_land(&self, step: &Step, stepping: bool) -> bool {
        must_land(self.flying.len(), self.max_parallel, step, stepping)
    }

    /// Wait for the first flying step in the VSA's file order and apply its outcome: the
    /// gate and the step's completion, a repair that starts its next experiment (it stays
    /// in flight), or a recovery route.
    pub(super) fn land(&mut self) -> Result<StepEnd, EngineError> {
        let order: Vec<String> = self
            .store
            .load()
            .map(|s| s.vsa.sub_hypotheses.iter().map(|h| h.id.clone()).collect())
            .unwrap_or_default();
        let rank = |f: &Flying| {
            order
                .iter()
                .position(|h| h == f.flight.hypothesis())
                .unwrap_or(usize::MAX)
        };
        let Some(i) = (0..self.flying.len()).min_by_key(|&i| rank(&self.flying[i])) else {
            return Ok(StepEnd::Complete);
        };
        let Flying {
            step,
            round,
            attempt,
            resume,
            started,
            decisions,
            flight,
        } = self.flying.remove(i);
        let h = step.hypothesis().map(str::to_string);
        let mut ctx = self.ctx(Stage::CodingValidation, h, round, attempt, resume.clone());
        ctx.decisions = decisions.clone();
        let res = coding::resume(&ctx, *flight);
        drop(ctx);
        let produced = match res {
            Ok(Flight::Started(flight)) => {
                // A repair started the next experiment: still the head, still in flight.
                self.flying.insert(
                    i,
                    Flying {
                        step,
                        round,
                        attempt,
                        resume,
                        started,
                        decisions,
                        flight,
                    },
                );
                return Ok(StepEnd::Flying);
            }
            Ok(Flight::Done(p)) => Ok(p),
            Err(e) => Err(e),
        };
        let at = Attempted {
            round,
            attempt,
            resume,
            started,
        };
        match self.settle(&step, false, at, produced)? {
            Settled::End(end) => Ok(end),
            Settled::Again(prompt) => self.attempts(&step, false, round, attempt + 1, Some(prompt)),
        }
    }

    /// Kill every flying experiment (the engine is cancelled or stops): their steps were
    /// never recorded, so a restarted engine runs them again from their start.
    pub(super) fn abandon_flying(&mut self) {
        for f in self.flying.drain(..) {
            f.flight.job.kill();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flying_steps_land_only_where_the_loop_needs_them() {
        let h = |s: Stage| Step::Hypothesis(s, "h-e2".into());
        let design = h(Stage::ExperimentDesign);
        let coding = h(Stage::CodingValidation);
        let evidence = Step::Stage(Stage::EvidenceCheck);
        let table = [
            // (flying, slots, step, stepping, must land)
            (0, 2, &evidence, false, false),
            (1, 2, &design, false, false),
            (1, 2, &coding, false, false),
            (2, 2, &coding, false, true),
            (2, 2, &design, false, false),
            (1, 2, &evidence, false, true),
            (1, 2, &Step::Done, false, true),
            (1, 4, &design, true, true),
        ];
        for (flying, slots, step, stepping, want) in table {
            assert_eq!(
                must_land(flying, slots, step, stepping),
                want,
                "{flying} flying of {slots}, next {step:?}, stepping {stepping}"
            );
        }
    }
}
