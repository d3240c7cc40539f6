//! The one owner of UI state. Everything that happens arrives as an [`AppEvent`];
//! [`update`] decides and returns [`Effect`]s for someone else to run. No I/O here.

use std::sync::Arc;

use ratatui::crossterm::event::KeyEvent;

use super::dialogs::{Overlay, edit::EditDialog};
use super::keymap::{Command, Key, Keymap, Mode};
use super::run_view::{EventRow, Metrics, RunRead};
use super::theme::Theme;
use crate::rundir::archive::ArchiveMarker;
use crate::rundir::artifacts::ArtifactPresence;
use crate::rundir::memory::MemoryRecord;
use crate::rundir::{Layout, RunDir};
use crate::vsa::Snapshot;
use crate::vsa::mutation::Mutation;

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

    fn index(self) -> usize {
        PaneId::ALL.iter().position(|p| *p == self).unwrap_or(0)
    }
}

/// What happened.
#[derive(Debug)]
pub enum AppEvent {
    Key(KeyEvent),
    Resize,
    /// Back from a suspend (SIGCONT): the screen must be drawn from scratch.
    Resumed,
    /// Something under the run directory changed on disk.
    Changed,
    /// A file for the viewer, highlighted (or why it cannot be shown).
    Opened {
        title: String,
        lines: Result<Vec<ratatui::text::Line<'static>>, String>,
    },
    Loaded(Box<RunRead>),
    /// A page of `events.jsonl` read from disk, or a search's page (`event_pages.rs`).
    EventsPage(Result<super::event_pages::Page, String>),
    /// The paper, its numbers checked against the registry (or why it cannot be shown).
    PaperRead(Result<Box<super::paper::Paper>, String>),
    /// A write finished: a message for the status line, or the error.
    Written(Result<String, String>),
    /// Files of these runs (indices into the runs view's runs) changed on disk.
    RunsChanged(Vec<usize>),
    /// The runs view's rows that changed since they were last sent.
    RunsRead(Vec<(usize, crate::rundir::summary::RunSummary)>),
    /// The waiting review's card, read and highlighted (or why there is none).
    ReviewRead(Result<Box<super::review_card::ReviewCard>, String>),
    /// Back from `$EDITOR` on a scratch copy of the review's `file` (`review_card::run_editor`).
    ReviewEdited {
        file: String,
        scratch: Result<std::path::PathBuf, String>,
    },
}

/// What `update` asks the runtime to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Reload,
    /// Clear the terminal and draw everything again (ctrl-l).
    Redraw,
    /// Back from a suspend: raw mode and the alternate screen again, then a full redraw.
    Retake,
    /// Read and highlight a file for the viewer.
    OpenFile(std::path::PathBuf),
    /// Read the run's paper and check its numbers (the sanitizer, off the UI thread).
    OpenPaper,
    /// Read a plan node's code diff from its parent for the viewer (`tui/diff_view.rs`).
    OpenDiff(String),
    Mutate(Mutation),
    /// Retitle the terminal for what waits now, and ring when it has just begun to wait
    /// (`attention.rs`): once per waiting event.
    Attention {
        waiting: super::attention::Waiting,
        ring: bool,
    },
    /// A steering request (see `steer`), typed from the key press to the store; `edit`'s
    /// plan file (the `:` line's `--plan-file`) is read when the effect runs, not here.
    Steer {
        request: crate::steer::Request,
        plan_file: Option<String>,
    },
    /// Read these runs' rows for the runs view again (`runs_watch.rs`).
    ReadRuns(Vec<usize>),
    /// Show this run in the panes, opened from the runs view (`runs_view.rs`).
    OpenRun {
        run: RunDir,
        others: Vec<RunDir>,
    },
    /// Back to the runs view: the run shown until now is left.
    CloseRun,
    /// Read a page of `events.jsonl`, or search it, off the UI thread (`event_pages::run`).
    ReadEvents(super::event_pages::PageRequest),
    /// Set the terminal's clipboard to this text (OSC 52, `clipboard.rs`).
    Copy(String),
    /// Read the waiting review's record for its card (`review_card::read`).
    OpenReview,
    /// Release the terminal, open `$EDITOR` on a scratch copy of `source` (run-relative,
    /// the node's `code/<file>`), and take the terminal back.
    EditReview {
        source: std::path::PathBuf,
        file: String,
    },
    Quit,
}

/// The run as last read, with the last VSA that parsed.
#[derive(Debug, Clone, Default)]
pub struct Data {
    pub vsa: Option<Arc<Snapshot>>,
    pub memory: Vec<MemoryRecord>,
    /// Where each of `memory` links to (archive, attempt log), in the same order.
    pub memory_links: Vec<crate::rundir::lessons::RecordLinks>,
    /// The records of the further runs given to `youra tui`, for the lessons browser.
    pub lessons_from: Vec<super::lessons::OtherRun>,
    pub archives: Vec<ArchiveMarker>,
    pub artifacts: Vec<ArtifactPresence>,
    /// The newest events only (`follow::WINDOW` of the file's, with the VSA history's and
    /// the log's), newest first; older ones are paged from the file (`event_pages`).
    pub events: Vec<EventRow>,
    /// `events.jsonl` beyond `events`: its line index and counts.
    pub events_file: super::event_pages::EventsFile,
    pub metrics: Vec<Metrics>,
    pub files: Vec<(String, Vec<std::path::PathBuf>)>,
    pub stage_since: Option<String>,
    pub usage: Option<crate::llm::ledger::Totals>,
    pub recovery: crate::reflect::routing::Thresholds,
    /// `[exec] sandbox = "off"` is shown on the status line, always.
    pub sandbox: crate::exec::SandboxMode,
    pub experiments: Vec<super::experiments::Experiment>,
    pub gpus: Vec<String>,
    pub last_seen: Option<crate::vsa::timestamp::Timestamp>,
    pub plan: Option<super::plan_view::PlanView>,
    /// The run's `[plan]` is on (a missing tree has not started yet).
    pub plan_on: bool,
    pub skipped_stages: Vec<crate::stage::Stage>,
    pub routing: Vec<String>,
    pub history_pending: bool,
    /// The run's MCP servers and their health, for the status line.
    pub servers: Vec<super::tools::Server>,
    /// YouRA's recorded progress (`phases.*.status`, per-hypothesis loop statuses).
    pub progress: super::progress::Progress,
    pub pause: Option<crate::vsa::pause::PauseCause>,
    /// The data audit's recorded verdict: the Gates pane says when it is not Real.
    pub audit: Option<crate::audit::record::Recorded>,
    /// This replay copy against its recorded run (`crate::compare`), when it is one.
    pub comparison: Option<Result<crate::compare::Comparison, String>>,
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
    pub lessons: super::lessons::LessonsState,
    /// What waited at the last read (`attention::Waiting::key`), so each event rings once.
    pub attention: Option<String>,
    /// Every run given to `youra tui` when it opened the runs view (`runs_view.rs`).
    pub runs: Option<super::runs_view::RunsView>,
    /// The Events pane's page from disk and its `/` search.
    pub events: super::event_pages::EventsView,
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

    pub fn native(&self) -> bool {
        self.run.layout == Layout::Native
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

/// Move the focused pane's selection by `delta` rows (clamped).
pub fn move_selection(app: &mut App, delta: isize) {
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

pub fn cycle_focus(app: &mut App, forward: bool) {
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

pub fn open_edit(app: &mut App, dialog: EditDialog) {
    app.overlay = Some(Overlay::Edit(Box::new(dialog)));
}
