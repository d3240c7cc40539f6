//! What a writer asks the store for: one transaction of edits, who makes it and why. Each
//! edit is a field set, an item appended to a list (a steering directive, a breakpoint), an
//! item removed, or a whole value put at a path (an escalation's decision). The store
//! applies all the edits of a mutation under one lock as one write and one revision; each
//! edit that changes something gets its own history entry, all with that revision. An
//! engine transition that changes several fields (a gate judgement, a reroute, a directive
//! with its applied mark) is one mutation, so a crash leaves either all of it or none.

use super::edit::{EditError, FieldEdit, plan_set};
use super::edit_list::{plan_append, plan_put, plan_remove};
use super::path::{Resolved, VsaPath, resolve};
use super::store_core::Base;
use crate::yaml::{Document, NewNode, Node, NodeKind, Splice, Style, format_scalar};

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

impl Change {
    pub fn path(&self) -> &str {
        match self {
            Change::Set { path, .. } | Change::Put { path, .. } => path,
            Change::Append { list, .. } => list,
            Change::Remove { item } => item,
        }
    }

    /// Put an already rendered value (scalars arrive rendered, as `yamlout` makes them).
    pub fn at(path: impl Into<String>, value: NewNode) -> Change {
        Change::Put {
            path: path.into(),
            value,
        }
    }
}

/// One edit of a transaction, with the history entry's `event` and `reason`.
#[derive(Debug, Clone, PartialEq)]
pub struct Edit {
    pub change: Change,
    /// The history entry's `event` (`field_edit`, `steer`, …).
    pub event: String,
    pub reason: String,
    /// Extra fields for the history entry (a directive's verb and target, say).
    pub details: Vec<(String, NewNode)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Mutation {
    pub edits: Vec<Edit>,
    pub actor: String,
    pub force: bool,
    /// Add missing fields (and their parents) instead of refusing.
    pub create: bool,
    /// What the caller last saw of the first edit's field (stale-edit detection).
    pub base: Option<Base>,
}

impl Mutation {
    /// A mutation of one edit.
    pub fn new(change: Change, event: &str, actor: &str, reason: &str) -> Mutation {
        let mut m = Mutation::by(actor);
        m.push(change, event, reason);
        m
    }

    /// An empty transaction by `actor`; the engine's transactions create missing fields.
    pub fn by(actor: &str) -> Mutation {
        Mutation {
            edits: Vec::new(),
            actor: actor.to_string(),
            force: false,
            create: actor == "engine",
            base: None,
        }
    }

    /// Add one edit to the transaction.
    pub fn push(&mut self, change: Change, event: &str, reason: &str) -> &mut Mutation {
        self.edits.push(Edit {
            change,
            event: event.to_string(),
            reason: reason.to_string(),
            details: Vec::new(),
        });
        self
    }

    /// Add one edit, builder style.
    pub fn with(mut self, change: Change, event: &str, reason: &str) -> Mutation {
        self.push(change, event, reason);
        self
    }

    /// Every edit of `other`, after this one's (its actor and flags are not taken).
    pub fn extend(&mut self, other: Mutation) {
        self.edits.extend(other.edits);
    }

    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// The first edit's change (single-edit callers).
    pub fn change(&self) -> &Change {
        &self.edits[0].change
    }

    /// The first edit's history details.
    pub fn details_mut(&mut self) -> &mut Vec<(String, NewNode)> {
        &mut self.edits[0].details
    }

    /// The first edit's path.
    pub fn path(&self) -> &str {
        self.edits.first().map_or("", |e| e.change.path())
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

/// A parsed node as a [`NewNode`]: scalars as written (quotes kept; a multi-line block
/// scalar double-quoted onto one line), collections rebuilt, so it renders in flow form.
fn as_new(node: &Node, text: &str) -> NewNode {
    match &node.kind {
        NodeKind::Scalar(sc) => {
            let src = text
                .get(node.start..node.content_end(text))
                .unwrap_or(&sc.text)
                .trim();
            if src.contains('\n') || src.starts_with(['|', '>']) {
                NewNode::Scalar(format_scalar(&sc.text, Style::DoubleQuoted))
            } else {
                NewNode::Scalar(src.to_string())
            }
        }
        NodeKind::Seq(items) => NewNode::Seq(items.iter().map(|n| as_new(n, text)).collect()),
        NodeKind::Map(entries) => NewNode::Map(
            entries
                .iter()
                .map(|(k, v)| {
                    let key = k.as_str().map_or_else(|| "?".to_string(), str::to_string);
                    (key, as_new(v, text))
                })
                .collect(),
        ),
    }
}

/// Plan one edit against `doc` (`create`: add missing fields and parents).
pub fn plan(doc: &Document, e: &Edit, create: bool, ids: &[String]) -> Result<Planned, EditError> {
    let path = VsaPath::parse(e.change.path())?;
    let summary = |n: &NewNode| Some(crate::yaml::splice::render_flow(n));
    Ok(match &e.change {
        Change::Set { value, .. } => {
            let FieldEdit {
                old, new, splices, ..
            } = plan_set(doc, &path, value, ids, create)?;
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
            // What the put replaces, in flow form, so history shows both sides of a map
            // (a step's status entry, the recovery journal) and not `null -> {…}`.
            let old = doc.root.as_ref().and_then(|r| match resolve(r, &path) {
                Ok(Resolved::Found(n)) if !n.is_null() => {
                    Some(crate::yaml::splice::render_flow(&as_new(n, &doc.text)))
                }
                _ => None,
            });
            Planned {
                check: Check::Exists(path.clone()),
                path,
                splices,
                old,
                new: summary(value),
            }
        }
    })
}
