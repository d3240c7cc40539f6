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
    let lines: Vec<Line> = app
        .filters
        .events(&app.data.events)
        .into_iter()
        .enumerate()
        .skip(first)
        .take(inner.height as usize)
        .map(|(i, e)| {
            let when =
                e.at.map_or("--".to_string(), |t| t.at.format("%m-%d %H:%M").to_string());
            let mut spans = vec![
                Span::styled(format!("{when} "), t.style(Role::Muted)),
                Span::styled(
                    format!("{:<10} ", clip(&e.actor, 10)),
                    t.style(Role::Emphasis),
                ),
                Span::raw(clip(&e.text, width.saturating_sub(23))),
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
