//! After every job, local or Slurm: a walk of its workspace for what a sandboxed job must not
//! leave behind. The sandbox maps the job's user to youra's on the host, and the workspace's
//! file system is not `nosuid` (youra cannot mount it so without privileges), so a file the
//! job left is a file youra's user owns, with whatever bits it set. Each of these is a
//! sandbox violation, named in the job's record and removed (the entry, never what a link
//! points to: no link is followed, and every removal is an `unlinkat` relative to the folder
//! opened on the way down):
//! - set-uid and set-gid files (a set-uid copy of bash runs as youra's user, root in CI,
//!   for any local user who reaches it); a folder keeps its place, its bits are cleared;
//! - `security.*` extended attributes, file capabilities first (`security.capability`
//!   written from a nested user namespace grants `cap_setuid` on the host), except the labels
//!   a security module attaches to every file by itself ([`LSM_LABELS`]);
//! - FIFOs, sockets and devices (a FIFO as `metrics.jsonl` blocks its reader forever); in
//!   `tmp/` they are only cleared, with a warning (see [`Findings::cleared`]);
//! - regular files over [`MAX_FILE_BYTES`] in apparent size outside `tmp/` (a sparse 8 GiB
//!   file costs nothing to make and a minute of `git add` per node to commit).
//!
//! The walk is bounded ([`MAX_ENTRIES`], [`MAX_DEPTH`]); what lies beyond is a violation too
//! (unchecked, so untrusted), and stays behind the workspace's 0700. See
//! `docs/decisions/0001-sandbox-required-and-unprivileged.md`.

use std::ffi::{CStr, CString, OsStr};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The largest file (apparent size, `st_size`) a workspace may hold outside `tmp/`: the
/// metrics reader's own cap. Everything outside `tmp/` is read by youra or committed as the
/// node's code and results (`git add` hashes every byte, holes included), so a larger file
/// is either a data dump youra will not read or a stall planted for it.
pub const MAX_FILE_BYTES: u64 = super::metrics::MAX_BYTES;
/// Entries looked at, in all: an honest workspace holds hundreds; each costs two system
/// calls (100,000 entries took 0.58 s in a debug build here), so the walk stays near a
/// second at worst.
pub(crate) const MAX_ENTRIES: usize = 200_000;
/// Folders below the workspace looked into.
pub const MAX_DEPTH: usize = 64;
/// The experiment's `TMPDIR`: neither read nor committed, so large scratch files are honest
/// there (the other checks still apply).
const SCRATCH: &str = "tmp";
/// Labels a Linux security module gives every file itself; no privilege, and a host running
/// SELinux would otherwise fail every job.
pub(crate) const LSM_LABELS: [&str; 3] =
    ["security.selinux", "security.SMACK64", "security.apparmor"];

/// What the walk found and did. Every entry names the path.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Findings {
    pub violations: Vec<String>,
    /// FIFOs and sockets removed from `tmp/`: an honest program killed at its time limit
    /// leaves its IPC sockets in `TMPDIR` (Python's multiprocessing does), and youra reads
    /// nothing there, so they are cleared with a warning, not held against the job.
    pub cleared: Vec<String>,
}

/// Walks `workspace` (trusted as given: youra chose it) and removes what a job must not
/// leave behind; see the module's documentation.
pub fn scan(workspace: &Path) -> Findings {
    scan_within(workspace, Limits::default())
}

/// How far the walk goes (the tests make these small).
#[derive(Debug, Clone, Copy)]
struct Limits {
    entries: usize,
    depth: usize,
    file_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            entries: MAX_ENTRIES,
            depth: MAX_DEPTH,
            file_bytes: MAX_FILE_BYTES,
        }
    }
}

fn scan_within(workspace: &Path, limits: Limits) -> Findings {
    let mut walk = Walk {
        seen: 0,
        limits,
        findings: Findings::default(),
    };
    let root = match open_dir(workspace) {
        Ok(fd) => fd,
        Err(e) => {
            walk.say(
                workspace,
                format!("could not be checked after the job: {e}"),
            );
            return walk.findings;
        }
    };
    if let Ok(st) = fstat(&root)
        && st.st_mode & SET_ID != 0
    {
        let cleared = fchmod(&root, st.st_mode & 0o7777 & !SET_ID);
        walk.report(workspace, Found::SetIdDir(st.st_mode), cleared);
    }
    walk.dir(&root, workspace, 0, false);
    walk.findings
}

