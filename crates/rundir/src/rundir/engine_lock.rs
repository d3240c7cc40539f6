//! Whether an engine runs a run now: the engine's OS lock on `.youra/engine.lock` (taken by
//! `engine::lock::EngineLock`), probed from the run directory by readers that must not
//! call anything "running" on the events alone (`youra status`, the runs view).

use std::io::Read;
use std::path::Path;

/// Who holds the run's engine lock now: `Some(record)` (`pid N since T`, or `an engine`
/// when the record is empty) while an engine runs the run, `None` when none does. A reader
/// (`youra status`) asks this before calling an experiment "running": the events say an
/// experiment started, only a live engine says anything still follows it. The probe takes
/// a shared lock for an instant and releases it at once.
pub fn holder(run: &Path) -> Option<String> {
    let path = run.join(".youra").join("engine.lock");
    let mut file = crate::fsutil::open_nofollow(&path).ok()?;
    let mut record = String::new();
    let _ = file.read_to_string(&mut record);
    match file.try_lock_shared() {
        Ok(()) => {
            let _ = file.unlock();
            None
        }
        Err(std::fs::TryLockError::WouldBlock) => Some(if record.trim().is_empty() {
            "an engine".into()
        } else {
            record.trim().to_string()
        }),
        // A file system without locks: say nothing rather than guess "running".
        Err(std::fs::TryLockError::Error(_)) => None,
    }
}

/// Whether an engine has ever run this run: it leaves `.youra/engine.lock` behind (emptied
/// when it stops cleanly, its record kept when it was killed). With no [`holder`] and the
/// workflow still ACTIVE, the run was interrupted rather than never started.
pub fn ran_before(run: &Path) -> bool {
    std::fs::symlink_metadata(run.join(".youra").join("engine.lock")).is_ok()
}
