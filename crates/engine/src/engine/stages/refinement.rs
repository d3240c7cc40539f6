//! Manuscript Refinement: the final revision of the reviewed paper, sanitized, written as
//! `paper/06_paper_final.md` and published from that checked text as `paper/paper.pdf`
//! (Typst, in-process), `paper/paper.tex` and `paper/references.bib`; no MAJOR finding of
//! the automatic checks may remain.

use super::{Produced, StageRunner};
use crate::engine::check::Check;
use crate::engine::ctx::StageCtx;
use crate::engine::error::StageError;

pub(crate) const FINAL: &str = "paper/06_paper_final.md";

pub struct ManuscriptRefinement;

impl StageRunner for ManuscriptRefinement {
    fn run(&self, ctx: &StageCtx<'_>, _: Option<&str>) -> Result<Produced, StageError> {
        let registry = super::drafting::registry(ctx)?;
        let paper = ctx
            .read(super::review::REVISED)
            .or_else(|| ctx.read(super::drafting::PAPER))
            .ok_or_else(|| {
                StageError::MustStop(
                    "no reviewed paper to refine; re-run Adversarial Fact Review".into(),
                )
            })?;
        let (_, auto) = super::review::automatic(ctx, &paper, &registry);
        let polished = super::review::refine(ctx, &paper, &auto, &registry)?;
        // The reviser may drop a figure link; the figures and the no-references note return.
        let snap = ctx.vsa()?;
        let records = crate::paper::records(ctx.run)
            .map_err(|e| StageError::MustStop(format!("{e}; re-run Literature Grounding")))?;
        let polished =
            super::drafting::with_figures_and_references(ctx, &polished, &snap.vsa, &records);
        let report = super::drafting::write_sanitized(ctx, FINAL, &polished, &registry)?;
        // The PDF, the LaTeX and the bibliography, from the checked text.
        // Past `[paper] compile_timeout_s` (or its memory bound) there is no PDF; the run
        // goes on and the event says why.
        let event = match crate::paper::publish_with(ctx.run, &report.text, ctx.paper) {
            Ok(p) => p.summary(),
            Err(e) => format!("{} not written: {e}", crate::paper::PDF),
        };
        ctx.emit(crate::rundir::events::Event::new("paper").message(event));
        let (_, left) = super::review::automatic(ctx, &report.text, &registry);
        let majors: Vec<String> = left
            .into_iter()
            .filter(|f| f.major)
            .map(|f| f.text)
            .collect();
        let missing = if majors.is_empty() {
            Vec::new()
        } else {
            vec![format!(
                "a final paper without MAJOR findings: {}",
                majors.join("; ")
            )]
        };
        Ok(Produced::new(FINAL, Check { missing }))
    }
}
