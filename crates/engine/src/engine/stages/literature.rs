//! Literature Grounding (Phase 1): related work and three gaps. When literature search is
//! enabled and the network allows (or the run replays a recorded search), the retrieved
//! records ground the prompt and are kept as `literature.jsonl`, the only works the paper
//! may cite; otherwise the artifact says none were retrieved.

use super::{Produced, StageRunner};
use crate::engine::check::{section_body, sections};
use crate::engine::ctx::{StageCtx, Vars};
use crate::engine::error::StageError;

pub(crate) const ARTIFACT: &str = "01_targeted_research.md";
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
        let recorded = ctx.path(crate::engine::literature::RECORDED);
        let search = if recorded.is_file() {
            // A replayed run (the demo) reads its recorded search: offline, labelled.
            crate::engine::literature::recorded(&recorded).map_err(|e| {
                StageError::MustStop(format!(
                    "the recorded literature search cannot be read ({e}); fix or remove {}",
                    crate::engine::literature::RECORDED
                ))
            })?
        } else {
            let openalex = std::env::var("YOURA_OPENALEX_URL")
                .unwrap_or_else(|_| crate::engine::literature::OPENALEX_URL.to_string());
            let at = crate::engine::literature::Endpoints {
                semantic_scholar: &st.semantic_scholar_url,
                openalex: &openalex,
                arxiv: &st.arxiv_url,
                // A NaN or infinite setting must not panic here: the default instead.
                timeout: std::time::Duration::from_secs_f64(
                    Some(st.literature_timeout_s)
                        .filter(|t| t.is_finite())
                        .map_or(8.0, |t| t.clamp(0.5, 120.0)),
                ),
                api_key: std::env::var("SEMANTIC_SCHOLAR_API_KEY")
                    .ok()
                    .filter(|k| !k.trim().is_empty()),
                backoff: crate::engine::literature::Backoff::default(),
            };
            crate::engine::literature::search(st.literature_search, &q, &at)
        };
        // Every record retrieved is kept: the paper may cite these and nothing else.
        ctx.write(
            crate::paper::refs::LITERATURE_FILE,
            &crate::paper::refs::to_jsonl(&search.records),
        )?;
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
