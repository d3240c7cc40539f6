//! The runs view: every run given to `youra tui` (several runs, or a folder of runs) in one
//! screen, a row each from `rundir::summary` — name, status, stage and since when, budget
//! left, what waits for the researcher — waiting runs first. Enter opens the selected run in
//! the panes; Esc there comes back. State, keys and drawing live here; `update` calls in.

use ratatui::Frame;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::app::{App, PaneId};
use super::effect::Effect;
use super::keymap::{Command, Key, Mode};
use super::runs_view_state::RunsView;
use super::theme::Role;
use crate::rundir::RunDir;
use crate::rundir::summary::{RunStatus, RunSummary};

/// Start `app` in the runs view over `runs` (the runtime, with the runs found; tests).
pub fn start(app: &mut App, runs: Vec<RunDir>) {
    app.runs = Some(RunsView::new(runs));
}

/// Whether the runs view is on screen now.
pub fn showing(app: &App) -> bool {
    app.runs.as_ref().is_some_and(|r| r.showing)
}

/// Rows read again (only those that changed arrive): replace them and re-sort. While the
/// view is shown, the terminal's title says how many runs wait, and a run that has just
/// begun to wait rings once (`attention.rs`'s bytes); nothing when no run's waiting changed.
pub fn read(app: &mut App, rows: Vec<(usize, RunSummary)>) -> Vec<Effect> {
    let Some(view) = app.runs.as_mut() else {
        return Vec::new();
    };
    let first = view.rows.is_empty();
    for (i, row) in rows {
        view.rows.retain(|(j, _)| *j != i);
        view.rows.push((i, row));
    }
    view.rows
        .sort_by(|(_, a), (_, b)| crate::rundir::summary::order(a, b));
    // Until a key chooses, the selection is the first row: what waits for the researcher.
    if !view.chosen {
        view.selected = view.rows.first().map_or(0, |(i, _)| *i);
    }
    let now: Vec<usize> = view
        .rows
        .iter()
        .filter(|(_, r)| matches!(r.status, RunStatus::Waiting | RunStatus::MustStop))
        .map(|(i, _)| *i)
        .collect();
    let newly = now.iter().copied().find(|i| !view.waiting.contains(i));
    let mut sorted = now.clone();
    sorted.sort_unstable();
    view.waiting.sort_unstable();
    let changed = first || sorted != view.waiting;
    view.waiting = sorted;
    if !changed || !view.showing {
        return Vec::new();
    }
    vec![call(view, newly.filter(|_| !first))]
}

/// The terminal's title for the view (`youra: ⚑ 1 of 3 runs waits`), ringing for `newly`.
fn call(view: &RunsView, newly: Option<usize>) -> Effect {
    let (n, all) = (view.waiting.len(), view.runs.len());
    let title = match n {
        0 => format!("youra: {all} runs"),
        1 => format!("youra: ⚑ 1 of {all} runs waits"),
        n => format!("youra: ⚑ {n} of {all} runs wait"),
    };
    let body = newly
        .and_then(|i| view.rows.iter().find(|(j, _)| *j == i))
        .map(|(_, r)| {
            format!(
                "{}: {}",
                safe(&r.name, 40),
                safe(r.waits.as_deref().unwrap_or(r.status.label()), 120)
            )
        })
        .unwrap_or_default();
    Effect::Attention {
        waiting: super::attention::Waiting {
            key: format!("runs {:?}", view.waiting),
            title,
            body,
        },
        ring: newly.is_some(),
    }
}

/// Files of these runs changed: read their rows again, and reload the open run if it is one.
pub fn changed(app: &App, which: Vec<usize>) -> Vec<Effect> {
    let Some(view) = app.runs.as_ref() else {
        return Vec::new();
    };
    let mut effects = Vec::new();
    if !view.showing && view.open.is_some_and(|o| which.contains(&o)) {
        effects.push(Effect::Reload);
    }
    effects.push(Effect::ReadRuns(which));
    effects
}

