//! The Reflection pane's state, below the app that holds it and the lessons browser that
//! reads it (`lessons.rs`): the grouping, the `/` search (shared with the Events pane), and
//! the records of the further runs given to `youra tui`.

use std::path::PathBuf;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::keymap::Command;
use crate::rundir::lessons::RecordLinks;
use crate::rundir::memory::MemoryRecord;

/// How the list is grouped (`g` toggles).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Grouping {
    #[default]
    Hypothesis,
    Category,
}

impl Grouping {
    pub fn name(self) -> &'static str {
        match self {
            Grouping::Hypothesis => "hypothesis",
            Grouping::Category => "failure category",
        }
    }

    /// The heading of records that have no group of this kind.
    pub(crate) fn none_name(self) -> &'static str {
        match self {
            Grouping::Hypothesis => "run-wide",
            Grouping::Category => "uncategorised",
        }
    }
}

/// The `/` search: `typing` while the query is typed (letters go to it, not to commands);
/// the query stays as a filter after Enter until Esc.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Search {
    pub typing: bool,
    pub query: String,
}

/// What a key did to a query being typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchEdit {
    /// Enter: the query is kept and typing ends.
    Confirmed,
    /// Esc: the query is dropped.
    Cancelled,
    /// Backspace or a character edited the query.
    Edited,
    /// Not a key of the query line.
    Ignored,
}

impl Search {
    /// One key while the query is typed: Enter keeps it, Esc clears it, Backspace edits,
    /// every other character is part of the query (never a pane command). Shared by the
    /// lessons' and the Events pane's `/`.
    pub fn edit(&mut self, key: KeyEvent, cmd: Option<Command>) -> SearchEdit {
        match (cmd, key.code) {
            (Some(Command::Confirm), _) => {
                self.typing = false;
                SearchEdit::Confirmed
            }
            (Some(Command::Cancel), _) => {
                *self = Search::default();
                SearchEdit::Cancelled
            }
            (_, KeyCode::Backspace) => {
                self.query.pop();
                SearchEdit::Edited
            }
            (_, KeyCode::Char(c))
                if !key
                    .modifiers
                    .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
            {
                self.query.push(c);
                SearchEdit::Edited
            }
            _ => SearchEdit::Ignored,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LessonsState {
    pub grouping: Grouping,
    pub search: Search,
}

/// The records of a further run given to `youra tui`, read with the shown run.
#[derive(Debug, Clone, PartialEq)]
pub struct OtherRun {
    /// The run's folder name, shown beside its records.
    pub name: String,
    pub root: PathBuf,
    pub records: Vec<MemoryRecord>,
    pub links: Vec<RecordLinks>,
}
