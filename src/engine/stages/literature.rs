//! Literature Grounding (Phase 1): related work and three gaps. When literature search is
//! enabled and the network allows, search results ground the prompt; otherwise the model
//! writes from what it knows and the artifact says so.

use super::{Produced, StageRunner};
use crate::engine::check::{section_body, sections};
use crate::engine::ctx::{StageCtx, Vars};
use crate::engine::error::StageError;

pub const ARTIFACT: &str = "01_targeted_research.md";
const REQUIRED: [&str; 3] = ["Related Work", "Gaps", "Sources"];

pub struct LiteratureGrounding;

/// The research question from Problem Scoping's artifact (the whole artifact if the
/// section is gone, say after a hand edit).
pub fn question(ctx: &StageCtx<'_>) -> String {
    let text = ctx.read(super::scoping::ARTIFACT).unwrap_or_default();
    section_body(&text, "Research Question")
        .map(str::to_string)
        .unwrap_or(if text.is_empty() {
            ctx.topic.clone()
        } else {
            text
        })
}

impl StageRunner for LiteratureGrounding {
    fn run(&self, ctx: &StageCtx<'_>, _: Option<&str>) -> Result<Produced, StageError> {
        let q = question(ctx);
        let st = ctx.settings;
        let at = crate::engine::literature::Endpoints {
            semantic_scholar: &st.semantic_scholar_url,
            arxiv: &st.arxiv_url,
            timeout: std::time::Duration::from_secs_f64(st.literature_timeout_s.max(0.5)),
        };
        let search = crate::engine::literature::search(st.literature_search, &q, &at);
        let vars: Vars = [
            ("question", q),
            ("search_note", search.note.clone()),
            ("search_results", search.results_markdown()),
            ("resume", ctx.resume_text()),
        ]
        .into_iter()
        .collect();
        let reply = ctx.ask_sections(
            "executor",
            "system/executor",
            "literature_grounding",
            &vars,
            &REQUIRED,
        )?;
        let body = format!(
            "# Targeted Research\n\n> {}\n\n{}\n",
            search.note,
            reply.trim()
        );
        ctx.write(ARTIFACT, &body)?;
        Ok(Produced::new(ARTIFACT, sections(&body, &REQUIRED)))
    }
}
