//! Hypothesis Debate (Phase 2A) as YouRA runs it (Appendix A): Gap Selection first
//! ([`super::debate_gap`]), then six personas argue while the controller moderates (reads the
//! compact VSA summary and, on a re-entry after a redesign, this run's Reflective Memory;
//! picks the next persona; judges the six convergence criteria), up to `[debate]
//! max_exchanges` (20) and ending earlier once all six are met after `min_exchanges`; then
//! Result Structuring. Writes `00_gap_selection.yaml`, `discussion_log.md`,
//! `01_round_table/final_opinions.yaml`, `02_synthesis.yaml`, `03_refinement.yaml`, and the
//! main hypothesis with its numbered predictions (`main_hypothesis.predictions`, P1…) into
//! the VSA, which Verification Planning links sub-hypotheses to and Evidence Check judges.

use serde_json::{Value, json};

use super::{Produced, StageRunner, memory_digest, prior_digest};
use crate::engine::check::{Check, keys, section_body};
use crate::engine::ctx::{StageCtx, Vars};
use crate::engine::error::StageError;
use crate::engine::reply::str_field;
use crate::engine::yamlout;
use crate::llm::schema as js;
use crate::llm::{Message, ReplySchema};
use crate::vsa::mutation::{Change, Mutation};
use crate::yaml::NewNode;

pub const PERSONAS: [&str; 6] = [
    "novelty",
    "falsifiability",
    "impact",
    "feasibility",
    "strengthening",
    "stress_testing",
];
pub(crate) const CRITERIA: [&str; 6] = [
    "SPECIFIC",
    "MECHANISM",
    "PREDICTIONS",
    "NOVELTY",
    "FEASIBILITY",
    "OBJECTIONS",
];

pub struct HypothesisDebate;

#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub persona: String,
    pub text: String,
}

/// The moderator's verdict on the debate so far.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Moderation {
    pub met: Vec<&'static str>,
    pub next: String,
    pub reason: String,
}

impl Moderation {
    pub fn converged(&self) -> bool {
        self.met.len() == CRITERIA.len()
    }
}

/// The moderator's reply: the six criteria judged, who speaks next, and why.
pub(crate) fn moderator_schema() -> ReplySchema {
    let criteria: Vec<(&str, Value)> = CRITERIA.iter().map(|c| (*c, js::boolean())).collect();
    ReplySchema::new(
        "debate_moderation",
        js::object(&[
            ("criteria", js::object(&criteria)),
            ("next_persona", js::one_of(&PERSONAS)),
            ("reason", js::string()),
        ]),
    )
}

/// The synthesis of the debate (`02_synthesis.yaml`).
pub(crate) fn synthesis_schema() -> ReplySchema {
    ReplySchema::new(
        "debate_synthesis",
        js::object_with(
            &[
                ("hypothesis", js::text()),
                ("mechanism", js::text()),
                ("predictions", js::array(js::text(), 1, None)),
            ],
            &[
                ("agreements", js::array(js::string(), 0, None)),
                ("open_objections", js::array(js::string(), 0, None)),
                ("novelty", js::string()),
            ],
        ),
    )
}

/// The refined main hypothesis (`03_refinement.yaml`).
pub(crate) fn refinement_schema() -> ReplySchema {
    ReplySchema::new(
        "debate_refinement",
        js::object_with(
            &[
                (
                    "main_hypothesis",
                    js::object_with(
                        &[("statement", js::text())],
                        &[("id", js::string()), ("title", js::string())],
                    ),
                ),
                ("predictions", js::array(js::text(), 1, None)),
                ("falsification", js::text()),
            ],
            &[("assumptions", js::array(js::string(), 0, None))],
        ),
    )
}

