//! Which overlay is open above the panes, with its state: below the app that holds it, the
//! dialogs it boxes, and the key handling that opens and closes it (`dialogs/mod.rs`).

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::{edit, paper, picker, reason, viewer};
use crate::tui::keymap::Mode;

/// The overlay shown above the panes, if any (`App::overlay`).
pub enum Overlay {
    /// The keys of the focused pane, scrolled by this many rows.
    Help(u16),
    /// The keys of the overlay beneath (`?` in the card, a viewer, the paper, a dialog),
    /// scrolled by this many rows; closing it goes back to that overlay as it was.
    HelpOver(u16, Box<Overlay>),
    Edit(Box<edit::EditDialog>),
    Reason(Box<reason::ReasonDialog>),
    CommandLine(Box<reason::ReasonDialog>),
    Viewer(Box<viewer::Viewer>),
    Picker(Box<picker::Picker>),
    Paper(Box<paper::PaperView>),
    /// The escalation card (drawn from the VSA as it is now); its one state is which view of
    /// the failed attempt fills its lower half.
    Escalation(CardTab),
    /// The review card: an experiment waiting before it runs (`tui/review_card.rs`).
    Review(Box<crate::tui::review_card_state::ReviewCard>),
}

/// The lower half of the escalation card: the ranked attributions, the failed attempt's
/// metric chart (earlier attempts as their own series), or its log tail.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CardTab {
    #[default]
    Causes,
    Chart,
    Log,
}

impl Overlay {
    /// The keymap table its keys resolve in.
    pub fn mode(&self) -> Mode {
        match self {
            Overlay::Help(_) | Overlay::HelpOver(..) => Mode::Help,
            Overlay::Viewer(_) => Mode::Viewer,
            Overlay::Picker(_) => Mode::Picker,
            Overlay::Paper(_) => Mode::Paper,
            Overlay::Escalation(_) => Mode::Escalation,
            Overlay::Review(_) => Mode::Review,
            Overlay::Edit(_) | Overlay::Reason(_) | Overlay::CommandLine(_) => Mode::Dialog,
        }
    }

    /// What its help calls it: `keys: the escalation card`.
    pub fn name(&self) -> &'static str {
        match self {
            Overlay::Help(_) | Overlay::HelpOver(..) => "help",
            Overlay::Viewer(_) => "the viewer",
            Overlay::Picker(_) => "the file picker",
            Overlay::Paper(_) => "the paper",
            Overlay::Escalation(_) => "the escalation card",
            Overlay::Review(_) => "the review card",
            Overlay::Edit(_) => "the field editor",
            Overlay::Reason(_) => "the reason dialog",
            Overlay::CommandLine(_) => "the command line",
        }
    }

    /// Whether `?` is text being typed here rather than a request for help: a search query
    /// in the viewer, or a dialog's field that already holds text (F1 asks there).
    pub(crate) fn typing(&self, key: &KeyEvent) -> bool {
        let question = key.code == KeyCode::Char('?');
        match self {
            Overlay::Viewer(v) => v.query.is_some(),
            Overlay::Edit(_) => question,
            Overlay::Reason(d) | Overlay::CommandLine(d) => {
                question && !d.input.lines().concat().is_empty()
            }
            _ => false,
        }
    }
}
