//! The one owner of UI state: [`App`] and the panes it shows ([`PaneId`]). Plain state,
//! below every file that changes or draws it; `update.rs` decides every change (an
//! [`AppEvent`](super::effect::AppEvent) in, [`Effect`](super::effect::Effect)s out).

use super::data::Data;
use super::dialogs::overlay::Overlay;
use super::keymap::{Keymap, Mode};
use super::theme::Theme;
use crate::rundir::{Layout, RunDir};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PaneId {
    Lifecycle,
    Gates,
    Reflection,
    Events,
    Experiments,
    Plan,
}

impl PaneId {
    pub const ALL: [PaneId; 6] = [
        PaneId::Lifecycle,
        PaneId::Gates,
        PaneId::Reflection,
        PaneId::Events,
        PaneId::Experiments,
        PaneId::Plan,
    ];

    /// The keymap table of this pane.
    pub fn mode(self) -> Mode {
        match self {
            PaneId::Lifecycle => Mode::Lifecycle,
            PaneId::Gates => Mode::Gates,
            PaneId::Reflection => Mode::Reflection,
            PaneId::Events => Mode::Events,
            PaneId::Experiments => Mode::Experiments,
            PaneId::Plan => Mode::Plan,
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            PaneId::Lifecycle => "Lifecycle",
            PaneId::Gates => "Gates",
            PaneId::Reflection => "Reflection",
            PaneId::Events => "Events",
            PaneId::Experiments => "Experiments",
            PaneId::Plan => "Plan tree",
        }
    }

    pub(crate) fn index(self) -> usize {
        PaneId::ALL.iter().position(|p| *p == self).unwrap_or(0)
    }
}

pub struct App {
    pub run: RunDir,
    pub keymap: Keymap,
    pub theme: Theme,
    pub data: Data,
    /// The VSA stopped parsing: `file:line:col: message`, while the last good state stays.
    pub banner: Option<String>,
    /// The run's youra.toml cannot be read: why (shown when the VSA itself reads).
    pub config_warning: Option<String>,
    pub focus: PaneId,
    pub zoomed: bool,
    pub selected: [usize; 6],
    pub overlay: Option<Overlay>,
    /// The status line's message and whether it is an error.
    pub toast: Option<(String, bool)>,
    pub loaded: bool,
    pub quit: bool,
    pub filters: super::filters::Filters,
    /// The Gates pane's selected criterion of the selected sub-hypothesis (`]` / `[`);
    /// `None`: the sub-hypothesis itself, so `e` edits its statement.
    pub criterion: Option<usize>,
    /// The Lifecycle pane shows the recorded run's gates and routes beside this run's (`R`).
    pub show_recorded: bool,
    /// The Reflection pane's grouping and `/` search.
    pub lessons: super::lessons_state::LessonsState,
    /// What waited at the last read (`attention::Waiting::key`), so each event rings once.
    pub attention: Option<String>,
    /// Every run given to `youra tui` when it opened the runs view (`runs_view.rs`).
    pub runs: Option<super::runs_view_state::RunsView>,
    /// The Events pane's page from disk and its `/` search.
    pub events: super::event_pages_state::EventsView,
    /// The escalation card's selected cause (j/k), kept in sight when the causes do not fit.
    pub card_cause: usize,
}

impl App {
    pub fn new(run: RunDir, keymap: Keymap, theme: Theme) -> App {
        App {
            run,
            keymap,
            theme,
            data: Data::default(),
            banner: None,
            config_warning: None,
            focus: PaneId::Gates,
            zoomed: false,
            selected: [0; 6],
            overlay: None,
            toast: None,
            loaded: false,
            quit: false,
            filters: Default::default(),
            criterion: None,
            show_recorded: false,
            lessons: Default::default(),
            attention: None,
            runs: None,
            events: Default::default(),
            card_cause: 0,
        }
    }

    pub fn selected(&self, pane: PaneId) -> usize {
        self.selected[pane.index()]
    }

    pub fn selected_mut(&mut self, pane: PaneId, value: usize) {
        self.selected[pane.index()] = value;
    }

    pub fn native(&self) -> bool {
        self.run.layout == Layout::Native
    }
}
