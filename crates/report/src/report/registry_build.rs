//! Building the registry from what the run measured, and nothing else: the results each
//! sub-hypothesis's experiment wrote, and the numbers its gate recorded.
//!
//! - `h-*/results/experiment_results.json` (any JSON): every numeric leaf is an entry
//!   `<h>.results.<pointer as dots>`, its path the JSON pointer.
//! - `h-*/results/metrics.jsonl`: per metric key, `<h>.metrics.<key>.final` (the last value
//!   logged) and `<h>.metrics.<key>.best` (the maximum, or the minimum for a metric whose
//!   name says lower is better: loss, error, rmse…). Index keys (step, epoch, time) get a
//!   `final` only: "trained for 11,200 steps" is a claim, a "best step" is not.
//! - `verification_state.yaml`: `<h>.gate.<path>` for numbers under a gate's `result` or
//!   `actual` keys (what was observed, not what was required), and the `mean` youra computed
//!   from the repeats (`gate.evidence`, keyed under the run the gate read), read with
//!   `crate::yaml`.
//! - A results file's `repeats`: `<h>.results.repeats.mean.<metric>`, the mean over the rows
//!   (the rows themselves are not entries: a paper reports means, and per-fold values would
//!   verify almost any number).
//! - Declared, never verifying a measurement: a gate's thresholds and its intervals'
//!   confidence, `h-*/03_config.md`
//!   pairs, and dataset sizes from the data (`registry_data`).
//!
//! A malformed file or log line is skipped with a warning, never fatal: its numbers then
//! stay unverified, which errs on the side of flagging a claim.

use std::path::Path;

use serde_json::Value;

use super::error::ReportError;
use super::registry::{Entry, Origin, Registry};
use crate::yaml::{Node, NodeKind, Scalar11, Style, interpret_plain};

/// Metric names whose best value is the smallest.
const LOWER_IS_BETTER: &[&str] = &[
    "loss",
    "error",
    "err",
    "rmse",
    "mse",
    "mae",
    "perplexity",
    "ppl",
    "latency",
    "wer",
    "cer",
    "fid",
    "regret",
];

/// Keys that index a metrics log rather than measure something.
const INDEX_KEYS: &[&str] = &[
    "step",
    "global_step",
    "epoch",
    "iteration",
    "iter",
    "time",
    "timestamp",
    "wall_time",
    "elapsed",
];

/// Implementation Planning's config of a sub-hypothesis: declared values (seeds, folds).
const CONFIG_FILE: &str = "03_config.md";

/// `name: number` (or `name = number`) pairs of a config file, as declared values: the
/// run chose them, so a paper that states them is not inventing a measurement.
pub(crate) fn config_entries(h: &str, rel: &str, text: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        for piece in line.split([',', ';']) {
            let Some((name, value)) = piece.split_once(':').or_else(|| piece.split_once('='))
            else {
                continue;
            };
            let name = name.trim().trim_start_matches(['-', '*', ' ']).trim();
            let ok_name = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            let Ok(v) = value.trim().trim_matches('`').parse::<f64>() else {
                continue;
            };
            if ok_name && v.is_finite() {
                out.push(
                    Entry::new(format!("{h}.config.{name}"), v)
                        .with_origin(rel, format!("line {}", i + 1))
                        .declared(),
                );
            }
        }
    }
    out
}

