//! The gates' intervals in the paper (issue 40): wherever Results gives a gated metric's
//! measured value it gains youra's interval (`0.9356 [0.9280, 0.9440] (95% CI, n 5, t)`),
//! Results ends with a table of every gated quantity (n, mean and interval, the method and
//! the verdict), and the Method section opens with how the gates were decided.
//!
//! youra's own record, like the run card appendix: the numbers come from the VSA's
//! `gate.evidence` (youra computed them from the repeats), not from the model's text, so they
//! are added to the checked Markdown when the paper is published and reach Typst and TeX only
//! through their emitters. A run whose gates hold no evidence (one measurement decides, the
//! demo's `min_repeats = 1`) gets its paper unchanged, byte for byte.

use std::collections::BTreeMap;

use super::interval_rows::Stated;
use crate::vsa::model::{GateEvidence, Vsa, percent};

/// The sentence the statistics paragraph opens with (also how a second pass knows it is
/// there).
pub(crate) const STATISTICS_LEAD: &str = "Each gate was decided on a";

/// The line the interval table is introduced with.
pub(crate) const TABLE_LEAD: &str = "Gate intervals, computed by youra from the repeats";

/// Every gated quantity with an interval, with its sub-hypothesis, in file order.
pub fn gated(vsa: &Vsa) -> Vec<(&str, &GateEvidence)> {
    vsa.sub_hypotheses
        .iter()
        .flat_map(|h| h.gate.evidence.iter().map(move |e| (h.id.as_str(), e)))
        .filter(|(_, e)| e.mean.is_some())
        .collect()
}

/// `md` with the intervals of `vsa`'s gates: unchanged when no gate holds evidence.
pub fn with_intervals(md: &str, vsa: &Vsa) -> String {
    with_stated(md, vsa, &[], &BTreeMap::new())
}

