//! The runs view's live rows: one watcher over every run's folders says which runs changed
//! ([`AppEvent::RunsChanged`]), and one reader thread reads those runs' rows again and
//! sends only the rows that differ from what it last sent ([`AppEvent::RunsRead`]). A file
//! touched without changing a row sends nothing, so nothing is drawn: an idle screen writes
//! 0 bytes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Sender};
use std::time::Duration;

use notify::RecursiveMode;
use notify_debouncer_full::{DebounceEventResult, new_debouncer};

use super::effect::AppEvent;
use super::watch::{changes, relevant};
use crate::rundir::RunDir;
use crate::rundir::summary::{self, RunSummary};

/// The folders a run's files live in: its root, and the VSA's folder when elsewhere.
fn dirs_of(run: &RunDir) -> Vec<PathBuf> {
    let mut dirs = vec![run.root.clone()];
    if let Some(parent) = run.vsa.parent().filter(|p| !p.starts_with(&run.root)) {
        dirs.push(parent.to_path_buf());
    }
    dirs
}

/// The run a changed path belongs to: the one whose folder is the longest prefix of it.
pub fn run_of(runs: &[RunDir], path: &Path) -> Option<usize> {
    runs.iter()
        .enumerate()
        .flat_map(|(i, r)| dirs_of(r).into_iter().map(move |d| (i, d)))
        .filter(|(_, d)| path.starts_with(d))
        .max_by_key(|(_, d)| d.components().count())
        .map(|(i, _)| i)
}

/// Start the reader (it reads every row at once) and, on its own thread, the watcher; the
/// returned sender asks for rows to be read again.
pub fn spawn(runs: Vec<RunDir>, tx: Sender<AppEvent>) -> Sender<Vec<usize>> {
    let reader = spawn_reader(runs.clone(), tx.clone());
    reader.send((0..runs.len()).collect()).ok();
    std::thread::spawn(move || watch(runs, tx));
    reader
}

fn spawn_reader(runs: Vec<RunDir>, tx: Sender<AppEvent>) -> Sender<Vec<usize>> {
    let (req_tx, req_rx) = mpsc::channel::<Vec<usize>>();
    std::thread::spawn(move || {
        let mut last: Vec<Option<RunSummary>> = vec![None; runs.len()];
        while let Ok(first) = req_rx.recv() {
            // Requests that piled up meanwhile collapse into one read of each run named.
            let mut which: BTreeSet<usize> = first.into_iter().collect();
            while let Ok(more) = req_rx.try_recv() {
                which.extend(more);
            }
            let mut rows = Vec::new();
            for i in which {
                let Some(run) = runs.get(i) else { continue };
                let row = summary::read(run);
                if last[i].as_ref() != Some(&row) {
                    last[i] = Some(row.clone());
                    rows.push((i, row));
                }
            }
            if !rows.is_empty() && tx.send(AppEvent::RunsRead(rows)).is_err() {
                return;
            }
        }
    });
    req_tx
}

/// Watch every run's folders for the session; a failure is shown, and the view goes on
/// without live rows. Once watching, every row is read again to cover what changed before.
fn watch(runs: Vec<RunDir>, tx: Sender<AppEvent>) {
    let sink = tx.clone();
    let map = runs.clone();
    let debouncer = new_debouncer(
        Duration::from_millis(30),
        None,
        move |res: DebounceEventResult| {
            let Ok(events) = res else { return };
            let which: BTreeSet<usize> = events
                .iter()
                .filter(|e| changes(&e.kind))
                .flat_map(|e| e.paths.iter())
                .filter(|p| relevant(p))
                .filter_map(|p| run_of(&map, p))
                .collect();
            if !which.is_empty() {
                let _ = sink.send(AppEvent::RunsChanged(which.into_iter().collect()));
            }
        },
    );
    let started = debouncer.and_then(|mut d| {
        for dir in runs.iter().flat_map(dirs_of) {
            d.watch(&dir, RecursiveMode::Recursive)?;
        }
        Ok(d)
    });
    match started {
        Ok(watcher) => {
            let _ = tx.send(AppEvent::RunsChanged((0..runs.len()).collect()));
            // The watcher lives as long as this thread: the whole session.
            loop {
                std::thread::park();
                let _ = &watcher;
            }
        }
        Err(e) => {
            let _ = tx.send(AppEvent::Written(Err(format!(
                "live updates are off: cannot watch the run folders ({e})"
            ))));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(root: &str) -> RunDir {
        RunDir {
            root: PathBuf::from(root),
            vsa: PathBuf::from(root).join("verification_state.yaml"),
            layout: crate::rundir::Layout::Native,
            task_root: None,
            notes: Vec::new(),
        }
    }

    #[test]
    fn a_changed_path_names_its_run() {
        let runs = [run("/r/a"), run("/r/ab"), run("/r/a/nested")];
        let at = |p: &str| run_of(&runs, Path::new(p));
        assert_eq!(at("/r/a/verification_state.yaml"), Some(0));
        assert_eq!(at("/r/ab/events.jsonl"), Some(1));
        assert_eq!(at("/r/a/nested/h-e1/results/metrics.jsonl"), Some(2));
        assert_eq!(at("/r/other/x"), None);
    }
}