const SET_ID: libc::mode_t = libc::S_ISUID | libc::S_ISGID;

/// One thing a job must not leave.
enum Found {
    SetId(libc::mode_t),
    SetIdDir(libc::mode_t),
    Security(Vec<String>),
    Special(&'static str),
    Huge(u64),
}

struct Walk {
    seen: usize,
    limits: Limits,
    findings: Findings,
}

impl Walk {
    fn say(&mut self, path: &Path, what: String) {
        self.findings
            .violations
            .push(format!("{} {what}", path.display()));
    }

    /// Records `found` at `path` and what removing (or clearing) it did.
    fn report(&mut self, path: &Path, found: Found, done: io::Result<()>) {
        let (what, action) = match found {
            Found::SetId(mode) => (
                format!(
                    "was a set-{} file (mode {:o}): a sandboxed job must leave no privilege behind",
                    set_which(mode),
                    mode & 0o7777
                ),
                "removed",
            ),
            Found::SetIdDir(mode) => (
                format!(
                    "was a set-{} folder (mode {:o})",
                    set_which(mode),
                    mode & 0o7777
                ),
                "its set-id bits cleared",
            ),
            Found::Security(names) => (
                format!(
                    "carried the extended attribute{} {} (a file capability grants privileges to whoever runs it)",
                    if names.len() == 1 { "" } else { "s" },
                    names.join(", ")
                ),
                "removed",
            ),
            Found::Special(kind) => (
                format!("was {kind}: a workspace holds only plain files, folders and links"),
                "removed",
            ),
            Found::Huge(size) => (
                format!(
                    "was {size} bytes in apparent size, over the {} bytes a workspace file may hold outside {SCRATCH}/ (youra reads and commits these files)",
                    self.limits.file_bytes
                ),
                "removed",
            ),
        };
        let outcome = match done {
            Ok(()) => format!("; {action} by youra"),
            Err(e) => format!("; youra could not remove it ({e}): remove it by hand"),
        };
        self.say(path, format!("{what}{outcome}"));
    }

    fn dir(&mut self, dir: &OwnedFd, path: &Path, depth: usize, scratch: bool) {
        let budget = self.limits.entries.saturating_sub(self.seen);
        let (names, cut) = match read_names(dir, budget) {
            Ok(read) => read,
            Err(e) => {
                self.say(path, format!("could not be listed after the job ({e})"));
                return;
            }
        };
        self.seen += names.len();
        if cut {
            let max = self.limits.entries;
            self.say(path, format!("was not checked to the end: the workspace holds more than {max} entries; what lies beyond is untrusted (the workspace stays private to its owner)"));
        }
        for name in names {
            let child = path.join(OsStr::from_bytes(name.as_bytes()));
            let Ok(st) = stat_at(dir, &name) else {
                continue;
            };
            let kind = st.st_mode & libc::S_IFMT;
            if kind == libc::S_IFDIR {
                let scratch = scratch || (depth == 0 && name.as_bytes() == SCRATCH.as_bytes());
                self.subdir(dir, &name, &child, st.st_mode, depth, scratch);
                continue;
            }
            let found = match kind {
                libc::S_IFLNK => continue,
                libc::S_IFIFO => Found::Special("a FIFO"),
                libc::S_IFSOCK => Found::Special("a socket"),
                libc::S_IFCHR | libc::S_IFBLK => Found::Special("a device"),
                libc::S_IFREG if st.st_mode & SET_ID != 0 => Found::SetId(st.st_mode),
                libc::S_IFREG => match security_attrs(dir, &name, &child) {
                    names if !names.is_empty() => Found::Security(names),
                    _ if !scratch && st.st_size as u64 > self.limits.file_bytes => {
                        Found::Huge(st.st_size as u64)
                    }
                    _ => continue,
                },
                _ => Found::Special("not a regular file"),
            };
            let removed = unlink_at(dir, &name);
            if let (true, Found::Special(kind)) = (scratch, &found) {
                let done = removed.map_or_else(
                    |e| format!("could not be removed ({e})"),
                    |()| "removed".into(),
                );
                let note = format!(
                    "{} was {kind} left in the job's scratch folder; {done}",
                    child.display()
                );
                self.findings.cleared.push(note);
                continue;
            }
            self.report(&child, found, removed);
        }
    }

