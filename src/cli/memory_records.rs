//! Every Reflective Memory record of a run folder (youra-native or YouRA layout), its
//! warnings printed: what `youra memory list|show` display and what `youra memory import`
//! copies from. Below both commands, so neither imports the other.

use std::path::Path;

use super::no_run;
use crate::rundir::discover;
use crate::rundir::memory::{MemoryRecord, load_dir};

/// The records under every memory root of `dir`, or the exit code once the failure is said.
pub(super) fn records(dir: &Path) -> Result<Vec<MemoryRecord>, i32> {
    let run = discover(dir).map_err(no_run)?;
    let mut all = Vec::new();
    for root in run.memory_roots() {
        let (recs, warnings) = load_dir(&root);
        for w in warnings {
            eprintln!("warning: {w}");
        }
        all.extend(recs);
    }
    Ok(all)
}
