//! Fault injection for crash tests: `YOURA_CRASH_AT=<point>:N` kills the process with
//! SIGKILL at one step of the store's write of revision N (see `journal.rs` for the order):
//! `before` (nothing written yet), `journaled` (the journal written, the VSA not yet
//! replaced), `renamed` (the VSA replaced, youra's copies not yet), `copied` (the numbered
//! copy kept, the last copy not yet), `after` (all done). The kill-sweep test (`tests/kill_sweep.rs`) runs the demo once
//! per revision this way and resumes it, which pins crash points by revision instead of by
//! time. Unset, it costs one cached lookup per write.

use std::sync::OnceLock;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CrashAt {
    Before(u64),
    Journaled(u64),
    Renamed(u64),
    Copied(u64),
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
            "journaled" => Some(CrashAt::Journaled(n)),
            "renamed" => Some(CrashAt::Renamed(n)),
            "copied" => Some(CrashAt::Copied(n)),
            "after" => Some(CrashAt::After(n)),
            _ => None,
        }
    })
}

/// Die here, as `kill -9` would, when this is the configured point.
pub(crate) fn crash_point(at: CrashAt) {
    if configured() == Some(at) {
        // SAFETY: kill(2) on our own pid with a constant signal number.
        unsafe {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
    }
}
