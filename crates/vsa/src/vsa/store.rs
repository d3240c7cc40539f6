//! The store: the one way youra writes a VSA. Writers take an advisory lock, re-read, check
//! the revision, apply a lossless edit, bump the revision, append history, and replace the
//! file atomically (temp file, fsync, rename, directory fsync). A file that does not parse
//! is never overwritten.

use std::sync::Arc;

use super::edit::{EditError, plan_history_append_all, plan_revision};
use super::history::change_entry;
use super::identity::FileKey;
pub use super::identity::{Conventions, conventions_of};
use super::invariants::{Invariant, Violation, introduced};
use super::journal::{Recovered, recovered_entry};
pub use super::lock::NOTICES_ON_STDERR;
use super::mutation::{Change, Check, Edit, Mutation, Planned, plan};
use super::outside::{Outside, overlaps};
use super::path::{Resolved, VsaPath, resolve};
pub use super::read::Snapshot;
use super::read::read;
pub use super::store_core::{Base, Store, StoreError};
use super::store_core::{Cached, LAST_WRITTEN, io, revision_line};
use crate::yaml::{Document, Splice, parse};

#[derive(Debug, Clone)]
pub struct SetRequest<'a> {
    pub path: &'a str,
    pub value: &'a str,
    pub reason: &'a str,
    pub actor: &'a str,
    pub force: bool,
    /// Add the field (and missing parents) when it does not exist.
    pub create: bool,
    pub base: Option<Base>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    pub revision: u64,
    pub old: Option<String>,
    pub new: Option<String>,
    /// Invariant violations that `force` overrode (recorded in the history entry).
    pub forced: Vec<Violation>,
    /// Fields a hand edit had changed since youra's last write (recorded as `editor`).
    pub editor_changes: usize,
    /// The file moved on since the caller's base but not at this path: re-applied.
    pub rebased: bool,
    /// The value already held what was asked: nothing written.
    pub unchanged: bool,
    /// Fields a stale save reverted that youra could not bring back (see `outside.rs`).
    pub conflicts: Vec<String>,
}

/// Whether the edits' splices can go into the file in one pass: different fields, and no
/// two edits touching the same bytes or inserting at the same point.
fn disjoint(planned: &[(&Edit, Planned)]) -> bool {
    for (i, (a, _)) in planned.iter().enumerate() {
        if planned[i + 1..]
            .iter()
            .any(|(b, _)| overlaps(a.change.path(), b.change.path()))
        {
            return false;
        }
    }
    let mut spans: Vec<(usize, usize, usize)> = planned
        .iter()
        .enumerate()
        .flat_map(|(i, (_, p))| p.splices.iter().map(move |s| (s.start, s.end, i)))
        .collect();
    spans.sort_unstable();
    spans
        .windows(2)
        .all(|w| w[0].2 == w[1].2 || (w[1].0 >= w[0].1 && w[1].0 != w[0].0))
}

/// Whether the read-back shows the change.
fn holds(after: &Snapshot, check: &Check) -> bool {
    let Some(root) = after.doc.root.as_ref() else {
        return false;
    };
    let found = |p: &VsaPath| match resolve(root, p) {
        Ok(Resolved::Found(n)) => Some(n),
        _ => None,
    };
    match check {
        Check::Value(p, v) => {
            found(p).is_some_and(|n| super::read_gate::scalar_text(Some(n)) == *v)
        }
        Check::ListLen(p, len) => found(p).map_or(*len == 0, |n| {
            n.as_seq()
                .map_or(n.is_null() && *len == 0, |s| s.len() == *len)
        }),
        Check::Exists(p) => found(p).is_some(),
    }
}

impl Store {
    pub(super) fn parse_snapshot(&self, bytes: &[u8]) -> Result<Snapshot, StoreError> {
        self.snapshot(bytes)
    }

    pub fn load(&self) -> Result<Arc<Snapshot>, StoreError> {
        // The identity before the bytes: a change between the two shows at the next read.
        let key = FileKey::of(&self.path);
        if let Some(key) = key
            && let Some(c) = self
                .cache
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .as_ref()
            && c.key == Some(key)
        {
            return Ok(Arc::clone(&c.snap));
        }
        let bytes = crate::fsutil::read_vsa_file(&self.path).map_err(io("read", &self.path))?;
        self.cached(&bytes, key).map(|(snap, _)| snap)
    }

