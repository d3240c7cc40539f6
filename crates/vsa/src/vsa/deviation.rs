//! The run's departures from its plan, read from the VSA (issue 40 item 5): every decision
//! on an escalation (the researcher's or the waiting policy's), every steering directive that
//! changes what is tested (retry, redesign, reset, skip, edit, veto, force), every criterion
//! change after the plan fixed it, and every edit of the file by hand or by `youra vsa set`
//! — each with who, why and when. The criteria fixed at Verification Planning are the
//! pre-registration; this list is what a reader needs to judge the results against it. The
//! paper's "Deviations from the plan" section (`paper/deviations.rs`) and the HTML report
//! (`webreport/deviations.rs`) both render this one list; each escapes the text for its
//! own language, since names and reasons are typed by people.

use super::actor::names;
use super::timestamp::Timestamp;
use crate::yaml::{Document, Node};

/// The steering verbs that change what the run tests (the others pause, pin or budget it).
pub(crate) const DIRECTIVE_VERBS: &[&str] = &[
    "retry", "redesign", "reset", "skip", "edit", "veto", "unveto", "force",
];

/// One departure from the plan.
#[derive(Debug, Clone, PartialEq)]
pub struct Deviation {
    /// `override`, `approve`, `reject`, `redesign`, `reset`, … `criterion change`, `VSA edit`,
    /// `hand edit`.
    pub kind: String,
    /// What changed, in a line (`Pivot proposed for h-m1 (esc-27); Proceed applied`).
    pub what: String,
    /// Who decided: a name, `ana and bo`, `policy`, `engine`, or who edited by hand.
    pub who: String,
    /// Why, as the decider wrote it (empty when no reason was given).
    pub why: String,
    pub when: Option<Timestamp>,
}

fn text(n: Option<&Node>) -> Option<String> {
    n.filter(|n| !n.is_null())
        .and_then(|n| Some(n.as_scalar()?.text.trim().to_string()))
        .filter(|t| !t.is_empty())
}

fn list(n: Option<&Node>) -> Vec<String> {
    n.and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(|i| text(Some(i)))
        .collect()
}

/// A history value written in flow form (`{verdict: approved, by: ana}`): its text, and
/// its parse when it parses (a summary's flow text need not: a name with braces in it).
struct Flow {
    raw: String,
    doc: Option<Document>,
}

fn flow(raw: Option<String>) -> Option<Flow> {
    let raw = raw?;
    let doc = crate::yaml::parse(raw.as_bytes()).ok();
    Some(Flow { raw, doc })
}

/// `key`'s value in `f`: from the parse, else the one-word value written after `key: ` at
/// the top of the text (ids, verdicts, actions and `policy` are single words).
fn field(f: &Option<Flow>, key: &str) -> Option<String> {
    let f = f.as_ref()?;
    if let Some(root) = f.doc.as_ref().and_then(|d| d.root.as_ref()) {
        return text(root.get(key));
    }
    [format!("{{{key}: "), format!(", {key}: ")]
        .iter()
        .find_map(|k| f.raw.find(k.as_str()).map(|at| &f.raw[at + k.len()..]))
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                .collect::<String>()
        })
        .filter(|w| !w.is_empty())
}

/// Every deviation in `doc`, oldest first (those without a time last, in file order).
pub fn read(doc: &Document) -> Vec<Deviation> {
    let Some(root) = doc.root.as_ref() else {
        return Vec::new();
    };
    let mut out = from_history(
        root.get("history")
            .and_then(Node::as_seq)
            .unwrap_or_default(),
    );
    let steering = root
        .get("workflow")
        .and_then(|w| w.get("steering"))
        .and_then(Node::as_seq)
        .unwrap_or_default();
    out.extend(steering.iter().filter_map(directive));
    out.sort_by_key(|d| (d.when.is_none(), d.when.as_ref().map(|t| t.at)));
    out
}

