//! What a writer asks the store for: one change, who makes it and why. A field edit, an
//! item appended to a list (a steering directive, a breakpoint), an item removed, or a
//! whole value put at a path (an escalation's decision). Each is one history entry.

use super::edit::{EditError, FieldEdit, plan_set};
use super::edit_list::{plan_append, plan_put, plan_remove};
use super::path::{Resolved, VsaPath, resolve};
use super::store::Base;
use crate::yaml::{Document, NewNode, Splice};

#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// Set one scalar field (type-checked).
    Set { path: String, value: String },
    /// Append an item to a list, creating the list when absent.
    Append { list: String, item: NewNode },
    /// Remove one item of a block list (`workflow.breakpoints[2]`).
    Remove { item: String },
    /// Put a whole value at a path, replacing what is there.
    Put { path: String, value: NewNode },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Mutation {
    pub change: Change,
    /// The history entry's `event` (`field_edit`, `steer`, …).
    pub event: String,
    pub reason: String,
    pub actor: String,
    pub force: bool,
    pub create: bool,
    pub base: Option<Base>,
    /// Extra fields for the history entry (a directive's verb and target, say).
    pub details: Vec<(String, NewNode)>,
}

impl Mutation {
    pub fn new(change: Change, event: &str, actor: &str, reason: &str) -> Mutation {
        Mutation {
            change,
            event: event.to_string(),
            reason: reason.to_string(),
            actor: actor.to_string(),
            force: false,
            create: false,
            base: None,
            details: Vec::new(),
        }
    }

    pub fn path(&self) -> &str {
        match &self.change {
            Change::Set { path, .. } | Change::Put { path, .. } => path,
            Change::Append { list, .. } => list,
            Change::Remove { item } => item,
        }
    }
}

/// How the store proves a change landed, on the read-back.
#[derive(Debug, Clone, PartialEq)]
pub enum Check {
    /// The scalar at the path reads this.
    Value(VsaPath, Option<String>),
    /// The list at the path has this many items.
    ListLen(VsaPath, usize),
    /// Something is at the path.
    Exists(VsaPath),
}

/// A change planned as splices, with what history shows of it.
#[derive(Debug, Clone)]
pub struct Planned {
    pub path: VsaPath,
    pub splices: Vec<Splice>,
    pub old: Option<String>,
    pub new: Option<String>,
    pub check: Check,
}

pub fn plan(doc: &Document, m: &Mutation, ids: &[String]) -> Result<Planned, EditError> {
    let path = VsaPath::parse(m.path())?;
    let summary = |n: &NewNode| Some(crate::yaml::splice::render_flow(n));
    Ok(match &m.change {
        Change::Set { value, .. } => {
            let FieldEdit {
                old, new, splices, ..
            } = plan_set(doc, &path, value, ids, m.create)?;
            Planned {
                check: Check::Value(path.clone(), new.clone()),
                path,
                splices,
                old,
                new,
            }
        }
        Change::Append { item, .. } => {
            let (splices, len) = plan_append(doc, &path, item)?;
            Planned {
                check: Check::ListLen(path.clone(), len + 1),
                path,
                splices,
                old: None,
                new: summary(item),
            }
        }
        Change::Remove { .. } => {
            let splice = plan_remove(doc, &path)?;
            let old = Some(
                doc.text[splice.start..splice.end]
                    .trim()
                    .trim_start_matches('-')
                    .trim()
                    .to_string(),
            );
            let list = path.prefix(path.0.len().saturating_sub(1));
            let len = doc.root.as_ref().and_then(|r| match resolve(r, &list) {
                Ok(Resolved::Found(n)) => n.as_seq().map(<[_]>::len),
                _ => None,
            });
            let check = Check::ListLen(list, len.unwrap_or(1).saturating_sub(1));
            Planned {
                check,
                path,
                splices: vec![splice],
                old,
                new: None,
            }
        }
        Change::Put { value, .. } => {
            let splices = plan_put(doc, &path, value)?;
            Planned {
                check: Check::Exists(path.clone()),
                path,
                splices,
                old: None,
                new: summary(value),
            }
        }
    })
}
