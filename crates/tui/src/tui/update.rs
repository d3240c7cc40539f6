//! The single entry point for change: [`update`] takes an [`AppEvent`] and the [`App`], and
//! returns [`Effect`]s for someone else to run. No I/O here. Above every pane, dialog and
//! command it dispatches to; the state it changes lives below them all (`app.rs`).

use ratatui::crossterm::event::KeyEvent;

use super::app::{App, PaneId};
use super::data::RunRead;
use super::dialogs::overlay::Overlay;
use super::effect::{AppEvent, Effect};
use super::keymap::{Command, Key, Mode};

/// The single entry point for change.
pub fn update(app: &mut App, event: AppEvent) -> Vec<Effect> {
    match event {
        AppEvent::Resize => Vec::new(),
        AppEvent::Resumed => vec![Effect::Retake],
        AppEvent::Changed => vec![Effect::Reload],
        AppEvent::Loaded(read) => {
            let first = !app.loaded;
            loaded(app, *read);
            call(app, first)
        }
        AppEvent::Written(result) => {
            written(app, result);
            Vec::new()
        }
        AppEvent::Key(key) => on_key(app, key),
        AppEvent::EventsPage(page) => {
            super::event_pages::arrived(app, page);
            Vec::new()
        }
        AppEvent::RunsChanged(which) => super::runs_view::changed(app, which),
        AppEvent::RunsRead(rows) => super::runs_view::read(app, rows),
        AppEvent::PaperRead(paper) => {
            match paper {
                Ok(p) => {
                    app.overlay = Some(Overlay::Paper(Box::new(
                        super::dialogs::paper::PaperView::new(*p),
                    )))
                }
                Err(e) => app.toast = Some((e, true)),
            }
            Vec::new()
        }
        AppEvent::ReviewRead(card) => {
            match card {
                Ok(c) => app.overlay = Some(Overlay::Review(c)),
                Err(e) => app.toast = Some((e, true)),
            }
            Vec::new()
        }
        AppEvent::ReviewEdited { file, scratch } => {
            super::review_card::edited(app, file, scratch);
            Vec::new()
        }
        AppEvent::Opened { title, lines } => {
            match lines {
                Ok(lines) => {
                    app.overlay = Some(Overlay::Viewer(Box::new(
                        super::dialogs::viewer::Viewer::new(title, lines),
                    )))
                }
                Err(e) => app.toast = Some((e, true)),
            }
            Vec::new()
        }
    }
}

fn loaded(app: &mut App, read: RunRead) {
    match read.vsa {
        Ok(snap) => {
            app.data.vsa = Some(snap);
            app.banner = None;
        }
        Err(e) => app.banner = Some(e),
    }
    app.config_warning = read.config_error.clone();
    app.data.memory = read.memory;
    app.data.memory_links = read.memory_links;
    app.data.lessons_from = read.lessons_from;
    app.data.archives = read.archives;
    app.data.artifacts = read.artifacts;
    app.data.events = read.events;
    app.data.events_file = read.events_file;
    app.data.metrics = read.metrics;
    app.data.files = read.files;
    app.data.stage_since = read.stage_since;
    app.data.usage = read.usage;
    app.data.recovery = read.recovery;
    app.data.sandbox = read.sandbox;
    app.data.experiments = read.experiments;
    app.data.gpus = read.gpus;
    app.data.plan = read.plan;
    app.data.plan_on = read.plan_on;
    app.data.skipped_stages = read.skipped_stages;
    app.data.routing = read.routing;
    app.data.history_pending = read.history_pending;
    app.data.servers = read.servers;
    app.data.progress = read.progress;
    app.data.pause = read.pause;
    app.data.audit = read.audit;
    app.data.comparison = read.comparison;
    // Kept from the first read: what was new when this session began stays marked.
    if !app.loaded {
        app.data.last_seen = read.last_seen;
    }
    app.loaded = true;
    for pane in PaneId::ALL {
        let n = app.rows(pane);
        let s = &mut app.selected[pane.index()];
        *s = (*s).min(n.saturating_sub(1));
    }
}

/// The terminal's title and bell for what waits now: a change of what waits retitles, and a
/// new waiting event rings, unless it already waited when the session began (the researcher
/// is looking at it).
fn call(app: &mut App, first: bool) -> Vec<Effect> {
    let now = super::attention::of(&app.data);
    let key = now.as_ref().map(|w| w.key.clone());
    if !first && key == app.attention {
        return Vec::new();
    }
    app.attention = key;
    let ring = !first && now.is_some();
    let waiting = now.unwrap_or_else(|| super::attention::Waiting {
        key: String::new(),
        title: super::attention::idle_title(&app.data),
        body: String::new(),
    });
    vec![Effect::Attention { waiting, ring }]
}

fn written(app: &mut App, result: Result<String, String>) {
    let result = result.map_err(|e| super::dialogs::unreadable(app, e));
    match (&mut app.overlay, result) {
        (Some(Overlay::Edit(d)), Err(e)) => d.refused(e),
        (Some(Overlay::Reason(d)), Err(e)) => d.error = Some(e),
        (_, Err(e)) => app.toast = Some((e, true)),
        (_, Ok(msg)) => {
            app.overlay = None;
            app.toast = Some((msg, false));
        }
    }
}

fn on_key(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    if let Some(effects) = super::runs_view::on_key(app, &key) {
        return effects;
    }
    let cmd = app
        .keymap
        .resolve(app.mode(), Key::from_event(&key))
        .or_else(|| decision_key(app, Key::from_event(&key)));
    if app.overlay.is_some() {
        return super::dialogs::on_key(app, key, cmd);
    }
    if app.mode() == Mode::Search && app.events.search.typing {
        return super::event_pages::search_key(app, key, cmd);
    }
    if app.mode() == Mode::Search {
        return super::lessons::search_key(app, key, cmd);
    }
    app.toast = None;
    let paged = match cmd {
        Some(c) if app.focus == PaneId::Events => super::event_pages::on_command(app, c),
        _ => None,
    };
    match (paged, cmd) {
        (Some(effects), _) => effects,
        (None, Some(c)) => super::commands::run(app, c),
        (None, None) => Vec::new(),
    }
}

/// While an escalation waits, its decision keys (the card's `a`, `r`, `o`) work from any
/// pane where the key means nothing else: the status line advertises them everywhere.
fn decision_key(app: &App, key: Key) -> Option<Command> {
    let waits = app
        .data
        .vsa
        .as_ref()
        .is_some_and(|s| s.vsa.workflow.awaits_decision());
    if !waits || app.overlay.is_some() || app.mode() == Mode::Search {
        return None;
    }
    app.keymap
        .resolve(Mode::Escalation, key)
        .filter(|c| matches!(c, Command::Approve | Command::Reject | Command::Override))
}