/// Build the registry of `run` (a run folder holding `h-*/` folders).
pub fn build(run: &Path) -> Result<Registry, ReportError> {
    let mut registry = Registry::empty();
    let mut files = Vec::new();
    let hypotheses = hypothesis_dirs(run)?;
    let (data, data_files) = super::registry_data::data_entries(run, &hypotheses);
    registry.entries.extend(data);
    files.extend(data_files);
    for h in hypotheses {
        let results = run.join(&h).join("results");
        // What youra collected, through the one gateway (`exec::collected`): a file under
        // results/ counts as measured only when its hash is in a trusted record. A run
        // without `.youra/attempts/` at all (a YouRA folder, a run from before the records)
        // is read as found: the sandbox cannot remove that folder, so its absence is never
        // the experiment's doing.
        let records = crate::exec::collected::records(run, &h);
        let config_rel = format!("{h}/{CONFIG_FILE}");
        if let Some(text) = read_optional(&run.join(&config_rel), &mut registry) {
            registry
                .entries
                .extend(config_entries(&h, &config_rel, &text));
            files.push(config_rel);
        }
        // The executor keeps earlier attempts under `results/attempts/<n>/` (and kept the one
        // before the last as `*.prev` before): their values were measured too (a failed first
        // attempt a paper may report), under `<h>.attempt<n>.…` (`<h>.previous.…`) keys.
        // The folder's attempt number: `results/` holds the one after the last moved away.
        let numbers = crate::exec::attempt_numbers(&results.join(crate::exec::ATTEMPTS_DIR));
        let next = numbers.last().map_or(1, |n| n + 1);
        let mut sources: Vec<(String, String, String, Option<u32>)> = vec![
            (String::new(), String::new(), h.clone(), Some(next)),
            (String::new(), ".prev".into(), format!("{h}.previous"), None),
        ];
        for n in numbers {
            let dir = format!("{}/{n}/", crate::exec::ATTEMPTS_DIR);
            sources.push((dir, String::new(), format!("{h}.attempt{n}"), Some(n)));
        }
        for (sub, suffix, label, folder_attempt) in sources {
            let json_rel = format!("{h}/results/{sub}experiment_results.json{suffix}");
            let name = format!("{sub}experiment_results.json{suffix}");
            if let Some(m) = read_measured(run, &h, &name, records.as_deref(), &mut registry) {
                match crate::exec::collected::results_json(&m) {
                    Ok(v) => {
                        registry.entries.extend(json_entries(&label, &json_rel, &v));
                        registry.entries.extend(repeat_means(&label, &json_rel, &v));
                        if suffix.is_empty()
                            && let Ok(Some(rows)) = crate::evidence::Repeats::from_results(&v)
                        {
                            registry.repeats.push(super::registry::RepeatsFile {
                                hypothesis: h.clone(),
                                label: label.clone(),
                                rows,
                            });
                        }
                        files.push(json_rel);
                        // What ran, for a text that names one run (`runs`): the record
                        // that collected it, else the attempt folder's number.
                        let attempt = m.record.or(folder_attempt);
                        registry
                            .runs
                            .runs
                            .push(super::runs::describe(&label, &h, attempt, &v));
                    }
                    Err(e) => registry
                        .warnings
                        .push(format!("{e}; its values are not in the registry")),
                }
            }
            let log_rel = format!("{h}/results/{sub}metrics.jsonl{suffix}");
            let name = format!("{sub}metrics.jsonl{suffix}");
            if let Some(m) = read_measured(run, &h, &name, records.as_deref(), &mut registry)
                && let Some(text) = utf8(m, &mut registry)
            {
                let (entries, warnings) = metrics_entries(&label, &log_rel, &text);
                registry.entries.extend(entries);
                registry.warnings.extend(warnings);
                files.push(log_rel);
            }
        }
    }
    let described: Vec<String> = registry
        .runs
        .runs
        .iter()
        .map(|r| r.hypothesis.clone())
        .collect();
    for h in dedup(described) {
        let code = super::runs_read::code_text(run, &h);
        registry.runs.learn_count_words(&h, &code);
    }
    if let Some(text) = read_optional(&run.join("verification_state.yaml"), &mut registry) {
        match crate::yaml::parse(text.as_bytes()) {
            Ok(doc) => {
                let gates = doc.root.as_ref().map(gate_entries).unwrap_or_default();
                if !gates.is_empty() {
                    files.push("verification_state.yaml".into());
                }
                registry.entries.extend(gates);
            }
            Err(e) => registry.warnings.push(format!(
                "verification_state.yaml: {e}; gate values are not in the registry"
            )),
        }
    }
    registry.origin = Origin::Measured { files };
    Ok(registry)
}