/// Read the moderator's JSON; a persona outside the six falls back to the first that has
/// not spoken (the rule, not the model, guarantees every voice is heard before repeats).
pub(crate) fn parse_moderation(v: &Value, spoken: &[String]) -> Moderation {
    let met = CRITERIA
        .into_iter()
        .filter(|c| {
            v.get("criteria")
                .and_then(|m| m.get(*c))
                .and_then(Value::as_bool)
                == Some(true)
        })
        .collect();
    let wanted =
        str_field(v, "next_persona").map(|p| p.to_ascii_lowercase().replace([' ', '-'], "_"));
    let unspoken = PERSONAS.iter().find(|p| !spoken.iter().any(|s| s == *p));
    let next = match wanted {
        Some(p) if PERSONAS.contains(&p.as_str()) => p,
        _ => unspoken
            .unwrap_or(&PERSONAS[spoken.len() % PERSONAS.len()])
            .to_string(),
    };
    Moderation {
        met,
        next,
        reason: str_field(v, "reason").unwrap_or("").to_string(),
    }
}

/// Whether the debate stops now: converged after the minimum, or at the maximum.
pub(crate) fn stop_now(exchanges: u32, min: u32, max: u32, converged: bool) -> bool {
    exchanges >= max || (exchanges >= min && converged)
}

fn transcript(turns: &[Turn]) -> String {
    if turns.is_empty() {
        return "(no exchanges yet)".into();
    }
    turns
        .iter()
        .enumerate()
        .map(|(i, t)| format!("[{}] {}: {}", i + 1, t.persona, t.text.trim()))
        .collect::<Vec<_>>()
        .join("\n\n")
}

impl HypothesisDebate {
    fn moderate(
        &self,
        ctx: &StageCtx<'_>,
        base: &Vars,
        turns: &[Turn],
    ) -> Result<Moderation, StageError> {
        let spoken: Vec<String> = turns.iter().map(|t| t.persona.clone()).collect();
        // The state is read at every call: the moderator judges the debate against the VSA
        // as it is (YouRA: "reads recent dialogue and VSA state").
        let state = crate::engine::summary::summary(&ctx.vsa()?.vsa);
        let mut vars = base.clone();
        vars.extend([
            ("state", state),
            ("transcript", transcript(turns)),
            ("exchanges", turns.len().to_string()),
            ("min", ctx.debate.min_exchanges.to_string()),
            ("max", ctx.debate.max_exchanges.to_string()),
            ("personas", PERSONAS.join(", ")),
            (
                "spoken",
                if spoken.is_empty() {
                    "none".into()
                } else {
                    spoken.join(", ")
                },
            ),
        ]);
        let v = ctx.ask_json(
            "controller",
            "system/controller",
            "debate/moderator",
            &vars,
            &moderator_schema(),
        )?;
        Ok(parse_moderation(&v, &spoken))
    }

    fn turn(
        &self,
        ctx: &StageCtx<'_>,
        persona: &str,
        base: &Vars,
        turns: &[Turn],
    ) -> Result<Turn, StageError> {
        let (brief, _) = ctx.prompts.source(&format!("personas/{persona}"))?;
        let mut vars = base.clone();
        vars.insert("persona", persona.to_string());
        vars.insert("persona_brief", brief.trim().to_string());
        vars.insert("exchange", (turns.len() + 1).to_string());
        vars.insert("transcript", transcript(turns));
        let system = ctx.prompts.render("system/persona", &vars)?;
        let user = ctx.prompts.render("debate/turn", &vars)?;
        let text = ctx.ask_turn(
            "persona",
            vec![Message::system(system), Message::user(user)],
        )?;
        Ok(Turn {
            persona: persona.to_string(),
            text: text.trim().to_string(),
        })
    }
}

