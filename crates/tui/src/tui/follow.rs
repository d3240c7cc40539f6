//! What the TUI's reader keeps between two reads of a run: its appended files
//! (`events.jsonl`, each `metrics.jsonl`) are read from where the last read ended
//! (`rundir::tail`), so a refresh costs what was appended, not the run's age. A truncated
//! or replaced file is read again from its start. What is kept is bounded: the newest
//! [`WINDOW`] event rows with a line index and counts of the rest (the Events pane pages
//! back through the file: `event_pages`), and each metric series thinned to its extremes
//! past [`METRIC_POINTS`]. A large file's first read looks at its end only, so the first
//! frame does not wait for a million lines; the next read takes the whole file. One
//! follower per reader thread; a one-shot read (`run_view::read_run`) uses a fresh
//! [`Follower::whole`].

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::rows::{EventRow, Metrics};
use crate::llm::ledger::Totals;
use crate::rundir::event_lines::{self, LineIndex};
use crate::rundir::events::Event;
use crate::rundir::jobs::ExperimentIndex;
use crate::rundir::tail::Tail;
use crate::vsa::timestamp::Timestamp;

/// How many of the newest `events.jsonl` rows are kept in memory; older ones are paged
/// back from the file through the line index.
pub const WINDOW: usize = 2000;

/// Above this size, the first read takes only the file's last [`WINDOW`] lines (seeking
/// near its end); the next read indexes the whole file.
pub const TAIL_FIRST_BYTES: u64 = 1 << 20;

/// What the events log holds beyond the window, counted as lines arrive (never by a pass
/// over rows in memory).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventCounts {
    /// Events (JSON object lines) in the file.
    pub events: u64,
    /// Per `kind` (`event` when a line has none).
    pub by_kind: BTreeMap<String, u64>,
    /// Per sub-hypothesis the event names in its `hypothesis` field (exact id: `h-e10`'s
    /// events are not `h-e1`'s).
    pub by_hypothesis: BTreeMap<String, u64>,
    /// Events newer than the newest one shown when the TUI last quit (`tui_seen`).
    pub new_since_seen: u64,
}

impl EventCounts {
    fn add(&mut self, kind: &str, hypothesis: Option<&str>, new: bool) {
        self.events += 1;
        bump(&mut self.by_kind, kind);
        if let Some(h) = hypothesis {
            bump(&mut self.by_hypothesis, h);
        }
        self.new_since_seen += u64::from(new);
    }

    /// The events that name sub-hypothesis `id` (0 when none do).
    pub(crate) fn of_hypothesis(&self, id: &str) -> u64 {
        self.by_hypothesis.get(id).copied().unwrap_or(0)
    }
}

/// One more for `key`, allocating its name only the first time it is seen (a million lines
/// share a few dozen kinds).
fn bump(map: &mut BTreeMap<String, u64>, key: &str) {
    match map.get_mut(key) {
        Some(n) => *n += 1,
        None => {
            map.insert(key.to_string(), 1);
        }
    }
}

fn contains(line: &[u8], pat: &[u8]) -> bool {
    line.windows(pat.len()).any(|w| w == pat)
}

/// The events log's window of recent rows, its line index, counts and experiment index.
#[derive(Debug, Clone, Default)]
pub struct EventsNow<'a> {
    /// The newest rows, file order (each with its line number; 0 after the quick first
    /// read, which does not count lines).
    pub rows: Option<&'a VecDeque<EventRow>>,
    pub index: Option<&'a ExperimentIndex>,
    pub lines: Option<&'a LineIndex>,
    pub counts: Option<&'a EventCounts>,
    /// The whole file is indexed (false after the quick first read).
    pub indexed: bool,
}