    fn subdir(
        &mut self,
        parent: &OwnedFd,
        name: &CStr,
        path: &Path,
        mode: libc::mode_t,
        depth: usize,
        scratch: bool,
    ) {
        if mode & SET_ID != 0 {
            let cleared = chmod_at(parent, name, mode & 0o7777 & !SET_ID);
            self.report(path, Found::SetIdDir(mode), cleared);
        }
        let attrs = security_attrs(parent, name, path);
        if !attrs.is_empty() {
            let removed = attrs
                .iter()
                .try_for_each(|a| remove_attr(parent, name, path, a));
            self.report(path, Found::Security(attrs), removed);
        }
        if depth + 1 > self.limits.depth {
            let max = self.limits.depth;
            self.say(path, format!("was not checked: it lies more than {max} folders deep; what it holds is untrusted (the workspace stays private to its owner)"));
            return;
        }
        match open_child_dir(parent, name, mode) {
            Ok(fd) => self.dir(&fd, path, depth + 1, scratch),
            Err(e) => self.say(path, format!("could not be opened after the job ({e})")),
        }
    }
}

fn set_which(mode: libc::mode_t) -> &'static str {
    match (mode & libc::S_ISUID != 0, mode & libc::S_ISGID != 0) {
        (true, true) => "uid and set-gid",
        (true, false) => "uid",
        _ => "gid",
    }
}

fn cvt(rc: libc::c_int) -> io::Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

