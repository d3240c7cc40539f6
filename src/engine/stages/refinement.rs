//! Manuscript Refinement: the final revision of the reviewed paper, sanitized, written as
//! `paper/06_paper_final.md`; no MAJOR finding of the automatic checks may remain.

use super::{Produced, StageRunner};
use crate::engine::check::Check;
use crate::engine::ctx::StageCtx;
use crate::engine::error::StageError;

pub const FINAL: &str = "paper/06_paper_final.md";

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
        let report = super::drafting::write_sanitized(ctx, FINAL, &polished, &registry)?;
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