/// Keys for the runs view, and Esc in a run opened from it. `None`: not the view's key,
/// the panes and overlays handle it as always.
pub(crate) fn on_key(app: &mut App, key: &KeyEvent) -> Option<Vec<Effect>> {
    if app.overlay.is_some() || app.mode() == Mode::Search {
        return None;
    }
    let k = Key::from_event(key);
    if showing(app) {
        app.toast = None;
        let cmd = app.keymap.resolve(Mode::Runs, k);
        return Some(view_key(app, cmd));
    }
    let cmd = app.keymap.resolve(app.mode(), k);
    // The Reflection pane's Esc clears its search; with none kept, it goes back too.
    let back = cmd == Some(Command::BackToRuns)
        || (cmd == Some(Command::Cancel)
            && app.focus == PaneId::Reflection
            && app.runs.is_some()
            && app.lessons.search == Default::default());
    if !back {
        return None;
    }
    // A run not opened from the view has nowhere to go back to: the key does nothing.
    let Some(view) = app.runs.as_mut() else {
        return Some(Vec::new());
    };
    view.showing = true;
    let title = call(view, None);
    Some(vec![Effect::CloseRun, title])
}

fn view_key(app: &mut App, cmd: Option<Command>) -> Vec<Effect> {
    let Some(view) = app.runs.as_mut() else {
        return Vec::new();
    };
    let n = view.rows.len();
    let step = |view: &mut RunsView, delta: isize| {
        let p = (view.position() as isize + delta).clamp(0, n.saturating_sub(1) as isize);
        if let Some((i, _)) = view.rows.get(p as usize) {
            view.selected = *i;
        }
        view.chosen = true;
    };
    match cmd {
        Some(Command::Down) => step(view, 1),
        Some(Command::Up) => step(view, -1),
        Some(Command::PageDown) => step(view, 10),
        Some(Command::PageUp) => step(view, -10),
        Some(Command::Top) => step(view, -(isize::MAX / 2)),
        Some(Command::Bottom) => step(view, isize::MAX / 2),
        Some(Command::OpenRun) => return open(app),
        Some(Command::Help) => app.overlay = Some(super::dialogs::overlay::Overlay::Help(0)),
        Some(Command::Redraw) => return vec![Effect::Redraw],
        Some(Command::Quit) => {
            app.quit = true;
            return vec![Effect::Quit];
        }
        _ => {}
    }
    Vec::new()
}

/// Open the selected run in the panes: a fresh state for it (nothing of the last run shown
/// stays), the runs view kept for Esc; the others' lessons beside its own, as for
/// `youra tui <run> <other>…`.
fn open(app: &mut App) -> Vec<Effect> {
    let Some(mut view) = app.runs.take() else {
        return Vec::new();
    };
    let Some(run) = view.runs.get(view.selected).cloned() else {
        app.runs = Some(view);
        return Vec::new();
    };
    let others: Vec<RunDir> = (0..view.runs.len())
        .filter(|i| *i != view.selected)
        .map(|i| view.runs[i].clone())
        .collect();
    view.showing = false;
    view.chosen = true;
    view.open = Some(view.selected);
    let mut fresh = App::new(run.clone(), app.keymap.clone(), app.theme.clone());
    fresh.runs = Some(view);
    *app = fresh;
    vec![Effect::OpenRun { run, others }]
}

/// Text from a run, safe for the terminal: no control or bidi characters, one line.
fn safe(text: &str, max: usize) -> String {
    crate::notice::clean(text, max)
}