fn open_dir(path: &Path) -> io::Result<OwnedFd> {
    let c = CString::new(path.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // SAFETY: `c` is NUL-terminated; the fd returned is owned below.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh fd nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The folder `name` in `parent`, never through a link. A folder the job made unreadable
/// (mode 000) is given back to its owner first: youra must be able to look inside.
fn open_child_dir(parent: &OwnedFd, name: &CStr, mode: libc::mode_t) -> io::Result<OwnedFd> {
    let open = || {
        let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: `parent` is an open folder, `name` NUL-terminated.
        let fd = unsafe { libc::openat(parent.as_raw_fd(), name.as_ptr(), flags) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a fresh fd nobody else owns.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    };
    match open() {
        Err(e) if e.raw_os_error() == Some(libc::EACCES) => {
            chmod_at(parent, name, (mode | 0o700) & 0o7777 & !SET_ID)?;
            open()
        }
        other => other,
    }
}

/// The names in `dir` (no `.` or `..`), at most `budget` of them; true when more were left.
fn read_names(dir: &OwnedFd, budget: usize) -> io::Result<(Vec<CString>, bool)> {
    // SAFETY: F_DUPFD_CLOEXEC on an open fd; the copy is handed to fdopendir, which owns it
    // from then on and closes it in closedir.
    let fd = unsafe { libc::fcntl(dir.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is an open folder this function owns.
    let stream = unsafe { libc::fdopendir(fd) };
    if stream.is_null() {
        let e = io::Error::last_os_error();
        // SAFETY: fdopendir failed, so `fd` is still ours to close.
        unsafe { libc::close(fd) };
        return Err(e);
    }
    let (mut names, mut cut) = (Vec::new(), false);
    loop {
        // SAFETY: `stream` is a valid DIR*; the entry is read before the next readdir call.
        let entry = unsafe { libc::readdir64(stream) };
        if entry.is_null() {
            break;
        }
        // SAFETY: d_name is a NUL-terminated array inside the entry readdir returned.
        let name = unsafe { CStr::from_ptr((*entry).d_name.as_ptr()) };
        if matches!(name.to_bytes(), b"." | b"..") {
            continue;
        }
        if names.len() >= budget {
            cut = true;
            break;
        }
        names.push(name.to_owned());
    }
    // SAFETY: `stream` came from fdopendir and is closed once.
    unsafe { libc::closedir(stream) };
    Ok((names, cut))
}

fn fstat(fd: &OwnedFd) -> io::Result<libc::stat> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: fstat fills `st` on success, and it is read only then.
    cvt(unsafe { libc::fstat(fd.as_raw_fd(), st.as_mut_ptr()) })?;
    // SAFETY: rc == 0: `st` was written.
    Ok(unsafe { st.assume_init() })
}

fn stat_at(dir: &OwnedFd, name: &CStr) -> io::Result<libc::stat> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: as in `fstat`; AT_SYMLINK_NOFOLLOW: a link is described, never followed.
    cvt(unsafe {
        libc::fstatat(
            dir.as_raw_fd(),
            name.as_ptr(),
            st.as_mut_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    })?;
    // SAFETY: rc == 0: `st` was written.
    Ok(unsafe { st.assume_init() })
}

fn fchmod(fd: &OwnedFd, mode: libc::mode_t) -> io::Result<()> {
    // SAFETY: an open fd.
    cvt(unsafe { libc::fchmod(fd.as_raw_fd(), mode) })
}

/// chmod of `name` in `dir`, which the caller found to be a folder (no job runs any more to
/// swap it for a link: the sandbox's processes die with it).
fn chmod_at(dir: &OwnedFd, name: &CStr, mode: libc::mode_t) -> io::Result<()> {
    // SAFETY: an open folder and a NUL-terminated name.
    cvt(unsafe { libc::fchmodat(dir.as_raw_fd(), name.as_ptr(), mode, 0) })
}

/// Removes the non-folder `name` from `dir`. A folder the job made read-only is given its
/// owner's write bit back first.
fn unlink_at(dir: &OwnedFd, name: &CStr) -> io::Result<()> {
    // SAFETY: an open folder and a NUL-terminated name; unlinkat follows no link.
    let unlink = || cvt(unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), 0) });
    match unlink() {
        Err(e) if e.raw_os_error() == Some(libc::EACCES) => {
            let st = fstat(dir)?;
            fchmod(dir, (st.st_mode | 0o700) & 0o7777 & !SET_ID)?;
            unlink()
        }
        other => other,
    }
}

/// `name` in `dir` as a path the `l*xattr` calls resolve without following a link at its end:
/// through `/proc/self/fd`, so no folder on the way can have been swapped; `full` (the same
/// entry by its whole path) where /proc is not mounted, since no job runs any more to swap one.
fn at_path(dir: &OwnedFd, name: &CStr, full: &Path) -> CString {
    static PROC: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let bytes = if *PROC.get_or_init(|| Path::new("/proc/self/fd").is_dir()) {
        let mut bytes = format!("/proc/self/fd/{}/", dir.as_raw_fd()).into_bytes();
        bytes.extend_from_slice(name.to_bytes());
        bytes
    } else {
        full.as_os_str().as_bytes().to_vec()
    };
    // A name from readdir holds no NUL, nor does a path built from such names.
    CString::new(bytes).unwrap_or_default()
}

/// The `security.*` attribute names of `name` in `dir`, but the security modules' labels.
fn security_attrs(dir: &OwnedFd, name: &CStr, full: &Path) -> Vec<String> {
    let path = at_path(dir, name, full);
    let mut buf = vec![0u8; 4096];
    let len = loop {
        // SAFETY: `buf` is writable for its length; llistxattr writes at most that.
        let n = unsafe { libc::llistxattr(path.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            break n as usize;
        }
        // ERANGE: a longer list than the buffer (the kernel's own cap is 64 KiB).
        if io::Error::last_os_error().raw_os_error() == Some(libc::ERANGE) && buf.len() < 1 << 17 {
            buf.resize(buf.len() * 4, 0);
            continue;
        }
        return Vec::new();
    };
    buf[..len]
        .split(|&b| b == 0)
        .filter(|n| !n.is_empty())
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .filter(|n| n.starts_with("security.") && !LSM_LABELS.contains(&n.as_str()))
        .collect()
}

fn remove_attr(dir: &OwnedFd, name: &CStr, full: &Path, attr: &str) -> io::Result<()> {
    let path = at_path(dir, name, full);
    let attr = CString::new(attr).map_err(io::Error::other)?;
    // SAFETY: both strings NUL-terminated; lremovexattr follows no link at the end.
    cvt(unsafe { libc::lremovexattr(path.as_ptr(), attr.as_ptr()) })
}

#[cfg(test)]
#[path = "scan_tests.rs"]
mod tests;
