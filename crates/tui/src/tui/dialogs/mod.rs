//! Overlays above the panes: help, the field editor, reason prompts for steering verbs, the
//! `:` command line and the text viewer. Each owns its state and its keys.

pub mod edit;
pub mod help;
pub mod outcome;
pub mod overlay;
pub mod paper;
pub mod picker;
pub mod reason;
pub mod render;
pub mod viewer;

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::app::App;
use super::effect::Effect;
use super::keymap::{Command, Mode};
use outcome::Outcome;
use overlay::{CardTab, Overlay};

/// Keys while an overlay is open: its commands first, everything else is typing.
pub(crate) fn on_key(app: &mut App, key: KeyEvent, cmd: Option<Command>) -> Vec<Effect> {
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
