//! The `youra` command line: argument parsing and dispatch. Each subcommand lives in its
//! own module and composes the library layers; nothing here writes a file by itself.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

mod memory_cmd;
mod report_cmd;
mod status;
mod steer_cmd;
mod vsa_cmd;

/// youra: an autonomous research agent (YouRA lifecycle) and the tools to watch and steer it.
///
/// Every command takes a run folder: a youra run, a YouRA research folder
/// (docs/youra_research/<run>), or a YouRA task folder (the run inside is found for you).
#[derive(Debug, Parser)]
#[command(
    name = "youra",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Where the research stands: stage, workflow, sub-hypotheses and their gates, recent
    /// history, memory records and archives.
    Status {
        /// Run folder (youra run, YouRA research folder or task folder).
        dir: PathBuf,
        /// Print machine-readable JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Read and edit the verification state (verification_state.yaml) safely.
    #[command(subcommand)]
    Vsa(vsa_cmd::VsaCommand),
    /// Browse Reflective Memory: failure, pivot, limitation and snapshot records.
    #[command(subcommand)]
    Memory(memory_cmd::MemoryCommand),
    /// Steer a running youra engine: pause, step, retry or redesign a sub-hypothesis,
    /// answer an escalation, set breakpoints.
    ///
    /// Nothing happens behind your back: each verb is written to the run's
    /// verification_state.yaml (with your reason, name and the time) and the engine acts
    /// on it at its next safe point. Exit 0 when recorded, 1 when refused (the message says
    /// why), 2 for wrong arguments.
    #[command(after_help = steer_cmd::verbs_help())]
    Steer(steer_cmd::SteerArgs),
    /// Grounded reporting: check a paper's numbers against the measured results and its
    /// methods against the code, configs and logs the run executed.
    #[command(subcommand)]
    Report(report_cmd::ReportCommand),
    /// Watch and steer a run in the terminal: lifecycle, gates, reflection, events, live.
    /// `?` lists the keys of the focused pane; `q` quits.
    Tui {
        /// Run folder (youra run, YouRA research folder or task folder).
        dir: PathBuf,
        /// A keymap file whose keys override the defaults (see keymaps/default.toml).
        #[arg(long, value_name = "FILE")]
        keymap: Option<PathBuf>,
        /// dark, light, mono, or a theme file (see themes/). NO_COLOR is honoured.
        #[arg(long, value_name = "NAME|FILE")]
        theme: Option<String>,
        /// Capture the mouse (off by default, so the terminal still selects text).
        #[arg(long)]
        mouse: bool,
    },
}

/// Parse the arguments, run the command, and return the process exit code.
pub fn run() -> color_eyre::Result<i32> {
    let cli = Cli::parse();
    match cli.command {
        Command::Status { dir, json } => status::run(&dir, json),
        Command::Vsa(cmd) => vsa_cmd::run(cmd),
        Command::Memory(cmd) => memory_cmd::run(cmd),
        Command::Steer(args) => steer_cmd::run(args),
        Command::Report(cmd) => report_cmd::run(cmd),
        Command::Tui {
            dir,
            keymap,
            theme,
            mouse,
        } => {
            crate::tui::run(
                &dir,
                &crate::tui::Options {
                    keymap,
                    theme,
                    mouse,
                },
            )?;
            Ok(0)
        }
    }
}

/// Print an error the way every command does: what went wrong, then what to do.
pub(crate) fn fail(what: impl std::fmt::Display, hint: &str) -> i32 {
    eprintln!("error: {what}");
    if !hint.is_empty() {
        eprintln!("  hint: {hint}");
    }
    1
}
