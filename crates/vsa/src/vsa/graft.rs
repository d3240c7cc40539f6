//! The parse of a whole file after a write, without parsing it whole. The store verifies an
//! edit by parsing only the sections it touched (`skeleton.rs`); the sections it did not
//! touch are the previous parse's, moved by the bytes and lines the splices before them
//! added. Putting the two together gives the store a parse of the new file to keep, so the
//! next read of a file only youra changed costs a byte comparison, not a parse.
//!
//! The history's items before the last are not carried over: moving (and, while an older
//! snapshot still holds them, copying) 30,000 entries' nodes cost 21–34 ms per write at
//! 6 MB, and nothing reads them from the tree (the typed history keeps every entry; see
//! `Snapshot::elided`). So an engine step's cost stops growing with the history's length
//! (issue 30). The result must equal a full parse less those items; debug builds check
//! that on every write, and `None` (anything unusual) sends the caller to a full parse.

use super::skeleton::{Part, Piece, Skeleton};
use crate::yaml::{Document, Node, NodeKind, Splice};

/// A graft: the new parse, less the history items it left out.
pub(crate) struct Grafted {
    pub doc: Document,
    /// Items of `old`'s history list that `doc`'s list no longer holds (all but the last,
    /// when the write touched the history).
    pub dropped: usize,
}

/// The parse of `new_text` (= `old.text` with `splices` applied), from `old` and `part`,
/// the parse of `skel`; `Err` gives the text back for a full parse.
pub(crate) fn graft(
    old: &Document,
    splices: &[Splice],
    new_text: String,
    skel: &Skeleton,
    part: Document,
) -> Result<Grafted, String> {
    match root(old, splices, new_text.len(), skel, part) {
        Some((root, dropped)) => Ok(Grafted {
            doc: Document {
                text: new_text,
                root: Some(root),
                duplicates: Vec::new(),
                anchored: false,
            },
            dropped,
        }),
        None => Err(new_text),
    }
}

/// The new root node, and how many history items it leaves out.
fn root(
    old: &Document,
    splices: &[Splice],
    new_len: usize,
    skel: &Skeleton,
    part: Document,
) -> Option<(Node, usize)> {
    if !old.duplicates.is_empty() || !part.duplicates.is_empty() || old.anchored || part.anchored {
        return None;
    }
    let old_root = old.root.as_ref()?;
    let NodeKind::Map(old_entries) = &old_root.kind else {
        return None;
    };
    let first_key = old_entries.first().map(|(k, _)| k.start)?;
    if old_root.start != first_key || old_root.end != old.text.len() {
        return None;
    }
    let part_root = part.root?;
    let NodeKind::Map(part_entries) = part_root.kind else {
        return None;
    };
    let map = Mapper::new(old, splices, skel);
    // Skeleton entries by the piece their key lies in.
    let mut by_piece: Vec<Vec<(Node, Node)>> = vec![Vec::new(); skel.pieces.len()];
    for (k, v) in part_entries {
        let p = map.piece_of(k.start)?;
        by_piece[p].push((k, v));
    }
    let mut entries = Vec::with_capacity(old_entries.len() + 1);
    let mut dropped = 0;
    let mut pi = 0;
    for (i, (k, v)) in old_entries.iter().enumerate() {
        let here: Vec<usize> = (pi..skel.pieces.len())
            .take_while(|&p| skel.pieces[p].entry == i)
            .collect();
        pi += here.len();
        match here.as_slice() {
            [] => {
                let (db, dl) = map.shift(k.start);
                let (mut k, mut v) = (k.clone(), v.clone());
                move_node(&mut k, db, dl);
                move_node(&mut v, db, dl);
                entries.push((k, v));
            }
            [p] if skel.pieces[*p].part == Part::Whole => {
                for (k, v) in std::mem::take(&mut by_piece[*p]) {
                    entries.push(map.entry(*p, k, v)?);
                }
            }
            [h, t]
                if skel.pieces[*h].part == Part::HistoryHead
                    && skel.pieces[*t].part == Part::HistoryTail =>
            {
                let mut head = std::mem::take(&mut by_piece[*h]);
                if head.len() != 1 {
                    return None;
                }
                let (hk, hv) = head.pop()?;
                let (entry, n) = history(&map, (*h, *t), v, hk, hv)?;
                entries.push(entry);
                dropped = n;
                for (k, v) in std::mem::take(&mut by_piece[*t]) {
                    entries.push(map.entry(*t, k, v)?);
                }
            }
            _ => return None,
        }
    }
    if pi != skel.pieces.len() || by_piece.iter().any(|b| !b.is_empty()) {
        return None;
    }
    let mut keys: Vec<&str> = entries.iter().filter_map(|(k, _)| k.as_str()).collect();
    keys.sort_unstable();
    if keys.len() != entries.len() || keys.windows(2).any(|w| w[0] == w[1]) {
        return None;
    }
    let (start, pos) = (entries[0].0.start, entries[0].0.pos);
    let root = Node {
        kind: NodeKind::Map(entries),
        start,
        end: new_len,
        pos,
    };
    Some((root, dropped))
}

