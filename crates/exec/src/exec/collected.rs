//! The one gateway for measurements (issue 39, item 3). Every reader of what an experiment
//! measured — the registry and `report check`, the paper's figures, the HTML report, the
//! TUI's earlier attempts — reads `<run>/<h>/results/…` through [`read`], and its rows
//! through [`each_row`]. What they get is what youra collected, within youra's limits:
//!
//! - the file is opened beneath the run with no link followed on any component, and only
//!   when it is a regular file (a FIFO is refused without blocking: `fsutil::open_beneath`);
//! - its sha256 must be in a trusted collection record `<run>/.youra/attempts/<h>/<n>.json`
//!   (`exec::trust`): a file the experiment wrote itself (a planted `attempts/77/`) or
//!   changed after youra collected it is refused, never measured. A run that keeps no
//!   records at all (a YouRA folder, a run from before the records) is read as found: the
//!   sandbox cannot remove `.youra/`, so its absence is never the experiment's doing;
//! - at most the executor's caps are kept (64 MiB and 1M lines of `metrics.jsonl`, 16 MiB of
//!   `experiment_results.json`), the hash is taken over at most what a record hashes;
//! - a row's numbers are kept only when finite and within ±[`MAX_VALUE`], a range a chart can
//!   draw; the others are dropped and counted ([`RowStats::note`] says so).
//!
//! `tests/it/gateway.rs` fails when a file outside this one opens a measured file.

use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::job::{LOG_FILE, METRICS_FILE, RESULTS_DIR, RESULTS_FILE, RUN_CARD_FILE};
use super::metrics::{MAX_BYTES, MAX_LINE_BYTES, MAX_LINES, MAX_RESULTS_BYTES};
use super::trust::{Collection, MANIFEST_DIR};

/// The largest magnitude a measured value may have to be plotted or compared: beyond it a
/// chart's axis has no readable ticks (and plotters' tick search does not end near 1e308).
pub(crate) const MAX_VALUE: f64 = 1e12;

/// The most bytes hashed, as `exec::trust` hashes at most: a larger file is in no record.
const MAX_HASHED: u64 = 256 * 1024 * 1024;
/// A collection record is a few hundred bytes; a larger one is not youra's.
const MAX_RECORD_BYTES: u64 = 1024 * 1024;
/// Records read per sub-hypothesis (a job per attempt: thousands would be a forged folder).
const MAX_RECORDS: usize = 10_000;

/// `v` when a chart can draw it: finite and within ±[`MAX_VALUE`].
pub fn bounded(v: f64) -> Option<f64> {
    (v.is_finite() && v.abs() <= MAX_VALUE).then_some(v)
}

/// A measured file as youra collected it.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// Relative to the run: `h-e1/results/attempts/2/metrics.jsonl`.
    pub rel: String,
    /// Of the whole file.
    pub sha256: String,
    /// At most the reader's cap; [`Measured::truncated`] when the file is longer.
    pub bytes: Vec<u8>,
    pub truncated: bool,
    /// The last trusted collection record holding this file; `None` in a run without records.
    pub record: Option<u32>,
}

/// Why a measured file is not read.
#[derive(Debug, Clone, PartialEq)]
pub enum Refused {
    /// No such file: nothing was measured there.
    Absent,
    /// Not a name the executor collects, or a path that leaves the sub-hypothesis's results.
    NotMeasured(String),
    /// A link on the way, not a regular file, too large, unreadable.
    Unreadable(String),
    /// Its sha256 (given) is in no trusted collection record.
    NotRecorded { why: String, sha256: String },
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Absent => write!(f, "absent"),
            Refused::NotMeasured(m)
            | Refused::Unreadable(m)
            | Refused::NotRecorded { why: m, .. } => write!(f, "{m}"),
        }
    }
}

/// The collection records of `h` in `run`, oldest first; `None` when the run keeps no
/// records at all. Each read capped, no link followed, a FIFO refused; an unreadable or
/// malformed record is no record.
pub fn records(run: &Path, h: &str) -> Option<Vec<(u32, Collection)>> {
    let root = run.join(MANIFEST_DIR);
    if !std::fs::symlink_metadata(&root).is_ok_and(|m| m.is_dir()) {
        return None;
    }
    let dir = root.join(h);
    let mut numbers: Vec<u32> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".json")?.parse().ok())
        .take(MAX_RECORDS)
        .collect();
    numbers.sort_unstable();
    let rel = |n: u32| {
        PathBuf::from(MANIFEST_DIR)
            .join(h)
            .join(format!("{n}.json"))
    };
    Some(
        numbers
            .into_iter()
            .filter_map(|n| {
                let bytes = crate::fsutil::read_beneath(run, &rel(n), MAX_RECORD_BYTES).ok()?;
                Some((n, serde_json::from_slice::<Collection>(&bytes).ok()?))
            })
            .collect(),
    )
}

