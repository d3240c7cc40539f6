//! The manuscript as a researcher receives it: figures drawn from the run's measured files,
//! a bibliography of the works the run retrieved and nothing else, `paper/paper.pdf`
//! compiled in-process by Typst and `paper/paper.tex` for venue templates. Below the engine
//! (it reads the run's files and the VSA model, never the engine): Manuscript Drafting draws
//! the figures, Manuscript Refinement publishes, `youra report check` and the review's
//! automatic checks call [`check`].

pub mod appendix_card;
pub mod bib;
pub mod bounded;
pub mod cite;
pub mod citekey;
pub mod deviations;
pub mod draw;
pub mod emit;
pub mod figure_pdf;
pub mod figures;
pub mod interval_rows;
pub mod intervals;
pub mod pdf;
pub mod refs;
pub mod settings;
pub mod tex;
pub mod typst_md;
pub mod verdicts;

pub use settings::PaperSettings;

use std::path::Path;
use std::time::{Duration, Instant};

use crate::report::findings::{Finding, FindingKind, paper_finding};

pub(crate) const BIB: &str = "paper/references.bib";
pub const PDF: &str = "paper/paper.pdf";
pub(crate) const TEX: &str = "paper/paper.tex";
pub(crate) const TYPST: &str = "paper/paper.typ";

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

/// `md` with the intervals the run's gates were decided on ([`intervals::with_intervals`]);
/// unchanged when the VSA holds none or cannot be read (the paper then says what it said).
pub fn with_gate_intervals(run: &Path, md: &str) -> String {
    let Ok(snap) = crate::vsa::Store::new(run.join("verification_state.yaml")).load() else {
        return md.to_string();
    };
    // Every attempt's own interval too, from the trusted results (the registry's reading).
    let confidence = intervals::gated(&snap.vsa)
        .iter()
        .find_map(|(_, e)| e.confidence)
        .unwrap_or(crate::evidence::CONFIDENCE);
    let stated = crate::report::registry_build::build(run)
        .map(|r| interval_rows::stated(&r, confidence))
        .unwrap_or_default();
    let baselines = snap
        .vsa
        .sub_hypotheses
        .iter()
        .map(|h| {
            let names = crate::vsa::model::gate_baselines(&snap.doc, &h.id);
            (h.id.clone(), names)
        })
        .collect();
    intervals::with_stated(md, &snap.vsa, &stated, &baselines)
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
    /// 0 when there is no PDF ([`Published::no_pdf`] says why).
    pub pdf_bytes: usize,
    /// Why `paper.pdf` was not written (past the deadline, refused by Typst, …).
    pub no_pdf: Option<String>,
    /// What the converters left out (an image that is not a drawn figure, a figure whose
    /// PDF for `paper.tex` was not made), each saying why.
    pub dropped: Vec<String>,
    pub bib_and_tex: Duration,
    pub pdf: Duration,
}

impl Published {
    /// One line for the run's events.
    pub fn summary(&self) -> String {
        let pdf = match &self.no_pdf {
            None => format!(
                "{PDF} compiled ({} KB in {} ms)",
                self.pdf_bytes / 1024,
                self.pdf.as_millis()
            ),
            Some(why) => format!("{PDF} not written: {why}"),
        };
        let mut line = format!(
            "{TEX} and {BIB} written ({} references); {pdf}",
            self.references
        );
        for d in &self.dropped {
            line.push_str("; ");
            line.push_str(d);
        }
        line
    }
}

/// [`publish_with`] under the default `[paper]` bounds.
pub fn publish(run: &Path, md: &str) -> Result<Published, String> {
    publish_with(run, md, &PaperSettings::default())
}

