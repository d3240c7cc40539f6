//! One run in one row: its name, stage and since when, status, budget left and what waits
//! for the researcher. The runs view (`youra tui <folder>`) shows a row per run; the facts
//! come from their owners (the VSA's typed workflow and escalation, [`PauseCause`], the plan
//! budget's own type, the engine's lock), read here once and never parsed again by a view.

use std::path::{Path, PathBuf};

use crate::stage::Stage;
use crate::vsa::enums::WorkflowStatus as W;
use crate::vsa::pause::PauseCause;
use crate::vsa::timestamp::Timestamp;
use crate::vsa::{Store, Vsa};

use super::RunDir;

/// Where a run stands, in the order the runs view lists them: what waits for the
/// researcher first, finished runs last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RunStatus {
    /// An escalation, a pause (breakpoint, step, directive) or an approval waits.
    Waiting,
    /// MUST_STOP (or FAILED): stopped on a condition someone must fix.
    MustStop,
    /// The VSA does not parse: nothing else can be said until it is fixed.
    Unreadable,
    /// An engine holds the run's lock now.
    Running,
    /// Neither finished nor run by any engine (a stopped or killed engine, a YouRA folder).
    Stopped,
    Complete,
}

impl RunStatus {
    pub fn label(self) -> &'static str {
        match self {
            RunStatus::Waiting => "waiting",
            RunStatus::MustStop => "MUST_STOP",
            RunStatus::Unreadable => "unreadable",
            RunStatus::Running => "running",
            RunStatus::Stopped => "stopped",
            RunStatus::Complete => "complete",
        }
    }
}

/// A run as one row. Text here is as the run wrote it: a view sanitises it for the terminal.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    pub root: PathBuf,
    /// `project_name`, else the folder's name.
    pub name: String,
    pub stage: Option<Stage>,
    /// `current_phase` as written, when it names no stage youra knows.
    pub stage_text: Option<String>,
    /// When the current stage began (from the history).
    pub since: Option<Timestamp>,
    pub status: RunStatus,
    /// The plan budget's remaining share (0–1); `None` without a plan budget.
    pub budget_left: Option<f64>,
    /// What waits for the researcher, in a few words; for MUST_STOP, the stop reason; for an
    /// unreadable VSA, the parse error.
    pub waits: Option<String>,
    pub revision: u64,
}

/// Read one run's row: the VSA through the store, the budget file, the engine's lock.
pub fn read(run: &RunDir) -> RunSummary {
    let folder = run
        .root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| run.root.display().to_string());
    let snap = match Store::new(&run.vsa).load() {
        Ok(s) => s,
        Err(e) => {
            return RunSummary {
                root: run.root.clone(),
                name: folder,
                stage: None,
                stage_text: None,
                since: None,
                status: RunStatus::Unreadable,
                budget_left: None,
                waits: Some(e.to_string()),
                revision: 0,
            };
        }
    };
    let engine = super::engine_lock::holder(&run.root).is_some();
    let mut row = of(&snap.vsa, engine, budget_left(&run.root));
    row.root = run.root.clone();
    if row.name.is_empty() {
        row.name = folder;
    }
    row
}

/// The row a VSA makes, with whether an engine runs it and the budget left (pure).
pub fn of(vsa: &Vsa, engine_running: bool, budget_left: Option<f64>) -> RunSummary {
    let phase = vsa.workflow.current_phase.as_deref();
    let stage = phase.and_then(Stage::parse);
    let (status, waits) = status(vsa, engine_running);
    RunSummary {
        root: PathBuf::new(),
        name: vsa.project_name.clone().unwrap_or_default(),
        stage,
        stage_text: phase.filter(|_| stage.is_none()).map(str::to_string),
        since: stage_since(vsa),
        status,
        budget_left,
        waits,
        revision: vsa.revision,
    }
}

