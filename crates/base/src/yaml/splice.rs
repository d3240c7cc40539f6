//! Lossless edits: replace or insert byte ranges of the source text, leaving every other
//! byte (comments, key order, quoting, blank lines) exactly as it was.

use super::scalar::replace_start;
use super::value::{Node, NodeKind};

/// Replace `start..end` of the text with `text` (an insertion when the range is empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Splice {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpliceError {
    #[error("{0} is a {1}, not a single value: edit one of its fields instead")]
    NotAScalar(String, &'static str),
    #[error("{0} is a {1}, not a {2}")]
    WrongKind(String, &'static str, &'static str),
    #[error("edits overlap at byte {0}")]
    Overlap(usize),
}

/// New content to write: scalars arrive already rendered (see [`super::format_scalar`]).
#[derive(Debug, Clone, PartialEq)]
pub enum NewNode {
    Scalar(String),
    Map(Vec<(String, NewNode)>),
    Seq(Vec<NewNode>),
}

impl Splice {
    /// Apply non-overlapping splices; ties at one position keep the order given.
    pub fn apply(text: &str, splices: &[Splice]) -> Result<String, SpliceError> {
        let mut order: Vec<&Splice> = splices.iter().collect();
        order.sort_by_key(|s| s.start);
        let extra: usize = splices.iter().map(|s| s.text.len()).sum();
        let mut out = String::with_capacity(text.len() + extra);
        let mut cursor = 0;
        for s in order {
            if s.start < cursor || s.end < s.start || s.end > text.len() {
                return Err(SpliceError::Overlap(s.start));
            }
            out.push_str(&text[cursor..s.start]);
            out.push_str(&s.text);
            cursor = s.end;
        }
        out.push_str(&text[cursor..]);
        Ok(out)
    }
}

/// Replace a scalar node's bytes with `rendered`.
pub fn replace_scalar(
    text: &str,
    node: &Node,
    what: &str,
    rendered: &str,
) -> Result<Splice, SpliceError> {
    let NodeKind::Scalar(scalar) = &node.kind else {
        return Err(SpliceError::NotAScalar(what.to_string(), node.kind_name()));
    };
    let start = replace_start(scalar, node.start, text);
    let end = node.content_end(text);
    let needs_space = start == end && !text[..start].ends_with([' ', '\t', '\n']);
    let text = if needs_space {
        format!(" {rendered}")
    } else {
        rendered.to_string()
    };
    Ok(Splice { start, end, text })
}

/// The column of a block list's dashes, read off its first item's line: the parser marks
/// an indentless list (`key:` then `- item` at the key's column) elsewhere.
fn dash_col(text: &str, seq: &Node, items: &[Node]) -> usize {
    let Some(first) = items.first() else {
        return seq.pos.col.saturating_sub(1);
    };
    let line_start = text[..first.start].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..first.start]
        .rfind('-')
        .map_or(seq.pos.col.saturating_sub(1), |i| {
            text[line_start..line_start + i].chars().count()
        })
}

fn line_end(text: &str, pos: usize) -> usize {
    text[pos..].find('\n').map_or(text.len(), |i| pos + i)
}

/// Append `item` to a sequence. `owner_col` is the 0-based column of the key that owns the
/// sequence, used when an empty flow `[]` has to become a block list.
pub fn append_to_seq(
    text: &str,
    seq: &Node,
    owner_col: usize,
    item: &NewNode,
) -> Result<Vec<Splice>, SpliceError> {
    let NodeKind::Seq(items) = &seq.kind else {
        return Err(SpliceError::WrongKind(
            "the target".into(),
            seq.kind_name(),
            "list",
        ));
    };
    if seq.is_flow(text) {
        if items.is_empty() {
            let at = line_end(text, seq.content_end(text));
            let block = render_seq_item(item, owner_col);
            return Ok(vec![
                Splice {
                    start: text[..seq.start].trim_end_matches(' ').len(),
                    end: seq.content_end(text),
                    text: String::new(),
                },
                Splice {
                    start: at,
                    end: at,
                    text: format!("\n{block}"),
                },
            ]);
        }
        let at = seq.content_end(text).saturating_sub(1);
        return Ok(vec![Splice {
            start: at,
            end: at,
            text: format!(", {}", render_flow(item)),
        }]);
    }
    let at = line_end(text, seq.content_end(text));
    let indent = dash_col(text, seq, items);
    Ok(vec![Splice {
        start: at,
        end: at,
        text: format!("\n{}", render_seq_item(item, indent)),
    }])
}

/// Add `key: value` as the last entry of a mapping.
pub fn insert_entry(
    text: &str,
    map: &Node,
    key: &str,
    value: &NewNode,
) -> Result<Vec<Splice>, SpliceError> {
    let NodeKind::Map(entries) = &map.kind else {
        return Err(SpliceError::WrongKind(
            "the target".into(),
            map.kind_name(),
            "mapping",
        ));
    };
    let key = super::format_scalar(key, super::Style::Plain);
    if map.is_flow(text) {
        let at = map.content_end(text).saturating_sub(1);
        let sep = if entries.is_empty() { "" } else { ", " };
        return Ok(vec![Splice {
            start: at,
            end: at,
            text: format!("{sep}{key}: {}", render_flow(value)),
        }]);
    }
    let at = line_end(text, map.content_end(text));
    let indent = map.pos.col.saturating_sub(1);
    let entry = render_entry(&key, value, indent);
    let lead = if at == 0 { "" } else { "\n" };
    Ok(vec![Splice {
        start: at,
        end: at,
        text: format!("{lead}{entry}"),
    }])
}

fn pad(n: usize) -> String {
    " ".repeat(n)
}

/// `key: value` (or `key:` plus an indented block) at `indent`, without a trailing newline.
pub fn render_entry(key: &str, value: &NewNode, indent: usize) -> String {
    match value {
        NewNode::Scalar(s) => format!("{}{key}: {s}", pad(indent)),
        NewNode::Map(m) if m.is_empty() => format!("{}{key}: {{}}", pad(indent)),
        NewNode::Seq(s) if s.is_empty() => format!("{}{key}: []", pad(indent)),
        NewNode::Map(m) => {
            let body: Vec<String> = m
                .iter()
                .map(|(k, v)| render_entry(k, v, indent + 2))
                .collect();
            format!("{}{key}:\n{}", pad(indent), body.join("\n"))
        }
        NewNode::Seq(items) => {
            let body: Vec<String> = items
                .iter()
                .map(|v| render_seq_item(v, indent + 2))
                .collect();
            format!("{}{key}:\n{}", pad(indent), body.join("\n"))
        }
    }
}

/// `- item` at `indent`; a mapping item puts its first key on the dash line.
pub fn render_seq_item(item: &NewNode, indent: usize) -> String {
    match item {
        NewNode::Map(m) if !m.is_empty() => {
            let lines: Vec<String> = m
                .iter()
                .map(|(k, v)| render_entry(k, v, indent + 2))
                .collect();
            let joined = lines.join("\n");
            format!("{}- {}", pad(indent), &joined[indent + 2..])
        }
        NewNode::Seq(s) if !s.is_empty() => format!("{}- {}", pad(indent), render_flow(item)),
        other => format!("{}- {}", pad(indent), render_flow(other)),
    }
}

pub fn render_flow(value: &NewNode) -> String {
    match value {
        NewNode::Scalar(s) => s.clone(),
        NewNode::Map(m) => {
            let parts: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{k}: {}", render_flow(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        NewNode::Seq(items) => {
            let parts: Vec<String> = items.iter().map(render_flow).collect();
            format!("[{}]", parts.join(", "))
        }
    }
}
