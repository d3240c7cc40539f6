//! The app's two message types, below the app and every file that sends or answers them:
//! [`AppEvent`], what happened (a key, a read, a write's result), and [`Effect`], what
//! `update` asks the runtime to do.

use ratatui::crossterm::event::KeyEvent;

use super::data::RunRead;
use crate::rundir::RunDir;
use crate::vsa::mutation::Mutation;

/// What happened.
#[derive(Debug)]
pub enum AppEvent {
    Key(KeyEvent),
    Resize,
    /// Back from a suspend (SIGCONT): the screen must be drawn from scratch.
    Resumed,
    /// Something under the run directory changed on disk.
    Changed,
    /// A file for the viewer, highlighted (or why it cannot be shown).
    Opened {
        title: String,
        lines: Result<Vec<ratatui::text::Line<'static>>, String>,
    },
    Loaded(Box<RunRead>),
    /// A page of `events.jsonl` read from disk, or a search's page (`event_pages.rs`).
    EventsPage(Result<super::event_pages_state::Page, String>),
    /// The paper, its numbers checked against the registry (or why it cannot be shown).
    PaperRead(Result<Box<super::paper::Paper>, String>),
    /// A write finished: a message for the status line, or the error.
    Written(Result<String, String>),
    /// Files of these runs (indices into the runs view's runs) changed on disk.
    RunsChanged(Vec<usize>),
    /// The runs view's rows that changed since they were last sent.
    RunsRead(Vec<(usize, crate::rundir::summary::RunSummary)>),
    /// The waiting review's card, read and highlighted (or why there is none).
    ReviewRead(Result<Box<super::review_card_state::ReviewCard>, String>),
    /// Back from `$EDITOR` on a scratch copy of the review's `file` (`review_card::run_editor`).
    ReviewEdited {
        file: String,
        scratch: Result<std::path::PathBuf, String>,
    },
}

/// What `update` asks the runtime to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Reload,
    /// Clear the terminal and draw everything again (ctrl-l).
    Redraw,
    /// Back from a suspend: raw mode and the alternate screen again, then a full redraw.
    Retake,
    /// Read and highlight a file for the viewer.
    OpenFile(std::path::PathBuf),
    /// Read the run's paper and check its numbers (the sanitizer, off the UI thread).
    OpenPaper,
    /// Read a plan node's code diff from its parent for the viewer (`tui/diff_view.rs`).
    OpenDiff(String),
    Mutate(Mutation),
    /// Retitle the terminal for what waits now, and ring when it has just begun to wait
    /// (`attention.rs`): once per waiting event.
    Attention {
        waiting: super::attention::Waiting,
        ring: bool,
    },
    /// A steering request (see `steer`), typed from the key press to the store; `edit`'s
    /// plan file (the `:` line's `--plan-file`) is read when the effect runs, not here.
    Steer {
        request: crate::steer::Request,
        plan_file: Option<String>,
    },
    /// Read these runs' rows for the runs view again (`runs_watch.rs`).
    ReadRuns(Vec<usize>),
    /// Show this run in the panes, opened from the runs view (`runs_view.rs`).
    OpenRun {
        run: RunDir,
        others: Vec<RunDir>,
    },
    /// Back to the runs view: the run shown until now is left.
    CloseRun,
    /// Read a page of `events.jsonl`, or search it, off the UI thread (`event_pages::run`).
    ReadEvents(super::event_pages_state::PageRequest),
    /// Set the terminal's clipboard to this text (OSC 52, `clipboard.rs`).
    Copy(String),
    /// Read the waiting review's record for its card (`review_card::read`).
    OpenReview,
    /// Release the terminal, open `$EDITOR` on a scratch copy of `source` (run-relative,
    /// the node's `code/<file>`), and take the terminal back.
    EditReview {
        source: std::path::PathBuf,
        file: String,
    },
    Quit,
}
