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
/// run's `youra.toml`, a key file). A link fails with an error saying so.
pub fn open_nofollow(path: &Path) -> io::Result<File> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    open_no_link(
        path,
        &mut options,
        "not read (experiment outputs are read only as plain files)",
    )
}

/// Open `path` to append (created 0644 when absent) without following a symlink at its
/// last component: a link planted where youra writes its log is refused, not written
/// through.
pub fn open_append_nofollow(path: &Path) -> io::Result<File> {
    let mut options = fs::OpenOptions::new();
    options.create(true).append(true);
    open_no_link(
        path,
        &mut options,
        "youra does not write through it; remove it",
    )
}

/// `options` plus `O_NOFOLLOW`; a link at `path` fails saying `what` of it.
fn open_no_link(path: &Path, options: &mut fs::OpenOptions, what: &str) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    options
        .custom_flags(libc::O_NOFOLLOW)
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
    fn missing_folder_is_an_error_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        assert!(write_atomic(&dir.path().join("no/such/a.json"), b"x").is_err());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
        assert_eq!(parent(Path::new("a.json")), Path::new("."));
        assert_eq!(parent(Path::new("x/a.json")), Path::new("x"));
    }
}
