//! The steering TUI: `youra tui <dir>`. One owner of state (`app`), one event channel,
//! effects run on threads and report back, frames drawn only when something changed.

pub mod app;
mod commands;
pub mod dialogs;
pub mod draw;
pub mod experiments;
pub mod filters;
pub mod highlight;
pub mod keymap;
pub mod lessons;
pub mod panes;
pub mod paper;
pub mod plan_view;
pub mod progress;
pub mod run_view;
mod runtime;
mod steering;
pub mod theme;
pub mod tools;
pub mod transcript;
pub mod watch;

pub use runtime::{Options, run};
