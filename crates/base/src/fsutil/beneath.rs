//! Files inside a workspace that experiment code could write, opened one component at a
//! time with `openat(O_NOFOLLOW)`: a link planted anywhere on the path (`results -> /home`,
//! `code -> ..`, the brief -> `/proc/self/environ`) is refused, never followed, and nothing
//! can swap a component between a check and the open (the race a `symlink_metadata` check
//! per component would leave).

use std::fs::{self, File};
use std::io::{self, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

/// A symbolic link met on the way to a file in a workspace (experiment code may plant one
/// anywhere it can write). Carried inside the `io::Error` so a caller can tell it from an
/// ordinary failure ([`planted_link`]) and report it as a sandbox violation.
#[derive(Debug)]
pub struct PlantedLink {
    /// The link itself (base joined with the components up to it).
    pub link: PathBuf,
}

impl std::fmt::Display for PlantedLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} was replaced by a symbolic link: youra follows no link inside a workspace (experiment code may have planted it)",
            self.link.display()
        )
    }
}

impl std::error::Error for PlantedLink {}

/// The planted link an error reports, if that is what it is.
pub fn planted_link(e: &io::Error) -> Option<&PlantedLink> {
    e.get_ref().and_then(|r| r.downcast_ref::<PlantedLink>())
}

/// How [`open_beneath`] opens the last component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Beneath {
    /// Read an existing file.
    Read,
    /// Create or truncate a file for writing, creating missing folders on the way (0755).
    Write,
}

/// Open `base/rel` without following a link on any component of `rel`: each folder is
/// opened with `openat(O_NOFOLLOW | O_DIRECTORY)` from the one before, so a link planted
/// anywhere (`results -> /home/me`, `code -> ..`) fails with a [`PlantedLink`] instead of
/// redirecting the read or write. `base` is trusted as given (youra chose it: the run, a
/// workspace). `rel` must be relative, without `..`.
pub fn open_beneath(base: &Path, rel: &Path, how: Beneath) -> io::Result<File> {
    let parts = normal_parts(rel)?;
    let Some((last, folders)) = parts.split_last() else {
        return Err(io::Error::other(format!(
            "{}: an empty path",
            base.display()
        )));
    };
    let mut dir = open_dir(base)?;
    let mut walked = base.to_path_buf();
    for name in folders {
        walked.push(name);
        dir = open_child_dir(&dir, name, &walked, how == Beneath::Write)?;
    }
    walked.push(last);
    let flags = match how {
        // Non-blocking, then refused unless regular: a FIFO must not hang the reader.
        Beneath::Read => libc::O_RDONLY | libc::O_NONBLOCK,
        Beneath::Write => libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_NONBLOCK,
    };
    let file = openat(&dir, last, flags | libc::O_NOFOLLOW, &walked).map(File::from)?;
    super::regular_only(file, &walked)
}

/// `base/rel` read whole through [`open_beneath`], at most `cap` bytes (more is an error
/// naming the cap: a file an experiment wrote may be any size).
pub fn read_beneath(base: &Path, rel: &Path, cap: u64) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let file = open_beneath(base, rel, Beneath::Read)?;
    let mut bytes = Vec::new();
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(io::Error::other(format!(
            "{} is larger than {cap} bytes; not read",
            base.join(rel).display()
        )));
    }
    Ok(bytes)
}

/// Write `bytes` to `base/rel` through [`open_beneath`] (folders created, no link followed).
pub fn write_beneath(base: &Path, rel: &Path, bytes: &[u8]) -> io::Result<()> {
    open_beneath(base, rel, Beneath::Write)?.write_all(bytes)
}

/// The folder `base/rel`, opened without following a link on any component of `rel`
/// (created when `create`). For moving files between folders with [`rename_at`].
pub fn open_dir_beneath(base: &Path, rel: &Path, create: bool) -> io::Result<OwnedFd> {
    let mut dir = open_dir(base)?;
    let mut walked = base.to_path_buf();
    for name in normal_parts(rel)? {
        walked.push(&name);
        dir = open_child_dir(&dir, &name, &walked, create)?;
    }
    Ok(dir)
}

/// Rename `from_dir/from` to `to_dir/to` (both folders opened beforehand, so a link planted
/// meanwhile cannot redirect the move).
pub fn rename_at(from_dir: &OwnedFd, from: &str, to_dir: &OwnedFd, to: &str) -> io::Result<()> {
    let (from, to) = (c_name(from)?, c_name(to)?);
    // SAFETY: both fds are open folders owned by the caller; the names are NUL-terminated.
    let rc = unsafe {
        libc::renameat(
            from_dir.as_raw_fd(),
            from.as_ptr(),
            to_dir.as_raw_fd(),
            to.as_ptr(),
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// `rel`'s names; `..`, a root or a prefix is refused (nothing of this kind leaves `base`).
fn normal_parts(rel: &Path) -> io::Result<Vec<String>> {
    let mut parts = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(n) => {
                parts.push(n.to_str().map(str::to_string).ok_or_else(|| {
                    io::Error::other(format!("{}: a path that is not UTF-8", rel.display()))
                })?)
            }
            Component::CurDir => {}
            _ => {
                return Err(io::Error::other(format!(
                    "{}: only a relative path without `..` is opened inside a workspace",
                    rel.display()
                )));
            }
        }
    }
    Ok(parts)
}

fn open_dir(path: &Path) -> io::Result<OwnedFd> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY)
        .open(path)
        .map(OwnedFd::from)
}

