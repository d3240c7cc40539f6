//! The second researcher (`[steer] second_approval`, issue 42 item 3): a verb the lab listed
//! takes effect only once two different names gave the same answer. The first answer is
//! recorded where the engine does not look — an escalation's `approvals` list, a directive
//! in state `needs_second` — so the run waits exactly as it waits for any answer (the
//! waiting policy still applies); the second writes what the engine reads: the decision, or
//! the directive's `pending`, with both names in `approved_by`. The same name again, in any
//! case or spacing, is refused and the run still waits. Pure, like [`super::plan`].

use super::directive::{Directive, DirectiveState, directives};
use super::error::SteerError;
use super::request::{
    Approval, DECISION_PATH, Outcome, Plan, Request, STEERING_LIST, mutation, opt, s, time,
};
use super::verb::Verb;
use crate::vocab::RoutingAction;
use crate::vsa::Snapshot;
use crate::vsa::actor::same;
use crate::vsa::escalation::{Decision, Escalation, Verdict};
use crate::vsa::mutation::Change;
use crate::yaml::{NewNode, Style, format_scalar};

/// Where the first answers to an escalation wait for their second.
pub const APPROVALS_LIST: &str = "workflow.pending_escalation.approvals";

fn names(list: &[String]) -> NewNode {
    NewNode::Seq(list.iter().map(|n| s(n)).collect())
}

/// An escalation's answer under the rule: the first of its kind is listed under
/// `approvals`; a different name giving the same answer writes the decision.
pub fn decision(
    req: &Request,
    esc: &Escalation,
    verdict: Verdict,
    action: Option<RoutingAction>,
) -> Result<Plan, SteerError> {
    let by = req.actor.trim();
    let id = esc.id.clone().unwrap_or_else(|| "(no id)".into());
    let same_answer = |d: &&Decision| {
        d.verdict() == Some(verdict) && d.action.as_deref().and_then(|a| a.parse().ok()) == action
    };
    let given: Vec<&Decision> = esc.approvals.iter().filter(same_answer).collect();
    let answer = match action {
        Some(a) => format!("{} with {a}", verdict.as_str()),
        None => verdict.as_str().to_string(),
    };
    if given
        .iter()
        .any(|d| d.by.as_deref().is_some_and(|b| same(b, by)))
    {
        return Err(SteerError::SameApprover {
            what: format!("escalation {id} {answer}"),
            by: by.to_string(),
        });
    }
    let mut value = vec![("verdict".to_string(), s(verdict.as_str()))];
    value.extend(action.map(|a| ("action".to_string(), s(a.as_str()))));
    value.extend([
        ("by".to_string(), s(by)),
        ("at".to_string(), time(&req.at)),
        ("reason".to_string(), s(req.reason.trim())),
    ]);
    let (change, approval) = match given.first() {
        Some(first) => {
            let all = vec![
                first.by.clone().unwrap_or_else(|| "someone".into()),
                by.to_string(),
            ];
            value.push(("approved_by".to_string(), names(&all)));
            let put = Change::Put {
                path: DECISION_PATH.into(),
                value: NewNode::Map(value),
            };
            (put, Approval::SecondOfTwo { names: all })
        }
        None => (
            Change::Append {
                list: APPROVALS_LIST.into(),
                item: NewNode::Map(value),
            },
            Approval::FirstOfTwo { by: by.to_string() },
        ),
    };
    let mut m = mutation(req, change, esc.id.as_deref());
    m.details_mut()
        .extend(action.map(|a| ("action".to_string(), s(a.as_str()))));
    // Both names in the history entry itself, as a list (the readers of who decided —
    // `vsa::deviation`, the paper — need not parse the value's flow text).
    if let Approval::SecondOfTwo { names: all } = &approval {
        m.details_mut()
            .push(("approved_by".to_string(), names(all)));
    }
    Ok(Plan {
        mutation: m,
        outcome: Outcome::Decision {
            escalation: esc.id.clone(),
            verdict,
            action,
        },
        approval,
    })
}

