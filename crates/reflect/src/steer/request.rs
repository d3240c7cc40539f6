//! A steering request and what planning it produces (`Request`, `Plan`, `Outcome`,
//! `Approval`), with the few emitters every planner uses: below both `plan.rs` (the rules)
//! and `second.rs` (the second researcher), so neither imports the other in a loop.

use chrono::{DateTime, SecondsFormat, Utc};

use super::error::SteerError;
use super::verb::Verb;
use crate::vocab::RoutingAction;
use crate::vsa::escalation::Verdict;
use crate::vsa::mutation::{Change, Mutation};
use crate::yaml::{NewNode, Style, format_scalar};

/// Who steers unless told otherwise.
pub const DEFAULT_ACTOR: &str = "researcher";
/// The history entry's `event` for every verb.
pub const EVENT: &str = "steer";
pub const STEERING_LIST: &str = "workflow.steering";
pub const BREAKPOINTS_LIST: &str = "workflow.breakpoints";
pub const DECISION_PATH: &str = "workflow.pending_escalation.decision";

/// One steering request, as typed on the CLI or the TUI's `:` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub verb: Verb,
    pub target: Option<String>,
    /// `breakpoint … --off`: remove instead of add.
    pub off: bool,
    /// `edit`: the new plan text (the CLI reads it from `--plan-file`); see [`super::edit`].
    pub plan: Option<String>,
    /// Who asks: the researcher's name ([`crate::vsa::actor`]).
    pub actor: String,
    pub reason: String,
    pub at: DateTime<Utc>,
    /// The verbs whose first answer waits for a second, different name (`[steer]
    /// second_approval`); see [`super::second`].
    pub second_approval: Vec<String>,
}

impl Request {
    /// A request made now by the researcher at this login (`YOURA_NAME`, else user@host);
    /// [`Request::with_settings`] applies `--as` and the configured name and rule.
    pub fn new(verb: Verb, target: Option<&str>, reason: &str) -> Request {
        Request {
            verb,
            target: target.map(str::to_string),
            off: false,
            plan: None,
            actor: crate::vsa::actor::current(),
            reason: reason.to_string(),
            at: Utc::now(),
            second_approval: Vec::new(),
        }
    }

    /// The run's `[steer]` settings applied: the name (`given` by `--as`, else
    /// `YOURA_NAME`, else `[steer] name`, else user@host) and which verbs need two names.
    pub fn with_settings(
        mut self,
        settings: &crate::vsa::actor::SteerSection,
        given: Option<&str>,
    ) -> Result<Request, SteerError> {
        self.actor = crate::vsa::actor::resolve(given, settings.name.as_deref())
            .map_err(SteerError::BadName)?;
        self.second_approval = settings.second_approval.clone();
        Ok(self)
    }

    /// Whether this verb waits for a second researcher under the request's rule.
    pub fn needs_two(&self) -> bool {
        self.verb != Verb::Breakpoint && self.second_approval.iter().any(|v| v == self.verb.name())
    }
}

/// What a request did, for confirmations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Directive {
        id: String,
        verb: Verb,
        target: Option<String>,
    },
    Decision {
        escalation: Option<String>,
        verdict: Verdict,
        action: Option<RoutingAction>,
    },
    Breakpoint {
        bp: super::breakpoint::Breakpoint,
        on: bool,
    },
    /// The answer to review `review` (`workflow.pending_review.decision`).
    Review {
        review: String,
        answer: crate::vsa::review::Answer,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub mutation: Mutation,
    pub outcome: Outcome,
    /// Where the request stands under `[steer] second_approval`.
    pub approval: Approval,
}

/// How many names a request has behind it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// No second name is required.
    One,
    /// "1 of 2": recorded, and the run waits for a different name to give the same answer.
    FirstOfTwo { by: String },
    /// The second name: the answer now stands, given by `names`.
    SecondOfTwo { names: Vec<String> },
}

pub(super) fn s(v: &str) -> NewNode {
    NewNode::Scalar(format_scalar(v, Style::Plain))
}

pub(super) fn opt(v: Option<&str>) -> NewNode {
    v.map_or_else(|| NewNode::Scalar("null".into()), s)
}

pub(super) fn time(at: &DateTime<Utc>) -> NewNode {
    // Quoted, as the file's other timestamps: YAML 1.1 readers would turn it into a date.
    NewNode::Scalar(format_scalar(
        &at.to_rfc3339_opts(SecondsFormat::Secs, true),
        Style::SingleQuoted,
    ))
}

pub(super) fn mutation(req: &Request, change: Change, target: Option<&str>) -> Mutation {
    let mut m = Mutation::new(change, EVENT, req.actor.trim(), req.reason.trim());
    *m.details_mut() = vec![
        ("verb".into(), s(req.verb.name())),
        ("target".into(), opt(target)),
    ];
    m
}