fn dedup(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v.dedup();
    v
}

/// `h-*` folder names of the run, sorted.
fn hypothesis_dirs(run: &Path) -> Result<Vec<String>, ReportError> {
    let read = std::fs::read_dir(run).map_err(|source| ReportError::Read {
        path: run.to_path_buf(),
        source,
    })?;
    let mut names: Vec<String> = read
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| n.starts_with("h-"))
        .collect();
    names.sort();
    Ok(names)
}

/// A measured file of `h` (`rel` under its `results/`), through the gateway
/// (`exec::collected`): no link followed, regular files only, the executor's caps, and, when
/// the run keeps collection records, only when its sha256 is in a trusted one. Anything
/// else is a warning and no measurement.
fn read_measured(
    run: &Path,
    h: &str,
    rel: &str,
    records: Option<&[(u32, crate::exec::trust::Collection)]>,
    registry: &mut Registry,
) -> Option<crate::exec::collected::Measured> {
    use crate::exec::collected::{Refused, read_with};
    match read_with(run, h, rel, records) {
        Ok(m) => Some(m),
        Err(Refused::Absent) => None,
        Err(e) => {
            registry.warnings.push(e.to_string());
            None
        }
    }
}

/// A measured file's text; not UTF-8 is a warning and no measurement.
fn utf8(m: crate::exec::collected::Measured, registry: &mut Registry) -> Option<String> {
    let cut = if m.truncated {
        // The cap cut the file: its last line is incomplete and not read.
        m.bytes
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1)
    } else {
        m.bytes.len()
    };
    let mut bytes = m.bytes;
    bytes.truncate(cut);
    match String::from_utf8(bytes) {
        Ok(t) => Some(t),
        Err(e) => {
            registry.warnings.push(format!(
                "{}: not UTF-8 ({e}); its values are not measured",
                m.rel
            ));
            None
        }
    }
}

/// A file's text when it exists; an unreadable one becomes a warning.
fn read_optional(path: &Path, registry: &mut Registry) -> Option<String> {
    // Capped, no link, regular files only: a FIFO in a handed run folder must not hang.
    const MAX_BYTES: u64 = 64 * 1024 * 1024;
    if !path.is_file() {
        return None;
    }
    match crate::fsutil::read_capped_string(path, MAX_BYTES) {
        Ok(t) => Some(t),
        Err(e) => {
            registry
                .warnings
                .push(format!("{}: cannot read ({e}); skipped", path.display()));
            None
        }
    }
}

