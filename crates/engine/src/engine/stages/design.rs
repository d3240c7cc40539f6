//! Experiment Design (Phase 2C) for one sub-hypothesis: the brief with dataset, model,
//! metrics and machine-readable gate criteria, at `h-*/02c_experiment_brief.md`. The
//! criteria are held to the plan's (`criteria::planned`): a reply that lowers, flips, renames
//! or drops a planned criterion is refused and resumed with the reason, never adopted.

use super::artifacts::DESIGN_BRIEF as ARTIFACT;
use super::{Produced, StageRunner, memory_digest};
use crate::engine::check::{Check, sections};
use crate::engine::criteria;
use crate::engine::ctx::{StageCtx, Vars};
use crate::engine::error::StageError;

const REQUIRED: [&str; 5] = ["Dataset", "Model", "Metrics", "Gate Criteria", "Procedure"];

pub struct ExperimentDesign;

impl StageRunner for ExperimentDesign {
    fn run(&self, ctx: &StageCtx<'_>, hypothesis: Option<&str>) -> Result<Produced, StageError> {
        let id = hypothesis.ok_or_else(|| {
            StageError::NotAvailable("Experiment Design needs a sub-hypothesis".into())
        })?;
        let snap = ctx.vsa()?;
        let h = snap
            .vsa
            .hypothesis(id)
            .ok_or_else(|| StageError::Output(format!("{id} is not in the VSA any more")))?;
        let criterion = criteria::planned_text(&snap, id).unwrap_or_else(|| "(none stated)".into());
        let planned = criteria::planned::parse(&criterion);
        let main = snap.vsa.main_statement();
        // Where the plan asks for repeats, a MUST_WORK claim names its baselines (issue 40).
        let repeats = ctx.evidence.rule().min_repeats;
        let must = !matches!(
            h.gate.gate_type,
            Some(crate::vsa::enums::GateType::ShouldWork)
        );
        let needs_baselines = repeats > 1 && must;
        let mut required: Vec<&str> = REQUIRED.to_vec();
        if needs_baselines {
            required.push(super::baselines::SECTION);
        }
        let vars: Vars = [
            ("hypothesis", id.to_string()),
            (
                "kind",
                h.kind
                    .as_ref()
                    .map_or("?".into(), |k| k.as_str().to_string()),
            ),
            (
                "gate_type",
                h.gate
                    .gate_type
                    .as_ref()
                    .map_or("?".into(), |g| g.as_str().to_string()),
            ),
            ("statement", h.statement.clone().unwrap_or_default()),
            ("main_hypothesis", main),
            ("criterion", criterion.clone()),
            (
                "memory",
                match super::fields::snapshot_field(ctx, id, "design_constraint") {
                    Some(c) => format!(
                        "{}\nConstraint from the last failure: {c}",
                        memory_digest(ctx)
                    ),
                    None => memory_digest(ctx),
                },
            ),
            ("resume", ctx.resume_text()),
            ("evidence", super::baselines::prompt_text(repeats, must)),
        ]
        .into_iter()
        .collect();
        let reply = ctx.ask_sections(
            "executor",
            "system/executor",
            "experiment_design",
            &vars,
            &required,
        )?;
        let body = format!("# Experiment Brief: {id}\n\n{}\n", reply.trim());
        let baselines = crate::engine::check::section_body(&body, super::baselines::SECTION)
            .map(super::baselines::parse)
            .unwrap_or_default();
        if needs_baselines && baselines.is_empty() {
            return Err(StageError::Output(format!(
                "{id} is a MUST_WORK claim: the brief's `## Baselines` section must list at \
                 least one baseline metric measured on the same repeats, one per line as \
                 `- <metric>: <what it is>` (a trivial one, and the literature's standard \
                 method where there is one)"
            )));
        }
        let designed = criteria::from_brief(&body);
        // Held to the plan before anything is written: a lowered bar never reaches the
        // brief on disk, the VSA or the gate.
        let mut stricter = Vec::new();
        if let Ok(list) = &designed {
            let held = criteria::planned::conform(&planned, list);
            if !held.refused.is_empty() {
                let why = held.refused.join("; ");
                return Err(StageError::Output(format!(
                    "the Gate Criteria must keep the plan's criteria for {id} (`{criterion}`): \
                     {why}. Write the ```yaml block with the planned metric names and \
                     thresholds; a stricter bar is allowed, a weaker one is not"
                )));
            }
            stricter = held.stricter;
        }
        let rel = format!("{id}/{ARTIFACT}");
        ctx.write(&rel, &body)?;
        let mut check = sections(&body, &required);
        let mut commit = crate::vsa::mutation::Mutation::by("engine");
        if !baselines.is_empty() {
            commit.push(
                crate::vsa::mutation::Change::Put {
                    path: format!("sub_hypotheses.{id}.gate.baselines"),
                    value: crate::yaml::NewNode::Seq(
                        baselines
                            .iter()
                            .map(|b| crate::engine::yamlout::text(b))
                            .collect(),
                    ),
                },
                "gate_criteria",
                &format!(
                    "Experiment Design: baselines for {id}: {}",
                    baselines.join(", ")
                ),
            );
        }
        match designed {
            Ok(list) => {
                // The VSA holds the criteria the gate is judged by, beside YouRA's
                // `criterion` text: the researcher can see and edit them there. Where the
                // design raised the planned bar, the history says so.
                let mut note = format!("Experiment Design: {} gate criteria for {id}", list.len());
                if !stricter.is_empty() {
                    note.push_str(&format!("; stricter than planned: {}", stricter.join("; ")));
                }
                commit.push(
                    crate::vsa::mutation::Change::Put {
                        path: format!("sub_hypotheses.{id}.gate.criteria"),
                        value: criteria::vsa_node(&list),
                    },
                    "gate_criteria",
                    &note,
                );
            }
            Err(e) => {
                check = Check {
                    missing: [
                        check.missing,
                        vec![format!("machine-readable gate criteria ({e})")],
                    ]
                    .concat(),
                };
            }
        }
        let mut produced = Produced::new(rel, check);
        produced.commit = commit;
        Ok(produced)
    }
}
