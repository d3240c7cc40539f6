//! What a text names among the claims the registry knows ([`super::claim`] reads the
//! keys): hypothesis ids (`h-e1`, `H-E1`; `h-e1` also names its versions `h-e1-v2`),
//! vocabulary metrics as prose writes them (`accuracy`, `R²`), and the registry's own
//! metric and condition names as phrases at word edges, separators optional, a plural `s`
//! allowed (`gains` names `gain` and its qualified `gain_min`, `baseline` names
//! `baseline_model`, `features with variance` names the count `n_features_with_variance`),
//! and which summary of a metric it names (`lowest`, `maximum`, `standard deviation`:
//! [`Summary`]; `binding` keeps `gain_min` out of “the gain” unless one is named).

use super::claim::{ClaimKey, Summary, hypothesis_id, names_hypothesis, without_qualifiers};
use super::provenance_match::phrase_at;
use super::registry::Registry;
use super::runs::{RunIndex, RunWords};
use super::vocab::{ClaimKind, TERMS};

/// Generic last words of a condition name: `baseline_model` is also named by "baseline".
const GENERIC: &[&str] = &[
    "model",
    "models",
    "condition",
    "arm",
    "group",
    "setting",
    "variant",
];

/// Words that name a summary of a metric rather than the metric itself. “Mean” and
/// “average” name the metric: a paper's “accuracy” is its mean over folds or seeds.
const SUMMARY_WORDS: &[(Summary, &[&str])] = &[
    (Summary::Value, &["mean", "average", "avg"]),
    (
        Summary::Min,
        &[
            "min",
            "minimum",
            "minimal",
            "lowest",
            "smallest",
            "lower bound",
            "lower end",
        ],
    ),
    (
        Summary::Max,
        &[
            "max",
            "maximum",
            "maximal",
            "highest",
            "largest",
            "greatest",
            "upper bound",
            "upper end",
            "peak",
        ],
    ),
    (
        Summary::Spread,
        &[
            "std",
            "standard deviation",
            "standard error",
            "sem",
            "variance",
            "spread",
            "confidence interval",
        ],
    ),
    (Summary::Median, &["median"]),
];

/// The summaries `lower` (a text in lower case) names, in [`SUMMARY_WORDS`]' order.
pub(crate) fn summaries_named(lower: &str) -> Vec<Summary> {
    SUMMARY_WORDS
        .iter()
        .filter(|(_, words)| words.iter().any(|w| occurs(lower, lower, w)))
        .map(|(s, _)| *s)
        .collect()
}

/// `phrase` occurs in `text` between word edges (`phrase_at`'s case and separator rules).
/// `lower` is `text` in lower case: a text without the phrase's first word is rejected by
/// a plain substring search before any position is tried.
fn occurs(text: &str, lower: &str, phrase: &str) -> bool {
    let first_word = phrase
        .split([' ', '-', '_', '–', '—'])
        .next()
        .unwrap_or(phrase)
        .to_lowercase();
    if first_word.is_empty() || !lower.contains(&first_word) {
        return false;
    }
    let lead = first_word.chars().next();
    text.char_indices()
        .filter(|(_, c)| c.to_lowercase().next() == lead)
        .any(|(i, _)| phrase_at(text, i, phrase).is_some())
}

/// `phrase` occurs in the lower-case text `lower` between word edges, optionally followed
/// by a plural `s`.
fn names(lower: &str, phrase: &str) -> bool {
    occurs(lower, lower, phrase)
        || (!phrase.is_empty() && occurs(lower, lower, &format!("{phrase}s")))
}

/// The claims a text names, among those the registry knows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mentions {
    pub hypotheses: Vec<String>,
    /// Vocabulary metrics (`accuracy`, `R²`), by canonical name.
    pub families: Vec<&'static str>,
    /// The registry's own metric names (`gain`, `group accuracy`).
    pub metrics: Vec<String>,
    pub conditions: Vec<String>,
    /// What it says about runs of a sub-hypothesis (`super::runs`).
    pub runs: RunWords,
    /// The summaries of a metric it names (empty: the metric itself). Alone they name no
    /// claim: “the lowest” is nobody's until a metric is named.
    pub summaries: Vec<Summary>,
}

impl Mentions {
    pub fn is_empty(&self) -> bool {
        self.hypotheses.is_empty()
            && self.families.is_empty()
            && self.metrics.is_empty()
            && self.conditions.is_empty()
    }

