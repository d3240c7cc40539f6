//! One module per stage, each one type behind [`StageRunner`]; [`runner`] is the table.

pub(super) mod artifacts;
mod baselines;
pub(super) mod coding;
mod coding_gate;
mod coding_state;
pub(super) mod coding_write;
mod data_note;
pub(super) mod debate;
mod debate_gap;
mod design;
mod drafting;
mod evidence;
mod evidence_rule;
mod experiment;
pub(super) mod fields;
mod gate_evidence;
pub(super) mod implementation;
pub(super) mod limitation;
mod literature;
mod method_note;
mod multiplicity;
pub(super) mod planning;
mod post_hoc;
mod reattach;
mod refinement;
mod repeats;
pub(super) mod review;
mod review_cost;
mod review_edit;
mod review_gate;
pub(crate) mod review_marks;
mod scheduler_wait;
mod scoping;
mod search_step;
mod selection_note;
mod start_error;
pub(super) mod validation;

use super::check::Check;
use super::ctx::StageCtx;
use super::error::StageError;
use crate::stage::Stage;

/// What a stage produced: its main artifact (relative to the run; the controller's pointer)
/// and the output check's verdict on it.
#[derive(Debug, Clone)]
pub struct Produced {
    pub artifact: String,
    pub check: Check,
    /// What the step records in the VSA when the controller accepts it, written in the
    /// same transaction as its completion (a gate's judgement, the plan's sub-hypotheses):
    /// a step the controller sends back, or a crash before acceptance, records nothing.
    pub commit: crate::vsa::mutation::Mutation,
    /// Events emitted once the commit is written (never twice for one commit).
    pub events: Vec<crate::rundir::events::Event>,
    /// The step is done for now but runs again: its status goes back to NOT_STARTED with one
    /// more round (a plan-tree search that goes on after a pass), in the same transaction.
    pub reopen: bool,
}

impl Produced {
    /// An artifact with its output check and nothing more to record.
    pub fn new(artifact: impl Into<String>, check: Check) -> Produced {
        Produced {
            artifact: artifact.into(),
            check,
            commit: crate::vsa::mutation::Mutation::by("engine"),
            events: Vec::new(),
            reopen: false,
        }
    }
}

pub trait StageRunner {
    /// Run once. `hypothesis` is set for the hypothesis loop's stages.
    fn run(&self, ctx: &StageCtx<'_>, hypothesis: Option<&str>) -> Result<Produced, StageError>;
}

/// The runner of each stage.
pub fn runner(stage: Stage) -> Box<dyn StageRunner> {
    match stage {
        Stage::ProblemScoping => Box::new(scoping::ProblemScoping),
        Stage::LiteratureGrounding => Box::new(literature::LiteratureGrounding),
        Stage::HypothesisDebate => Box::new(debate::HypothesisDebate),
        Stage::VerificationPlanning => Box::new(planning::VerificationPlanning),
        Stage::ExperimentDesign => Box::new(design::ExperimentDesign),
        Stage::ImplementationPlanning => Box::new(implementation::ImplementationPlanning),
        Stage::CodingValidation => Box::new(coding::CodingValidation),
        Stage::EvidenceCheck => Box::new(evidence::EvidenceCheck),
        Stage::ManuscriptDrafting => Box::new(drafting::ManuscriptDrafting),
        Stage::FactReview => Box::new(review::FactReview),
        Stage::ManuscriptRefinement => Box::new(refinement::ManuscriptRefinement),
    }
}

/// The memory records of this run, condensed for a prompt (negative knowledge); imported
/// records are left to [`prior_digest`].
pub(crate) fn memory_digest(ctx: &StageCtx<'_>) -> String {
    digest(ctx).this_run
}

/// Lessons imported from earlier runs (`youra memory import`), each with its source run.
pub(crate) fn prior_digest(ctx: &StageCtx<'_>) -> String {
    digest(ctx).earlier_runs
}

fn digest(ctx: &StageCtx<'_>) -> crate::engine::lessons::Digest {
    let (records, _) = crate::rundir::memory::load_dir(&ctx.run.join("memory"));
    crate::engine::lessons::digest(&records)
}
