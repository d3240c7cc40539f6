//! The commit order of a VSA write, chosen so that a kill -9 at any instant leaves files
//! the next writer reads without doubt. youra tells its own writes from outside edits by
//! comparing the VSA with its copy of what it last wrote (`.youra/last_written.yaml`, see
//! `outside.rs`); were that copy updated after the VSA (as it once was), a kill between the
//! two would make youra's own write look like a hand edit by `editor`.
//!
//! So the new text is journaled first, durably, as `.youra/pending.yaml`:
//! 1. `pending.yaml` ← the new bytes (fsync, rename, folder fsync);
//! 2. the VSA ← the same bytes (the atomic replace: the commit point);
//! 3. `written/N.yaml` ← a hard link to the journal (the merge base for stale saves);
//! 4. `pending.yaml` renamed to `last_written.yaml`; older copies pruned (see below).
//!
//! The next writer, under the lock, looks for a journal before anything else
//! ([`Store::recover`]): a VSA at the journal's revision (or past it: an edit made after
//! the commit) means the rename happened, and steps 3–4 are finished, silently — youra's
//! write is recognised as youra's. A VSA below it means the rename never happened: the
//! journal is discarded and the next write says so in a `recovered` history entry, at the
//! revision the interrupted write would have had, so no revision number is skipped.
//! At rest `.youra/` holds the last copy and up to 16 numbered ones (the newest sharing the
//! last copy's bytes through the link); the journal exists only mid-write. The older
//! numbered copies are bounded in bytes too, at twice the file's size, so a long history
//! costs at most three copies beside the file (issue 30: 17 full copies of a 58 MB VSA
//! were 975 MB). A stale save older than the copies kept is still merged, from the history
//! entries instead of a base copy (`outside.rs`).

use std::fs::{self, File};
use std::io::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use super::crash::{CrashAt, crash_point};
use super::identity::{Conventions, FileKey};
use super::store_core::{LAST_WRITTEN, Store, StoreError, io, revision_line};
use super::timestamp::Timestamp;
use crate::yaml::{NewNode, Style, format_scalar};

/// The journal of the write in progress, beside the lock in `.youra/`.
pub(super) const PENDING: &str = "pending.yaml";
/// How many earlier revisions are kept (`.youra/written/N.yaml`) as merge bases.
const KEEP_WRITTEN: u64 = 16;
/// The bytes the numbered copies older than the newest may take, in multiples of the file.
const OLDER_COPIES_BYTES: u64 = 2;

/// What a write left: the bytes on disk, the VSA's identity after the rename (`None` when
/// it could not be told for sure) and `last_written.yaml`'s.
pub(super) struct Written {
    /// The bytes on disk when they differ from the text (`None`: the text's own).
    pub bytes: Option<Vec<u8>>,
    pub key: Option<FileKey>,
    pub last: Option<FileKey>,
}

/// What the next writer found of an interrupted write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Recovered {
    /// Revision `n` reached the file; only youra's copies were finished.
    Completed(u64),
    /// Revision `n` never reached the file (which stayed at `kept`); its journal was dropped.
    RolledBack { n: u64, kept: u64 },
}

impl Store {
    /// Write `text` as revision `revision` in the order above. The file keeps its
    /// conventions: a byte-order mark and CRLF line ends, when it had them, also on the
    /// lines youra adds (`conv`: those of the file read under the lock); a symlinked VSA
    /// stays a link (its target is replaced).
    pub(super) fn write(
        &self,
        text: &str,
        revision: u64,
        conv: Conventions,
    ) -> Result<Written, StoreError> {
        crash_point(CrashAt::Before(revision));
        let t = Instant::now();
        let converted = (conv != Conventions::default()).then(|| conv.apply(text));
        let bytes = converted.as_deref().unwrap_or(text.as_bytes());
        let target = match fs::symlink_metadata(self.path()) {
            Ok(m) if m.file_type().is_symlink() => {
                fs::canonicalize(self.path()).map_err(io("resolve the link", self.path()))?
            }
            _ => self.path().to_path_buf(),
        };
        let side = self.side();
        let pending = side.join(PENDING);
        fs::create_dir_all(side).map_err(io("create", side))?;
        crate::fsutil::write_atomic(&pending, bytes)
            .map_err(io("journal the write in", &pending))?;
        crash_point(CrashAt::Journaled(revision));
        let key = replace(&target, bytes).map_err(io("replace", &target))?;
        tracing::debug!(target: "youra::vsa", revision, bytes = bytes.len(), path = %target.display(), "written");
        crash_point(CrashAt::Renamed(revision));
        self.finish(revision);
        // Under the lock no other store renames a copy over it.
        let last = FileKey::of(&side.join(LAST_WRITTEN));
        self.add_io(t.elapsed());
        Ok(Written {
            bytes: converted,
            key,
            last,
        })
    }

