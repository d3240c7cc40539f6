//! Which run of a sub-hypothesis measured a value, described by the run's own records, and
//! which runs a text names (issue 28: a swap *within* one sub-hypothesis, h-e1's unscaled
//! attempt ↔ its standardized one, or h-m1's one seed ↔ ten seeds).
//!
//! A run is one measured results file (`results/`, `results/attempts/<n>/`, `*.prev`), its
//! registry key prefix its label (`h-e1`, `h-e1.attempt1`). What describes it comes from what
//! ran, never from a word list and never from the plan's intent (a node's title says what
//! was meant; the results file says what happened):
//!
//! - its **attempt**: the collection record `.youra/attempts/<h>/<n>.json` holding the
//!   file's sha256 (else its folder's number); a text names it as "attempt 2", "run 2",
//!   "first run", "second attempt";
//! - its **flags**: yes/no fields of the results file (`"standardized": true`), named by the
//!   field's word in any form sharing its stem ("standardized", "standardize"); "not",
//!   "without", "un-"/"non-" before it name the runs where it is false;
//! - its **items**: text fields and lists of them (`"features": ["bill_depth_mm"]`), named
//!   as phrases ("bill depth"); "alone"/"only" beside one names the runs with nothing else;
//! - its **counts**: whole-number fields (`"repeats": 10`) that differ between the
//!   sub-hypothesis's runs, named by "<n> <word>" where the word is the field's own or one
//!   that a line of the sub-hypothesis's code names together with the field (`--repeats …
//!   help="… with seeds …"` makes "ten seeds" a count of `repeats`).
//!
//! [`fit`] says whether a run is named (how many descriptions agree) or contradicted (one
//! disagrees); `binding` keeps the best-named runs that nothing contradicts.

use serde::Serialize;

use super::claim::phrase_of;

/// One measured file's run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Run {
    /// The registry key prefix of its values: `h-e1`, `h-e1.attempt1`, `h-e1.previous`.
    pub label: String,
    pub hypothesis: String,
    pub attempt: Option<u32>,
    /// Yes/no fields as phrases: (`standardized`, true).
    pub flags: Vec<(String, bool)>,
    /// Text fields and lists: (`features`, [`bill length`, `bill depth`]).
    pub items: Vec<(String, Vec<String>)>,
    /// Whole-number fields: (`repeats`, 10).
    pub counts: Vec<(String, u64)>,
}

/// Every run of the registry, and the words that count a field (per sub-hypothesis).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunIndex {
    pub runs: Vec<Run>,
    /// (sub-hypothesis, singular word, field): "seed" counts `repeats` in h-m1.
    pub count_words: Vec<(String, String, String)>,
}

/// What a text says about runs (see the module rules).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunWords {
    pub ordinals: Vec<u32>,
    /// (flag phrase, affirmed).
    pub flags: Vec<(String, bool)>,
    /// (item phrase, alone).
    pub items: Vec<(String, bool)>,
    /// (singular word, count).
    pub counts: Vec<(String, u64)>,
}

impl RunWords {
    pub fn is_empty(&self) -> bool {
        self.ordinals.is_empty()
            && self.flags.is_empty()
            && self.items.is_empty()
            && self.counts.is_empty()
    }

    pub(crate) fn union(&self, other: &RunWords) -> RunWords {
        fn join<T: Clone + PartialEq>(a: &[T], b: &[T]) -> Vec<T> {
            let mut out = a.to_vec();
            out.extend(b.iter().filter(|x| !a.contains(x)).cloned());
            out
        }
        RunWords {
            ordinals: join(&self.ordinals, &other.ordinals),
            flags: join(&self.flags, &other.flags),
            items: join(&self.items, &other.items),
            counts: join(&self.counts, &other.counts),
        }
    }
}

/// How a run stands against what a text says of runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Fit {
    pub named: usize,
    pub contradicted: bool,
}

const ORDINALS: &[&str] = &[
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
];
const NUMBER_WORDS: &[&str] = &[
    "zero",
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
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
];
/// Nouns that name one execution of a sub-hypothesis's experiment.
const RUN_NOUNS: &[&str] = &["run", "attempt", "try", "trial"];
const NEGATIONS: &[&str] = &["not", "without", "no", "non"];

