//! One engine per run: an OS file lock on `.youra/engine.lock` (released by the kernel when
//! the process dies, so a killed engine never blocks its successor), with the holder's pid
//! and start time written inside for the message a second engine shows.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use super::error::EngineError;

pub struct EngineLock {
    _file: File,
    /// The previous holder's record when it died without releasing (for the log).
    pub stale: Option<String>,
}

impl EngineLock {
    pub fn acquire(run: &Path) -> Result<EngineLock, EngineError> {
        let dir = run.join(".youra");
        std::fs::create_dir_all(&dir)
            .map_err(|e| EngineError::Io(format!("cannot create {}: {e}", dir.display())))?;
        let path = dir.join("engine.lock");
        let io =
            |e: std::io::Error| EngineError::Io(format!("cannot open {}: {e}", path.display()));
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        let mut previous = String::new();
        let _ = file.read_to_string(&mut previous);
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let who = if previous.trim().is_empty() {
                    "another process".into()
                } else {
                    previous.trim().to_string()
                };
                return Err(EngineError::Locked(format!(
                    "{who}; stop it first (its lock is {})",
                    path.display()
                )));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
        }
        let stale = (!previous.trim().is_empty()).then(|| previous.trim().to_string());
        let me = format!(
            "pid {} since {}",
            std::process::id(),
            chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        );
        file.set_len(0).map_err(io)?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        file.write_all(me.as_bytes()).map_err(io)?;
        Ok(EngineLock { _file: file, stale })
    }
}

pub use crate::rundir::engine_lock::holder;

impl Drop for EngineLock {
    fn drop(&mut self) {
        // An empty file tells the next engine the last one stopped cleanly.
        let _ = self._file.set_len(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_engine_is_refused_and_a_dead_ones_lock_is_taken() {
        let run = tempfile::tempdir().unwrap();
        let first = EngineLock::acquire(run.path()).unwrap();
        assert!(first.stale.is_none());
        let e = EngineLock::acquire(run.path()).err().unwrap().to_string();
        assert!(e.contains(&format!("pid {}", std::process::id())), "{e}");
        drop(first);
        std::fs::write(
            run.path().join(".youra/engine.lock"),
            "pid 999999 since 2026-01-01T00:00:00Z",
        )
        .unwrap();
        let again = EngineLock::acquire(run.path()).unwrap();
        assert_eq!(
            again.stale.as_deref(),
            Some("pid 999999 since 2026-01-01T00:00:00Z")
        );
    }

    #[test]
    fn the_holder_is_known_only_while_an_engine_holds_the_lock() {
        let run = tempfile::tempdir().unwrap();
        assert_eq!(holder(run.path()), None, "no lock file");
        let lock = EngineLock::acquire(run.path()).unwrap();
        let who = holder(run.path()).unwrap();
        assert!(
            who.starts_with(&format!("pid {} since", std::process::id())),
            "{who}"
        );
        // The probe left the lock as it was: a second engine is still refused.
        assert!(EngineLock::acquire(run.path()).is_err());
        drop(lock);
        assert_eq!(holder(run.path()), None);
        // A dead engine's record stays in the file; nobody holds the lock.
        std::fs::write(run.path().join(".youra/engine.lock"), "pid 999999 since x").unwrap();
        assert_eq!(holder(run.path()), None);
        EngineLock::acquire(run.path()).unwrap();
    }
}
