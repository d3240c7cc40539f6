//! `youra replay <recorded-run> <new-dir>`: a replay copy of a recorded run, to step
//! through with new code (see `crate::engine::replay_copy`). The recorded run's tool
//! commands and sandbox/network settings are left out and named unless the researcher
//! passes `--keep-commands`: another person's run must not start programs here unasked.

use std::path::Path;

use color_eyre::eyre::Result;

use super::fail;
use crate::engine::replay_copy::{ReplayCopyError, ReplayOptions, replay_copy_with};

pub fn run(recorded: &Path, dir: &Path, keep_commands: bool) -> Result<i32> {
    match replay_copy_with(recorded, dir, ReplayOptions { keep_commands }) {
        Ok(copy) => {
            let d = copy.dir.display();
            println!(
                "replay copy of {} in {d}: {} recorded exchanges, {} data files",
                copy.from.display(),
                copy.exchanges,
                copy.data_files
            );
            if !copy.dropped.is_empty() {
                if copy.kept_commands {
                    println!("kept from the recorded run's youra.toml (--keep-commands):");
                } else {
                    println!(
                        "left out of the copy's youra.toml (the recorded run's commands and \
                         confinement; `youra replay --keep-commands` keeps them):"
                    );
                }
                for item in &copy.dropped {
                    println!("  {item}");
                }
            }
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
