//! What the TUI's reader keeps between two reads of a run: its appended files
//! (`events.jsonl`, each `metrics.jsonl`) are read from where the last read ended
//! (`rundir::tail`), so a refresh costs what was appended, not the run's age. A truncated
//! or replaced file is read again from its start. One follower per reader thread; a
//! one-shot read (`run_view::read_run`) uses a fresh one.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::run_view::{EventRow, Metrics};
use crate::rundir::events::Event;
use crate::rundir::jobs::ExperimentIndex;
use crate::rundir::tail::Tail;

/// The events log's rows in file order, its experiment index, and each metrics file's
/// series, as of the last read.
#[derive(Debug)]
pub struct Follower {
    events: Tail,
    rows: Vec<EventRow>,
    index: ExperimentIndex,
    metrics: HashMap<PathBuf, MetricsFollow>,
}

impl Follower {
    /// A follower of the run at `root` that has read nothing yet.
    pub fn new(root: &Path) -> Follower {
        Follower {
            events: Tail::new(root.join("events.jsonl")),
            rows: Vec::new(),
            index: ExperimentIndex::new(),
            metrics: HashMap::new(),
        }
    }

    /// `events.jsonl` as of now: its rows (file order) and its experiment index. A line
    /// that is not JSON is skipped alone; an unfinished last line waits for the next read.
    pub fn events(&mut self) -> (&[EventRow], &ExperimentIndex) {
        let (rows, index) = (&mut self.rows, &mut self.index);
        let read = self.events.read(|_, line| {
            let Ok(v) = serde_json::from_slice::<Value>(line) else {
                return;
            };
            let row = super::run_view::event_row(&v);
            if row
                .kind
                .as_deref()
                .is_some_and(|k| k.starts_with("experiment_"))
                && let Ok(e) = serde_json::from_value::<Event>(v)
            {
                index.insert(e);
            }
            rows.push(row);
        });
        if read.is_ok_and(|r| r.restarted) {
            // What was read before belonged to another file: read this one whole.
            self.rows.clear();
            self.index = ExperimentIndex::new();
            self.events = Tail::new(self.events.path());
            return self.events();
        }
        (&self.rows, &self.index)
    }

    /// The series of the metrics file at `path` as of now (`None` while it has no numbers).
    pub fn metrics(&mut self, hypothesis: &str, path: &Path) -> Option<Metrics> {
        let m = self
            .metrics
            .entry(path.to_path_buf())
            .or_insert_with(|| MetricsFollow::new(path));
        m.read();
        m.snapshot(hypothesis)
    }
}

/// The x axis a metrics file is drawn against: the first of these any row has, else the
/// row's number.
const X_KEYS: [&str; 3] = ["step", "epoch", "iteration"];

/// One `metrics.jsonl`, read as it grows.
#[derive(Debug)]
struct MetricsFollow {
    tail: Tail,
    /// Index in `X_KEYS` of the x axis so far (`X_KEYS.len()`: the row number).
    x: usize,
    rows: usize,
    series: Vec<(String, Vec<(f64, f64)>)>,
}

impl MetricsFollow {
    fn new(path: &Path) -> MetricsFollow {
        MetricsFollow {
            tail: Tail::new(path),
            x: X_KEYS.len(),
            rows: 0,
            series: Vec::new(),
        }
    }

    fn read(&mut self) {
        let mut upgraded = false;
        let (x, rows, series) = (&mut self.x, &mut self.rows, &mut self.series);
        let read = self.tail.read(|_, line| {
            if upgraded {
                return;
            }
            // Parsed straight into a map: a row that is not an object is skipped.
            let Ok(row) = serde_json::from_slice::<serde_json::Map<String, Value>>(line) else {
                return;
            };
            // A row with a better x than the axis so far redraws the whole file on it.
            if let Some(better) = X_KEYS[..*x].iter().position(|k| row.contains_key(*k)) {
                *x = better;
                upgraded = true;
                return;
            }
            let x_name = X_KEYS.get(*x).copied().unwrap_or("");
            let xv = row
                .get(x_name)
                .and_then(Value::as_f64)
                .unwrap_or(*rows as f64);
            *rows += 1;
            for (k, v) in &row {
                let Some(y) = v.as_f64().filter(|_| k != x_name) else {
                    continue;
                };
                match series.iter_mut().find(|(n, _)| n == k) {
                    Some((_, pts)) => pts.push((xv, y)),
                    None => series.push((k.clone(), vec![(xv, y)])),
                }
            }
        });
        if upgraded || read.is_ok_and(|r| r.restarted) {
            let x = if upgraded { self.x } else { X_KEYS.len() };
            *self = MetricsFollow::new(self.tail.path());
            self.x = x;
            self.read();
        }
    }

    fn snapshot(&self, hypothesis: &str) -> Option<Metrics> {
        (!self.series.is_empty()).then(|| Metrics {
            hypothesis: hypothesis.to_string(),
            x_name: X_KEYS.get(self.x).copied().unwrap_or("line").to_string(),
            series: self.series.clone(),
            earlier: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn append(path: &Path, text: &str) {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    }

    #[test]
    fn appended_events_and_metrics_extend_what_was_read() {
        let dir = tempfile::tempdir().unwrap();
        let ev = dir.path().join("events.jsonl");
        append(
            &ev,
            "{\"time\":\"2026-01-01T00:00:00Z\",\"kind\":\"experiment_start\",\"hypothesis\":\"h-e1\"}\n",
        );
        let mut f = Follower::new(dir.path());
        assert_eq!(f.events().0.len(), 1);
        append(
            &ev,
            "{\"kind\":\"note\"}\n{\"time\":\"2026-01-01T00:00:01Z\",\"kind\":\"experiment_exit\",\"hypothesis\":\"h-e1\"}\n",
        );
        let (rows, index) = f.events();
        assert_eq!(rows.len(), 3, "a row without a time is still a row");
        assert_eq!(index.of("h-e1").len(), 2);
        std::fs::write(&ev, "{\"kind\":\"stage_start\"}\n").unwrap();
        let (rows, index) = f.events();
        assert_eq!((rows.len(), index.of("h-e1").len()), (1, 0), "truncated");

        let m = dir.path().join("metrics.jsonl");
        append(&m, "{\"loss\": 3.0}\n{\"loss\": 2.0}\n");
        let first = f.metrics("h-e1", &m).unwrap();
        assert_eq!(
            (first.x_name.as_str(), first.series[0].1.clone()),
            ("line", vec![(0.0, 3.0), (1.0, 2.0)])
        );
        append(&m, "{\"loss\": 1.0}\n");
        assert_eq!(f.metrics("h-e1", &m).unwrap().series[0].1.len(), 3);
        // A step appears: the whole file is drawn against it, as a one-shot read would.
        append(&m, "{\"step\": 30, \"loss\": 0.5}\n");
        let m2 = f.metrics("h-e1", &m).unwrap();
        assert_eq!(m2.x_name, "step");
        assert_eq!(
            m2.series[0].1,
            vec![(0.0, 3.0), (1.0, 2.0), (2.0, 1.0), (30.0, 0.5)]
        );
    }
}