/// The history entry, holding the tail's items as the skeleton read them (the old last
/// item and the appended ones), and how many old items before them it leaves out.
fn history(
    map: &Mapper<'_>,
    (h, t): (usize, usize),
    old_value: &Node,
    key: Node,
    value: Node,
) -> Option<((Node, Node), usize)> {
    let NodeKind::Seq(old_items) = &old_value.kind else {
        return None;
    };
    let NodeKind::Seq(tail) = value.kind else {
        return None;
    };
    let (db, dl) = map.shift(map.skel.pieces[h].old);
    let dropped = old_items.len().checked_sub(1)?;
    let mut items: Vec<Node> = Vec::with_capacity(tail.len());
    for n in tail {
        if map.piece_of(n.start)? != t {
            return None;
        }
        items.push(map.node(t, n)?);
    }
    let mut start = old_value.start;
    let mut pos = old_value.pos;
    start = start.checked_add_signed(db)?;
    pos.line = pos.line.checked_add_signed(dl)?;
    let end = map.end(value.end)?;
    let key = map.node(h, key)?;
    Some((
        (
            key,
            Node {
                kind: NodeKind::Seq(items),
                start,
                end,
                pos,
            },
        ),
        dropped,
    ))
}

/// Offsets and lines from the skeleton's coordinates and the old file's to the new file's.
struct Mapper<'a> {
    splices: Vec<(usize, isize, isize)>,
    skel: &'a Skeleton,
    /// Per piece: its start in the new file, its first line there, its first line in the skeleton.
    origin: Vec<(usize, usize, usize)>,
}

