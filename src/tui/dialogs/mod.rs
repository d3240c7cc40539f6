//! Overlays above the panes: help, the field editor, reason prompts for steering verbs, the
//! `:` command line and the text viewer. Each owns its state and its keys.

pub mod edit;
pub mod paper;
pub mod picker;
pub mod reason;
pub mod render;
pub mod viewer;

use ratatui::crossterm::event::KeyEvent;

use super::app::{App, Effect};
use super::keymap::Command;

pub enum Overlay {
    /// The keys of the focused pane, scrolled by this many rows.
    Help(u16),
    Edit(Box<edit::EditDialog>),
    Reason(Box<reason::ReasonDialog>),
    CommandLine(Box<reason::ReasonDialog>),
    Viewer(Box<viewer::Viewer>),
    Picker(Box<picker::Picker>),
    Paper(Box<paper::PaperView>),
    /// The escalation card (drawn from the VSA as it is now); its one state is which view of
    /// the failed attempt fills its lower half.
    Escalation(CardTab),
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

/// Keys while an overlay is open: its commands first, everything else is typing.
pub fn on_key(app: &mut App, key: KeyEvent, cmd: Option<Command>) -> Vec<Effect> {
    if let Some(Overlay::Escalation(tab)) = app.overlay {
        return escalation_key(app, tab, cmd);
    }
    let Some(overlay) = app.overlay.as_mut() else {
        return Vec::new();
    };
    let outcome = match overlay {
        Overlay::Help(scroll) => match cmd {
            Some(Command::Close | Command::Cancel | Command::Help | Command::Quit) => {
                Outcome::Close
            }
            Some(c @ (Command::Down | Command::Up | Command::PageDown | Command::PageUp)) => {
                let step: i32 = match c {
                    Command::Down => 1,
                    Command::Up => -1,
                    Command::PageDown => 10,
                    _ => -10,
                };
                // Bounded when drawn: the list's length depends on the pane and the keymap.
                *scroll = (i32::from(*scroll) + step).clamp(0, 200) as u16;
                Outcome::Stay
            }
            _ => Outcome::Stay,
        },
        Overlay::Edit(d) => d.on_key(key, cmd),
        Overlay::Reason(d) | Overlay::CommandLine(d) => d.on_key(key, cmd),
        Overlay::Viewer(v) => v.on_key(
            app.keymap.resolve(
                super::keymap::Mode::Viewer,
                super::keymap::Key::from_event(&key),
            ),
            key,
        ),
        Overlay::Picker(p) => p.on_key(cmd),
        Overlay::Paper(v) => v.on_key(cmd),
        Overlay::Escalation(_) => Outcome::Stay,
    };
    match outcome {
        Outcome::Stay => Vec::new(),
        Outcome::Close => {
            app.overlay = None;
            Vec::new()
        }
        Outcome::Run(effect) => vec![effect],
    }
}

/// The card decides through the same steering dialogs as the Reflection pane's keys: the
/// reason dialog replaces the card, and the write's outcome shows in the footer.
/// The chart and the log open inside the card; Esc goes back to the causes, then closes.
fn escalation_key(app: &mut App, tab: CardTab, cmd: Option<Command>) -> Vec<Effect> {
    let show = |app: &mut App, want: CardTab| {
        let next = if tab == want { CardTab::Causes } else { want };
        app.overlay = Some(Overlay::Escalation(next));
        Vec::new()
    };
    match cmd {
        Some(Command::Close | Command::Cancel) if tab != CardTab::Causes => {
            show(app, CardTab::Causes)
        }
        Some(Command::Close | Command::Cancel) => {
            app.overlay = None;
            Vec::new()
        }
        Some(c @ (Command::Approve | Command::Reject | Command::Override)) => {
            super::commands::run(app, c)
        }
        Some(Command::OpenLog) => show(app, CardTab::Log),
        Some(Command::OpenChart) => show(app, CardTab::Chart),
        Some(Command::OpenFiles) => {
            super::commands::open_escalation_logs(app);
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// What a dialog decided about a key.
pub enum Outcome {
    Stay,
    Close,
    Run(Effect),
}
