//! Method provenance (beyond SAGE): every dataset, model, metric, statistical test and
//! hyperparameter value the prose names must appear in what the run executed. A paper that
//! says "a Wilcoxon test on CIFAR-10 with a learning rate of 0.001" when the code ran a
//! t-test on MNIST with 0.01 describes a different experiment, even if every number in it
//! was measured.
//!
//! Claims come from the curated vocabularies in [`super::vocab`] and two patterns:
//! `<Name> dataset` (capitalised words before dataset / data set / benchmark / corpus) and
//! hyperparameter phrases with a value (`learning rate of 0.001`, `batch size 32`, `k = 5`,
//! `100 epochs`, `5-fold`). Prose only: code blocks and the references section are skipped.
//! Each distinct claim is reported once, at its first mention.

use serde::Serialize;

use super::corpus::{Corpus, Hit, same};
use super::markdown::{self, LineKind};
use super::numbers;
pub use super::provenance_match::Claim;
use super::provenance_match::{claim, dataset_names, phrase_at};
use super::vocab::{ClaimKind, HYPERS, TERMS};

/// A claim and where the run shows it, if anywhere.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Checked {
    pub claim: Claim,
    pub evidence: Option<Hit>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProvenanceReport {
    pub checked: Vec<Checked>,
    pub files_searched: usize,
    /// The places searched (`h-e1/code/**`).
    pub searched: Vec<String>,
}

impl ProvenanceReport {
    pub(crate) fn unmatched(&self) -> impl Iterator<Item = &Checked> {
        self.checked.iter().filter(|c| c.evidence.is_none())
    }
}

/// Check every claim in `markdown` against `corpus`.
pub fn check(markdown: &str, corpus: &Corpus) -> ProvenanceReport {
    let checked = extract_claims(markdown)
        .into_iter()
        .map(|claim| {
            let evidence = match claim.value {
                Some(v) => corpus.find_value(&claim.spellings, v),
                None => corpus.find(&claim.spellings),
            };
            Checked { claim, evidence }
        })
        .collect();
    ProvenanceReport {
        checked,
        files_searched: corpus.files.len(),
        searched: corpus.searched.clone(),
    }
}

/// Every distinct claim in the prose (and tables) of `markdown`, in order of first mention.
pub(crate) fn extract_claims(markdown: &str) -> Vec<Claim> {
    let mut claims: Vec<Claim> = Vec::new();
    for line in markdown::lines(markdown) {
        if matches!(line.kind, LineKind::Code | LineKind::Reference) {
            continue;
        }
        let text = &markdown[line.start..line.end];
        let col = |at: usize| markdown::column(markdown, line.start, line.start + at);
        let mut found = term_claims(text);
        found.extend(dataset_names(text));
        found.extend(hyper_claims(text));
        for (mut claim, at) in found {
            claim.line = line.number;
            claim.column = col(at);
            merge(&mut claims, claim);
        }
    }
    claims
}

/// Count a repeated claim once (same kind, name and value), at its first mention.
fn merge(claims: &mut Vec<Claim>, claim: Claim) {
    let same_claim = |c: &&mut Claim| {
        c.kind == claim.kind
            && c.name == claim.name
            && match (c.value, claim.value) {
                (Some(a), Some(b)) => same(a, b),
                (None, None) => true,
                _ => false,
            }
    };
    match claims.iter_mut().find(|c| same_claim(c)) {
        // Found twice at one place (a vocabulary term that is also `<Name> dataset`).
        Some(c) if (c.line, c.column) == (claim.line, claim.column) => {}
        Some(c) => c.mentions += 1,
        None => claims.push(claim),
    }
}

