//! Findings: what a reviewer (or fact review) must act on, with a severity.
//!
//! - An unverified table number is MAJOR: tables are where results are stated, and SAGE
//!   treats an unverifiable cell as a fabrication to remove.
//! - An unverified prose number is MINOR: prose also holds numbers that are not results
//!   (a design constant, a count of related works, a threshold quoted from the brief), so a
//!   prose number flags a place to look rather than a proven fault.
//! - An unmatched method claim is MAJOR: the paper describes an experiment the run did not
//!   perform.
//! - A wrong claim is MAJOR, in a table or in prose: the number's context names one claim
//!   (a hypothesis, metric or condition) and the number is another claim's measured value,
//!   as when two hypotheses' accuracies are swapped. That is a false result, not a place
//!   to look.

use serde::Serialize;

use super::ground::WrongClaim;
use super::provenance::ProvenanceReport;
use super::sanitize::SanitizeReport;
use super::verify::Nearest;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Severity {
    Major,
    Minor,
}

impl Severity {
    pub fn label(self) -> &'static str {
        match self {
            Severity::Major => "MAJOR",
            Severity::Minor => "MINOR",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum FindingKind {
    UnverifiedTableNumber,
    UnverifiedProseNumber,
    UnmatchedClaim,
    /// A number that states a different claim's value than the one its context names.
    WrongClaim,
    /// A measured value stated in Results or the Abstract whose context names no claim:
    /// true of some hypothesis, but the reader cannot tell which.
    UnboundNumber,
    /// A citation, DOI or arXiv id naming no work the run's literature search retrieved.
    HallucinatedReference,
    /// A DOI or arXiv id that belongs to a retrieved work other than the one the line cites.
    WrongIdentifier,
    /// A figure whose measured data file is gone, changed, or was never recorded.
    FigureSource,
    /// A table cell that shows no value (`---`) for a claim the run measured.
    MissingValue,
    /// A table row that says a sub-hypothesis's gate was met when the VSA's gate is not a
    /// PASS (`paper::verdicts`).
    Overclaim,
}

/// The severity rule.
pub fn severity(kind: FindingKind) -> Severity {
    match kind {
        FindingKind::UnverifiedTableNumber
        | FindingKind::UnmatchedClaim
        | FindingKind::WrongClaim
        | FindingKind::HallucinatedReference
        | FindingKind::WrongIdentifier
        | FindingKind::FigureSource
        | FindingKind::MissingValue
        | FindingKind::Overclaim => Severity::Major,
        FindingKind::UnverifiedProseNumber | FindingKind::UnboundNumber => Severity::Minor,
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub severity: Severity,
    pub kind: FindingKind,
    /// 1-based line (and column) in the paper.
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// What supports the finding: the nearest measured value, or what was searched.
    pub evidence: String,
}

fn finding(
    kind: FindingKind,
    line: usize,
    column: usize,
    message: String,
    evidence: String,
) -> Finding {
    Finding {
        severity: severity(kind),
        kind,
        line,
        column,
        message,
        evidence,
    }
}

/// A finding of the paper's references and figures (`crate::paper::check`), with the
/// severity its kind has.
pub fn paper_finding(
    kind: FindingKind,
    line: usize,
    column: usize,
    message: String,
    evidence: String,
) -> Finding {
    finding(kind, line, column, message, evidence)
}

fn nearest_text(n: Option<&Nearest>) -> String {
    match n {
        Some(n) => format!(
            "nearest measured value: {} = {} ({}, {:.1}% off)",
            n.key,
            super::registry::format_value(n.value),
            n.location,
            n.relative_diff * 100.0
        ),
        None => "the registry holds no measured values".into(),
    }
}

/// A wrong claim's finding: where, what the context names, what to state instead.
fn wrong_claim(line: usize, column: usize, number: &str, wc: &WrongClaim) -> Finding {
    let v = super::registry::format_value;
    let e = &wc.expected;
    let expected = format!(
        "state {}'s value {} ({}), or name the claim {number} belongs to",
        wc.claim,
        v(e.value),
        e.key
    );
    finding(
        FindingKind::WrongClaim,
        line,
        column,
        format!(
            "wrong claim: {number} is bound to {} but is the value of {} = {}; {expected}",
            wc.claim,
            wc.states.key,
            v(wc.states.value)
        ),
        format!(
            "{} is measured at {}; {} at {}",
            wc.states.key, wc.states.location, e.key, e.location
        ),
    )
}

/// Findings from the sanitizer: table numbers MAJOR, prose numbers MINOR, wrong claims
/// MAJOR wherever they are.
pub(crate) fn from_sanitize(report: &SanitizeReport) -> Vec<Finding> {
    let table = report.replacements.iter().map(|r| match &r.wrong_claim {
        Some(wc) => wrong_claim(r.line, r.column, &r.original, wc),
        None => finding(
            FindingKind::UnverifiedTableNumber,
            r.line,
            r.column,
            format!(
                "table number {} is not a measured value (cell `{}`)",
                r.original, r.cell
            ),
            nearest_text(r.nearest.as_ref()),
        ),
    });
    let prose = report
        .unverified_prose
        .iter()
        .map(|u| match &u.wrong_claim {
            Some(wc) => wrong_claim(u.line, u.column, &u.number, wc),
            None => finding(
                FindingKind::UnverifiedProseNumber,
                u.line,
                u.column,
                format!(
                    "number {} in prose is not a measured value: “{}”",
                    u.number, u.context
                ),
                nearest_text(u.nearest.as_ref()),
            ),
        });
    let missing = report.missing.iter().map(|m| {
        finding(
            FindingKind::MissingValue,
            m.line,
            m.column,
            format!(
                "the table shows no value for {}, which the run measured: write the measured \
                 value, or drop the row",
                m.claim
            ),
            format!(
                "measured: {}",
                m.values
                    .iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    });
    table
        .chain(prose)
        .chain(unbound(report))
        .chain(missing)
        .collect()
}

/// Unbound measured values in Results and the Abstract: MINOR (see [`claims_section`]).
fn unbound(report: &SanitizeReport) -> impl Iterator<Item = Finding> + '_ {
    report
        .unbound
        .iter()
        .filter(|n| claims_section(&report.text, n.line))
        .map(|n| {
            finding(
                FindingKind::UnboundNumber,
                n.line,
                n.column,
                format!(
                    "number {} names no claim: say which sub-hypothesis and metric it belongs to",
                    n.number
                ),
                format!("it matches the measured value {}", n.key),
            )
        })
}

/// Whether 1-based `line` of `text` lies in the Results or the Abstract, where every
/// measured number must name its claim (the title block before any section counts as the
/// abstract's place).
pub(crate) fn claims_section(text: &str, line: usize) -> bool {
    let heading = text
        .lines()
        .take(line.saturating_sub(1))
        .filter(|l| l.starts_with("## ") || l.starts_with("### "))
        .last();
    match heading {
        None => true,
        Some(h) => {
            let name = h
                .trim_start_matches('#')
                .trim()
                .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
                .trim()
                .to_ascii_lowercase();
            name.starts_with("result") || name.starts_with("abstract")
        }
    }
}

/// Findings from method provenance: each unmatched claim MAJOR.
pub(crate) fn from_provenance(report: &ProvenanceReport) -> Vec<Finding> {
    let places = if report.searched.is_empty() {
        "no code, configs or logs found in the run".to_string()
    } else {
        format!(
            "{} files in {}",
            report.files_searched,
            report.searched.join(", ")
        )
    };
    report
        .unmatched()
        .map(|c| {
            let claim = &c.claim;
            let value = claim
                .value
                .map(|v| format!(" = {}", super::registry::format_value(v)))
                .unwrap_or_default();
            let mentions = match claim.mentions {
                1 => String::new(),
                n => format!(", {n} mentions"),
            };
            finding(
                FindingKind::UnmatchedClaim,
                claim.line,
                claim.column,
                format!(
                    "{} `{}`{value} (as written: “{}”{mentions}) does not appear in the run's code, configs or logs",
                    claim.kind.label(),
                    claim.name,
                    claim.text
                ),
                format!("searched for {} in {places}", claim.spellings.join(", ")),
            )
        })
        .collect()
}

/// All findings of one check, in paper order. A prose number that states a hyperparameter
/// value the run's code shows (`learning rate of 0.001`, found as `lr=1e-3`) is verified by
/// provenance, so it is not also reported as an unverified number.
pub fn combine(s: &SanitizeReport, p: &ProvenanceReport) -> Vec<Finding> {
    let shown_in_code: Vec<(usize, f64)> = p
        .checked
        .iter()
        .filter(|c| c.evidence.is_some())
        .filter_map(|c| Some((c.claim.line, c.claim.value?)))
        .collect();
    let prose_ok = |f: &Finding, value: f64| {
        f.kind == FindingKind::UnverifiedProseNumber
            && shown_in_code
                .iter()
                .any(|(line, v)| *line == f.line && super::corpus::same(*v, value))
    };
    let values = s
        .replacements
        .iter()
        .map(|r| r.value)
        .chain(s.unverified_prose.iter().map(|u| u.value));
    // The unbound findings come last in `from_sanitize` and have no value to pair: the zip
    // covers the table and prose findings, the unbound ones are added after it.
    let numbers: Vec<Finding> = from_sanitize(s)
        .into_iter()
        .zip(values)
        .filter(|(f, v)| !prose_ok(f, *v))
        .map(|(f, _)| f)
        .chain(unbound(s))
        .collect();
    sorted(numbers.into_iter().chain(from_provenance(p)).collect())
}

/// Findings in paper order, MAJOR before MINOR on the same line.
pub fn sorted(mut findings: Vec<Finding>) -> Vec<Finding> {
    findings.sort_by_key(|f| (f.line, f.severity, f.column));
    findings
}

pub fn has_major(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Major)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::corpus::Corpus;
    use crate::report::registry::{Entry, Registry};
    use crate::report::{provenance, sanitize};

    #[test]
    fn severity_table() {
        let cases = [
            (FindingKind::UnverifiedTableNumber, Severity::Major),
            (FindingKind::UnverifiedProseNumber, Severity::Minor),
            (FindingKind::UnmatchedClaim, Severity::Major),
            (FindingKind::WrongClaim, Severity::Major),
            (FindingKind::UnboundNumber, Severity::Minor),
            (FindingKind::HallucinatedReference, Severity::Major),
            (FindingKind::WrongIdentifier, Severity::Major),
            (FindingKind::FigureSource, Severity::Major),
        ];
        for (kind, want) in cases {
            assert_eq!(severity(kind), want, "{kind:?}");
        }
    }

    #[test]
    fn numbers_must_name_their_claim_in_results_and_abstract() {
        let text = "# Title\n\nIntro 1.\n\n## Abstract\nA 2.\n\n## 3 Results\nR 3.\n\n## Discussion\nD 4.\n";
        // (line, in a section where numbers must name their claim)
        let cases = [(3, true), (6, true), (9, true), (12, false)];
        for (line, want) in cases {
            assert_eq!(claims_section(text, line), want, "line {line}");
        }
    }

    #[test]
    fn findings_from_both_checks() {
        let registry = Registry {
            entries: vec![Entry::new("acc".into(), 0.91)],
            ..Registry::empty()
        };
        let md = "We use MNIST and see 0.5.\n\n| m | acc |\n|---|---|\n| a | 0.7 |\n";
        let s = sanitize::sanitize(md, &registry, 0.01);
        let p = provenance::check(md, &Corpus::default());
        let all = sorted([from_sanitize(&s), from_provenance(&p)].concat());
        let got: Vec<(usize, Severity, FindingKind)> =
            all.iter().map(|f| (f.line, f.severity, f.kind)).collect();
        assert_eq!(
            got,
            [
                (1, Severity::Major, FindingKind::UnmatchedClaim),
                (1, Severity::Minor, FindingKind::UnverifiedProseNumber),
                (5, Severity::Major, FindingKind::UnverifiedTableNumber),
            ]
        );
        assert!(has_major(&all));
        assert!(
            all[0].message.contains("dataset `MNIST`"),
            "{}",
            all[0].message
        );
        assert!(
            all[0].evidence.contains("no code, configs or logs"),
            "{}",
            all[0].evidence
        );
        assert!(
            all[2].evidence.contains("acc = 0.91"),
            "{}",
            all[2].evidence
        );
        assert!(!has_major(&all[1..2]));
    }

    #[test]
    fn a_hyperparameter_value_shown_in_code_is_not_an_unverified_number() {
        let corpus = Corpus::from_texts(vec![("h-e1/code/t.py".into(), "lr=1e-3\n".into())]);
        let md = "A learning rate of 0.001 and 0.5 elsewhere.\nA learning rate of 0.01.\n";
        let s = sanitize::sanitize(md, &Registry::empty(), 0.01);
        let p = provenance::check(md, &corpus);
        let got: Vec<(usize, FindingKind)> =
            combine(&s, &p).iter().map(|f| (f.line, f.kind)).collect();
        assert_eq!(
            got,
            [
                (1, FindingKind::UnverifiedProseNumber), // 0.5
                (2, FindingKind::UnmatchedClaim),
                (2, FindingKind::UnverifiedProseNumber), // 0.01: not shown in code
            ]
        );
    }
}
