//! The store's read-back of its own write, in time that does not grow with the history.
//!
//! A write is verified by parsing only the sections it touched and grafting them onto the
//! previous parse (`skeleton.rs`, `graft.rs`). The graft leaves the history's items before
//! the last out of the tree, and their typed entries (shared, `history_list.rs`) and
//! warnings are carried from the previous snapshot: at 6 MB of history that was 30–45 ms
//! of copying and re-reading per write, twice per engine step (issue 30). Anything that
//! needs those items as nodes asks for [`Store::whole`].

use std::sync::Arc;

use super::graft::{Grafted, graft};
use super::read::{Warning, read};
use super::skeleton::skeleton;
use super::store::{Snapshot, Store, StoreError};
use crate::yaml::{Document, Splice, parse};

impl Store {
    /// The edited text and its read-back: the touched sections parsed alone and grafted
    /// onto the previous parse when that suffices, else the whole file parsed.
    pub(super) fn apply(&self, old: &Snapshot, splices: &[Splice]) -> Result<Snapshot, StoreError> {
        let t = std::time::Instant::now();
        let new_text =
            Splice::apply(&old.doc.text, splices).map_err(|e| StoreError::Verify(e.to_string()))?;
        self.add_copy(t.elapsed());
        if let Some(skel) = skeleton(&old.doc, splices, old.elided)
            && let Ok(part) = parse(skel.text.as_bytes())
        {
            let Grafted { doc, dropped } = match graft(&old.doc, splices, new_text, &skel, part) {
                Ok(g) => g,
                Err(text) => return self.parse_snapshot(text.as_bytes()),
            };
            let elided = old.elided + dropped;
            let (mut vsa, mut warnings) = read(&doc);
            if elided > 0 {
                let mut history = old.vsa.history.clone();
                history.truncate(elided);
                history.extend(vsa.history.iter().cloned());
                vsa.history = history;
                warnings.extend(carried(old, &doc));
                warnings.sort_by_key(|w| w.line);
            }
            let snap = Snapshot {
                doc,
                vsa,
                warnings,
                elided,
            };
            #[cfg(debug_assertions)]
            check(&snap);
            return Ok(snap);
        }
        self.parse_snapshot(new_text.as_bytes())
    }

    /// `snap` with every history item in its tree: itself, or its text parsed again. For
    /// the rare reader of old items as nodes (a path under `history`, a field-by-field
    /// diff with another copy).
    pub fn whole(&self, snap: &Arc<Snapshot>) -> Result<Arc<Snapshot>, StoreError> {
        if snap.elided == 0 {
            return Ok(Arc::clone(snap));
        }
        self.parse_snapshot(snap.doc.text.as_bytes()).map(Arc::new)
    }
}

/// The lines of the history key, of its list's first item and of its last item.
fn history_lines(doc: &Document) -> Option<(usize, usize, usize)> {
    let (key, list) = doc.root.as_ref()?.entry("history")?;
    let items = list.as_seq()?;
    Some((
        key.pos.line,
        items.first()?.pos.line,
        items.last()?.pos.line,
    ))
}

/// The warnings of `old` about history items `new` leaves out (those between its list's
/// key and its last item), on their lines in `new`: the old last item is `new`'s first.
fn carried<'a>(old: &'a Snapshot, new: &Document) -> impl Iterator<Item = Warning> + 'a {
    let lines = history_lines(&old.doc).zip(history_lines(new));
    old.warnings.iter().filter_map(move |w| {
        let ((key, _, last), (_, first, _)) = lines?;
        if w.line <= key || w.line >= last {
            return None;
        }
        Some(Warning {
            line: w.line.checked_add_signed(first as isize - last as isize)?,
            message: w.message.clone(),
        })
    })
}

