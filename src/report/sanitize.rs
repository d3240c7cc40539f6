//! The sanitizer (SAGE): every number in a table's body cells must state a measured value;
//! one that does not is replaced with `---`. Numbers in prose are checked the same way and
//! listed, not replaced (beyond SAGE: rewriting prose would change sentences' meaning).
//!
//! A cell's number is verified when ANY registry value matches it under `verify`'s rules
//! (1% relative tolerance, rounding as written, percent/fraction). An unverified number
//! replaces the whole cell when the cell holds nothing else (besides its unit and emphasis
//! marks: `**0.95**`, `12 ms`), else just the number (`0.81 ± ---`). Header cells are labels
//! and are not checked. A column whose header has `%` holds percentages.

use serde::Serialize;

use super::markdown::{self, Line, LineKind};
use super::numbers::{self, Number};
use super::registry::Registry;
use super::verify::{self, Nearest, Written};

/// What replaces an unverified table number.
pub const PLACEHOLDER: &str = "---";

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
    pub nearest: Option<Nearest>,
}

/// A number in prose that states no measured value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnverifiedNumber {
    pub line: usize,
    pub column: usize,
    pub number: String,
    pub value: f64,
    /// The surrounding text on its line, for the reader.
    pub context: String,
    pub nearest: Option<Nearest>,
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
    /// Numbers that state a value the run declared (thresholds, seeds, config): not flagged.
    pub declared_numbers: usize,
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
        declared_numbers: 0,
    };
    let mut edits: Vec<(usize, usize)> = Vec::new();
    for line in &lines {
        match line.kind {
            LineKind::TableRow { header } => {
                let ctx = Ctx {
                    markdown,
                    registry,
                    tolerance,
                    line,
                };
                let header = &lines[header];
                edits.extend(check_row(&ctx, header, &mut report));
            }
            LineKind::Prose => check_prose(markdown, line, registry, tolerance, &mut report),
            _ => {}
        }
    }
    report.text = apply(markdown, &mut edits);
    report
}

struct Ctx<'a> {
    markdown: &'a str,
    registry: &'a Registry,
    tolerance: f64,
    line: &'a Line,
}

impl Ctx<'_> {
    /// `None` when the number is verified; else the nearest value and the reason.
    fn unverified(
        &self,
        n: &Number,
        percent_column: bool,
        declared: &mut usize,
    ) -> Option<(Option<Nearest>, String)> {
        let w = Written::of(n, percent_column);
        if verify::find(&w, self.registry, self.tolerance).is_some() {
            return None;
        }
        if verify::declared(&w, self.registry, self.tolerance).is_some() {
            *declared += 1;
            return None;
        }
        let nearest = verify::nearest(&w, self.registry);
        Some((nearest.clone(), reason(nearest.as_ref(), self.tolerance)))
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

/// Check one body row; returns the byte ranges to replace with the placeholder.
fn check_row(ctx: &Ctx, header: &Line, report: &mut SanitizeReport) -> Vec<(usize, usize)> {
    let md = ctx.markdown;
    let header_cells = markdown::cells(&md[header.start..header.end], header.start);
    let row = &md[ctx.line.start..ctx.line.end];
    let mut edits = Vec::new();
    for (i, cell) in markdown::cells(row, ctx.line.start).into_iter().enumerate() {
        let percent_column = header_cells
            .get(i)
            .is_some_and(|h| md[h.start..h.end].contains('%'));
        let text = &md[cell.start..cell.end];
        let found = numbers::scan(text);
        report.table_numbers += found.len();
        let mut declared = 0;
        let bad: Vec<(&Number, Option<Nearest>, String)> = found
            .iter()
            .filter_map(|n| {
                ctx.unverified(n, percent_column, &mut declared)
                    .map(|(near, why)| (n, near, why))
            })
            .collect();
        report.declared_numbers += declared;
        let whole = found.len() == 1 && bad.len() == 1 && only_the_number(text, &found[0]);
        for (n, nearest, why) in bad {
            let at = cell.start + n.start;
            report.replacements.push(Replacement {
                line: ctx.line.number,
                column: markdown::column(md, ctx.line.start, at),
                original: md[at..cell.start + n.end].to_string(),
                cell: text.trim().to_string(),
                whole_cell: whole,
                value: n.value,
                reason: why,
                nearest,
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
pub fn only_the_number(cell: &str, n: &Number) -> bool {
    let mut rest = format!("{}{}", &cell[..n.start], &cell[n.end..]);
    if let Some(unit) = &n.unit {
        rest = rest.replacen(unit.as_str(), "", 1);
    }
    rest.chars()
        .all(|c| c.is_whitespace() || matches!(c, '*' | '_' | '~'))
}

fn check_prose(
    md: &str,
    line: &Line,
    registry: &Registry,
    tolerance: f64,
    report: &mut SanitizeReport,
) {
    let text = &md[line.start..line.end];
    let found = numbers::scan(text);
    report.prose_numbers += found.len();
    for n in found {
        let w = Written::of(&n, false);
        if verify::find(&w, registry, tolerance).is_some() {
            continue;
        }
        if verify::declared(&w, registry, tolerance).is_some() {
            report.declared_numbers += 1;
            continue;
        }
        report.unverified_prose.push(UnverifiedNumber {
            line: line.number,
            column: markdown::column(md, line.start, line.start + n.start),
            number: text[n.start..n.end].to_string(),
            value: n.value,
            context: context(text, n.start, n.end),
            nearest: verify::nearest(&w, registry),
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
