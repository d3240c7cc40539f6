//! `youra vsa repair`: the two ways agents break a VSA, recognised and undone by moving
//! lines, never by rewriting values. Pure: text in, the repaired text and what moved out.
//!
//! - **Stray history items**: `- event: …` entries appended at the top level after the
//!   last block (an agent that "adds to history" by appending to the file). They are moved,
//!   unchanged, to the end of the `history:` list, at its items' indentation.
//! - **A spliced block**: a mapping block pasted under a `key: value` line, indented deeper
//!   than that line (an agent inserting a block at the wrong depth). It is re-indented to
//!   its parent's children, the siblings of the line above.
//!
//! A candidate is accepted only when the result parses and reads as a VSA; anything else is
//! refused with the parser's line:col and no change.

use std::ops::Range;

#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// Lines (0-based, end exclusive) of top-level items moved into `history:`.
    StrayHistory { lines: Range<usize> },
    /// Lines of the block, and the indentation it moved from and to.
    SplicedBlock {
        lines: Range<usize>,
        from: usize,
        to: usize,
    },
}

impl Shape {
    pub fn describe(&self) -> String {
        match self {
            Shape::StrayHistory { lines } => format!(
                "lines {}-{}: history items appended at the top level, moved to the end of `history:`",
                lines.start + 1,
                lines.end
            ),
            Shape::SplicedBlock { lines, from, to } => format!(
                "lines {}-{}: a block spliced in {from} spaces deep, re-indented to {to} (its parent's children)",
                lines.start + 1,
                lines.end
            ),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Repair {
    pub shape: Shape,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RepairError {
    #[error(
        "{line}:{col}: {message}; this is not one of the shapes `youra vsa repair` knows (stray top-level history items, a block spliced too deep): fix it by hand, nothing was changed"
    )]
    Unknown {
        line: usize,
        col: usize,
        message: String,
    },
}

/// `Ok(None)` when the text already parses; the repair when one known shape explains the
/// break and the result reads; the parser's error otherwise.
pub fn repair(text: &str) -> Result<Option<Repair>, RepairError> {
    let err = match crate::yaml::parse(text.as_bytes()) {
        Ok(_) => return Ok(None),
        Err(e) => e,
    };
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let candidates = stray_history(&lines)
        .into_iter()
        .chain(spliced_blocks(&lines));
    for (shape, fixed) in candidates {
        if reads(&fixed) {
            return Ok(Some(Repair { shape, text: fixed }));
        }
    }
    Err(RepairError::Unknown {
        line: err.line,
        col: err.col,
        message: err.message,
    })
}

fn reads(text: &str) -> bool {
    crate::yaml::parse(text.as_bytes()).is_ok_and(|doc| {
        let (vsa, _) = crate::vsa::read(&doc);
        vsa.revision > 0 || !vsa.sub_hypotheses.is_empty() || vsa.workflow.current_phase.is_some()
    })
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn blank(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// Top-level `- ` items after the block that follows `history:`, moved to its end.
fn stray_history(lines: &[&str]) -> Option<(Shape, String)> {
    let h = lines.iter().position(|l| l.trim_end() == "history:")?;
    // The history block: until the next top-level key.
    let top_key = |l: &str| indent(l) == 0 && !l.starts_with('-') && !blank(l);
    let end = (h + 1..lines.len())
        .find(|&i| top_key(lines[i]))
        .unwrap_or(lines.len());
    let item_indent = (h + 1..end)
        .map(|i| lines[i])
        .find(|l| l.trim_start().starts_with("- "))
        .map_or(0, indent);
    // The first top-level `- ` after the history block, and its continuation lines.
    let start = (end..lines.len()).find(|&i| lines[i].starts_with("- "))?;
    let mut stop = start + 1;
    while stop < lines.len()
        && (lines[stop].starts_with("- ") || indent(lines[stop]) > 0 || blank(lines[stop]))
    {
        stop += 1;
    }
    // Trailing blank lines stay where they are.
    while stop > start + 1 && blank(lines[stop - 1]) {
        stop -= 1;
    }
    let moved: String = lines[start..stop]
        .iter()
        .map(|l| format!("{}{l}", " ".repeat(item_indent)))
        .collect::<String>();
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate() {
        if i == end {
            out.push_str(&ensure_newline(&moved));
        }
        if !(start..stop).contains(&i) {
            out.push_str(l);
        }
    }
    if end == lines.len() {
        out.push_str(&ensure_newline(&moved));
    }
    Some((Shape::StrayHistory { lines: start..stop }, out))
}

fn ensure_newline(s: &str) -> String {
    if s.ends_with('\n') {
        s.to_string()
    } else {
        format!("{s}\n")
    }
}

/// Every block that starts with a `key:` line indented deeper than a `key: value` line
/// above it, re-indented to that line's depth.
fn spliced_blocks(lines: &[&str]) -> Vec<(Shape, String)> {
    let mut out = Vec::new();
    let mut prev: Option<usize> = None;
    for i in 0..lines.len() {
        if blank(lines[i]) {
            continue;
        }
        if let Some(p) = prev {
            let (above, here) = (lines[p], lines[i]);
            let (to, from) = (indent(above), indent(here));
            if from > to && scalar_entry(above) && mapping_entry(here) {
                let mut stop = i + 1;
                while stop < lines.len() && (blank(lines[stop]) || indent(lines[stop]) >= from) {
                    stop += 1;
                }
                while stop > i + 1 && blank(lines[stop - 1]) {
                    stop -= 1;
                }
                let text: String = lines
                    .iter()
                    .enumerate()
                    .map(|(j, l)| {
                        if (i..stop).contains(&j) && !blank(l) {
                            l[from - to..].to_string()
                        } else {
                            l.to_string()
                        }
                    })
                    .collect();
                out.push((
                    Shape::SplicedBlock {
                        lines: i..stop,
                        from,
                        to,
                    },
                    text,
                ));
            }
        }
        prev = Some(i);
    }
    out
}

/// `key: value` with a value on the line (not a block scalar or an opening of a block).
fn scalar_entry(line: &str) -> bool {
    let t = line.trim();
    let Some((key, value)) = t.split_once(": ") else {
        return false;
    };
    let v = value.trim();
    !key.is_empty() && !key.starts_with("- ") && !v.is_empty() && !v.starts_with(['|', '>', '#'])
}

/// `key:` or `key: value` (a mapping entry, not a list item or a continuation).
fn mapping_entry(line: &str) -> bool {
    let t = line.trim();
    let key = t.split_once(':').map(|(k, _)| k).unwrap_or("");
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && (t.ends_with(':') || t.contains(": "))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "revision: 3\nworkflow:\n  current_phase: Phase 2B\n  status: IN_PROGRESS\nsub_hypotheses:\n  h-e1:\n    statement: s\n    gate:\n      type: MUST_WORK\n      result: PASS\nhistory:\n- event: one\n  actor: engine\n- event: two\n  actor: engine\nstatistics:\n  total: 2\n";

    #[test]
    fn stray_history_items_go_back_into_history() {
        let broken =
            GOOD.replace("- event: two\n  actor: engine\n", "") + "- event: two\n  actor: engine\n";
        let r = repair(&broken).unwrap().expect("a repair");
        assert!(
            matches!(r.shape, Shape::StrayHistory { .. }),
            "{:?}",
            r.shape
        );
        assert_eq!(r.text, GOOD);
    }

    #[test]
    fn a_block_spliced_too_deep_is_re_indented_to_its_parent() {
        let broken = GOOD.replace(
            "    gate:\n      type: MUST_WORK\n      result: PASS\n",
            "        gate:\n          type: MUST_WORK\n          result: PASS\n",
        );
        let r = repair(&broken).unwrap().expect("a repair");
        assert_eq!(
            r.shape,
            Shape::SplicedBlock {
                lines: 7..10,
                from: 8,
                to: 4
            }
        );
        assert_eq!(r.text, GOOD);
    }

    #[test]
    fn valid_and_unknown_breaks_are_left_alone() {
        assert_eq!(repair(GOOD), Ok(None));
        let e = repair("a: [1, 2\nb: 3\n").unwrap_err();
        assert!(e.to_string().contains("not one of the shapes"), "{e}");
    }
}