/// The status and what waits: the escalation first (it can wait while the workflow says
/// anything), then the workflow's own status, then whether an engine holds the lock.
fn status(vsa: &Vsa, engine_running: bool) -> (RunStatus, Option<String>) {
    let w = &vsa.workflow;
    if w.awaits_decision() {
        let e = w.escalation.as_ref();
        let what = format!(
            "escalation: {} for {}",
            e.and_then(|e| e.proposed_action.as_deref())
                .unwrap_or("an action"),
            e.and_then(|e| e.hypothesis.as_deref()).unwrap_or("?"),
        );
        return (RunStatus::Waiting, Some(what));
    }
    match w.status {
        Some(W::Paused) => (
            RunStatus::Waiting,
            Some(PauseCause::of(vsa).map_or_else(|| "paused".into(), |p| p.describe())),
        ),
        Some(W::AwaitingApproval) => (RunStatus::Waiting, Some("awaits approval".into())),
        Some(W::Stopped | W::Failed) => (
            RunStatus::MustStop,
            Some(w.stop_reason.clone().unwrap_or_else(|| "stopped".into())),
        ),
        Some(W::Completed) => (RunStatus::Complete, None),
        _ if engine_running => (RunStatus::Running, None),
        _ => (RunStatus::Stopped, None),
    }
}

/// The plan budget's remaining share, with the ledger's rows since its last charge (as
/// `youra status` and the status line count it); `None` when the run has no plan budget.
pub fn budget_left(root: &Path) -> Option<f64> {
    let path = crate::plan::plan_dir(root).join(crate::plan::BUDGET_FILE);
    let bytes = crate::fsutil::read_run_file(path).ok()?;
    let saved: crate::plan::Budget = serde_json::from_slice(&bytes).ok()?;
    let b = crate::plan::spent_now(root, &saved).unwrap_or(saved);
    Some(b.remaining_share())
}

/// When the current stage began, from the history: the earliest of the latest run of
/// entries whose phase names that stage.
pub fn stage_since(vsa: &Vsa) -> Option<Timestamp> {
    let current = vsa
        .workflow
        .current_phase
        .as_deref()
        .and_then(Stage::parse)?;
    let mut start = None;
    for h in vsa.history.iter().rev() {
        // youra writes `path: workflow.current_phase` with the new label; YouRA a `phase:`.
        let entered = match h.path.as_deref() {
            Some("workflow.current_phase") => h.new.as_deref(),
            _ => h.phase.as_deref(),
        };
        match entered.and_then(Stage::parse) {
            Some(s) if s == current => start = h.timestamp.or(start),
            Some(_) if start.is_some() => break,
            _ => {}
        }
    }
    start
}

/// The runs view's order: what waits first, then by name (and folder, for equal names).
pub fn order(a: &RunSummary, b: &RunSummary) -> std::cmp::Ordering {
    (a.status, &a.name, &a.root).cmp(&(b.status, &b.name, &b.root))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vsa(text: &str) -> Vsa {
        let doc = crate::yaml::parse(text.as_bytes()).unwrap();
        crate::vsa::read(&doc).0
    }

    #[test]
    fn status_and_what_waits_from_the_workflow() {
        let table = [
            (
                "workflow:\n  status: ACTIVE\n",
                false,
                RunStatus::Stopped,
                None,
            ),
            (
                "workflow:\n  status: ACTIVE\n",
                true,
                RunStatus::Running,
                None,
            ),
            (
                "workflow:\n  status: COMPLETED\n",
                true,
                RunStatus::Complete,
                None,
            ),
            (
                "workflow:\n  status: MUST_STOP\n  stop_reason: data missing\n",
                false,
                RunStatus::MustStop,
                Some("data missing"),
            ),
            (
                "workflow:\n  status: PAUSED\n",
                true,
                RunStatus::Waiting,
                Some("paused"),
            ),
            (
                "workflow:\n  status: ACTIVE\n  pending_escalation:\n    hypothesis: h-m1\n    proposed_action: Pivot\n",
                true,
                RunStatus::Waiting,
                Some("escalation: Pivot for h-m1"),
            ),
        ];
        for (text, engine, want, waits) in table {
            let row = of(&vsa(text), engine, None);
            assert_eq!(row.status, want, "{text}");
            assert_eq!(row.waits.as_deref(), waits, "{text}");
        }
    }

    #[test]
    fn waiting_runs_come_first() {
        let row = |name: &str, status| RunSummary {
            root: PathBuf::from(name),
            name: name.into(),
            stage: None,
            stage_text: None,
            since: None,
            status,
            budget_left: None,
            waits: None,
            revision: 0,
        };
        let mut rows = [
            row("a", RunStatus::Complete),
            row("b", RunStatus::Running),
            row("c", RunStatus::MustStop),
            row("d", RunStatus::Waiting),
            row("e", RunStatus::Waiting),
        ];
        rows.sort_by(order);
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["d", "e", "c", "b", "a"]);
    }
}
