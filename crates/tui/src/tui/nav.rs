//! Where the app looks: the keymap mode keys resolve in, each pane's row count, and moving
//! the focus and the selection. Above the panes, the lessons browser and the pager whose rows
//! it counts; below the commands and `update`, which move it.

use super::app::{App, PaneId};
use super::dialogs::edit::EditDialog;
use super::dialogs::overlay::Overlay;
use super::keymap::Mode;

impl App {
    /// The keymap mode that keys resolve in now.
    pub fn mode(&self) -> Mode {
        match &self.overlay {
            Some(o) => o.mode(),
            None if super::runs_view::showing(self) => Mode::Runs,
            // While a search is typed, letters are the query's, not the pane's commands.
            None if self.lessons.search.typing || self.events.search.typing => Mode::Search,
            None => self.focus.mode(),
        }
    }

    /// How many rows the pane lists, to clamp its selection.
    pub fn rows(&self, pane: PaneId) -> usize {
        match pane {
            PaneId::Lifecycle => crate::stage::Stage::ALL.len(),
            PaneId::Gates => self
                .data
                .vsa
                .as_ref()
                .map_or(0, |s| s.vsa.sub_hypotheses.len()),
            PaneId::Reflection => super::lessons::entries(self).len(),
            PaneId::Events => super::event_pages::visible(self).len(),
            PaneId::Experiments => self.data.experiments.len(),
            PaneId::Plan => self.data.plan.as_ref().map_or(0, |p| p.rows.len()),
        }
    }
}

/// Move the focused pane's selection by `delta` rows (clamped).
pub(crate) fn move_selection(app: &mut App, delta: isize) {
    if app.focus == PaneId::Gates {
        app.criterion = None;
    }
    let n = app.rows(app.focus);
    let s = &mut app.selected[app.focus.index()];
    *s = (*s as isize + delta).clamp(0, n.saturating_sub(1) as isize) as usize;
}

pub fn focus(app: &mut App, pane: PaneId) {
    let was = app.focus;
    app.focus = pane;
    cursor_on_highlight(app, was);
}

pub(crate) fn cycle_focus(app: &mut App, forward: bool) {
    let was = app.focus;
    let i = app.focus.index();
    let n = PaneId::ALL.len();
    app.focus = PaneId::ALL[if forward {
        (i + 1) % n
    } else {
        (i + n - 1) % n
    }];
    cursor_on_highlight(app, was);
}

/// The cursor is the highlight: unfocused, the Lifecycle pane highlights the current stage,
/// so focusing it puts the cursor there (not on Phase 0), and `b` marks the row you see.
fn cursor_on_highlight(app: &mut App, was: PaneId) {
    if app.focus == PaneId::Lifecycle
        && was != PaneId::Lifecycle
        && let Some(row) = super::panes::lifecycle::highlighted(app)
    {
        app.selected_mut(PaneId::Lifecycle, row);
    }
    // Unfocused, the Plan pane follows the search: focusing it starts at that node.
    if app.focus == PaneId::Plan
        && was != PaneId::Plan
        && let Some(row) = app.data.plan.as_ref().and_then(|p| p.current())
    {
        app.selected_mut(PaneId::Plan, row);
    }
}

pub(crate) fn open_edit(app: &mut App, dialog: EditDialog) {
    app.overlay = Some(Overlay::Edit(Box::new(dialog)));
}
