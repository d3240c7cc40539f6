//! What the Experiments pane lists: per sub-hypothesis, its metric series, the newest log
//! with its tail, and its place in the experiment queue (waiting, running where, finished,
//! with elapsed time: `rundir::jobs`); plus GPU use when `nvidia-smi` exists. Read off the
//! UI thread with the rest of the run.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::run_view::{EventRow, Metrics};

/// How many trailing bytes of a log are read for the tail.
const TAIL_BYTES: u64 = 16 * 1024;
pub const TAIL_LINES: usize = 60;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunState {
    Running,
    /// Ended; the exit code when the log or the events say it.
    Finished(Option<i32>),
    Unknown,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Experiment {
    pub hypothesis: String,
    pub state: RunState,
    pub metrics: Option<Metrics>,
    pub log: Option<PathBuf>,
    pub tail: Vec<String>,
    /// Its row in the experiment queue, when it has one.
    pub job: Option<crate::rundir::jobs::JobRow>,
}

pub fn read_experiments(
    root: &Path,
    ids: &[String],
    metrics: &[Metrics],
    events: &[EventRow],
    jobs: &[crate::rundir::jobs::JobRow],
) -> Vec<Experiment> {
    ids.iter()
        .filter_map(|h| {
            let m = metrics.iter().find(|m| &m.hypothesis == h).cloned();
            let log = newest_log(&root.join(h));
            let job = jobs.iter().find(|j| &j.hypothesis == h).cloned();
            if m.is_none() && log.is_none() && job.is_none() {
                return None;
            }
            let tail = log.as_deref().map(tail_lines).unwrap_or_default();
            Some(Experiment {
                hypothesis: h.clone(),
                state: state(h, &tail, events),
                metrics: m,
                log,
                tail,
                job,
            })
        })
        .collect()
}

/// Running when the newest experiment event for `h` is a start; finished with YouRA's
/// `EXPERIMENT COMPLETE (exit=N)` line or an exit event.
fn state(h: &str, tail: &[String], events: &[EventRow]) -> RunState {
    if let Some(code) = tail
        .iter()
        .rev()
        .find_map(|l| l.split("EXPERIMENT COMPLETE (exit=").nth(1))
        .map(|r| r.trim_end_matches(')').trim().parse().ok())
    {
        return RunState::Finished(code);
    }
    // Events are newest first.
    match events.iter().find(|e| {
        e.hypothesis.as_deref() == Some(h)
            && e.kind
                .as_deref()
                .is_some_and(|k| k.starts_with("experiment_"))
    }) {
        // A placement (a Slurm job reaching its node) comes after the start: still running.
        Some(e)
            if matches!(
                e.kind.as_deref(),
                Some("experiment_start" | "experiment_placed")
            ) =>
        {
            RunState::Running
        }
        Some(_) => RunState::Finished(None),
        None => RunState::Unknown,
    }
}

fn newest_log(dir: &Path) -> Option<PathBuf> {
    crate::rundir::lessons::hypothesis_logs(dir)
        .into_iter()
        .max_by_key(|(t, _)| *t)
        .map(|(_, p)| p)
}

/// The last lines of a file, reading only its end.
pub fn tail_lines(path: &Path) -> Vec<String> {
    let Ok(mut f) = std::fs::File::open(path) else {
        return Vec::new();
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let start = len.saturating_sub(TAIL_BYTES);
    if f.seek(SeekFrom::Start(start)).is_err() {
        return Vec::new();
    }
    let mut buf = Vec::new();
    if f.read_to_end(&mut buf).is_err() {
        return Vec::new();
    }
    let text = String::from_utf8_lossy(&buf);
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if start > 0 && !lines.is_empty() {
        lines.remove(0); // a partial first line
    }
    let skip = lines.len().saturating_sub(TAIL_LINES);
    lines.split_off(skip)
}

/// One line per GPU (or MIG slice) the executor would hand out, from the same query
/// (`exec::gpu::query_gpus`); nothing when `nvidia-smi` is absent or fails.
pub fn gpus() -> Vec<String> {
    let found = std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("nvidia-smi").is_file()));
    if !found {
        return Vec::new();
    }
    crate::exec::query_gpus()
        .iter()
        .map(crate::exec::GpuInfo::label)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_and_states_are_read_from_logs_and_events() {
        let dir = tempfile::tempdir().unwrap();
        let h = dir.path().join("h-e1/results");
        std::fs::create_dir_all(&h).unwrap();
        let body: String = (0..200).map(|i| format!("step {i}\n")).collect::<String>()
            + "EXPERIMENT COMPLETE (exit=3)\n";
        std::fs::write(h.join("run.log"), body).unwrap();
        let ex = read_experiments(dir.path(), &["h-e1".into(), "h-x".into()], &[], &[], &[]);
        assert_eq!(ex.len(), 1);
        assert_eq!(ex[0].state, RunState::Finished(Some(3)));
        assert_eq!(ex[0].tail.len(), TAIL_LINES);
        assert_eq!(
            ex[0].tail.last().map(String::as_str),
            Some("EXPERIMENT COMPLETE (exit=3)")
        );
        let start = EventRow {
            at: None,
            actor: "engine".into(),
            stage: None,
            text: "experiment_start h-e1".into(),
            from_history: false,
            kind: Some("experiment_start".into()),
            hypothesis: Some("h-e1".into()),
        };
        assert_eq!(
            state("h-e1", &[], std::slice::from_ref(&start)),
            RunState::Running
        );
        assert_eq!(state("h-e1", &[], &[]), RunState::Unknown);
        // Newest first: a Slurm job placed on its node after the start still runs.
        let placed = EventRow {
            text: "experiment_placed h-e1 Slurm job 7 on n1".into(),
            kind: Some("experiment_placed".into()),
            ..start.clone()
        };
        assert_eq!(
            state("h-e1", &[], &[placed.clone(), start.clone()]),
            RunState::Running
        );
        // h-e10's start says nothing about h-e1, whose last event is its exit.
        let exit = EventRow {
            text: "experiment_exit h-e1 exit=0".into(),
            kind: Some("experiment_exit".into()),
            ..start.clone()
        };
        let other = EventRow {
            text: "experiment_start h-e10".into(),
            hypothesis: Some("h-e10".into()),
            ..start.clone()
        };
        assert_eq!(
            state("h-e1", &[], &[other.clone(), exit, start]),
            RunState::Finished(None)
        );
        assert_eq!(state("h-e10", &[], &[other]), RunState::Running);
        assert_eq!(state("h-e1", &[], &[placed]), RunState::Running);
    }
}
