//! Verification Planning (Phase 2B): 3–7 sub-hypotheses as a DAG with MUST_WORK /
//! SHOULD_WORK gates. The plan is checked by rule before it reaches the VSA; the store's
//! invariants (must-work gate, prerequisites first, no cycle) check it again on write.

use crate::llm::ReplySchema;
use crate::llm::schema as js;
use crate::vsa::enums::{HypothesisStatus, PhaseStatus};
use serde_json::Value;

use super::{Produced, StageRunner};
use crate::engine::check::Check;
use crate::engine::ctx::{StageCtx, Vars};
use crate::engine::error::StageError;
use crate::engine::reply::str_field;
use crate::engine::yamlout::text;
use crate::vsa::mutation::{Change, Mutation};
use crate::yaml::NewNode;

pub(crate) const ARTIFACT: &str = "02b_verification_plan.md";

pub struct VerificationPlanning;

#[derive(Debug, Clone, PartialEq)]
pub struct Planned {
    pub id: String,
    pub kind: String,
    pub statement: String,
    pub gate: String,
    pub criterion: String,
    pub prerequisites: Vec<String>,
    /// The main hypothesis's predictions (P1…) this sub-hypothesis tests; Evidence Check
    /// judges each prediction on the gates of the sub-hypotheses linked here, before any
    /// result is known.
    pub predictions: Vec<String>,
}

/// The verification plan: 3 to 7 sub-hypotheses, each typed and gated, with their
/// prerequisites; the rules between them (ids, order, MUST_WORK first) are [`validate`]'s.
pub fn schema() -> ReplySchema {
    let gate = js::object_with(
        &[
            ("type", js::one_of(&["MUST_WORK", "SHOULD_WORK"])),
            ("criterion", js::text()),
        ],
        &[],
    );
    let item = js::object_with(
        &[
            ("id", js::text()),
            (
                "type",
                js::one_of(&["EXISTENCE", "MECHANISM", "CONDITION", "COMPARISON"]),
            ),
            ("statement", js::text()),
            ("gate", gate),
            ("prerequisites", js::array(js::string(), 0, None)),
        ],
        &[("predictions", js::array(js::string(), 0, None))],
    );
    ReplySchema::new(
        "verification_plan",
        js::object_with(
            &[("sub_hypotheses", js::array(item, 3, Some(7)))],
            &[("rationale", js::string())],
        ),
    )
}

