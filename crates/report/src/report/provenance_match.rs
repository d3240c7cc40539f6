//! Finding vocabulary phrases and `<Name> dataset` mentions in a line of prose, and the
//! claim each one makes.

use serde::Serialize;

use super::corpus::squash;
use super::vocab::{ClaimKind, TERMS};

/// Something the paper says was used.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Claim {
    pub kind: ClaimKind,
    /// Canonical name (`t-test`, `learning rate`).
    pub name: String,
    /// As the paper wrote it.
    pub text: String,
    pub line: usize,
    pub column: usize,
    /// The value a hyperparameter claim states.
    pub value: Option<f64>,
    pub mentions: usize,
    /// The spellings searched for in the run.
    pub spellings: Vec<String>,
}

pub(super) fn claim(kind: ClaimKind, name: &str, text: &str, spellings: Vec<String>) -> Claim {
    Claim {
        kind,
        name: name.to_string(),
        text: text.to_string(),
        line: 0,
        column: 0,
        value: None,
        mentions: 1,
        spellings,
    }
}

const SEPARATORS: &[char] = &[' ', '-', '_', '–', '—', '\u{a0}'];

/// Words that come before "dataset" without naming one.
const NOT_NAMES: &[&str] = &[
    "the",
    "this",
    "that",
    "these",
    "those",
    "our",
    "a",
    "an",
    "each",
    "same",
    "full",
    "test",
    "training",
    "train",
    "validation",
    "synthetic",
    "toy",
    "real",
    "final",
    "original",
    "clean",
    "new",
    "whole",
    "entire",
    "public",
    "private",
    "held-out",
    "custom",
    "small",
    "large",
    "standard",
    "both",
    "all",
    "every",
    "its",
    "their",
    "in",
    "on",
    "we",
    "using",
    "with",
    "for",
    "from",
    "by",
    "of",
    "evaluation",
    "benchmark",
    "reference",
    "target",
    "source",
    "curated",
    "resulting",
    "combined",
    "merged",
    "filtered",
    "raw",
    "tabular",
    // Counts and quantifiers: "One data set, one simple classifier" names no data set.
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "single",
    "another",
    "any",
    "no",
    "some",
    "several",
    "many",
    "which",
    "what",
    "such",
    "simple",
    "given",
    "other",
];

/// Where `phrase` ends when it is written at byte `i` of `text`, between word edges.
/// Separators in the phrase are optional in the text; all-capital phrases match case.
pub(crate) fn phrase_at(text: &str, i: usize, phrase: &str) -> Option<usize> {
    if text[..i]
        .chars()
        .next_back()
        .is_some_and(char::is_alphanumeric)
    {
        return None;
    }
    let exact_case = !phrase.chars().any(char::is_lowercase);
    let mut j = i;
    for p in phrase.chars() {
        let next = text[j..].chars().next();
        if SEPARATORS.contains(&p) {
            if let Some(c) = next.filter(|c| SEPARATORS.contains(c)) {
                j += c.len_utf8();
            }
            continue;
        }
        let c = next?;
        let equal = c == p
            || (!exact_case && c.to_lowercase().eq(p.to_lowercase()))
            || (matches!(p, '\'' | '’') && matches!(c, '\'' | '’'));
        if !equal {
            return None;
        }
        j += c.len_utf8();
    }
    let after = text[j..].chars().next();
    (j > i && !after.is_some_and(char::is_alphanumeric)).then_some(j)
}

/// `<Name> dataset` (also data set, benchmark, corpus): up to three capitalised words
/// before the noun. A name the vocabulary knows takes its canonical name and spellings.
pub(crate) fn dataset_names(text: &str) -> Vec<(Claim, usize)> {
    let lower = text.to_lowercase();
    if lower.len() != text.len() {
        return non_ascii_safe(text);
    }
    let mut out = Vec::new();
    for noun in ["dataset", "data set", "benchmark", "corpus"] {
        for (at, _) in lower.match_indices(noun) {
            if let Some(found) = name_before(text, at) {
                out.push(found);
            }
        }
    }
    out
}

/// Lowercasing changed byte lengths (rare letters): search the original case-sensitively
/// for the usual spellings instead, so offsets stay valid.
fn non_ascii_safe(text: &str) -> Vec<(Claim, usize)> {
    let mut out = Vec::new();
    for noun in [
        "dataset",
        "Dataset",
        "data set",
        "benchmark",
        "Benchmark",
        "corpus",
    ] {
        for (at, _) in text.match_indices(noun) {
            if let Some(found) = name_before(text, at) {
                out.push(found);
            }
        }
    }
    out
}

fn name_before(text: &str, noun_at: usize) -> Option<(Claim, usize)> {
    let before = text[..noun_at].strip_suffix(' ')?;
    let mut start = before.len();
    let mut words = 0;
    for word in before.rsplit(' ') {
        let w = word.trim_matches(|c: char| matches!(c, '*' | '_' | '"' | '“' | '”' | '('));
        let capitalised = w
            .chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
            && w.chars().any(char::is_uppercase);
        if words == 3 || !capitalised || NOT_NAMES.contains(&w.to_lowercase().as_str()) {
            break;
        }
        start -= word.len() + usize::from(words > 0);
        words += 1;
    }
    if words == 0 {
        return None;
    }
    let name =
        before[start..].trim_matches(|c: char| matches!(c, '*' | '_' | '"' | '“' | '”' | '('));
    let offset = start + before[start..].find(name).unwrap_or(0);
    let in_vocabulary = vocabulary_term(name).is_some();
    // A lone title-case word opening a sentence ("Both data sets", "Every dataset") is
    // capitalised by grammar, not because it is a name: a name only when the vocabulary
    // knows it (Iris, MNIST) or it is written in capitals.
    let sentence_start = before[..start]
        .trim_end_matches([' ', '*', '_', '"', '“', '('])
        .chars()
        .next_back()
        .is_none_or(|c| matches!(c, '.' | '!' | '?' | ':' | '\n'));
    let title_case = name.chars().skip(1).all(|c| !c.is_uppercase());
    if words == 1 && sentence_start && title_case && !in_vocabulary {
        return None;
    }
    Some((known(name), offset))
}

/// The vocabulary's data set of that name, if any.
fn vocabulary_term(name: &str) -> Option<&'static super::vocab::Term> {
    let key = squash(name);
    TERMS.iter().find(|t| {
        t.kind == ClaimKind::Dataset
            && (squash(t.name) == key || t.prose.iter().any(|p| squash(p) == key))
    })
}

/// The claim for a dataset name: the vocabulary's term when one matches.
fn known(name: &str) -> Claim {
    match vocabulary_term(name) {
        Some(t) => {
            let spellings = std::iter::once(t.name)
                .chain(t.prose.iter().copied())
                .chain(t.code.iter().copied())
                .map(str::to_string)
                .collect();
            claim(ClaimKind::Dataset, t.name, name, spellings)
        }
        None => claim(ClaimKind::Dataset, name, name, vec![name.to_string()]),
    }
}
