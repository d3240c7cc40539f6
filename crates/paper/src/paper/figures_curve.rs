//! One sub-hypothesis's metric curve across its attempts, from the measured files only:
//! each `results/attempts/<n>/metrics.jsonl` and the current `results/metrics.jsonl` read
//! through the gateway (`exec::collected`), so a file youra did not collect (a planted
//! `attempts/77/`), a link or a FIFO never becomes a series. The work is bounded whatever
//! the files hold: the executor's caps on what is read, the newest [`MAX_FILES`] attempts,
//! series thinned as they grow, labels cleaned; what was left out is said in `notes`.

use std::path::Path;

use serde_json::{Map, Value};

use super::{HypothesisGate, Source};
use crate::exec::collected::{self, Measured, Refused};
use crate::paper::draw::{self, Curve, MAX_POINTS, MAX_SERIES};

/// The most attempt files read per sub-hypothesis (the newest): a figure shows a dozen.
const MAX_FILES: usize = 24;
/// The axes a row may be plotted against, in order of preference, with the name the axis
/// is given: a share of the training data is what a learning curve is plotted against even
/// when the row also counts its steps.
const X_KEYS: [(&str, &str); 6] = [
    ("train_fraction", "share of the training data"),
    ("train_share", "share of the training data"),
    ("train_size", "training examples"),
    ("epoch", "epoch"),
    ("step", "step"),
    ("iteration", "iteration"),
];
/// The labels a row may carry to split its attempt's curve.
const LABEL_KEYS: [&str; 2] = ["model", "split"];
/// The most characters of an attempt's options in its series label.
const MAX_OPTION_CHARS: usize = 34;
/// Keys that index a log rather than measure something: never the plotted metric.
const INDEX_KEYS: [&str; 10] = [
    "train_fraction",
    "train_share",
    "train_size",
    "step",
    "epoch",
    "iteration",
    "global_step",
    "time",
    "timestamp",
    "elapsed",
];

/// A curve ready to draw, the measured files it plots (with their hashes as read), and what
/// was left out of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Plot {
    pub curve: Curve,
    pub sources: Vec<Source>,
    pub notes: Vec<String>,
}

/// The measured metric files of `h`, oldest first: `(attempt, file)`, 0 for the current one
/// when it is no attempt's copy, and the attempt whose files the current ones are (the plan
/// tree puts the selected node's files back). Refused files are notes, never series.
fn measured_files(
    run: &Path,
    h: &str,
    notes: &mut Vec<String>,
) -> (Vec<(u32, Measured)>, Option<u32>) {
    let records = collected::records(run, h);
    let results = run.join(h).join(crate::exec::RESULTS_DIR);
    let numbers = crate::exec::attempt_numbers(&results.join(crate::exec::ATTEMPTS_DIR));
    let skip = numbers.len().saturating_sub(MAX_FILES);
    if skip > 0 {
        notes.push(format!(
            "{h}: only the newest {MAX_FILES} attempts are plotted ({skip} older ones left out)"
        ));
    }
    let mut out = Vec::new();
    let mut take = |n: u32, rel: String, out: &mut Vec<(u32, Measured)>| match collected::read_with(
        run,
        h,
        &rel,
        records.as_deref(),
    ) {
        Ok(m) => out.push((n, m)),
        Err(Refused::Absent) => {}
        Err(e) => notes.push(format!("not plotted: {e}")),
    };
    for n in numbers.into_iter().skip(skip) {
        let rel = format!(
            "{}/{n}/{}",
            crate::exec::ATTEMPTS_DIR,
            crate::exec::METRICS_FILE
        );
        take(n, rel, &mut out);
    }
    let mut current = Vec::new();
    take(0, crate::exec::METRICS_FILE.to_string(), &mut current);
    let mut kept = None;
    // A later attempt whose file is an earlier one's (a plan tree's restore of its chosen
    // node) is that attempt again: drawn once, as the one the run kept.
    let mut unique: Vec<(u32, Measured)> = Vec::new();
    for (n, m) in out {
        match unique.iter().find(|(_, a)| a.sha256 == m.sha256) {
            Some((first, _)) => kept = Some(*first),
            None => unique.push((n, m)),
        }
    }
    let mut out = unique;
    if let Some((_, m)) = current.pop() {
        match out.iter().rev().find(|(_, a)| a.sha256 == m.sha256) {
            Some((n, _)) if out.len() > 1 => kept = Some(*n),
            Some(_) => {}
            None => out.push((0, m)),
        }
    }
    (out, kept)
}

/// Each attempt's name in the legend: its number and what its command line changed
/// (youra's own run card, read through the gateway; the options after the words every
/// attempt's command shares), "kept" for the one whose results the run went on with.
fn attempt_names(
    run: &Path,
    h: &str,
    files: &[(u32, Measured)],
    kept: Option<u32>,
    confirmed: bool,
) -> Vec<String> {
    let prefix = format!(
        "{h}/{}/{}/",
        crate::exec::RESULTS_DIR,
        crate::exec::ATTEMPTS_DIR
    );
    let argv: std::collections::BTreeMap<u32, Vec<String>> = crate::exec::run_card::read_all(run)
        .into_iter()
        .filter_map(|c| {
            let n = c
                .file
                .strip_prefix(&prefix)?
                .split('/')
                .next()?
                .parse()
                .ok()?;
            Some((n, c.card.ok()?.argv))
        })
        .collect();
    let lines: Vec<&Vec<String>> = files.iter().filter_map(|(n, _)| argv.get(n)).collect();
    // What each attempt's command adds to the first one's: the words it does not share.
    let first = lines.first().copied();
    files
        .iter()
        .map(|(n, _)| {
            let mut name = match (*n, confirmed) {
                (0, true) => "confirmation (fresh seeds)".to_string(),
                (0, false) => "latest".to_string(),
                _ => format!("attempt {n}"),
            };
            if let (Some(a), Some(first)) = (argv.get(n).filter(|_| lines.len() > 1), first) {
                let options = a
                    .iter()
                    .filter(|w| !first.contains(w))
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" ");
                if !options.is_empty() {
                    let short: String = options.chars().take(MAX_OPTION_CHARS).collect();
                    let more = if short.len() < options.len() {
                        "…"
                    } else {
                        ""
                    };
                    name = format!("{name}: {short}{more}");
                }
            }
            if kept == Some(*n) {
                name.push_str(" (kept)");
            }
            draw::clean_label(&name)
        })
        .collect()
}

