//! The paper as the paper view shows it: the manuscript's lines and every number checked
//! against the ground-truth registry by `report`'s sanitizer. Read on a worker thread (the
//! sanitizer scans every line); the dialog gets the result as data.

use std::path::{Path, PathBuf};

use crate::report::markdown::{self, LineKind};
use crate::report::numbers;
use crate::report::registry::Registry;
use crate::report::verify::{self, Nearest, Written};

/// Where a number of the paper comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A registry value states it.
    Measured {
        key: String,
        value: f64,
        location: String,
    },
    /// No registry value does; the closest one, when the registry has any. `replaced` when the
    /// sanitizer turns it into `---` (a table cell), else it is listed (prose).
    Unverified {
        nearest: Option<Nearest>,
        replaced: bool,
    },
}

/// One number on one line of the paper, by character position (for drawing).
#[derive(Debug, Clone, PartialEq)]
pub struct PaperNumber {
    /// 0-based line index into [`Paper::lines`].
    pub line: usize,
    /// 0-based character columns, end exclusive.
    pub start: usize,
    pub end: usize,
    pub text: String,
    pub source: Source,
}

impl PaperNumber {
    pub fn unverified(&self) -> bool {
        matches!(self.source, Source::Unverified { .. })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Paper {
    /// The file shown, relative to the run.
    pub file: String,
    /// Which registry the numbers were checked against, for the view's header.
    pub registry_note: String,
    pub lines: Vec<String>,
    pub numbers: Vec<PaperNumber>,
    /// What the paper ships with: figures, references and the PDF (also listed at the end
    /// of `lines`, after the manuscript, so the view shows them).
    pub outputs: Outputs,
}

/// The manuscript's figures (`file — caption`), references (`[@key] title (year), DOI`) and
/// the PDF's absolute path when it was compiled.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outputs {
    pub figures: Vec<String>,
    pub references: Vec<String>,
    pub pdf: Option<PathBuf>,
}

/// The run's figures, retrieved references and PDF, as the paper view lists them.
pub fn outputs(root: &Path) -> Outputs {
    let figures = crate::paper::figures::load_manifest(root)
        .unwrap_or_default()
        .into_iter()
        .map(|f| format!("paper/{} — {}", f.file, f.caption))
        .collect();
    let references = crate::paper::records(root)
        .unwrap_or_default()
        .into_iter()
        .map(|r| {
            let year = r.year.map(|y| format!(" ({y})")).unwrap_or_default();
            let id = r
                .doi
                .map(|d| format!(", doi:{d}"))
                .or(r.arxiv.map(|a| format!(", arXiv:{a}")))
                .unwrap_or_default();
            format!("[@{}] {}{year}{id}", r.key, r.title)
        })
        .collect();
    let pdf = Some(root.join(crate::paper::PDF)).filter(|p| p.is_file());
    Outputs {
        figures,
        references,
        pdf,
    }
}

impl Outputs {
    /// The lines the view appends after the manuscript.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![String::new(), "―― What the paper ships with ――".to_string()];
        out.push(match &self.pdf {
            Some(p) => format!("PDF: {}", p.display()),
            None => "PDF: not compiled yet (Manuscript Refinement writes paper/paper.pdf)".into(),
        });
        out.push(format!("Figures ({}):", self.figures.len()));
        out.extend(self.figures.iter().map(|f| format!("  {f}")));
        out.push(format!(
            "References ({}, retrieved by the run's literature search):",
            self.references.len()
        ));
        if self.references.is_empty() {
            out.push("  none: the paper cites nothing".into());
        }
        out.extend(self.references.iter().map(|r| format!("  {r}")));
        out
    }
}

impl Paper {
    pub fn unverified_count(&self) -> usize {
        self.numbers.iter().filter(|n| n.unverified()).count()
    }
}

/// The manuscript to show: the refined one when it exists, else the draft.
pub(crate) fn paper_file(root: &Path) -> Option<PathBuf> {
    ["paper/06_paper_final.md", "paper/06_paper.md"]
        .iter()
        .map(|p| root.join(p))
        .find(|p| p.is_file())
}

