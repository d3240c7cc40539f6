//! The steering TUI: `youra tui <dir>`. One owner of state (`app`), one event channel,
//! effects run on threads and report back, frames drawn only when something changed.

pub mod app;
pub mod attention;
pub mod clipboard;
mod commands;
pub mod data;
pub mod dialogs;
pub mod diff_view;
pub mod downsample;
pub mod draw;
pub mod effect;
pub mod escalation_view;
pub mod event_pages;
pub mod event_pages_state;
pub mod experiments;
pub mod filters;
pub mod follow;
mod footer;
pub mod gates_view;
pub mod highlight;
pub mod keymap;
pub mod lessons;
pub mod lessons_state;
pub mod log_rows;
pub mod markdown;
mod md_table;
pub mod nav;
pub mod panes;
pub mod paper;
pub mod plan_view;
pub mod progress;
pub mod refresh;
pub mod review_card;
pub mod review_card_state;
pub mod rows;
pub mod run_view;
pub mod runs_view;
pub mod runs_view_state;
mod runs_watch;
mod runtime;
pub mod steering;
pub mod theme;
pub mod tools;
pub mod transcript;
pub mod update;
pub mod watch;

pub use runtime::{Options, run, run_many};

/// The TUI draws on a terminal and reads keys from one: without it (`youra tui run | less`,
/// a cron job, a CI step) say so and what to use instead, rather than let the terminal set-up
/// panic. Checked after the run and the keymap are read, so those errors come first.
pub fn require_terminal() -> color_eyre::Result<()> {
    use std::io::IsTerminal;
    let missing: Vec<&str> = [
        ("stdin", std::io::stdin().is_terminal()),
        ("stdout", std::io::stdout().is_terminal()),
    ]
    .into_iter()
    .filter_map(|(name, tty)| (!tty).then_some(name))
    .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(color_eyre::eyre::eyre!(
        "the TUI needs a terminal, and {} not one; run it in a terminal, or use \
         `youra status <dir>` to read a run and `youra run <dir>` to run one headless",
        match missing.as_slice() {
            [one] => format!("{one} is"),
            _ => missing.join(" and ") + " are",
        }
    ))
}
