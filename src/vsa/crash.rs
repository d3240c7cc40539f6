//! Fault injection for crash tests: `YOURA_CRASH_AT=before:N` or `after:N` kills the process
//! with SIGKILL just before the store renames revision N into place, or just after it (and
//! its copies) are written. The kill-sweep test (`tests/kill_sweep.rs`) runs the demo once
//! per revision this way and resumes it, which pins crash points by revision instead of by
//! time. Unset, it costs one cached lookup per write.

use std::sync::OnceLock;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrashAt {
    Before(u64),
    After(u64),
}

fn configured() -> Option<CrashAt> {
    static AT: OnceLock<Option<CrashAt>> = OnceLock::new();
    *AT.get_or_init(|| {
        let v = std::env::var("YOURA_CRASH_AT").ok()?;
        let (when, n) = v.split_once(':')?;
        let n = n.trim().parse().ok()?;
        match when.trim() {
            "before" => Some(CrashAt::Before(n)),
            "after" => Some(CrashAt::After(n)),
            _ => None,
        }
    })
}

/// Die here, as `kill -9` would, when this is the configured point.
pub fn crash_point(at: CrashAt) {
    if configured() == Some(at) {
        // SAFETY: kill(2) on our own pid with a constant signal number.
        unsafe {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
    }
}