/// The collected file `rel` under `<run>/<h>/results/` (`metrics.jsonl`,
/// `attempts/2/experiment_results.json`, `metrics.jsonl.prev`), read as the module doc says.
pub fn read(run: &Path, h: &str, rel: &str) -> Result<Measured, Refused> {
    read_with(run, h, rel, records(run, h).as_deref())
}

/// [`read`] with the records already loaded (a reader of many attempts loads them once).
pub fn read_with(
    run: &Path,
    h: &str,
    rel: &str,
    records: Option<&[(u32, Collection)]>,
) -> Result<Measured, Refused> {
    let (path, name) = measured_path(h, rel)?;
    let cap = if name.starts_with(METRICS_FILE) {
        MAX_BYTES
    } else {
        MAX_RESULTS_BYTES
    };
    let shown = path.display().to_string();
    let file = match crate::fsutil::open_beneath(run, &path, crate::fsutil::Beneath::Read) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(Refused::Absent),
        Err(e) => return Err(Refused::Unreadable(format!("{shown}: not read ({e})"))),
    };
    let (sha256, bytes, truncated) = hash_keeping(file, cap)
        .map_err(|e| Refused::Unreadable(format!("{shown}: not read ({e})")))?;
    let record = match records {
        None => None,
        Some(records) => {
            let found = records
                .iter()
                .rev()
                .find(|(_, c)| c.trusted && c.files.get(&name) == Some(&sha256));
            match found {
                Some((n, _)) => Some(*n),
                None => {
                    return Err(Refused::NotRecorded {
                        why: format!(
                            "{shown}: not collected by youra (its sha256 is in no trusted record under {MANIFEST_DIR}/); its values are not measured"
                        ),
                        sha256,
                    });
                }
            }
        }
    };
    Ok(Measured {
        rel: shown,
        sha256,
        bytes,
        truncated,
        record,
    })
}

/// Whether `rel` (relative to the run, as a figure manifest names a source) is a collected
/// file, and its sha256: the check `report check` makes before trusting a figure's data.
/// A path outside the sub-hypotheses' results is refused without being opened.
pub fn read_run_rel(run: &Path, rel: &str) -> Result<Measured, Refused> {
    let outside = || {
        Refused::NotMeasured(format!(
            "{rel} is not a file under a sub-hypothesis's {RESULTS_DIR}/ inside the run; not read"
        ))
    };
    let mut parts = rel.splitn(3, '/');
    let (Some(h), Some(RESULTS_DIR), Some(rest)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(outside());
    };
    if !h.starts_with("h-") {
        return Err(outside());
    }
    read(run, h, rest)
}

/// `<h>/results/<rel>` and the collected name it must be recorded under, when `rel` names a
/// measured file by plain components.
fn measured_path(h: &str, rel: &str) -> Result<(PathBuf, String), Refused> {
    let plain = |p: &Path| p.components().all(|c| matches!(c, Component::Normal(_)));
    let (hp, rp) = (Path::new(h), Path::new(rel));
    let name = rp.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let base = name.strip_suffix(".prev").unwrap_or(name);
    let collected = [METRICS_FILE, RESULTS_FILE, LOG_FILE, RUN_CARD_FILE].contains(&base);
    if h.is_empty() || rel.is_empty() || !plain(hp) || hp.components().count() != 1 {
        return Err(Refused::NotMeasured(format!(
            "{h:?} is not a sub-hypothesis folder"
        )));
    }
    if !plain(rp) || !collected {
        return Err(Refused::NotMeasured(format!(
            "{h}/{RESULTS_DIR}/{rel} is not a file the executor collects; not read"
        )));
    }
    Ok((hp.join(RESULTS_DIR).join(rp), name.to_string()))
}