    /// The snapshot of `bytes` (read when the file had identity `key`), parsed unless they
    /// are what this store last saw, and their conventions.
    fn cached(
        &self,
        bytes: &[u8],
        key: Option<FileKey>,
    ) -> Result<(Arc<Snapshot>, Conventions), StoreError> {
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        // Reading the file is only done when comparing its bytes: the two are one I/O cost.
        let t = std::time::Instant::now();
        let same = cache.as_ref().is_some_and(|c| c.bytes() == bytes);
        self.add_io(t.elapsed());
        if same && let Some(c) = cache.as_mut() {
            c.key = key;
            return Ok((Arc::clone(&c.snap), c.conv));
        }
        let snap = Arc::new(self.snapshot(bytes)?);
        let conv = conventions_of(bytes);
        *cache = Some(Cached {
            bytes: (snap.doc.text.as_bytes() != bytes).then(|| bytes.to_vec()),
            snap: Arc::clone(&snap),
            conv,
            key,
            own: None,
        });
        Ok((snap, conv))
    }

    fn snapshot(&self, bytes: &[u8]) -> Result<Snapshot, StoreError> {
        let doc = parse(bytes).map_err(|err| StoreError::Parse {
            path: self.path.clone(),
            err,
        })?;
        let (vsa, warnings) = read(&doc);
        Ok(Snapshot {
            doc,
            vsa,
            warnings,
            elided: 0,
        })
    }

    /// Set one field, with a history entry and a revision bump, under the lock.
    pub fn set(&self, req: &SetRequest<'_>) -> Result<Applied, StoreError> {
        let change = Change::Set {
            path: req.path.to_string(),
            value: req.value.to_string(),
        };
        let mut m = Mutation::new(change, "field_edit", req.actor, req.reason);
        m.force = req.force;
        m.create = req.create;
        m.base = req.base.clone();
        self.mutate(&m)
    }

    /// Apply a transaction under the lock: plan every edit, record each in the history,
    /// read back, check invariants, write once with one new revision.
    pub fn mutate(&self, m: &Mutation) -> Result<Applied, StoreError> {
        self.mutate_with(|_| Ok::<_, StoreError>((m.clone(), ())))
            .map(|(applied, ())| applied)
    }

    /// Decide the change from the file as it stands under the lock, then apply it as
    /// [`Store::mutate`] does; `decide` may return what it learnt alongside. For changes
    /// that depend on the current state (a directive's id, whether an escalation is still
    /// undecided): deciding from an earlier read would race another writer. A stale save
    /// found under the lock is merged first, so `decide` sees the reconciled file.
    pub fn mutate_with<T, E: From<StoreError>>(
        &self,
        decide: impl FnOnce(&Snapshot) -> Result<(Mutation, T), E>,
    ) -> Result<(Applied, T), E> {
        let _lock = self.lock()?;
        // Under the lock the bytes are always read and compared: a write never trusts the
        // file's identity alone.
        let key = FileKey::of(&self.path);
        let t = std::time::Instant::now();
        let bytes = crate::fsutil::read_vsa_file(&self.path).map_err(io("read", &self.path))?;
        self.add_io(t.elapsed());
        let recovered = self.recover(&bytes);
        let (snap, conv) = self.cached(&bytes, key)?;
        let mut outside = self.outside(&bytes, &snap);
        drop(bytes);
        if let Some(Recovered::RolledBack { n, kept }) = recovered {
            outside.rolled_back = Some((n, kept));
        }
        let work = outside.merged.clone().unwrap_or(snap);
        let (m, extra) = decide(&work)?;
        Ok((self.mutate_locked(&work, outside, &m, conv)?, extra))
    }

    /// The file as the engine should decide from it: a stale save (an older copy written
    /// back over youra's newer writes) is reconciled on the spot, with its history entry,
    /// before anyone acts on the reverted values.
    pub fn load_reconciled(&self) -> Result<Arc<Snapshot>, StoreError> {
        let snap = self.load()?;
        if self
            .last_revision()
            .is_some_and(|last| last > snap.vsa.revision)
        {
            self.mutate(&Mutation::by("engine"))?;
            return self.load();
        }
        Ok(snap)
    }

