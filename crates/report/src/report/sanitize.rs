//! The sanitizer (SAGE): every number in a table's body cells must state a measured value;
//! one that does not is replaced with `---`. Numbers in prose are checked the same way and
//! listed, not replaced (beyond SAGE: rewriting prose would change sentences' meaning).
//!
//! Each number is bound to the claim its context names (`context`: the clause of its
//! sentence, or its row and column) and judged against that claim's values (`ground`):
//! a number that states another claim's value is a wrong claim and is replaced like an
//! unverified one. A number whose context names no claim is checked against every
//! measured value, as a whitelist, and counted as unbound. An unverified number replaces
//! the whole cell when the cell holds nothing else (besides its unit and emphasis marks:
//! `**0.95**`, `12 ms`), else just the number (`0.81 ± ---`). Header cells are labels and
//! are not checked. A column whose header has `%` holds percentages. A number whose place
//! names a summary of its metric (a range's end, a spread after `±`: `context::summary_roles`)
//! is bound to that summary whatever its clause's words say.

use std::ops::Range;

use serde::Serialize;

use super::binding::bind;
use super::claim::Summary;
use super::context;
use super::ground::{Verdict, WrongClaim, judge};
use super::markdown::{self, Line, LineKind};
use super::mentions::{ClaimIndex, Mentions};
use super::numbers::{self, Number};
use super::registry::Registry;
use super::verify::{Nearest, Written};

/// What replaces an unverified table number.
pub(crate) const PLACEHOLDER: &str = "---";

/// A table number that was replaced.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Replacement {
    pub line: usize,
    /// 1-based, in characters, of the number in the original text.
    pub column: usize,
    /// The number as written.
    pub original: String,
    /// The whole cell as written (trimmed).
    pub cell: String,
    /// The whole cell became `---` (else only the number did).
    pub whole_cell: bool,
    pub value: f64,
    pub reason: String,
    /// The nearest value of the claim the cell names (of the registry when it names none).
    pub nearest: Option<Nearest>,
    /// Set when the number states a different claim's value than the one its row and
    /// column name.
    pub wrong_claim: Option<WrongClaim>,
}

/// A number in prose that states no value of its claim.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnverifiedNumber {
    pub line: usize,
    pub column: usize,
    pub number: String,
    pub value: f64,
    /// The surrounding text on its line, for the reader.
    pub context: String,
    pub nearest: Option<Nearest>,
    /// Set when the number states a different claim's value than the one its sentence names.
    pub wrong_claim: Option<WrongClaim>,
}

/// A number that passed, and the measured value it states (for a view that shows sources).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MatchedNumber {
    pub line: usize,
    pub column: usize,
    pub number: String,
    /// The measured value it matched.
    pub key: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SanitizeReport {
    /// The manuscript with unverified table numbers replaced.
    pub text: String,
    pub replacements: Vec<Replacement>,
    pub unverified_prose: Vec<UnverifiedNumber>,
    /// How many numbers were checked in table bodies and in prose.
    pub table_numbers: usize,
    pub prose_numbers: usize,
    /// Numbers that state a value of the claim their context names.
    pub bound: Vec<MatchedNumber>,
    /// Numbers whose context names no claim, verified against any measured value (weaker).
    pub unbound: Vec<MatchedNumber>,
    /// Numbers that state a value the run declared (thresholds, seeds, config, dataset
    /// sizes): not flagged.
    pub declared_numbers: usize,
    /// Table cells that show no value (`---`) for a claim the run measured (issue 40: a
    /// measured value must reach the paper).
    pub missing: Vec<MissingValue>,
}

/// A `---` cell whose row and column name a claim with measured values.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MissingValue {
    pub line: usize,
    pub column: usize,
    pub claim: String,
    /// The claim's measured values, as the registry holds them (at most a few).
    pub values: Vec<f64>,
}

/// Check `markdown` against `registry` with relative `tolerance` (see `verify`).
pub fn sanitize(markdown: &str, registry: &Registry, tolerance: f64) -> SanitizeReport {
    let lines = markdown::lines(markdown);
    let mut report = SanitizeReport {
        text: String::new(),
        replacements: Vec::new(),
        unverified_prose: Vec::new(),
        table_numbers: 0,
        prose_numbers: 0,
        bound: Vec::new(),
        unbound: Vec::new(),
        declared_numbers: 0,
        missing: Vec::new(),
    };
    let ctx = Ctx {
        markdown,
        registry,
        index: ClaimIndex::new(registry),
        tolerance,
    };
    let prose = ProseNames {
        clauses: prose_clauses(&ctx, &lines),
        roles: prose_roles(&ctx, &lines),
    };
    let mut edits: Vec<(usize, usize)> = Vec::new();
    for line in &lines {
        match line.kind {
            LineKind::TableRow { header } => {
                edits.extend(check_row(&ctx, line, &lines[header], &mut report));
            }
            LineKind::Prose => check_prose(&ctx, line, &prose, &mut report),
            _ => {}
        }
    }
    report.text = apply(markdown, &mut edits);
    report
}

