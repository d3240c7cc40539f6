//! Steering intake: the researcher's directives in `workflow.steering`, applied at stage
//! boundaries and while the engine waits. Each is decided from the VSA as the engine last
//! read it, its effects written through the store (lock, revision, history), then marked
//! `applied` or `rejected` with a note; the mark is written only if the item is still
//! pending under the lock, so a concurrent edit is never overwritten. The plan verbs (pin,
//! unpin, veto, unveto, force, edit, budget, alpha-max) act on the plan tree and its budget
//! (`plan_search::steer`, routed by the engine's `take_directives`).

use crate::stage::Stage;
use crate::steer::Verb;
use crate::steer::{Directive, DirectiveState, directives};
use crate::vsa::enums::{HypothesisStatus, PhaseStatus, WorkflowStatus};
use crate::vsa::mutation::{Change, Mutation};
use crate::vsa::store::Snapshot;
use crate::yaml::{NewNode, Style, format_scalar};

use super::progress::{AFTER_LOOP, BEFORE_LOOP, loop_field};
use super::yamlout::{now, text};

/// What applying a directive asks of the store: its effect, then the directive's mark.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub effects: Vec<(String, NewNode)>,
    pub applied: bool,
    pub note: String,
    /// Set `workflow.step_once` (run one stage, then pause).
    pub step: bool,
}

fn scalar(s: &str) -> NewNode {
    NewNode::Scalar(s.to_string())
}

fn status(s: WorkflowStatus) -> (String, NewNode) {
    ("workflow.status".into(), scalar(s.as_str()))
}

fn entry(snap: &Snapshot, path: &str, s: PhaseStatus) -> (String, NewNode) {
    (
        path.to_string(),
        super::progress::status_entry(&snap.doc, path, s),
    )
}

fn phase(snap: &Snapshot, stage: Stage, s: PhaseStatus) -> (String, NewNode) {
    entry(snap, &format!("phases.{}", stage.key()), s)
}

fn reject(note: &str) -> Plan {
    Plan {
        effects: Vec::new(),
        applied: false,
        note: note.into(),
        step: false,
    }
}

fn apply(note: String, effects: Vec<(String, NewNode)>) -> Plan {
    Plan {
        effects,
        applied: true,
        note,
        step: false,
    }
}

/// Decide one directive from the VSA as it stands. Pure.
pub fn plan(d: &Directive, snap: &Snapshot) -> Plan {
    let wf = &snap.vsa.workflow;
    let paused = wf.status == Some(WorkflowStatus::Paused);
    let Some(verb) = d.verb() else {
        return reject(&format!(
            "unknown verb {:?}",
            d.verb.as_deref().unwrap_or("")
        ));
    };
    match verb {
        Verb::Pause if paused => reject("the run is already paused"),
        Verb::Pause => apply(
            "paused at the next stage boundary".into(),
            vec![status(WorkflowStatus::Paused)],
        ),
        // A stopped run goes on from where it stopped: after an infrastructure stop (a model
        // server that was down) or once the researcher has fixed what stopped it.
        Verb::Resume if wf.status == Some(WorkflowStatus::Stopped) => Plan {
            effects: vec![
                status(WorkflowStatus::Active),
                ("workflow.stop_reason".into(), scalar("null")),
            ],
            applied: true,
            note: format!(
                "resumed after the stop ({})",
                wf.stop_reason.as_deref().unwrap_or("no reason recorded")
            ),
            step: false,
        },
        Verb::Resume if !paused => reject("the run is not paused"),
        Verb::Resume => apply("resumed".into(), vec![status(WorkflowStatus::Active)]),
        Verb::Step => Plan {
            step: true,
            ..apply(
                "running one stage, then pausing".into(),
                vec![status(WorkflowStatus::Active)],
            )
        },
        Verb::Retry => retry(d, snap),
        Verb::Redesign => restart_from(
            snap,
            Stage::HypothesisDebate,
            "redesign: back to the Hypothesis Debate",
        ),
        Verb::Reset => restart_from(
            snap,
            Stage::ProblemScoping,
            "reset: back to Problem Scoping",
        ),
        Verb::Skip => skip(d, snap),
        Verb::Pin
        | Verb::Unpin
        | Verb::Veto
        | Verb::Unveto
        | Verb::Force
        | Verb::Edit
        | Verb::Budget
        | Verb::AlphaMax => reject(
            "this run's hypothesis loop does not search a plan tree, so plan-node directives have nothing to act on",
        ),
        Verb::Approve | Verb::Reject | Verb::Override | Verb::Breakpoint | Verb::Review => {
            reject("not a directive: decisions, reviews and breakpoints have their own fields")
        }
    }
}

