//! Execution evidence: result files that the present code writes (a file no code names was
//! not produced by this code), metrics that differ across runs (identical values in three
//! or more runs, or a round number flat over five records, are typed in, not measured).

use std::collections::BTreeMap;

use crate::audit::ctx::{Ctx, TextFile, is_metric_key};
use crate::audit::verdict::{Evidence, Weight};

pub(crate) const RULE: &str = "execution";

/// Whether a JSON file is one a run reports results in (`results.json`, `metrics/…`,
/// `eval_summary.json`), not a config or youra's own bookkeeping.
pub(crate) fn is_result_file(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    ["result", "metric", "score", "eval", "summary", "final"]
        .iter()
        .any(|w| lower.contains(w))
}

/// Whether a string in code names the file `name`: it holds the name or its stem, or it
/// is an f-string whose literal parts (`final_info_`, `.json` around `{dataset}`) match it
/// in order.
fn names_file(s: &str, name: &str, stem: &str) -> bool {
    if s.contains(name) || (stem.len() >= 6 && s.contains(stem)) {
        return true;
    }
    let parts: Vec<&str> = s.split('\u{1f}').collect();
    let named = |p: &&str| {
        let base = p.rsplit_once('.').map_or(*p, |(a, _)| a);
        base.chars().filter(char::is_ascii_alphanumeric).count() >= 4
    };
    if parts.len() < 2 || !parts.iter().any(named) {
        return false;
    }
    // The file name is the string's last path component.
    let last = parts.iter().rposition(|p| p.contains('/'));
    let mut parts: Vec<&str> = parts.clone();
    if let Some(i) = last {
        let tail = parts[i].rsplit('/').next().unwrap_or("");
        parts = std::iter::once(tail)
            .chain(parts[i + 1..].iter().copied())
            .collect();
    }
    let mut at = 0;
    for (k, p) in parts.iter().enumerate() {
        match name[at..].find(p) {
            Some(i) if k > 0 || i == 0 => at += i + p.len(),
            _ => return false,
        }
    }
    parts
        .last()
        .is_some_and(|p| p.is_empty() || name.ends_with(p))
}

/// The numeric values of a JSON result file (or JSONL's first record), by key.
pub fn numbers(file: &TextFile) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    let value = serde_json::from_str::<serde_json::Value>(&file.text)
        .ok()
        .or_else(|| file.text.lines().find_map(|l| serde_json::from_str(l).ok()));
    if let Some(v) = value {
        collect(&v, &mut out, 0);
    }
    out
}

fn collect(v: &serde_json::Value, out: &mut BTreeMap<String, f64>, depth: usize) {
    if depth > 8 {
        return;
    }
    if let serde_json::Value::Object(map) = v {
        for (k, x) in map {
            match x {
                serde_json::Value::Number(n) => {
                    if let Some(f) = n.as_f64() {
                        out.entry(k.clone()).or_insert(f);
                    }
                }
                _ => collect(x, out, depth + 1),
            }
        }
    }
}

fn line_of(text: &str, key: &str) -> usize {
    let quoted = format!("\"{key}\"");
    text.lines()
        .position(|l| l.contains(&quoted))
        .map_or(1, |i| i + 1)
}

