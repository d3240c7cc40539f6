//! The history entries youra appends: one per field edit, one per detected hand edit.

use super::diff::Change as FieldChange;
use super::edit::scalar;
use super::invariants::Violation;
use super::mutation::{Change, Edit, Mutation, Planned};
use super::timestamp::Timestamp;
use crate::yaml::{NewNode, Style, format_scalar};

fn s(v: &str) -> NewNode {
    NewNode::Scalar(format_scalar(v, Style::Plain))
}

/// Hand edits are listed up to this many fields; the rest are counted.
const MAX_LISTED: usize = 50;

/// The entry for one edit of `m`: event, time, actor, revision, what changed, why.
pub(crate) fn change_entry(
    m: &Mutation,
    edit: &Edit,
    planned: &Planned,
    revision: u64,
    forced: &[Violation],
) -> NewNode {
    let mut e = vec![
        ("event".to_string(), s(&edit.event)),
        (
            "timestamp".to_string(),
            NewNode::Scalar(format_scalar(&Timestamp::now_string(), Style::SingleQuoted)),
        ),
        ("actor".to_string(), s(&m.actor)),
        (
            "revision".to_string(),
            NewNode::Scalar(revision.to_string()),
        ),
        ("path".to_string(), s(edit.change.path())),
    ];
    e.extend(edit.details.iter().cloned());
    let set = matches!(edit.change, Change::Set { .. });
    if planned.old.is_some() || set {
        e.push(("old".to_string(), scalar(planned.old.as_deref())));
    }
    if planned.new.is_some() || set {
        e.push(("new".to_string(), scalar(planned.new.as_deref())));
    }
    e.push(("reason".to_string(), s(&edit.reason)));
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

pub(crate) fn editor_entry(revision: u64, changes: &[FieldChange]) -> NewNode {
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

/// The entry for a stale save: which copy was written over which, what it changed, and the
/// fields both sides changed (the outside writer's values kept, youra's in the entry).
pub fn stale_entry(
    base: u64,
    last: u64,
    merged: bool,
    changes: &[FieldChange],
    conflicts: &[&FieldChange],
) -> NewNode {
    let item = |c: &FieldChange, a: &str, b: &str| {
        NewNode::Map(vec![
            ("path".into(), s(&c.path)),
            (a.into(), scalar(c.old.as_deref())),
            (b.into(), scalar(c.new.as_deref())),
        ])
    };
    let how = if merged {
        "youra's writes since were merged back"
    } else {
        "youra's copy of that revision is gone, so its writes since could not be merged back"
    };
    let mut e = vec![
        ("event".to_string(), s("stale_save")),
        (
            "timestamp".to_string(),
            NewNode::Scalar(format_scalar(&Timestamp::now_string(), Style::SingleQuoted)),
        ),
        ("actor".to_string(), s("editor")),
        ("revision".to_string(), NewNode::Scalar(last.to_string())),
        ("stale_base".to_string(), NewNode::Scalar(base.to_string())),
        (
            "reason".to_string(),
            s(&format!(
                "a copy of revision {base} was written over revision {last}; {how}; {} conflict(s)",
                conflicts.len()
            )),
        ),
        (
            "changes".to_string(),
            NewNode::Seq(
                changes
                    .iter()
                    .take(MAX_LISTED)
                    .map(|c| item(c, "old", "new"))
                    .collect(),
            ),
        ),
    ];
    if !conflicts.is_empty() {
        e.push((
            "conflicts".into(),
            NewNode::Seq(conflicts.iter().map(|c| item(c, "youra", "kept")).collect()),
        ));
    }
    NewNode::Map(e)
}
