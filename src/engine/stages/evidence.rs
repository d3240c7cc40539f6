//! Evidence Check (Phase 4.5): the prediction–result matrix computed by rule from the gates
//! and measured metrics, the ground-truth registry built from measured results only, and
//! the model's account of mechanism claims and assumptions around them.

use super::{Produced, StageRunner};
use crate::engine::check::sections;
use crate::engine::ctx::{StageCtx, Vars};
use crate::engine::error::StageError;
use crate::report::registry_yaml::{REGISTRY_FILE, to_yaml};
use crate::vsa::enums::{GateResult, HypothesisStatus as S};
use crate::vsa::model::Vsa;

pub const ARTIFACT: &str = "045_validated_hypothesis.md";

pub struct EvidenceCheck;

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub hypothesis: String,
    pub prediction: String,
    pub gate: String,
    pub result: String,
    pub verdict: &'static str,
}

/// Supported (gate PASS), partially supported (PARTIAL), refuted (FAIL on measured
/// metrics), inconclusive (no gate result: not run, skipped, blocked, or failed before
/// anything was measured).
pub fn verdict(status: &S, result: Option<&GateResult>) -> &'static str {
    match (status, result) {
        (_, Some(GateResult::Pass)) => "supported",
        (_, Some(GateResult::Partial)) => "partially_supported",
        (S::Failed, Some(GateResult::Fail)) => "refuted",
        _ => "inconclusive",
    }
}

pub fn matrix(vsa: &Vsa) -> Vec<Row> {
    vsa.sub_hypotheses
        .iter()
        .map(|h| {
            let result = h.gate.result.as_ref().map(|r| r.as_str().to_string());
            let measured = h
                .gate
                .failed_checks
                .iter()
                .filter_map(|c| {
                    Some(format!(
                        "{} = {}",
                        c.criterion.as_deref()?,
                        c.actual.as_deref()?
                    ))
                })
                .collect::<Vec<_>>()
                .join("; ");
            Row {
                hypothesis: h.id.clone(),
                prediction: h.statement.clone().unwrap_or_default(),
                gate: h
                    .gate
                    .gate_type
                    .as_ref()
                    .map_or("?".into(), |g| g.as_str().to_string()),
                result: match (&result, measured.is_empty()) {
                    (Some(r), true) => r.clone(),
                    (Some(r), false) => format!("{r} ({measured})"),
                    (None, _) => "not evaluated".into(),
                },
                verdict: verdict(&h.status, h.gate.result.as_ref()),
            }
        })
        .collect()
}

pub fn matrix_markdown(rows: &[Row]) -> String {
    let mut out = vec![
        "| Sub-hypothesis | Prediction | Gate | Result | Verdict |".to_string(),
        "|---|---|---|---|---|".into(),
    ];
    for r in rows {
        out.push(format!(
            "| {} | {} | {} | {} | {} |",
            r.hypothesis,
            r.prediction.replace('|', "/"),
            r.gate,
            r.result.replace('|', "/"),
            r.verdict
        ));
    }
    out.join("\n")
}

impl StageRunner for EvidenceCheck {
    fn run(&self, ctx: &StageCtx<'_>, _: Option<&str>) -> Result<Produced, StageError> {
        let snap = ctx.vsa()?;
        let rows = matrix(&snap.vsa);
        let table = matrix_markdown(&rows);
        let registry = crate::report::registry_build::build(ctx.run).map_err(|e| {
            StageError::Output(format!("the ground-truth registry cannot be built: {e}"))
        })?;
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        ctx.write(REGISTRY_FILE, &to_yaml(&registry, &now))?;
        let main = snap.vsa.main_statement();
        let vars: Vars = [("main_hypothesis", main), ("matrix", table.clone())]
            .into_iter()
            .collect();
        let reply = ctx.ask_sections(
            "executor",
            "system/executor",
            "evidence_check",
            &vars,
            &["Mechanism Claims", "Assumptions"],
        )?;
        let body = format!(
            "# Validated Hypothesis (Evidence Check)\n\n## Prediction–Result Matrix\n\n{table}\n\n{}\n",
            reply.trim()
        );
        ctx.write(ARTIFACT, &body)?;
        Ok(Produced::new(
            ARTIFACT,
            sections(
                &body,
                &[
                    "Prediction–Result Matrix",
                    "Mechanism Claims",
                    "Assumptions",
                ],
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_follow_the_gate() {
        assert_eq!(verdict(&S::Validated, Some(&GateResult::Pass)), "supported");
        assert_eq!(
            verdict(&S::Partial, Some(&GateResult::Partial)),
            "partially_supported"
        );
        assert_eq!(verdict(&S::Failed, Some(&GateResult::Fail)), "refuted");
        assert_eq!(verdict(&S::Failed, None), "inconclusive");
        assert_eq!(verdict(&S::Skipped, None), "inconclusive");
        assert_eq!(
            verdict(&S::Blocked, Some(&GateResult::Fail)),
            "inconclusive"
        );
    }
}