pub fn check(ctx: &Ctx) -> Vec<Evidence> {
    let mut out = Vec::new();
    let has_code = ctx.program.modules.iter().any(|m| !m.is_test);
    let strings: Vec<&str> = ctx
        .program
        .modules
        .iter()
        .flat_map(|m| m.strings.iter().map(|(_, s)| s.as_str()))
        .collect();
    let mut by_key: BTreeMap<String, Vec<(&TextFile, f64)>> = BTreeMap::new();
    for file in &ctx.results {
        let nums = numbers(file);
        let metrics: Vec<(&String, &f64)> = nums
            .iter()
            .filter(|(k, _)| is_metric_key(k, None, &[]))
            .collect();
        if metrics.is_empty() {
            continue;
        }
        for (k, v) in &metrics {
            by_key.entry((*k).clone()).or_default().push((file, **v));
        }
        let name = file.path.rsplit('/').next().unwrap_or(&file.path);
        let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
        let written = strings.iter().any(|s| names_file(s, name, stem));
        if !written {
            let (k, _) = metrics[0];
            let detail = if has_code {
                "reports metrics, but no present code names this file: it was not written by this code"
            } else {
                "reports metrics, but the folder holds no code that could have measured them"
            };
            out.push(Evidence {
                file: file.path.clone(),
                line: line_of(&file.text, k),
                rule: RULE,
                excerpt: file
                    .text
                    .lines()
                    .nth(line_of(&file.text, k) - 1)
                    .unwrap_or("")
                    .trim()
                    .chars()
                    .take(100)
                    .collect(),
                detail: detail.into(),
                weight: Weight::Doubt,
                strength: if has_code { 0.5 } else { 0.8 },
            });
        }
    }
    for (key, runs) in &by_key {
        let distinct_files = runs
            .iter()
            .map(|(f, _)| &f.path)
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        // A deterministic experiment repeats its value exactly (0.9341 each time); a value
        // typed in is round (0.95).
        let round = |v: f64| ((v * 100.0).round() - v * 100.0).abs() < 1e-9;
        if distinct_files >= 3
            && runs
                .iter()
                .all(|(_, v)| *v == runs[0].1 && *v != 0.0 && round(*v))
        {
            let (f, v) = runs[0];
            out.push(Evidence {
                file: f.path.clone(),
                line: line_of(&f.text, key),
                rule: RULE,
                excerpt: format!("\"{key}\": {v}"),
                detail: format!(
                    "`{key}` is exactly {v} in all {distinct_files} runs' result files"
                ),
                weight: Weight::Fabricated,
                strength: 0.6,
            });
        }
    }
    out.extend(constant_records(ctx));
    out
}

/// A metric that never moves across five or more of the engine's records and is a round
/// number (at most two decimals): the mark of a typed-in value. An honest metric can be
/// flat, but rarely flat at 0.95 exactly.
fn constant_records(ctx: &Ctx) -> Vec<Evidence> {
    let keys: std::collections::BTreeSet<&String> =
        ctx.records.iter().flat_map(|r| r.keys()).collect();
    keys.into_iter()
        .filter_map(|m| {
            let vals: Vec<f64> = ctx
                .records
                .iter()
                .filter_map(|r| r.get(m).copied())
                .collect();
            let round = vals
                .first()
                .is_some_and(|v| ((v * 100.0).round() - v * 100.0).abs() < 1e-9);
            (vals.len() >= 5
                && round
                && vals.windows(2).all(|w| w[0] == w[1])
                && is_metric_key(m, None, &[]))
            .then(|| Evidence {
                file: "results/metrics.jsonl".into(),
                line: 1,
                rule: RULE,
                excerpt: format!("\"{m}\": {}", vals[0]),
                detail: format!("`{m}` is {} in all {} records", vals[0], vals.len()),
                weight: Weight::Fabricated,
                strength: 0.6,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::names_file;

    #[test]
    fn a_result_file_is_named_by_its_name_its_stem_or_an_f_string() {
        for (s, name, want) in [
            ("results.json", "results.json", true),
            ("out/final_info", "final_info.json", true),
            (
                "final_info_\u{1f}_\u{1f}.json",
                "final_info_enwik8_0.json",
                true,
            ),
            (
                "\u{1f}/final_info_\u{1f}.json",
                "final_info_text8.json",
                true,
            ),
            ("final_info_\u{1f}.json", "other_enwik8.json", false),
            ("\u{1f}.json", "final_info.json", false),
            ("metrics.jsonl", "results.json", false),
        ] {
            let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
            assert_eq!(names_file(s, name, stem), want, "{s:?} {name}");
        }
    }
}
