//! The Events pane's paging state, below the app that holds it and the pager that changes
//! it (`event_pages.rs`): `events.jsonl` beyond the rows in memory, a page read from disk,
//! and the read or search the runtime runs for one.

use std::path::PathBuf;

use super::follow::EventCounts;
use super::lessons_state::Search;
use super::rows::EventRow;
use crate::rundir::event_lines::LineIndex;

/// Lines read per page from disk.
pub const PAGE: u64 = 200;
/// Rows one PageUp / PageDown moves within what is shown.
pub(crate) const STEP: usize = 10;

/// `events.jsonl` beyond the rows in memory, as of the last read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventsFile {
    pub path: PathBuf,
    /// Where its lines start (`None` until the whole file is indexed: the quick first read).
    pub index: Option<LineIndex>,
    /// The line of the oldest row kept in memory (0: none, or not indexed yet).
    pub first_line: u64,
    pub counts: EventCounts,
    /// Rows newer than the newest one shown when the TUI last quit: the file's, the VSA
    /// history's and the log's, counted by the reader, not per frame.
    pub new_since_seen: usize,
}

/// Lines `from ..= to` read from disk, newest first; `select`: which row to select.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub from: u64,
    pub to: u64,
    pub rows: Vec<EventRow>,
    pub select: Select,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Select {
    Newest,
    Oldest,
    /// A search hit.
    Line(u64),
}

/// A read or a search the runtime runs on a worker ([`run`]).
#[derive(Debug, Clone, PartialEq)]
pub struct PageRequest {
    pub path: PathBuf,
    pub index: LineIndex,
    pub from: u64,
    pub to: u64,
    pub select: Select,
    /// Find first: the hit's page is read (`from`/`to` are ignored).
    pub search: Option<(String, u64, bool)>,
}

/// The Events pane's state beyond the live window.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventsView {
    /// Older (or searched) lines read from disk; `None`: the newest rows, live.
    pub page: Option<Page>,
    pub search: Search,
}