/// Check the model's plan by rule; every problem is listed so one resume can fix them all.
pub fn validate(v: &Value) -> Result<Vec<Planned>, Vec<String>> {
    let Some(items) = v.get("sub_hypotheses").and_then(Value::as_array) else {
        return Err(vec!["no \"sub_hypotheses\" list".into()]);
    };
    let mut problems = Vec::new();
    if !(3..=7).contains(&items.len()) {
        problems.push(format!(
            "{} sub-hypotheses; the plan needs 3 to 7",
            items.len()
        ));
    }
    let mut out: Vec<Planned> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let id = str_field(item, "id").unwrap_or("").to_ascii_lowercase();
        let ok_id = id.starts_with("h-")
            && id.len() > 2
            && id[2..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-');
        if !ok_id {
            problems.push(format!(
                "item {}: id {id:?} is not of the form h-e1 / h-m2",
                i + 1
            ));
        } else if out.iter().any(|p| p.id == id) {
            problems.push(format!("{id}: duplicate id"));
        }
        let kind = str_field(item, "type").unwrap_or("").to_ascii_uppercase();
        if !["EXISTENCE", "MECHANISM", "CONDITION", "COMPARISON"].contains(&kind.as_str()) {
            problems.push(format!(
                "{id}: type {kind:?} is not EXISTENCE, MECHANISM, CONDITION or COMPARISON"
            ));
        }
        let gate = item.get("gate").unwrap_or(&Value::Null);
        let gate_type = str_field(gate, "type").unwrap_or("").to_ascii_uppercase();
        if !["MUST_WORK", "SHOULD_WORK"].contains(&gate_type.as_str()) {
            problems.push(format!(
                "{id}: gate type {gate_type:?} is not MUST_WORK or SHOULD_WORK"
            ));
        }
        let prerequisites: Vec<String> = item
            .get("prerequisites")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_ascii_lowercase)
                    .collect()
            })
            .unwrap_or_default();
        for p in &prerequisites {
            if !out.iter().any(|o| &o.id == p) {
                problems.push(format!(
                    "{id}: prerequisite {p} is not an earlier sub-hypothesis"
                ));
            }
        }
        let statement = str_field(item, "statement").unwrap_or("").to_string();
        if statement.is_empty() {
            problems.push(format!("{id}: no statement"));
        }
        let criterion = str_field(gate, "criterion").unwrap_or("").to_string();
        let predictions = item
            .get("predictions")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(|p| p.trim().to_ascii_uppercase())
                    .collect()
            })
            .unwrap_or_default();
        out.push(Planned {
            predictions,
            id,
            kind,
            statement,
            gate: gate_type,
            criterion,
            prerequisites,
        });
    }
    if let Some(first) = out.first()
        && (first.gate != "MUST_WORK" || !first.prerequisites.is_empty())
    {
        problems.push(format!(
            "{}: the first sub-hypothesis must be MUST_WORK with no prerequisites",
            first.id
        ));
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

fn status(s: PhaseStatus) -> NewNode {
    NewNode::Map(vec![("status".into(), NewNode::Scalar(s.as_str().into()))])
}

/// Links to predictions the main hypothesis does not have (every one named, so one resume
/// fixes them all); a prediction no sub-hypothesis tests is left to Evidence Check, which
/// can then only call it inconclusive.
pub(crate) fn unknown_links(plan: &[Planned], known: &[String]) -> Vec<String> {
    plan.iter()
        .flat_map(|p| {
            p.predictions
                .iter()
                .filter(|id| !known.contains(id))
                .map(move |id| {
                    format!(
                        "{}: prediction {id} is not one of the main hypothesis's ({})",
                        p.id,
                        if known.is_empty() {
                            "it has none".to_string()
                        } else {
                            known.join(", ")
                        }
                    )
                })
        })
        .collect()
}

/// The `sub_hypotheses` map in YouRA's shape (the fixtures' v3.5 runs).
/// The plan as `sub_hypotheses`; a plan made after `pivots` redesigns or resets marks each
/// claim post hoc (`post_hoc.rs`).
pub(crate) fn vsa_node(plan: &[Planned], pivots: u32) -> NewNode {
    NewNode::Map(
        plan.iter()
            .map(|p| {
                let ready = if p.prerequisites.is_empty() {
                    HypothesisStatus::Ready
                } else {
                    HypothesisStatus::NotStarted
                };
                let gate = NewNode::Map(vec![
                    ("type".into(), NewNode::Scalar(p.gate.clone())),
                    ("satisfied".into(), NewNode::Scalar("null".into())),
                    ("result".into(), NewNode::Scalar("null".into())),
                    ("criterion".into(), text(&p.criterion)),
                ]);
                let prereq = NewNode::Seq(
                    p.prerequisites
                        .iter()
                        .map(|x| NewNode::Scalar(x.clone()))
                        .collect(),
                );
                let mut fields = vec![
                    ("type".into(), NewNode::Scalar(p.kind.clone())),
                    ("statement".into(), text(&p.statement)),
                    ("status".into(), NewNode::Scalar(ready.as_str().into())),
                    ("gate".into(), gate),
                    ("prerequisites".into(), prereq),
                    ("experiment_design".into(), status(PhaseStatus::NotStarted)),
                    (
                        "implementation_planning".into(),
                        status(PhaseStatus::NotStarted),
                    ),
                    ("validation".into(), status(PhaseStatus::NotStarted)),
                    ("version".into(), NewNode::Scalar("1".into())),
                ];
                fields.extend(super::post_hoc::fields(pivots));
                if !p.predictions.is_empty() {
                    let links = p.predictions.iter().map(|x| NewNode::Scalar(x.clone()));
                    fields.push(("predictions".into(), NewNode::Seq(links.collect())));
                }
                (p.id.clone(), NewNode::Map(fields))
            })
            .collect(),
    )
}

fn markdown(plan: &[Planned], rationale: &str) -> String {
    let mut out = vec![
        "# Verification Plan\n".to_string(),
        format!("{rationale}\n"),
        "| id | type | gate | prerequisites | tests | statement |".into(),
        "|---|---|---|---|---|---|".into(),
    ];
    for p in plan {
        let pre = if p.prerequisites.is_empty() {
            "-".to_string()
        } else {
            p.prerequisites.join(", ")
        };
        let tests = if p.predictions.is_empty() {
            "-".to_string()
        } else {
            p.predictions.join(", ")
        };
        out.push(format!(
            "| {} | {} | {} | {pre} | {tests} | {} |",
            p.id,
            p.kind,
            p.gate,
            p.statement.replace('|', "/")
        ));
    }
    out.push("\n## Gate Criteria\n".into());
    out.extend(
        plan.iter()
            .map(|p| format!("- **{}** ({}): {}", p.id, p.gate, p.criterion)),
    );
    out.join("\n") + "\n"
}

impl StageRunner for VerificationPlanning {
    fn run(&self, ctx: &StageCtx<'_>, _: Option<&str>) -> Result<Produced, StageError> {
        let snap = ctx.vsa()?;
        let main = Some(snap.vsa.main_statement())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "(not stated)".into());
        let predictions = super::evidence_rule::read(snap.doc.root.as_ref(), &[]);
        let known: Vec<String> = predictions
            .iter()
            .map(|p| p.id.to_ascii_uppercase())
            .collect();
        let vars: Vars = [
            ("main_hypothesis", main),
            (
                "predictions",
                if predictions.is_empty() {
                    "(none recorded)".into()
                } else {
                    predictions
                        .iter()
                        .map(|p| format!("- {}: {}", p.id, p.statement))
                        .collect::<Vec<_>>()
                        .join("\n")
                },
            ),
            (
                "refinement",
                ctx.read("03_refinement.yaml").unwrap_or_default(),
            ),
            ("resume", ctx.resume_text()),
        ]
        .into_iter()
        .collect();
        let v = ctx.ask_json(
            "executor",
            "system/executor",
            "verification_planning",
            &vars,
            &schema(),
        )?;
        let plan = validate(&v).and_then(|plan| {
            let unknown = unknown_links(&plan, &known);
            if unknown.is_empty() {
                Ok(plan)
            } else {
                Err(unknown)
            }
        });
        let plan = plan.map_err(|p| {
            StageError::Output(format!(
                "the verification plan breaks these rules: {}",
                p.join("; ")
            ))
        })?;
        let rationale = str_field(&v, "rationale").unwrap_or("").to_string();
        ctx.write(ARTIFACT, &markdown(&plan, &rationale))?;
        let change = Change::Put {
            path: "sub_hypotheses".into(),
            value: vsa_node(&plan, crate::engine::reroute::pivots(&snap)),
        };
        let reason = format!("Verification Planning: {} sub-hypotheses", plan.len());
        // Written with the stage's completion: a plan the controller sends back is never
        // half-recorded.
        let mut produced = Produced::new(
            ARTIFACT,
            Check {
                missing: Vec::new(),
            },
        );
        produced.commit = Mutation::new(change, "verification_plan", "engine", &reason);
        Ok(produced)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn item(id: &str, kind: &str, gate: &str, pre: &[&str]) -> Value {
        json!({"id": id, "type": kind, "statement": "s", "gate": {"type": gate, "criterion": "c"}, "prerequisites": pre})
    }

    #[test]
    fn a_good_plan_passes() {
        let v = json!({"sub_hypotheses": [item("h-e1", "EXISTENCE", "MUST_WORK", &[]), item("h-m1", "MECHANISM", "MUST_WORK", &["h-e1"]), item("h-c1", "CONDITION", "SHOULD_WORK", &["h-m1"])]});
        let p = validate(&v).unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(p[2].prerequisites, vec!["h-m1"]);
    }

    #[test]
    fn links_to_predictions_must_name_the_main_hypothesis_s() {
        let mut e1 = item("h-e1", "EXISTENCE", "MUST_WORK", &[]);
        e1["predictions"] = json!(["p1", "P2"]);
        let mut m1 = item("h-m1", "MECHANISM", "MUST_WORK", &["h-e1"]);
        m1["predictions"] = json!(["P7"]);
        let c1 = item("h-c1", "CONDITION", "SHOULD_WORK", &["h-e1"]);
        let plan = validate(&json!({"sub_hypotheses": [e1, m1, c1]})).unwrap();
        assert_eq!(plan[0].predictions, vec!["P1", "P2"]);
        assert!(plan[2].predictions.is_empty());
        let known = vec!["P1".to_string(), "P2".to_string()];
        assert_eq!(
            unknown_links(&plan, &known),
            vec!["h-m1: prediction P7 is not one of the main hypothesis's (P1, P2)"]
        );
        assert!(unknown_links(&plan[..1], &known).is_empty());
        assert!(unknown_links(&plan[..1], &[])[0].contains("it has none"));
    }

    #[test]
    fn every_broken_rule_is_listed() {
        let v = json!({"sub_hypotheses": [item("h-e1", "EXISTENCE", "SHOULD_WORK", &[]), item("x1", "GUESS", "MAYBE", &["h-z9"])]});
        let e = validate(&v).unwrap_err().join("\n");
        for needle in [
            "2 sub-hypotheses",
            "\"x1\"",
            "GUESS",
            "MAYBE",
            "h-z9",
            "must be MUST_WORK",
        ] {
            assert!(e.contains(needle), "{needle} not in {e}");
        }
        let eight: Vec<Value> = (1..=8)
            .map(|i| item(&format!("h-e{i}"), "EXISTENCE", "MUST_WORK", &[]))
            .collect();
        assert!(
            validate(&json!({"sub_hypotheses": eight})).unwrap_err()[0]
                .contains("8 sub-hypotheses")
        );
    }
}