/// The events log's rows in file order, its experiment index, and each metrics file's
/// series, as of the last read.
#[derive(Debug)]
pub struct Follower {
    events: Tail,
    /// The newest rows (at most [`WINDOW`]).
    window: VecDeque<EventRow>,
    lines: LineIndex,
    counts: EventCounts,
    index: ExperimentIndex,
    seen: Option<Timestamp>,
    /// Lines that start before this offset are counted and indexed, not parsed into rows
    /// (they would fall out of the window).
    rows_from: u64,
    /// The whole file is being followed (not only its last lines read).
    indexed: bool,
    /// A large file's first read looks at its end only (the reader thread's follower);
    /// a one-shot read reads it whole at once.
    quick_first: bool,
    metrics: HashMap<PathBuf, MetricsFollow>,
    /// Whether an earlier attempt's metrics file is one youra collected
    /// (`exec::collected`), by its size and modification time when checked.
    collected: HashMap<PathBuf, (FileStamp, bool)>,
    /// `ledger.tsv`, summed as it grows.
    ledger: Tail,
    usage: Totals,
}

impl Follower {
    /// A follower of the run at `root` that has read nothing yet.
    pub fn new(root: &Path) -> Follower {
        Follower {
            events: Tail::new(root.join("events.jsonl")),
            window: VecDeque::new(),
            lines: LineIndex::default(),
            counts: EventCounts::default(),
            index: ExperimentIndex::new(),
            seen: None,
            rows_from: 0,
            indexed: false,
            quick_first: true,
            metrics: HashMap::new(),
            collected: HashMap::new(),
            ledger: Tail::new(root.join("ledger.tsv")),
            usage: Totals::default(),
        }
    }

    /// A follower whose first read takes every file whole (a one-shot read).
    pub fn whole(root: &Path) -> Follower {
        Follower {
            quick_first: false,
            ..Follower::new(root)
        }
    }

    /// The newest event time shown when the TUI last quit: events after it are counted as
    /// new. Set before the first read (a later change recounts from the file's start).
    pub fn set_seen(&mut self, seen: Option<Timestamp>) {
        if self.seen.map(|t| t.at) != seen.map(|t| t.at) {
            self.seen = seen;
            if self.indexed {
                self.reset();
            }
        }
    }

    fn reset(&mut self) {
        self.window.clear();
        self.lines = LineIndex::default();
        self.counts = EventCounts::default();
        self.index = ExperimentIndex::new();
        self.events = Tail::new(self.events.path());
        self.indexed = false;
    }