    /// Steps 3 and 4: the numbered copy and the last copy from the journal. Failures only
    /// cost edit detection, never the write itself, so they are logged, not returned.
    fn finish(&self, revision: u64) {
        let side = self.side();
        let pending = side.join(PENDING);
        let written = side.join("written");
        let _ = fs::create_dir_all(&written);
        let numbered = written.join(format!("{revision}.yaml"));
        let _ = fs::remove_file(&numbered);
        // A link costs no second copy of the bytes; nothing rewrites these files in place
        // (every write renames a new file over the name), so sharing them is safe.
        if fs::hard_link(&pending, &numbered).is_err()
            && let Err(e) = fs::copy(&pending, &numbered)
        {
            tracing::warn!(target: "youra::vsa", revision, error = %e, "cannot keep the numbered copy");
        }
        crash_point(CrashAt::Copied(revision));
        if let Err(e) = fs::rename(&pending, side.join(LAST_WRITTEN)) {
            tracing::warn!(target: "youra::vsa", revision, error = %e, "cannot keep the last copy");
        }
        let size = fs::metadata(&numbered).map_or(0, |m| m.len());
        let sizes: Vec<Option<u64>> = (1..=KEEP_WRITTEN)
            .map(|back| {
                let r = revision.checked_sub(back)?;
                fs::metadata(written.join(format!("{r}.yaml")))
                    .ok()
                    .map(|m| m.len())
            })
            .collect();
        for back in prune(&sizes, size.saturating_mul(OLDER_COPIES_BYTES)) {
            if let Some(r) = revision.checked_sub(back) {
                let _ = fs::remove_file(written.join(format!("{r}.yaml")));
            }
        }
        crash_point(CrashAt::After(revision));
    }

    /// Under the lock, before the file is compared with youra's last copy: settle a write
    /// a kill interrupted. `bytes` is the VSA as it stands. A file whose revision cannot be
    /// read is left alone (the transaction refuses it anyway).
    pub(super) fn recover(&self, bytes: &[u8]) -> Option<Recovered> {
        let pending = self.side().join(PENDING);
        let journal = crate::fsutil::read_run_file(&pending).ok()?;
        let Some(n) = revision_line(&journal) else {
            // Written by rename, a journal is never torn; one without a revision is not ours.
            let _ = fs::remove_file(&pending);
            return None;
        };
        let kept = revision_line(bytes);
        if journal == bytes || kept.is_some_and(|k| k >= n) {
            tracing::info!(target: "youra::vsa", revision = n, "finishing the copies of a write interrupted after it reached the file");
            self.finish(n);
            return Some(Recovered::Completed(n));
        }
        let kept = kept?;
        tracing::info!(target: "youra::vsa", revision = n, kept, "dropping the journal of a write interrupted before it reached the file");
        let _ = fs::remove_file(&pending);
        crate::fsutil::sync_dir(self.side()).ok();
        Some(Recovered::RolledBack { n, kept })
    }

    /// Temp files of writers killed mid-write inside `.youra/` (the journal's, and those of
    /// copies written by earlier versions): under the lock every such file is an orphan.
    /// Only the store's own names: other owners (the TUI, the engine) write there too.
    pub(super) fn remove_side_orphans(&self) {
        let ours = |f: &str| {
            [".pending.yaml.", ".last_written.yaml."]
                .iter()
                .any(|p| f.starts_with(p))
        };
        remove_tmp(self.side(), ours);
        remove_tmp(&self.side().join("written"), |f| {
            f.starts_with('.') && f.contains(".yaml.")
        });
    }
}

