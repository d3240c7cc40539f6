//! Where a number's claim is named: the clause of its sentence in prose, or its row and
//! column in a table.
//!
//! - **Paragraphs** are runs of prose lines, broken at blank lines, headings, list items
//!   and anything that is not prose; a sentence may wrap across lines.
//! - **Sentences** end at `.`, `!` or `?` before white space, except after an
//!   abbreviation (`e.g.`, `et al.`, `Fig.`, `vs.`).
//! - **Clauses** split a sentence at `;`, `, ` and the joining words below, so that in
//!   “h-e1 reaches 0.91 and h-e2 0.85” each number has its own hypothesis. A clause with
//!   no number passes what it names on to the next (“For h-e1, accuracy is 0.91”). A
//!   clause that names no hypothesis (or no metric, or no condition) takes the sentence's.
//!   A sentence with “respectively” is one clause: its order is the reader's to map.
//! - **A table cell**'s context is its column's header, the row's label cells (those
//!   without numbers) and the cell itself.
//! - **A number's place** may name which summary of its metric it is, whatever its clause
//!   says ([`summary_roles`]): the ends of a range (“between 0.0321 and 0.0352”,
//!   “0.0321–0.0352”, “[0.0321, 0.0352]”, “ranges from 0.0321 to 0.0352”) are the lowest and
//!   the highest; the number after `±` is a spread. “From 0.88 to 0.94” alone is a change,
//!   not a range, and names nothing.

use std::ops::Range;

use super::claim::Summary;
use super::markdown::{self, Line, LineKind};
use super::mentions::{ClaimIndex, Mentions};
use super::numbers;

/// Words a sentence is split at (with the spaces around them).
const JOINS: &[&str] = &[
    " and ",
    " while ",
    " whereas ",
    " but ",
    " versus ",
    " vs. ",
    " vs ",
    " compared with ",
    " compared to ",
    " against ",
    " than ",
];

/// Words a `.` ends without ending the sentence.
const ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "al", "fig", "figs", "eq", "eqs", "vs", "cf", "no", "approx", "resp", "sec",
    "tab", "ref", "ca", "etc",
];

/// The byte ranges of the paragraphs of prose in `md`.
pub fn paragraphs(md: &str, lines: &[Line]) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    let mut open: Option<Range<usize>> = None;
    for line in lines {
        let text = &md[line.start..line.end];
        let prose = line.kind == LineKind::Prose && !text.trim().is_empty();
        let starts_block = markdown::heading_level(text).is_some() || is_list_item(text);
        if !prose || starts_block {
            out.extend(open.take());
        }
        if prose {
            match &mut open {
                Some(r) => r.end = line.end,
                None => open = Some(line.start..line.end),
            }
            if markdown::heading_level(text).is_some() {
                out.extend(open.take());
            }
        }
    }
    out.extend(open);
    out
}

fn is_list_item(line: &str) -> bool {
    let t = line.trim_start();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    t.starts_with("- ")
        || t.starts_with("* ")
        || t.starts_with("+ ")
        || t.starts_with("> ")
        || (digits > 0 && (t[digits..].starts_with(". ") || t[digits..].starts_with(") ")))
}

/// Sentence ranges of `text` (see the module rules).
pub fn sentences(text: &str) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    for i in 0..b.len() {
        let ends = matches!(b[i], b'.' | b'!' | b'?')
            && b.get(i + 1).is_none_or(|c| c.is_ascii_whitespace())
            && !(b[i] == b'.' && after_abbreviation(&text[start..i]));
        if ends {
            out.push(start..i + 1);
            start = i + 1;
        }
    }
    if text[start..].trim().is_empty() {
        if let Some(last) = out.last_mut() {
            last.end = text.len();
        }
    } else {
        out.push(start..text.len());
    }
    out
}

fn after_abbreviation(before: &str) -> bool {
    let word = before
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    ABBREVIATIONS.contains(&word.as_str())
}

