//! The steering verbs (pause, step, approve, redesign, pin, breakpoint …) as store
//! mutations, shared by the TUI and the CLI (DESIGN.md, "The VSA").
//!
//! Steering is mutation: a verb never acts on the engine directly. Most verbs append a
//! directive to `workflow.steering` for the engine to apply (it then records
//! `state: applied` or `rejected` with a note); approve / reject / override write the
//! decision of `workflow.pending_escalation`; `breakpoint` edits `workflow.breakpoints`.
//! Planning ([`plan`]) is pure; [`apply`] runs it under the store's lock, one history
//! entry (`event: steer`, with `verb` and `target`) per verb. `edit` also saves the new
//! plan text under `plan/edits/` ([`edit`]).

mod directive;
mod edit;
mod error;
mod plan;
mod request;
pub mod review;
mod second;
mod target;
mod verb;

pub use crate::vocab::{RoutingAction, UnknownAction};
/// The breakpoint grammar is the VSA's (`workflow.breakpoints`); the verb writes it.
pub use crate::vsa::breakpoint;
pub use crate::vsa::escalation::{Decision, Escalation, Verdict};
pub use directive::{Directive, DirectiveState, directives};
pub use edit::{EDITS_DIR, MAX_PLAN_BYTES, edit_file, read_plan_file, split_plan_file};
pub use error::SteerError;
pub use plan::{
    Approval, BREAKPOINTS_LIST, DECISION_PATH, DEFAULT_ACTOR, EVENT, Outcome, Plan, Request,
    STEERING_LIST, check_request, plan,
};
pub use second::{APPROVALS_LIST, who_waits};
pub use verb::{TargetKind, UnknownVerb, Verb, YOURA_FOLDER_REASON, availability, verbs_help};

use crate::rundir::Layout;
use crate::vsa::{Applied, Store};

/// A request that landed: what it did and the store's account of the write.
#[derive(Debug, Clone, PartialEq)]
pub struct Steered {
    pub outcome: Outcome,
    pub applied: Applied,
    /// Where it stands under `[steer] second_approval` ("1 of 2").
    pub approval: Approval,
}

impl Steered {
    /// One line for the CLI and the TUI's status bar:
    /// `pause requested (directive d-8, revision 8)`.
    pub fn summary(&self) -> String {
        let line = self.outcome_line();
        match &self.approval {
            Approval::One => line,
            Approval::FirstOfTwo { by } => {
                format!("{line} — 1 of 2 by {by}: waits for a second researcher (another name)")
            }
            Approval::SecondOfTwo { names } => {
                format!("{line} — 2 of 2, by {}", crate::vsa::actor::names(names))
            }
        }
    }

    fn outcome_line(&self) -> String {
        let rev = self.applied.revision;
        match &self.outcome {
            Outcome::Directive { id, verb, target } => {
                let what = target
                    .as_ref()
                    .map_or_else(|| verb.to_string(), |t| format!("{verb} {t}"));
                format!("{what} requested (directive {id}, revision {rev})")
            }
            Outcome::Decision {
                escalation,
                verdict,
                action,
            } => {
                let id = escalation.as_deref().unwrap_or("(no id)");
                let with = action.map(|a| format!(" with {a}")).unwrap_or_default();
                format!(
                    "escalation {id} {}{with} (revision {rev})",
                    verdict.as_str()
                )
            }
            Outcome::Breakpoint { bp, on: true } => {
                format!("breakpoint set {} (revision {rev})", bp.describe())
            }
            Outcome::Breakpoint { bp, on: false } => {
                format!("breakpoint {} removed (revision {rev})", bp.describe())
            }
            Outcome::Review { review, answer } => {
                format!("review {review} {} (revision {rev})", answer.as_str())
            }
        }
    }
}

/// A plan-node verb's target checked against the run's `plan/tree.json` and spelt as the
/// tree does. Checked before the lock: nodes are never removed from a tree, so a node that
/// exists now still exists when the directive is written.
fn with_plan_node(store: &Store, req: &Request) -> Result<Request, SteerError> {
    let (TargetKind::PlanNode | TargetKind::PlanNodeWithPlan, Some(raw)) =
        (req.verb.target_kind(), req.target.as_deref())
    else {
        return Ok(req.clone());
    };
    let run = crate::fsutil::parent(store.path());
    let path = crate::plan::plan_dir(run).join(crate::plan::TREE_FILE);
    let ids: Option<Vec<crate::plan::NodeId>> = match crate::fsutil::read_run_file(&path) {
        Ok(bytes) => Some(
            serde_json::from_slice::<crate::plan::TreeFile>(&bytes)
                .map_err(|e| SteerError::PlanTree(format!("{}: {e}", path.display())))?
                .nodes
                .into_iter()
                .map(|n| n.id)
                .collect(),
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(SteerError::PlanTree(format!("{}: {e}", path.display()))),
    };
    let node = target::plan_node_in(ids.as_deref(), raw.trim())?;
    Ok(Request {
        target: Some(node),
        ..req.clone()
    })
}

/// Record `req` in the run's VSA: checked first without the lock (cheap refusals), then
/// planned from the file as it stands under the lock, so that two researchers steering at
/// once cannot both take one directive id or both decide one escalation.
pub fn apply(store: &Store, req: &Request, layout: Layout) -> Result<Steered, SteerError> {
    check_request(req)?;
    availability(req.verb, layout).map_err(|reason| SteerError::Unavailable {
        verb: req.verb,
        reason,
    })?;
    let req = &with_plan_node(store, req)?;
    let run = crate::fsutil::parent(store.path());
    let (applied, outcome) = store.mutate_with(|snap| {
        let p = plan(req, snap, layout)?;
        // An edit's plan text goes to its own file first (see `edit`): the directive that
        // names it is written only once the file is there.
        if let (Outcome::Directive { id, .. }, Some(text)) = (&p.outcome, req.plan.as_deref()) {
            edit::save(run, id, text)?;
        }
        // A review's edited file likewise, before the answer that names it.
        if let (Outcome::Review { review: id, answer }, Some(text)) =
            (&p.outcome, req.plan.as_deref())
            && *answer == crate::vsa::review::Answer::Edit
        {
            review::save(run, id, text)?;
        }
        Ok::<_, SteerError>((p.mutation, (p.outcome, p.approval)))
    })?;
    let (outcome, approval) = outcome;
    Ok(Steered {
        outcome,
        applied,
        approval,
    })
}
