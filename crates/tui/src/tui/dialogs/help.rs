//! The `?` list: every key of one keymap table with what it does, from the loaded keymap
//! (never hand-written), for a pane, the runs view, or the overlay it was opened over.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::tui::app::App;
use crate::tui::keymap::{Command, Mode};
use crate::tui::theme::Role;

/// The keys of `mode`, titled `keys: {name}`, centred in `area`; a list taller than the
/// screen scrolls by `scroll` rows (never past its end) and says which rows it shows.
pub fn draw(app: &App, mode: Mode, name: &str, scroll: u16, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let lines: Vec<Line> = app
        .keymap
        .bindings(mode)
        .into_iter()
        .filter(|(_, c)| *c != Command::BackToRuns || app.runs.is_some())
        .filter(|(_, c)| *c != Command::OpenReview || crate::tui::review_card::waits(app))
        .map(|(k, c)| {
            Line::from(vec![
                Span::styled(format!("{:>10}  ", k.to_string()), t.style(Role::Key)),
                Span::raw(c.help()),
            ])
        })
        .collect();
    // As wide as the longest line (the title too), up to the screen.
    let widest = lines.iter().map(Line::width).max().unwrap_or(0);
    let n = lines.len() as u16;
    let r = centered(area, (widest as u16 + 2).max(50), n + 2);
    frame.render_widget(Clear, r);
    let visible = r.height.saturating_sub(2);
    let top = scroll.min(n.saturating_sub(visible));
    let more = if n > visible {
        format!(
            " {}-{} of {n} (j/k scroll)",
            top + 1,
            (top + visible).min(n)
        )
    } else {
        String::new()
    };
    let title = format!(" keys: {name}{more} (esc closes) ");
    frame.render_widget(
        Paragraph::new(lines).scroll((top, 0)).block(
            Block::default()
                .borders(Borders::ALL)
                .title(title)
                .border_style(t.style(Role::BorderFocus)),
        ),
        r,
    );
}

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}