struct Ctx<'a> {
    markdown: &'a str,
    registry: &'a Registry,
    index: ClaimIndex,
    tolerance: f64,
}

/// Why a number did not pass, for the report.
struct Problem {
    nearest: Option<Nearest>,
    reason: String,
    wrong_claim: Option<WrongClaim>,
}

impl Ctx<'_> {
    /// Judge a number whose context names `named`; `None` when it passes (counted).
    fn problem(
        &self,
        n: &Number,
        percent_column: bool,
        named: &Mentions,
        at: (usize, usize, &str),
        report: &mut SanitizeReport,
    ) -> Option<Problem> {
        let w = Written::of(n, percent_column);
        let binding = bind(&self.index, self.registry, named);
        let matched = |key: &str| MatchedNumber {
            line: at.0,
            column: at.1,
            number: at.2.to_string(),
            key: key.to_string(),
        };
        match judge(&w, &binding, self.registry, self.tolerance) {
            Verdict::Bound(e) => report.bound.push(matched(&e.key)),
            Verdict::Declared(_) => report.declared_numbers += 1,
            Verdict::Unbound(e) => report.unbound.push(matched(&e.key)),
            Verdict::WrongClaim(wc) => {
                return Some(Problem {
                    nearest: Some(wc.expected.clone()),
                    reason: wrong_claim_reason(&wc),
                    wrong_claim: Some(wc),
                });
            }
            Verdict::Unverified(nearest) => {
                let reason = match (&binding.claim, &nearest) {
                    (Some(claim), Some(_)) => format!(
                        "{} (the claim named here: {claim})",
                        reason(nearest.as_ref(), self.tolerance)
                    ),
                    _ => reason(nearest.as_ref(), self.tolerance),
                };
                return Some(Problem {
                    nearest,
                    reason,
                    wrong_claim: None,
                });
            }
        }
        None
    }
}

/// Why a number was not verified, naming the closest measured value.
pub fn reason(nearest: Option<&Nearest>, tolerance: f64) -> String {
    let tol = (tolerance * 1000.0).round() / 10.0; // 0.01 → 1, without float noise
    match nearest {
        None => "no measured value to compare with (the registry is empty)".into(),
        Some(n) => format!(
            "no measured value within {tol}% or as rounded; nearest {} = {} ({}, {:.1}% off)",
            n.key,
            super::registry::format_value(n.value),
            n.location,
            n.relative_diff * 100.0
        ),
    }
}

/// A wrong claim in words: the claim named, what it measured, what the number states.
pub(crate) fn wrong_claim_reason(wc: &WrongClaim) -> String {
    let v = super::registry::format_value;
    let e = &wc.expected;
    let expected = format!("{} = {} ({})", e.key, v(e.value), e.location);
    format!(
        "wrong claim: its context names {}, measured as {expected}, but it states {} = {} ({})",
        wc.claim,
        wc.states.key,
        v(wc.states.value),
        wc.states.location
    )
}

/// Check one body row; returns the byte ranges to replace with the placeholder.
fn check_row(
    ctx: &Ctx,
    line: &Line,
    header: &Line,
    report: &mut SanitizeReport,
) -> Vec<(usize, usize)> {
    let md = ctx.markdown;
    let header_cells = markdown::cells(&md[header.start..header.end], header.start);
    let row = &md[line.start..line.end];
    let cells = markdown::cells(row, line.start);
    let texts: Vec<&str> = cells.iter().map(|c| &md[c.start..c.end]).collect();
    let mut edits = Vec::new();
    for (i, cell) in cells.iter().enumerate() {
        let head = header_cells.get(i).map(|h| &md[h.start..h.end]);
        let percent_column = head.is_some_and(|h| h.contains('%'));
        let named = ctx.index.mentions(&context::cell_context(head, &texts, i));
        let text = texts[i];
        if text.trim() == PLACEHOLDER {
            let binding = bind(&ctx.index, ctx.registry, &named);
            if let (Some(claim), false) = (&binding.claim, binding.candidates.is_empty()) {
                let mut values: Vec<f64> = binding
                    .candidates
                    .iter()
                    .map(|&k| ctx.registry.entries[k].value)
                    .collect();
                values.dedup();
                values.truncate(6);
                report.missing.push(MissingValue {
                    line: line.number,
                    column: markdown::column(md, line.start, cell.start),
                    claim: claim.clone(),
                    values,
                });
            }
        }
        let found = numbers::scan(text);
        let roles = context::summary_roles(text);
        report.table_numbers += found.len();
        let mut bad: Vec<(&Number, Problem)> = Vec::new();
        for n in &found {
            let at = cell.start + n.start;
            let place = (
                line.number,
                markdown::column(md, line.start, at),
                &md[at..cell.start + n.end],
            );
            let named = with_role(&named, &roles, n.start);
            if let Some(p) = ctx.problem(n, percent_column, &named, place, report) {
                bad.push((n, p));
            }
        }
        let whole = found.len() == 1 && bad.len() == 1 && only_the_number(text, &found[0]);
        for (n, p) in bad {
            let at = cell.start + n.start;
            report.replacements.push(Replacement {
                line: line.number,
                column: markdown::column(md, line.start, at),
                original: md[at..cell.start + n.end].to_string(),
                cell: text.trim().to_string(),
                whole_cell: whole,
                value: n.value,
                reason: p.reason,
                nearest: p.nearest,
                wrong_claim: p.wrong_claim,
            });
            if !whole {
                edits.push((at, cell.start + n.end));
            }
        }
        if whole {
            let lead = text.len() - text.trim_start().len();
            edits.push((cell.start + lead, cell.start + text.trim_end().len()));
        }
    }
    edits
}

