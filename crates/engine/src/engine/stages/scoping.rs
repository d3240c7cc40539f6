//! Problem Scoping (Phase 0): the research question from the topic, with what earlier
//! passes of this run learned. Writes `00_brainstorm_session.md`.

use super::{Produced, StageRunner, memory_digest};
use crate::engine::check::sections;
use crate::engine::ctx::{StageCtx, Vars};
use crate::engine::error::StageError;

pub(crate) const ARTIFACT: &str = "00_brainstorm_session.md";
const REQUIRED: [&str; 4] = [
    "Research Question",
    "Motivation",
    "Scope",
    "Success Criteria",
];

pub struct ProblemScoping;

impl StageRunner for ProblemScoping {
    fn run(&self, ctx: &StageCtx<'_>, _: Option<&str>) -> Result<Produced, StageError> {
        let vars: Vars = [
            ("topic", ctx.topic.clone()),
            ("memory", memory_digest(ctx)),
            ("resume", ctx.resume_text()),
        ]
        .into_iter()
        .collect();
        let reply = ctx.ask_sections(
            "executor",
            "system/executor",
            "problem_scoping",
            &vars,
            &REQUIRED,
        )?;
        let body = format!(
            "# Brainstorm Session\n\n**Topic:** {}\n\n{}\n",
            ctx.topic,
            reply.trim()
        );
        ctx.write(ARTIFACT, &body)?;
        Ok(Produced::new(ARTIFACT, sections(&body, &REQUIRED)))
    }
}
