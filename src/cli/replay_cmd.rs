//! `youra replay <recorded-run> <new-dir>`: a replay copy of a recorded run, to step
//! through with new code (see `crate::engine::replay_copy`).

use std::path::Path;

use color_eyre::eyre::Result;

use super::fail;
use crate::engine::replay_copy::{ReplayCopyError, replay_copy};

pub fn run(recorded: &Path, dir: &Path) -> Result<i32> {
    match replay_copy(recorded, dir) {
        Ok(copy) => {
            let d = copy.dir.display();
            println!(
                "replay copy of {} in {d}: {} recorded exchanges, {} data files",
                copy.from.display(),
                copy.exchanges,
                copy.data_files
            );
            println!(
                "next: `youra steer {d} breakpoint \"Coding & Validation\"`, then `youra run {d} --step` \
                 (or `youra tui {d} --run`); `youra compare {} {d}` shows where the routes part",
                copy.from.display()
            );
            Ok(0)
        }
        Err(e @ ReplayCopyError::Init(_)) => Ok(fail(&e, "give the copy a new folder")),
        Err(e @ (ReplayCopyError::NotNative(_) | ReplayCopyError::NoTranscripts(_))) => Ok(fail(
            &e,
            "replay a run folder that `youra run` or `youra demo` made (it keeps transcripts/)",
        )),
        Err(e) => Ok(fail(&e, "")),
    }
}
