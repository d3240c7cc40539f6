//! The run as the TUI holds it: [`RunRead`], what one read of the run directory brings back
//! (`run_view.rs` reads it off the UI thread), and [`Data`], the last read the app keeps.
//! Plain data, below the app and everything that reads or draws it.

use std::path::PathBuf;
use std::sync::Arc;

use super::rows::{EventRow, Metrics};
use crate::rundir::archive::ArchiveMarker;
use crate::rundir::artifacts::ArtifactPresence;
use crate::rundir::memory::MemoryRecord;
use crate::vsa::Snapshot;
use crate::vsa::timestamp::Timestamp;

/// A read of the run. `vsa` is `Err` with a `file:line:col: message` when the file does not parse.
#[derive(Debug, Clone)]
pub struct RunRead {
    pub vsa: Result<Arc<Snapshot>, String>,
    pub memory: Vec<MemoryRecord>,
    /// Each record's archive and attempt log, in `memory`'s order.
    pub memory_links: Vec<crate::rundir::lessons::RecordLinks>,
    /// The further runs given to `youra tui` (the runtime's reader adds them).
    pub lessons_from: Vec<super::lessons_state::OtherRun>,
    pub archives: Vec<ArchiveMarker>,
    pub artifacts: Vec<ArtifactPresence>,
    /// The newest events (see `data::Data::events`).
    pub events: Vec<EventRow>,
    /// `events.jsonl` beyond `events`: its line index and counts.
    pub events_file: super::event_pages_state::EventsFile,
    pub metrics: Vec<Metrics>,
    /// Files the artifact picker offers: per sub-hypothesis folder, and `run` for the rest.
    pub files: Vec<(String, Vec<PathBuf>)>,
    /// When the current stage began (walks the whole history, so it is done here).
    pub stage_since: Option<String>,
    /// Tokens, calls and cost so far, summed from `ledger.tsv`.
    pub usage: Option<crate::llm::ledger::Totals>,
    /// π's thresholds, κ_min and MaxPivots as the run configures them (for the card).
    pub recovery: crate::reflect::routing::Thresholds,
    /// `[exec] sandbox`: `off` is shown on the status line.
    pub sandbox: crate::exec::SandboxMode,
    pub experiments: Vec<super::experiments::Experiment>,
    pub gpus: Vec<String>,
    /// The newest event time shown when the TUI last quit on this run (`.youra/tui_seen`).
    pub last_seen: Option<Timestamp>,
    pub plan: Option<super::plan_view::PlanView>,
    /// `[plan] budget_tokens` > 0: with no tree yet, it has not started (rather than off).
    pub plan_on: bool,
    /// Why the run's youra.toml cannot be read (issue 43: the TUI opened such a run without
    /// a word): shown on the banner while the run is shown with default settings.
    pub config_error: Option<String>,
    /// A quick first read: the VSA's history is still being read.
    pub history_pending: bool,
    /// Stages an applied `skip` directive skipped.
    pub skipped_stages: Vec<crate::stage::Stage>,
    /// Redesign, reset and skip directives, oldest first, as timeline lines.
    pub routing: Vec<String>,
    /// The run's MCP servers and their health (`youra.toml`, `.youra/tools_health.json`).
    pub servers: Vec<super::tools::Server>,
    /// YouRA's recorded phase and loop statuses.
    pub progress: super::progress::Progress,
    /// Why the run is paused (from the history entry of the pause).
    pub pause: Option<crate::vsa::pause::PauseCause>,
    /// A replay copy beside the run it replays (`metadata.replayed_from`); `None` for
    /// other runs, and while the history is still being read.
    pub comparison: Option<Result<crate::compare::Comparison, String>>,
    /// The data audit's verdict the engine recorded (`paper/audit.json`), for the Gates pane.
    pub audit: Option<crate::audit::record::Recorded>,
}

/// The run as last read, with the last VSA that parsed.
#[derive(Debug, Clone, Default)]
pub struct Data {
    pub vsa: Option<Arc<Snapshot>>,
    pub memory: Vec<MemoryRecord>,
    /// Where each of `memory` links to (archive, attempt log), in the same order.
    pub memory_links: Vec<crate::rundir::lessons::RecordLinks>,
    /// The records of the further runs given to `youra tui`, for the lessons browser.
    pub lessons_from: Vec<super::lessons_state::OtherRun>,
    pub archives: Vec<ArchiveMarker>,
    pub artifacts: Vec<ArtifactPresence>,
    /// The newest events only (`follow::WINDOW` of the file's, with the VSA history's and
    /// the log's), newest first; older ones are paged from the file (`event_pages`).
    pub events: Vec<EventRow>,
    /// `events.jsonl` beyond `events`: its line index and counts.
    pub events_file: super::event_pages_state::EventsFile,
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
