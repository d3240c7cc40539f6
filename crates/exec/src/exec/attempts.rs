//! The numbered attempt folders under a job's `results/`: where the executor moves an earlier
//! attempt's files before the next one starts (`local.rs`), and what the collection records
//! account for (`trust.rs`). Below both, so the back end and the records do not import each
//! other.

use std::fs;
use std::path::Path;

/// Where earlier attempts' files are kept, under `results/`.
pub const ATTEMPTS_DIR: &str = "attempts";

/// The numbered attempt folders under `attempts`, in order (anything else is ignored).
pub fn attempt_numbers(attempts: &Path) -> Vec<u32> {
    let mut n: Vec<u32> = fs::read_dir(attempts)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect();
    n.sort_unstable();
    n
}
