//! The experiment queue, read from the event log and the VSA: per sub-hypothesis in file
//! order, whether its experiment waits (ready, not started), runs (where, since when) or
//! has finished (exit, elapsed). One reader for the Experiments pane and `youra status`.
//! Where a job runs is its `experiment_start`'s placement, or the newest
//! `experiment_placed` after it (a Slurm job's node, known once Slurm has placed it).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use chrono::{DateTime, FixedOffset};
use serde::Serialize;

use super::events::Event;
use crate::vsa::Vsa;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum JobState {
    /// Ready (its prerequisites validated) and not started yet.
    Waiting,
    /// Started and not ended: where (`cpu`, `GPU <id>`, `Slurm job <id> on <node>`) and for
    /// how long so far.
    Running { placement: String, elapsed_s: f64 },
    /// Its newest experiment ended: the exit (`0`, `timeout`, …) and how long it took.
    Finished { exit: String, elapsed_s: f64 },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobRow {
    pub hypothesis: String,
    #[serde(flatten)]
    pub state: JobState,
}

impl JobRow {
    /// `running cpu 3.2s`, `waiting`, `done 2.0s`, `exit 3 2.0s` (for a pane's row).
    pub fn label(&self) -> String {
        match &self.state {
            JobState::Waiting => "waiting".into(),
            JobState::Running {
                placement,
                elapsed_s,
            } => format!("running {placement} {elapsed_s:.1}s"),
            JobState::Finished { exit, elapsed_s } if exit == "0" => {
                format!("done {elapsed_s:.1}s")
            }
            JobState::Finished { exit, elapsed_s } => format!("exit {exit} {elapsed_s:.1}s"),
        }
    }
}

fn time(e: &Event) -> Option<DateTime<FixedOffset>> {
    DateTime::parse_from_rfc3339(&e.time).ok()
}

/// The experiment events (`experiment_*`) of a run, indexed by the exact hypothesis id
/// each names in its own field (`h-e10`'s events are never `h-e1`'s), in file order.
/// Built in one pass over the log (or fed as it grows); only experiment events are kept,
/// so a log of a million model calls costs the index nothing but the pass.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExperimentIndex {
    by_hypothesis: HashMap<String, Vec<Event>>,
}

impl ExperimentIndex {
    pub fn new() -> ExperimentIndex {
        ExperimentIndex::default()
    }

    /// The index of the events in `events.jsonl` at `path` (empty when it is missing).
    pub fn read(path: &Path) -> ExperimentIndex {
        let mut index = ExperimentIndex::new();
        let mut tail = super::events::EventTail::new(path);
        let _ = tail.read(|e| index.insert(e));
        if let Some(Ok(e)) = tail.unfinished() {
            index.insert(e);
        }
        index
    }

    pub fn from_events<'a>(events: impl IntoIterator<Item = &'a Event>) -> ExperimentIndex {
        let mut index = ExperimentIndex::new();
        for e in events {
            index.insert(e.clone());
        }
        index
    }

    /// Add the next event of the log (ignored unless it is an experiment event naming a
    /// hypothesis).
    pub fn insert(&mut self, e: Event) {
        if !e.kind.starts_with("experiment_") {
            return;
        }
        if let Some(h) = e.hypothesis.clone() {
            let mine = self.by_hypothesis.entry(h).or_default();
            // A new start makes the events before it history: the queue and the pane read
            // the newest start, what follows it, and the newest exit before it (a log of
            // 400,000 experiment events keeps a few per hypothesis, not all).
            if e.kind == "experiment_start" {
                let exit = mine.drain(..).rfind(|x| x.kind == "experiment_exit");
                mine.extend(exit);
            }
            mine.push(e);
        }
    }

    /// The experiment events of `hypothesis` from its newest start on (with the newest exit
    /// before that start), oldest first.
    pub fn of(&self, hypothesis: &str) -> &[Event] {
        self.by_hypothesis
            .get(hypothesis)
            .map_or(&[], Vec::as_slice)
    }
}