/// Write `references.bib` (the retrieved records only), `paper.tex`, `paper.typ` and
/// `paper.pdf` from the checked Markdown `md` and nothing else, next to it in the run's
/// `paper/` folder; the figures' PDFs for `paper.tex` beside their SVGs. The PDFs compile
/// in a child process under `settings`' deadline and memory bound: past them the paper
/// has no PDF and [`Published::no_pdf`] says why. `Err` only when a file cannot be written.
pub fn publish_with(run: &Path, md: &str, settings: &PaperSettings) -> Result<Published, String> {
    let started = Instant::now();
    // The gates' intervals (issue 40): youra's record from the VSA, like the run cards.
    let md = &with_gate_intervals(run, md);
    let records = records(run)?;
    let dir = run.join("paper");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    // No link followed: a run folder may have been handed over with `paper/paper.tex`
    // pointing at a file of the researcher's.
    let write = |rel: &str, bytes: &[u8]| {
        crate::fsutil::write_beneath(run, Path::new(rel), bytes)
            .map_err(|e| format!("cannot write {}: {e}", run.join(rel).display()))
    };
    write(BIB, bib::bibtex(&records).as_bytes())?;
    let keys: Vec<citekey::CiteKey> = records
        .iter()
        .filter_map(|r| citekey::CiteKey::parse(&r.key))
        .collect();
    let (figures, mut dropped) = drawn_figures(run, &dir);
    let inputs = emit::Inputs {
        keys: &keys,
        figures: &figures,
    };
    let tex = tex::document(md, &inputs);
    // Each attempt's run card, after the bibliography (youra's record, not a claim).
    let cards = appendix_card::read_all(run);
    write(TEX, appendix_card::with_tex(&tex.text, &cards).as_bytes())?;
    let mut typ = typst_md::document(md, &inputs);
    typ.text.push_str(&appendix_card::typst(&cards));
    write(TYPST, typ.text.as_bytes())?;
    dropped.extend(typ.dropped);
    let bib_and_tex = started.elapsed();
    let started = Instant::now();
    // A PDF from an earlier attempt must not pass for this paper's.
    match std::fs::remove_file(run.join(PDF)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(format!("cannot remove the old {PDF}: {e}"));
        }
        _ => {}
    }
    let (figure_pdfs, unread) = figure_pdf::plan(&dir, &figures);
    dropped.extend(unread);
    let to_make: Vec<&figure_pdf::Figure> =
        figure_pdfs.iter().filter(|f| f.made.is_none()).collect();
    let mut jobs = vec![typ.text];
    jobs.extend(to_make.iter().map(|f| figure_pdf::markup(&f.svg)));
    let mut published = Published {
        references: records.len(),
        bib_and_tex,
        ..Published::default()
    };
    let results = match bounded::compile_all(&dir, jobs, settings.bounds()) {
        Ok(r) => r,
        Err(why) => {
            published.no_pdf = Some(why.to_string());
            published.dropped = dropped;
            published.pdf = started.elapsed();
            return Ok(published);
        }
    };
    let mut results = results.into_iter();
    match results.next() {
        Some(Ok(bytes)) => {
            write(PDF, &bytes)?;
            published.pdf_bytes = bytes.len();
        }
        Some(Err(e)) => published.no_pdf = Some(bounded::Failure::Typst(e).to_string()),
        None => {
            published.no_pdf =
                Some(bounded::Failure::Deadline(settings.bounds().deadline).to_string())
        }
    }
    let write_figure = |f: &figure_pdf::Figure, bytes: &[u8]| {
        crate::fsutil::write_beneath(&dir, Path::new(&f.pdf), bytes)
            .map_err(|e| format!("cannot write {}: {e}", f.pdf))
    };
    for f in figure_pdfs.iter().filter(|f| f.made.is_some()) {
        write_figure(f, f.made.as_deref().unwrap_or_default())?;
    }
    for f in to_make {
        match results.next() {
            Some(Ok(bytes)) => {
                write_figure(f, &bytes)?;
                figure_pdf::remember(f, &bytes);
            }
            other => dropped.push(format!(
                "{} (for paper.tex) not made: {}",
                f.pdf,
                match other {
                    Some(Err(e)) => e,
                    _ => "the compile ran out of time".into(),
                }
            )),
        }
    }
    published.dropped = dropped;
    published.pdf = started.elapsed();
    Ok(published)
}

/// The figures youra drew (the manifest's files, relative to `paper/`) that the paper may
/// include: a plain name, a regular file reached without a link. The rest are named.
fn drawn_figures(run: &Path, paper_dir: &Path) -> (Vec<String>, Vec<String>) {
    let manifest = match figures::load_manifest(run) {
        Ok(m) => m,
        Err(e) => return (Vec::new(), vec![format!("figures left out: {e}")]),
    };
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for f in manifest {
        let plain = tex::figure_pdf(&f.file).is_some();
        let there = plain
            && crate::fsutil::open_beneath(
                paper_dir,
                Path::new(&f.file),
                crate::fsutil::Beneath::Read,
            )
            .is_ok();
        if there {
            kept.push(f.file);
        } else {
            dropped.push(format!(
                "figure {:?} left out: not a plain file under paper/",
                f.file.chars().take(120).collect::<String>()
            ));
        }
    }
    (kept, dropped)
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
    // The verdict words against the gates, where the run's VSA reads (a run of youra's).
    if let Ok(snap) = crate::vsa::store::Store::new(run.join("verification_state.yaml")).load() {
        for o in verdicts::overclaims(&snap.vsa, md) {
            out.push(paper_finding(
                FindingKind::Overclaim,
                o.line,
                o.column,
                o.message(),
                format!(
                    "sub_hypotheses.{}.gate.result in verification_state.yaml",
                    o.hypothesis
                ),
            ));
        }
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
