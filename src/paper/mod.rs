//! The manuscript as a researcher receives it: figures drawn from the run's measured files,
//! a bibliography of the works the run retrieved and nothing else, `paper/paper.pdf`
//! compiled in-process by Typst and `paper/paper.tex` for venue templates. Below the engine
//! (it reads the run's files and the VSA model, never the engine): Manuscript Drafting draws
//! the figures, Manuscript Refinement publishes, `youra report check` and the review's
//! automatic checks call [`check`].

pub mod bib;
pub mod cite;
pub mod draw;
pub mod figures;
pub mod pdf;
pub mod refs;
pub mod tex;
pub mod typst_md;

use std::path::Path;
use std::time::{Duration, Instant};

use crate::report::findings::{Finding, FindingKind, paper_finding};

pub const BIB: &str = "paper/references.bib";
pub const PDF: &str = "paper/paper.pdf";
pub const TEX: &str = "paper/paper.tex";
pub const TYPST: &str = "paper/paper.typ";

/// What the paper says when the run retrieved no works, so a reader knows its related work
/// is unsourced rather than finding references that were never checked.
pub const NO_REFERENCES_NOTE: &str = "The literature search retrieved no works (no network, or no results), so this paper cites no references and its related work is not sourced.";

/// The paper with [`NO_REFERENCES_NOTE`] opening its Related Work (else after the title)
/// when `records` is empty; unchanged otherwise, and never noted twice.
pub fn with_reference_note(md: &str, records: &[refs::Record]) -> String {
    if !records.is_empty() || md.contains(NO_REFERENCES_NOTE) {
        return md.to_string();
    }
    let mut lines: Vec<&str> = md.lines().collect();
    let at = lines
        .iter()
        .position(|l| {
            l.starts_with('#')
                && l.trim_start_matches('#')
                    .trim()
                    .eq_ignore_ascii_case("related work")
        })
        .or_else(|| lines.iter().position(|l| l.starts_with("# ")))
        .map_or(0, |i| i + 1);
    lines.insert(at, "");
    lines.insert(at + 1, NO_REFERENCES_NOTE);
    let mut out = lines.join("\n");
    if md.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// The run's retrieved works (`literature.jsonl`), keys assigned.
pub fn records(run: &Path) -> Result<Vec<refs::Record>, String> {
    let mut r = refs::load(&run.join(refs::LITERATURE_FILE))?;
    refs::assign_keys(&mut r);
    Ok(r)
}

/// What publishing wrote and what each part cost.
#[derive(Debug, Clone, Default)]
pub struct Published {
    pub references: usize,
    pub pdf_bytes: usize,
    pub bib_and_tex: Duration,
    pub pdf: Duration,
}

/// Write `references.bib` (the retrieved records only), `paper.tex`, `paper.typ` and
/// `paper.pdf` from the checked Markdown `md`, next to it in the run's `paper/` folder.
pub fn publish(run: &Path, md: &str) -> Result<Published, String> {
    let started = Instant::now();
    let records = records(run)?;
    let dir = run.join("paper");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let write = |rel: &str, bytes: &[u8]| {
        let p = run.join(rel);
        std::fs::write(&p, bytes).map_err(|e| format!("cannot write {}: {e}", p.display()))
    };
    write(BIB, bib::bibtex(&records).as_bytes())?;
    let keys: Vec<String> = records.iter().map(|r| r.key.clone()).collect();
    let md = &without_missing_images(&dir, md);
    write(TEX, tex::document(md, &keys).as_bytes())?;
    let markup = typst_md::document(md, &keys);
    write(TYPST, markup.as_bytes())?;
    let bib_and_tex = started.elapsed();
    let started = Instant::now();
    let bytes = pdf::compile(&dir, markup).map_err(|e| format!("the PDF did not compile: {e}"))?;
    write(PDF, &bytes)?;
    Ok(Published {
        references: records.len(),
        pdf_bytes: bytes.len(),
        bib_and_tex,
        pdf: started.elapsed(),
    })
}

/// The paper with every image link whose file is not inside `paper/` replaced by a line
/// saying so: the checker reports such a figure (MAJOR); the PDF must still compile.
fn without_missing_images(paper_dir: &Path, md: &str) -> String {
    let root = paper_dir.canonicalize().ok();
    let mut out = md.to_string();
    for (_, caption, target) in figures::links(md) {
        let inside = paper_dir
            .join(&target)
            .canonicalize()
            .ok()
            .zip(root.as_ref())
            .is_some_and(|(p, r)| p.starts_with(r) && p.is_file());
        if !inside {
            out = out.replace(
                &format!("![{caption}]({target})"),
                &format!("*(figure missing: {caption})*"),
            );
        }
    }
    out
}

/// The paper's references and figures checked against the run: every citation and
/// identifier names a retrieved work (and the right one), every figure's data is there and
/// unchanged. All MAJOR: a hallucinated reference or a figure without its data is a claim
/// the run cannot back.
pub fn check(run: &Path, md: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    match records(run) {
        Ok(records) => {
            for p in cite::problems(md, &records) {
                let kind = if p.unretrieved {
                    FindingKind::HallucinatedReference
                } else {
                    FindingKind::WrongIdentifier
                };
                out.push(paper_finding(
                    kind,
                    p.mention.line,
                    p.mention.column,
                    p.message,
                    p.evidence,
                ));
            }
        }
        Err(e) => out.push(paper_finding(
            FindingKind::HallucinatedReference,
            0,
            0,
            "the run's retrieved works cannot be read, so no citation can be verified".into(),
            e,
        )),
    }
    for (line, message, evidence) in figures::problems(run, md) {
        out.push(paper_finding(
            FindingKind::FigureSource,
            line,
            0,
            message,
            evidence,
        ));
    }
    out
}
