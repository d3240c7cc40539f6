//! The store's write lock (`.youra/vsa.lock`): one writer at a time, a holder that never
//! lets go named instead of waited for in silence, and the orphans of killed writers
//! removed by the next holder.

use std::fs::{self, File};
use std::path::Path;

use super::store_core::{Store, StoreError, io};

/// Whether a writer that waits for the lock says so on stderr (besides the log). The TUI
/// turns it off: stderr is the screen it draws on.
pub static NOTICES_ON_STDERR: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(true);

impl Store {
    /// The write lock. A holder that never lets go (a writer stopped with ^Z, a hung
    /// process) is named after `YOURA_LOCK_TIMEOUT_S` (default 30 s) instead of waited for
    /// in silence; holders write their pid into the lock file for that message.
    pub(super) fn lock(&self) -> Result<File, StoreError> {
        use std::io::Write;
        fs::create_dir_all(self.side()).map_err(io("create", self.side()))?;
        let lock_path = self.side().join("vsa.lock");
        let mut file = File::options()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&lock_path)
            .map_err(io("open", &lock_path))?;
        let limit = std::env::var("YOURA_LOCK_TIMEOUT_S")
            .ok()
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(30.0)
            .max(0.0);
        let started = std::time::Instant::now();
        let mut told = false;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(fs::TryLockError::WouldBlock) => {
                    if !told && started.elapsed() >= std::time::Duration::from_secs(1) {
                        told = true;
                        let holder = lock_holder(&lock_path);
                        let line = format!(
                            "waiting for the VSA lock {} (held by {holder}); giving up after {limit:.0} s (YOURA_LOCK_TIMEOUT_S)",
                            lock_path.display()
                        );
                        tracing::warn!(target: "youra::vsa", "{line}");
                        if NOTICES_ON_STDERR.load(std::sync::atomic::Ordering::Relaxed) {
                            eprintln!("youra: {}", crate::term::escape(&line));
                        }
                    }
                    if started.elapsed().as_secs_f64() >= limit {
                        return Err(StoreError::LockTimeout {
                            waited_s: started.elapsed().as_secs(),
                            holder: lock_holder(&lock_path),
                            path: lock_path,
                        });
                    }
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(fs::TryLockError::Error(e)) => return Err(io("lock", &lock_path)(e)),
            }
        }
        let _ = file.set_len(0);
        let _ = writeln!(file, "{}", std::process::id());
        self.remove_orphans();
        self.remove_side_orphans();
        Ok(file)
    }

    /// Temp files of writers killed between writing and renaming (`.<name>.<pid>.<n>.tmp`,
    /// see `fsutil`). Only the lock holder writes the VSA, so under the lock every such
    /// file is an orphan.
    fn remove_orphans(&self) {
        let Some(name) = self.path().file_name().and_then(|n| n.to_str()) else {
            return;
        };
        let prefix = format!(".{name}.");
        let Ok(entries) = fs::read_dir(crate::fsutil::parent(self.path())) else {
            return;
        };
        for e in entries.flatten() {
            let file = e.file_name();
            let Some(f) = file.to_str() else { continue };
            if f.starts_with(&prefix) && f.ends_with(".tmp") {
                let _ = fs::remove_file(e.path());
            }
        }
    }
}

/// Who holds the lock, from the pid its holder wrote, with the process' state when known.
fn lock_holder(lock_path: &Path) -> String {
    let Some(pid) = crate::fsutil::read_run_text(lock_path)
        .ok()
        .and_then(|t| t.trim().parse::<u32>().ok())
    else {
        return "another process".into();
    };
    let state = fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit(')').next().map(|r| r.trim_start().chars().next()))
        .flatten();
    match state {
        Some('T' | 't') => format!("pid {pid} (stopped)"),
        Some(_) => format!("pid {pid} (running)"),
        None => format!("pid {pid}"),
    }
}