/// Two writers in one process must not share a temp name.
static SEQUENCE: AtomicU64 = AtomicU64::new(0);

/// `fsutil::write_atomic` (temp file beside the target, fsync, rename, folder fsync), that
/// also tells the new file's identity from its own descriptor: the inode written, whatever
/// a rename by someone else puts at the path meanwhile. `None` when the file changed
/// between the data's fsync and the rename's end (then reads compare bytes).
fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<Option<FileKey>> {
    let dir = crate::fsutil::parent(path);
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    let seq = SEQUENCE.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.{}.v{seq}.tmp", std::process::id()));
    let done = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        let before = FileKey::of_meta(&f.metadata()?);
        fs::rename(&tmp, path)?;
        let after = f.metadata().map(|m| FileKey::of_meta(&m)).ok();
        Ok(after.filter(|a| a.same_content(&before)))
    })();
    let key = match done {
        Ok(key) => key,
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
    };
    crate::fsutil::sync_dir(dir)?;
    Ok(key)
}

/// Which older copies to remove (as revisions back, 1-based): `sizes[i]` is the copy
/// `i + 1` revisions back (`None`: absent), the newest first. Copies are kept newest first
/// while their bytes fit in `budget`; the last of `sizes` (the window's end) always goes.
fn prune(sizes: &[Option<u64>], budget: u64) -> Vec<u64> {
    let mut used = 0u64;
    let mut full = false;
    let mut gone = Vec::new();
    for (i, size) in sizes.iter().enumerate() {
        let back = i as u64 + 1;
        let Some(size) = size else { continue };
        full = full || used.saturating_add(*size) > budget || back == sizes.len() as u64;
        if full {
            gone.push(back);
        } else {
            used += size;
        }
    }
    gone
}

fn remove_tmp(dir: &Path, ours: impl Fn(&str) -> bool) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(f) = name.to_str() else { continue };
        if f.ends_with(".tmp") && ours(f) {
            let _ = fs::remove_file(e.path());
        }
    }
}

/// The history entry for a write the recovery rolled back, recorded in the next write at
/// the revision `revision` it takes (the interrupted write's own number).
pub(crate) fn recovered_entry(n: u64, kept: u64, revision: u64) -> NewNode {
    let s = |v: &str| NewNode::Scalar(format_scalar(v, Style::Plain));
    NewNode::Map(vec![
        ("event".to_string(), s("recovered")),
        (
            "timestamp".to_string(),
            NewNode::Scalar(format_scalar(&Timestamp::now_string(), Style::SingleQuoted)),
        ),
        ("actor".to_string(), s("youra")),
        (
            "revision".to_string(),
            NewNode::Scalar(revision.to_string()),
        ),
        ("rolled_back".to_string(), NewNode::Scalar(n.to_string())),
        (
            "reason".to_string(),
            s(&format!(
                "youra was stopped while writing revision {n}, before the file was replaced; that write was discarded and the file kept revision {kept}"
            )),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::prune;

    #[test]
    fn older_copies_are_bounded_in_count_and_bytes() {
        let n = |v: &[u64]| v.iter().map(|&s| Some(s)).collect::<Vec<_>>();
        // (sizes of the copies 1, 2, … back; budget) -> removed
        type Row = (Vec<Option<u64>>, u64, Vec<u64>);
        let table: &[Row] = &[
            (n(&[10; 16]), 1000, vec![16]),
            (n(&[10; 16]), 20, (3..=16).collect()),
            (n(&[10; 16]), 25, (3..=16).collect()),
            (n(&[30, 1, 1]), 20, vec![1, 2, 3]),
            (vec![None, Some(10), None, Some(10)], 15, vec![4]),
            (vec![None; 16], 0, vec![]),
        ];
        for (sizes, budget, gone) in table {
            assert_eq!(&prune(sizes, *budget), gone, "{sizes:?} within {budget}");
        }
    }
}