/// The directive this request seconds: the same verb and target, waiting in
/// `needs_second`, and for `edit` a request without a plan of its own. `None` when there is
/// none (the request is then a first answer, and an `edit` needs its plan after all).
pub fn directive(
    req: &Request,
    snap: &Snapshot,
    target: Option<&str>,
) -> Result<Option<Plan>, SteerError> {
    let by = req.actor.trim();
    let waiting = directives(&snap.doc)
        .into_iter()
        .enumerate()
        .filter(|(_, d)| d.state == DirectiveState::NeedsSecond)
        .filter(|(_, d)| d.verb() == Some(req.verb) && d.target.as_deref() == target)
        .find(|_| req.verb != Verb::Edit || req.plan.is_none());
    let Some((index, d)) = waiting else {
        if req.verb == Verb::Edit && req.plan.is_none() {
            return Err(SteerError::NoPlanText);
        }
        return Ok(None);
    };
    let first = d
        .approved_by
        .first()
        .cloned()
        .or_else(|| d.actor.clone())
        .unwrap_or_else(|| "someone".into());
    let what = format!(
        "{} {}{}",
        req.verb,
        target.unwrap_or_default(),
        d.id.as_deref()
            .map(|id| format!(" (directive {id})"))
            .unwrap_or_default()
    );
    if std::iter::once(&first)
        .chain(&d.approved_by)
        .any(|n| same(n, by))
    {
        return Err(SteerError::SameApprover {
            what: what.replace("  ", " "),
            by: by.to_string(),
        });
    }
    let all = vec![first, by.to_string()];
    let change = Change::Put {
        path: format!("{STEERING_LIST}[{index}]"),
        value: seconded(&d, &all),
    };
    Ok(Some(Plan {
        mutation: mutation(req, change, target),
        outcome: Outcome::Directive {
            id: d.id.clone().unwrap_or_default(),
            verb: req.verb,
            target: target.map(str::to_string),
        },
        approval: Approval::SecondOfTwo { names: all },
    }))
}

/// What waits for a name, one line each, for `youra status` and the TUI: an escalation's
/// first answers ("1 of 2"), directives in `needs_second`, and a decision taken but not yet
/// applied, with who took it.
pub fn who_waits(snap: &Snapshot) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(esc) = &snap.vsa.workflow.escalation {
        let id = esc.id.as_deref().unwrap_or("(no id)");
        match &esc.decision {
            Some(d) => out.push(format!(
                "escalation {id}: {} by {}, for the engine to apply",
                d.verdict_text.as_deref().unwrap_or("decided"),
                d.who()
            )),
            None => out.extend(esc.approvals.iter().map(|a| {
                let answer = match a.action.as_deref() {
                    Some(act) => format!("override with {act}"),
                    None => a.verdict_text.clone().unwrap_or_else(|| "an answer".into()),
                };
                format!(
                    "escalation {id}: {answer} is 1 of 2, given by {}; waits for a second researcher (another name)",
                    a.by.as_deref().unwrap_or("someone")
                )
            })),
        }
    }
    for d in directives(&snap.doc) {
        if d.state != DirectiveState::NeedsSecond {
            continue;
        }
        let by = d
            .approved_by
            .first()
            .or(d.actor.as_ref())
            .map_or("someone", String::as_str);
        out.push(format!(
            "directive {}: {} {} is 1 of 2, given by {by}; waits for a second researcher (another name)",
            d.id.as_deref().unwrap_or("(no id)"),
            d.verb.as_deref().unwrap_or("?"),
            d.target.as_deref().unwrap_or_default(),
        ));
    }
    out
}

/// The directive item as the first researcher wrote it, now `pending` with both names.
fn seconded(d: &Directive, all: &[String]) -> NewNode {
    let quoted = |v: &str| NewNode::Scalar(format_scalar(v, Style::SingleQuoted));
    let mut item = vec![
        ("id".to_string(), opt(d.id.as_deref())),
        ("verb".to_string(), opt(d.verb.as_deref())),
        ("target".to_string(), opt(d.target.as_deref())),
        ("reason".to_string(), opt(d.reason.as_deref())),
        ("actor".to_string(), opt(d.actor.as_deref())),
        (
            "at".to_string(),
            d.at.as_deref().map_or_else(|| opt(None), quoted),
        ),
        ("state".to_string(), s("pending")),
    ];
    item.extend(
        d.plan_file
            .as_deref()
            .map(|p| ("plan_file".to_string(), s(p))),
    );
    item.push(("approved_by".to_string(), names(all)));
    NewNode::Map(item)
}