/// Every numeric leaf of `value` as `<h>.results.<dotted pointer>`.
pub(crate) fn json_entries(h: &str, source: &str, value: &Value) -> Vec<Entry> {
    let mut leaves = Vec::new();
    json_leaves(value, &mut Vec::new(), &mut leaves);
    leaves
        .into_iter()
        // A `repeats` row is one fold of one seed: what a paper reports is youra's mean over
        // the rows (`repeat_means`). Thousands of per-row values would let almost any number
        // "match" something measured, and a row's `seed` or `fold` would bind "ten folds" to a
        // fold number.
        .filter(|(segments, _)| segments.first().is_none_or(|s| s != "repeats"))
        .map(|(segments, v)| {
            let pointer: String = segments.iter().map(|s| format!("/{}", escape(s))).collect();
            let key = format!("{h}.results.{}", segments.join("."));
            Entry::new(key, v).with_origin(source, pointer)
        })
        .collect()
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

fn json_leaves(value: &Value, at: &mut Vec<String>, out: &mut Vec<(Vec<String>, f64)>) {
    match value {
        Value::Number(n) => {
            if let Some(v) = n.as_f64().filter(|v| v.is_finite()) {
                out.push((at.clone(), v));
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                at.push(k.clone());
                json_leaves(v, at, out);
                at.pop();
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                at.push(i.to_string());
                json_leaves(v, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

/// Final and best values per metric key of a JSON-lines log.
pub(crate) fn metrics_entries(h: &str, source: &str, text: &str) -> (Vec<Entry>, Vec<String>) {
    // Bounded whatever the log holds: the executor's line cap, the first few bad lines
    // described (the rest counted), a few thousand distinct keys (a key per line must not
    // make a quadratic search or a registry of a million entries).
    const MAX_WARNINGS: usize = 20;
    const MAX_KEYS: usize = 4_096;
    // key → (final value, its line, best value, its line), in first-seen order.
    let mut seen: Vec<(String, f64, usize, f64, usize)> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut warnings = Vec::new();
    let (mut bad, mut unkept) = (0usize, 0usize);
    let lines = text.lines().take(crate::exec::metrics::MAX_LINES);
    for (n, line) in lines.enumerate().map(|(i, l)| (i + 1, l.trim())) {
        if line.is_empty() {
            continue;
        }
        let value: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                bad += 1;
                if bad <= MAX_WARNINGS {
                    warnings.push(format!(
                        "{source}:{n}: not a JSON object ({e}); line skipped"
                    ));
                }
                continue;
            }
        };
        let mut leaves = Vec::new();
        json_leaves(&value, &mut Vec::new(), &mut leaves);
        for (segments, v) in leaves {
            let key = segments.join(".");
            let lower = lower_is_better(&key);
            match index.get(&key) {
                Some(&i) => {
                    let s = &mut seen[i];
                    (s.1, s.2) = (v, n);
                    if (lower && v < s.3) || (!lower && v > s.3) {
                        (s.3, s.4) = (v, n);
                    }
                }
                None if seen.len() < MAX_KEYS => {
                    index.insert(key.clone(), seen.len());
                    seen.push((key, v, n, v, n));
                }
                None => unkept += 1,
            }
        }
    }
    if bad > MAX_WARNINGS {
        warnings.push(format!(
            "{source}: {} more bad lines skipped (only the first {MAX_WARNINGS} are described)",
            bad - MAX_WARNINGS
        ));
    }
    if unkept > 0 {
        warnings.push(format!(
            "{source}: more than {MAX_KEYS} distinct metric keys; {unkept} value(s) of further keys are not in the registry"
        ));
    }
    let mut entries = Vec::new();
    for (key, last, last_line, best, best_line) in seen {
        let pointer = |line: usize| format!("line {line}: /{}", key.replace('.', "/"));
        entries.push(
            Entry::new(format!("{h}.metrics.{key}.final"), last)
                .with_origin(source, pointer(last_line)),
        );
        if !INDEX_KEYS.contains(&key.to_ascii_lowercase().as_str()) {
            entries.push(
                Entry::new(format!("{h}.metrics.{key}.best"), best)
                    .with_origin(source, pointer(best_line)),
            );
        }
    }
    (entries, warnings)
}

/// Whether a metric's best value is its minimum, by the words in its name.
pub(crate) fn lower_is_better(key: &str) -> bool {
    key.to_ascii_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|word| LOWER_IS_BETTER.contains(&word))
}

/// Numbers a gate observed: under `result` or `actual` keys within
/// `sub_hypotheses.<h>.gate` (a map by id, or YouRA's drifted list with `id`s).
pub(crate) fn gate_entries(root: &Node) -> Vec<Entry> {
    let mut out = Vec::new();
    let Some(subs) = root.get("sub_hypotheses") else {
        return out;
    };
    let pairs: Vec<(String, &Node)> = match &subs.kind {
        NodeKind::Map(entries) => entries
            .iter()
            .filter_map(|(k, v)| Some((k.as_str()?.to_string(), v)))
            .collect(),
        NodeKind::Seq(items) => items
            .iter()
            .filter_map(|v| Some((v.get("id")?.as_str()?.to_string(), v)))
            .collect(),
        NodeKind::Scalar(_) => Vec::new(),
    };
    for (h, node) in pairs {
        if let Some(gate) = node.get("gate") {
            let mut leaves = Vec::new();
            yaml_leaves(gate, &mut Vec::new(), &mut leaves);
            for (segments, v) in leaves {
                // Measured (`result`, `actual`) or declared (the criterion's threshold).
                let declared = match segments.last().map(String::as_str) {
                    // `evidence`'s mean: youra's own summary of the repeats. Its bounds are not
                    // claims a text makes of the metric (a `min_group_accuracy_hi` would read as
                    // another minimum), and youra writes them into the paper itself.
                    Some("result" | "actual" | "mean") => false,
                    // The interval's confidence is the run's setting (`[evidence] confidence`):
                    // "a 95% interval" states it, it measures nothing.
                    Some("value" | "threshold" | "required" | "confidence") => true,
                    _ => continue,
                };
                let rest = segments.join(".");
                // An interval's mean is the value of its metric (`h-e1 · accuracy`),
                // not of a metric called `mean`: keyed by the metric the evidence item names.
                let named = match segments.as_slice() {
                    [ev, i, which] if ev == "evidence" => gate
                        .get("evidence")
                        .and_then(Node::as_seq)
                        .and_then(|items| items.get(i.parse::<usize>().ok()?))
                        .and_then(|item| item.get("metric")?.as_str())
                        .filter(|_| which == "mean")
                        .map(str::to_string),
                    _ => None,
                };
                // The interval's values belong to the run the gate read (`results/`): keyed
                // under it, so a text naming another attempt cannot bind them.
                let key = match named {
                    Some(n) => format!("{h}.results.gate.{n}"),
                    None => format!("{h}.gate.{rest}"),
                };
                let e = Entry::new(key, v).with_origin(
                    "verification_state.yaml",
                    format!("sub_hypotheses.{h}.gate.{rest}"),
                );
                out.push(if declared { e.declared() } else { e });
            }
        }
    }
    out
}

/// The mean of each metric over a results file's `repeats` rows, as youra computes it for
/// the gate (`<h>.results.repeats.mean.<metric>`): what a paper reports for an attempt that
/// measured repeats. Rows youra would refuse give no entries (their numbers stay leaves).
pub(crate) fn repeat_means(h: &str, source: &str, value: &Value) -> Vec<Entry> {
    let Ok(Some(rows)) = crate::evidence::Repeats::from_results(value) else {
        return Vec::new();
    };
    let mut sums: std::collections::BTreeMap<&str, (f64, usize)> = Default::default();
    for row in &rows.rows {
        for (k, v) in &row.values {
            let e = sums.entry(k.as_str()).or_default();
            e.0 += v;
            e.1 += 1;
        }
    }
    sums.into_iter()
        .map(|(k, (sum, n))| {
            Entry::new(format!("{h}.results.repeats.mean.{k}"), sum / n as f64)
                .with_origin(source, "/repeats".into())
        })
        .collect()
}

/// Every plain numeric scalar under `node`, with its path of keys and list indices.
pub(crate) fn yaml_leaves(node: &Node, at: &mut Vec<String>, out: &mut Vec<(Vec<String>, f64)>) {
    match &node.kind {
        NodeKind::Scalar(s) => {
            let numeric = s.style == Style::Plain
                && matches!(interpret_plain(&s.text), Scalar11::Int | Scalar11::Float);
            if let Some(v) = s.as_f64().filter(|v| numeric && v.is_finite()) {
                out.push((at.clone(), v));
            }
        }
        NodeKind::Map(entries) => {
            for (k, v) in entries {
                let key = k.as_str().unwrap_or("?").to_string();
                at.push(key);
                yaml_leaves(v, at, out);
                at.pop();
            }
        }
        NodeKind::Seq(items) => {
            for (i, v) in items.iter().enumerate() {
                at.push(i.to_string());
                yaml_leaves(v, at, out);
                at.pop();
            }
        }
    }
}

#[cfg(test)]
#[path = "registry_build_tests.rs"]
mod tests;