    fn last_revision(&self) -> Option<u64> {
        if let Some(revision) = self.own_last(None) {
            return Some(revision);
        }
        let text = crate::fsutil::read_run_file(self.side.join(LAST_WRITTEN)).ok()?;
        revision_line(&text)
    }

    fn mutate_locked(
        &self,
        work: &Snapshot,
        outside: Outside,
        m: &Mutation,
        conv: Conventions,
    ) -> Result<Applied, StoreError> {
        // A path under `history` would index the read-back's shortened list.
        let whole;
        let work =
            if work.elided > 0 && m.edits.iter().any(|e| overlaps("history", e.change.path())) {
                whole = self.parse_snapshot(work.doc.text.as_bytes())?;
                &whole
            } else {
                work
            };
        let ids: Vec<String> = work
            .vsa
            .sub_hypotheses
            .iter()
            .map(|h| h.id.clone())
            .collect();
        let mut applied = Applied {
            revision: work.vsa.revision,
            old: None,
            new: None,
            forced: Vec::new(),
            editor_changes: outside.changes,
            rebased: false,
            unchanged: false,
            conflicts: outside.conflicts.clone(),
        };
        let mut planned = Vec::new();
        for (i, edit) in m.edits.iter().enumerate() {
            let p = plan(&work.doc, edit, m.create, &ids).map_err(|e| self.edit_err(e))?;
            if i == 0 {
                applied.rebased = self.check_base(work, &p.path, m)?;
                applied.old.clone_from(&p.old);
                applied.new.clone_from(&p.new);
            }
            let same =
                matches!(edit.change, Change::Set { .. }) && p.old == p.new && p.old.is_some();
            if !same {
                planned.push((edit, p));
            }
        }
        if planned.is_empty() && outside.entry.is_none() && outside.rolled_back.is_none() {
            applied.unchanged = true;
            return Ok(applied);
        }
        applied.revision = work.vsa.revision.max(outside.floor) + 1;
        let (after, forced) = self.build(work, m, &planned, &outside, applied.revision)?;
        applied.forced = forced;
        let written = self.write(&after.doc.text, applied.revision, conv)?;
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        // Keyed by the bytes as written (BOM, CRLF) and the file's identity after the
        // rename: the parse survives the store's own write and nobody else's.
        *cache = Some(Cached {
            bytes: written.bytes,
            snap: Arc::new(after),
            conv,
            key: written.key,
            own: written.last.map(|k| (applied.revision, k)),
        });
        Ok(applied)
    }

    pub(super) fn edit_err(&self, source: EditError) -> StoreError {
        StoreError::Edit {
            path: self.path.clone(),
            source,
        }
    }

    /// The read-back of the new text (its `doc.text`), with the invariant violations
    /// `force` overrode.
    /// All edits are spliced into the file in one pass when their splices are disjoint;
    /// otherwise (a later edit inside an earlier one's value, two new keys under one new
    /// parent) they are applied one after another on re-parsed text.
    pub(super) fn build(
        &self,
        work: &Snapshot,
        m: &Mutation,
        planned: &[(&Edit, Planned)],
        outside: &Outside,
        revision: u64,
    ) -> Result<(Snapshot, Vec<Violation>), StoreError> {
        let one_pass = disjoint(planned);
        let attempt = |forced: &[Violation]| -> Result<Snapshot, StoreError> {
            if one_pass {
                let splices = self.splices(&work.doc, m, planned, outside, revision, forced)?;
                let after = self.apply(work, &splices)?;
                if planned.iter().all(|(_, p)| holds(&after, &p.check)) {
                    return Ok(after);
                }
            }
            self.one_by_one(work, m, outside, revision, forced)
        };
        let mut after = attempt(&[])?;
        let violations = introduced(&work.vsa, &after.vsa);
        let mut forced = Vec::new();
        if !violations.is_empty() {
            // An unsafe id would become a path outside the run: `--force` cannot allow it.
            if !m.force || violations.iter().any(|v| v.invariant == Invariant::SafeId) {
                return Err(StoreError::Invariant { violations });
            }
            after = attempt(&violations)?;
            forced = violations;
        }
        if after.vsa.revision != revision {
            return Err(StoreError::Verify(format!(
                "revision reads {} instead of {revision}",
                after.vsa.revision
            )));
        }
        Ok((after, forced))
    }

