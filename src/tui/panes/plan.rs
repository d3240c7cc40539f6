//! Plan tree: PrimeScientist's plan nodes from `plan/tree.json` (written by the engine's
//! effort allocation). Until a run has one, the pane says where it would come from.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::block;
use crate::tui::app::{App, PaneId};
use crate::tui::theme::Role;

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let text = "no plan tree in this run (plan/tree.json)";
    frame.render_widget(
        Paragraph::new(Line::styled(text, app.theme.style(Role::Muted)))
            .block(block(app, PaneId::Plan)),
        area,
    );
}