/// What the first pass learns: the x axis and the metric to plot.
#[derive(Default)]
struct Axes {
    x: Option<usize>,
    /// Numeric keys seen, for the gate's metric and `accuracy`.
    seen: std::collections::BTreeSet<String>,
    /// The first measured (non-index) numeric key, the last resort.
    first: Option<String>,
    /// The values of the label key seen (a few): one value labels nothing.
    labels: std::collections::BTreeSet<String>,
}

impl Axes {
    fn learn(&mut self, row: &Map<String, Value>) {
        if let Some(l) = LABEL_KEYS
            .iter()
            .find_map(|k| row.get(*k).and_then(Value::as_str))
            && self.labels.len() < 2
        {
            self.labels.insert(l.to_string());
        }
        if let Some(i) = X_KEYS.iter().position(|(k, _)| row.contains_key(*k)) {
            self.x = Some(self.x.map_or(i, |x| x.min(i)));
        }
        for (k, v) in row {
            if v.is_number() && self.seen.len() < 256 {
                self.seen.insert(k.clone());
            }
            if self.first.is_none() && v.is_number() && !INDEX_KEYS.contains(&k.as_str()) {
                self.first = Some(k.clone());
            }
        }
    }
}

/// The curve of one hypothesis: its gate's metric (else `accuracy`, else the first
/// measured number) per attempt, split by a `model` or `split` label when the rows carry
/// one. `None` when nothing measured can be plotted.
pub fn curve(run: &Path, h: &HypothesisGate) -> Option<Plot> {
    let mut notes = Vec::new();
    let (files, kept) = measured_files(run, &h.id, &mut notes);
    let mut axes = Axes::default();
    for (_, m) in &files {
        let stats = collected::each_row(m, |_, row| axes.learn(row));
        notes.extend(stats.note(&m.rel));
    }
    let (x_name, x_desc) = axes
        .x
        .map_or(("line", "line of the metrics file"), |i| X_KEYS[i]);
    let names = attempt_names(run, &h.id, &files, kept, h.confirmed);
    let labelled = axes.labels.len() > 1;
    let metric = h
        .criteria
        .iter()
        .map(|(m, _, _)| m.as_str())
        .find(|m| axes.seen.contains(*m) && *m != x_name)
        .or_else(|| axes.seen.contains("accuracy").then_some("accuracy"))
        .or(axes.first.as_deref())?
        .to_string();
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    let mut unplotted_labels = 0usize;
    for ((_, m), attempt) in files.iter().zip(&names) {
        collected::each_row(m, |line, row| {
            let Some(y) = row.get(&metric).and_then(Value::as_f64) else {
                return;
            };
            let x = row
                .get(x_name)
                .and_then(Value::as_f64)
                .unwrap_or(line as f64);
            let label = LABEL_KEYS
                .iter()
                .find_map(|k| row.get(*k).and_then(Value::as_str))
                .filter(|_| labelled)
                .map_or(attempt.clone(), |l| {
                    draw::clean_label(&format!("{attempt}, {l}"))
                });
            match series.iter().position(|(name, _)| *name == label) {
                Some(i) => {
                    let pts = &mut series[i].1;
                    pts.push((x, y));
                    // Thinned as it grows: a million rows never sit in memory as points.
                    if pts.len() >= 4 * MAX_POINTS {
                        *pts = draw::thin(pts, MAX_POINTS);
                    }
                }
                None if series.len() < MAX_SERIES => series.push((label, vec![(x, y)])),
                None => unplotted_labels += 1,
            }
        });
    }
    if unplotted_labels > 0 {
        notes.push(format!(
            "{}: only {MAX_SERIES} series are drawn; {unplotted_labels} row(s) of further attempts or labels left out",
            h.id
        ));
    }
    for (_, pts) in &mut series {
        *pts = draw::thin(pts, MAX_POINTS);
    }
    series.retain(|(_, pts)| !pts.is_empty());
    if series.is_empty() {
        return None;
    }
    let threshold = h
        .criteria
        .iter()
        .find(|(m, _, _)| *m == metric)
        .and_then(|(_, _, v)| collected::bounded(*v));
    let sources = files
        .iter()
        .map(|(_, m)| Source {
            path: m.rel.clone(),
            sha256: m.sha256.clone(),
        })
        .collect();
    let curve = Curve {
        title: draw::clean_label(&format!("{}: {metric} by {x_desc}", h.name())),
        x_name: x_desc.to_string(),
        metric: draw::clean_label(&metric),
        series,
        threshold,
    };
    Some(Plot {
        curve,
        sources,
        notes,
    })
}
