//! The parts of a run read that follow appended files (`tui::follow`): the Events rows, the
//! metric series, the experiment queue. A full read (`run_view::read_run_with`) builds them
//! with the rest; [`refresh`] rebuilds only them when the watcher saw nothing but appends
//! to files they follow, and keeps the rest of the last read (memory records, plan nodes,
//! archives, the file lists), so a study writing 10 events a second does not re-open
//! thousands of record files for each.

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::path::Path;

use super::data::RunRead;
use super::event_pages_state::EventsFile;
use super::follow::Follower;
use super::log_rows::read_log_warnings;
use super::rows::{EventRow, Metrics};
use super::watch::Changes;
use crate::rundir::RunDir;
use crate::rundir::jobs::ExperimentIndex;
use crate::vsa::Snapshot;
use crate::vsa::timestamp::Timestamp;

/// The Events rows, newest first: the window of `events.jsonl` (through the follower), the
/// warnings of `youra.log` and the VSA's history; the experiment index; and the file beyond
/// the window (its line index and counts, with the rows new since `seen` counted here, in
/// the reader, not per frame).
pub fn events(
    run: &RunDir,
    follower: &mut Follower,
    vsa: Option<&Snapshot>,
    seen: Option<Timestamp>,
) -> (Vec<EventRow>, ExperimentIndex, EventsFile) {
    follower.set_seen(seen);
    let now = follower.events();
    let mut events: Vec<EventRow> = now
        .rows
        .map(|r| r.iter().cloned().collect())
        .unwrap_or_default();
    let index = now.index.cloned().unwrap_or_default();
    let counts = now.counts.cloned().unwrap_or_default();
    let mut file = EventsFile {
        path: run.root.join("events.jsonl"),
        index: now.lines.cloned(),
        first_line: events.first().map_or(0, |r| r.line),
        counts,
        new_since_seen: 0,
    };
    let newer = |e: &EventRow| matches!((seen, e.at), (Some(s), Some(a)) if a.at > s.at);
    // Until the file is indexed, its new rows are counted in the window.
    let from_file = if now.indexed {
        file.counts.new_since_seen as usize
    } else {
        events.iter().filter(|e| newer(e)).count()
    };
    let file_rows = events.len();
    events.extend(read_log_warnings(&run.root.join("youra.log")));
    if let Some(snap) = vsa {
        // The history's newest entries, as many as the events window holds: it grows for
        // as long as the study lives, and this runs on every appended event (the whole of
        // it is in the VSA viewer and `youra vsa history`).
        let history = &snap.vsa.history;
        let from = history.len().saturating_sub(super::follow::WINDOW);
        events.extend(history.since(from).map(|h| EventRow {
            at: h.timestamp,
            actor: h.actor.clone().unwrap_or_else(|| "youra-run".into()),
            stage: h.phase.clone(),
            text: h.summary(),
            from_history: true,
            hypothesis: None,
            // youra's own entries are field diffs (`path: old -> new`); YouRA's are prose.
            kind: h.path.is_some().then(|| "vsa_diff".to_string()),
            line: 0,
        }));
    }
    file.new_since_seen = from_file + events[file_rows..].iter().filter(|e| newer(e)).count();
    // Newest first; entries written in the same millisecond newest first too (reversed before
    // the stable sort: a routing and its escalation are often one tick apart, or none).
    events.reverse();
    events.sort_by(|a, b| b.at.map(|t| t.at).cmp(&a.at.map(|t| t.at)));
    (events, index, file)
}

/// The entries of the run folder: which sub-hypotheses have a folder, by one listing
/// rather than a look per id (most of 500 have none in a long study, and this runs on
/// every refresh).
pub(crate) fn entries(run: &RunDir) -> HashSet<OsString> {
    std::fs::read_dir(&run.root)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name())
        .collect()
}

