//! What the store knows of a file without reading it all: its identity as `stat` tells it
//! (a read of a file nobody changed since the store last saw it returns the store's parse,
//! issue 30), and how its text is written (BOM, CRLF), which a write keeps.

use std::fs;
use std::path::Path;

/// A file's identity and version as `stat` tells them: a write in place changes the size,
/// the modification time or the change time (which no tool can set back); a replacement by
/// rename changes the inode. On a kernel with fine-grained timestamps (Linux ≥ 6.13 on
/// ext4, xfs, btrfs, tmpfs) any change after a `stat` changes the times; elsewhere a
/// rewrite in place to the same size within one clock tick (a few ms) of youra's own
/// `stat` would go unseen by reads until the next write, which compares the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileKey {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl FileKey {
    pub(crate) fn of_meta(m: &fs::Metadata) -> FileKey {
        use std::os::unix::fs::MetadataExt;
        FileKey {
            dev: m.dev(),
            ino: m.ino(),
            len: m.len(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        }
    }

    /// The same inode, size and modification time: only the change time differs, as a
    /// rename of the file changes it.
    pub(crate) fn same_content(&self, other: &FileKey) -> bool {
        (self.dev, self.ino, self.len, self.mtime) == (other.dev, other.ino, other.len, other.mtime)
    }

    /// The identity of the file at `path` (links followed).
    pub(crate) fn of(path: &Path) -> Option<FileKey> {
        fs::metadata(path).ok().map(|m| FileKey::of_meta(&m))
    }
}

/// How a file writes its text: a UTF-8 byte-order mark, CRLF line ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Conventions {
    pub bom: bool,
    pub crlf: bool,
}

const BOM: &[u8] = "\u{feff}".as_bytes();

/// The conventions of `bytes`: CRLF when most of its line ends are (a file an editor on
/// Windows saved; a stray CRLF line in an LF file does not convert the file).
pub fn conventions_of(bytes: &[u8]) -> Conventions {
    let lf = bytes.iter().filter(|&&b| b == b'\n').count();
    let crlf = bytes.windows(2).filter(|w| w == b"\r\n").count();
    Conventions {
        bom: bytes.starts_with(BOM),
        crlf: crlf > 0 && crlf * 2 > lf,
    }
}

impl Conventions {
    /// `text` (as the store builds it: no BOM, new lines LF) in these conventions.
    pub fn apply(self, text: &str) -> Vec<u8> {
        let mut out = Vec::with_capacity(text.len() + text.len() / 16 + 3);
        if self.bom {
            out.extend_from_slice(BOM);
        }
        if !self.crlf {
            out.extend_from_slice(text.as_bytes());
            return out;
        }
        let mut prev = 0u8;
        for &b in text.as_bytes() {
            if b == b'\n' && prev != b'\r' {
                out.push(b'\r');
            }
            out.push(b);
            prev = b;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::vsa::store::{SetRequest, Store};

    fn set(store: &Store, value: &str) {
        store
            .set(&SetRequest {
                path: "workflow.status",
                value,
                reason: "test",
                actor: "engine",
                force: false,
                create: false,
                base: None,
            })
            .unwrap();
    }

    #[test]
    fn a_read_after_youras_write_sees_an_outside_edit_in_place_or_by_rename() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("verification_state.yaml");
        std::fs::write(&path, "revision: 3\nworkflow:\n  status: ACTIVE\n").unwrap();
        let store = Store::new(&path);
        set(&store, "PAUSED");
        assert_eq!(store.load().unwrap().vsa.revision, 4);
        // In place (same inode), the same length: only the times tell.
        let text = std::fs::read_to_string(&path).unwrap();
        let edited = text.replace("PAUSED", "ACTIVE");
        assert_eq!(edited.len(), text.len());
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .and_then(|mut f| std::io::Write::write_all(&mut f, edited.as_bytes()))
            .unwrap();
        let snap = store.load().unwrap();
        assert_eq!(
            snap.vsa.workflow.status,
            Some(crate::vsa::enums::WorkflowStatus::Active)
        );
        // By rename (a new inode), as editors and `sed -i` save.
        let tmp = dir.path().join("edit.tmp");
        std::fs::write(&tmp, text.replace("revision: 4", "revision: 9")).unwrap();
        std::fs::rename(&tmp, &path).unwrap();
        assert_eq!(store.load().unwrap().vsa.revision, 9);
        // The next write names the hand edit (`editor`), as before.
        set(&store, "ACTIVE");
        let snap = store.load().unwrap();
        assert!(
            snap.vsa
                .history
                .iter()
                .any(|h| h.actor.as_deref() == Some("editor"))
        );
        assert_eq!(snap.vsa.revision, 10);
    }
}
