//! The footer: the last write's outcome, else the keys of what has focus (a pane or an
//! overlay), generated from the keymap and named in words, as many whole hints as fit.

use ratatui::text::{Line, Span};

use super::app::App;
use super::keymap::{Command, Key};
use super::theme::Role;

/// The last write's outcome, else the keys of the focused pane, from the keymap: whole hints
/// only, as many as fit `width`, in priority order — `?` (which lists them all) first, then
/// the pane's own keys, then quit, the next pane and the other global keys. A run opened
/// from the runs view names Esc (back to it) next to `?`.
pub fn line(app: &App, width: u16) -> Line<'static> {
    let t = &app.theme;
    if let Some((msg, err)) = &app.toast {
        return Line::styled(
            format!(" {msg}"),
            t.style(if *err { Role::Error } else { Role::Ok }),
        );
    }
    let mode = app.mode();
    let own = app.keymap.bindings_of(mode);
    let mut wanted: Vec<(Key, Command)> = app
        .keymap
        .bindings(mode)
        .into_iter()
        .filter(|(_, c)| *c != Command::BackToRuns || app.runs.is_some())
        // Named while a review waits (as the status line's ⚑ is), not before.
        .filter(|(_, c)| *c != Command::OpenReview || super::review_card::waits(app))
        .filter(|(_, c)| {
            !matches!(
                c,
                Command::Down
                    | Command::Up
                    | Command::PageDown
                    | Command::PageUp
                    | Command::Top
                    | Command::Bottom
                    | Command::Redraw
                    | Command::FocusPrev
                    // `b`'s partner: in `?`, so the footer keeps room for what waits (E).
                    | Command::ClearBreakpoint
            )
        })
        .collect();
    let pane_own = |c: &Command| !mode.is_pane() || own.contains(c);
    let rank = |c: &Command| match c {
        Command::Help => 0,
        // Opened from the runs view: the way back is named next to `?`.
        Command::BackToRuns => 0,
        c if pane_own(c) => 1,
        Command::Quit => 2,
        Command::FocusNext => 3,
        Command::FocusLifecycle
        | Command::FocusGates
        | Command::FocusReflection
        | Command::FocusEvents
        | Command::FocusExperiments
        | Command::FocusPlan => 5,
        _ => 4,
    };
    wanted.sort_by_key(|(_, c)| rank(c));
    let mut spans = Vec::new();
    let mut used = 0usize;
    for (k, c) in wanted {
        // Steering needs a youra engine: on a YouRA folder its keys are shown, dimmed.
        let off = !app.native() && is_steering(c);
        let name = format!(" {}{}", short(c), if off { " (off)" } else { "" });
        let key = format!(" {k}");
        let w = key.chars().count() + name.chars().count();
        if used + w > width as usize {
            continue;
        }
        used += w;
        let (key_role, name_role) = if off {
            (Role::Muted, Role::Muted)
        } else {
            (Role::Key, Role::Footer)
        };
        spans.push(Span::styled(key, t.style(key_role)));
        spans.push(Span::styled(name, t.style(name_role)));
    }
    Line::from(spans)
}

fn is_steering(c: Command) -> bool {
    use Command as C;
    matches!(
        c,
        C::Pause
            | C::Resume
            | C::Step
            | C::ToggleBreakpoint
            | C::ClearBreakpoint
            | C::Redesign
            | C::Reset
            | C::Approve
            | C::Reject
            | C::Override
            | C::Pin
            | C::Veto
            | C::ForceNode
    )
}

fn short(c: Command) -> String {
    match c {
        Command::FocusLifecycle
        | Command::FocusGates
        | Command::FocusReflection
        | Command::FocusEvents
        | Command::FocusExperiments
        | Command::FocusPlan => c.help().trim_end_matches(" pane").to_string(),
        c => words(c),
    }
}

/// A command as the footer says it: words, not the keymap's identifiers (`edit_gate_type`
/// is `gate type`). Commands not named here read as their name with spaces.
fn words(c: Command) -> String {
    use Command as C;
    match c {
        C::EditField => "edit",
        C::EditGateType => "gate type",
        C::EditStatus => "status",
        C::OpenArtifacts => "artifacts",
        C::OpenLog => "log",
        C::OpenRecord => "read",
        C::OpenArchive => "archive",
        C::OpenPaper => "paper",
        C::OpenEscalation => "escalation",
        C::OpenReview => "review",
        C::ReviewApprove => "approve",
        C::ReviewReject => "reject",
        C::ReviewBranch => "branch",
        C::ReviewEdit => "edit",
        C::ToggleBreakpoint => "breakpoint",
        C::ClearBreakpoint => "clear breakpoint",
        C::ToggleGrouping => "group by",
        C::ToggleRecorded => "recorded run",
        C::CommandLine => "command",
        C::FocusNext => "next pane",
        C::ExpandEvent => "details",
        C::ForceNode => "force",
        C::Step => "one stage",
        C::NextCriterion => "next criterion",
        C::PrevCriterion => "prev criterion",
        C::FilterKind => "by kind",
        C::FilterHypothesis => "by hypothesis",
        C::FilterActor => "by actor",
        C::FilterStage => "by stage",
        C::FilterAll => "all",
        C::SearchNext => "next match",
        C::SearchPrev => "prev match",
        C::NextNumber => "next number",
        C::PrevNumber => "prev number",
        C::NextUnverified => "unchecked",
        C::ShowSource => "source",
        c => return c.name().replace('_', " "),
    }
    .to_string()
}
