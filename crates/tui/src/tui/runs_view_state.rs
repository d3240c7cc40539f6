//! The runs view's state, below the app that holds it and the view that draws and steers it
//! (`runs_view.rs`): every run given to `youra tui`, what was last read of each, and the
//! selection.

use crate::rundir::RunDir;
use crate::rundir::summary::RunSummary;

/// The runs and what was last read of each.
#[derive(Debug, Clone)]
pub struct RunsView {
    /// As given (or found in the folder); an index here names a run everywhere.
    pub runs: Vec<RunDir>,
    /// The rows read so far, by run index, in the view's order (waiting first).
    pub rows: Vec<(usize, RunSummary)>,
    /// The selected run (an index into `runs`), kept when the rows re-sort.
    pub selected: usize,
    /// A key chose the selection; until then it follows the first row as rows arrive.
    pub chosen: bool,
    /// The runs view is on screen; `false` while a run opened from it is shown.
    pub showing: bool,
    /// The run opened from the view (the one a change reloads in the panes).
    pub open: Option<usize>,
    /// The runs that waited for the researcher at the last read, so each new wait rings once.
    pub waiting: Vec<usize>,
}

impl RunsView {
    pub fn new(runs: Vec<RunDir>) -> RunsView {
        RunsView {
            runs,
            rows: Vec::new(),
            selected: 0,
            chosen: false,
            showing: true,
            open: None,
            waiting: Vec::new(),
        }
    }

    /// Where the selected run's row is shown.
    pub(crate) fn position(&self) -> usize {
        self.rows
            .iter()
            .position(|(i, _)| *i == self.selected)
            .unwrap_or(0)
    }
}
