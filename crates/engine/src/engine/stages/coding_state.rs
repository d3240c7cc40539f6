//! The state of one Coding & Validation step between its experiments: where it stands
//! (`Flight`), the job in flight with what the attempt loop needs to go on (`InFlight`,
//! `Progress`), and what the gate's side hands back (`Gated`). Below both `coding.rs` (the
//! attempt loop) and `coding_gate.rs` (the gate, top-ups and confirmation), so neither
//! imports the other's internals in a loop.

use super::Produced;
use super::coding_write::Files;
use crate::engine::criteria::Criterion;
use crate::engine::ctx::StageCtx;
use crate::rundir::events::Event;

/// Where a Coding & Validation step stands: done, or waiting on its experiment.
pub enum Flight {
    Done(Produced),
    Started(Box<InFlight>),
}

/// A step between starting its experiment and reading the outcome: the job and everything
/// the attempt loop needs to go on (the engine may hold several of these at once).
pub struct InFlight {
    pub(super) progress: Progress,
    pub(super) files: Files,
    pub job: Box<dyn crate::exec::RunningJob>,
}

impl InFlight {
    pub fn hypothesis(&self) -> &str {
        &self.progress.id
    }
}

/// The attempt loop's state, carried across a job.
pub(super) struct Progress {
    pub(super) id: String,
    pub(super) brief: String,
    pub(super) tasks: String,
    /// What the code must measure (the criteria when the step started).
    pub(super) criteria: Vec<Criterion>,
    pub(super) failure: Option<String>,
    pub(super) history: Vec<String>,
    pub(super) step: Option<crate::engine::plan_search::Step>,
    pub(super) attempt: u32,
    /// The argv of the last experiment started: with the code, what re-runs a plan node.
    pub(super) command: Option<Vec<String>>,
    /// `code/` as youra wrote it for the last experiment started, taken before it ran: what
    /// the node's commit records, and what `code/` is put back to after the job.
    pub(super) code: Option<crate::plan::code_snapshot::CodeSnapshot>,
    /// The seeds the running (or next) experiment is asked for (`YOURA_SEEDS`).
    pub(super) seeds: Vec<i64>,
    /// Where this claim's seeds start: fresh for a post-hoc claim (`post_hoc.rs`).
    pub(super) seed_base: i64,
    /// The rows of this code's earlier runs while a top-up runs (an INCONCLUSIVE gate's
    /// more repeats); cleared when the code is rewritten.
    pub(super) prior: Option<crate::evidence::Repeats>,
    /// The settled search whose selected node this run confirms on fresh seeds (issue 40
    /// item 3): its gate is the confirmation's, not the selection's.
    pub(super) confirming: Option<crate::engine::plan_search::Note>,
}

/// What the gate's side of a step hands back to the attempt loop: where the step stands, or
/// new code to write because an experiment could not start (the loop's repair).
pub(super) enum Gated {
    Flight(Flight),
    Repair(Box<Progress>, String),
}

impl Progress {
    /// This attempt needs repair: the event, the history line, the next attempt's context.
    pub(super) fn repair(&mut self, ctx: &StageCtx<'_>, why: String) {
        ctx.emit(
            Event::new("repair")
                .hypothesis(&self.id)
                .result(&format!("attempt {}", self.attempt))
                .message(first_line(&why)),
        );
        self.history
            .push(format!("attempt {}: {}", self.attempt, first_line(&why)));
        self.failure = Some(why);
        self.attempt += 1;
        // New code starts its repeats afresh: rows of other code are not its repeats.
        self.prior = None;
        self.seeds = super::repeats::first_seeds(&ctx.evidence.rule(), self.seed_base);
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").chars().take(200).collect()
}
