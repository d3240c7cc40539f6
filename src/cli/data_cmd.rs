//! `youra data fetch RUN URL`: the download step (issue 43 item 4, `engine::data_fetch`).
//! The researcher running it is the approval; the fetch runs in its own sandbox with the
//! network on, and the file lands in `data/` read-only with its sha256 in the manifest and
//! its source in `data/SOURCES.tsv`. Exit 0 kept, 1 refused or failed (nothing kept), 2 for
//! a folder that holds no run.

use std::path::PathBuf;

use clap::Subcommand;
use color_eyre::eyre::Result;

use crate::engine::data_fetch::{FetchError, fetch};

#[derive(Debug, Subcommand)]
pub enum DataCommand {
    /// Fetch one http(s) URL into the run's `data/` (read-only, its sha256 in
    /// `data/MANIFEST.sha256`, its source in `data/SOURCES.tsv`), in a sandbox of its own
    /// with the network on: experiments have no network, so a data set comes in this way.
    Fetch {
        /// Run folder.
        dir: PathBuf,
        /// The http(s) URL of the file.
        url: String,
        /// The file's name in data/ (default: the URL's last path segment).
        #[arg(long, value_name = "NAME")]
        name: Option<String>,
        /// The sha256 the file must have (`sha256sum`'s 64 hex digits): a mismatch keeps nothing.
        #[arg(long, value_name = "HEX")]
        sha256: Option<String>,
        /// Run the download outside the sandbox (only where bubblewrap cannot run).
        #[arg(long)]
        no_sandbox: bool,
    },
}

pub fn run(cmd: DataCommand) -> Result<i32> {
    match cmd {
        DataCommand::Fetch {
            dir,
            url,
            name,
            sha256,
            no_sandbox,
        } => {
            let run = super::abs(dir);
            if !run.join("verification_state.yaml").is_file() {
                eprintln!(
                    "{}: no run here (no verification_state.yaml): give a run folder (`youra init` makes one)",
                    crate::term::escape(&run.display().to_string())
                );
                return Ok(super::NO_RUN);
            }
            let mode = if no_sandbox {
                crate::exec::SandboxMode::Off
            } else {
                crate::exec::SandboxMode::Required
            };
            match fetch(&run, &url, name.as_deref(), sha256.as_deref(), mode) {
                Ok(f) => {
                    println!(
                        "data/{}: {} bytes, sha256 {} (in data/MANIFEST.sha256; source in data/SOURCES.tsv)",
                        crate::term::escape(&f.name),
                        f.bytes,
                        f.sha256
                    );
                    Ok(0)
                }
                Err(FetchError::Refused(why) | FetchError::Failed(why)) => {
                    eprintln!("{why}");
                    Ok(1)
                }
            }
        }
    }
}