impl<'a> Mapper<'a> {
    fn new(old: &Document, splices: &[Splice], skel: &'a Skeleton) -> Mapper<'a> {
        let lines = |s: &str| s.bytes().filter(|&b| b == b'\n').count() as isize;
        let mut splices: Vec<(usize, isize, isize)> = splices
            .iter()
            .map(|s| {
                let removed = &old.text[s.start..s.end];
                (
                    s.start,
                    s.text.len() as isize - removed.len() as isize,
                    lines(&s.text) - lines(removed),
                )
            })
            .collect();
        splices.sort_by_key(|s| s.0);
        let mut m = Mapper {
            splices,
            skel,
            origin: Vec::new(),
        };
        let mut skel_line = 1;
        let mut last = 0;
        for p in &skel.pieces {
            skel_line += skel.text[last..p.at]
                .bytes()
                .filter(|&b| b == b'\n')
                .count();
            last = p.at;
            let (db, dl) = m.shift(p.old);
            m.origin.push((
                p.old.saturating_add_signed(db),
                p.old_line.saturating_add_signed(dl),
                skel_line,
            ));
        }
        m
    }

    /// Bytes and lines the splices strictly before old offset `x` added.
    fn shift(&self, x: usize) -> (isize, isize) {
        self.splices
            .iter()
            .take_while(|s| s.0 < x)
            .fold((0, 0), |(b, l), s| (b + s.1, l + s.2))
    }

    fn piece(&self, p: usize) -> &Piece {
        &self.skel.pieces[p]
    }

    /// The piece holding skeleton offset `x` (a node's start).
    fn piece_of(&self, x: usize) -> Option<usize> {
        self.skel
            .pieces
            .iter()
            .position(|p| p.at <= x && x < p.at + p.len)
    }

    /// A skeleton end offset in the new file: the piece it closes (a block ends where the
    /// next piece begins, as it ends where the next section begins in the whole file).
    fn end(&self, x: usize) -> Option<usize> {
        let p = self
            .skel
            .pieces
            .iter()
            .position(|p| p.at < x && x <= p.at + p.len + 1)?;
        let piece = self.piece(p);
        Some(self.origin[p].0 + (x - piece.at).min(piece.len))
    }

    fn entry(&self, p: usize, k: Node, v: Node) -> Option<(Node, Node)> {
        Some((self.node(p, k)?, self.node(p, v)?))
    }

    /// A node the skeleton read inside piece `p`, in the new file's coordinates.
    fn node(&self, p: usize, mut n: Node) -> Option<Node> {
        let piece = *self.piece(p);
        let (at, line, skel_line) = self.origin[p];
        let mut ok = true;
        walk(&mut n, &mut |n| {
            if n.start < piece.at || n.start > piece.at + piece.len || n.pos.line < skel_line {
                ok = false;
                return;
            }
            n.start = at + (n.start - piece.at);
            n.end = at + (n.end.max(piece.at) - piece.at).min(piece.len);
            n.pos.line = line + (n.pos.line - skel_line);
        });
        ok.then_some(n)
    }
}

fn walk(n: &mut Node, f: &mut impl FnMut(&mut Node)) {
    f(n);
    match &mut n.kind {
        NodeKind::Scalar(_) => {}
        NodeKind::Seq(items) => items.iter_mut().for_each(|c| walk(c, f)),
        NodeKind::Map(entries) => entries.iter_mut().for_each(|(k, v)| {
            walk(k, f);
            walk(v, f);
        }),
    }
}

/// Move an untouched subtree by `db` bytes and `dl` lines.
fn move_node(n: &mut Node, db: isize, dl: isize) {
    if db == 0 && dl == 0 {
        return;
    }
    walk(n, &mut |n| {
        n.start = n.start.saturating_add_signed(db);
        n.end = n.end.saturating_add_signed(db);
        n.pos.line = n.pos.line.saturating_add_signed(dl);
    });
}

/// `doc` less the first `n` items of its top-level history list: what a read-back that
/// leaves them out must equal. Only the debug build's check (`read_back.rs`) and the tests
/// compare against it, so a release build does not compile it (no dead-code warning).
#[cfg(any(test, debug_assertions))]
pub(crate) fn elide(mut doc: Document, n: usize) -> Option<Document> {
    if n == 0 {
        return Some(doc);
    }
    let NodeKind::Map(entries) = &mut doc.root.as_mut()?.kind else {
        return None;
    };
    let (_, list) = entries
        .iter_mut()
        .find(|(k, _)| k.as_str() == Some("history"))?;
    let NodeKind::Seq(items) = &mut list.kind else {
        return None;
    };
    if n >= items.len() {
        return None;
    }
    items.drain(..n);
    Some(doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vsa::skeleton::skeleton;
    use crate::yaml::parse;

    const TEXT: &str = "# head\nrevision: 3\nmetadata:\n  name: x\nworkflow:\n  status: ACTIVE # c\n  steering: []\nhistory:\n- event: a\n  n: 1\n- event: b\n  n: 2\n- event: c\nstatistics:\n  n: 1\n";

    fn splice(pat: &str, len: usize, text: &str) -> Splice {
        let at = TEXT.find(pat).unwrap();
        Splice {
            start: at,
            end: at + len,
            text: text.into(),
        }
    }

    /// The graft of `splices` equals a full parse of the edited text, and it happened.
    fn grafts(splices: &[Splice]) {
        let old = parse(TEXT.as_bytes()).unwrap();
        let new_text = Splice::apply(TEXT, splices).unwrap();
        let skel = skeleton(&old, splices, 0).unwrap_or_else(|| panic!("a skeleton: {splices:?}"));
        let part = parse(skel.text.as_bytes()).unwrap();
        let g = graft(&old, splices, new_text.clone(), &skel, part).expect("grafted");
        let full = elide(parse(new_text.as_bytes()).unwrap(), g.dropped).unwrap();
        assert_eq!(g.doc.root, full.root, "{new_text}");
        assert_eq!(g.doc.text, full.text);
    }

    #[test]
    fn a_graft_is_the_full_parse() {
        // Where the store appends: the end of the last item's content.
        let end_of_history = TEXT.find("- event: c").unwrap() + "- event: c".len();
        let history_item = |t: &str| Splice {
            start: end_of_history,
            end: end_of_history,
            text: t.into(),
        };
        let table: Vec<Vec<Splice>> = vec![
            vec![splice("3\n", 1, "4")],
            vec![splice("3\n", 1, "10"), splice("ACTIVE", 6, "PAUSED")],
            vec![
                splice("ACTIVE", 6, "PAUSED"),
                history_item("\n- event: d\n  reason: |-\n    two\n    lines"),
            ],
            vec![
                splice("3\n", 1, "4"),
                splice("x\n", 1, "'a longer name'"),
                history_item("\n- event: d"),
            ],
            vec![splice(
                "statistics:\n  n: 1\n",
                19,
                "statistics:\n  n: 1\n  m: [1, 2]\n",
            )],
            vec![splice("[]", 2, "\n  - id: d-1\n    text: go")],
        ];
        for splices in &table {
            grafts(splices);
        }
    }
}
