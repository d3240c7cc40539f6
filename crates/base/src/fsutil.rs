//! Durable file replacement for the run directory's small files (the plan tree's JSON and
//! markdown). The same sequence as the VSA store's write: a temp file beside the target,
//! fsync, rename over the target, fsync the directory, so a reader (or a resumed engine)
//! sees either the old file or the new one, never half of one. `beneath.rs`: opening files
//! inside a workspace the sandbox could write, following no link on any component.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

mod beneath;
pub use beneath::{
    Beneath, PlantedLink, open_beneath, open_dir_beneath, planted_link, read_beneath, rename_at,
    write_beneath,
};
use std::sync::atomic::{AtomicU64, Ordering};

/// Two writers in one process (the engine and a TUI action) must not share a temp name.
static SEQUENCE: AtomicU64 = AtomicU64::new(0);

/// Replace `path` with `bytes` atomically; its folder must exist.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(path, bytes)?;
    sync_dir(parent(path))
}

/// Replace `path` by rename without fsync: a killed process never leaves half a file, but
/// a power cut may lose the newest one. For logs written many times a stage (transcripts),
/// where an fsync each would dominate the engine's time.
pub fn replace_unsynced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    renamed(path, bytes, false)
}

/// The file part of `write_atomic`: the data is durable, the rename is not until the
/// caller syncs the folder (`sync_dir`). For a sequence of writes whose order only matters
/// at its end, one folder sync per folder replaces one per file.
pub fn replace(path: &Path, bytes: &[u8]) -> io::Result<()> {
    renamed(path, bytes, true)
}

fn renamed(path: &Path, bytes: &[u8], sync: bool) -> io::Result<()> {
    let dir = parent(path);
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    let seq = SEQUENCE.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.{}.{seq}.tmp", std::process::id()));
    let written = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        if sync { f.sync_all() } else { Ok(()) }
    })();
    if let Err(e) = written.and_then(|()| fs::rename(&tmp, path)) {
        // A stray temp file would be harmless but confusing in a run folder.
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(())
}

/// Open `path` for reading without following a link at its last component: for files an
/// experiment wrote, which it could have replaced by a link to anything youra may read (a
/// run's `youra.toml`, a key file). A link fails with an error saying so; so does anything
/// but a regular file (a FIFO, a socket, a device), opened without blocking and refused:
/// a FIFO left as a metrics file, or in a handed run folder, would hang the reader forever.
pub fn open_nofollow(path: &Path) -> io::Result<File> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    let file = open_no_link(
        path,
        &mut options,
        libc::O_NONBLOCK,
        "not read (experiment outputs are read only as plain files)",
    )?;
    regular_only(file, path)
}

/// `path` read whole through [`open_nofollow`] (no link, regular files only, no blocking),
/// at most `cap` bytes: more is an error naming the cap. The one way youra reads a file a
/// run folder holds when no trusted base is at hand ([`read_beneath`] when one is).
pub fn read_capped(path: impl AsRef<Path>, cap: u64) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let path = path.as_ref();
    let file = open_nofollow(path)?;
    let mut bytes = Vec::new();
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(io::Error::other(format!(
            "{} is larger than {cap} bytes; not read",
            path.display()
        )));
    }
    Ok(bytes)
}

/// [`read_capped`] as UTF-8 text (invalid text is an error naming the file).
pub fn read_capped_string(path: impl AsRef<Path>, cap: u64) -> io::Result<String> {
    let path = path.as_ref();
    String::from_utf8(read_capped(path, cap)?).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not UTF-8 text", path.display()),
        )
    })
}

/// The most youra reads of one file in a run folder it did not stream (the VSA of a
/// 2,000-hypothesis study is 12 MB; a larger file is an error naming the cap, not an
/// allocation a handed run folder can choose).
pub const RUN_FILE_CAP: u64 = 256 << 20;

/// A run-folder file read whole: [`read_capped`] at [`RUN_FILE_CAP`]. What every reader of
/// a run folder calls instead of `fs::read` (`tests/it/run_reads.rs` holds the line).
pub fn read_run_file(path: impl AsRef<Path>) -> io::Result<Vec<u8>> {
    read_capped(path, RUN_FILE_CAP)
}

/// The VSA read whole, following a link at its path: a researcher may keep the file
/// elsewhere and link it on purpose (the store writes through such a link too). The link's
/// target must still be a regular file (opened without blocking) and is capped at
/// [`RUN_FILE_CAP`].
pub fn read_vsa_file(path: impl AsRef<Path>) -> io::Result<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let path = path.as_ref();
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let file = regular_only(file, path)?;
    let mut bytes = Vec::new();
    file.take(RUN_FILE_CAP.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > RUN_FILE_CAP {
        return Err(io::Error::other(format!(
            "{} is larger than {RUN_FILE_CAP} bytes; not read",
            path.display()
        )));
    }
    Ok(bytes)
}

/// [`read_run_file`] as UTF-8 text.
pub fn read_run_text(path: impl AsRef<Path>) -> io::Result<String> {
    read_capped_string(path, RUN_FILE_CAP)
}

/// What a file that is not a regular one is, in words ("a FIFO", "a folder"); `None` for a
/// regular file. The one description every refusal of a special file uses.
pub fn not_regular(kind: fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    Some(if kind.is_file() {
        return None;
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    })
}

/// `file` when it is a regular file, else an error naming what it is (it was opened with
/// `O_NONBLOCK`, so a FIFO got this far without waiting for a writer). The flag is cleared
/// again so reads behave as usual.
pub fn regular_only(file: File, path: &Path) -> io::Result<File> {
    use std::os::fd::AsRawFd;
    let kind = file.metadata()?.file_type();
    if let Some(what) = not_regular(kind) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is {what}: youra reads only regular files from a run folder; remove it",
                path.display()
            ),
        ));
    }
    // SAFETY: F_GETFL/F_SETFL on an fd this function owns.
    unsafe {
        let flags = libc::fcntl(file.as_raw_fd(), libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(file.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK);
        }
    }
    Ok(file)
}

