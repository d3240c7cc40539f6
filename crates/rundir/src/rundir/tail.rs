//! Reading an append-only file (events.jsonl, metrics.jsonl, the ledger, a log) from where
//! the last read ended, so a reader's cost follows what was appended, not the file's size.
//!
//! Each read checks that the file is still the one it read: a different device/inode (a
//! rotation: the writer renamed the old file away and created a new one) or a length below
//! the offset (a truncation) starts over from byte 0 and says so ([`TailRead::restarted`]),
//! so the caller drops what it kept. A last line without its newline is a write in
//! progress: its bytes are kept and completed by the next read, never handed out torn.
//! A file rewritten in place and already longer than the offset at the next read (same
//! inode, same or greater length) is told apart by its last bytes before the offset: they
//! are kept (`seam`) and compared, which costs one 32-byte read per call.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// How many bytes before the offset are compared to tell an append from a rewrite.
const SEAM: usize = 32;

/// How many bytes one `read` call takes from the file at a time (memory stays bounded by
/// this plus the longest line, whatever the file's size).
const CHUNK: usize = 1 << 20;

/// The reading position in one append-only file.
#[derive(Debug, Clone)]
pub struct Tail {
    path: PathBuf,
    /// Bytes consumed so far (complete lines plus `partial`).
    offset: u64,
    /// `(device, inode)` of the file last read; another pair at the path is a rotation.
    identity: Option<(u64, u64)>,
    /// Lines handed out so far; the next complete line is `line_no + 1`.
    line_no: u64,
    /// The bytes of an unfinished last line.
    partial: Vec<u8>,
    /// The last (up to [`SEAM`]) bytes before `offset`, as read.
    seam: Vec<u8>,
}

/// What one read found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TailRead {
    /// The file was truncated, replaced or removed since the last read: the lines handed
    /// out this time start again at line 1, and what the caller kept from before is stale.
    pub restarted: bool,
    /// Complete lines handed out by this read.
    pub lines: u64,
}

impl Tail {
    pub fn new(path: impl Into<PathBuf>) -> Tail {
        Tail {
            path: path.into(),
            offset: 0,
            identity: None,
            line_no: 0,
            partial: Vec::new(),
            seam: Vec::new(),
        }
    }

    /// A reader of the lines from byte `offset` on (the start of a line: see
    /// `event_lines::tail_start`), for a first look at a long file's end; its line numbers
    /// count from there, not from the file's start.
    pub fn from_offset(path: impl Into<PathBuf>, offset: u64) -> Tail {
        Tail {
            offset,
            ..Tail::new(path)
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes consumed so far: the next read starts here.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Complete lines handed out since the file's start.
    pub fn line_no(&self) -> u64 {
        self.line_no
    }

    /// The unfinished last line and the number it will have: a one-shot reader (the file
    /// is read once and not followed) takes it as the file's last line.
    pub fn partial(&self) -> Option<(u64, &[u8])> {
        (!self.partial.is_empty()).then(|| (self.line_no + 1, self.partial.as_slice()))
    }

    fn restart(&mut self) {
        self.offset = 0;
        self.line_no = 0;
        self.partial.clear();
        self.seam.clear();
    }

    /// Hand every complete line appended since the last read to `each` with its 1-based
    /// line number (without the `\n`; empty lines are counted, not handed out). A missing
    /// file reads as empty (and as a restart if something had been read before).
    pub fn read(&mut self, mut each: impl FnMut(u64, &[u8])) -> io::Result<TailRead> {
        self.read_at(|n, _, line| each(n, line))
    }

    /// [`Tail::read`], with each line's byte offset in the file (where an index of lines
    /// points to page back through the file).
    pub fn read_at(&mut self, mut each: impl FnMut(u64, u64, &[u8])) -> io::Result<TailRead> {
        let mut f = match crate::fsutil::open_nofollow(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let restarted = self.offset > 0 || self.identity.is_some();
                self.restart();
                self.identity = None;
                return Ok(TailRead {
                    restarted,
                    lines: 0,
                });
            }
            Err(e) => return Err(e),
        };
        let meta = f.metadata()?;
        let identity = identity(&meta);
        let restarted = self.identity.is_some_and(|old| Some(old) != identity)
            || meta.len() < self.offset
            || !self.seam_holds(&mut f)?;
        if restarted {
            self.restart();
        }
        self.identity = identity;
        f.seek(SeekFrom::Start(self.offset))?;
        let lines = self.consume(&mut f, &mut each)?;
        Ok(TailRead { restarted, lines })
    }

    /// Whether the bytes before the offset are still the ones read there.
    fn seam_holds(&self, f: &mut File) -> io::Result<bool> {
        if self.seam.is_empty() {
            return Ok(true);
        }
        let mut now = vec![0u8; self.seam.len()];
        f.seek(SeekFrom::Start(self.offset - self.seam.len() as u64))?;
        match f.read_exact(&mut now) {
            Ok(()) => Ok(now == self.seam),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn consume(&mut self, f: &mut File, each: &mut impl FnMut(u64, u64, &[u8])) -> io::Result<u64> {
        let mut buf = vec![0u8; CHUNK];
        let mut lines = 0;
        loop {
            let n = match f.read(&mut buf) {
                Ok(0) => return Ok(lines),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            let base = self.offset;
            self.offset += n as u64;
            let keep = SEAM.min(n);
            self.seam.extend_from_slice(&buf[n - keep..n]);
            let extra = self.seam.len().saturating_sub(SEAM);
            self.seam.drain(..extra);
            let mut rest = &buf[..n];
            let mut pos = 0u64;
            while let Some(i) = rest.iter().position(|&b| b == b'\n') {
                self.line_no += 1;
                let start = base + pos - self.partial.len() as u64;
                let line: &[u8] = if self.partial.is_empty() {
                    &rest[..i]
                } else {
                    self.partial.extend_from_slice(&rest[..i]);
                    &self.partial
                };
                if !line.is_empty() {
                    each(self.line_no, start, line);
                    lines += 1;
                }
                self.partial.clear();
                rest = &rest[i + 1..];
                pos += i as u64 + 1;
            }
            self.partial.extend_from_slice(rest);
        }
    }
}

#[cfg(unix)]
fn identity(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn identity(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}
