//! Writes youra did not make. Under the store's lock, before a transaction, the file is
//! compared with what youra last wrote (`.youra/last_written.yaml`):
//! - a hand edit at youra's revision (or a higher one) is described field by field in an
//!   `editor` history entry;
//! - a stale save, an older copy written back over youra's newer writes (an editor buffer
//!   loaded at revision N, saved after youra wrote N+1…M; a `sed -i` racing the engine),
//!   is merged three ways from youra's copy of revision N (`.youra/written/N.yaml`): youra's
//!   writes since N come back, the outside writer's own changes stay, and a field both
//!   changed keeps the outside value and is reported as a conflict (history entry
//!   `stale_save` with `conflicts:`; the TUI shows a banner). Nothing is lost silently, and
//!   the revision never moves backwards.

use std::sync::Arc;

use super::diff::{self, Change as FieldChange};
use super::history::{editor_entry, stale_entry};
use super::merge::merge3;
use super::read::Snapshot;
use super::store_core::{LAST_WRITTEN, Store};
use crate::yaml::NewNode;

/// What the outside writer did, for the transaction that follows.
#[derive(Debug, Clone, Default)]
pub struct Outside {
    /// The reconciled file, when a stale save was merged.
    pub merged: Option<Arc<Snapshot>>,
    /// The history entry describing it.
    pub entry: Option<NewNode>,
    /// Fields the outside writer changed.
    pub changes: usize,
    /// Fields youra had set that the outside write reverted and the merge could not bring
    /// back (both sides changed them).
    pub conflicts: Vec<String>,
    /// The revision the next write must exceed: the highest youra has written.
    pub floor: u64,
    /// A write a kill interrupted before it reached the file (its revision, and the one
    /// the file kept): the next write records it (`journal.rs`).
    pub rolled_back: Option<(u64, u64)>,
}

/// Whether `a` and `b` name the same field or one lies inside the other.
pub(crate) fn overlaps(a: &str, b: &str) -> bool {
    let inside = |x: &str, y: &str| {
        y.len() > x.len() && y.starts_with(x) && matches!(y.as_bytes()[x.len()], b'.' | b'[')
    };
    a == b || inside(a, b) || inside(b, a)
}

impl Store {
    pub(super) fn outside(&self, bytes: &[u8], snap: &Arc<Snapshot>) -> Outside {
        let none = Outside {
            floor: snap.vsa.revision,
            ..Outside::default()
        };
        // The file is youra's own last write and its copy is untouched: nothing to read.
        // The caller has just put `bytes` in the cache (`Store::cached`), so the cache's
        // bytes need no second comparison (6 MB of `memcmp` on a long study's VSA).
        if self.own_last(None).is_some() {
            return none;
        }
        let Ok(last) = crate::fsutil::read_run_file(self.side().join(LAST_WRITTEN)) else {
            return none;
        };
        if last == bytes {
            return none;
        }
        let Ok(before) = self.parse_snapshot(&last) else {
            return none;
        };
        // Compared field by field, history included: every item as a node.
        let Ok(snap) = self.whole(snap) else {
            return none;
        };
        let snap = &snap;
        let (n, m) = (snap.vsa.revision, before.vsa.revision);
        if n >= m {
            let changes = diff::changes(before.doc.root.as_ref(), snap.doc.root.as_ref());
            return Outside {
                entry: (!changes.is_empty()).then(|| editor_entry(n, &changes)),
                changes: changes.len(),
                ..none
            };
        }
        let base =
            crate::fsutil::read_run_file(self.side().join("written").join(format!("{n}.yaml")))
                .ok()
                .and_then(|b| self.parse_snapshot(&b).ok())
                .filter(|b| b.vsa.revision == n);
        let merged = base.as_ref().and_then(|b| {
            let text = merge3(&b.doc.text, &before.doc.text, &snap.doc.text).text;
            self.parse_snapshot(text.as_bytes()).ok().map(Arc::new)
        });
        let result = merged.as_ref().unwrap_or(snap);
        let changes: Vec<FieldChange> =
            diff::changes(before.doc.root.as_ref(), result.doc.root.as_ref())
                .into_iter()
                .filter(|c| c.path != "revision")
                .collect();
        // What youra wrote after N: from the base copy, or (without it) from the history
        // entries of the revisions the stale save dropped.
        let youra: Vec<String> = match &base {
            Some(b) => diff::changes(b.doc.root.as_ref(), before.doc.root.as_ref())
                .into_iter()
                .map(|c| c.path)
                .collect(),
            None => before
                .vsa
                .history
                .iter()
                .filter(|h| h.revision.is_some_and(|r| r > n))
                .filter_map(|h| h.path.clone())
                .collect(),
        };
        let conflicts: Vec<&FieldChange> = changes
            .iter()
            .filter(|c| c.path != "revision" && !c.path.starts_with("history"))
            .filter(|c| youra.iter().any(|y| overlaps(y, &c.path)))
            .collect();
        let entry = stale_entry(n, m, merged.is_some(), &changes, &conflicts);
        Outside {
            entry: Some(entry),
            changes: changes.len(),
            conflicts: conflicts.iter().map(|c| c.path.clone()).collect(),
            floor: m,
            merged,
            rolled_back: None,
        }
    }
}