/// The sub-hypotheses the Experiments pane can have a row for: a folder (a log, metrics)
/// or a row in the queue; `read_experiments` has nothing for the rest.
pub(crate) fn with_experiments(
    ids: &[String],
    entries: &HashSet<OsString>,
    jobs: &[crate::rundir::jobs::JobRow],
) -> Vec<String> {
    let queued: HashSet<&str> = jobs.iter().map(|j| j.hypothesis.as_str()).collect();
    ids.iter()
        .filter(|h| entries.contains(OsStr::new(h.as_str())) || queued.contains(h.as_str()))
        .cloned()
        .collect()
}

/// Each sub-hypothesis's `results/metrics.jsonl`, with its earlier attempts' first series.
pub(crate) fn metrics(
    run: &RunDir,
    ids: &[String],
    entries: &HashSet<OsString>,
    follower: &mut Follower,
) -> Vec<Metrics> {
    ids.iter()
        .filter(|h| entries.contains(OsStr::new(h.as_str())))
        .filter_map(|h| {
            let results = run.root.join(h).join("results");
            if !results.is_dir() {
                return None;
            }
            let mut m = follower.metrics(h, &results.join("metrics.jsonl"))?;
            let attempts = results.join(crate::exec::ATTEMPTS_DIR);
            let name = m.series.first().map(|(n, _)| n.clone()).unwrap_or_default();
            for n in crate::exec::attempt_numbers(&attempts) {
                // Earlier attempts are measurements: drawn only when youra collected them.
                let rel = format!(
                    "{}/{n}/{}",
                    crate::exec::ATTEMPTS_DIR,
                    crate::exec::METRICS_FILE
                );
                if !follower.collected(&run.root, h, &rel) {
                    continue;
                }
                let Some(old) =
                    follower.metrics(h, &attempts.join(n.to_string()).join("metrics.jsonl"))
                else {
                    continue;
                };
                if let Some((_, pts)) = old.series.into_iter().find(|(k, _)| *k == name) {
                    m.earlier.push((n, pts));
                }
            }
            Some(m)
        })
        .collect()
}

/// Whether an in-place write to `path` changes only what [`refresh`] rebuilds: the event
/// log, `youra.log`, the ledger, a metrics file or a log under a sub-hypothesis.
fn followed(root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    let name = rel.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let top = rel.components().count() == 1;
    (top && matches!(name, "events.jsonl" | "youra.log" | "ledger.tsv"))
        || (!top && (name == "metrics.jsonl" || name.ends_with(".log")))
}

/// What [`refresh`] starts from: `read` without the parts it rebuilds (taken out while
/// the rest is copied, so the rows are not copied).
pub fn base_of(read: &mut RunRead) -> RunRead {
    let events = std::mem::take(&mut read.events);
    let metrics = std::mem::take(&mut read.metrics);
    let experiments = std::mem::take(&mut read.experiments);
    let events_file = std::mem::take(&mut read.events_file);
    let base = read.clone();
    read.events_file = events_file;
    read.events = events;
    read.metrics = metrics;
    read.experiments = experiments;
    base
}