/// [`with_intervals`], where a value Results states of an attempt that is not the gate's (or
/// of a baseline) gains that attempt's own interval (`stated`), and the interval table lists
/// each gate's baselines (`baselines`: the metrics `gate.baselines` names, per hypothesis).
pub(crate) fn with_stated(
    md: &str,
    vsa: &Vsa,
    stated: &[Stated],
    baselines: &BTreeMap<String, Vec<String>>,
) -> String {
    let gated = gated(vsa);
    if gated.is_empty() {
        return md.to_string();
    }
    let mut lines: Vec<String> = md.lines().map(str::to_string).collect();
    annotate_results(&mut lines, &gated, stated);
    if !md.contains(TABLE_LEAD) {
        let at = results_end(&lines);
        let mut table = results_table(&gated);
        for row in baseline_rows(&gated, stated, baselines) {
            table.push('\n');
            table.push_str(&row);
        }
        let mut block = vec![String::new(), table];
        if at == lines.len() && results_heading(&lines).is_none() {
            block.insert(0, "## Results: gate intervals".into());
            block.insert(0, String::new());
        }
        lines.splice(at..at, block);
    }
    if !md.contains(STATISTICS_LEAD) {
        let at = method_start(&lines);
        lines.splice(at..at, [String::new(), statistics_paragraph(&gated)]);
    }
    let mut out = lines.join("\n");
    if md.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// How the gates were decided, with the confidence of the first look.
pub(crate) fn statistics_paragraph(gated: &[(&str, &GateEvidence)]) -> String {
    let first = gated
        .iter()
        .filter_map(|(_, e)| e.confidence)
        .fold(None, |m: Option<f64>, c| Some(m.map_or(c, |m| m.min(c))))
        .unwrap_or(0.95);
    let boot = gated
        .iter()
        .any(|(_, e)| e.method.as_deref() == Some("bootstrap"));
    format!(
        "{STATISTICS_LEAD} {} confidence interval of n repeats computed by youra (t, or \
         Nadeau–Bengio's corrected resampled t for cross-validation folds{}): PASS when the \
         interval clears the threshold, FAIL when it misses it, otherwise INCONCLUSIVE; \
         top-up looks at a stricter confidence (decision 0033). A comparative claim was \
         decided on the interval of its paired differences.",
        percent(first),
        if boot {
            ", or the percentile bootstrap where configured"
        } else {
            ""
        }
    )
}

/// The table of every gated quantity, introduced by [`TABLE_LEAD`].
pub fn results_table(gated: &[(&str, &GateEvidence)]) -> String {
    let mut out = vec![
        format!("{TABLE_LEAD} (mean \\[interval\\] with n values and the method):"),
        String::new(),
        "| Sub-hypothesis | Quantity | Criterion | Mean \\[interval\\] (n, method) | Verdict |"
            .into(),
        "|---|---|---|---|---|".into(),
    ];
    for (h, e) in gated {
        let criterion = match (e.op, e.threshold) {
            // ASCII `>=`: `paper.tex` builds with plain pdflatex, whose inputenc has no `≥`.
            (Some(op), Some(t)) => format!("{op} {t}"),
            _ => "—".into(),
        };
        let n = e.n.map_or("n ?".into(), |n| format!("n {n}"));
        out.push(format!(
            "| {} | {} | {} | {} ({n}, {}) | {} |",
            md_text(h),
            md_text(&e.quantity()),
            md_text(&criterion),
            interval_text(e, 3),
            md_text(&method_text(e)),
            md_text(e.verdict.as_ref().map_or("?", |v| v.as_str())),
        ));
    }
    out.join("\n")
}

/// A row of the interval table per baseline a gate named, summarised on the run the gate
/// read: what the claim was measured beside.
fn baseline_rows(
    gated: &[(&str, &GateEvidence)],
    stated: &[Stated],
    baselines: &BTreeMap<String, Vec<String>>,
) -> Vec<String> {
    let mut hs: Vec<&str> = gated.iter().map(|(h, _)| *h).collect();
    hs.dedup();
    let mut out = Vec::new();
    for h in hs {
        let names = baselines.get(h).map(Vec::as_slice).unwrap_or_default();
        // Only on the rows the gate read: after a top-up the run folder's results hold the
        // last look's rows alone, and a baseline on fewer rows than its claim is no match.
        let gate_n = gated.iter().find(|(g, _)| *g == h).and_then(|(_, e)| e.n);
        for b in super::interval_rows::baselines(stated, h, names) {
            let e = &b.evidence;
            if e.n != gate_n {
                continue;
            }
            let n = e.n.map_or("n ?".into(), |n| format!("n {n}"));
            out.push(format!(
                "| {} | {} | baseline | {} ({n}, {}) | — |",
                md_text(h),
                md_text(e.metric.as_deref().unwrap_or("?")),
                interval_text(e, 3),
                md_text(&method_text(e)),
            ));
        }
    }
    out
}

/// `0.936 [0.928, 0.944]` at `decimals`; the mean alone where no interval was recorded.
fn interval_text(e: &GateEvidence, decimals: usize) -> String {
    let mean = e.mean.unwrap_or(f64::NAN);
    match (e.lo, e.hi, e.method.as_deref()) {
        (_, _, Some("single")) => format!("{mean:.decimals$} (one measurement)"),
        (Some(lo), Some(hi), _) => {
            format!("{mean:.decimals$} \\[{lo:.decimals$}, {hi:.decimals$}\\]")
        }
        _ => format!("{mean:.decimals$}"),
    }
}

/// `95% t`, `95% corrected t`.
fn method_text(e: &GateEvidence) -> String {
    let m = e.method.clone().unwrap_or_else(|| "?".into());
    match e.confidence {
        Some(c) => format!("{} {m}", percent(c)),
        None => m,
    }
}

/// Text as literal Markdown: every ASCII punctuation character backslash-escaped (CommonMark
/// reads `\x` as `x` for all of them, `\|` inside a table cell too), line breaks and control
/// characters dropped, so a metric name can start no emphasis, link, cell or heading.
pub(crate) fn md_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_ascii_punctuation() {
            out.push('\\');
            out.push(c);
        } else if c == '\n' || c == '\r' || c == '\t' {
            out.push(' ');
        } else if !c.is_control() {
            out.push(c);
        }
    }
    out
}