#[cfg(test)]
mod tests {
    use super::super::plan::plan;
    use super::super::verb::Verb;
    use super::*;
    use crate::rundir::Layout;

    const EXAMPLE: &str = include_str!("../../../../assets/example-run/verification_state.yaml");

    /// The example run, its escalation holding `approvals` (flow items) when given.
    fn snap(approvals: &[&str]) -> Snapshot {
        let text = if approvals.is_empty() {
            EXAMPLE.to_string()
        } else {
            let items: String = approvals.iter().map(|a| format!("    - {a}\n")).collect();
            EXAMPLE.replacen(
                "  pending_escalation:\n",
                &format!("  pending_escalation:\n    approvals:\n{items}"),
                1,
            )
        };
        Snapshot::of_text(&text).unwrap()
    }

    fn req(verb: Verb, target: Option<&str>, by: &str, two: bool) -> Request {
        Request {
            actor: by.into(),
            second_approval: if two {
                vec![verb.name().into()]
            } else {
                vec![]
            },
            ..Request::new(verb, target, "because")
        }
    }

    #[test]
    fn two_names_must_give_the_same_answer() {
        let ana_ok = "{verdict: approved, by: ana, reason: r}";
        let ana_over = "{verdict: overridden, action: Proceed, by: ana, reason: r}";
        // (first answers, verb, target, who, rule on) → the approval, or a refusal.
        // (first answers, verb, target, who, rule on, the approval or a refusal)
        type Case<'a> = (
            &'a [&'a str],
            Verb,
            Option<&'a str>,
            &'a str,
            bool,
            Result<Approval, &'a str>,
        );
        let cases: &[Case] = &[
            (&[], Verb::Approve, None, "ana", false, Ok(Approval::One)),
            (
                &[],
                Verb::Approve,
                None,
                "ana",
                true,
                Ok(Approval::FirstOfTwo { by: "ana".into() }),
            ),
            (
                &[ana_ok],
                Verb::Approve,
                None,
                " ANA ",
                true,
                Err("ANA already gave it"),
            ),
            (
                &[ana_ok],
                Verb::Approve,
                None,
                "bo",
                true,
                Ok(Approval::SecondOfTwo {
                    names: vec!["ana".into(), "bo".into()],
                }),
            ),
            // Another answer is a first answer of its own: two names must agree.
            (
                &[ana_ok],
                Verb::Reject,
                None,
                "bo",
                true,
                Ok(Approval::FirstOfTwo { by: "bo".into() }),
            ),
            (
                &[ana_over],
                Verb::Override,
                Some("Proceed"),
                "bo",
                true,
                Ok(Approval::SecondOfTwo {
                    names: vec!["ana".into(), "bo".into()],
                }),
            ),
            (
                &[ana_over],
                Verb::Override,
                Some("Method-Refine"),
                "bo",
                true,
                Ok(Approval::FirstOfTwo { by: "bo".into() }),
            ),
        ];
        for (given, verb, target, who, two, want) in cases {
            let got = plan(
                &req(*verb, *target, who, *two),
                &snap(given),
                Layout::Native,
            );
            match (got, want) {
                (Ok(p), Ok(w)) => {
                    assert_eq!(&p.approval, w, "{verb} by {who} after {given:?}");
                    let path = p.mutation.edits[0].change.path().to_string();
                    let want_path = match w {
                        Approval::FirstOfTwo { .. } => APPROVALS_LIST,
                        _ => DECISION_PATH,
                    };
                    assert_eq!(path, want_path, "{verb} by {who}");
                }
                (Err(e), Err(w)) => assert!(e.to_string().contains(w), "{e}"),
                (got, want) => panic!("{verb} by {who} after {given:?}: {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn the_configurable_decisions_are_the_verbs_but_breakpoint() {
        let verbs: Vec<&str> = Verb::ALL
            .iter()
            // A review's answer takes one name (decision 0040): not configurable yet.
            .filter(|v| !matches!(v, Verb::Breakpoint | Verb::Review))
            .map(|v| v.name())
            .collect();
        assert_eq!(verbs, crate::vsa::actor::DECISIONS);
    }
}