/// What the history says: decisions, recovery's own redesigns and resets, criterion
/// changes, field and hand edits.
fn from_history(items: &[Node]) -> Vec<Deviation> {
    let mut out = Vec::new();
    // A researcher's (or the waiting policy's) answer in the recovery under way: the
    // redesign it leads to is that decision, already listed.
    let mut answered = false;
    // Who routed the recovery under way: the controller, or the table.
    let mut router = "the recovery table";
    // The escalation a decision answers: the last one raised before it.
    let mut raised: Option<Flow> = None;
    // Each hypothesis's criteria written once already: the engine's first write is the plan.
    let mut planned: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (i, item) in items.iter().enumerate() {
        let path = text(item.get("path")).unwrap_or_default();
        let actor = text(item.get("actor")).unwrap_or_else(|| "someone".into());
        let event = text(item.get("event")).unwrap_or_default();
        let when = text(item.get("timestamp").or_else(|| item.get("at")))
            .and_then(|t| Timestamp::parse(&t));
        let why = text(item.get("reason")).unwrap_or_default();
        if path == "workflow.pending_escalation" {
            let d = flow(text(item.get("new")));
            if field(&d, "id").is_some() {
                raised = d;
            }
            continue;
        }
        match event.as_str() {
            "recovery_begun" => {
                (answered, router) = (false, "the recovery table");
                continue;
            }
            "recovery_decided" => {
                if text(item.get("new")).is_some_and(|n| n.contains("routed by the controller")) {
                    router = "the controller";
                }
                continue;
            }
            "routing" if path == "recovery.failed_hypotheses" => {
                if !std::mem::take(&mut answered) {
                    out.push(recovery_route(items, i, router, when, why));
                }
                continue;
            }
            _ => {}
        }
        if path == "workflow.pending_escalation.decision" {
            answered = true;
            let mut dev = decision(&raised, &flow(text(item.get("new"))), when, why);
            if event == "steer" {
                // A researcher's answer: who and what from the entry's own fields.
                let two = list(item.get("approved_by"));
                dev.who = if two.len() > 1 { names(&two) } else { actor };
            }
            out.push(dev);
            continue;
        }
        if path == super::review::DECISION_PATH && event == "steer" {
            // A review's answer that changed what ran (decision 0040): an edit or a rejection.
            let d = flow(text(item.get("new")));
            let target = text(item.get("target")).unwrap_or_default();
            let kind = match field(&d, "verdict").as_deref() {
                Some("edited") => "code edit",
                Some("rejected") => "experiment rejected",
                _ => continue,
            };
            let file = field(&d, "path")
                .map(|p| format!(", code/{p}"))
                .unwrap_or_default();
            out.push(Deviation {
                kind: kind.into(),
                what: format!("review {target}{file}"),
                who: actor,
                why,
                when,
            });
            continue;
        }
        let gate = path.contains(".gate.");
        if let Some(end) = path.find(".gate.criteria") {
            let first = planned.insert(path[..end].to_string());
            if actor == "engine" && first {
                continue;
            }
        }
        let engine_criteria = actor == "engine" && path.contains(".gate.criteria");
        match event.as_str() {
            "hand_edit" => out.push(hand_edit(item, when, why)),
            "field_edit" | "gate_criteria" if actor != "engine" || engine_criteria => {
                let old = text(item.get("old")).unwrap_or_else(|| "null".into());
                let new = text(item.get("new")).unwrap_or_else(|| "null".into());
                let kind = if gate { "criterion change" } else { "VSA edit" };
                out.push(Deviation {
                    kind: kind.into(),
                    what: format!("{path}: {old} → {new}"),
                    who: actor,
                    why,
                    when,
                });
            }
            _ => {}
        }
    }
    out
}

/// Recovery's own redesign or reset of a failed hypothesis (`items[at]` archives it): a
/// reset when the same routing sends Problem Scoping back to the start.
fn recovery_route(
    items: &[Node],
    at: usize,
    router: &str,
    when: Option<Timestamp>,
    why: String,
) -> Deviation {
    let archived = flow(text(items[at].get("new")));
    let hypothesis = field(&archived, "hypothesis").unwrap_or_else(|| "a sub-hypothesis".into());
    let reset = items[at + 1..]
        .iter()
        .take_while(|x| text(x.get("event")).as_deref() == Some("routing"))
        .any(|x| text(x.get("path")).as_deref() == Some("phases.problem_scoping"));
    let (kind, back) = match reset {
        true => ("reset", "Problem Scoping"),
        false => ("redesign", "Hypothesis Debate"),
    };
    Deviation {
        kind: kind.into(),
        what: format!("{hypothesis} failed; back to {back}, its work archived"),
        who: router.into(),
        why,
        when,
    }
}

