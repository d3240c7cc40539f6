//! The Events pane beyond its window: the App holds the newest rows (`follow::WINDOW`)
//! and, to page back, the file's line index. `g` goes to the file's first events, `G` back
//! to the newest, PageDown past the oldest row shown reads the page before it from disk,
//! PageUp past the newest the page after it; `/` searches the whole file on disk, `n` / `N`
//! the next older / newer hit. Reads and searches are effects run off the UI thread; they
//! come back as [`AppEvent::EventsPage`](super::effect::AppEvent::EventsPage).

use ratatui::crossterm::event::KeyEvent;

use super::app::{App, PaneId};
use super::effect::Effect;
use super::event_pages_state::{PAGE, Page, PageRequest, STEP, Select};
use super::keymap::Command;
use super::lessons_state::{Search, SearchEdit};
use super::rows::EventRow;
use crate::rundir::event_lines::{self, LineIndex};

/// The rows the pane lists now, newest first: the page read from disk, or the live window
/// through the filters. A search hit is listed whatever the filters say.
pub fn visible(app: &App) -> Vec<&EventRow> {
    match &app.events.page {
        None => app.filters.events(&app.data.events),
        Some(p) => {
            let hit = match p.select {
                Select::Line(n) => n,
                _ => 0,
            };
            p.rows
                .iter()
                .filter(|r| app.filters.keeps_event(r) || (hit > 0 && r.line == hit))
                .collect()
        }
    }
}

/// The line of the oldest and the newest row listed (0 when none is from the file).
fn span(app: &App) -> (u64, u64) {
    match &app.events.page {
        Some(p) => (p.from, p.to),
        None => {
            let f = &app.data.events_file;
            let newest = f.index.as_ref().map_or(0, LineIndex::lines);
            (f.first_line, newest)
        }
    }
}

fn request(app: &App, from: u64, to: u64, select: Select) -> Vec<Effect> {
    let f = &app.data.events_file;
    match &f.index {
        Some(index) if from <= to && to > 0 => vec![Effect::ReadEvents(PageRequest {
            path: f.path.clone(),
            index: index.clone(),
            from: from.max(1),
            to,
            select,
            search: None,
        })],
        _ => Vec::new(),
    }
}

/// A command while the Events pane has focus; `None` when it is not one of the pane's
/// paging or search commands (the caller runs it as usual).
pub(crate) fn on_command(app: &mut App, cmd: Command) -> Option<Vec<Effect>> {
    let n = visible(app).len();
    let sel = app.selected(PaneId::Events);
    let (oldest, newest) = span(app);
    let indexed = app.data.events_file.index.is_some();
    let effects = match cmd {
        Command::Bottom => {
            app.events.page = None;
            app.selected_mut(PaneId::Events, 0);
            Vec::new()
        }
        Command::Top if !indexed => return Some(still_indexing(app)),
        Command::Top => request(app, 1, PAGE, Select::Oldest),
        Command::PageDown if sel + STEP < n => {
            app.selected_mut(PaneId::Events, sel + STEP);
            Vec::new()
        }
        Command::PageDown if oldest > 1 && indexed => request(
            app,
            oldest.saturating_sub(PAGE).max(1),
            oldest - 1,
            Select::Newest,
        ),
        Command::PageDown => {
            app.selected_mut(PaneId::Events, n.saturating_sub(1));
            Vec::new()
        }
        Command::PageUp if sel >= STEP => {
            app.selected_mut(PaneId::Events, sel - STEP);
            Vec::new()
        }
        Command::PageUp if app.events.page.is_some() => {
            let live_from = app.data.events_file.first_line;
            if live_from > 0 && newest + 1 >= live_from {
                // The live window continues this page: back to it, at its oldest row.
                app.events.page = None;
                let n = visible(app).len();
                app.selected_mut(PaneId::Events, n.saturating_sub(1));
                Vec::new()
            } else {
                request(app, newest + 1, newest + PAGE, Select::Oldest)
            }
        }
        Command::PageUp => {
            app.selected_mut(PaneId::Events, 0);
            Vec::new()
        }
        Command::Search => {
            app.events.search = Search {
                typing: true,
                query: String::new(),
            };
            Vec::new()
        }
        Command::SearchNext | Command::SearchPrev => {
            let older = cmd == Command::SearchNext;
            let at = visible(app).get(sel).map_or(0, |r| r.line);
            let from = match (at, older) {
                (0, true) => oldest.max(1),
                (0, false) => newest,
                (l, _) => l,
            };
            find(app, from, older)
        }
        _ => return None,
    };
    Some(effects)
}