    /// `events.jsonl` as of now. A large file is first read by its last lines only (the
    /// first frame waits for nothing else); every later read follows the whole file: the
    /// lines before the window are counted and indexed, the window's parsed into rows. A
    /// line that is not JSON is skipped alone; an unfinished last line waits for the next
    /// read; a truncated or replaced file is read again from its start.
    pub fn events(&mut self) -> EventsNow<'_> {
        let path = self.events.path().to_path_buf();
        if self.quick_first && !self.indexed && self.window.is_empty() {
            let big = std::fs::metadata(&path).is_ok_and(|m| m.len() > TAIL_FIRST_BYTES);
            if big {
                self.quick_tail(&path);
                return self.now();
            }
        }
        if !self.indexed {
            self.window.clear();
            self.index = ExperimentIndex::new();
            self.rows_from = event_lines::tail_start(&path, WINDOW).unwrap_or(0);
            self.indexed = true;
        }
        let restarted = self.follow().is_ok_and(|r| r.restarted);
        if restarted {
            // What was read before belonged to another file: read this one whole.
            self.reset();
            self.indexed = true;
            self.rows_from = event_lines::tail_start(&path, WINDOW).unwrap_or(0);
            let _ = self.follow();
        }
        self.now()
    }

    fn now(&self) -> EventsNow<'_> {
        EventsNow {
            rows: Some(&self.window),
            index: Some(&self.index),
            lines: self.indexed.then_some(&self.lines),
            counts: self.indexed.then_some(&self.counts),
            indexed: self.indexed,
        }
    }

    /// The last [`WINDOW`] lines only, with no line numbers yet.
    fn quick_tail(&mut self, path: &Path) {
        let Ok(from) = event_lines::tail_start(path, WINDOW) else {
            return;
        };
        let mut tail = Tail::from_offset(path, from);
        let _ = tail.read(|_, line| {
            if let Ok(v) = serde_json::from_slice::<Value>(line) {
                let row = super::rows::event_row(&v);
                index_experiment(&mut self.index, &row, v);
                self.window.push_back(row);
            }
        });
    }

    fn follow(&mut self) -> std::io::Result<crate::rundir::tail::TailRead> {
        let Follower {
            events,
            window,
            lines,
            counts,
            index,
            seen,
            rows_from,
            ..
        } = self;
        let newer = |at: Option<&Timestamp>| matches!((seen.as_ref(), at), (Some(s), Some(a)) if a.at > s.at);
        events.read_at(|n, offset, line| {
            lines.push(n, offset);
            if offset < *rows_from
                && let Some(kind) = event_lines::quick_field(line, "kind")
                && line.ends_with(b"}")
                && !kind.starts_with("experiment_")
                // The time matters only against `tui_seen`; unreadable plainly: parse.
                && let at = seen
                    .is_some()
                    .then(|| event_lines::quick_field(line, "time").and_then(Timestamp::parse))
                && at.as_ref().is_none_or(Option::is_some)
                // A hypothesis named but not plainly readable (an escape in it): parse.
                && let hypothesis = event_lines::quick_field(line, "hypothesis")
                && (hypothesis.is_some() || !contains(line, b"\"hypothesis\":"))
            {
                // Counted, not kept: the window starts later.
                counts.add(kind, hypothesis, newer(at.flatten().as_ref()));
                return;
            }
            let Ok(v) = serde_json::from_slice::<Value>(line) else {
                return;
            };
            if !v.is_object() {
                return;
            }
            let mut row = super::rows::event_row(&v);
            row.line = n;
            counts.add(
                row.kind.as_deref().unwrap_or("event"),
                row.hypothesis.as_deref(),
                newer(row.at.as_ref()),
            );
            index_experiment(index, &row, v);
            if offset >= *rows_from {
                window.push_back(row);
                if window.len() > WINDOW {
                    window.pop_front();
                }
            }
        })
    }

    /// The model calls' totals in `ledger.tsv` as of now (`None` before the first call):
    /// the rows appended since the last read are added; a truncated or replaced ledger is
    /// summed again from its start.
    pub fn usage(&mut self) -> Option<Totals> {
        let mut added = Totals::default();
        let read = self.ledger.read(|_, line| {
            if let Ok(line) = std::str::from_utf8(line) {
                added.add_row(line);
            }
        });
        if read.is_ok_and(|r| r.restarted) {
            self.usage = Totals::default();
        }
        self.usage.calls += added.calls;
        self.usage.input_tokens += added.input_tokens;
        self.usage.output_tokens += added.output_tokens;
        self.usage.cost_usd += added.cost_usd;
        self.usage.unpriced_calls += added.unpriced_calls;
        self.usage.reasoning_tokens += added.reasoning_tokens;
        (self.usage.calls > 0).then_some(self.usage)
    }

    /// The series of the metrics file at `path` as of now (`None` while it has no numbers).
    /// Whether `rel` under `<run>/<h>/results/` is a file youra collected, through the
    /// measurements' gateway (`exec::collected`): an attempt folder the experiment planted,
    /// or a file changed after collection, is never drawn as an earlier attempt. Hashed
    /// again only when the file's size or modification time changes.
    pub fn collected(&mut self, run: &Path, h: &str, rel: &str) -> bool {
        let path = run.join(h).join(crate::exec::RESULTS_DIR).join(rel);
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            return false;
        };
        let stamp = (meta.len(), meta.modified().ok());
        if let Some((seen, ok)) = self.collected.get(&path)
            && *seen == stamp
        {
            return *ok;
        }
        let ok = crate::exec::collected::read(run, h, rel).is_ok();
        self.collected.insert(path, (stamp, ok));
        ok
    }

    pub fn metrics(&mut self, hypothesis: &str, path: &Path) -> Option<Metrics> {
        let quick_first = self.quick_first;
        let m = self.metrics.entry(path.to_path_buf()).or_insert_with(|| {
            let mut m = MetricsFollow::new(path);
            m.started = !quick_first;
            m
        });
        m.read();
        m.snapshot(hypothesis)
    }
}