/// Read the run's paper and check its numbers. The registry is `paper/065_ground_truth.yaml`;
/// without one (a draft before Fact Review), it is built from the measured results, as
/// `youra report check` does, so the marks still mean "no measured value says this".
pub fn read_paper(root: &Path) -> Result<Paper, String> {
    let path = paper_file(root).ok_or_else(|| {
        "no paper yet: paper/06_paper_final.md and paper/06_paper.md are absent".to_string()
    })?;
    let text = crate::fsutil::read_run_text(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let reg_path = root.join("paper/065_ground_truth.yaml");
    let (registry, registry_note) = match crate::report::registry_yaml::load(&reg_path) {
        // The file keeps the values, not which run measured each: those are read from the
        // results again, so a number that names a run binds here as `report check` binds it.
        Ok(mut r) => {
            r.runs = crate::report::registry_build::build(root)
                .map(|b| b.runs)
                .unwrap_or_default();
            (r, "paper/065_ground_truth.yaml".to_string())
        }
        Err(loaded) => match crate::report::registry_build::build(root) {
            Ok(r) => (
                r,
                format!("values measured in the run ({loaded}; built from results)"),
            ),
            Err(e) => (Registry::empty(), format!("no registry: {loaded}; {e}")),
        },
    };
    let rel = path.strip_prefix(root).unwrap_or(&path);
    // One line per paragraph, so the view wraps it to its own width instead of re-wrapping
    // the file's hard-wrapped lines (which left orphan words at every source break).
    let text = reflow(&text);
    let outputs = outputs(root);
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    // A paper from before figures, references and PDFs existed shows as it always did.
    if outputs != Outputs::default() {
        lines.extend(outputs.lines());
    }
    Ok(Paper {
        file: rel.display().to_string(),
        registry_note,
        lines,
        numbers: check(&text, &registry, verify::DEFAULT_TOLERANCE),
        outputs,
    })
}

/// The manuscript with each prose paragraph's lines joined by spaces (CRLF read as LF).
/// Headings, list items, quotes, table rows, code (fenced or indented), blank lines and a
/// line ending in a Markdown hard break (two spaces or `\`) keep their own lines.
pub(crate) fn reflow(markdown: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut fenced = false;
    let mut joinable = false;
    for raw in markdown.split('\n') {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            out.push(line.to_string());
            joinable = false;
            continue;
        }
        let plain = !fenced && is_plain_prose(line);
        match out.last_mut() {
            Some(prev) if plain && joinable => {
                prev.push(' ');
                prev.push_str(line.trim());
            }
            _ => out.push(line.to_string()),
        }
        joinable = plain && !(line.ends_with("  ") || line.ends_with('\\'));
    }
    out.join("\n")
}

/// A line that continues or starts a paragraph of prose (not a block of its own kind).
fn is_plain_prose(line: &str) -> bool {
    if line.trim().is_empty() || line.starts_with("    ") || line.starts_with('\t') {
        return false;
    }
    let t = line.trim_start();
    let numbered = {
        let digits = t.chars().take_while(char::is_ascii_digit).count();
        digits > 0 && matches!(t[digits..].chars().next(), Some('.' | ')'))
    };
    !(numbered
        || t.starts_with('#')
        || t.starts_with('|')
        || t.starts_with('>')
        || t.starts_with("- ")
        || t.starts_with("* ")
        || t.starts_with("+ ")
        || t.starts_with("<!--"))
}