/// The queue at `now`: every sub-hypothesis that has run an experiment or is ready for one.
/// Each looks its events up in the index, so the cost is the sub-hypotheses' count plus
/// their own experiment events, however long the log.
pub fn queue(index: &ExperimentIndex, vsa: &Vsa, now: DateTime<FixedOffset>) -> Vec<JobRow> {
    let ready: HashSet<&str> = vsa.ready_hypotheses().into_iter().collect();
    vsa.sub_hypotheses
        .iter()
        .filter_map(|h| {
            let mine = index.of(&h.id);
            let start_at = mine.iter().rposition(|e| e.kind == "experiment_start");
            let last_start = start_at.map(|i| &mine[i]);
            let last_exit = mine.iter().rfind(|e| e.kind == "experiment_exit");
            let placed = start_at.and_then(|i| {
                mine[i..]
                    .iter()
                    .rfind(|e| e.kind == "experiment_placed")
                    .and_then(|e| e.action.clone())
            });
            let seconds = |a: Option<DateTime<FixedOffset>>, b: DateTime<FixedOffset>| {
                a.map_or(0.0, |a| (b - a).num_milliseconds().max(0) as f64 / 1000.0)
            };
            let state = match (last_start, last_exit) {
                (Some(s), exit) if exit.is_none_or(|x| time(x) < time(s)) => JobState::Running {
                    placement: placed
                        .or_else(|| s.action.clone())
                        .unwrap_or_else(|| "?".into()),
                    elapsed_s: seconds(time(s), now),
                },
                (start, Some(x)) => JobState::Finished {
                    exit: x.result.clone().unwrap_or_else(|| "?".into()),
                    elapsed_s: time(x).map_or(0.0, |t| seconds(start.and_then(time), t)),
                },
                _ if ready.contains(h.id.as_str()) => JobState::Waiting,
                _ => return None,
            };
            Some(JobRow {
                hypothesis: h.id.clone(),
                state,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(kind: &str, h: &str, at: &str, result: Option<&str>, action: Option<&str>) -> Event {
        let mut e = Event::new(kind).hypothesis(h);
        e.time = at.into();
        e.result = result.map(str::to_string);
        e.action = action.map(str::to_string);
        e
    }

    #[test]
    fn waiting_running_and_finished_with_elapsed_times() {
        let doc = crate::yaml::parse(b"sub_hypotheses:\n  h-e1: {status: VALIDATED, prerequisites: []}\n  h-e2: {status: READY, prerequisites: []}\n  h-e3: {status: READY, prerequisites: []}\n  h-e4: {status: READY, prerequisites: []}\n  h-m1: {status: NOT_STARTED, prerequisites: [h-e3]}\n").unwrap();
        let vsa = crate::vsa::read(&doc).0;
        let mut events = vec![
            ev(
                "experiment_start",
                "h-e1",
                "2026-01-01T00:00:00Z",
                None,
                Some("cpu"),
            ),
            ev(
                "experiment_exit",
                "h-e1",
                "2026-01-01T00:00:02.500Z",
                Some("0"),
                None,
            ),
            ev(
                "experiment_start",
                "h-e2",
                "2026-01-01T00:00:01Z",
                None,
                Some("GPU GPU-1"),
            ),
            // h-e3's earlier job was placed on n1; its second waits for Slurm, then runs on n2.
            ev(
                "experiment_start",
                "h-e3",
                "2026-01-01T00:00:00Z",
                None,
                Some("Slurm job 7"),
            ),
            ev(
                "experiment_placed",
                "h-e3",
                "2026-01-01T00:00:00.500Z",
                None,
                Some("Slurm job 7 on n1"),
            ),
            ev(
                "experiment_exit",
                "h-e3",
                "2026-01-01T00:00:01Z",
                Some("3"),
                None,
            ),
            ev(
                "experiment_start",
                "h-e3",
                "2026-01-01T00:00:02Z",
                None,
                Some("Slurm job 8"),
            ),
        ];
        let now = DateTime::parse_from_rfc3339("2026-01-01T00:00:04Z").unwrap();
        let q = queue(&ExperimentIndex::from_events(&events), &vsa, now);
        let rows = |q: &[JobRow]| -> Vec<(String, String)> {
            q.iter()
                .map(|r| (r.hypothesis.clone(), r.label()))
                .collect()
        };
        assert_eq!(
            rows(&q)[2],
            ("h-e3".to_string(), "running Slurm job 8 2.0s".to_string()),
            "not on the earlier job's node"
        );
        events.push(ev(
            "experiment_placed",
            "h-e3",
            "2026-01-01T00:00:03Z",
            None,
            Some("Slurm job 8 on n2"),
        ));
        let q = queue(&ExperimentIndex::from_events(&events), &vsa, now);
        assert_eq!(
            rows(&q),
            vec![
                ("h-e1".to_string(), "done 2.5s".to_string()),
                ("h-e2".to_string(), "running GPU GPU-1 3.0s".to_string()),
                (
                    "h-e3".to_string(),
                    "running Slurm job 8 on n2 2.0s".to_string()
                ),
                ("h-e4".to_string(), "waiting".to_string()),
            ],
            "h-m1 waits on h-e3, so it is not queued yet"
        );
    }
}