/// Lower-case words of `text`; a decimal number (`0.0352`) stays one token.
pub fn tokens(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let decimal_point = c == '.'
            && i > 0
            && chars[i - 1].is_ascii_digit()
            && chars.get(i + 1).is_some_and(char::is_ascii_digit);
        if c.is_alphanumeric() || decimal_point {
            cur.extend(c.to_lowercase());
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `seeds` → `seed`; short words and `-ss` stay.
pub(crate) fn singular(word: &str) -> String {
    match word.strip_suffix('s') {
        Some(s) if word.len() > 3 && !s.ends_with('s') => s.to_string(),
        _ => word.to_string(),
    }
}

/// A word's stem for flags: `standardized`, `standardize`, `standardizes` → `standardiz`.
pub fn stem(word: &str) -> &str {
    for suffix in ["ing", "ed", "es", "e", "s"] {
        if let Some(s) = word.strip_suffix(suffix)
            && s.len() >= 4
        {
            return s;
        }
    }
    word
}

/// The count a token states: digits, or a number word up to twenty.
fn count_of(token: &str) -> Option<u64> {
    if !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit()) {
        return token.parse().ok();
    }
    NUMBER_WORDS
        .iter()
        .position(|w| *w == token)
        .map(|n| n as u64)
}

/// Where the words of `phrase` occur in order in `words`, stems compared.
fn phrase_positions(words: &[String], phrase: &str) -> Vec<usize> {
    let want: Vec<String> = tokens(phrase);
    if want.is_empty() || want.len() > words.len() {
        return Vec::new();
    }
    (0..=words.len() - want.len())
        .filter(|&i| {
            want.iter()
                .zip(&words[i..])
                .all(|(a, b)| stem(a) == stem(b))
        })
        .collect()
}

impl RunIndex {
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// The run whose values `key` is one of: the longest label it starts with, followed by a
    /// measured file's part (`results.`, `metrics.`); a gate's or config's value has none.
    pub fn run_of(&self, key: &str) -> Option<usize> {
        self.runs
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                key.strip_prefix(r.label.as_str())
                    .and_then(|rest| rest.strip_prefix('.'))
                    .is_some_and(|rest| {
                        rest.starts_with("results.") || rest.starts_with("metrics.")
                    })
            })
            .max_by_key(|(_, r)| r.label.len())
            .map(|(i, _)| i)
    }

    /// What `text` says about runs, among the flags and items the runs have.
    pub fn words(&self, text: &str) -> RunWords {
        let mut out = RunWords::default();
        if self.runs.is_empty() {
            return out;
        }
        let words = tokens(text);
        for (i, w) in words.iter().enumerate() {
            let next = words.get(i + 1).map(String::as_str);
            if let Some(o) = ORDINALS.iter().position(|x| x == w)
                && next.is_some_and(|n| RUN_NOUNS.contains(&singular(n).as_str()))
            {
                out.ordinals.push(o as u32 + 1);
            }
            // "attempt 2" names the second attempt; "attempt, five folds" does not name the
            // fifth: a number word after a run noun is a count of what follows it.
            if RUN_NOUNS.contains(&w.as_str())
                && let Some(n) = next
                    .filter(|n| n.chars().all(|c| c.is_ascii_digit()))
                    .and_then(count_of)
                    .filter(|n| *n > 0)
            {
                out.ordinals.push(n as u32);
            }
            if let (Some(n), Some(noun)) = (count_of(w), next)
                && noun.chars().all(char::is_alphabetic)
            {
                out.counts.push((singular(noun), n));
            }
        }
        let mut flags: Vec<&str> = self
            .runs
            .iter()
            .flat_map(|r| r.flags.iter().map(|(p, _)| p.as_str()))
            .collect();
        flags.sort_unstable();
        flags.dedup();
        for flag in flags {
            let negated_word = |w: &String| {
                ["un", "non"].iter().any(|p| {
                    w.strip_prefix(p)
                        .is_some_and(|rest| stem(rest) == stem(flag))
                })
            };
            if words.iter().any(negated_word) {
                out.flags.push((flag.to_string(), false));
            }
            for at in phrase_positions(&words, flag) {
                let negated = at > 0 && NEGATIONS.contains(&words[at - 1].as_str());
                out.flags.push((flag.to_string(), !negated));
            }
        }
        let mut items: Vec<&str> = self
            .runs
            .iter()
            .flat_map(|r| {
                r.items
                    .iter()
                    .flat_map(|(_, v)| v.iter().map(String::as_str))
            })
            .collect();
        items.sort_unstable();
        items.dedup();
        for item in items {
            let len = tokens(item).len();
            for at in phrase_positions(&words, item) {
                let alone = words
                    .get(at + len)
                    .is_some_and(|w| w == "alone" || w == "only")
                    || (at > 0 && words[at - 1] == "only");
                out.items.push((item.to_string(), alone));
            }
        }
        out.flags.dedup();
        out.items.dedup();
        out
    }

    /// How run `r` stands against `words` (see the module rules).
    pub fn fit(&self, r: &Run, words: &RunWords) -> Fit {
        let mut fit = Fit::default();
        let mut agree = |yes: bool| {
            if yes {
                fit.named += 1;
            } else {
                fit.contradicted = true;
            }
        };
        for o in &words.ordinals {
            if let Some(a) = r.attempt {
                agree(a == *o);
            }
        }
        for (flag, affirmed) in &words.flags {
            if let Some((_, v)) = r.flags.iter().find(|(p, _)| p == flag) {
                agree(v == affirmed);
            }
        }
        for (item, alone) in &words.items {
            // The field the item belongs to, in any run of this sub-hypothesis.
            let fields: Vec<&str> = self
                .runs
                .iter()
                .filter(|x| x.hypothesis == r.hypothesis)
                .flat_map(|x| x.items.iter())
                .filter(|(_, v)| v.contains(item))
                .map(|(f, _)| f.as_str())
                .collect();
            for (_, values) in r.items.iter().filter(|(f, _)| fields.contains(&f.as_str())) {
                let has = values.contains(item);
                agree(has && (!alone || values.len() == 1));
            }
        }
        for (word, n) in &words.counts {
            let fields: Vec<&str> = self
                .count_words
                .iter()
                .filter(|(h, w, _)| *h == r.hypothesis && w == word)
                .map(|(_, _, f)| f.as_str())
                .collect();
            for (_, v) in r
                .counts
                .iter()
                .filter(|(f, _)| fields.contains(&f.as_str()))
            {
                agree(v == n);
            }
        }
        fit
    }

    /// Link count words to the fields that differ between a sub-hypothesis's runs: the
    /// field's own name, and every word of a `code` line that names the field.
    pub(crate) fn learn_count_words(&mut self, hypothesis: &str, code: &str) {
        let runs: Vec<&Run> = self
            .runs
            .iter()
            .filter(|r| r.hypothesis == hypothesis)
            .collect();
        let mut fields: Vec<String> = runs
            .iter()
            .flat_map(|r| r.counts.iter().map(|(f, _)| f.clone()))
            .collect();
        fields.sort();
        fields.dedup();
        // A field every run holds at one value tells no run apart.
        fields.retain(|f| {
            let values: Vec<Option<u64>> = runs
                .iter()
                .map(|r| r.counts.iter().find(|(g, _)| g == f).map(|(_, v)| *v))
                .collect();
            values.iter().any(|v| *v != values[0])
        });
        let mut links = Vec::new();
        for field in &fields {
            links.push(singular(field));
            for line in code.lines() {
                let words = tokens(line);
                if words.iter().any(|w| w == field) {
                    links.extend(
                        words
                            .iter()
                            .filter(|w| w.len() >= 3 && w.chars().all(char::is_alphabetic))
                            .map(|w| singular(w)),
                    );
                }
            }
            links.sort();
            links.dedup();
            for w in links.drain(..) {
                let link = (hypothesis.to_string(), w, field.clone());
                if !self.count_words.contains(&link) {
                    self.count_words.push(link);
                }
            }
        }
    }
}