/// Open `path` to append (created 0644 when absent) without following a symlink at its
/// last component: a link planted where youra writes its log is refused, not written
/// through.
pub(crate) fn open_append_nofollow(path: &Path) -> io::Result<File> {
    let mut options = fs::OpenOptions::new();
    options.create(true).append(true);
    open_no_link(
        path,
        &mut options,
        0,
        "youra does not write through it; remove it",
    )
}

/// `options` plus `O_NOFOLLOW` and `flags` (`custom_flags` replaces, so all are given at
/// once); a link at `path` fails saying `what` of it.
fn open_no_link(
    path: &Path,
    options: &mut fs::OpenOptions,
    flags: i32,
    what: &str,
) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    options
        .custom_flags(libc::O_NOFOLLOW | flags)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                io::Error::other(format!("{} is a symlink: {what}", path.display()))
            } else {
                e
            }
        })
}

/// `root/rel`'s folders, created where missing, each checked not to be a symlink: a link
/// planted inside a run (`memory -> /etc`) must not carry a write out of it. `root` itself
/// is trusted (the caller resolved it). Returns the deepest folder.
pub fn create_dirs_nofollow(root: &Path, rel: &Path) -> io::Result<std::path::PathBuf> {
    let mut dir = root.to_path_buf();
    for part in rel.components() {
        dir.push(part);
        match fs::symlink_metadata(&dir) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(io::Error::other(format!(
                    "{} is a symlink: youra does not write through it; remove it",
                    dir.display()
                )));
            }
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(io::Error::other(format!(
                    "{} is a file where a folder was expected",
                    dir.display()
                )));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => fs::create_dir(&dir)?,
            Err(e) => return Err(e),
        }
    }
    Ok(dir)
}

/// Write a new file atomically, refusing when anything (a file, or a link planted there)
/// already holds the name: for records that are never overwritten.
pub fn write_new_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(io::Error::other(format!(
            "{} is a symlink: youra does not write through it; remove it",
            path.display()
        ))),
        Ok(_) => Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} already exists", path.display()),
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => write_atomic(path, bytes),
        Err(e) => Err(e),
    }
}

/// Whether `file` ends inside a line (no final `\n`: a line torn by a full disk or a kill).
/// An appender writes a `\n` first, so the torn line stays one bad line a reader skips and
/// names, and the next record is whole instead of glued to it. `file` must be readable.
pub fn ends_open(file: &File) -> io::Result<bool> {
    use std::os::unix::fs::FileExt;
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(false);
    }
    let mut last = [0u8];
    file.read_exact_at(&mut last, len - 1)?;
    Ok(last[0] != b'\n')
}

/// The lines of an appended log read as bytes, each as text or, when it is not UTF-8 (a
/// character torn at the end, a corrupt row), as `Err(its 1-based number)`: one bad line is
/// skipped by the reader, never the whole file as `read_to_string` would.
pub fn utf8_lines(bytes: &[u8]) -> impl Iterator<Item = Result<&str, usize>> {
    bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .filter(|(_, l)| !l.is_empty())
        .map(|(i, l)| std::str::from_utf8(l).map_err(|_| i + 1))
}

/// The folder holding `path` (`.` for a bare name).
pub fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Directory fsync, making renames and removals in it durable; some filesystems refuse to
/// open a directory, and then there is nothing more we can do than the rename already did.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    match File::open(dir) {
        Ok(d) => d.sync_all(),
        Err(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn torn_lines_are_seen_and_skipped_alone() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let p = dir.path().join("events.jsonl");
        fs::write(&p, b"{\"a\":1}\n{\"b\":\xc3")?;
        assert!(ends_open(&File::open(&p)?)?);
        fs::write(&p, b"")?;
        assert!(!ends_open(&File::open(&p)?)?);
        let lines: Vec<_> = utf8_lines(b"one\n\xe2\x82\ntwo\n").collect();
        assert_eq!(lines, vec![Ok("one"), Err(2), Ok("two")]);
        Ok(())
    }

    #[test]
    fn special_files_are_refused_without_blocking() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let fifo = dir.path().join("metrics.jsonl");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        // No writer ever opens it: a blocking open would hang this test forever.
        let e = read_capped(&fifo, 1024).unwrap_err();
        assert!(e.to_string().contains("is a FIFO"), "{e}");
        let e = read_capped(Path::new("/dev/zero"), 1024).unwrap_err();
        assert!(e.to_string().contains("is a device"), "{e}");
        let e = read_beneath(dir.path(), Path::new("metrics.jsonl"), 1024).unwrap_err();
        assert!(e.to_string().contains("is a FIFO"), "{e}");
        let plain = dir.path().join("ok.txt");
        fs::write(&plain, "abcdef")?;
        assert_eq!(read_capped_string(&plain, 6)?, "abcdef");
        assert!(read_capped(&plain, 5).is_err());
        std::os::unix::fs::symlink(&plain, dir.path().join("link"))?;
        assert!(read_capped(dir.path().join("link"), 64).is_err());
        Ok(())
    }

    #[test]
    fn missing_folder_is_an_error_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        assert!(write_atomic(&dir.path().join("no/such/a.json"), b"x").is_err());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
        assert_eq!(parent(Path::new("a.json")), Path::new("."));
        assert_eq!(parent(Path::new("x/a.json")), Path::new("x"));
    }
}
