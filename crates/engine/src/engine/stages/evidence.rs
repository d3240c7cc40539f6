//! Evidence Check (Phase 4.5): one row per prediction of the main hypothesis, each with its
//! verdict and the sub-hypotheses and measured values it rests on. The rule
//! ([`super::evidence_rule`]) says which verdicts the gates allow; the model words them (and
//! the mechanism claims and assumptions around them), and a verdict outside what the
//! evidence allows is refused before anything is written. Also writes the per-gate table
//! the verdicts are read from and the ground-truth registry, built from measured results
//! only. The verdicts go into the VSA (`main_hypothesis.predictions[*].verdict`) with the
//! stage's completion.

use serde_json::Value;

use super::evidence_rule::{self as rule, Judged, Prediction, Verdict};
use super::{Produced, StageRunner};
use crate::engine::check::sections;
use crate::engine::ctx::{StageCtx, Vars};
use crate::engine::error::StageError;
use crate::engine::reply::str_field;
use crate::engine::yamlout;
use crate::llm::ReplySchema;
use crate::llm::schema as js;
use crate::report::registry_yaml::{REGISTRY_FILE, to_yaml};
use crate::vsa::enums::{GateResult, HypothesisStatus as S};
use crate::vsa::model::Vsa;
use crate::vsa::mutation::{Change, Mutation};
use crate::yaml::NewNode;

pub(crate) const ARTIFACT: &str = "045_validated_hypothesis.md";
/// The section of [`ARTIFACT`] Manuscript Drafting's Discussion follows.
pub(crate) const PREDICTIONS_SECTION: &str = "Prediction–Result Matrix";

pub struct EvidenceCheck;

/// One sub-hypothesis's gate, the ground the verdicts stand on.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub hypothesis: String,
    pub statement: String,
    pub gate: String,
    pub result: String,
    pub verdict: &'static str,
}

/// A sub-hypothesis's own verdict: supported (gate PASS), partially supported (PARTIAL),
/// refuted (FAIL on measured metrics), inconclusive (nothing measured).
pub fn verdict(status: &S, result: Option<&GateResult>) -> &'static str {
    let verdict = match rule::Outcome::of(status, result) {
        rule::Outcome::Passed => Verdict::Supported,
        rule::Outcome::PartlyPassed => Verdict::PartiallySupported,
        rule::Outcome::Failed => Verdict::Refuted,
        rule::Outcome::NotMeasured => Verdict::Inconclusive,
    };
    verdict.as_str()
}

pub(crate) fn gate_rows(vsa: &Vsa) -> Vec<Row> {
    vsa.sub_hypotheses
        .iter()
        .map(|h| {
            let basis = rule::Basis::of(h);
            let result = h.gate.result.as_ref().map(|r| r.as_str().to_string());
            Row {
                hypothesis: h.id.clone(),
                statement: h.statement.clone().unwrap_or_default(),
                gate: h
                    .gate
                    .gate_type
                    .as_ref()
                    .map_or("?".into(), |g| g.as_str().to_string()),
                result: match (result, basis.measured.is_empty()) {
                    (Some(r), true) => r,
                    (Some(r), false) => format!("{r} ({})", basis.measured.join("; ")),
                    (None, _) => "not evaluated".into(),
                },
                verdict: verdict(&h.status, h.gate.result.as_ref()),
            }
        })
        .collect()
}

fn cell(s: &str) -> String {
    s.replace('|', "/").replace('\n', " ")
}

pub(crate) fn gates_markdown(rows: &[Row]) -> String {
    let mut out = vec![
        "| Sub-hypothesis | Statement | Gate | Result | Verdict |".to_string(),
        "|---|---|---|---|---|".into(),
    ];
    for r in rows {
        out.push(format!(
            "| {} | {} | {} | {} | {} |",
            r.hypothesis,
            cell(&r.statement),
            r.gate,
            cell(&r.result),
            r.verdict
        ));
    }
    out.join("\n")
}

