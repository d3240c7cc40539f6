//! Building a [`Document`] from `saphyr-parser`'s spanned events.

use std::collections::HashMap;

use saphyr_parser::{Event, Marker, Parser, ScalarStyle, ScanError};

use super::error::{DuplicateKey, YamlError};
use super::scalar::{Scalar, Style};
use super::value::{Document, Node, NodeKind, Pos};

/// Parse `bytes` as one YAML document. Invalid UTF-8, bad syntax and the like come back as a
/// [`YamlError`] naming the line and column; duplicate keys are tolerated (last one wins,
/// as in PyYAML) and listed in [`Document::duplicates`].
pub fn parse(bytes: &[u8]) -> Result<Document, YamlError> {
    let text = std::str::from_utf8(bytes).map_err(|e| utf8_error(bytes, e.valid_up_to()))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut builder = Builder::new(text);
    for event in Parser::new_from_str(text) {
        match event {
            Ok((ev, span)) => {
                if builder.on_event(ev, span.start, span.end)? {
                    break;
                }
            }
            Err(e) => return Err(scan_error(text, &e)),
        }
    }
    Ok(Document {
        text: text.to_string(),
        root: builder.root,
        duplicates: builder.duplicates,
        anchored: builder.anchored,
    })
}

fn utf8_error(bytes: &[u8], valid_up_to: usize) -> YamlError {
    let before = &bytes[..valid_up_to];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let col = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    YamlError {
        line,
        col,
        message: format!(
            "byte 0x{:02x} is not valid UTF-8: expected a UTF-8 text file (is this a binary file?)",
            bytes.get(valid_up_to).copied().unwrap_or(0)
        ),
    }
}

fn scan_error(text: &str, e: &ScanError) -> YamlError {
    let m = e.marker();
    let line = m.line().max(1);
    let mut message = e.info().to_string();
    let line_text = text.lines().nth(line - 1).unwrap_or("");
    let mut col = m.col() + 1;
    // A control character the scanner refused: name it, since "unprintable" alone does not
    // say which byte, and a NUL usually means a truncated or binary write.
    if let Some(c) = line_text
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\t' | '\r' | '\n'))
        && e.info().contains("unprintable")
    {
        if let Some(at) = line_text.chars().position(|x| x == c) {
            col = at + 1;
        }
        let what = if c == '\0' {
            "a NUL byte (0x00): the file was cut short or written as binary; restore the last good copy (youra keeps recent ones under .youra/written/)".to_string()
        } else {
            format!(
                "the control character U+{:04X}, which YAML does not allow in a file: remove it",
                c as u32
            )
        };
        return YamlError {
            line,
            col,
            message: format!("found {what}"),
        };
    }
    if e.info().contains("recursion limit") {
        return YamlError {
            line,
            col,
            message: "collections nest too deep here (the parser's limit is 256 levels; a VSA needs a dozen): remove the nesting".into(),
        };
    }
    let word_tab = e
        .info()
        .split(|c: char| !c.is_alphabetic())
        .any(|w| w == "tab" || w == "tabs");
    if line_text.trim_start_matches(' ').starts_with('\t') || word_tab {
        message.push_str(" (YAML cannot indent with tabs: use spaces)");
        if let Some(tab) = line_text.chars().position(|c| c == '\t') {
            col = tab + 1;
        }
    }
    YamlError { line, col, message }
}

/// Converts the parser's character indices into byte offsets. Events arrive in source order,
/// so a forward-moving cursor makes this linear; ASCII text needs no walk at all.
struct Offsets<'a> {
    text: &'a str,
    ascii: bool,
    char_idx: usize,
    byte_idx: usize,
}

impl<'a> Offsets<'a> {
    fn new(text: &'a str) -> Self {
        Offsets {
            text,
            ascii: text.is_ascii(),
            char_idx: 0,
            byte_idx: 0,
        }
    }

    fn byte(&mut self, char_index: usize) -> usize {
        if self.ascii {
            return char_index.min(self.text.len());
        }
        if char_index < self.char_idx {
            self.char_idx = 0;
            self.byte_idx = 0;
        }
        let mut chars = self.text[self.byte_idx..].chars();
        while self.char_idx < char_index {
            let Some(c) = chars.next() else { break };
            self.byte_idx += c.len_utf8();
            self.char_idx += 1;
        }
        self.byte_idx
    }
}

