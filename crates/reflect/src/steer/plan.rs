//! The pure half of steering: a request and the run as it stands → the store mutation that
//! records it, or the reason it cannot apply. No I/O and no clock (the request carries the
//! time), so every rule here is tested without files.

use super::breakpoint::Breakpoint;
use super::directive::directives;
use super::error::SteerError;
use super::target::{Arg, hypothesis, shape, skip_target};
use super::verb::{Verb, availability};
use crate::rundir::Layout;
use crate::vocab::RoutingAction;
use crate::vsa::Snapshot;
use crate::vsa::escalation::{Escalation, Verdict};
use crate::vsa::mutation::Change;
use crate::yaml::{NewNode, Node};

pub use super::request::{
    Approval, BREAKPOINTS_LIST, DECISION_PATH, DEFAULT_ACTOR, EVENT, Outcome, Plan, Request,
    STEERING_LIST,
};
use super::request::{mutation, opt, s, time};

/// Check everything that needs no run: target shape, reason, actor. Callers run it before
/// taking the store's lock; [`plan`] runs it again.
pub fn check_request(req: &Request) -> Result<(), SteerError> {
    checked(req).map(drop)
}

fn checked(req: &Request) -> Result<Arg, SteerError> {
    let arg = shape(req.verb, req.target.as_deref(), req.off)?;
    match (req.verb, req.plan.as_deref()) {
        // A second researcher seconds an edit without a plan of their own (the plan is the
        // first's); whether there is one to second is known only with the run.
        (Verb::Edit, None) if req.needs_two() => {}
        (Verb::Edit, None) => return Err(SteerError::NoPlanText),
        (Verb::Edit, Some(p)) if p.trim().is_empty() => return Err(SteerError::NoPlanText),
        (Verb::Edit | Verb::Review, Some(_)) | (_, None) => {}
        (verb, Some(_)) => return Err(SteerError::PlanWithoutEdit { verb }),
    }
    if req.reason.trim().is_empty() {
        return Err(SteerError::NoReason);
    }
    if req.actor.trim().is_empty() {
        return Err(SteerError::NoActor);
    }
    crate::vsa::actor::check(&req.actor).map_err(SteerError::BadName)?;
    Ok(arg)
}

/// The mutation that records `req` in the run `snap` shows, or why it cannot apply.
pub fn plan(req: &Request, snap: &Snapshot, layout: Layout) -> Result<Plan, SteerError> {
    let arg = checked(req)?;
    availability(req.verb, layout).map_err(|reason| SteerError::Unavailable {
        verb: req.verb,
        reason,
    })?;
    match arg {
        _ if req.verb == Verb::Review => super::review::plan(req, snap),
        Arg::Break(bp) => breakpoint(req, snap, bp),
        Arg::Action(action) => decision(req, snap, Some(action)),
        _ if req.verb.is_decision() => decision(req, snap, None),
        arg => directive(req, snap, arg),
    }
}

fn directive(req: &Request, snap: &Snapshot, arg: Arg) -> Result<Plan, SteerError> {
    let target = match arg {
        Arg::Hypothesis(id) | Arg::MaybeHypothesis(Some(id)) => Some(hypothesis(&snap.vsa, &id)?),
        Arg::HypothesisOrStage(raw) => Some(skip_target(&snap.vsa, &raw)?),
        Arg::PlanNode(node) | Arg::Value(node) => Some(node),
        _ => None,
    };
    if req.needs_two()
        && let Some(second) = super::second::directive(req, snap, target.as_deref())?
    {
        return Ok(second);
    }
    let id = next_id(snap);
    let plan_file = (req.verb == Verb::Edit).then(|| super::edit::edit_file(&id));
    let mut item = vec![
        ("id".into(), s(&id)),
        ("verb".into(), s(req.verb.name())),
        ("target".into(), opt(target.as_deref())),
        ("reason".into(), s(req.reason.trim())),
        ("actor".into(), s(req.actor.trim())),
        ("at".into(), time(&req.at)),
        (
            "state".into(),
            s(if req.needs_two() {
                "needs_second"
            } else {
                "pending"
            }),
        ),
    ];
    item.extend(
        plan_file
            .as_deref()
            .map(|p| ("plan_file".to_string(), s(p))),
    );
    if req.needs_two() {
        item.push((
            "approved_by".into(),
            NewNode::Seq(vec![s(req.actor.trim())]),
        ));
    }
    let change = Change::Append {
        list: STEERING_LIST.into(),
        item: NewNode::Map(item),
    };
    let mut m = mutation(req, change, target.as_deref());
    m.details_mut().extend(
        plan_file
            .as_deref()
            .map(|p| ("plan_file".to_string(), s(p))),
    );
    Ok(Plan {
        mutation: m,
        outcome: Outcome::Directive {
            id,
            verb: req.verb,
            target,
        },
        approval: first_of(req),
    })
}

/// [`Approval::FirstOfTwo`] when the request needs two names, else [`Approval::One`].
fn first_of(req: &Request) -> Approval {
    if req.needs_two() {
        Approval::FirstOfTwo {
            by: req.actor.trim().to_string(),
        }
    } else {
        Approval::One
    }
}

/// `d-<revision of this write>`: unique because each revision is written once; a suffix
/// keeps it unique when a hand edit already used that id.
pub(super) fn next_id(snap: &Snapshot) -> String {
    let base = format!("d-{}", snap.vsa.revision + 1);
    let taken: Vec<String> = directives(&snap.doc)
        .into_iter()
        .filter_map(|d| d.id)
        .collect();
    std::iter::once(base.clone())
        .chain((2..).map(|n| format!("{base}-{n}")))
        .find(|id| !taken.contains(id))
        .unwrap_or(base)
}