/// The last read with its followed parts rebuilt, when `changes` are appends to followed
/// files only (or nothing: an earlier read took the record of what this request was for);
/// `None` when a whole read is needed (anything else changed or is unknown, the VSA did
/// not parse, or the last read was a first one: the quick one without history, or one
/// whose plan nodes are still to be read).
pub fn refresh(
    prev: &RunRead,
    run: &RunDir,
    follower: &mut Follower,
    changes: &Changes,
) -> Option<RunRead> {
    // A reload nobody named is marked unknown by the runtime (`ChangeSet::mark_unknown`).
    let only_appends = !changes.other
        && changes.named.is_empty()
        && changes.written.iter().all(|p| followed(&run.root, p));
    let first = prev.history_pending || prev.plan.as_ref().is_some_and(|p| p.loading);
    if !only_appends || first {
        return None;
    }
    let snap = prev.vsa.as_ref().ok()?;
    let ids: Vec<String> = snap
        .vsa
        .sub_hypotheses
        .iter()
        .map(|h| h.id.clone())
        .collect();
    let (events, index, events_file) = events(run, follower, Some(snap), prev.last_seen);
    let entries = entries(run);
    let metrics = metrics(run, &ids, &entries, follower);
    let jobs = crate::rundir::jobs::queue(&index, &snap.vsa, chrono::Utc::now().fixed_offset());
    let shown = with_experiments(&ids, &entries, &jobs);
    let experiments =
        super::experiments::read_experiments(&run.root, &shown, &entries, &metrics, &index, &jobs);
    let usage = follower.usage();
    // The plan's budget counts the ledger's rows since the engine's last charge.
    let ledger = run.root.join("ledger.tsv");
    let plan = match &prev.plan {
        Some(view) if changes.written.contains(&ledger) => {
            Some(super::plan_view::recharged(view, &run.root))
        }
        kept => kept.clone(),
    };
    Some(RunRead {
        events,
        events_file,
        metrics,
        experiments,
        usage,
        plan,
        ..prev.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::path::PathBuf;

    fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap().flatten() {
            let dst = to.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                copy_dir(&e.path(), &dst);
            } else {
                std::fs::copy(e.path(), &dst).unwrap();
            }
        }
    }

    fn append(path: &Path, line: &str) {
        let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
        writeln!(f, "{line}").unwrap();
    }

    #[test]
    fn appends_rebuild_the_followed_parts_as_a_whole_read_would() {
        let dir = tempfile::tempdir().unwrap();
        let example = Path::new(concat!(
            concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
            "/assets/example-run"
        ));
        copy_dir(example, dir.path());
        let run = crate::rundir::discover(dir.path()).unwrap();
        let store = crate::vsa::Store::new(&run.vsa);
        let mut follower = Follower::new(&run.root);
        let mut read = super::super::run_view::read_run_with(&run, &store, &mut follower);
        let base = base_of(&mut read);
        assert!(base.events.is_empty() && !read.events.is_empty());

        let events = dir.path().join("events.jsonl");
        let metrics = dir.path().join("h-e1/results/metrics.jsonl");
        append(
            &events,
            r#"{"time":"2026-12-01T00:00:00Z","kind":"experiment_exit","hypothesis":"h-e1","result":"0"}"#,
        );
        append(&metrics, r#"{"step": 30000, "test_accuracy": 0.999}"#);
        let appended = Changes {
            written: [events.clone(), metrics.clone()].into_iter().collect(),
            ..Changes::default()
        };
        let fast = refresh(&base, &run, &mut follower, &appended).expect("appends only");
        let whole = super::super::run_view::read_run(&run, &store);
        assert_eq!(fast.events, whole.events);
        assert_eq!(fast.metrics, whole.metrics);
        assert!(
            fast.experiments[0].job.is_some(),
            "the exit is in the queue"
        );
        assert_eq!(fast.experiments, whole.experiments);
        assert_eq!(
            fast.events.first().map(|e| e.text.as_str()),
            Some("experiment_exit h-e1 0")
        );
        assert_eq!(fast.memory, whole.memory, "kept from the last read");

        // Anything else, or nothing named, is a whole read.
        let named = |paths: &[PathBuf], other: bool| Changes {
            written: paths.iter().cloned().collect(),
            other,
            ..Changes::default()
        };
        let created = Changes {
            named: [dir.path().join("h-e1/results/metrics.jsonl")].into(),
            ..Changes::default()
        };
        for changes in [
            named(std::slice::from_ref(&events), true),
            named(&[dir.path().join("memory/failure_h-m1_run1.md")], false),
            named(&[dir.path().join("verification_state.yaml")], false),
            named(&[], true),
            created,
        ] {
            assert!(
                refresh(&base, &run, &mut follower, &changes).is_none(),
                "{changes:?}"
            );
        }
        // Nothing recorded (an earlier read took it) rebuilds the followed parts only.
        assert!(refresh(&base, &run, &mut follower, &Changes::default()).is_some());
    }
}
