//! The store: the one way youra writes a VSA. Writers take an advisory lock, re-read, check
//! the revision, apply a lossless edit, bump the revision, append history, and replace the
//! file atomically (temp file, fsync, rename, directory fsync). A file that does not parse
//! is never overwritten.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::edit::{EditError, plan_history_append, plan_revision};
use super::history::{change_entry, editor_entry};
use super::invariants::{Violation, introduced};
use super::model::Vsa;
use super::mutation::{Change, Check, Mutation, plan};
use super::path::{Resolved, VsaPath, resolve};
use super::read::{Warning, read};
use super::skeleton::skeleton;
use crate::yaml::{Document, Splice, YamlError, parse};

/// A consistent reading of the file.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub doc: Document,
    pub vsa: Vsa,
    pub warnings: Vec<Warning>,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}:{}:{}: {}", path.display(), err.line, err.col, err.message)]
    Parse { path: PathBuf, err: YamlError },
    #[error("{}: {source}", path.display())]
    Edit {
        path: PathBuf,
        #[source]
        source: EditError,
    },
    #[error("refused: {}", .violations.iter().map(|v| format!("[{}] {}", v.invariant.name(), v.message)).collect::<Vec<_>>().join("; "))]
    Invariant { violations: Vec<Violation> },
    #[error("conflict on `{path}`: you edited revision {base}, the file is now at revision {current} and the value changed from {} to {}", show(.yours), show(.theirs))]
    Conflict {
        path: String,
        base: u64,
        current: u64,
        yours: Option<String>,
        theirs: Option<String>,
    },
    #[error("internal error: the edited file would not read back ({0}); nothing was written")]
    Verify(String),
}

fn show(v: &Option<String>) -> String {
    v.as_deref().map_or("null".into(), |s| format!("`{s}`"))
}

/// What the editing side last saw: lets the store tell a stale edit from a safe one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    pub revision: u64,
    pub old: Option<String>,
}

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
}

pub struct Store {
    path: PathBuf,
    side: PathBuf,
    /// The last text this store read or wrote, parsed. Long-lived owners (the TUI, the
    /// engine) skip re-parsing a file nobody changed; the bytes are always compared first.
    cache: Mutex<Option<(Vec<u8>, Arc<Snapshot>)>>,
}

fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> StoreError {
    let path = path.to_path_buf();
    move |source| StoreError::Io {
        action,
        path,
        source,
    }
}

