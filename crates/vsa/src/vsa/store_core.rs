//! The store's state and how it fails, below the files that write through it (the lock,
//! the journal, outside writers, the parse cache) and the store's write path (`store.rs`),
//! so none of them imports the one that composes them.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::edit::EditError;
use super::identity::{Conventions, FileKey};
use super::invariants::Violation;
use super::read::Snapshot;
use crate::yaml::YamlError;

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
    #[error(
        "the VSA's lock ({}) has been held for {waited_s} s by {holder}; nothing was written. If that process is stopped, resume it (`kill -CONT <pid>`) or end it, then try again",
        path.display()
    )]
    LockTimeout {
        path: PathBuf,
        waited_s: u64,
        holder: String,
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

/// youra's copy of what it last wrote, beside the lock in `.youra/`.
pub(super) const LAST_WRITTEN: &str = "last_written.yaml";

/// The `revision:` of a VSA's text without parsing it (a top-level line).
pub(super) fn revision_line(text: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(text).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("revision:"))
        .and_then(|v| v.split('#').next()?.trim().parse().ok())
}

pub struct Store {
    pub(super) path: PathBuf,
    pub(super) side: PathBuf,
    /// The last text this store read or wrote, parsed. Long-lived owners (the TUI, the
    /// engine) skip re-parsing a file nobody changed: a read whose file still has the
    /// identity it had when these bytes were read or written returns the parse as it is;
    /// otherwise the bytes are compared first. A write always compares the bytes.
    pub(super) cache: Mutex<Option<Cached>>,
    /// Nanoseconds spent writing files (journal, VSA, copies): what a write costs at least.
    pub(super) io_ns: AtomicU64,
    /// Nanoseconds spent building a write's whole new text from the old (one copy of it).
    pub(super) copy_ns: AtomicU64,
}

pub(super) fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> StoreError {
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
            io_ns: AtomicU64::new(0),
            copy_ns: AtomicU64::new(0),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(super) fn side(&self) -> &Path {
        &self.side
    }
}

/// What the store last read or wrote.
pub(super) struct Cached {
    /// The file's bytes when they are not `snap.doc.text` as it stands (a BOM, CRLF line
    /// ends): one copy of a 6 MB file, not two.
    pub bytes: Option<Vec<u8>>,
    pub snap: Arc<Snapshot>,
    /// How `bytes` writes its text (a write keeps it).
    pub conv: Conventions,
    /// The file's identity when it held `bytes`; `None`: compare the bytes on every read.
    pub key: Option<FileKey>,
    /// youra's own write of `bytes`: its revision and `last_written.yaml`'s identity after
    /// it (that copy holds `bytes` while its identity is unchanged).
    pub own: Option<(u64, FileKey)>,
}

impl Cached {
    pub fn bytes(&self) -> &[u8] {
        self.bytes
            .as_deref()
            .unwrap_or_else(|| self.snap.doc.text.as_bytes())
    }
}

impl Store {
    /// Time spent on file I/O since the store was made (benchmarks): every write's files
    /// (journal, VSA, copies), and the read of the VSA under the lock before it with the
    /// comparison of its bytes to the cached ones.
    pub fn io_time(&self) -> Duration {
        Duration::from_nanos(self.io_ns.load(Ordering::Relaxed))
    }

    /// Time spent building new texts from old ones since the store was made (benchmarks):
    /// a copy of the file per write, like the write itself.
    pub fn copy_time(&self) -> Duration {
        Duration::from_nanos(self.copy_ns.load(Ordering::Relaxed))
    }

    pub(super) fn add_copy(&self, d: Duration) {
        let ns = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        self.copy_ns.fetch_add(ns, Ordering::Relaxed);
    }

    pub(super) fn add_io(&self, d: Duration) {
        let ns = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        self.io_ns.fetch_add(ns, Ordering::Relaxed);
    }

    /// youra's own write's revision while `last_written.yaml` is still the copy of it, and
    /// the cached bytes are that write's.
    pub(super) fn own_last(&self, bytes: Option<&[u8]>) -> Option<u64> {
        let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        let c = cache.as_ref()?;
        let (revision, key) = c.own?;
        if bytes.is_some_and(|b| b != c.bytes()) {
            return None;
        }
        (FileKey::of(&self.side().join(LAST_WRITTEN)) == Some(key)).then_some(revision)
    }
}