/// The evidence each prediction rests on and the verdicts it allows, for the prompt.
pub(crate) fn evidence_text(predictions: &[Prediction]) -> String {
    predictions
        .iter()
        .map(|p| {
            format!(
                "- {} \"{}\": rests on {}; the evidence allows {}",
                p.id,
                p.statement,
                rule::rests_on_text(&p.rests_on),
                rule::words(&rule::allowed(&p.rests_on))
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The per-prediction table (the section Manuscript Drafting's Discussion follows).
pub(crate) fn predictions_markdown(judged: &[Judged]) -> String {
    let mut out = vec![
        "| Prediction | Statement | Rests on (measured) | Verdict | Why |".to_string(),
        "|---|---|---|---|---|".into(),
    ];
    for j in judged {
        out.push(format!(
            "| {} | {} | {} | {} | {} |",
            j.prediction.id,
            cell(&j.prediction.statement),
            cell(&rule::rests_on_text(&j.prediction.rests_on)),
            j.verdict.as_str(),
            cell(&j.explanation)
        ));
    }
    out.join("\n")
}

/// The reply: a verdict per prediction with its explanation, then the mechanism claims and
/// the assumptions as Markdown.
pub fn schema() -> ReplySchema {
    let words: Vec<&str> = Verdict::ALL.iter().map(|v| v.as_str()).collect();
    let item = js::object(&[
        ("id", js::string()),
        ("verdict", js::one_of(&words)),
        ("explanation", js::text()),
    ]);
    ReplySchema::new(
        "evidence_check",
        js::object(&[
            ("predictions", js::array(item, 1, None)),
            ("mechanism_claims", js::text()),
            ("assumptions", js::text()),
        ]),
    )
}

/// The claims (id, verdict, explanation) in the reply.
pub fn claims(v: &Value) -> Vec<(String, String, String)> {
    v.get("predictions")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|c| {
                    let f = |k| str_field(c, k).unwrap_or("").trim().to_string();
                    (f("id"), f("verdict"), f("explanation"))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The predictions: the VSA's (`main_hypothesis.predictions`), else, for a run debated
/// before they were recorded there, `03_refinement.yaml`'s.
fn predictions(ctx: &StageCtx<'_>, snap: &crate::vsa::store::Snapshot) -> Vec<Prediction> {
    let root = snap.doc.root.as_ref();
    let found = rule::read(root, &snap.vsa.sub_hypotheses);
    if !found.is_empty() {
        return found;
    }
    let refinement = ctx
        .read("03_refinement.yaml")
        .and_then(|t| yaml_value(&t))
        .unwrap_or(Value::Null);
    rule::with_links(
        &super::debate::predictions(&refinement),
        root,
        &snap.vsa.sub_hypotheses,
    )
}

/// A YAML file as JSON, through youra's own parser (no second YAML library).
fn yaml_value(text: &str) -> Option<Value> {
    let doc = crate::yaml::parse(text.as_bytes()).ok()?;
    Some(crate::yaml::json::to_json(doc.root.as_ref()?))
}

/// The verdicts, to be written with the stage's completion.
fn commit(judged: &[Judged]) -> Mutation {
    let items = judged
        .iter()
        .map(|j| {
            let rests = j
                .prediction
                .rests_on
                .iter()
                .map(|b| NewNode::Scalar(b.id.clone()))
                .collect();
            NewNode::Map(vec![
                ("id".into(), NewNode::Scalar(j.prediction.id.clone())),
                ("statement".into(), yamlout::text(&j.prediction.statement)),
                ("rests_on".into(), NewNode::Seq(rests)),
                ("verdict".into(), NewNode::Scalar(j.verdict.as_str().into())),
            ])
        })
        .collect();
    let summary = judged
        .iter()
        .map(|j| format!("{}={}", j.prediction.id, j.verdict.as_str()))
        .collect::<Vec<_>>()
        .join(", ");
    Mutation::new(
        Change::Put {
            path: "main_hypothesis.predictions".into(),
            value: NewNode::Seq(items),
        },
        "evidence_check",
        "engine",
        &format!("Evidence Check: {summary}"),
    )
}

impl StageRunner for EvidenceCheck {
    fn run(&self, ctx: &StageCtx<'_>, _: Option<&str>) -> Result<Produced, StageError> {
        let snap = ctx.vsa()?;
        let predictions = predictions(ctx, &snap);
        if predictions.is_empty() {
            return Err(StageError::MustStop(
                "the main hypothesis has no predictions (main_hypothesis.predictions, 03_refinement.yaml): Evidence Check judges each prediction; re-run Hypothesis Debate or add them to the VSA".into(),
            ));
        }
        let gates = gates_markdown(&gate_rows(&snap.vsa));
        let registry = crate::report::registry_build::build(ctx.run).map_err(|e| {
            StageError::Output(format!("the ground-truth registry cannot be built: {e}"))
        })?;
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        ctx.write(REGISTRY_FILE, &to_yaml(&registry, &now))?;
        let vars: Vars = [
            ("main_hypothesis", snap.vsa.main_statement()),
            ("predictions", evidence_text(&predictions)),
            ("gates", gates.clone()),
            ("resume", ctx.resume_text()),
        ]
        .into_iter()
        .collect();
        let reply = ctx.ask_json(
            "executor",
            "system/executor",
            "evidence_check",
            &vars,
            &schema(),
        )?;
        // Fail closed: a verdict the gates do not allow never reaches the artifact or the VSA.
        let judged = rule::bind(&predictions, &claims(&reply)).map_err(|p| {
            StageError::Output(format!(
                "evidence_check: these verdicts are not what the evidence allows: {}",
                p.join("; ")
            ))
        })?;
        let text = |k| str_field(&reply, k).unwrap_or("").trim().to_string();
        let body = format!(
            "# Validated Hypothesis (Evidence Check)\n\n## {PREDICTIONS_SECTION}\n\n{}\n\n## Sub-Hypothesis Gates\n\n{gates}\n\n## Mechanism Claims\n\n{}\n\n## Assumptions\n\n{}\n",
            predictions_markdown(&judged),
            text("mechanism_claims"),
            text("assumptions"),
        );
        ctx.write(ARTIFACT, &body)?;
        let mut produced = Produced::new(
            ARTIFACT,
            sections(
                &body,
                &[PREDICTIONS_SECTION, "Mechanism Claims", "Assumptions"],
            ),
        );
        produced.commit = commit(&judged);
        Ok(produced)
    }
}

/// The per-prediction verdicts of a written Evidence Check, as Discussion bullets
/// (`- **P1** (statement): supported; rests on h-e1 (...)`), read back from its table; empty
/// when there is none.
pub(crate) fn discussion_points(evidence: &str) -> Vec<String> {
    let Some(table) = crate::engine::check::section_body(evidence, PREDICTIONS_SECTION) else {
        return Vec::new();
    };
    table
        .lines()
        .filter_map(|l| {
            let c: Vec<&str> = l.trim_matches('|').split(" | ").map(str::trim).collect();
            // Data rows only: the id cell is P1, P2… (not the header, not the rule).
            let id = c.first()?.strip_prefix('P')?;
            let is_row = !id.is_empty() && id.chars().all(|ch| ch.is_ascii_digit());
            (is_row && c.len() >= 5).then(|| {
                format!(
                    "- **{}** ({}): {}; rests on {}. {}",
                    c[0], c[1], c[3], c[2], c[4]
                )
            })
        })
        .collect()
}

#[cfg(test)]
#[path = "evidence_rule_tests.rs"]
mod tests;