/// Vocabulary terms named in a line (longest spelling wins at each position).
fn term_claims(text: &str) -> Vec<(Claim, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let best = TERMS
            .iter()
            .filter(|t| t.standalone)
            .flat_map(|t| t.prose.iter().map(move |p| (t, *p)))
            .filter_map(|(t, p)| phrase_at(text, i, p).map(|end| (t, end)))
            .max_by_key(|(_, end)| *end);
        match best {
            Some((t, end)) => {
                let spellings = t
                    .prose
                    .iter()
                    .chain(t.code)
                    .map(|s| s.to_string())
                    .collect();
                out.push((claim(t.kind, t.name, &text[i..end], spellings), i));
                i = end;
            }
            None => i += text[i..].chars().next().map_or(1, char::len_utf8),
        }
    }
    out
}

/// Hyperparameters stated with a value.
fn hyper_claims(text: &str) -> Vec<(Claim, usize)> {
    let mut out = Vec::new();
    for h in HYPERS {
        let spellings: Vec<String> = h.code.iter().map(|s| s.to_string()).collect();
        for p in h.prose {
            let mut i = 0;
            while i < text.len() {
                if let Some(end) = phrase_at(text, i, p)
                    && let Some(v) = value_after(&text[end..], h.needs_eq)
                {
                    let mut c = claim(
                        ClaimKind::Hyperparameter,
                        h.name,
                        &text[i..end + v.1],
                        spellings.clone(),
                    );
                    c.value = Some(v.0);
                    out.push((c, i));
                }
                i += text[i..].chars().next().map_or(1, char::len_utf8);
            }
        }
        for n in numbers::scan(text) {
            if n.unit.as_deref().is_some_and(|u| h.after.contains(&u)) {
                let mut c = claim(
                    ClaimKind::Hyperparameter,
                    h.name,
                    &text[n.start..n.end],
                    spellings.clone(),
                );
                c.value = Some(n.value);
                out.push((c, n.start));
            }
        }
        if h.after.contains(&"-fold") {
            out.extend(fold_claims(text, &spellings, h.name));
        }
    }
    out.sort_by_key(|(_, at)| *at);
    out
}

/// `5-fold`: the scanner skips compound modifiers, so they are found here.
fn fold_claims(text: &str, spellings: &[String], name: &str) -> Vec<(Claim, usize)> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("-fold") {
        let digits = text[..at]
            .bytes()
            .rev()
            .take_while(u8::is_ascii_digit)
            .count();
        let start = at - digits;
        let glued = text[..start]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric);
        if digits == 0 || glued {
            continue;
        }
        let Ok(v) = text[start..at].parse::<f64>() else {
            continue;
        };
        let mut c = claim(
            ClaimKind::Hyperparameter,
            name,
            &text[start..at + 5],
            spellings.to_vec(),
        );
        c.value = Some(v);
        out.push((c, start));
    }
    out
}

/// The value right after a hyperparameter's name, through connecting words only
/// (`of`, `=`, `:`, `was set to`); with `needs_eq`, an `=` must be among them.
/// Returns the value and the byte length read.
pub(crate) fn value_after(rest: &str, needs_eq: bool) -> Option<(f64, usize)> {
    const CONNECTORS: &[&str] = &[
        "of", "is", "was", "set", "to", "equal", "at", "we", "use", "used", "fixed", "a",
    ];
    let window_end = rest.char_indices().nth(40).map_or(rest.len(), |(i, _)| i);
    let window = &rest[..window_end];
    let n = numbers::scan(window).into_iter().next()?;
    let gap = &window[..n.start];
    if !gap.is_empty() && !gap.starts_with([' ', '=', ':', '(', '\u{a0}']) {
        return None; // `lr` inside `lrs`, `k` inside a word
    }
    let words_ok = gap
        .split(|c: char| c.is_whitespace() || "=:(,≈~".contains(c))
        .filter(|w| !w.is_empty())
        .all(|w| CONNECTORS.contains(&w.to_lowercase().as_str()));
    (words_ok && (!needs_eq || gap.contains('='))).then_some((n.value, n.end))
}

#[cfg(test)]
#[path = "provenance_tests.rs"]
mod tests;
