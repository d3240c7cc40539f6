//! What the sandbox adds beyond its namespaces, where the installed bwrap can do it:
//! `--disable-userns` (bwrap 0.8 and later: the job cannot create a user namespace of its
//! own, in which it would be "root" and could write a file capability that the host honours)
//! and `--seccomp FD` (the filter of `seccomp.rs`, refusing set-id modes). Which flags a
//! bwrap has is read once per binary from its `--help`. Locally the filter reaches bwrap as
//! an inherited memfd; a Slurm job's script feeds it on a fixed descriptor (`slurm/script.rs`).

use std::collections::HashMap;
use std::io::{self, Seek, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// The flags beyond the basic set that a given `bwrap` accepts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Features {
    /// `--disable-userns` (bwrap >= 0.8; it needs `--unshare-user`, which every job has).
    pub disable_userns: bool,
    /// `--seccomp FD` (bwrap >= 0.1.8).
    pub seccomp: bool,
}

impl Features {
    /// What `bwrap --help` lists.
    pub(crate) fn from_help(help: &str) -> Features {
        let has = |flag: &str| {
            help.lines()
                .any(|l| l.split_whitespace().next() == Some(flag))
        };
        Features {
            disable_userns: has("--disable-userns"),
            seccomp: has("--seccomp"),
        }
    }
}

/// What a job's record says when `bwrap` lacks a hardening flag (the walk after the job still
/// removes what the flag would have prevented).
pub(crate) fn missing_warnings(bwrap: &Path) -> Vec<String> {
    let found = features(bwrap);
    let mut out = Vec::new();
    if !found.disable_userns {
        out.push(format!("{} has no --disable-userns (bubblewrap 0.8 or later has it): the experiment may create user namespaces of its own; youra removes any file capability it leaves", bwrap.display()));
    }
    if !found.seccomp || super::seccomp::native_filter().is_none() {
        out.push(format!("no seccomp filter for {} on this machine: set-id chmod is not refused inside the sandbox; youra removes any set-id file the experiment leaves", bwrap.display()));
    }
    out
}

/// The features of `bwrap`, asked once per path for the life of the process.
pub fn features(bwrap: &Path) -> Features {
    static SEEN: OnceLock<Mutex<HashMap<PathBuf, Features>>> = OnceLock::new();
    let seen = SEEN.get_or_init(Default::default);
    if let Some(f) = seen.lock().unwrap_or_else(|p| p.into_inner()).get(bwrap) {
        return *f;
    }
    let help = Command::new(bwrap)
        .arg("--help")
        .env_clear()
        .stdin(Stdio::null())
        .output()
        .map(|o| {
            // Older versions print their usage to stderr.
            let mut text = String::from_utf8_lossy(&o.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&o.stderr));
            text
        })
        .unwrap_or_default();
    let found = Features::from_help(&help);
    seen.lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(bwrap.to_path_buf(), found);
    found
}

/// The hardening flags one job's bwrap gets (part of [`super::sandbox::SandboxSpec`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Hardening {
    pub disable_userns: bool,
    /// The descriptor bwrap reads the seccomp program from, when there is one.
    pub seccomp_fd: Option<RawFd>,
}

impl Hardening {
    /// The flags, in bwrap's words.
    pub fn args(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.disable_userns {
            out.push("--disable-userns".to_string());
        }
        if let Some(fd) = self.seccomp_fd {
            out.extend(["--seccomp".to_string(), fd.to_string()]);
        }
        out
    }
}

/// The seccomp program in an anonymous file, open close-on-exec in youra and inherited by
/// exactly one child (see [`SeccompFd::pass_to`]): another job started meanwhile on another
/// thread never sees it.
#[derive(Debug)]
pub struct SeccompFd(OwnedFd);

impl SeccompFd {
    /// The native filter (`seccomp.rs`) in a fresh memfd, or `None` where there is no table
    /// for this machine.
    pub fn native() -> io::Result<Option<SeccompFd>> {
        match super::seccomp::native_filter() {
            Some(bytes) => SeccompFd::holding(&bytes).map(Some),
            None => Ok(None),
        }
    }

    fn holding(bytes: &[u8]) -> io::Result<SeccompFd> {
        // SAFETY: a static NUL-terminated name; the fd returned is owned below.
        let fd = unsafe { libc::memfd_create(c"youra-seccomp".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a fresh fd nobody else owns.
        let mut file = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fd) });
        file.write_all(bytes)?;
        // bwrap reads from the current offset to the end.
        file.rewind()?;
        Ok(SeccompFd(OwnedFd::from(file)))
    }

    pub fn raw(&self) -> RawFd {
        self.0.as_raw_fd()
    }

    /// `command`'s child inherits the descriptor under the same number (close-on-exec is
    /// cleared in the child only). The descriptor lives as long as `command`.
    pub(crate) fn pass_to(self, command: &mut Command) {
        let fd = self.0;
        // SAFETY: between fork and exec only fcntl on a descriptor the closure owns: an
        // async-signal-safe call, no allocation, no lock.
        unsafe {
            command.pre_exec(move || {
                if libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, 0) == -1 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_read_from_the_help_text() {
        let help = "usage: bwrap [OPTIONS...] [--] COMMAND [ARGS...]\n    --seccomp FD                 Load and use seccomp rules from FD (not repeatable)\n    --disable-userns             Disable further use of user namespaces inside sandbox\n    --assert-userns-disabled     Fail unless ...\n";
        let f = Features::from_help(help);
        assert_eq!(
            f,
            Features {
                disable_userns: true,
                seccomp: true
            }
        );
        // 0.6: no --disable-userns; a mention inside another line's text is no flag.
        let old = "    --seccomp FD   Load and use seccomp rules from FD\n    --userns FD    see --disable-userns\n";
        assert!(!Features::from_help(old).disable_userns);
        let h = Hardening {
            disable_userns: true,
            seccomp_fd: Some(7),
        };
        assert_eq!(h.args(), ["--disable-userns", "--seccomp", "7"]);
        assert!(Hardening::default().args().is_empty());
    }

    #[test]
    fn an_old_bwrap_is_named_in_the_warnings_and_asked_once() -> io::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir()?;
        let fake = dir.path().join("bwrap");
        let count = dir.path().join("asked");
        // bubblewrap 0.4's usage: neither flag of interest is listed.
        let script = format!(
            "#!/bin/sh\necho x >> {}\necho 'usage: bwrap [OPTIONS...] COMMAND'\necho '    --unshare-user   Create new user namespace'\n",
            count.display()
        );
        std::fs::write(&fake, script)?;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755))?;
        let w = missing_warnings(&fake);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("no --disable-userns"), "{w:?}");
        assert!(w[1].contains("no seccomp filter"), "{w:?}");
        assert_eq!(features(&fake), Features::default());
        assert_eq!(std::fs::read_to_string(&count)?.lines().count(), 1);
        Ok(())
    }

    #[test]
    fn the_child_reads_the_program_on_the_descriptor_it_was_told() -> io::Result<()> {
        let fd = SeccompFd::holding(b"program")?;
        let n = fd.raw();
        let mut command = Command::new("sh");
        command.args(["-c", &format!("cat <&{n}")]);
        fd.pass_to(&mut command);
        let out = command.output()?;
        assert_eq!(out.stdout, b"program");
        // Close-on-exec in youra: another child does not get it.
        let other = Command::new("sh")
            .args(["-c", &format!("cat <&{n}")])
            .output()?;
        assert!(other.stdout.is_empty());
        Ok(())
    }
}