fn decision(
    req: &Request,
    snap: &Snapshot,
    action: Option<RoutingAction>,
) -> Result<Plan, SteerError> {
    let esc = snap
        .vsa
        .workflow
        .escalation
        .clone()
        .ok_or(SteerError::NoEscalation)?;
    undecided(&esc, action)?;
    let verdict = match (req.verb, action) {
        (_, Some(_)) => Verdict::Overridden,
        (Verb::Reject, None) => Verdict::Rejected,
        _ => Verdict::Approved,
    };
    if req.needs_two() {
        return super::second::decision(req, &esc, verdict, action);
    }
    let mut value = vec![("verdict".to_string(), s(verdict.as_str()))];
    value.extend(action.map(|a| ("action".to_string(), s(a.as_str()))));
    value.extend([
        ("by".to_string(), s(req.actor.trim())),
        ("at".to_string(), time(&req.at)),
        ("reason".to_string(), s(req.reason.trim())),
    ]);
    let change = Change::Put {
        path: DECISION_PATH.into(),
        value: NewNode::Map(value),
    };
    let mut m = mutation(req, change, esc.id.as_deref());
    m.details_mut()
        .extend(action.map(|a| ("action".to_string(), s(a.as_str()))));
    Ok(Plan {
        mutation: m,
        outcome: Outcome::Decision {
            escalation: esc.id,
            verdict,
            action,
        },
        approval: Approval::One,
    })
}

/// An escalation takes one decision, and an override must change the proposed action.
fn undecided(esc: &Escalation, action: Option<RoutingAction>) -> Result<(), SteerError> {
    let id = || esc.id.clone().unwrap_or_else(|| "(no id)".into());
    if let Some(d) = &esc.decision {
        return Err(SteerError::AlreadyDecided {
            id: id(),
            verdict: d.verdict_text.clone().unwrap_or_else(|| "decided".into()),
            by: d.by.clone().unwrap_or_else(|| "someone".into()),
        });
    }
    let proposed = esc.proposed_action.as_deref().and_then(|a| a.parse().ok());
    match action {
        Some(a) if Some(a) == proposed => Err(SteerError::OverrideSame {
            id: id(),
            action: a,
        }),
        _ => Ok(()),
    }
}

fn breakpoint(req: &Request, snap: &Snapshot, bp: Breakpoint) -> Result<Plan, SteerError> {
    let list = snap
        .doc
        .root
        .as_ref()
        .and_then(|r| r.get("workflow")?.get("breakpoints"));
    let change = match (req.off, list) {
        (false, _) => add_breakpoint(list, bp)?,
        (true, Some(list)) => remove_breakpoint(list, &snap.doc.text, bp)?,
        (true, None) => {
            return Err(SteerError::BreakpointNotSet {
                what: bp.describe(),
                set: Vec::new(),
            });
        }
    };
    let mut m = mutation(req, change, Some(&bp.text()));
    if req.off {
        m.details_mut()
            .push(("off".into(), NewNode::Scalar("true".into())));
    }
    Ok(Plan {
        mutation: m,
        outcome: Outcome::Breakpoint { bp, on: !req.off },
        approval: Approval::One,
    })
}

/// The breakpoints as written, and where `bp`'s condition is among them. Compared as
/// conditions, so `Phase 4`, `Coding & Validation` and `once Phase 4` are the same stop.
fn find_breakpoint(list: Option<&Node>, bp: Breakpoint) -> (Vec<String>, Option<usize>) {
    let items: &[Node] = list.and_then(Node::as_seq).unwrap_or_default();
    let written: Vec<String> = items
        .iter()
        .map(|n| n.as_str().unwrap_or_default().to_string())
        .collect();
    let at = written
        .iter()
        .position(|w| Breakpoint::parse(w).is_some_and(|b| b.same_condition(&bp)));
    (written, at)
}

fn add_breakpoint(list: Option<&Node>, bp: Breakpoint) -> Result<Change, SteerError> {
    match find_breakpoint(list, bp) {
        (written, Some(i)) => Err(SteerError::BreakpointExists {
            what: bp.describe(),
            written: written[i].clone(),
        }),
        (_, None) => Ok(Change::Append {
            list: BREAKPOINTS_LIST.into(),
            item: s(&bp.text()),
        }),
    }
}

fn remove_breakpoint(list: &Node, text: &str, bp: Breakpoint) -> Result<Change, SteerError> {
    let (written, at) = find_breakpoint(Some(list), bp);
    let Some(i) = at else {
        return Err(SteerError::BreakpointNotSet {
            what: bp.describe(),
            set: written,
        });
    };
    // A flow list (`[Phase 4, Phase 6]`, typed by hand) has no lines to remove: put the
    // rest instead. (A block list's last removal leaves `breakpoints:`, null, which reads
    // as empty and takes the next append.)
    if list.is_flow(text) {
        let rest = written.iter().enumerate().filter(|(j, _)| *j != i);
        return Ok(Change::Put {
            path: BREAKPOINTS_LIST.into(),
            value: NewNode::Seq(rest.map(|(_, w)| s(w)).collect()),
        });
    }
    Ok(Change::Remove {
        item: format!("{BREAKPOINTS_LIST}[{i}]"),
    })
}

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