fn decision(
    raised: &Option<Flow>,
    d: &Option<Flow>,
    when: Option<Timestamp>,
    entry_why: String,
) -> Deviation {
    let verdict = field(d, "verdict").unwrap_or_else(|| "decided".into());
    let proposed = field(raised, "proposed_action").unwrap_or_else(|| "an action".into());
    let hypothesis = field(raised, "hypothesis").unwrap_or_else(|| "a sub-hypothesis".into());
    let id = field(raised, "id").map_or_else(String::new, |i| format!(" ({i})"));
    let two = d
        .as_ref()
        .and_then(|d| d.doc.as_ref()?.root.as_ref())
        .map(|r| list(r.get("approved_by")))
        .unwrap_or_default();
    let who = if two.len() > 1 {
        names(&two)
    } else {
        field(d, "by").unwrap_or_else(|| "someone".into())
    };
    let what = match field(d, "action") {
        Some(a) => format!("{proposed} proposed for {hypothesis}{id}; {a} applied instead"),
        None => format!("{proposed} proposed for {hypothesis}{id}: {verdict}"),
    };
    let kind = match verdict.to_ascii_lowercase().as_str() {
        "overridden" | "override" => "override",
        "rejected" | "reject" => "rejection",
        "approved" | "approve" => "approval",
        _ => "decision",
    };
    let why = match d.as_ref().and_then(|d| d.doc.as_ref()) {
        Some(_) => field(d, "reason").unwrap_or(entry_why),
        None => entry_why,
    };
    Deviation {
        kind: kind.into(),
        what,
        who,
        why,
        when: field(d, "at").and_then(|t| Timestamp::parse(&t)).or(when),
    }
}

fn hand_edit(item: &Node, when: Option<Timestamp>, why: String) -> Deviation {
    let changes = item
        .get("changes")
        .and_then(Node::as_seq)
        .unwrap_or_default();
    let paths: Vec<String> = changes.iter().filter_map(|c| text(c.get("path"))).collect();
    let shown: Vec<&str> = paths.iter().take(5).map(String::as_str).collect();
    let more = paths.len().saturating_sub(shown.len());
    Deviation {
        kind: "hand edit".into(),
        what: format!(
            "{}{}",
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more field(s)")
            } else {
                String::new()
            }
        ),
        who: "an editor outside youra (author unknown)".into(),
        why,
        when,
    }
}

