//! Planning lossless edits of a VSA: a field set, an appended history entry, the revision
//! bump. Each is a list of splices of the original text, applied together by the store.

use super::path::{PathError, Resolved, Segment, VsaPath, resolve};
use super::read_gate::scalar_text;
use super::schema::{TypeError, TypedValue, check, field_type};
use crate::yaml::splice::{append_to_seq, insert_entry, replace_scalar};
use crate::yaml::{Document, NewNode, Node, Splice, SpliceError, Style, format_scalar};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error(transparent)]
    Path(#[from] PathError),
    #[error(transparent)]
    Type(#[from] TypeError),
    #[error("`{0}` cannot be edited here: {1}")]
    Shape(String, SpliceError),
    #[error("the file has no top-level mapping to edit")]
    NoRoot,
    #[error("`{0}` does not exist (no `{1}` under `{2}`); pass --create to add it")]
    Absent(String, String, String),
}

/// A planned field change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldEdit {
    pub path: String,
    pub old: Option<String>,
    pub new: Option<String>,
    pub splices: Vec<Splice>,
}

fn root(doc: &Document) -> Result<&Node, EditError> {
    doc.root
        .as_ref()
        .filter(|r| r.as_map().is_some())
        .ok_or(EditError::NoRoot)
}

/// Plan `path = raw`, type-checked. Missing keys are added for schema fields
/// (`workflow.next_action`, even with no `workflow:` block), or for any path when `create`
/// is set: a typo must not grow the file, and no edit invents a sub-hypothesis.
pub(crate) fn plan_set(
    doc: &Document,
    path: &VsaPath,
    raw: &str,
    ids: &[String],
    create: bool,
) -> Result<FieldEdit, EditError> {
    let root = root(doc)?;
    let shape = |e| EditError::Shape(path.to_string(), e);
    match resolve(root, path)? {
        Resolved::Found(node) => {
            let value = check(path, raw, Some(node), ids)?;
            let splice = replace_scalar(&doc.text, node, &path.to_string(), &value.rendered)
                .map_err(shape)?;
            Ok(FieldEdit {
                path: path.to_string(),
                old: scalar_text(Some(node)),
                new: value.display,
                splices: vec![splice],
            })
        }
        Resolved::Missing {
            container,
            missing,
            depth,
        } => {
            if !create && !creatable(path, depth) {
                return Err(EditError::Absent(
                    path.to_string(),
                    missing[0].clone(),
                    path.prefix(depth).to_string(),
                ));
            }
            let TypedValue { rendered, display } = check(path, raw, None, ids)?;
            let mut value = NewNode::Scalar(rendered);
            for key in missing[1..].iter().rev() {
                value = NewNode::Map(vec![(key.clone(), value)]);
            }
            let splices = insert_entry(&doc.text, container, &missing[0], &value).map_err(shape)?;
            Ok(FieldEdit {
                path: path.to_string(),
                old: None,
                new: display,
                splices,
            })
        }
    }
}

fn creatable(path: &VsaPath, first_missing: usize) -> bool {
    let under_missing_hypothesis = matches!(path.0.first(), Some(Segment::Key(k)) if k == "sub_hypotheses" || k == "hypotheses")
        && first_missing <= 1;
    field_type(path).is_some() && !under_missing_hypothesis
}

/// Render an optional value for a history entry.
pub fn scalar(value: Option<&str>) -> NewNode {
    NewNode::Scalar(value.map_or_else(|| "null".to_string(), |v| format_scalar(v, Style::Plain)))
}

/// Append `entry` to the top-level `history:` list, creating the list when needed.
pub fn plan_history_append(doc: &Document, entry: NewNode) -> Result<Vec<Splice>, EditError> {
    plan_history_append_all(doc, vec![entry])
}

/// Append `entries`, in order, to the top-level `history:` list (one transaction's entries).
pub(crate) fn plan_history_append_all(
    doc: &Document,
    entries: Vec<NewNode>,
) -> Result<Vec<Splice>, EditError> {
    if entries.is_empty() {
        return Ok(Vec::new());
    }
    let root = root(doc)?;
    let shape = |e| EditError::Shape("history".into(), e);
    match root.entry("history") {
        Some((key, list))
            if list.as_seq().is_some_and(|s| !s.is_empty())
                || (list.as_seq().is_some() && entries.len() == 1) =>
        {
            let mut out = Vec::new();
            // Block lists take each item at the same point, in order (ties keep their
            // order); a flow list is rewritten by the first append, so one at a time.
            if list.is_flow(&doc.text) && entries.len() > 1 {
                let flow = entries
                    .iter()
                    .map(crate::yaml::splice::render_flow)
                    .collect::<Vec<_>>()
                    .join(", ");
                let at = list.content_end(&doc.text).saturating_sub(1);
                return Ok(vec![Splice {
                    start: at,
                    end: at,
                    text: format!(", {flow}"),
                }]);
            }
            for entry in &entries {
                out.extend(append_to_seq(&doc.text, list, key.pos.col - 1, entry).map_err(shape)?);
            }
            Ok(out)
        }
        Some((key, list)) if list.is_null() || list.as_seq().is_some() => {
            // `history:` with nothing, or `history: []`: the items replace the value.
            let end = list.content_end(&doc.text).max(list.start);
            let at = doc.text[end..]
                .find('\n')
                .map_or(doc.text.len(), |i| end + i);
            let items: String = entries
                .iter()
                .map(|e| {
                    format!(
                        "\n{}",
                        crate::yaml::splice::render_seq_item(e, key.pos.col - 1)
                    )
                })
                .collect();
            let mut splices = Vec::new();
            if end > list.start {
                splices.push(Splice {
                    start: doc.text[..list.start].trim_end_matches(' ').len(),
                    end,
                    text: String::new(),
                });
            }
            splices.push(Splice {
                start: at,
                end: at,
                text: items,
            });
            Ok(splices)
        }
        Some((_, other)) => Err(shape(SpliceError::WrongKind(
            "history".into(),
            other.kind_name(),
            "list",
        ))),
        None => insert_entry(&doc.text, root, "history", &NewNode::Seq(entries)).map_err(shape),
    }
}

/// Set the top-level `revision:` to `value`, adding the key at the end when absent.
pub(crate) fn plan_revision(doc: &Document, value: u64) -> Result<Vec<Splice>, EditError> {
    let root = root(doc)?;
    let shape = |e| EditError::Shape("revision".into(), e);
    match root.get("revision") {
        Some(node) => Ok(vec![
            replace_scalar(&doc.text, node, "revision", &value.to_string()).map_err(shape)?,
        ]),
        None => insert_entry(
            &doc.text,
            root,
            "revision",
            &NewNode::Scalar(value.to_string()),
        )
        .map_err(shape),
    }
}
