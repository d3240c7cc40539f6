//! The file as a transaction would leave it, without writing it. A decision that must land
//! in the same atomic write as the transaction it follows (the Independent Controller's
//! next step, chosen among the steps the completed stage makes legal) is taken from this
//! read-back; the real write then re-plans everything under the lock.

use super::mutation::{Mutation, plan};
use super::outside::Outside;
use super::store::{Snapshot, Store, StoreError};

impl Store {
    /// `m` applied to the file as it stands now, read back: no lock, no write, no history
    /// of its own. An edit that would fail fails here the same way.
    pub fn preview(&self, m: &Mutation) -> Result<Snapshot, StoreError> {
        let work = self.load()?;
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
        let (_, after, _) = self.build(&work, m, &planned, &Outside::default(), revision)?;
        Ok(after)
    }
}

#[cfg(test)]
mod tests {
    use crate::vsa::mutation::{Change, Mutation};
    use crate::vsa::store::Store;

    #[test]
    fn a_preview_reads_back_the_change_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("verification_state.yaml");
        std::fs::write(&path, "revision: 3\nworkflow:\n  status: ACTIVE\n").unwrap();
        let store = Store::new(&path);
        let m = Mutation::new(
            Change::Set {
                path: "workflow.status".into(),
                value: "PAUSED".into(),
            },
            "engine",
            "engine",
            "preview",
        );
        let after = store.preview(&m).unwrap();
        assert_eq!(after.vsa.revision, 4);
        assert_eq!(
            after.vsa.workflow.status,
            Some(crate::vsa::enums::WorkflowStatus::Paused)
        );
        let on_disk = std::fs::read_to_string(&path).unwrap();
        assert_eq!(on_disk, "revision: 3\nworkflow:\n  status: ACTIVE\n");
    }
}