/// A steering directive that changes what is tested, with where it stands.
fn directive(item: &Node) -> Option<Deviation> {
    let verb = text(item.get("verb"))?.to_ascii_lowercase();
    if !DIRECTIVE_VERBS.contains(&verb.as_str()) {
        return None;
    }
    let two = list(item.get("approved_by"));
    let who = if two.len() > 1 {
        names(&two)
    } else {
        text(item.get("actor")).unwrap_or_else(|| "someone".into())
    };
    let state = text(item.get("state")).unwrap_or_else(|| "pending".into());
    let target = text(item.get("target")).unwrap_or_else(|| "the run".into());
    let state = match (state.as_str(), text(item.get("note"))) {
        ("applied", _) => "applied".to_string(),
        ("rejected", Some(n)) => format!("not applied: {n}"),
        ("needs_second", _) => "1 of 2, waiting for a second researcher".to_string(),
        (s, _) => s.to_string(),
    };
    Some(Deviation {
        kind: verb.clone(),
        what: format!("{verb} {target} ({state})"),
        who,
        why: text(item.get("reason")).unwrap_or_default(),
        when: text(item.get("at")).and_then(|t| Timestamp::parse(&t)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(yaml: &str) -> Vec<Deviation> {
        read(&crate::yaml::parse(yaml.as_bytes()).unwrap())
    }

    #[test]
    fn recoverys_own_redesign_and_reset_are_listed_and_an_answered_one_is_not_twice() {
        let yaml = r#"revision: 9
history:
- {event: recovery_begun, actor: engine, timestamp: '2026-12-01T10:00:00Z', path: workflow.pending_transition, new: '{kind: recovery}'}
- {event: recovery_decided, actor: engine, timestamp: '2026-12-01T10:00:01Z', path: workflow.pending_transition, new: '{kind: recovery, note: "routed by the controller; because chose reset"}'}
- {event: routing, actor: engine, timestamp: '2026-12-01T10:00:02Z', path: recovery.failed_hypotheses, new: '{hypothesis: h-e1, statement: s}', reason: 'h-e1: Design-Pivot (scale)'}
- {event: routing, actor: engine, timestamp: '2026-12-01T10:00:02Z', path: phases.problem_scoping, new: '{status: NOT_STARTED}'}
- {event: recovery_begun, actor: engine, timestamp: '2026-12-01T11:00:00Z', path: workflow.pending_transition, new: '{kind: recovery}'}
- {event: recovery_decided, actor: engine, timestamp: '2026-12-01T11:00:01Z', path: workflow.pending_transition, new: '{kind: recovery, note: "table"}'}
- {event: routing, actor: engine, timestamp: '2026-12-01T11:00:02Z', path: recovery.failed_hypotheses, new: '{hypothesis: h-m1}', reason: 'h-m1: Design-Pivot'}
- {event: routing, actor: engine, timestamp: '2026-12-01T11:00:02Z', path: phases.hypothesis_debate, new: '{status: NOT_STARTED}'}
- {event: recovery_begun, actor: engine, timestamp: '2026-12-01T12:00:00Z', path: workflow.pending_transition, new: '{kind: recovery}'}
- {event: escalation, actor: engine, timestamp: '2026-12-01T12:00:01Z', path: workflow.pending_escalation, new: '{id: esc-3, hypothesis: h-c1, proposed_action: Pivot}'}
- {event: steer, actor: ana, timestamp: '2026-12-01T12:00:02Z', path: workflow.pending_escalation.decision, new: '{verdict: approved, by: ana}', reason: go}
- {event: routing, actor: engine, timestamp: '2026-12-01T12:00:03Z', path: recovery.failed_hypotheses, new: '{hypothesis: h-c1}', reason: 'h-c1: Pivot'}
"#;
        let rows: Vec<(String, String, String)> = of(yaml)
            .into_iter()
            .map(|d| (d.kind, d.who, d.what))
            .collect();
        let want = [
            (
                "reset",
                "the controller",
                "h-e1 failed; back to Problem Scoping, its work archived",
            ),
            (
                "redesign",
                "the recovery table",
                "h-m1 failed; back to Hypothesis Debate, its work archived",
            ),
            (
                "approval",
                "ana",
                "Pivot proposed for h-c1 (esc-3): approved",
            ),
        ];
        let want: Vec<(String, String, String)> = want
            .iter()
            .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
            .collect();
        assert_eq!(rows, want);
    }

    #[test]
    fn a_run_without_departures_has_none() {
        assert!(of("revision: 1\nhistory:\n- event: status\n  actor: engine\n").is_empty());
        assert!(of("revision: 1\n").is_empty());
    }

    #[test]
    fn each_kind_is_read_with_who_why_and_when() {
        let yaml = r#"revision: 9
workflow:
  steering:
  - {id: d-4, verb: reset, target: h-m1, reason: "wrong split", actor: ana, at: '2026-12-01T10:05:00Z', state: applied}
  - {id: d-5, verb: pause, reason: lunch, actor: ana, at: '2026-12-01T10:06:00Z', state: applied}
  - {id: d-6, verb: redesign, target: h-e1, reason: r, actor: ana, at: '2026-12-01T10:07:00Z', state: needs_second, approved_by: [ana]}
history:
- {event: gate_criteria, actor: engine, timestamp: '2026-12-01T10:00:00Z', path: sub_hypotheses.h-m1.gate.criteria, new: '[x]', reason: planned}
- {event: escalation, actor: engine, timestamp: '2026-12-01T10:01:00Z', path: workflow.pending_escalation, new: '{id: esc-27, hypothesis: h-m1, proposed_action: Pivot}', reason: raised}
- event: steer
  actor: bo
  timestamp: '2026-12-01T10:02:00Z'
  path: workflow.pending_escalation.decision
  verb: override
  action: Proceed
  approved_by: [ana, bo]
  new: "{verdict: overridden, action: Proceed, by: bo \"{#x}\" [y], at: '2026-12-01T10:02:00Z', reason: the refutation is the finding}"
  reason: the refutation is the finding
- {event: field_edit, actor: cy, timestamp: '2026-12-01T10:03:00Z', path: 'sub_hypotheses.h-e1.gate.criteria[0].value', old: '0.92', new: '0.85', reason: too strict}
- {event: field_edit, actor: cy, timestamp: '2026-12-01T10:04:00Z', path: workflow.next_action, old: a, new: b, reason: note}
- {event: hand_edit, actor: editor, timestamp: '2026-12-01T10:08:00Z', reason: outside, changes: [{path: main_hypothesis.statement, old: a, new: b}]}
"#;
        let d = of(yaml);
        let rows: Vec<(&str, &str, &str)> = d
            .iter()
            .map(|d| (d.kind.as_str(), d.who.as_str(), d.why.as_str()))
            .collect();
        assert_eq!(
            rows,
            [
                ("override", "ana and bo", "the refutation is the finding"),
                ("criterion change", "cy", "too strict"),
                ("VSA edit", "cy", "note"),
                ("reset", "ana", "wrong split"),
                ("redesign", "ana", "r"),
                (
                    "hand edit",
                    "an editor outside youra (author unknown)",
                    "outside"
                ),
            ]
        );
        assert_eq!(
            d[0].what,
            "Pivot proposed for h-m1 (esc-27); Proceed applied instead"
        );
        assert_eq!(
            d[1].what,
            "sub_hypotheses.h-e1.gate.criteria[0].value: 0.92 → 0.85"
        );
        assert!(d[4].what.contains("1 of 2"), "{}", d[4].what);
        assert!(d.iter().all(|d| d.when.is_some()));
    }
}