/// Every checked number of `markdown` (prose and table bodies, as the sanitizer checks them),
/// with its source. The sanitizer decides which are unverified, so the view and
/// `youra report check` can never disagree.
pub fn check(markdown: &str, registry: &Registry, tolerance: f64) -> Vec<PaperNumber> {
    let report = crate::report::sanitize(markdown, registry, tolerance);
    let mut out = Vec::new();
    for line in markdown::lines(markdown) {
        if !matches!(line.kind, LineKind::Prose | LineKind::TableRow { .. }) {
            continue;
        }
        let text = &markdown[line.start..line.end];
        for n in numbers::scan(text) {
            let column = markdown::column(markdown, line.start, line.start + n.start);
            let at = |l: usize, c: usize| l == line.number && c == column;
            let replaced = report.replacements.iter().find(|r| at(r.line, r.column));
            let prose = report
                .unverified_prose
                .iter()
                .find(|u| at(u.line, u.column));
            let source = match (replaced, prose) {
                (Some(r), _) => Source::Unverified {
                    nearest: r.nearest.clone(),
                    replaced: true,
                },
                (None, Some(u)) => Source::Unverified {
                    nearest: u.nearest.clone(),
                    replaced: false,
                },
                // The value the sanitizer bound it to (the claim its context names), so the
                // view shows the source `youra report check` judged it by; a declared value
                // or an older report falls back to the closest measured value.
                (None, None) => match bound(&report, registry, line.number, column)
                    .or_else(|| measured(&n, registry, tolerance))
                {
                    Some(s) => s,
                    None => continue,
                },
            };
            let start = column - 1;
            out.push(PaperNumber {
                line: line.number - 1,
                start,
                end: start + text[n.start..n.end].chars().count(),
                text: text[n.start..n.end].to_string(),
                source,
            });
        }
    }
    out
}

/// The entry the sanitizer matched the number at (line, column) to.
fn bound(
    report: &crate::report::SanitizeReport,
    registry: &Registry,
    line: usize,
    column: usize,
) -> Option<Source> {
    let m = report
        .bound
        .iter()
        .chain(&report.unbound)
        .find(|m| m.line == line && m.column == column)?;
    let entry = registry.get(&m.key)?;
    Some(Source::Measured {
        key: entry.key.clone(),
        value: entry.value,
        location: entry.location(),
    })
}

/// The registry entry a verified number states (a `%` column is tried as a percentage too).
fn measured(n: &numbers::Number, registry: &Registry, tolerance: f64) -> Option<Source> {
    let entry = verify::find(&Written::of(n, false), registry, tolerance)
        .or_else(|| verify::find(&Written::of(n, true), registry, tolerance))?;
    Some(Source::Measured {
        key: entry.key.clone(),
        value: entry.value,
        location: entry.location(),
    })
}