pub fn draw(app: &App, frame: &mut Frame) {
    let Some(view) = app.runs.as_ref() else {
        return;
    };
    let t = &app.theme;
    let [status, body, detail, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(5),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    let waiting = view
        .rows
        .iter()
        .filter(|(_, r)| r.status == RunStatus::Waiting)
        .count();
    let mut top = vec![Span::styled(" youra ", t.style(Role::Title))];
    if waiting > 0 {
        let what = if waiting == 1 {
            "run waits"
        } else {
            "runs wait"
        };
        top.push(Span::styled(
            format!(" ⚑ {waiting} {what} for you "),
            t.style(Role::Attention),
        ));
    }
    top.push(Span::styled(
        format!(" {} runs", view.runs.len()),
        t.style(Role::Text),
    ));
    frame.render_widget(Paragraph::new(Line::from(top)), status);
    table(app, view, frame, body);
    selected_detail(app, view, frame, detail);
    frame.render_widget(Paragraph::new(footer_line(app, footer.width)), footer);
}

const STATUS_W: usize = 10;
const STAGE_W: usize = 23;
const SINCE_W: usize = 11;
const BUDGET_W: usize = 6;

/// The name a row shows: the run's name, and where another row has the same name, its
/// folder first (`week-2 · Grokking…`, the folder kept where a narrow column clips the rest),
/// so runs of one topic can be told apart; the folder's parent too when that is shared.
fn shown_name(view: &RunsView, r: &RunSummary) -> String {
    let name = safe(&r.name, 80);
    let twins: Vec<&RunSummary> = view
        .rows
        .iter()
        .map(|(_, o)| o)
        .filter(|o| o.name == r.name)
        .collect();
    if twins.len() < 2 {
        return name;
    }
    let folder = |o: &RunSummary, depth: usize| {
        let parts: Vec<String> = o
            .root
            .components()
            .rev()
            .take(depth)
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        parts.into_iter().rev().collect::<Vec<_>>().join("/")
    };
    let ours = folder(r, 1);
    let depth = if twins.iter().filter(|o| folder(o, 1) == ours).count() > 1 {
        2
    } else {
        1
    };
    format!("{} · {name}", safe(&folder(r, depth), 40))
}

/// A row's cells as shown (sanitised), and the role of its status.
fn cells(view: &RunsView, r: &RunSummary) -> ([String; 5], Option<String>, Role) {
    let stage = r.stage.map_or_else(
        || r.stage_text.as_deref().map_or("-".into(), |s| safe(s, 40)),
        |s| s.name().to_string(),
    );
    let since = r
        .since
        .map_or("-".into(), |s| s.at.format("%m-%d %H:%M").to_string());
    let budget = r.budget_left.map_or("-".into(), |b| {
        format!("{:.0}%", (b * 100.0).clamp(0.0, 100.0))
    });
    let waits = match r.status {
        RunStatus::Waiting | RunStatus::MustStop | RunStatus::Unreadable => {
            r.waits.as_deref().map(|w| safe(w, 200))
        }
        _ => None,
    };
    let role = match r.status {
        RunStatus::Waiting => Role::Attention,
        RunStatus::MustStop => Role::GateFailed,
        RunStatus::Unreadable => Role::Error,
        RunStatus::Running => Role::Ok,
        RunStatus::Stopped => Role::Muted,
        RunStatus::Complete => Role::GatePassed,
    };
    let name = shown_name(view, r);
    let status = r.status.label().to_string();
    ([name, status, stage, since, budget], waits, role)
}

/// A row a line, what waits at its end; where that does not fit, on a line of its own
/// below the row, so nothing that waits for the researcher is ever cut.
fn table(app: &App, view: &RunsView, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let inner = area.width.saturating_sub(2) as usize;
    let longest = view
        .rows
        .iter()
        .map(|(_, r)| shown_name(view, r).chars().count())
        .max()
        .unwrap_or(4);
    let others = STATUS_W + STAGE_W + SINCE_W + BUDGET_W + 6;
    let column = inner.saturating_sub(longest.clamp(4, 24) + others);
    // One row's waits too long for the column: every row's goes on the line below it, and
    // the name may take the column's room.
    let below = view.rows.iter().any(|(_, r)| {
        cells(view, r)
            .1
            .is_some_and(|w| w.chars().count() > column || column < 16)
    });
    let (name_w, waits_w) = if below {
        (longest.min(inner.saturating_sub(others)).clamp(4, 40), 0)
    } else {
        (longest.clamp(4, 24), column)
    };
    let cell = |s: &str, w: usize| format!("{:<w$}", super::panes::clip(s, w));
    let mut lines = vec![Line::styled(
        format!(
            " {} {} {} {} {} {}",
            cell("RUN", name_w),
            cell("STATUS", STATUS_W),
            cell("STAGE", STAGE_W),
            cell("SINCE", SINCE_W),
            cell("BUDGET", BUDGET_W),
            if below { "" } else { "WAITING FOR YOU" }
        ),
        t.style(Role::Heading),
    )];
    if view.rows.is_empty() {
        lines.push(Line::styled(" reading the runs…", t.style(Role::Muted)));
    }
    let mut rows: Vec<(bool, Line)> = Vec::new();
    for (i, r) in &view.rows {
        let ([name, status, stage, since, budget], waits, role) = cells(view, r);
        let selected = *i == view.selected;
        let style = |role: Role| {
            if selected {
                t.style(Role::Selected)
            } else {
                t.style(role)
            }
        };
        let inline = waits
            .as_ref()
            .filter(|_| !below)
            .cloned()
            .unwrap_or_default();
        rows.push((
            selected,
            Line::from(vec![
                Span::styled(format!(" {} ", cell(&name, name_w)), style(Role::Text)),
                Span::styled(format!("{} ", cell(&status, STATUS_W)), style(role)),
                Span::styled(
                    format!(
                        "{} {} {} ",
                        cell(&stage, STAGE_W),
                        cell(&since, SINCE_W),
                        cell(&budget, BUDGET_W)
                    ),
                    style(Role::Text),
                ),
                Span::styled(cell(&inline, waits_w), style(role)),
            ]),
        ));
        if let Some(w) = waits.filter(|_| below) {
            let indent = name_w + 2;
            let room = inner.saturating_sub(indent + 2);
            rows.push((
                selected,
                Line::styled(
                    format!("{:indent$}↳ {}", "", super::panes::clip(&w, room)),
                    t.style(role),
                ),
            ));
        }
    }
    // Scrolled so the selected row (and its line below) stays in sight.
    let visible = (area.height as usize).saturating_sub(3);
    let last = rows.iter().rposition(|(s, _)| *s).unwrap_or(0);
    let first = super::panes::scroll_for(last, visible);
    lines.extend(rows.into_iter().skip(first).take(visible).map(|(_, l)| l));
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" Runs (waiting first) ")
        .border_style(t.style(Role::BorderFocus));
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// The selected run in full: where it is, and what waits, unclipped.
fn selected_detail(app: &App, view: &RunsView, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let Some((_, r)) = view.rows.iter().find(|(i, _)| *i == view.selected) else {
        return;
    };
    let mut lines = vec![Line::styled(
        format!(" {}", safe(&r.root.display().to_string(), 400)),
        t.style(Role::Muted),
    )];
    if let Some(w) = &r.waits {
        lines.push(Line::styled(
            format!(" {}", safe(w, 400)),
            t.style(Role::Text),
        ));
    }
    lines.push(Line::styled(
        format!(" {}", next_step(app, r)),
        t.style(Role::Key),
    ));
    let block = Block::default()
        .borders(Borders::TOP)
        .title(format!(" {} ", safe(&r.name, 60)))
        .border_style(t.style(Role::Border));
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block),
        area,
    );
}

