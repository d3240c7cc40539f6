//! Events: `events.jsonl` and the VSA history merged, newest first.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{block, clip, scroll_for};
use crate::tui::app::{App, PaneId};
use crate::tui::theme::Role;

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let outer = block(app, PaneId::Events);
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    let t = &app.theme;
    let sel = app.selected(PaneId::Events);
    let first = scroll_for(sel, inner.height as usize);
    let width = inner.width as usize;
    let lines: Vec<Line> = crate::tui::event_pages::visible(app)
        .into_iter()
        .enumerate()
        .skip(first)
        .take(inner.height as usize)
        .map(|(i, e)| {
            let when = e.at.map_or("--".to_string(), |t| {
                t.at.format("%m-%d %H:%M:%S").to_string()
            });
            let new = is_new(app, e);
            let mut spans = vec![
                Span::styled(if new { "•" } else { " " }, t.style(Role::Key)),
                Span::styled(
                    format!("{when} "),
                    t.style(if new { Role::Emphasis } else { Role::Muted }),
                ),
                Span::styled(
                    format!("{:<10} ", clip(&e.actor, 10)),
                    t.style(Role::Emphasis),
                ),
                text_span(app, e, width.saturating_sub(27)),
            ];
            if i == sel && app.focus == PaneId::Events {
                spans = spans
                    .into_iter()
                    .map(|s| s.patch_style(t.style(Role::Selected)))
                    .collect();
            }
            Line::from(spans)
        })
        .collect();
    if lines.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::styled("no events yet", t.style(Role::Muted))),
            inner,
        );
    } else {
        frame.render_widget(Paragraph::new(lines), inner);
    }
}

/// The event's text, styled by its kind: a tool call (MCP) stands apart from the stage
/// events around it, marked in text too for terminals without colour.
fn text_span(app: &App, e: &crate::tui::rows::EventRow, width: usize) -> Span<'static> {
    let t = &app.theme;
    match e.kind.as_deref() {
        Some("tool_call") => Span::styled(
            clip(&format!("⇄ {}", e.text), width),
            t.style(Role::ToolCall),
        ),
        Some("error" | "log_error") => {
            Span::styled(clip(&e.text, width), t.style(Role::GateFailed))
        }
        Some("log_warn") => Span::styled(clip(&e.text, width), t.style(Role::Attention)),
        // What the researcher (or the policy) decided stands out: it changes the run.
        Some("decision" | "escalation" | "stop") => {
            Span::styled(clip(&e.text, width), t.style(Role::Attention))
        }
        Some("gate" | "routing") => Span::styled(clip(&e.text, width), t.style(Role::Emphasis)),
        _ => Span::raw(clip(&e.text, width)),
    }
}

/// Newer than the newest event shown when the TUI last quit on this run.
pub(crate) fn is_new(app: &App, e: &crate::tui::rows::EventRow) -> bool {
    matches!((app.data.last_seen, e.at), (Some(seen), Some(at)) if at.at > seen.at)
}

/// How many events arrived since the last session, for the pane title: counted by the
/// reader as lines arrive (the whole file's, not only the rows in memory), never per frame.
pub fn new_count(app: &App) -> usize {
    if app.data.last_seen.is_none() {
        return 0;
    }
    app.data.events_file.new_since_seen
}

/// Where the pane is in the file when it shows a page read from disk (`lines 1–200 of
/// 1000000 · G newest`), or the search being typed; "" when it shows the newest events.
pub fn position(app: &App) -> String {
    let search = &app.events.search;
    if search.typing {
        return format!("/{}▏ ", search.query);
    }
    match &app.events.page {
        Some(p) => {
            let total = app.data.events_file.index.as_ref().map_or(0, |i| i.lines());
            format!("lines {}–{} of {total} · G newest ", p.from, p.to)
        }
        None => String::new(),
    }
}