/// A heading's level and its words without a leading number (`## 4 Results` → (2, "results")).
fn heading(line: &str) -> Option<(usize, String)> {
    let level = line.chars().take_while(|&c| c == '#').count();
    if level == 0 || level > 6 || !line[level..].starts_with(' ') {
        return None;
    }
    let words = line[level..]
        .trim()
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
        .trim()
        .to_ascii_lowercase();
    Some((level, words))
}

/// Headings outside fenced code: (line index, level, words).
fn headings(lines: &[String]) -> Vec<(usize, usize, String)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
        } else if !fenced && let Some((level, words)) = heading(l) {
            out.push((i, level, words));
        }
    }
    out
}

fn results_heading(lines: &[String]) -> Option<(usize, usize)> {
    headings(lines)
        .into_iter()
        .find(|(_, _, w)| w == "results" || w.ends_with(" results") || w.starts_with("results"))
        .map(|(i, level, _)| (i, level))
}

/// The line range of the Results section (after its heading, to the next heading of its
/// level or above).
fn results_range(lines: &[String]) -> Option<(usize, usize)> {
    let (at, level) = results_heading(lines)?;
    let end = headings(lines)
        .into_iter()
        .find(|(i, l, _)| *i > at && *l <= level)
        .map_or(lines.len(), |(i, _, _)| i);
    Some((at + 1, end))
}

/// Where the interval table goes: the end of Results (before its trailing blank lines); else
/// before the Discussion, Limitations or Conclusion; else the end.
fn results_end(lines: &[String]) -> usize {
    if let Some((start, mut end)) = results_range(lines) {
        while end > start && lines[end - 1].trim().is_empty() {
            end -= 1;
        }
        return end;
    }
    headings(lines)
        .into_iter()
        .find(|(_, _, w)| {
            ["discussion", "limitations", "conclusion", "conclusions"].contains(&w.as_str())
        })
        .map_or(lines.len(), |(i, _, _)| i)
}

/// Where the statistics paragraph goes: first in the Method section (or Methods,
/// Experiments, Experimental Setup), else after the title.
fn method_start(lines: &[String]) -> usize {
    let hs = headings(lines);
    let method = hs.iter().find(|(_, _, w)| {
        w == "method"
            || w == "methods"
            || w.ends_with(" method")
            || w.ends_with(" methods")
            || w == "methodology"
    });
    let setup = || {
        hs.iter()
            .find(|(_, _, w)| w == "experiments" || w.starts_with("experimental setup"))
    };
    let title = || hs.iter().find(|(_, l, _)| *l == 1);
    method
        .or_else(setup)
        .or_else(title)
        .map_or(0, |(i, _, _)| i + 1)
}

/// In Results, a number that states a gated quantity's mean (at the precision written, at
/// least three decimals) on a line that names its sub-hypothesis, metric or quantity gains
/// its interval: `0.9356` → `0.9356 [0.9280, 0.9440] (95% CI, n 5, t)`.
fn annotate_results(lines: &mut [String], gated: &[(&str, &GateEvidence)], stated: &[Stated]) {
    let Some((start, end)) = results_range(lines) else {
        return;
    };
    let mut fenced = false;
    for line in &mut lines[start..end] {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced || heading(line).is_some() {
            continue;
        }
        let named: Vec<&GateEvidence> = gated
            .iter()
            .filter(|(h, e)| {
                names(line, h)
                    || e.metric.as_deref().is_some_and(|m| names(line, m))
                    || names(line, &e.quantity())
            })
            .map(|(_, e)| *e)
            .collect();
        // Another attempt's value, or a baseline's: the line names its hypothesis and metric.
        let others: Vec<&GateEvidence> = stated
            .iter()
            .filter(|s| {
                names(line, &s.hypothesis)
                    && s.evidence.metric.as_deref().is_some_and(|m| names(line, m))
            })
            .map(|s| &s.evidence)
            .collect();
        if !named.is_empty() || !others.is_empty() {
            *line = annotate_line(line, &named, &others);
        }
    }
}