/// What the researcher does next with the selected run, with the keys that do it (from the
/// keymap, so a rebound key is named as it is).
fn next_step(app: &App, r: &RunSummary) -> String {
    let key = |mode: Mode, c: Command| {
        app.keymap
            .key_for(mode, c)
            .or_else(|| app.keymap.key_for(Mode::Global, c))
            .map_or_else(|| format!(":{}", c.name()), |k| k.to_string())
    };
    let open = key(Mode::Runs, Command::OpenRun);
    let then = match r.status {
        RunStatus::Waiting
            if r.waits
                .as_deref()
                .is_some_and(|w| w.starts_with("escalation")) =>
        {
            format!(
                ", then {} opens the escalation card",
                key(Mode::Global, Command::OpenEscalation)
            )
        }
        RunStatus::Waiting => format!(
            ", then {} resumes, {} runs one stage",
            key(Mode::Lifecycle, Command::Resume),
            key(Mode::Lifecycle, Command::Step)
        ),
        RunStatus::MustStop => format!(
            "; fix what stopped it, then {} resumes",
            key(Mode::Lifecycle, Command::Resume)
        ),
        RunStatus::Unreadable => format!(
            "; youra vsa repair '{}' shows the fix",
            safe(&r.root.display().to_string(), 200)
        ),
        _ => String::new(),
    };
    let back = key(Mode::Global, Command::BackToRuns);
    format!("{open} opens the run{then} · {back} comes back here")
}

/// The view's keys from the keymap, as words, as many as fit.
fn footer_line(app: &App, width: u16) -> Line<'static> {
    let t = &app.theme;
    if let Some((msg, err)) = &app.toast {
        return Line::styled(
            format!(" {msg}"),
            t.style(if *err { Role::Error } else { Role::Ok }),
        );
    }
    let mut spans = Vec::new();
    let mut used = 0;
    for (k, c) in app.keymap.bindings(Mode::Runs) {
        let name = match c {
            Command::OpenRun => "open",
            Command::Help => "keys",
            Command::Quit => "quit",
            Command::Down => "next",
            Command::Up => "previous",
            _ => continue,
        };
        let (key, name) = (format!(" {k}"), format!(" {name}"));
        let w = key.chars().count() + name.chars().count();
        if used + w > width as usize {
            break;
        }
        used += w;
        spans.push(Span::styled(key, t.style(Role::Key)));
        spans.push(Span::styled(name, t.style(Role::Footer)));
    }
    Line::from(spans)
}
