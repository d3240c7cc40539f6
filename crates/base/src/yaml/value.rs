use super::error::DuplicateKey;
use super::scalar::Scalar;

/// A 1-based line and column, as editors show them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

/// One node of the document, with the byte range it occupies in the source text.
///
/// For block collections the range ends where the parser closed them, which can lie past
/// trailing comments; [`Node::content_end`] gives the end of the last byte that belongs to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub kind: NodeKind,
    pub start: usize,
    pub end: usize,
    pub pos: Pos,
}

#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    Scalar(Scalar),
    Seq(Vec<Node>),
    /// Entries in source order; a duplicated key keeps only its last occurrence.
    Map(Vec<(Node, Node)>),
}

impl Node {
    pub fn as_scalar(&self) -> Option<&Scalar> {
        match &self.kind {
            NodeKind::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The scalar's text when it is a non-null scalar.
    pub fn as_str(&self) -> Option<&str> {
        self.as_scalar()
            .filter(|s| !s.is_null())
            .map(|s| s.text.as_str())
    }

    pub fn is_null(&self) -> bool {
        self.as_scalar().is_some_and(Scalar::is_null)
    }

    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.kind {
            NodeKind::Seq(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.kind {
            NodeKind::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The value under `key` when this is a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|(_, v)| v)
    }

    pub fn entry(&self, key: &str) -> Option<&(Node, Node)> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.as_scalar().is_some_and(|s| s.text == key))
    }

    /// Whether the collection is written in flow style (`[..]`, `{..}`) in `text`.
    pub fn is_flow(&self, text: &str) -> bool {
        matches!(text.as_bytes().get(self.start), Some(b'[' | b'{'))
    }

    /// The end of the last byte that belongs to this node (not to a trailing comment or the
    /// next key): where text appended after the node must go.
    pub fn content_end(&self, text: &str) -> usize {
        match &self.kind {
            NodeKind::Scalar(s) => s.content_end(self.start, self.end, text),
            _ if self.is_flow(text) => flow_end(text, self.start).unwrap_or(self.end),
            NodeKind::Seq(items) => items.last().map_or(self.start, |n| n.content_end(text)),
            NodeKind::Map(entries) => entries
                .last()
                .map_or(self.start, |(_, v)| v.content_end(text)),
        }
    }

    pub fn kind_name(&self) -> &'static str {
        match &self.kind {
            NodeKind::Scalar(s) if s.is_null() => "null",
            NodeKind::Scalar(_) => "scalar",
            NodeKind::Seq(_) => "list",
            NodeKind::Map(_) => "mapping",
        }
    }
}

/// A parsed file: its text, its root node, and what the parser tolerated.
#[derive(Debug, Clone)]
pub struct Document {
    pub text: String,
    /// `None` for an empty file (or one holding only comments).
    pub root: Option<Node>,
    pub duplicates: Vec<DuplicateKey>,
    /// Whether an anchor or alias was seen: sections that share nodes cannot be parsed
    /// apart (the store's partial read-back checks this instead of scanning the text).
    pub anchored: bool,
}

/// Just past the bracket closing the flow collection opened at `start`. The parser's end
/// marker can run on over a trailing comment, so brackets are matched in the source,
/// skipping quoted strings.
fn flow_end(text: &str, start: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'[' | b'{' => depth += 1,
            b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'\'' => {
                i += 1;
                while i < bytes.len() && !(bytes[i] == b'\'' && bytes.get(i + 1) != Some(&b'\'')) {
                    i += if bytes[i] == b'\'' { 2 } else { 1 };
                }
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}