fn still_indexing(app: &mut App) -> Vec<Effect> {
    app.toast = Some(("the event log is still being indexed".into(), false));
    Vec::new()
}

/// Search the file for the query from line `from`: older (`before` it) or newer.
fn find(app: &mut App, from: u64, older: bool) -> Vec<Effect> {
    let query = app.events.search.query.clone();
    if query.is_empty() {
        app.toast = Some(("no search: / searches the event log".into(), false));
        return Vec::new();
    }
    let f = &app.data.events_file;
    let Some(index) = &f.index else {
        return still_indexing(app);
    };
    let from = if from == 0 && older { u64::MAX } else { from };
    vec![Effect::ReadEvents(PageRequest {
        path: f.path.clone(),
        index: index.clone(),
        from: 0,
        to: 0,
        select: Select::Newest,
        search: Some((query, from, older)),
    })]
}

/// A key while the query is typed: Enter searches the file (the newest hit first), Esc
/// drops the query, Backspace edits, every other character is the query's.
pub(crate) fn search_key(app: &mut App, key: KeyEvent, cmd: Option<Command>) -> Vec<Effect> {
    match app.events.search.edit(key, cmd) {
        SearchEdit::Confirmed => find(app, u64::MAX, true),
        _ => Vec::new(),
    }
}

/// A page (or a search's page) is back: show it and select its row.
pub fn arrived(app: &mut App, page: Result<Page, String>) {
    let page = match page {
        Ok(p) => p,
        Err(e) => {
            app.toast = Some((e, true));
            return;
        }
    };
    if page.rows.is_empty() {
        return;
    }
    let select = page.select;
    app.events.page = Some(page);
    let rows = visible(app);
    let i = match select {
        Select::Newest => 0,
        Select::Oldest => rows.len().saturating_sub(1),
        Select::Line(n) => rows.iter().position(|r| r.line == n).unwrap_or(0),
    };
    app.selected_mut(PaneId::Events, i);
}

/// Run a request (on a worker): find the hit first for a search, then read its page.
pub fn run(req: PageRequest) -> Result<Page, String> {
    let (from, to, select) = match &req.search {
        None => (req.from, req.to, req.select),
        Some((query, at, older)) => {
            let hit = event_lines::search(&req.path, query, *at, *older)
                .map_err(|e| format!("cannot search {}: {e}", req.path.display()))?
                .ok_or_else(|| {
                    let way = if *older { "older" } else { "newer" };
                    format!("no {way} event matches “{query}”")
                })?;
            let half = PAGE / 2;
            (
                hit.saturating_sub(half).max(1),
                hit + half,
                Select::Line(hit),
            )
        }
    };
    let mut rows = Vec::new();
    event_lines::read_lines(&req.path, &req.index, from, to, |n, line| {
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(line)
            && v.is_object()
        {
            let mut row = super::rows::event_row(&v);
            row.line = n;
            rows.push(row);
        }
    })
    .map_err(|e| format!("cannot read {}: {e}", req.path.display()))?;
    let to = rows.last().map_or(to, |r| r.line);
    rows.reverse();
    Ok(Page {
        from,
        to,
        rows,
        select,
    })
}
