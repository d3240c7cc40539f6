//! Overlays above the panes: help, the field editor, reason prompts for steering verbs, the
//! `:` command line and the text viewer. Each owns its state and its keys.

pub mod edit;
pub mod help;
pub mod paper;
pub mod picker;
pub mod reason;
pub mod render;
pub mod viewer;

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::app::{App, Effect};
use super::keymap::{Command, Mode};

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
    Review(Box<crate::tui::review_card::ReviewCard>),
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
    fn typing(&self, key: &KeyEvent) -> bool {
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

/// Keys while an overlay is open: its commands first, everything else is typing.
pub fn on_key(app: &mut App, key: KeyEvent, cmd: Option<Command>) -> Vec<Effect> {
    // `?` over any overlay lists that overlay's keys; closing the list goes back to it.
    let help = cmd == Some(Command::Help)
        || (key.code == KeyCode::Char('?') && app.mode() == Mode::Dialog);
    if help
        && let Some(under) = app
            .overlay
            .take_if(|o| !matches!(o, Overlay::Help(_) | Overlay::HelpOver(..)) && !o.typing(&key))
    {
        app.overlay = Some(Overlay::HelpOver(0, Box::new(under)));
        return Vec::new();
    }
    if cmd == Some(Command::Copy)
        && matches!(app.mode(), Mode::Viewer | Mode::Escalation | Mode::Paper)
    {
        return super::clipboard::copy(app);
    }
    if let Some(Overlay::Escalation(tab)) = app.overlay {
        return escalation_key(app, tab, cmd);
    }
    if let Some(Overlay::Review(_)) = app.overlay {
        return super::review_card::on_key(app, cmd);
    }
    if let Some(Overlay::HelpOver(scroll, _)) = app.overlay.as_mut() {
        if matches!(
            cmd,
            Some(Command::Close | Command::Cancel | Command::Help | Command::Quit)
        ) {
            if let Some(Overlay::HelpOver(_, under)) = app.overlay.take() {
                app.overlay = Some(*under);
            }
        } else {
            help_scroll(scroll, cmd);
        }
        return Vec::new();
    }
    let Some(overlay) = app.overlay.as_mut() else {
        return Vec::new();
    };
    let outcome = match overlay {
        Overlay::Help(scroll) => match cmd {
            Some(Command::Close | Command::Cancel | Command::Help | Command::Quit) => {
                Outcome::Close
            }
            _ => {
                help_scroll(scroll, cmd);
                Outcome::Stay
            }
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
        Overlay::Escalation(_) | Overlay::Review(_) | Overlay::HelpOver(..) => Outcome::Stay,
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

/// Scroll the key list: bounded when drawn (its length depends on the mode and the keymap).
fn help_scroll(scroll: &mut u16, cmd: Option<Command>) {
    let step: i32 = match cmd {
        Some(Command::Down) => 1,
        Some(Command::Up) => -1,
        Some(Command::PageDown) => 10,
        Some(Command::PageUp) => -10,
        _ => return,
    };
    *scroll = (i32::from(*scroll) + step).clamp(0, 200) as u16;
}

/// The card decides through the same steering dialogs as the Reflection pane's keys: the
/// reason dialog replaces the card, and the write's outcome shows in the footer.
/// The chart and the log open inside the card; Esc goes back to the causes, then closes.
/// j/k (Home/End) select a cause, the table scrolled to keep it in sight.
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
        Some(c @ (Command::Down | Command::Up | Command::Top | Command::Bottom))
            if tab == CardTab::Causes =>
        {
            let n = app
                .data
                .vsa
                .as_ref()
                .and_then(|s| super::escalation_view::card(&s.vsa))
                .map_or(0, |c| c.attributions.len());
            let last = n.saturating_sub(1);
            app.card_cause = match c {
                Command::Down => (app.card_cause + 1).min(last),
                Command::Up => app.card_cause.saturating_sub(1).min(last),
                Command::Top => 0,
                _ => last,
            };
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// A write the store refused because the VSA does not parse (the banner shows, or the error
/// is the parser's `file:line:col`): say that nothing was saved and name the next step, so the
/// save does not vanish; the dialog stays open with the edit, to save again after the repair.
pub fn unreadable(app: &App, error: String) -> String {
    let vsa = app.run.vsa.display().to_string();
    let parse = error
        .strip_prefix(&vsa)
        .and_then(|r| r.strip_prefix(':'))
        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
    if !parse && app.banner.is_none() {
        return error;
    }
    let run = crate::notice::message::shell_word(&app.run.root.display().to_string());
    format!(
        "not saved: the VSA is unreadable. `youra vsa repair {run}` shows the fix (--write \
         applies it); your edit stays here, enter saves again. {error}"
    )
}

/// What a dialog decided about a key.
pub enum Outcome {
    Stay,
    Close,
    Run(Effect),
}
