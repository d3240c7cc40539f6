//! `youra replay <recorded-run> <new-dir>`: a replay copy of a recorded run, to step
//! through with new code (see `crate::engine::replay_copy`). The recorded run's tool and
//! notice commands, its notice and literature addresses, and its sandbox, network and
//! scheduler settings are left out and named unless the researcher passes `--keep-commands`
//! (then each one kept is listed): another person's run must not start programs here or send
//! the researcher's text and keys elsewhere unasked. Links in it are named, never copied.

use std::path::Path;

use color_eyre::eyre::Result;

use super::fail;
use crate::engine::replay_copy::{ReplayCopyError, ReplayOptions, replay_copy_with};

pub fn run(recorded: &Path, dir: &Path, keep_commands: bool) -> Result<i32> {
    match replay_copy_with(recorded, dir, ReplayOptions { keep_commands }) {
        Ok(copy) => {
            // What the copy's youra.toml names was written by youra (kept only on
            // --keep-commands, each listed below): the researcher's own.
            super::trust_cmd::record_own(&copy.dir, "replay");
            let d = copy.dir.display();
            println!(
                "replay copy of {} in {d}: {} recorded exchanges, {} data files",
                copy.from.display(),
                copy.exchanges,
                copy.data_files
            );
            if !copy.dropped.is_empty() {
                if copy.kept_commands {
                    println!(
                        "kept from the recorded run's youra.toml (--keep-commands; each runs or \
                         sends as the recorded run says):"
                    );
                } else {
                    println!(
                        "left out of the copy's youra.toml (the recorded run's commands, \
                         addresses and confinement; `youra replay --keep-commands` keeps them):"
                    );
                }
                for item in &copy.dropped {
                    println!("  {item}");
                }
            }
            if !copy.skipped.is_empty() {
                println!("not copied from the recorded run (youra copies no link):");
                for item in &copy.skipped {
                    println!("  {item}");
                }
            }
            match wait_for_researcher(&copy.dir.join("youra.toml")) {
                Ok(Some(was)) => println!(
                    "the recorded run's waiting policy (decide an escalation after {was} s) is off \
                     in the copy: escalations wait for you (set [engine] approval_timeout_s in \
                     the copy's youra.toml to decide them unattended)"
                ),
                Ok(None) => {}
                Err(e) => {
                    return Ok(fail(
                        format!("cannot turn off the recorded waiting policy: {e}"),
                        "set [engine] approval_timeout_s = 0 in the copy's youra.toml",
                    ));
                }
            }
            let d = crate::notice::message::shell_word(&copy.dir.display().to_string());
            let from = crate::notice::message::shell_word(&copy.from.display().to_string());
            println!(
                "next: `youra steer {d} breakpoint \"Coding & Validation\"`, then `youra run {d} --step` \
                 (or `youra tui {d} --run`); `youra compare {from} {d}` shows where the routes part"
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

/// A replay copy waits for the researcher: a recorded `approval_timeout_s` above 0 (the
/// headless demo's 0.5 s reject) becomes 0 in the copy, its old value left in a comment.
/// Returns the value it replaced, if any.
fn wait_for_researcher(toml: &Path) -> std::io::Result<Option<String>> {
    let text = crate::fsutil::read_capped_string(toml, 1024 * 1024)?;
    let mut was = None;
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let value = line
                .trim_start()
                .strip_prefix("approval_timeout_s")
                .and_then(|r| r.trim_start().strip_prefix('='))
                .map(|v| v.split('#').next().unwrap_or("").trim().to_string());
            match value {
                Some(v) if v.parse::<f64>().is_ok_and(|x| x > 0.0) => {
                    let new = format!(
                        "approval_timeout_s = 0.0  # {v} in the recorded run; a replay copy waits for you"
                    );
                    was = Some(v);
                    new
                }
                _ => line.to_string(),
            }
        })
        .collect();
    if was.is_some() {
        crate::fsutil::replace(toml, (lines.join("\n") + "\n").as_bytes())?;
    }
    Ok(was)
}
