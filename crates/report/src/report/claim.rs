//! What claim a registry value states (what a text names is [`super::mentions`]).
//!
//! A registry key says it all: `h-c1.attempt2.results.metrics.group_accuracy.female` is
//! sub-hypothesis `h-c1`, metric `group_accuracy` (an accuracy), under the conditions
//! `attempt2` and `female`. [`ClaimKey::of`] reads that, for built keys and for YouRA's own
//! (`gate_results.h_e1_v2.criteria_met.0.actual`, `regression.baseline_model.r_squared`):
//!
//! - the hypothesis is the first segment shaped like an id (`h-e1`, `h_e1_v2` → `h-e1-v2`);
//!   a key without one starts with a section (`registry`, `features`) that names nothing;
//! - structural segments (`results`, `metrics`, `final`, list indices…) name nothing;
//! - the metric is the segment that ends with a vocabulary metric (`vocab::TERMS`), else
//!   the last naming segment; the other naming segments are conditions.

use serde::Serialize;

use super::provenance_match::phrase_at;
use super::vocab::{ClaimKind, TERMS};

/// Key segments that structure the registry rather than name a claim.
const STRUCTURAL: &[&str] = &[
    "results",
    "metrics",
    "metric",
    "gate",
    "gate_results",
    "config",
    "final",
    "best",
    "previous",
    "value",
    "values",
    "actual",
    "result",
    "measured",
    "criteria",
    "criteria_met",
    "failed_checks",
    "registry",
    "summary",
    "stats",
    "statistics",
    "data",
    "required",
    "threshold",
];

/// Unit words a key appends to a name (`sparsity_pct`): the prose name is without them.
const UNIT_WORDS: &[&str] = &[
    "pct",
    "percent",
    "percentage",
    "ms",
    "sec",
    "seconds",
    "gb",
    "mb",
    "g",
    "kg",
    "mm",
    "cm",
];

/// Qualifiers after a metric's name (`accuracy_std`, `f1_macro`): still that metric.
const QUALIFIERS: &[&str] = &[
    "mean", "avg", "average", "std", "sd", "sem", "var", "median", "min", "max", "macro", "micro",
    "weighted", "score", "ci", "lower", "upper", "lo", "hi",
];

/// The claim one registry value states.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClaimKey {
    /// Normalised sub-hypothesis id (`h-e1-v2`), if the key has one.
    pub hypothesis: Option<String>,
    /// The metric's name as prose writes it (`group accuracy`, `p value`, `gain`).
    pub metric: Option<String>,
    /// The vocabulary metric the key names (`accuracy` for `group_accuracy`), if any.
    pub family: Option<&'static str>,
    /// The other naming segments, as phrases (`female`, `baseline model`, `attempt2`).
    pub conditions: Vec<String>,
}

impl ClaimKey {
    /// Read a registry key (see the module rules).
    pub fn of(key: &str) -> ClaimKey {
        let mut hypothesis = None;
        let mut names: Vec<String> = Vec::new();
        let segments: Vec<&str> = key.split('.').collect();
        // Without a hypothesis id, the first segment groups values (YouRA's `registry:`,
        // `features:`, `regression:`) and names no condition.
        let skip =
            usize::from(segments.len() > 1 && !segments.iter().any(|s| hypothesis_id(s).is_some()));
        for seg in segments.into_iter().skip(skip) {
            if hypothesis.is_none()
                && let Some(h) = hypothesis_id(seg)
            {
                hypothesis = Some(h);
                continue;
            }
            if !is_structural(seg) {
                names.push(phrase_of(seg));
            }
        }
        names.retain(|n| !n.is_empty());
        let with_family = names
            .iter()
            .enumerate()
            .rev()
            .find_map(|(i, n)| metric_family(n).map(|f| (i, f)));
        let (at, family) = match with_family {
            Some((i, f)) => (Some(i), Some(f)),
            None => (names.len().checked_sub(1), None),
        };
        let metric = at.map(|i| names.remove(i));
        ClaimKey {
            hypothesis,
            metric,
            family,
            conditions: names,
        }
    }

    /// Which summary of its metric the value is (`gain min` → [`Summary::Min`]).
    pub fn summary(&self) -> Summary {
        self.metric
            .as_deref()
            .map_or(Summary::Value, Summary::of_metric)
    }

    /// `h-e1 · group accuracy · female`, for findings.
    pub fn label(&self) -> String {
        let parts: Vec<&str> = self
            .hypothesis
            .iter()
            .chain(self.metric.iter())
            .chain(self.conditions.iter())
            .map(String::as_str)
            .collect();
        parts.join(" · ")
    }
}

/// Which summary of a metric's measurements a value is. A paper that names a metric states
/// the metric itself (or its mean); its lowest, highest, spread or median are other values
/// of the claim, named only by their own words (`min`, `lowest`, `±`, `median`) or as the
/// ends of a range (`between 0.0321 and 0.0352`). Without this, “h-m1's gain” would pass with
/// the gain's minimum written in its place (issue 28).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Summary {
    /// The metric itself, or its mean (`gain`, `accuracy_mean`).
    Value,
    /// The lowest value or a lower bound (`gain_min`, `min_group_accuracy`, `ci_lower`).
    Min,
    /// The highest value or an upper bound (`gain_max`, `ci_upper`).
    Max,
    /// A spread (`accuracy_std`, `sem`, `ci` without an end).
    Spread,
    Median,
}