/// Clause ranges of a sentence (relative to it).
pub fn clauses(sentence: &str) -> Vec<Range<usize>> {
    if sentence.to_lowercase().contains("respectively") {
        return std::iter::once(0..sentence.len()).collect();
    }
    let lower = sentence.to_ascii_lowercase();
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    for sep in JOINS.iter().chain(&["; ", ", "]) {
        cuts.extend(lower.match_indices(sep).map(|(at, s)| (at, at + s.len())));
    }
    cuts.sort_unstable();
    let mut out = Vec::new();
    let mut start = 0;
    for (at, end) in cuts {
        if at >= start {
            out.push(start..at);
            start = end;
        }
    }
    out.push(start..sentence.len());
    out
}

/// For each clause of a paragraph, its byte range in the paragraph and the claim it names
/// after carrying and falling back (see the module rules).
pub(crate) fn prose_clauses(paragraph: &str, index: &ClaimIndex) -> Vec<(Range<usize>, Mentions)> {
    let flat = paragraph.replace(['\n', '\r'], " ");
    let mut out = Vec::new();
    for s in sentences(&flat) {
        let sentence = &flat[s.clone()];
        let whole = index.mentions(sentence);
        let mut carry = Mentions::default();
        for c in clauses(sentence) {
            let text = &sentence[c.clone()];
            let mut named = index.mentions(text).union(&carry);
            if numbers::scan(text).is_empty() {
                carry = named.clone();
            } else {
                carry = Mentions::default();
                if named.hypotheses.is_empty() {
                    named.hypotheses = whole.hypotheses.clone();
                }
                if named.families.is_empty() && named.metrics.is_empty() {
                    named.families = whole.families.clone();
                    named.metrics = whole.metrics.clone();
                }
                if named.conditions.is_empty() {
                    named.conditions = whole.conditions.clone();
                }
                if named.runs.is_empty() {
                    named.runs = whole.runs.clone();
                }
            }
            out.push((s.start + c.start..s.start + c.end, named));
        }
    }
    out
}

/// The numbers of `text` whose place names a summary (see the module rules), by the byte
/// where each starts.
pub(crate) fn summary_roles(text: &str) -> Vec<(usize, Summary)> {
    let found = numbers::scan(text);
    let mut out = Vec::new();
    for (a, b) in found.iter().zip(found.iter().skip(1)) {
        if b.kind == numbers::Kind::Spread {
            out.push((b.start, Summary::Spread));
            continue;
        }
        let before = text[..a.start].trim_end().to_lowercase();
        let gap = text[a.end..b.start].trim().to_lowercase();
        let after = text[b.end..].trim_start();
        let gap = gap
            .trim_start_matches(a.unit.as_deref().unwrap_or_default())
            .trim();
        let ranging = before
            .split_whitespace()
            .rev()
            .take(3)
            .any(|w| w.starts_with("rang"));
        let range = (before.ends_with("between") && gap == "and")
            || matches!(gap, "–" | "—" | "-")
            || (gap == "to" && ranging)
            || (gap == ","
                && (before.ends_with('[') || before.ends_with('('))
                && (after.starts_with(']') || after.starts_with(')')));
        if range {
            out.push((a.start, Summary::Min));
            out.push((b.start, Summary::Max));
        }
    }
    out
}

/// The text that names a table cell's claim: its column header, the row's label cells
/// (cells without numbers) and the cell itself.
pub(crate) fn cell_context(header: Option<&str>, row: &[&str], own: usize) -> String {
    let mut parts: Vec<&str> = header.into_iter().collect();
    parts.extend(
        row.iter()
            .enumerate()
            .filter(|(i, c)| *i != own && numbers::scan(c).is_empty())
            .map(|(_, c)| *c),
    );
    parts.extend(row.get(own));
    parts.join(" | ")
}

#[cfg(test)]
#[path = "context_tests.rs"]
mod tests;
