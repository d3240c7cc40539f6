//! One module per pane: its rendering from `App` and the commands it offers (the footer and
//! the help overlay are built from the keymap for the pane's mode).

pub mod escalation;
pub mod events;
pub mod experiments;
pub mod gates;
pub mod lesson_preview;
pub mod lifecycle;
pub mod lifecycle_compare;
pub mod plan;
pub mod reflection;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders};

use super::app::{App, PaneId};
use super::theme::Role;

/// The pane's frame: title with its number key, focus colour.
pub fn block<'a>(app: &App, pane: PaneId) -> Block<'a> {
    let focused = app.focus == pane;
    let n = PaneId::ALL
        .iter()
        .position(|p| *p == pane)
        .map_or(0, |i| i + 1);
    let filter = match pane {
        PaneId::Reflection => app.filters.describe(true),
        PaneId::Events => {
            let n = events::new_count(app);
            let news = if n > 0 {
                format!("• {n} new since you last looked ")
            } else {
                String::new()
            };
            let news = if app.data.history_pending {
                format!("{news}(reading history…) ")
            } else {
                news
            };
            format!(
                "{news}{}{}",
                events::position(app),
                app.filters.describe(false)
            )
        }
        _ => String::new(),
    };
    let border = app.theme.style(if focused {
        Role::BorderFocus
    } else {
        Role::Border
    });
    Block::default()
        .borders(Borders::ALL)
        .border_style(border)
        .title(Line::from(vec![
            Span::styled(format!(" {n} "), app.theme.style(Role::Key)),
            Span::styled(format!("{} ", pane.title()), app.theme.style(Role::Title)),
            Span::styled(filter, app.theme.style(Role::Key)),
        ]))
}

pub fn draw(app: &App, pane: PaneId, frame: &mut Frame, area: Rect) {
    match pane {
        PaneId::Lifecycle => lifecycle::draw(app, frame, area),
        PaneId::Gates => gates::draw(app, frame, area),
        PaneId::Reflection => reflection::draw(app, frame, area),
        PaneId::Events => events::draw(app, frame, area),
        PaneId::Experiments => experiments::draw(app, frame, area),
        PaneId::Plan => plan::draw(app, frame, area),
    }
}

/// Cut `s` to `n` characters with an ellipsis.
pub fn clip(s: &str, n: usize) -> String {
    let one = s.replace('\n', " ");
    if one.chars().count() <= n {
        one
    } else {
        format!(
            "{}…",
            one.chars().take(n.saturating_sub(1)).collect::<String>()
        )
    }
}

/// The first visible row so that `selected` stays in a window of `height` rows.
pub(crate) fn scroll_for(selected: usize, height: usize) -> usize {
    selected.saturating_sub(height.saturating_sub(1))
}