impl Summary {
    /// Read from a metric name's qualifier words at either end (`gain min`,
    /// `min group accuracy`); an end qualifier (`lower`, `max`) wins over a spread
    /// (`ci lower` is the interval's lower end).
    pub(crate) fn of_metric(name: &str) -> Summary {
        let words: Vec<&str> = name.split_whitespace().collect();
        if words.len() < 2 {
            return Summary::Value;
        }
        let lead = words.iter().take_while(|w| QUALIFIERS.contains(w));
        let trail = words.iter().rev().take_while(|w| QUALIFIERS.contains(w));
        let quals: Vec<&str> = lead.chain(trail).copied().collect();
        let has = |set: &[&str]| quals.iter().any(|q| set.contains(q));
        if has(&["min", "lower", "lo"]) {
            Summary::Min
        } else if has(&["max", "upper", "hi"]) {
            Summary::Max
        } else if has(&["std", "sd", "sem", "var", "ci"]) {
            Summary::Spread
        } else if has(&["median"]) {
            Summary::Median
        } else {
            Summary::Value
        }
    }

    /// As a finding's claim label names it; `None` for the metric itself.
    pub fn label(self) -> Option<&'static str> {
        match self {
            Summary::Value => None,
            Summary::Min => Some("min"),
            Summary::Max => Some("max"),
            Summary::Spread => Some("spread"),
            Summary::Median => Some("median"),
        }
    }
}

fn is_structural(seg: &str) -> bool {
    let s = seg.to_ascii_lowercase();
    STRUCTURAL.contains(&s.as_str()) || s.bytes().all(|b| b.is_ascii_digit())
}

/// A key segment as prose would name it: lower case, `_`/`-` as spaces, unit words dropped.
pub(crate) fn phrase_of(seg: &str) -> String {
    let lower = seg.to_lowercase().replace(['_', '-'], " ");
    let mut words: Vec<&str> = lower.split_whitespace().collect();
    while words.len() > 1 && words.last().is_some_and(|w| UNIT_WORDS.contains(w)) {
        words.pop();
    }
    if words.len() == 1 && UNIT_WORDS.contains(&words[0]) {
        return String::new();
    }
    words.join(" ")
}

/// `h-e1`, `H_E1_v2`, `h-m12` → the normalised id (`h-e1`, `h-e1-v2`, `h-m12`).
pub fn hypothesis_id(token: &str) -> Option<String> {
    let t = token.to_ascii_lowercase().replace('_', "-");
    let rest = t.strip_prefix("h-")?;
    let mut parts = rest.split('-');
    let id = parts.next()?;
    let letters = id.bytes().take_while(u8::is_ascii_alphabetic).count();
    let digits_ok = id.len() > letters && id[letters..].bytes().all(|b| b.is_ascii_digit());
    if letters == 0 || letters > 2 || !digits_ok {
        return None;
    }
    for p in parts {
        let version = p.strip_prefix('v')?;
        if version.is_empty() || !version.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
    }
    Some(t)
}

/// Whether a mention of hypothesis `mentioned` names `hypothesis`: the same id, or a later
/// version of it (`h-e1` names `h-e1-v2`; `h-e1-v2` does not name `h-e1`).
pub(crate) fn names_hypothesis(mentioned: &str, hypothesis: &str) -> bool {
    hypothesis == mentioned
        || hypothesis
            .strip_prefix(mentioned)
            .is_some_and(|rest| rest.starts_with("-v"))
}

/// The vocabulary metric a name ends with, qualifiers aside (`group accuracy`,
/// `accuracy std` → `accuracy`). Only the end counts: in `perplexity filter documented`
/// or `accuracy with body mass` the metric word describes something else.
pub(crate) fn metric_family(name: &str) -> Option<&'static str> {
    let head = without_qualifiers(name);
    TERMS
        .iter()
        .filter(|t| t.kind == ClaimKind::Metric)
        .find(|t| {
            let spellings = std::iter::once(&t.name)
                .chain(t.prose.iter())
                .chain(t.code.iter());
            spellings
                .into_iter()
                .any(|s| ends_with_phrase(&head, &s.to_lowercase()))
        })
        .map(|t| t.name)
}

/// A metric name without its trailing qualifiers: `gain min` → `gain`, so that “the gain”
/// names the spread of the gain too.
pub(crate) fn without_qualifiers(name: &str) -> String {
    let mut words: Vec<&str> = name.split_whitespace().collect();
    while words.len() > 1 && words.last().is_some_and(|w| QUALIFIERS.contains(w)) {
        words.pop();
    }
    words.join(" ")
}

/// `phrase` is the last word(s) of `name`, at a word edge, separators optional.
fn ends_with_phrase(name: &str, phrase: &str) -> bool {
    name.char_indices()
        .any(|(i, _)| phrase_at(name, i, phrase) == Some(name.len()))
}

#[cfg(test)]
#[path = "claim_tests.rs"]
mod tests;