fn restart_from(snap: &Snapshot, stage: Stage, note: &str) -> Plan {
    let all: Vec<Stage> = BEFORE_LOOP
        .iter()
        .chain(AFTER_LOOP.iter())
        .copied()
        .filter(|s| *s >= stage)
        .collect();
    let mut effects: Vec<_> = all
        .into_iter()
        .map(|s| phase(snap, s, PhaseStatus::NotStarted))
        .collect();
    effects.push(status(WorkflowStatus::Active));
    apply(note.into(), effects)
}

fn retry(d: &Directive, snap: &Snapshot) -> Plan {
    let Some(h) = d
        .target
        .as_deref()
        .filter(|t| snap.vsa.hypothesis(t).is_some())
    else {
        return reject("retry needs a sub-hypothesis of this run as its target");
    };
    apply(
        format!("{h} goes back to Coding & Validation"),
        vec![
            entry(
                snap,
                &format!("sub_hypotheses.{h}.{}", loop_field(Stage::CodingValidation)),
                PhaseStatus::NotStarted,
            ),
            (
                format!("sub_hypotheses.{h}.status"),
                scalar(HypothesisStatus::Ready.as_str()),
            ),
            status(WorkflowStatus::Active),
        ],
    )
}

fn skip(d: &Directive, snap: &Snapshot) -> Plan {
    let target = d.target.as_deref().unwrap_or("");
    if snap.vsa.hypothesis(target).is_some() {
        return apply(
            format!("{target} skipped"),
            vec![(
                format!("sub_hypotheses.{target}.status"),
                scalar(HypothesisStatus::Skipped.as_str()),
            )],
        );
    }
    match Stage::parse(target) {
        Some(s) if BEFORE_LOOP.contains(&s) || AFTER_LOOP.contains(&s) => apply(
            format!("{} skipped", s.name()),
            vec![phase(snap, s, PhaseStatus::Skipped)],
        ),
        Some(s) => reject(&format!(
            "{} runs per sub-hypothesis: skip the sub-hypothesis instead",
            s.name()
        )),
        None => reject(&format!(
            "{target:?} is neither a sub-hypothesis nor a stage"
        )),
    }
}

/// The pending directives, with their index in the list.
/// Pending directives in id order (`d-2` before `d-10`; items without an id last, in file
/// order): the order the researcher gave them in.
pub fn pending(snap: &Snapshot) -> Vec<(usize, Directive)> {
    let mut out: Vec<(usize, Directive)> = directives(&snap.doc)
        .into_iter()
        .enumerate()
        .filter(|(_, d)| d.state == DirectiveState::Pending)
        .collect();
    let number = |d: &Directive| {
        d.id.as_deref()
            .and_then(|id| id.rsplit(['-', '_']).next()?.parse::<u64>().ok())
            .unwrap_or(u64::MAX)
    };
    out.sort_by_key(|(i, d)| (number(d), *i));
    out
}

/// The directive item rewritten with its state and note.
pub fn marked(d: &Directive, applied: bool, note: &str) -> NewNode {
    let s = |v: &str| NewNode::Scalar(format_scalar(v, Style::Plain));
    let o = |v: &Option<String>| v.as_deref().map_or(NewNode::Scalar("null".into()), s);
    let mut m = vec![
        ("id".to_string(), o(&d.id)),
        ("verb".into(), o(&d.verb)),
        ("target".into(), o(&d.target)),
        ("reason".into(), o(&d.reason)),
        ("actor".into(), o(&d.actor)),
    ];
    if let Some(at) = &d.at {
        m.push((
            "at".into(),
            NewNode::Scalar(format_scalar(at, Style::SingleQuoted)),
        ));
    }
    m.push((
        "state".into(),
        s(if applied { "applied" } else { "rejected" }),
    ));
    m.push(("note".into(), text(note)));
    m.push(("decided_at".into(), now()));
    NewNode::Map(m)
}

/// One transaction for one directive: its effects, then its mark (one history entry each,
/// one revision), so a crash never leaves an effect without its mark or the reverse.
pub fn mutation(index: usize, d: &Directive, p: &Plan) -> Mutation {
    let reason = format!(
        "directive {} ({}): {}",
        d.id.as_deref().unwrap_or("?"),
        d.verb.as_deref().unwrap_or("?"),
        p.note
    );
    let mut m = Mutation::by("engine");
    for (path, value) in &p.effects {
        m.push(
            Change::at(path.clone(), value.clone()),
            "steer_applied",
            &reason,
        );
    }
    if p.step {
        m.push(
            Change::Set {
                path: "workflow.step_once".into(),
                value: "true".into(),
            },
            "steer_applied",
            &reason,
        );
    }
    let mark = Change::Put {
        path: format!("workflow.steering[{index}]"),
        value: marked(d, p.applied, &p.note),
    };
    let event = if p.applied {
        "directive_applied"
    } else {
        "directive_rejected"
    };
    m.push(mark, event, &reason);
    m
}
