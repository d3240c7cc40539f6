//! What the Experiments pane lists: per sub-hypothesis, its metric series, the newest log
//! with its tail, and its place in the experiment queue (waiting, running where, finished,
//! with elapsed time: `rundir::jobs`); plus GPU use when `nvidia-smi` exists. Read off the
//! UI thread with the rest of the run.

use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::rows::Metrics;
use crate::rundir::events::Event;
use crate::rundir::jobs::{ExperimentIndex, JobRow};

/// How many trailing bytes of a log are read for the tail.
const TAIL_BYTES: u64 = 16 * 1024;
pub(crate) const TAIL_LINES: usize = 60;

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
    pub job: Option<JobRow>,
}

/// `folders`: the run folder's entries (`refresh::entries`): a sub-hypothesis with no
/// folder has no log, and is not looked for (a queued one of 500, on every refresh).
pub(crate) fn read_experiments(
    root: &Path,
    ids: &[String],
    folders: &HashSet<OsString>,
    metrics: &[Metrics],
    index: &ExperimentIndex,
    jobs: &[JobRow],
) -> Vec<Experiment> {
    // Keyed once: a lookup per sub-hypothesis, not a scan (500 of them are a real run).
    let metrics: HashMap<&str, &Metrics> =
        metrics.iter().map(|m| (m.hypothesis.as_str(), m)).collect();
    let jobs: HashMap<&str, &JobRow> = jobs.iter().map(|j| (j.hypothesis.as_str(), j)).collect();
    ids.iter()
        .filter_map(|h| {
            let m = metrics.get(h.as_str()).map(|m| (*m).clone());
            let log = folders
                .contains(OsStr::new(h.as_str()))
                .then(|| newest_log(&root.join(h)))
                .flatten();
            let job = jobs.get(h.as_str()).map(|j| (*j).clone());
            if m.is_none() && log.is_none() && job.is_none() {
                return None;
            }
            let tail = log.as_deref().map(tail_lines).unwrap_or_default();
            Some(Experiment {
                hypothesis: h.clone(),
                state: state(&tail, index.of(h)),
                metrics: m,
                log,
                tail,
                job,
            })
        })
        .collect()
}

/// Running when the newest experiment event of the sub-hypothesis (its own, from the
/// index: exact id) is a start; finished with YouRA's `EXPERIMENT COMPLETE (exit=N)` line
/// or an exit event.
fn state(tail: &[String], mine: &[Event]) -> RunState {
    if let Some(code) = tail
        .iter()
        .rev()
        .find_map(|l| l.split("EXPERIMENT COMPLETE (exit=").nth(1))
        .map(|r| r.trim_end_matches(')').trim().parse().ok())
    {
        return RunState::Finished(code);
    }
    // The index keeps file order: the newest is last.
    match mine.last().map(|e| e.kind.as_str()) {
        // A placement (a Slurm job reaching its node) comes after the start: still running.
        Some("experiment_start" | "experiment_placed") => RunState::Running,
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
    let Ok(mut f) = crate::fsutil::open_nofollow(path) else {
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
        let ex = read_experiments(
            dir.path(),
            &["h-e1".into(), "h-x".into()],
            &HashSet::from([OsString::from("h-e1")]),
            &[],
            &ExperimentIndex::new(),
            &[],
        );
        assert_eq!(ex.len(), 1);
        assert_eq!(ex[0].state, RunState::Finished(Some(3)));
        assert_eq!(ex[0].tail.len(), TAIL_LINES);
        assert_eq!(
            ex[0].tail.last().map(String::as_str),
            Some("EXPERIMENT COMPLETE (exit=3)")
        );
        let ev = |kind: &str, h: &str| Event::new(kind).hypothesis(h);
        let index = |events: &[Event]| ExperimentIndex::from_events(events);
        let start = ev("experiment_start", "h-e1");
        let placed = ev("experiment_placed", "h-e1");
        let exit = ev("experiment_exit", "h-e1");
        let other = ev("experiment_start", "h-e10");
        let state_of = |h: &str, events: &[Event]| state(&[], index(events).of(h));
        assert_eq!(
            state_of("h-e1", std::slice::from_ref(&start)),
            RunState::Running
        );
        assert_eq!(state_of("h-e1", &[]), RunState::Unknown);
        // Oldest first: a Slurm job placed on its node after the start still runs.
        assert_eq!(
            state_of("h-e1", &[start.clone(), placed.clone()]),
            RunState::Running
        );
        // h-e10's start says nothing about h-e1, whose last event is its exit.
        let events = [start, exit, other];
        assert_eq!(state_of("h-e1", &events), RunState::Finished(None));
        assert_eq!(state_of("h-e10", &events), RunState::Running);
        assert_eq!(state_of("h-e1", &[placed]), RunState::Running);
    }
}
