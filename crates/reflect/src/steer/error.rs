//! Why a steering verb cannot apply. Argument errors (a missing target, a bad stage) are
//! told apart from refusals that depend on the run, so the CLI can exit 2 or 1.

use super::verb::Verb;
use crate::stage::Stage;
use crate::vocab::{RoutingAction, UnknownAction};
use crate::vsa::StoreError;

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_string()
    } else {
        items.join(", ")
    }
}

/// At most 12 ids, then how many more: a tree can hold thousands.
fn short_list(items: &[String]) -> String {
    const SHOWN: usize = 12;
    if items.len() <= SHOWN {
        return list(items);
    }
    format!(
        "{}, … {} more",
        items[..SHOWN].join(", "),
        items.len() - SHOWN
    )
}

fn stage_labels() -> String {
    Stage::ALL.map(Stage::label).join(", ")
}

#[derive(Debug, thiserror::Error)]
pub enum SteerError {
    #[error("`{verb}` is not available here: {reason}")]
    Unavailable { verb: Verb, reason: String },
    #[error("`{verb}` needs a target: {usage}", usage = .verb.usage())]
    MissingTarget { verb: Verb },
    #[error("`{verb}` takes no target, but `{target}` was given")]
    UnexpectedTarget { verb: Verb, target: String },
    #[error("--off only applies to `breakpoint`, not to `{verb}`")]
    OffWithoutBreakpoint { verb: Verb },
    #[error("a reason is required: say why (it is recorded in the history)")]
    NoReason,
    #[error("an actor name is required (who is steering)")]
    NoActor,
    #[error("`{target}` is not a stage; the stages are {labels} (or their names)", labels = stage_labels())]
    UnknownStage { target: String },
    #[error("`{node}` is not a usable plan-node id: {why}")]
    BadPlanNode { node: String, why: &'static str },
    #[error("no plan node `{node}` in this run (nodes: {})", short_list(.known))]
    UnknownPlanNode { node: String, known: Vec<String> },
    #[error(
        "this run has no plan tree yet (plan/tree.json is missing), so there is no node `{node}` to steer"
    )]
    NoPlanTree { node: String },
    #[error("cannot read this run's plan tree: {0}")]
    PlanTree(String),
    #[error("`{verb} {value}` is not usable: {why}")]
    BadValue {
        verb: Verb,
        value: String,
        why: String,
    },
    #[error("`edit` needs the new plan: pass --plan-file <path>, a file holding the plan text")]
    NoPlanText,
    #[error("--plan-file only applies to `edit`, not to `{verb}`")]
    PlanWithoutEdit { verb: Verb },
    #[error("cannot use the plan file {path}: {why}")]
    PlanFile { path: String, why: String },
    #[error("cannot save the edited plan for the engine: {0}")]
    EditFile(String),
    #[error(transparent)]
    UnknownAction(#[from] UnknownAction),
    #[error("no sub-hypothesis `{id}` in this run (known: {})", list(.known))]
    UnknownHypothesis { id: String, known: Vec<String> },
    #[error("`{target}` is neither a sub-hypothesis of this run (known: {}) nor a stage ({labels})", list(.known), labels = stage_labels())]
    UnknownSkipTarget { target: String, known: Vec<String> },
    #[error("no escalation is waiting (workflow.pending_escalation is empty)")]
    NoEscalation,
    #[error("escalation {id} was already {verdict} by {by}; it takes one decision")]
    AlreadyDecided {
        id: String,
        verdict: String,
        by: String,
    },
    #[error("escalation {id} already proposes {action}: `approve` it instead of overriding")]
    OverrideSame { id: String, action: RoutingAction },
    #[error("a breakpoint {what} is already set (as `{written}`)")]
    BreakpointExists { what: String, written: String },
    #[error("no breakpoint {what} is set (set: {})", list(.set))]
    BreakpointNotSet { what: String, set: Vec<String> },
    #[error(
        "`{target}` is not a breakpoint: give {} (stages: {})",
        super::breakpoint::FORMS,
        stage_labels()
    )]
    UnknownBreakpoint { target: String },
    #[error("{0}")]
    BadName(String),
    #[error(
        "{what} is 1 of 2 and waits for a second researcher: {by} already gave it (a lab's \
         `[steer] second_approval` needs two different names)"
    )]
    SameApprover { what: String, by: String },
    /// A review answer that cannot apply (no review waits, one already answered, a bad
    /// target or edit); the text says what to do.
    #[error("{0}")]
    Review(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl SteerError {
    /// The arguments are wrong whatever the run holds (the CLI exits 2 for these).
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            SteerError::MissingTarget { .. }
                | SteerError::UnexpectedTarget { .. }
                | SteerError::OffWithoutBreakpoint { .. }
                | SteerError::NoReason
                | SteerError::NoActor
                | SteerError::BadName(_)
                | SteerError::UnknownStage { .. }
                | SteerError::UnknownBreakpoint { .. }
                | SteerError::BadPlanNode { .. }
                | SteerError::BadValue { .. }
                | SteerError::NoPlanText
                | SteerError::PlanWithoutEdit { .. }
                | SteerError::UnknownAction(_)
        )
    }
}