/// A run described by its results file (`value`, any JSON): flags, items and whole-number
/// counts at any depth, each named by its field's phrase (`bill_depth_mm` → `bill depth`).
pub fn describe(
    label: &str,
    hypothesis: &str,
    attempt: Option<u32>,
    value: &serde_json::Value,
) -> Run {
    use serde_json::Value;
    let mut run = Run {
        label: label.to_string(),
        hypothesis: hypothesis.to_string(),
        attempt,
        flags: Vec::new(),
        items: Vec::new(),
        counts: Vec::new(),
    };
    fn walk(v: &Value, field: &str, run: &mut Run) {
        match v {
            Value::Bool(b) => run.flags.push((phrase_of(field), *b)),
            Value::String(s) => run.items.push((phrase_of(field), vec![phrase_of(s)])),
            Value::Number(n) => {
                if let Some(c) = n.as_u64() {
                    run.counts.push((field.to_ascii_lowercase(), c));
                }
            }
            Value::Array(items) if items.iter().all(Value::is_string) => {
                let phrases = items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(phrase_of)
                    .filter(|p| !p.is_empty())
                    .collect();
                run.items.push((phrase_of(field), phrases));
            }
            Value::Object(map) => {
                for (k, v) in map {
                    walk(v, k, run);
                }
            }
            _ => {}
        }
    }
    walk(value, "", &mut run);
    run.flags.retain(|(p, _)| !p.is_empty());
    run.items.retain(|(p, v)| !p.is_empty() && !v.is_empty());
    run
}

#[cfg(test)]
#[path = "runs_tests.rs"]
mod tests;
