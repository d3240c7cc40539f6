//! The file as a transaction would leave it, without writing it. A decision that must land
//! in the same atomic write as the transaction it follows (the Independent Controller's
//! next step, chosen among the steps the completed stage makes legal) is taken from this
//! read-back; the real write then re-plans everything under the lock.
//!
//! The read-back leaves out the history's items but the last (the transaction's own
//! entries follow it): what a decision reads is the state, and a read-back of the whole
//! history cost a copy and a read of all of it per stage end (27 ms at 6 MB; issue 30).

use std::sync::Arc;

use super::mutation::{Mutation, plan};
use super::outside::Outside;
use super::store::{Snapshot, Store, StoreError};

impl Store {
    /// `m` applied to the file as it stands now, read back: no lock, no write, no history
    /// of its own, and of the file's history only its last entry. An edit that would fail
    /// fails here the same way.
    pub fn preview(&self, m: &Mutation) -> Result<Snapshot, StoreError> {
        let full = self.load()?;
        let work = match self.without_history(&full) {
            Some(short) => Arc::new(short),
            None => full,
        };
        let ids: Vec<String> = work
            .vsa
            .sub_hypotheses
            .iter()
            .map(|h| h.id.clone())
            .collect();
        let mut planned = Vec::with_capacity(m.edits.len());
        for edit in &m.edits {
            let p = plan(&work.doc, edit, m.create, &ids).map_err(|e| self.edit_err(e))?;
            planned.push((edit, p));
        }
        let revision = work.vsa.revision + 1;
        let (after, _) = self.build(&work, m, &planned, &Outside::default(), revision)?;
        Ok(after)
    }

    /// `full` without its history's items but the last, parsed; `None` when the history
    /// is short, not a block list, or the cut text does not read as the same top level.
    fn without_history(&self, full: &Snapshot) -> Option<Snapshot> {
        let text = full.doc.text.as_str();
        let entries = full.doc.root.as_ref()?.as_map()?;
        let (key, value) = entries
            .iter()
            .find(|(k, _)| k.as_str() == Some("history"))?;
        let items = value.as_seq()?;
        if value.is_flow(text) {
            return None;
        }
        // From the line after the key to the last item's: this also cuts the items a
        // read-back after a write leaves out of the tree (`Snapshot::elided`), so the cut
        // text is the state and one item, however long the history.
        let line_start = |at: usize| text[..at].rfind('\n').map_or(0, |i| i + 1);
        let a = text[key.start..].find('\n').map(|i| key.start + i + 1)?;
        let b = line_start(items.last()?.start);
        if a >= b {
            return None;
        }
        let mut cut = String::with_capacity(text.len() - (b - a));
        cut.push_str(&text[..a]);
        cut.push_str(&text[b..]);
        let short = self.parse_snapshot(cut.as_bytes()).ok()?;
        let kept = short.doc.root.as_ref()?.as_map()?;
        let same = kept.len() == entries.len()
            && kept
                .iter()
                .zip(entries)
                .all(|((k, _), (j, _))| k.as_str() == j.as_str())
            && short.vsa.history.len() == 1
            && short.vsa.revision == full.vsa.revision;
        same.then_some(short)
    }
}

#[cfg(test)]
mod tests {
    use crate::vsa::mutation::{Change, Mutation};
    use crate::vsa::store::Store;

    fn pause() -> Mutation {
        Mutation::new(
            Change::Set {
                path: "workflow.status".into(),
                value: "PAUSED".into(),
            },
            "engine",
            "engine",
            "preview",
        )
    }

    #[test]
    fn a_preview_reads_back_the_change_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("verification_state.yaml");
        std::fs::write(&path, "revision: 3\nworkflow:\n  status: ACTIVE\n").unwrap();
        let after = Store::new(&path).preview(&pause()).unwrap();
        assert_eq!(after.vsa.revision, 4);
        assert_eq!(
            after.vsa.workflow.status,
            Some(crate::vsa::enums::WorkflowStatus::Paused)
        );
        let on_disk = std::fs::read_to_string(&path).unwrap();
        assert_eq!(on_disk, "revision: 3\nworkflow:\n  status: ACTIVE\n");
    }

    #[test]
    fn a_preview_of_a_long_history_keeps_its_last_entry_and_the_state() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("verification_state.yaml");
        let mut text = String::from("revision: 3\nworkflow:\n  status: ACTIVE\nhistory:\n");
        for i in 0..50 {
            text.push_str(&format!("- event: e{i}\n  actor: engine\n"));
        }
        text.push_str("phases:\n  scoping:\n    status: COMPLETED\n");
        std::fs::write(&path, &text).unwrap();
        let after = Store::new(&path).preview(&pause()).unwrap();
        assert_eq!(after.vsa.revision, 4);
        let events: Vec<_> = after
            .vsa
            .history
            .iter()
            .filter_map(|h| h.event.as_deref())
            .collect();
        assert_eq!(events, ["e49", "engine"]);
        let phases = after.doc.root.as_ref().unwrap().get("phases").unwrap();
        assert!(phases.get("scoping").is_some());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }
}