/// The source as the view's popup says it, one line each.
pub fn describe(n: &PaperNumber) -> Vec<String> {
    let v = crate::report::registry::format_value;
    match &n.source {
        Source::Measured {
            key,
            value,
            location,
        } => vec![
            format!("{} = {} (measured)", n.text, v(*value)),
            format!("key: {key}"),
            format!("source: {location}"),
        ],
        Source::Unverified { nearest, replaced } => {
            let what = if *replaced {
                "unverified: the sanitizer replaces this table cell with ---"
            } else {
                "unverified: no measured value states this number"
            };
            let near = match nearest {
                Some(x) => format!(
                    "nearest measured value {} ({}), {:.1}% off",
                    v(x.value),
                    x.key,
                    x.relative_diff * 100.0
                ),
                None => "the registry has no values to compare with".into(),
            };
            let loc = nearest.as_ref().map(|x| format!("source: {}", x.location));
            [Some(format!("{} — {what}", n.text)), Some(near), loc]
                .into_iter()
                .flatten()
                .collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::registry::Entry;

    #[test]
    fn paragraphs_are_joined_and_blocks_kept() {
        let cases = [
            ("one\ntwo\n\nthree", "one two\n\nthree"),
            ("# Title\nprose\nmore", "# Title\nprose more"),
            ("- a\n- b\ntext", "- a\n- b\ntext"),
            ("1. a\n2) b", "1. a\n2) b"),
            ("| a |\n| b |", "| a |\n| b |"),
            ("```\ncode\nmore\n```\nx\ny", "```\ncode\nmore\n```\nx y"),
            ("hard  \nbreak", "hard  \nbreak"),
            ("crlf\r\nline\r\n", "crlf line\n"),
            ("> q\n> r", "> q\n> r"),
            ("    indented\n    code", "    indented\n    code"),
        ];
        for (input, want) in cases {
            assert_eq!(reflow(input), want, "{input:?}");
        }
    }

    fn registry() -> Registry {
        Registry {
            entries: vec![
                Entry::new("h-e1.results.accuracy".into(), 0.9912)
                    .with_origin("h-e1/results/metrics.jsonl", "line 4: /accuracy".into()),
                Entry::new("h-e1.results.onset_step".into(), 11200.0),
            ],
            ..Registry::empty()
        }
    }

    #[test]
    fn numbers_are_marked_by_what_the_registry_says() {
        let md = "# Results\n\nAccuracy reached 0.991 at step 11,200 and 0.75 after.\n\n\
                  | run | acc |\n|---|---|\n| a | 0.42 |\n";
        let found = check(md, &registry(), verify::DEFAULT_TOLERANCE);
        let got: Vec<(usize, usize, &str, bool)> = found
            .iter()
            .map(|n| (n.line, n.start, n.text.as_str(), n.unverified()))
            .collect();
        assert_eq!(
            got,
            vec![
                (2, 17, "0.991", false),
                (2, 31, "11,200", false),
                (2, 42, "0.75", true),
                (6, 6, "0.42", true),
            ]
        );
        let lines = describe(&found[0]);
        assert_eq!(lines[1], "key: h-e1.results.accuracy");
        assert_eq!(
            lines[2],
            "source: h-e1/results/metrics.jsonl#line 4: /accuracy"
        );
        assert!(matches!(
            found[3].source,
            Source::Unverified { replaced: true, .. }
        ));
        assert!(describe(&found[2])[1].starts_with("nearest measured value 0.9912"));
    }

    #[test]
    fn a_number_shows_the_source_of_the_claim_it_states() {
        // Two hypotheses measured the same accuracy: the sentence about h-e2 is its value,
        // not the first entry that happens to match.
        let reg = Registry {
            entries: vec![
                Entry::new("h-e1.results.accuracy".into(), 0.93),
                Entry::new("h-e2.results.accuracy".into(), 0.93),
            ],
            ..Registry::empty()
        };
        let found = check(
            "# Results\n\nThe accuracy of h-e2 is 0.93.\n",
            &reg,
            verify::DEFAULT_TOLERANCE,
        );
        assert_eq!(found.len(), 1);
        assert_eq!(describe(&found[0])[1], "key: h-e2.results.accuracy");
    }

    #[test]
    fn the_refined_paper_wins_over_the_draft() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read_paper(dir.path()).unwrap_err().contains("no paper yet"));
        std::fs::create_dir_all(dir.path().join("paper")).unwrap();
        std::fs::write(dir.path().join("paper/06_paper.md"), "draft 1.5\n").unwrap();
        assert_eq!(read_paper(dir.path()).unwrap().file, "paper/06_paper.md");
        std::fs::write(dir.path().join("paper/06_paper_final.md"), "final\n").unwrap();
        let p = read_paper(dir.path()).unwrap();
        assert_eq!(
            (p.file.as_str(), p.lines[0].as_str()),
            ("paper/06_paper_final.md", "final")
        );
        assert_eq!(p.lines.len(), 2, "no outputs, no trailer: {:?}", p.lines);
    }

    #[test]
    fn the_view_lists_figures_references_and_the_pdf() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("paper/figures")).unwrap();
        std::fs::write(root.join("paper/06_paper_final.md"), "# T\n").unwrap();
        std::fs::write(
            root.join("literature.jsonl"),
            "{\"key\":\"g2014\",\"title\":\"Penguins\",\"year\":2014,\"doi\":\"10.1/x\"}\n",
        )
        .unwrap();
        std::fs::write(
            root.join("paper/figures/manifest.json"),
            r#"[{"file":"figures/gates.svg","caption":"Gate summary","section":"Results","sources":[]}]"#,
        )
        .unwrap();
        std::fs::write(root.join("paper/paper.pdf"), b"%PDF-").unwrap();
        let p = read_paper(root).unwrap();
        let tail = p.lines[1..].join("\n");
        assert!(
            tail.contains(&format!("PDF: {}", root.join("paper/paper.pdf").display())),
            "{tail}"
        );
        assert!(
            tail.contains("paper/figures/gates.svg — Gate summary"),
            "{tail}"
        );
        assert!(
            tail.contains("[@g2014] Penguins (2014), doi:10.1/x"),
            "{tail}"
        );
        assert_eq!(p.outputs.references.len(), 1);
    }
}