    /// Everything either names, without repeats.
    pub(crate) fn union(&self, other: &Mentions) -> Mentions {
        fn join<T: Clone + PartialEq>(a: &[T], b: &[T]) -> Vec<T> {
            let mut out = a.to_vec();
            out.extend(b.iter().filter(|x| !a.contains(x)).cloned());
            out
        }
        Mentions {
            hypotheses: join(&self.hypotheses, &other.hypotheses),
            families: join(&self.families, &other.families),
            metrics: join(&self.metrics, &other.metrics),
            conditions: join(&self.conditions, &other.conditions),
            runs: self.runs.union(&other.runs),
            summaries: join(&self.summaries, &other.summaries),
        }
    }
}

/// The claim of every registry entry, and the names a text may use for them.
#[derive(Debug, Clone)]
pub struct ClaimIndex {
    /// Parallel to `Registry::entries`.
    pub keys: Vec<ClaimKey>,
    hypotheses: Vec<String>,
    families: Vec<&'static str>,
    metrics: Vec<String>,
    conditions: Vec<String>,
    /// The registry's runs, and per entry the run it was measured in.
    pub runs: RunIndex,
    pub entry_runs: Vec<Option<usize>>,
}

impl ClaimIndex {
    /// The vocabulary comes from measured values only: declared ones are never bound.
    pub fn new(registry: &Registry) -> ClaimIndex {
        let keys: Vec<ClaimKey> = registry
            .entries
            .iter()
            .map(|e| ClaimKey::of(&e.key))
            .collect();
        let mut index = ClaimIndex {
            keys: Vec::new(),
            hypotheses: Vec::new(),
            families: Vec::new(),
            metrics: Vec::new(),
            conditions: Vec::new(),
            entry_runs: registry
                .entries
                .iter()
                .map(|e| registry.runs.run_of(&e.key))
                .collect(),
            runs: registry.runs.clone(),
        };
        fn add<T: PartialEq>(v: &mut Vec<T>, x: T) {
            if !v.contains(&x) {
                v.push(x);
            }
        }
        for (k, e) in keys.iter().zip(&registry.entries) {
            if e.declared {
                continue;
            }
            if let Some(h) = &k.hypothesis {
                add(&mut index.hypotheses, h.clone());
            }
            if let Some(f) = k.family {
                add(&mut index.families, f);
            }
            if let Some(m) = &k.metric {
                add(&mut index.metrics, m.clone());
            }
            for c in &k.conditions {
                add(&mut index.conditions, c.clone());
            }
        }
        index.keys = keys;
        index
    }

    /// What `text` names (see the module rules).
    pub fn mentions(&self, text: &str) -> Mentions {
        let lower = text.to_lowercase();
        let ids = hypothesis_mentions(text);
        let families = TERMS
            .iter()
            .filter(|t| t.kind == ClaimKind::Metric && self.families.contains(&t.name))
            .filter(|t| {
                std::iter::once(&t.name)
                    .chain(t.prose.iter())
                    .any(|s| occurs(text, &lower, s))
            })
            .map(|t| t.name)
            .collect();
        Mentions {
            hypotheses: self
                .hypotheses
                .iter()
                .filter(|h| ids.iter().any(|m| names_hypothesis(m, h)))
                .cloned()
                .collect(),
            families,
            metrics: self
                .metrics
                .iter()
                .filter(|m| {
                    names(&lower, m)
                        || names(&lower, &without_qualifiers(m))
                        || count_of(m).is_some_and(|what| names(&lower, what))
                })
                .cloned()
                .collect(),
            conditions: self
                .conditions
                .iter()
                .filter(|c| names(&lower, c) || names(&lower, &without_generic(c)))
                .cloned()
                .collect(),
            runs: self.runs.words(text),
            summaries: summaries_named(&lower),
        }
    }
}

/// What a count metric counts: `n features with variance` → `features with variance`, so
/// “3 features with variance” names it.
fn count_of(metric: &str) -> Option<&str> {
    ["n ", "num ", "number of ", "count of "]
        .iter()
        .find_map(|p| metric.strip_prefix(p))
        .filter(|rest| rest.len() >= 3)
}

/// `baseline model` → `baseline`; a one-word name stays (and then matches as itself).
fn without_generic(name: &str) -> String {
    match name.rsplit_once(' ') {
        Some((head, last)) if GENERIC.contains(&last) => head.to_string(),
        _ => name.to_string(),
    }
}

/// Hypothesis ids written in `text`, normalised (`H-E1's` → `h-e1`).
pub(crate) fn hypothesis_mentions(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let edge = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if edge && matches!(b[i], b'h' | b'H') && matches!(b.get(i + 1), Some(b'-' | b'_')) {
            let end = (i..b.len())
                .find(|&j| !(b[j].is_ascii_alphanumeric() || b[j] == b'-' || b[j] == b'_'))
                .unwrap_or(b.len());
            let token = text[i..end].trim_end_matches(['-', '_']);
            if let Some(id) = hypothesis_id(token) {
                out.push(id);
            }
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
#[path = "mentions_tests.rs"]
mod tests;