fn index_experiment(index: &mut ExperimentIndex, row: &EventRow, v: Value) {
    if row
        .kind
        .as_deref()
        .is_some_and(|k| k.starts_with("experiment_"))
        && let Ok(e) = serde_json::from_value::<Event>(v)
    {
        index.insert(e);
    }
}

/// A file's size and modification time: what says it changed since it was checked.
type FileStamp = (u64, Option<std::time::SystemTime>);

/// A metric series longer than this is thinned to its per-slice extremes
/// (`downsample::min_max` over a quarter as many slices), so a million rows cost a few
/// hundred KB, not 16 MB per copy; a chart is at most a few hundred columns wide and the
/// extremes (a spike) stay.
pub(crate) const METRIC_POINTS: usize = 16_384;

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
    /// Read once: a large file's first read takes only its last rows (the first frame
    /// waits for nothing else), the next one the whole file.
    started: bool,
    /// The series hold only the file's last rows.
    quick: bool,
}

impl MetricsFollow {
    fn new(path: &Path) -> MetricsFollow {
        MetricsFollow {
            tail: Tail::new(path),
            x: X_KEYS.len(),
            rows: 0,
            series: Vec::new(),
            started: false,
            quick: false,
        }
    }

    fn read(&mut self) {
        if self.quick {
            // The whole file now.
            *self = MetricsFollow::new(self.tail.path());
            self.started = true;
        }
        let path = self.tail.path().to_path_buf();
        let quick_from = (!std::mem::replace(&mut self.started, true)
            && std::fs::metadata(&path).is_ok_and(|m| m.len() > TAIL_FIRST_BYTES))
        .then(|| event_lines::tail_start(&path, METRIC_POINTS / 2).ok())
        .flatten();
        match quick_from {
            Some(from) => {
                let whole = std::mem::replace(&mut self.tail, Tail::from_offset(&path, from));
                self.quick = true;
                self.take(Some(from));
                self.tail = whole;
            }
            None => self.take(None),
        }
    }

    /// Read what was appended (from `quick`'s offset when it is the first look at the
    /// file's end).
    fn take(&mut self, quick: Option<u64>) {
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
            // Only values a chart can draw (`exec::collected::bounded`): a row with an x
            // near ±1e308 is not drawn, a value beyond the range is left out.
            if crate::exec::collected::bounded(xv).is_none() {
                return;
            }
            for (k, v) in &row {
                let Some(y) = v
                    .as_f64()
                    .filter(|_| k != x_name)
                    .and_then(crate::exec::collected::bounded)
                else {
                    continue;
                };
                match series.iter_mut().find(|(n, _)| n == k) {
                    Some((_, pts)) => {
                        pts.push((xv, y));
                        if pts.len() > METRIC_POINTS {
                            *pts = super::downsample::min_max(pts, METRIC_POINTS / 4);
                        }
                    }
                    None => series.push((k.clone(), vec![(xv, y)])),
                }
            }
        });
        if upgraded || read.is_ok_and(|r| r.restarted) {
            let x = if upgraded { self.x } else { X_KEYS.len() };
            let path = self.tail.path().to_path_buf();
            *self = MetricsFollow::new(&path);
            (self.x, self.started) = (x, true);
            // A better axis during the quick look: the quick look again, on it.
            let quick = quick.filter(|_| upgraded);
            if let Some(from) = quick {
                (self.tail, self.quick) = (Tail::from_offset(&path, from), true);
            }
            self.take(quick);
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
#[path = "follow_tests.rs"]
mod tests;