enum Frame {
    Seq {
        node: Node,
        items: Vec<Node>,
        anchor: usize,
    },
    Map {
        node: Node,
        entries: Vec<(Node, Node)>,
        key: Option<Node>,
        seen: HashMap<String, usize>,
        anchor: usize,
    },
}

/// How many nodes aliases may add in all. Each alias copies its anchor's whole subtree, so
/// nested anchors grow exponentially (380 bytes reached 12 GB); real VSAs use a handful of
/// aliases, if any.
pub(crate) const MAX_ALIAS_NODES: usize = 100_000;
/// How deep collections may nest. Readers of the tree recurse; a VSA nests a dozen levels.
pub const MAX_DEPTH: usize = 200;

fn subtree_size(node: &Node) -> usize {
    match &node.kind {
        NodeKind::Scalar(_) => 1,
        NodeKind::Seq(items) => 1 + items.iter().map(subtree_size).sum::<usize>(),
        NodeKind::Map(entries) => {
            1 + entries
                .iter()
                .map(|(k, v)| subtree_size(k) + subtree_size(v))
                .sum::<usize>()
        }
    }
}

struct Builder<'a> {
    offsets: Offsets<'a>,
    stack: Vec<Frame>,
    /// Anchored nodes with their subtree sizes.
    anchors: HashMap<usize, (Node, usize)>,
    /// Nodes added by aliases so far (see [`MAX_ALIAS_NODES`]).
    alias_nodes: usize,
    root: Option<Node>,
    duplicates: Vec<DuplicateKey>,
    anchored: bool,
}

impl<'a> Builder<'a> {
    fn new(text: &'a str) -> Self {
        Builder {
            offsets: Offsets::new(text),
            stack: Vec::new(),
            anchors: HashMap::new(),
            alias_nodes: 0,
            root: None,
            duplicates: Vec::new(),
            anchored: false,
        }
    }

    fn node(&mut self, kind: NodeKind, start: Marker, end: Marker) -> Node {
        let pos = Pos {
            line: start.line(),
            col: start.col() + 1,
        };
        let s = self.offsets.byte(start.index());
        let e = self.offsets.byte(end.index());
        Node {
            kind,
            start: s,
            end: e.max(s),
            pos,
        }
    }

    /// Returns `true` once the first document is complete.
    fn on_event(&mut self, ev: Event<'_>, start: Marker, end: Marker) -> Result<bool, YamlError> {
        match ev {
            Event::Scalar(value, style, anchor, _) => {
                let scalar = Scalar {
                    text: value.into_owned(),
                    style: style_of(style),
                };
                let node = self.node(NodeKind::Scalar(scalar), start, end);
                self.remember(anchor, &node);
                self.push_value(node);
            }
            Event::Alias(id) => {
                self.anchored = true;
                let node = match self.anchors.get(&id) {
                    Some((n, size)) => {
                        self.alias_nodes = self.alias_nodes.saturating_add(*size);
                        if self.alias_nodes > MAX_ALIAS_NODES {
                            return Err(YamlError {
                                line: start.line(),
                                col: start.col() + 1,
                                message: format!(
                                    "this alias takes the aliases' expansion past {MAX_ALIAS_NODES} nodes \
                                     (nested anchors and aliases multiply: an alias bomb?); \
                                     youra refuses to expand it: write the values out instead of aliasing them"
                                ),
                            });
                        }
                        n.clone()
                    }
                    None => self.node(
                        NodeKind::Scalar(Scalar {
                            text: String::new(),
                            style: Style::Plain,
                        }),
                        start,
                        end,
                    ),
                };
                self.push_value(node);
            }
            Event::SequenceStart(..) | Event::MappingStart(..) if self.stack.len() >= MAX_DEPTH => {
                return Err(YamlError {
                    line: start.line(),
                    col: start.col() + 1,
                    message: format!(
                        "collections nest deeper than {MAX_DEPTH} levels here; a VSA needs a dozen: \
                         this file was not written by YouRA or youra (remove the nesting)"
                    ),
                });
            }
            Event::SequenceStart(anchor, _) => {
                let node = self.node(NodeKind::Seq(Vec::new()), start, end);
                self.stack.push(Frame::Seq {
                    node,
                    items: Vec::new(),
                    anchor,
                });
            }
            Event::MappingStart(anchor, _) => {
                let node = self.node(NodeKind::Map(Vec::new()), start, end);
                self.stack.push(Frame::Map {
                    node,
                    entries: Vec::new(),
                    key: None,
                    seen: HashMap::new(),
                    anchor,
                });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let end_byte = self.offsets.byte(end.index());
                let node = match self.stack.pop() {
                    Some(Frame::Seq {
                        mut node,
                        items,
                        anchor,
                    }) => {
                        node.kind = NodeKind::Seq(items);
                        node.end = end_byte.max(node.start);
                        self.remember(anchor, &node);
                        node
                    }
                    Some(Frame::Map {
                        mut node,
                        entries,
                        anchor,
                        ..
                    }) => {
                        node.kind = NodeKind::Map(entries);
                        node.end = end_byte.max(node.start);
                        self.remember(anchor, &node);
                        node
                    }
                    None => return Ok(false),
                };
                self.push_value(node);
            }
            Event::DocumentEnd => return Ok(self.root.is_some()),
            Event::StreamEnd => return Ok(true),
            Event::Nothing | Event::StreamStart | Event::DocumentStart(_) => {}
        }
        Ok(false)
    }