impl StageRunner for HypothesisDebate {
    fn run(&self, ctx: &StageCtx<'_>, _: Option<&str>) -> Result<Produced, StageError> {
        let q = super::literature::question(ctx);
        let research = ctx.read(super::literature::ARTIFACT).unwrap_or_default();
        let memory = memory_digest(ctx);
        // Reflective Memory is checked first on a re-entry (YouRA: "so the system does not
        // repeat refuted directions"): a recovery round, or records this run already wrote.
        let reentry = ctx.round > 0 || memory != "(none)"; // lessons::digest's empty text
        let gap = super::debate_gap::select(ctx, &q, &research, &memory)?;
        let base: Vars = [
            ("question", q.clone()),
            ("gap", gap.prompt_text()),
            (
                "gaps",
                section_body(&research, "Gaps")
                    .unwrap_or("(none recorded)")
                    .to_string(),
            ),
            (
                "reentry",
                if reentry {
                    "a re-entry: the records this run wrote".into()
                } else {
                    "first pass".to_string()
                },
            ),
            ("memory", memory),
            ("prior", prior_digest(ctx)),
        ]
        .into_iter()
        .collect();
        let (min, max) = (ctx.debate.min_exchanges, ctx.debate.max_exchanges.max(1));
        let mut turns = Vec::new();
        let mut log = vec![format!(
            "# Hypothesis Debate\n\n**Question:** {q}\n\n**Selected gap:** {}\n",
            gap.prompt_text().replace('\n', "  \n")
        )];
        let verdict = loop {
            let m = self.moderate(ctx, &base, &turns)?;
            log.push(format!(
                "_Moderator after {} exchanges: criteria met {}/6 ({}). {}_\n",
                turns.len(),
                m.met.len(),
                m.met.join(", "),
                m.reason
            ));
            if stop_now(turns.len() as u32, min, max, m.converged()) {
                break m;
            }
            let t = self.turn(ctx, &m.next, &base, &turns)?;
            log.push(format!(
                "## Exchange {} — {}\n\n{}\n",
                turns.len() + 1,
                t.persona,
                t.text
            ));
            turns.push(t);
        };
        let converged = verdict.converged();
        log.push(format!(
            "## Outcome\n\n{} after {} exchanges (min {min}, max {max}); criteria met: {}.\n",
            if converged {
                "Converged"
            } else {
                "Stopped at the maximum without convergence"
            },
            turns.len(),
            verdict.met.join(", ")
        ));
        ctx.write("discussion_log.md", &log.join("\n"))?;
        ctx.write(
            "01_round_table/final_opinions.yaml",
            &final_opinions(&turns),
        )?;
        self.synthesise(ctx, &q, &turns, &verdict)
    }
}

fn final_opinions(turns: &[Turn]) -> String {
    let mut map = serde_json::Map::new();
    for p in PERSONAS {
        if let Some(t) = turns.iter().rev().find(|t| t.persona == p) {
            let proposal = t
                .text
                .lines()
                .rev()
                .find(|l| l.trim_start().starts_with("Proposal:"))
                .unwrap_or(t.text.lines().last().unwrap_or(""));
            map.insert(p.to_string(), json!({"final_position": proposal.trim()}));
        }
    }
    yamlout::document(
        "Final opinions of the round table (last proposal of each persona).",
        &Value::Object(map),
    )
}

impl HypothesisDebate {
    fn synthesise(
        &self,
        ctx: &StageCtx<'_>,
        q: &str,
        turns: &[Turn],
        verdict: &Moderation,
    ) -> Result<Produced, StageError> {
        let vars: Vars = [
            ("question", q.to_string()),
            ("transcript", transcript(turns)),
        ]
        .into_iter()
        .collect();
        let mut synthesis = ctx.ask_json(
            "executor",
            "system/executor",
            "debate/synthesis",
            &vars,
            &synthesis_schema(),
        )?;
        let check = keys(&synthesis, &["hypothesis", "mechanism", "predictions"]);
        if let Some(obj) = synthesis.as_object_mut() {
            obj.insert(
                "convergence".into(),
                json!({
                    "converged": verdict.converged(),
                    "exchanges": turns.len(),
                    "criteria_met": verdict.met,
                }),
            );
        }
        ctx.write(
            "02_synthesis.yaml",
            &yamlout::document("Synthesis of the Hypothesis Debate.", &synthesis),
        )?;
        let vars: Vars = [("synthesis", synthesis.to_string())].into_iter().collect();
        let refinement = ctx.ask_json(
            "executor",
            "system/executor",
            "debate/refinement",
            &vars,
            &refinement_schema(),
        )?;
        ctx.write(
            "03_refinement.yaml",
            &yamlout::document("Refined main hypothesis.", &refinement),
        )?;
        let mut missing = check.missing;
        missing.extend(
            keys(
                &refinement,
                &["main_hypothesis", "predictions", "falsification"],
            )
            .missing,
        );
        let mut produced = Produced::new("03_refinement.yaml", Check { missing });
        if let Some(m) = refinement.get("main_hypothesis").filter(|m| m.is_object()) {
            let predictions = predictions(&refinement);
            produced.commit = main_hypothesis(ctx, m, &predictions)?;
        }
        Ok(produced)
    }
}

