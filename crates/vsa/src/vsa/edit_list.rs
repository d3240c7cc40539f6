//! Planning structural edits: append an item to a list, remove one, or put a whole value
//! (a mapping such as an escalation's decision) at a path. Splices, like field edits.

use super::edit::EditError;
use super::path::{Resolved, VsaPath, resolve};
use crate::yaml::splice::{
    append_to_seq, insert_entry, render_entry, render_flow, render_seq_item,
};
use crate::yaml::{Document, NewNode, Node, NodeKind, Splice, SpliceError};

fn root(doc: &Document) -> Result<&Node, EditError> {
    doc.root
        .as_ref()
        .filter(|r| r.as_map().is_some())
        .ok_or(EditError::NoRoot)
}

fn line_start(text: &str, pos: usize) -> usize {
    text[..pos].rfind('\n').map_or(0, |i| i + 1)
}

fn line_end(text: &str, pos: usize) -> usize {
    text[pos..].find('\n').map_or(text.len(), |i| pos + i)
}

/// Indentation of the line holding `pos`: the column of the key that owns a value there.
fn indent_of(text: &str, pos: usize) -> usize {
    text[line_start(text, pos)..]
        .chars()
        .take_while(|c| *c == ' ')
        .count()
}

fn nest(missing: &[String], leaf: NewNode) -> NewNode {
    missing[1..]
        .iter()
        .rev()
        .fold(leaf, |v, k| NewNode::Map(vec![(k.clone(), v)]))
}

/// Append `item` to the list at `path` (created, with missing parents, when absent).
/// Returns the splices and the list's length before.
pub(crate) fn plan_append(
    doc: &Document,
    path: &VsaPath,
    item: &NewNode,
) -> Result<(Vec<Splice>, usize), EditError> {
    let root = root(doc)?;
    let text = &doc.text;
    let shape = |e| EditError::Shape(path.to_string(), e);
    match resolve(root, path)? {
        Resolved::Found(node) => match &node.kind {
            NodeKind::Seq(items) => Ok((
                append_to_seq(text, node, owner_col(text, node), item).map_err(shape)?,
                items.len(),
            )),
            NodeKind::Scalar(_) if node.is_null() => {
                let col = owner_col(text, node);
                let at = line_end(text, node.content_end(text));
                let mut splices = Vec::new();
                if node.end > node.start {
                    splices.push(Splice {
                        start: node.start,
                        end: node.content_end(text),
                        text: String::new(),
                    });
                }
                splices.push(Splice {
                    start: at,
                    end: at,
                    text: format!("\n{}", render_seq_item(item, col)),
                });
                Ok((splices, 0))
            }
            _ => Err(shape(SpliceError::WrongKind(
                path.to_string(),
                node.kind_name(),
                "list",
            ))),
        },
        Resolved::Missing {
            container, missing, ..
        } => {
            let value = nest(&missing, NewNode::Seq(vec![item.clone()]));
            Ok((
                insert_entry(text, container, &missing[0], &value).map_err(shape)?,
                0,
            ))
        }
    }
}

/// The column of the key whose value starts at `node` (the line's indentation).
fn owner_col(text: &str, node: &Node) -> usize {
    let start = line_start(text, node.start);
    let line = &text[start..];
    let spaces = line.chars().take_while(|c| *c == ' ').count();
    // `key: []` on its own line: the key is at the indentation. A block list's first item
    // sits on the line after its key, where the dash column is the owner's column.
    if node.is_flow(text) || node.is_null() {
        spaces
    } else {
        spaces.min(node.pos.col.saturating_sub(1))
    }
}

/// Remove the list item at `path` (a block list's `- …` lines).
pub(crate) fn plan_remove(doc: &Document, path: &VsaPath) -> Result<Splice, EditError> {
    let root = root(doc)?;
    let text = &doc.text;
    let Resolved::Found(item) = resolve(root, path)? else {
        return Err(EditError::Shape(
            path.to_string(),
            SpliceError::WrongKind(path.to_string(), "missing item", "list item"),
        ));
    };
    let start = line_start(text, item.start);
    if !text[start..item.start].trim_start().starts_with('-') {
        return Err(EditError::Shape(
            path.to_string(),
            SpliceError::WrongKind(path.to_string(), "flow list item", "block list item"),
        ));
    }
    let end = line_end(text, item.content_end(text));
    let end = if end < text.len() { end + 1 } else { end };
    Ok(Splice {
        start,
        end,
        text: String::new(),
    })
}

/// Put a whole value at `path`: insert it when absent, replace what is there otherwise.
pub(crate) fn plan_put(
    doc: &Document,
    path: &VsaPath,
    value: &NewNode,
) -> Result<Vec<Splice>, EditError> {
    let root = root(doc)?;
    let text = &doc.text;
    let shape = |e| EditError::Shape(path.to_string(), e);
    let node = match resolve(root, path)? {
        Resolved::Missing {
            container, missing, ..
        } => {
            return insert_entry(text, container, &missing[0], &nest(&missing, value.clone()))
                .map_err(shape);
        }
        Resolved::Found(node) => node,
    };
    let end = node.content_end(text);
    let block = !node.is_flow(text) && !matches!(node.kind, NodeKind::Scalar(_));
    let splice = match value {
        // A block mapping that is a list item (`- id: d-1`) keeps its dash: the item is
        // rewritten from the dash on, its first key on the dash line.
        NewNode::Map(_) if block && !is_empty(value) && on_dash_line(text, node.start) => {
            let dash = indent_of(text, node.start);
            let item = crate::yaml::splice::render_seq_item(value, dash);
            Splice {
                start: line_start(text, node.start),
                end: line_end(text, end),
                text: item,
            }
        }
        // A block collection is replaced line by line, at its own indentation.
        NewNode::Map(_) | NewNode::Seq(_) if block && !is_empty(value) => {
            let col = indent_of(text, node.start);
            Splice {
                start: line_start(text, node.start),
                end: line_end(text, end),
                text: render_block(value, col),
            }
        }
        // Anything else becomes the text after the key's colon (or the item's dash).
        NewNode::Map(_) | NewNode::Seq(_) if !is_empty(value) => {
            let col = indent_of(text, node.start) + 2;
            Splice {
                start: after_indicator(text, node.start),
                end,
                text: format!("\n{}", render_block(value, col)),
            }
        }
        other => {
            let from = if block {
                line_start(text, node.start)
            } else {
                node.start
            };
            Splice {
                start: after_indicator(text, from),
                end,
                text: format!(" {}", render_flow(other)),
            }
        }
    };
    Ok(vec![splice])
}

/// Whether the node starts on a list item's line, after its dash.
fn on_dash_line(text: &str, pos: usize) -> bool {
    text[line_start(text, pos)..pos]
        .trim_start()
        .starts_with('-')
}

fn is_empty(value: &NewNode) -> bool {
    matches!(value, NewNode::Map(m) if m.is_empty())
        || matches!(value, NewNode::Seq(s) if s.is_empty())
}

fn render_block(value: &NewNode, col: usize) -> String {
    match value {
        NewNode::Map(m) => m
            .iter()
            .map(|(k, v)| render_entry(k, v, col))
            .collect::<Vec<_>>()
            .join("\n"),
        NewNode::Seq(items) => items
            .iter()
            .map(|v| render_seq_item(v, col))
            .collect::<Vec<_>>()
            .join("\n"),
        NewNode::Scalar(s) => s.clone(),
    }
}

/// Just past the `:` or `-` that introduces the value starting at `pos`.
fn after_indicator(text: &str, pos: usize) -> usize {
    text[..pos].trim_end().len()
}