    fn remember(&mut self, anchor: usize, node: &Node) {
        if anchor != 0 {
            self.anchored = true;
            self.anchors
                .insert(anchor, (node.clone(), subtree_size(node)));
        }
    }

    fn push_value(&mut self, node: Node) {
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map {
                entries, key, seen, ..
            }) => match key.take() {
                None => *key = Some(node),
                Some(k) => {
                    let previous = k
                        .as_scalar()
                        .and_then(|ks| find_key(entries, seen, &ks.text));
                    match previous {
                        Some(i) => {
                            self.duplicates.push(DuplicateKey {
                                key: k.as_scalar().map(|s| s.text.clone()).unwrap_or_default(),
                                first_line: entries[i].0.pos.line,
                                line: k.pos.line,
                            });
                            entries[i] = (k, node);
                        }
                        None => {
                            if entries.len() >= SMALL_MAP {
                                if seen.is_empty() {
                                    for (i, (ek, _)) in entries.iter().enumerate() {
                                        if let Some(es) = ek.as_scalar() {
                                            seen.insert(es.text.clone(), i);
                                        }
                                    }
                                }
                                if let Some(ks) = k.as_scalar() {
                                    seen.insert(ks.text.clone(), entries.len());
                                }
                            }
                            entries.push((k, node));
                        }
                    }
                }
            },
        }
    }
}

/// Mappings up to this size find duplicate keys by a scan; larger ones build an index. Most
/// VSA mappings are small, and an index per history entry would dominate the parse.
const SMALL_MAP: usize = 16;

fn find_key(entries: &[(Node, Node)], seen: &HashMap<String, usize>, key: &str) -> Option<usize> {
    if seen.is_empty() {
        return entries
            .iter()
            .position(|(k, _)| k.as_scalar().is_some_and(|s| s.text == key));
    }
    seen.get(key).copied()
}

fn style_of(style: ScalarStyle) -> Style {
    match style {
        ScalarStyle::SingleQuoted => Style::SingleQuoted,
        ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
        ScalarStyle::Literal => Style::Literal,
        ScalarStyle::Folded => Style::Folded,
        _ => Style::Plain,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_found_in_small_and_large_mappings() {
        let small = parse(b"a: 1\nb: 2\na: 3\n").unwrap();
        assert_eq!(small.duplicates.len(), 1);
        assert_eq!(
            small.root.as_ref().unwrap().get("a").unwrap().as_str(),
            Some("3")
        );
        let mut big: String = (0..30).map(|i| format!("k{i}: {i}\n")).collect();
        big.push_str("k2: last\nk29: again\n");
        let doc = parse(big.as_bytes()).unwrap();
        let keys: Vec<&str> = doc.duplicates.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(keys, ["k2", "k29"]);
        let root = doc.root.unwrap();
        assert_eq!(root.as_map().unwrap().len(), 30);
        assert_eq!(root.get("k2").unwrap().as_str(), Some("last"));
        assert_eq!(
            (doc.duplicates[0].first_line, doc.duplicates[0].line),
            (3, 31)
        );
    }
}
