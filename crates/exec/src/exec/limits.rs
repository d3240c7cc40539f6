//! Resource limits and process-group control for a local job: what runs in the forked child
//! before `exec` (a new session, rlimits) and how the parent signals the whole group.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::Duration;

/// The limits applied in the child, as plain numbers computed before the fork.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChildLimits {
    /// RLIMIT_AS in bytes.
    pub address_space: Option<u64>,
    /// RLIMIT_CPU in whole seconds (soft); the hard limit is one second later.
    pub cpu_seconds: Option<u64>,
}

impl ChildLimits {
    pub fn new(memory_limit: Option<u64>, cpu_limit: Option<Duration>) -> ChildLimits {
        ChildLimits {
            address_space: memory_limit,
            // RLIMIT_CPU counts whole seconds; round up so a limit never shrinks to zero.
            cpu_seconds: cpu_limit.map(|d| d.as_secs() + u64::from(d.subsec_nanos() > 0)),
        }
    }
}

/// Makes `command`'s child a session leader (hence leader of its own process group, whose
/// id is its pid) and applies `limits`, just before it execs.
///
/// `setsid` rather than `process_group(0)`: it gives the same own group, and also detaches
/// the job from the researcher's terminal, so Ctrl-C in the TUI does not reach it and the
/// code cannot open `/dev/tty` to read or inject keystrokes. (The two cannot be combined:
/// a group leader may not call `setsid`.)
pub fn install(command: &mut Command, limits: ChildLimits) {
    let as_limit = limits.address_space.map(|b| rlimit(b, b));
    let cpu_limit = limits.cpu_seconds.map(|s| rlimit(s, s.saturating_add(1)));
    // SAFETY: the closure runs in the forked child between fork and exec, where only
    // async-signal-safe functions may be called (the parent may have held locks, e.g. the
    // allocator's, at fork time). It calls only `setsid` and `setrlimit`, both
    // async-signal-safe system-call wrappers; it allocates nothing, takes no locks and
    // touches only the `Copy` values captured above, computed before the fork. Errors are
    // built with `io::Error::last_os_error`, which reads errno without allocating.
    unsafe {
        command.pre_exec(move || {
            if libc::setsid() == -1 {
                return Err(io::Error::last_os_error());
            }
            // No core files: a crashed 2 GB process would otherwise dump into the workspace.
            set(libc::RLIMIT_CORE, rlimit(0, 0))?;
            if let Some(lim) = as_limit {
                set(libc::RLIMIT_AS, lim)?;
            }
            if let Some(lim) = cpu_limit {
                set(libc::RLIMIT_CPU, lim)?;
            }
            Ok(())
        });
    }
}

fn rlimit(soft: u64, hard: u64) -> libc::rlimit {
    libc::rlimit {
        rlim_cur: soft as libc::rlim_t,
        rlim_max: hard as libc::rlim_t,
    }
}

#[cfg(target_os = "linux")]
type Resource = libc::__rlimit_resource_t;
#[cfg(not(target_os = "linux"))]
type Resource = libc::c_int;

/// Async-signal-safe: one `setrlimit` call.
fn set(resource: Resource, lim: libc::rlimit) -> io::Result<()> {
    // SAFETY: `lim` is a valid rlimit on the stack; setrlimit only reads it.
    if unsafe { libc::setrlimit(resource, &lim) } == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Sends `signal` to every process in group `pgid`. Returns false when the group is empty
/// (already gone), which is not an error for a caller cleaning up.
pub fn signal_group(pgid: u32, signal: libc::c_int) -> io::Result<bool> {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "pid out of range",
        ));
    };
    // A pgid of 0 or 1 would signal our own group or everything: never do that.
    if pgid <= 1 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "refusing to signal group 0/1",
        ));
    }
    // SAFETY: killpg has no memory-safety preconditions.
    if unsafe { libc::killpg(pgid, signal) } == 0 {
        return Ok(true);
    }
    let err = io::Error::last_os_error();
    if err.raw_os_error() == Some(libc::ESRCH) {
        Ok(false)
    } else {
        Err(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_seconds_round_up() {
        let l = ChildLimits::new(Some(1 << 28), Some(Duration::from_millis(1500)));
        assert_eq!(l.cpu_seconds, Some(2));
        assert_eq!(l.address_space, Some(1 << 28));
        assert_eq!(
            ChildLimits::new(None, Some(Duration::from_secs(3))).cpu_seconds,
            Some(3)
        );
    }

    #[test]
    fn never_signals_own_group() {
        assert!(signal_group(0, libc::SIGTERM).is_err());
        assert!(signal_group(1, libc::SIGTERM).is_err());
    }
}