/// Debug builds hold every graft to a full parse of the same text: a wrong offset kept in
/// the store's cache would misplace the next write's splices, and a wrong carried entry
/// would mislead every decision read from the history.
#[cfg(debug_assertions)]
fn check(snap: &Snapshot) {
    let full = parse(snap.doc.text.as_bytes()).expect("a grafted text parses");
    let (vsa, _) = read(&full);
    let json = |h: &super::History| serde_json::to_value(h).expect("history serialises");
    assert!(
        json(&vsa.history) == json(&snap.vsa.history),
        "the carried history differs from a full read of:\n{}",
        snap.doc.text
    );
    let elided = super::graft::elide(full, snap.elided).expect("the list holds the elided items");
    assert!(
        elided.root == snap.doc.root,
        "graft (eliding {} history items) differs from a full parse of:\n{}",
        snap.elided,
        snap.doc.text
    );
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::vsa::mutation::{Change, Mutation};
    use crate::vsa::store::{SetRequest, Store};

    fn set<'a>(path: &'a str, value: &'a str) -> SetRequest<'a> {
        SetRequest {
            path,
            value,
            reason: "test",
            actor: "researcher",
            force: false,
            create: true,
            base: None,
        }
    }

    /// A VSA with `n` history items, two of them with a timestamp the reader warns about,
    /// and a section after the history.
    fn long_vsa(dir: &Path, n: usize) -> std::path::PathBuf {
        let mut text = String::from(
            "revision: 3\nworkflow:\n  status: ACTIVE\n  next_action: go\n  steering: []\nhistory:\n",
        );
        for i in 0..n {
            let at = if i == 7 || i == 150 {
                "not a time"
            } else {
                "2026-03-17T17:00:00Z"
            };
            text.push_str(&format!(
                "- event: e{i}\n  timestamp: '{at}'\n  actor: engine\n  reason: |-\n    line one\n    line two\n"
            ));
        }
        text.push_str("statistics:\n  n: 1\n");
        let path = dir.join("verification_state.yaml");
        std::fs::write(&path, text).unwrap();
        path
    }

    /// The store's snapshot after its own writes reads as a fresh store's full read would,
    /// less the history nodes it leaves out.
    fn same_as_a_fresh_read(store: &Store) {
        let kept = store.load().unwrap();
        let fresh = Store::new(store.path()).load().unwrap();
        assert_eq!(fresh.elided, 0);
        let json = |h: &crate::vsa::History| serde_json::to_value(h).unwrap();
        assert_eq!(json(&kept.vsa.history), json(&fresh.vsa.history));
        assert_eq!(kept.warnings, fresh.warnings);
        assert_eq!(kept.doc.text, fresh.doc.text);
        let whole = store.whole(&kept).unwrap();
        assert!(whole.doc.root == fresh.doc.root);
    }

    #[test]
    fn a_write_keeps_the_history_tail_as_nodes_and_every_entry_typed() {
        let dir = tempfile::tempdir().unwrap();
        let path = long_vsa(dir.path(), 300);
        let store = Store::new(&path);
        store.set(&set("workflow.next_action", "first")).unwrap();
        let snap = store.load().unwrap();
        // 299 items left the tree; the old last and the write's own entry remain.
        assert_eq!(snap.elided, 299);
        let items = snap.doc.root.as_ref().unwrap().get("history").unwrap();
        assert_eq!(items.as_seq().unwrap().len(), 2);
        assert_eq!(snap.vsa.history.len(), 301);
        same_as_a_fresh_read(&store);
        // Lines added before the history move its warnings with it; more writes keep
        // leaving out the items before the last.
        for (i, value) in ["a\nb\nc", "x", "one\ntwo"].iter().enumerate() {
            store.set(&set("workflow.next_action", value)).unwrap();
            let m = Mutation::new(
                Change::Append {
                    list: "workflow.breakpoints".into(),
                    item: crate::yaml::NewNode::Scalar(format!("Phase {i}")),
                },
                "field_edit",
                "researcher",
                "test",
            );
            store.mutate(&m).unwrap();
            same_as_a_fresh_read(&store);
        }
        let snap = store.load().unwrap();
        assert_eq!(snap.vsa.history.len(), 307);
        assert!(snap.elided >= 300, "{}", snap.elided);
        assert_eq!(snap.warnings.len(), 2, "{:?}", snap.warnings);
    }

    #[test]
    fn an_outside_edit_after_a_shortened_read_back_is_one_field() {
        let dir = tempfile::tempdir().unwrap();
        let path = long_vsa(dir.path(), 50);
        let store = Store::new(&path);
        store.set(&set("workflow.next_action", "first")).unwrap();
        assert!(store.load().unwrap().elided > 0);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("status: ACTIVE", "status: PAUSED")).unwrap();
        let applied = store.set(&set("workflow.next_action", "second")).unwrap();
        assert_eq!(applied.editor_changes, 1);
        let snap = store.load().unwrap();
        let editor = snap.vsa.history.get(snap.vsa.history.len() - 2).unwrap();
        assert_eq!(editor.actor.as_deref(), Some("editor"));
        same_as_a_fresh_read(&store);
    }
}