impl Store {
    /// A store for the VSA at `path`; its lock and last-written copy live in `.youra/` beside it.
    pub fn new(path: impl Into<PathBuf>) -> Store {
        let path = path.into();
        let dir = path
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        Store {
            side: dir.join(".youra"),
            path,
            cache: Mutex::new(None),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn load(&self) -> Result<Arc<Snapshot>, StoreError> {
        let bytes = fs::read(&self.path).map_err(io("read", &self.path))?;
        self.cached(bytes)
    }

    /// The snapshot of `bytes`, parsed unless they are what this store last saw.
    fn cached(&self, bytes: Vec<u8>) -> Result<Arc<Snapshot>, StoreError> {
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((b, snap)) = cache.as_ref()
            && *b == bytes
        {
            return Ok(Arc::clone(snap));
        }
        let snap = Arc::new(self.snapshot(&bytes)?);
        *cache = Some((bytes, Arc::clone(&snap)));
        Ok(snap)
    }

    fn snapshot(&self, bytes: &[u8]) -> Result<Snapshot, StoreError> {
        let doc = parse(bytes).map_err(|err| StoreError::Parse {
            path: self.path.clone(),
            err,
        })?;
        let (vsa, warnings) = read(&doc);
        Ok(Snapshot { doc, vsa, warnings })
    }

    fn lock(&self) -> Result<File, StoreError> {
        fs::create_dir_all(&self.side).map_err(io("create", &self.side))?;
        let lock_path = self.side.join("vsa.lock");
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io("open", &lock_path))?;
        file.lock().map_err(io("lock", &lock_path))?;
        Ok(file)
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

    /// Apply one change under the lock: plan, record, read back, check invariants, write.
    pub fn mutate(&self, m: &Mutation) -> Result<Applied, StoreError> {
        self.mutate_with(|_| Ok::<_, StoreError>((m.clone(), ())))
            .map(|(applied, ())| applied)
    }

    /// Decide the change from the file as it stands under the lock, then apply it as
    /// [`Store::mutate`] does; `decide` may return what it learnt alongside. For changes
    /// that depend on the current state (a directive's id, whether an escalation is still
    /// undecided): deciding from an earlier read would race another writer.
    pub fn mutate_with<T, E: From<StoreError>>(
        &self,
        decide: impl FnOnce(&Snapshot) -> Result<(Mutation, T), E>,
    ) -> Result<(Applied, T), E> {
        let _lock = self.lock()?;
        let bytes = fs::read(&self.path).map_err(io("read", &self.path))?;
        let snap = self.cached(bytes.clone())?;
        let (m, extra) = decide(&snap)?;
        Ok((self.mutate_locked(&bytes, &snap, &m)?, extra))
    }

    fn mutate_locked(
        &self,
        bytes: &[u8],
        snap: &Snapshot,
        m: &Mutation,
    ) -> Result<Applied, StoreError> {
        let edit_err = |source| StoreError::Edit {
            path: self.path.clone(),
            source,
        };
        let ids: Vec<String> = snap
            .vsa
            .sub_hypotheses
            .iter()
            .map(|h| h.id.clone())
            .collect();
        let planned = plan(&snap.doc, m, &ids).map_err(edit_err)?;
        let rebased = self.check_base(snap, &planned.path, m)?;
        let mut applied = Applied {
            revision: snap.vsa.revision,
            old: planned.old.clone(),
            new: planned.new.clone(),
            forced: Vec::new(),
            editor_changes: 0,
            rebased,
            unchanged: false,
        };
        if matches!(m.change, Change::Set { .. })
            && planned.old == planned.new
            && planned.old.is_some()
        {
            applied.unchanged = true;
            return Ok(applied);
        }
        let editor = self.editor_changes(bytes, snap);
        applied.editor_changes = editor.as_ref().map_or(0, |(n, _)| *n);
        applied.revision = snap.vsa.revision + 1;
        let splices_for = |forced: &[Violation]| -> Result<Vec<Splice>, StoreError> {
            // History first: when the change adds a key at the end of the file, the same
            // offset as the appended history item, the item must close the list before
            // the new key opens (ties apply in the order given).
            let mut splices = Vec::new();
            if let Some((_, entry)) = &editor {
                splices.extend(plan_history_append(&snap.doc, entry.clone()).map_err(edit_err)?);
            }
            let entry = change_entry(m, &planned, applied.revision, forced);
            splices.extend(plan_history_append(&snap.doc, entry).map_err(edit_err)?);
            splices.extend(planned.splices.iter().cloned());
            splices.extend(plan_revision(&snap.doc, applied.revision).map_err(edit_err)?);
            Ok(splices)
        };
        let (mut text, mut after, mut partial) = self.apply(&snap.doc, &splices_for(&[])?)?;
        let violations = introduced(&snap.vsa, &after.vsa);
        if !violations.is_empty() {
            if !m.force {
                return Err(StoreError::Invariant { violations });
            }
            (text, after, partial) = self.apply(&snap.doc, &splices_for(&violations)?)?;
            applied.forced = violations;
        }
        self.verify(&after, &planned.check, applied.revision)?;
        self.write(&text)?;
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        *cache = (!partial).then(|| (text.into_bytes(), Arc::new(after)));
        Ok(applied)
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

    /// The edited text and its read-back: of the touched sections when that suffices
    /// (`partial`), else of the whole file.
    fn apply(
        &self,
        old: &Document,
        splices: &[Splice],
    ) -> Result<(String, Snapshot, bool), StoreError> {
        let new_text =
            Splice::apply(&old.text, splices).map_err(|e| StoreError::Verify(e.to_string()))?;
        if let Some(part) = skeleton(old, splices)
            && let Ok(snap) = self.snapshot(part.as_bytes())
        {
            return Ok((new_text, snap, true));
        }
        let snap = self
            .snapshot(new_text.as_bytes())
            .map_err(|e| StoreError::Verify(e.to_string()))?;
        Ok((new_text, snap, false))
    }

    fn verify(&self, after: &Snapshot, check: &Check, revision: u64) -> Result<(), StoreError> {
        if after.vsa.revision != revision {
            return Err(StoreError::Verify(format!(
                "revision reads {} instead of {revision}",
                after.vsa.revision
            )));
        }
        let root = after
            .doc
            .root
            .as_ref()
            .ok_or_else(|| StoreError::Verify("empty result".into()))?;
        let found = |p: &VsaPath| match resolve(root, p) {
            Ok(Resolved::Found(n)) => Some(n),
            _ => None,
        };
        let ok = match check {
            Check::Value(p, v) => {
                found(p).is_some_and(|n| super::read_gate::scalar_text(Some(n)) == *v)
            }
            Check::ListLen(p, len) => found(p).map_or(*len == 0, |n| {
                n.as_seq()
                    .map_or(n.is_null() && *len == 0, |s| s.len() == *len)
            }),
            Check::Exists(p) => found(p).is_some(),
        };
        if ok {
            Ok(())
        } else {
            Err(StoreError::Verify(format!(
                "{check:?} does not hold after the edit"
            )))
        }
    }

    /// A hand edit: the file differs from what youra last wrote, at the same revision.
    fn editor_changes(
        &self,
        bytes: &[u8],
        snap: &Snapshot,
    ) -> Option<(usize, crate::yaml::NewNode)> {
        let last = fs::read(self.side.join("last_written.yaml")).ok()?;
        if last == bytes {
            return None;
        }
        let before = self.snapshot(&last).ok()?;
        if before.vsa.revision != snap.vsa.revision {
            return None;
        }
        let changes = super::diff::changes(before.doc.root.as_ref(), snap.doc.root.as_ref());
        if changes.is_empty() {
            return None;
        }
        Some((changes.len(), editor_entry(snap.vsa.revision, &changes)))
    }

    fn write(&self, text: &str) -> Result<(), StoreError> {
        let dir = self
            .path
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let name = self
            .path
            .file_name()
            .map_or_else(|| "vsa".into(), |n| n.to_string_lossy().into_owned());
        let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let mut f = File::create(&tmp).map_err(io("create", &tmp))?;
        f.write_all(text.as_bytes()).map_err(io("write", &tmp))?;
        f.sync_all().map_err(io("fsync", &tmp))?;
        drop(f);
        fs::rename(&tmp, &self.path).map_err(io("rename onto", &self.path))?;
        if let Ok(d) = File::open(&dir) {
            d.sync_all().map_err(io("fsync", &dir))?;
        }
        // The last-written copy only serves hand-edit detection; losing it in a crash
        // costs one undetected edit, so it is renamed into place without an fsync.
        let last = self.side.join("last_written.yaml");
        let last_tmp = self
            .side
            .join(format!("last_written.{}.tmp", std::process::id()));
        if fs::write(&last_tmp, text).is_ok() {
            let _ = fs::rename(&last_tmp, &last);
        }
        Ok(())
    }
}