/// Whether `line` holds `word` not as part of a longer name (`h-e1` is not in `h-e10`).
fn names(line: &str, word: &str) -> bool {
    let part = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    !word.is_empty()
        && line.match_indices(word).any(|(i, _)| {
            let before = line[..i].chars().next_back();
            let after = line[i + word.len()..].chars().next();
            !before.is_some_and(part) && !after.is_some_and(part)
        })
}

/// `line` with an interval after each number that is the mean of a gate it names (first) or
/// of one other attempt it names; a number two attempts with different intervals share is
/// left alone rather than given either's.
fn annotate_line(line: &str, named: &[&GateEvidence], others: &[&GateEvidence]) -> String {
    let mut out = String::with_capacity(line.len() + 48);
    let bytes = line.as_bytes();
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        let starts = bytes[i].is_ascii_digit()
            && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'.'));
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < bytes.len() && (bytes[j].is_ascii_digit() || bytes[j] == b'.') {
            j += 1;
        }
        let token = line[i..j].trim_end_matches('.');
        let k = i + token.len();
        let decimals = token.split_once('.').map_or(0, |(_, d)| d.len());
        let glued = line[k..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        let already = line[k..].trim_start().starts_with('[') || line[k..].starts_with(" \\[");
        let negative = i > 0 && bytes[i - 1] == b'-';
        let tol = 0.5 * 10f64.powi(-(decimals as i32)) + 1e-12;
        let fits = |e: &&GateEvidence, x: f64| {
            let x = if negative { -x } else { x };
            e.mean.is_some_and(|m| (m - x).abs() <= tol)
        };
        let rounded = |v: Option<f64>| v.map(|v| format!("{v:.decimals$}"));
        let pick = |x: f64| {
            named.iter().find(|e| fits(e, x)).or_else(|| {
                let fit: Vec<&&GateEvidence> = others.iter().filter(|e| fits(e, x)).collect();
                let first = *fit.first()?;
                fit.iter()
                    .all(|e| {
                        rounded(e.lo) == rounded(first.lo) && rounded(e.hi) == rounded(first.hi)
                    })
                    .then_some(first)
            })
        };
        if let (Ok(x), true, false, false) = (token.parse::<f64>(), decimals >= 3, glued, already)
            && let Some(e) = pick(x)
        {
            out.push_str(&line[copied..k]);
            out.push_str(&annotation(e, decimals));
            copied = k;
        }
        i = j;
    }
    out.push_str(&line[copied..]);
    out
}

/// ` [0.9280, 0.9440] (95% CI, n 5, t)` after a stated mean.
fn annotation(e: &GateEvidence, decimals: usize) -> String {
    let (Some(lo), Some(hi)) = (e.lo, e.hi) else {
        return String::new();
    };
    if e.method.as_deref() == Some("single") {
        return " (one measurement)".into();
    }
    let ci = e
        .confidence
        .map_or("CI".into(), |c| format!("{} CI", percent(c)));
    let n = e.n.map_or(String::new(), |n| format!(", n {n}"));
    let method = e
        .method
        .as_deref()
        .map_or(String::new(), |m| format!(", {}", md_text(m)));
    format!(" \\[{lo:.decimals$}, {hi:.decimals$}\\] ({ci}{n}{method})")
}

#[cfg(test)]
#[path = "intervals_tests.rs"]
mod tests;
