//! The history entries youra appends: one per field edit, one per detected hand edit.

use super::diff::Change as FieldChange;
use super::edit::scalar;
use super::invariants::Violation;
use super::mutation::{Change, Mutation, Planned};
use super::timestamp::Timestamp;
use crate::yaml::{NewNode, Style, format_scalar};

fn s(v: &str) -> NewNode {
    NewNode::Scalar(format_scalar(v, Style::Plain))
}

/// Hand edits are listed up to this many fields; the rest are counted.
const MAX_LISTED: usize = 50;

/// The entry for one change: event, time, actor, revision, what changed, why.
pub fn change_entry(
    m: &Mutation,
    planned: &Planned,
    revision: u64,
    forced: &[Violation],
) -> NewNode {
    let mut e = vec![
        ("event".to_string(), s(&m.event)),
        (
            "timestamp".to_string(),
            NewNode::Scalar(format_scalar(&Timestamp::now_string(), Style::SingleQuoted)),
        ),
        ("actor".to_string(), s(&m.actor)),
        (
            "revision".to_string(),
            NewNode::Scalar(revision.to_string()),
        ),
        ("path".to_string(), s(m.path())),
    ];
    e.extend(m.details.iter().cloned());
    if planned.old.is_some() || matches!(m.change, Change::Set { .. }) {
        e.push(("old".to_string(), scalar(planned.old.as_deref())));
    }
    if planned.new.is_some() || matches!(m.change, Change::Set { .. }) {
        e.push(("new".to_string(), scalar(planned.new.as_deref())));
    }
    e.push(("reason".to_string(), s(&m.reason)));
    if m.force && !forced.is_empty() {
        e.push(("forced".into(), NewNode::Scalar("true".into())));
        let list = forced
            .iter()
            .map(|v| s(&format!("[{}] {}", v.invariant.name(), v.message)))
            .collect();
        e.push(("overridden".into(), NewNode::Seq(list)));
    }
    NewNode::Map(e)
}

pub fn editor_entry(revision: u64, changes: &[FieldChange]) -> NewNode {
    let listed = changes.iter().take(MAX_LISTED).map(|c| {
        NewNode::Map(vec![
            ("path".into(), s(&c.path)),
            ("old".into(), scalar(c.old.as_deref())),
            ("new".into(), scalar(c.new.as_deref())),
        ])
    });
    let mut e = vec![
        ("event".to_string(), s("hand_edit")),
        (
            "timestamp".to_string(),
            NewNode::Scalar(format_scalar(&Timestamp::now_string(), Style::SingleQuoted)),
        ),
        ("actor".to_string(), s("editor")),
        (
            "revision".to_string(),
            NewNode::Scalar(revision.to_string()),
        ),
        (
            "reason".to_string(),
            s(&format!(
                "the file was changed outside youra after revision {revision}"
            )),
        ),
        ("changes".to_string(), NewNode::Seq(listed.collect())),
    ];
    if changes.len() > MAX_LISTED {
        e.push((
            "changes_not_listed".into(),
            NewNode::Scalar((changes.len() - MAX_LISTED).to_string()),
        ));
    }
    NewNode::Map(e)
}