/// The sha256 of everything `file` holds (at most [`MAX_HASHED`]) and its first `cap` bytes.
fn hash_keeping(mut file: std::fs::File, cap: u64) -> io::Result<(String, Vec<u8>, bool)> {
    let mut hasher = Sha256::new();
    let mut kept = Vec::new();
    let (mut total, mut buf) = (0u64, vec![0u8; 64 * 1024]);
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        total += n as u64;
        if total > MAX_HASHED {
            return Err(io::Error::other(format!(
                "larger than {} MiB, more than youra ever collects",
                MAX_HASHED / 1024 / 1024
            )));
        }
        hasher.update(&buf[..n]);
        let room = (cap as usize).saturating_sub(kept.len());
        kept.extend_from_slice(&buf[..n.min(room)]);
    }
    let truncated = total > cap;
    Ok((format!("{:x}", hasher.finalize()), kept, truncated))
}

/// What [`each_row`] passed over.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RowStats {
    /// Rows handed to the reader.
    pub rows: usize,
    /// Lines that are not a JSON object (or longer than the executor reads).
    pub skipped: usize,
    /// Numbers left out of their rows: non-finite or beyond ±[`MAX_VALUE`].
    pub dropped_values: usize,
    /// The file holds more than youra reads (bytes or lines); the rest was not read.
    pub capped: bool,
}

impl RowStats {
    /// One sentence for the reader's warnings, when anything was left out.
    pub fn note(&self, rel: &str) -> Option<String> {
        let mut parts = Vec::new();
        if self.dropped_values > 0 {
            parts.push(format!(
                "{} value(s) not finite or beyond ±{MAX_VALUE:e} left out",
                self.dropped_values
            ));
        }
        if self.skipped > 0 {
            parts.push(format!(
                "{} line(s) not a JSON object skipped",
                self.skipped
            ));
        }
        if self.capped {
            parts.push(format!(
                "read only its first {MAX_LINES} lines / {} MiB",
                MAX_BYTES / 1024 / 1024
            ));
        }
        (!parts.is_empty()).then(|| format!("{rel}: {}", parts.join("; ")))
    }
}

/// Each JSON-object line of a measured `metrics.jsonl`, in order, with its 1-based line
/// number, its numbers bounded (out-of-range ones removed from the row). At most the
/// executor's line cap; a last line cut by the byte cap is not read.
pub fn each_row(m: &Measured, mut f: impl FnMut(usize, &Map<String, Value>)) -> RowStats {
    let mut stats = RowStats {
        capped: m.truncated,
        ..RowStats::default()
    };
    let mut lines = m.bytes.split(|&b| b == b'\n').peekable();
    let mut line = 0;
    while let Some(text) = lines.next() {
        if m.truncated && lines.peek().is_none() {
            break;
        }
        line += 1;
        if line > MAX_LINES {
            stats.capped = true;
            break;
        }
        if text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let row = (text.len() <= MAX_LINE_BYTES)
            .then(|| serde_json::from_slice::<Map<String, Value>>(text.trim_ascii()).ok())
            .flatten();
        let Some(mut row) = row else {
            stats.skipped += 1;
            continue;
        };
        stats.dropped_values += bound_row(&mut row);
        stats.rows += 1;
        f(line, &row);
    }
    stats
}

/// The rows of a measured `metrics.jsonl` as the executor's records (for a reader that wants
/// them typed: the failure context of recovery), bounded as [`each_row`] bounds them.
pub fn metric_records(m: &Measured) -> (Vec<super::metrics::MetricRecord>, RowStats) {
    let mut out = Vec::new();
    let stats = each_row(m, |line, row| {
        out.push(super::metrics::MetricRecord::from_object(line, row.clone()));
    });
    (out, stats)
}

/// Remove the numbers of `row` a chart cannot draw; how many were removed.
fn bound_row(row: &mut Map<String, Value>) -> usize {
    let before = row.len();
    row.retain(|_, v| match v {
        Value::Number(n) => n.as_f64().and_then(bounded).is_some(),
        _ => true,
    });
    before - row.len()
}

/// A measured `experiment_results.json` parsed (JSON numbers are finite by construction;
/// they are left as measured: the registry compares them, it does not draw them).
pub fn results_json(m: &Measured) -> Result<Value, String> {
    if m.truncated {
        return Err(format!(
            "{}: larger than {} MiB; not read",
            m.rel,
            MAX_RESULTS_BYTES / 1024 / 1024
        ));
    }
    serde_json::from_slice(&m.bytes).map_err(|e| format!("{}: not valid JSON ({e})", m.rel))
}

#[cfg(test)]
#[path = "collected_tests.rs"]
mod tests;
