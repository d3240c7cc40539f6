//! The typed read-back of a grafted parse (issue 30, item 4). After a write the store reads
//! the new file's typed [`Vsa`] from the graft (`graft.rs`); reading every history entry
//! again costs as much as the history is long. The graft keeps the old history's items but
//! the last untouched (moved by the lines the splices before them added), so their typed
//! entries are the old snapshot's, with their lines moved; only the rest is read. Whenever
//! that is not clearly the same (a flow or missing history, a warning or a timestamp without
//! a time zone among the kept items, offsets that did not move as one), the file is read
//! whole. Debug builds hold every result to a whole read.

use super::model::HistoryEntry;
use super::model::Vsa;
use super::read::{Warning, read, read_with};
use super::store::Snapshot;
use crate::yaml::{Document, Node};

/// The typed view of `doc`, a graft of an edit of `old.doc`.
pub(super) fn read_grafted(old: &Snapshot, doc: &Document) -> (Vsa, Vec<Warning>) {
    let got = match reused(old, doc) {
        Some(prefix) => read_with(doc, prefix),
        None => read(doc),
    };
    #[cfg(debug_assertions)]
    check(doc, &got);
    got
}

/// A block `history:` list's items.
fn items(doc: &Document) -> Option<&[Node]> {
    let h = doc.root.as_ref()?.get("history")?;
    if h.is_flow(&doc.text) {
        return None;
    }
    h.as_seq()
}

/// The old typed entries of the items the graft kept (all but the old last), their lines
/// moved to the new file; `None` to read the history whole.
fn reused(old: &Snapshot, doc: &Document) -> Option<Vec<HistoryEntry>> {
    let (was, now) = (items(&old.doc)?, items(doc)?);
    let k = was.len().checked_sub(1)?;
    if k == 0 || now.len() < k || old.vsa.history.len() != was.len() {
        return None;
    }
    // The kept items moved as one block: the same shift in bytes and lines at both ends.
    let shift = |i: usize| {
        (
            now[i].start as isize - was[i].start as isize,
            now[i].end as isize - was[i].end as isize,
            now[i].pos.line as isize - was[i].pos.line as isize,
        )
    };
    let (db, de, dl) = shift(0);
    if db != de || shift(k - 1) != (db, db, dl) {
        return None;
    }
    // What the kept items' reading reported (a timestamp that is not one) and what a whole
    // read would count (timestamps without a zone) is not in the typed entries: read whole.
    let (lo, hi) = (was[0].pos.line, was[k].pos.line);
    if old.warnings.iter().any(|w| lo <= w.line && w.line < hi)
        || old.vsa.history[..k]
            .iter()
            .any(|e| e.timestamp.as_ref().is_some_and(|t| t.naive))
    {
        return None;
    }
    old.vsa.history[..k]
        .iter()
        .map(|e| {
            let mut e = e.clone();
            e.line = e.line.checked_add_signed(dl)?;
            Some(e)
        })
        .collect()
}

/// Debug builds hold every read-back to a whole read of the same parse.
#[cfg(debug_assertions)]
fn check(doc: &Document, got: &(Vsa, Vec<Warning>)) {
    let full = read(doc);
    assert!(
        format!("{full:?}") == format!("{got:?}"),
        "the read-back differs from a whole read of:\n{}",
        doc.text
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse;

    const OLD: &str = "revision: 3\nworkflow:\n  status: ACTIVE\nhistory:\n- event: a\n  timestamp: '2026-03-17T17:00:00Z'\n- event: b\n  timestamp: TS\n- event: c\n";

    fn snap(text: &str) -> Snapshot {
        let doc = parse(text.as_bytes()).unwrap();
        let (vsa, warnings) = read(&doc);
        Snapshot { doc, vsa, warnings }
    }

    /// The kept entries when `old` becomes `new` (an added line before the history, an item
    /// appended), checked against a whole read.
    fn kept(old: &str) -> Option<usize> {
        let new = old
            .replace(
                "  status: ACTIVE\n",
                "  status: ACTIVE\n  next_action: go\n",
            )
            .replace("revision: 3", "revision: 4")
            + "- event: d\n";
        let (old, doc) = (snap(old), parse(new.as_bytes()).unwrap());
        let prefix = reused(&old, &doc)?;
        let n = prefix.len();
        assert_eq!(
            format!("{:?}", read_with(&doc, prefix)),
            format!("{:?}", read(&doc))
        );
        Some(n)
    }

    #[test]
    fn kept_entries_are_reused_unless_their_reading_said_something() {
        assert_eq!(kept(&OLD.replace("TS", "'2026-03-17T17:01:00Z'")), Some(2));
        // A timestamp that is not one, or one without a zone: read whole.
        assert_eq!(kept(&OLD.replace("TS", "soon")), None);
        assert_eq!(kept(&OLD.replace("TS", "'2026-03-17T17:01:00'")), None);
        let flow = snap("revision: 3\nhistory: [{event: a}, {event: b}]\n");
        assert!(reused(&flow, &flow.doc).is_none());
    }
}