/// The cell holds the number and nothing else but its unit and emphasis marks.
pub(crate) fn only_the_number(cell: &str, n: &Number) -> bool {
    let mut rest = format!("{}{}", &cell[..n.start], &cell[n.end..]);
    if let Some(unit) = &n.unit {
        rest = rest.replacen(unit.as_str(), "", 1);
    }
    rest.chars()
        .all(|c| c.is_whitespace() || matches!(c, '*' | '_' | '~'))
}

/// Every clause of prose in the document, by byte range, with the claim it names.
fn prose_clauses(ctx: &Ctx, lines: &[Line]) -> Vec<(Range<usize>, Mentions)> {
    let mut out = Vec::new();
    for p in context::paragraphs(ctx.markdown, lines) {
        for (r, named) in context::prose_clauses(&ctx.markdown[p.clone()], &ctx.index) {
            out.push((p.start + r.start..p.start + r.end, named));
        }
    }
    out
}

/// What the document's prose names: each clause's claim, and the summaries numbers' places
/// name.
struct ProseNames {
    clauses: Vec<(Range<usize>, Mentions)>,
    roles: Vec<(usize, Summary)>,
}

/// Every prose number whose place names a summary, by its byte in the document.
fn prose_roles(ctx: &Ctx, lines: &[Line]) -> Vec<(usize, Summary)> {
    context::paragraphs(ctx.markdown, lines)
        .into_iter()
        .flat_map(|p| {
            context::summary_roles(&ctx.markdown[p.clone()])
                .into_iter()
                .map(move |(at, s)| (p.start + at, s))
        })
        .collect()
}

/// `named`, with the summary the number's place names (at byte `at`) in place of its words'.
fn with_role(named: &Mentions, roles: &[(usize, Summary)], at: usize) -> Mentions {
    let mut out = named.clone();
    if let Some((_, s)) = roles.iter().find(|(r, _)| *r == at) {
        out.summaries = vec![*s];
    }
    out
}

fn check_prose(ctx: &Ctx, line: &Line, prose: &ProseNames, report: &mut SanitizeReport) {
    let md = ctx.markdown;
    let text = &md[line.start..line.end];
    let found = numbers::scan(text);
    report.prose_numbers += found.len();
    let unnamed = Mentions::default();
    for n in found {
        let at = line.start + n.start;
        let named = prose
            .clauses
            .iter()
            .find(|(r, _)| r.contains(&at))
            .map_or(&unnamed, |(_, m)| m);
        let column = markdown::column(md, line.start, at);
        let number = &text[n.start..n.end];
        let named = with_role(named, &prose.roles, at);
        let Some(p) = ctx.problem(&n, false, &named, (line.number, column, number), report) else {
            continue;
        };
        report.unverified_prose.push(UnverifiedNumber {
            line: line.number,
            column,
            number: number.to_string(),
            value: n.value,
            context: context(text, n.start, n.end),
            nearest: p.nearest,
            wrong_claim: p.wrong_claim,
        });
    }
}

/// Up to ~40 characters either side of a span, on char boundaries, with `…` where cut.
pub fn context(line: &str, start: usize, end: usize) -> String {
    const SIDE: usize = 40;
    let mut from = start.saturating_sub(SIDE);
    while !line.is_char_boundary(from) {
        from -= 1;
    }
    let mut to = (end + SIDE).min(line.len());
    while !line.is_char_boundary(to) {
        to += 1;
    }
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    out.push_str(line[from..to].trim());
    if to < line.len() {
        out.push('…');
    }
    out
}

/// The text with each range replaced by the placeholder.
fn apply(text: &str, edits: &mut [(usize, usize)]) -> String {
    edits.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for &(start, end) in edits.iter() {
        if start < at {
            continue; // overlapping: already replaced
        }
        out.push_str(&text[at..start]);
        out.push_str(PLACEHOLDER);
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
#[path = "sanitize_tests.rs"]
mod tests;