/// The folder `name` inside `dir`, never through a link; created first when `create`.
fn open_child_dir(dir: &OwnedFd, name: &str, walked: &Path, create: bool) -> io::Result<OwnedFd> {
    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW;
    match openat(dir, name, flags, walked) {
        Err(e) if create && e.kind() == io::ErrorKind::NotFound => {
            let c = c_name(name)?;
            // SAFETY: `dir` is an open folder; `c` is NUL-terminated.
            if unsafe { libc::mkdirat(dir.as_raw_fd(), c.as_ptr(), 0o755) } != 0 {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::AlreadyExists {
                    return Err(e);
                }
            }
            openat(dir, name, flags, walked)
        }
        other => other,
    }
}

/// `openat(dir, name, flags | O_CLOEXEC, 0644)`; a link at `name` becomes a [`PlantedLink`].
fn openat(dir: &OwnedFd, name: &str, flags: i32, walked: &Path) -> io::Result<OwnedFd> {
    let c = c_name(name)?;
    // SAFETY: `dir` is an open folder, `c` NUL-terminated; the fd returned is owned below.
    let fd = unsafe {
        libc::openat(
            dir.as_raw_fd(),
            c.as_ptr(),
            flags | libc::O_CLOEXEC,
            0o644 as libc::c_uint,
        )
    };
    if fd >= 0 {
        // SAFETY: a fresh fd nobody else owns.
        return Ok(unsafe { OwnedFd::from_raw_fd(fd) });
    }
    let e = io::Error::last_os_error();
    // ELOOP: a link at the last component under O_NOFOLLOW; ENOTDIR: a link (or a file)
    // where a folder was asked for. Only a look at the entry itself tells them apart.
    if matches!(e.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) && is_link_at(dir, &c) {
        return Err(io::Error::other(PlantedLink {
            link: walked.to_path_buf(),
        }));
    }
    Err(e)
}

fn is_link_at(dir: &OwnedFd, name: &std::ffi::CStr) -> bool {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `st` is written by fstatat before it is read, and only read on success.
    let rc = unsafe {
        libc::fstatat(
            dir.as_raw_fd(),
            name.as_ptr(),
            st.as_mut_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    // SAFETY: rc == 0 means fstatat filled `st`.
    rc == 0 && (unsafe { st.assume_init() }.st_mode & libc::S_IFMT) == libc::S_IFLNK
}

fn c_name(name: &str) -> io::Result<std::ffi::CString> {
    std::ffi::CString::new(name).map_err(|_| io::Error::other(format!("{name:?}: a NUL in a name")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_on_any_component_is_refused_and_named() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let (ws, host) = (dir.path().join("ws"), dir.path().join("host"));
        fs::create_dir_all(ws.join("results"))?;
        fs::create_dir_all(&host)?;
        fs::write(host.join("metrics.jsonl"), "{\"accuracy\":0.99}\n")?;
        fs::write(ws.join("results/ok.txt"), "plain")?;
        let read = |rel: &str| read_beneath(&ws, Path::new(rel), 1024);
        assert_eq!(read("results/ok.txt")?, b"plain");
        // The middle component, the last one, and a link to a folder inside: all refused.
        fs::rename(ws.join("results"), ws.join("real"))?;
        std::os::unix::fs::symlink(&host, ws.join("results"))?;
        let e = read("results/metrics.jsonl").unwrap_err();
        let link = planted_link(&e).map(|l| l.link.clone());
        assert_eq!(link, Some(ws.join("results")), "{e}");
        std::os::unix::fs::symlink(host.join("metrics.jsonl"), ws.join("real/m"))?;
        assert!(planted_link(&read("real/m").unwrap_err()).is_some());
        std::os::unix::fs::symlink(ws.join("real"), ws.join("inner"))?;
        assert!(planted_link(&read("inner/ok.txt").unwrap_err()).is_some());
        // Writing through a planted folder link creates nothing where it points.
        let e = write_beneath(&ws, Path::new("results/new/x.py"), b"x").unwrap_err();
        assert!(planted_link(&e).is_some());
        assert!(!host.join("new").exists());
        // Writes create folders; `..` and absolute paths are refused; the cap holds.
        write_beneath(&ws, Path::new("code/pkg/m.py"), b"print(1)\n")?;
        assert_eq!(fs::read(ws.join("code/pkg/m.py"))?, b"print(1)\n");
        assert!(read("../host/metrics.jsonl").is_err());
        assert!(read("/etc/passwd").is_err());
        let e = read_beneath(&ws, Path::new("real/ok.txt"), 3).unwrap_err();
        assert!(e.to_string().contains("larger than 3 bytes"), "{e}");
        // A missing file is NotFound, not a link.
        let e = read("real/none").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        assert!(planted_link(&e).is_none());
        Ok(())
    }
}