    /// History entries (the outside writer's first), the edits, and the revision, as splices
    /// of `doc`. History comes first: when an edit adds a key at the end of the file, the
    /// same offset as the appended history items, the items must close the list before the
    /// new key opens (ties apply in the order given).
    fn splices(
        &self,
        doc: &Document,
        m: &Mutation,
        planned: &[(&Edit, Planned)],
        outside: &Outside,
        revision: u64,
        forced: &[Violation],
    ) -> Result<Vec<Splice>, StoreError> {
        let mut entries: Vec<_> = outside
            .rolled_back
            .map(|(n, kept)| recovered_entry(n, kept, revision))
            .into_iter()
            .chain(outside.entry.iter().cloned())
            .collect();
        for (i, (edit, p)) in planned.iter().enumerate() {
            let forced = if i == 0 { forced } else { &[] };
            entries.push(change_entry(m, edit, p, revision, forced));
        }
        let mut splices = plan_history_append_all(doc, entries).map_err(|e| self.edit_err(e))?;
        for (_, p) in planned {
            splices.extend(p.splices.iter().cloned());
        }
        splices.extend(plan_revision(doc, revision).map_err(|e| self.edit_err(e))?);
        Ok(splices)
    }

    /// The slow, always-correct path: each edit planned on the text the previous one left.
    fn one_by_one(
        &self,
        work: &Snapshot,
        m: &Mutation,
        outside: &Outside,
        revision: u64,
        forced: &[Violation],
    ) -> Result<Snapshot, StoreError> {
        let ids: Vec<String> = work
            .vsa
            .sub_hypotheses
            .iter()
            .map(|h| h.id.clone())
            .collect();
        let mut doc = work.doc.clone();
        let mut done: Vec<(&Edit, Planned)> = Vec::new();
        for edit in &m.edits {
            let p = plan(&doc, edit, m.create, &ids).map_err(|e| self.edit_err(e))?;
            if matches!(edit.change, Change::Set { .. }) && p.old == p.new && p.old.is_some() {
                continue;
            }
            let text = Splice::apply(&doc.text, &p.splices)
                .map_err(|e| StoreError::Verify(e.to_string()))?;
            doc = parse(text.as_bytes()).map_err(|e| StoreError::Verify(e.to_string()))?;
            done.push((edit, p));
        }
        // Checks of edits that a later edit of the same transaction rewrote do not apply.
        let last_checks: Vec<&Check> = done
            .iter()
            .enumerate()
            .filter(|(i, (e, _))| {
                !done[i + 1..]
                    .iter()
                    .any(|(later, _)| overlaps(e.change.path(), later.change.path()))
            })
            .map(|(_, (_, p))| &p.check)
            .collect();
        // The edits' splices are already in `doc`: append history and revision to it.
        let history_only: Vec<(&Edit, Planned)> = done
            .iter()
            .map(|(e, p)| {
                let mut p = p.clone();
                p.splices.clear();
                (*e, p)
            })
            .collect();
        let splices = self.splices(&doc, m, &history_only, outside, revision, forced)?;
        let text =
            Splice::apply(&doc.text, &splices).map_err(|e| StoreError::Verify(e.to_string()))?;
        let after = self
            .snapshot(text.as_bytes())
            .map_err(|e| StoreError::Verify(e.to_string()))?;
        if let Some(c) = last_checks.iter().find(|c| !holds(&after, c)) {
            return Err(StoreError::Verify(format!(
                "{c:?} does not hold after the edit"
            )));
        }
        Ok(after)
    }

    /// A stale base is fine when the field itself still holds what the caller saw.
    fn check_base(
        &self,
        snap: &Snapshot,
        path: &VsaPath,
        m: &Mutation,
    ) -> Result<bool, StoreError> {
        let Some(base) = &m.base else {
            return Ok(false);
        };
        if base.revision == snap.vsa.revision {
            return Ok(false);
        }
        let current = snap.doc.root.as_ref().and_then(|r| match resolve(r, path) {
            Ok(Resolved::Found(n)) => super::read_gate::scalar_text(Some(n)),
            _ => None,
        });
        if current == base.old {
            return Ok(true);
        }
        Err(StoreError::Conflict {
            path: m.path().to_string(),
            base: base.revision,
            current: snap.vsa.revision,
            yours: base.old.clone(),
            theirs: current,
        })
    }
}