/// The refinement's predictions, numbered P1, P2… in its order (the ids Verification
/// Planning links sub-hypotheses to and Evidence Check judges); blank ones are left out.
pub fn predictions(refinement: &Value) -> Vec<(String, String)> {
    refinement
        .get("predictions")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .enumerate()
                .map(|(i, p)| (format!("P{}", i + 1), p.to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// The refined main hypothesis, to be written with the stage's completion.
fn main_hypothesis(
    ctx: &StageCtx<'_>,
    m: &Value,
    predictions: &[(String, String)],
) -> Result<Mutation, StageError> {
    let statement = str_field(m, "statement").unwrap_or("");
    let failed = crate::engine::reroute::failed_statements(ctx);
    let refs: Vec<&str> = failed.iter().map(String::as_str).collect();
    if let Some((i, score)) =
        crate::reflect::distinct::too_similar(statement, &refs, crate::reflect::distinct::THRESHOLD)
    {
        return Err(StageError::Output(format!(
            "the refined hypothesis is too close (similarity {score:.2} ≥ {}) to one that already failed: \"{}\"; propose a substantively different hypothesis",
            crate::reflect::distinct::THRESHOLD,
            refs[i]
        )));
    }
    let field = |k: &str| str_field(m, k).map_or(NewNode::Scalar("null".into()), yamlout::text);
    let value = NewNode::Map(vec![
        ("id".into(), field("id")),
        ("title".into(), field("title")),
        ("statement".into(), field("statement")),
        ("defined_in".into(), yamlout::text("03_refinement.yaml")),
        (
            "predictions".into(),
            NewNode::Seq(
                predictions
                    .iter()
                    .map(|(id, p)| {
                        NewNode::Map(vec![
                            ("id".into(), NewNode::Scalar(id.clone())),
                            ("statement".into(), yamlout::text(p)),
                        ])
                    })
                    .collect(),
            ),
        ),
    ]);
    let change = Change::Put {
        path: "main_hypothesis".into(),
        value,
    };
    Ok(Mutation::new(
        change,
        "main_hypothesis",
        "engine",
        "Hypothesis Debate refined the main hypothesis",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn convergence_needs_the_minimum_and_stops_at_the_maximum() {
        // (exchanges, min, max, converged, stops): YouRA's default bounds are 6 and 20.
        let table = [
            (3, 6, 20, true, false),
            (6, 6, 20, true, true),
            (6, 6, 20, false, false),
            (19, 6, 20, false, false),
            (20, 6, 20, false, true),
            (0, 0, 20, true, true),
        ];
        for (n, min, max, converged, stops) in table {
            assert_eq!(stop_now(n, min, max, converged), stops, "{n} {min} {max}");
        }
    }

    #[test]
    fn predictions_are_numbered_in_the_refinements_order() {
        let r = json!({"predictions": ["accuracy >= 0.92", " ", "gain <= 0.02"]});
        assert_eq!(
            predictions(&r),
            vec![
                ("P1".to_string(), "accuracy >= 0.92".to_string()),
                ("P2".to_string(), "gain <= 0.02".to_string())
            ]
        );
        assert!(predictions(&json!({})).is_empty());
    }

    #[test]
    fn moderation_reads_criteria_and_falls_back_to_an_unspoken_persona() {
        let v = json!({"criteria": {"SPECIFIC": true, "MECHANISM": true, "PREDICTIONS": "yes"}, "next_persona": "the chair"});
        let m = parse_moderation(&v, &["novelty".into()]);
        assert_eq!(m.met, vec!["SPECIFIC", "MECHANISM"]);
        assert_eq!(m.next, "falsifiability");
        assert!(!m.converged());
        let all: serde_json::Map<String, Value> = CRITERIA
            .iter()
            .map(|c| (c.to_string(), json!(true)))
            .collect();
        let m = parse_moderation(
            &json!({"criteria": all, "next_persona": "Stress-Testing"}),
            &[],
        );
        assert!(m.converged());
        assert_eq!(m.next, "stress_testing");
    }
}
