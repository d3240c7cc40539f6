//! A cheap read-back of an edit. Verifying a splice by re-parsing the whole file doubles the
//! cost of a write; the top-level sections of a block-mapping VSA are independent, so the
//! sections the splices touch (and, of the history list, only its tail) are parsed alone.
//! Whenever that is not clearly equivalent, `None` sends the caller to a full parse. The
//! pieces say where each kept range came from, so `graft.rs` can put the parse of the
//! skeleton back into the parse of the whole file.

use crate::yaml::{Document, Node, NodeKind, Splice};

/// The edited file reduced to the sections the splices touch, and where each piece lies.
#[derive(Debug, Clone)]
pub(crate) struct Skeleton {
    pub text: String,
    pub pieces: Vec<Piece>,
}

/// One kept range of the old file: `old..old_end` there, `at..at + len` in the skeleton
/// (with the splices inside it applied), starting on line `old_line` of the old file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    /// The top-level entry it belongs to.
    pub entry: usize,
    pub part: Part,
    pub old: usize,
    pub old_end: usize,
    pub old_line: usize,
    pub at: usize,
    pub len: usize,
}

/// Which part of its entry a piece holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    Whole,
    /// The `history:` key's line; its items but the last are left out.
    HistoryHead,
    /// The history's last item to the end of the section.
    HistoryTail,
}

/// The edited file reduced to the sections `splices` touch, or `None` to parse it whole.
/// `elided`: history items at the head of the list that `old` leaves out (the store's
/// read-back after a write keeps only the tail; see `graft.rs`).
pub fn skeleton(old: &Document, splices: &[Splice], elided: usize) -> Option<Skeleton> {
    let text = old.text.as_str();
    let root = old.root.as_ref()?;
    let NodeKind::Map(entries) = &root.kind else {
        return None;
    };
    // Anchors tie sections together, so they cannot be parsed apart; the parse says
    // whether there were any (scanning 6 MB of text for them cost more than the rest).
    if root.is_flow(text) || entries.iter().any(|(k, _)| k.pos.col != 1) || old.anchored {
        return None;
    }
    let starts: Vec<usize> = entries
        .iter()
        .map(|(k, _)| line_start(text, k.start))
        .collect();
    // (start, end, entry, part, line of start)
    let mut ranges: Vec<(usize, usize, usize, Part, usize)> = Vec::new();
    for (i, (key, value)) in entries.iter().enumerate() {
        let (start, line) = if i == 0 {
            (0, 1)
        } else {
            (starts[i], key.pos.line)
        };
        let end = starts.get(i + 1).copied().unwrap_or(text.len());
        if !splices.iter().any(|s| start <= s.start && s.end <= end) {
            continue;
        }
        match (&value.kind, key.as_str()) {
            (NodeKind::Seq(items), Some("history"))
                if (items.len() > 1 || elided > 0) && !value.is_flow(text) =>
            {
                let last: &Node = items.last()?;
                ranges.push((start, line_end(text, key.start), i, Part::HistoryHead, line));
                ranges.push((
                    line_start(text, last.start),
                    end,
                    i,
                    Part::HistoryTail,
                    last.pos.line,
                ));
            }
            _ => ranges.push((start, end, i, Part::Whole, line)),
        }
    }
    // In the file's order, ties in the order given, as `Splice::apply` takes them: a
    // transaction lists its edits in its own order.
    let mut order: Vec<&Splice> = splices.iter().collect();
    order.sort_by_key(|s| s.start);
    let mut out = String::new();
    let mut pieces = Vec::with_capacity(ranges.len());
    let mut used = 0;
    for (a, b, entry, part, old_line) in ranges {
        let at = out.len();
        let mut cursor = a;
        for s in order.iter().filter(|s| a <= s.start && s.end <= b) {
            if s.start < cursor {
                return None;
            }
            out.push_str(&text[cursor..s.start]);
            out.push_str(&s.text);
            cursor = s.end;
            used += 1;
        }
        out.push_str(&text[cursor..b]);
        pieces.push(Piece {
            entry,
            part,
            old: a,
            old_end: b,
            old_line,
            at,
            len: out.len() - at,
        });
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    // Every splice must have landed in a kept range, once.
    (used == splices.len()).then_some(Skeleton { text: out, pieces })
}

fn line_start(text: &str, pos: usize) -> usize {
    text[..pos].rfind('\n').map_or(0, |i| i + 1)
}

fn line_end(text: &str, pos: usize) -> usize {
    text[pos..].find('\n').map_or(text.len(), |i| pos + i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse;

    const TEXT: &str = "# head\nmetadata:\n  name: x\nworkflow:\n  status: ACTIVE # c\nhistory:\n- event: a\n- event: b\nstatistics:\n  n: 1\n";

    fn at(pat: &str) -> usize {
        TEXT.find(pat).unwrap()
    }

    #[test]
    fn keeps_only_touched_sections_and_the_history_tail() {
        let doc = parse(TEXT.as_bytes()).unwrap();
        let s = at("ACTIVE");
        let h = at("- event: b") + "- event: b".len();
        let splices = vec![
            Splice {
                start: s,
                end: s + 6,
                text: "PAUSED".into(),
            },
            Splice {
                start: h,
                end: h,
                text: "\n- event: c".into(),
            },
            Splice {
                start: TEXT.len(),
                end: TEXT.len(),
                text: "revision: 1\n".into(),
            },
        ];
        let out = skeleton(&doc, &splices, 0).unwrap().text;
        assert_eq!(
            out,
            "workflow:\n  status: PAUSED # c\nhistory:\n- event: b\n- event: c\nstatistics:\n  n: 1\nrevision: 1\n"
        );
        assert!(parse(out.as_bytes()).is_ok());
    }

    #[test]
    fn splices_in_any_order_make_the_same_skeleton() {
        // A transaction lists its edits in its own order: a later field first.
        let doc = parse(TEXT.as_bytes()).unwrap();
        let (s, c) = (at("ACTIVE"), at("# c"));
        let late = Splice {
            start: c,
            end: c + 3,
            text: "# d".into(),
        };
        let early = Splice {
            start: s,
            end: s + 6,
            text: "PAUSED".into(),
        };
        let a = skeleton(&doc, &[late.clone(), early.clone()], 0).expect("a skeleton");
        let b = skeleton(&doc, &[early, late], 0).expect("a skeleton");
        assert_eq!(a.text, b.text);
        assert!(a.text.contains("status: PAUSED # d"), "{}", a.text);
    }

    #[test]
    fn a_broken_splice_shows_in_the_skeleton() {
        let doc = parse(TEXT.as_bytes()).unwrap();
        let s = at("ACTIVE");
        let out = skeleton(
            &doc,
            &[Splice {
                start: s,
                end: s + 6,
                text: "[PAUSED".into(),
            }],
            0,
        )
        .unwrap()
        .text;
        assert!(parse(out.as_bytes()).is_err());
    }

    #[test]
    fn anchors_and_flow_roots_fall_back_to_a_full_parse() {
        let text = "a: &x 1\nb: *x\n";
        let doc = parse(text.as_bytes()).unwrap();
        assert!(
            skeleton(
                &doc,
                &[Splice {
                    start: 6,
                    end: 7,
                    text: "2".into()
                }],
                0
            )
            .is_none()
        );
        let doc = parse(b"{a: 1, b: 2}").unwrap();
        assert!(
            skeleton(
                &doc,
                &[Splice {
                    start: 4,
                    end: 5,
                    text: "3".into()
                }],
                0
            )
            .is_none()
        );
    }
}
