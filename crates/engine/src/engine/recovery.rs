//! Recovery after a MUST_WORK gate fails on measured metrics (SAGE × YouRA §3.4): the
//! trajectory's features, K candidate causes from the generator, severities from the critic
//! (another context), h* = argmax s, the judge's verdict for the clamp, then the fixed
//! routing table. Model calls happen here; every rule is in `crate::reflect`.

use serde_json::{Value, json};

use super::criteria::{Criterion, Op};
use super::ctx::{StageCtx, Vars};
use super::error::StageError;
use super::gates::GateOutcome;
use super::reply::str_field;
use crate::reflect::attribution::{Attribution, apply_critique, best, candidates_from_value};
use crate::reflect::routing::{Decision, RoutingAction, Verdict, route};
use crate::reflect::trajectory::{Trajectory, analyse};
use crate::vsa::enums::GateType;

/// What recovery proposes for one failure, with everything the escalation card shows.
#[derive(Debug, Clone)]
pub struct Proposal {
    pub hypothesis: String,
    pub metric: String,
    /// `decay=… slope=… …`, or why there is no trajectory.
    pub trajectory: String,
    pub features: Option<crate::reflect::trajectory::Features>,
    /// Ranked by severity, h* first.
    pub attributions: Vec<Attribution>,
    pub proposed: RoutingAction,
    pub action: RoutingAction,
    pub clamp: Option<(Verdict, f64)>,
    pub clamp_reason: Option<String>,
    pub failed_checks: String,
    /// The rules say stop (the pivot budget is spent): the reason, and `action` is moot.
    pub stop: Option<String>,
    /// The table records a limitation (a SHOULD_WORK gate with no improvement path left):
    /// `action` is moot.
    pub limitation: bool,
    pub gate_type: GateType,
}

/// What recovery works from, read from the run directory at the moment it runs (the same
/// whether recovery follows the gate directly or resumes after a crash): the criteria and
/// the gate's judgement from the VSA, the metric records and the log from `results/`.
pub struct Failure {
    pub hypothesis: String,
    pub criteria: Vec<Criterion>,
    pub gate: GateOutcome,
    pub metrics: Vec<crate::exec::MetricRecord>,
    pub log: std::path::PathBuf,
    /// SHOULD_WORK: a retry from Experiment Design is still allowed (`[recovery]
    /// should_work_retries` against the design step's round).
    pub improvement_path: bool,
}

impl Failure {
    pub fn load(ctx: &StageCtx<'_>, id: &str) -> Result<Failure, StageError> {
        use super::gates::{FailedCheck, Verdict as GateVerdict};
        use crate::vsa::enums::GateResult;
        let snap = ctx.vsa()?;
        let brief = ctx
            .read(&format!("{id}/02c_experiment_brief.md"))
            .unwrap_or_default();
        let criteria = super::criteria::current(&snap, id, &brief)
            .map(|c| c.list)
            .unwrap_or_default();
        let h = snap
            .vsa
            .hypothesis(id)
            .ok_or_else(|| StageError::MustStop(format!("{id} is not in the VSA any more")))?;
        let verdict = match h.gate.result {
            Some(GateResult::Pass) => GateVerdict::Pass,
            Some(GateResult::Partial) => GateVerdict::Partial,
            _ => GateVerdict::Fail,
        };
        let failed_checks = h
            .gate
            .failed_checks
            .iter()
            .map(|c| FailedCheck {
                criterion: c.criterion.clone().unwrap_or_default(),
                required: c.required.clone().unwrap_or_default(),
                actual: c.actual.clone().unwrap_or_default(),
                reason: c
                    .reason
                    .clone()
                    .or_else(|| c.text.clone())
                    .unwrap_or_default(),
            })
            .collect();
        let measured = snap
            .doc
            .root
            .as_ref()
            .and_then(|r| {
                r.get("sub_hypotheses")?
                    .get(id)?
                    .get("gate")?
                    .get("measured")?
                    .as_map()
            })
            .unwrap_or_default()
            .iter()
            .filter_map(|(k, v)| Some((k.as_str()?.to_string(), v.as_scalar()?.as_f64()?)))
            .collect();
        let results = ctx.run.join(id).join("results");
        let improvement_path = improvement_path(&snap.doc, id, ctx.recovery);
        Ok(Failure {
            improvement_path,
            hypothesis: id.to_string(),
            criteria,
            gate: GateOutcome::recorded(verdict, failed_checks, measured),
            // Through the measurements' gateway: what youra collected, capped and bounded.
            metrics: crate::exec::collected::read(ctx.run, id, crate::exec::METRICS_FILE)
                .map(|m| crate::exec::collected::metric_records(&m).0)
                .unwrap_or_default(),
            log: results.join("run.log"),
        })
    }

    /// The values of `metric` over the run, in the order logged.
    pub fn series(&self, metric: &str) -> Vec<f64> {
        self.metrics
            .iter()
            .filter_map(|r| r.values.get(metric).copied())
            .collect()
    }
}

/// A same-hypothesis improvement path remains while Experiment Design has been redone for
/// `id` fewer than `should_work_retries` times (its round counts the redos).
pub fn improvement_path(
    doc: &crate::yaml::Document,
    id: &str,
    t: &crate::reflect::routing::Thresholds,
) -> bool {
    let step = super::progress::Step::Hypothesis(crate::stage::Stage::ExperimentDesign, id.into());
    super::progress::round(doc, &step) < t.should_work_retries
}

pub(crate) fn failed_text(gate: &GateOutcome) -> String {
    gate.failed_checks
        .iter()
        .map(|c| {
            format!(
                "{}: required {}, actual {} ({})",
                c.criterion, c.required, c.actual, c.reason
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Run the attribution pipeline and the routing rules. `Err(MustStop)` when a role's reply
/// stays unusable or the pivot budget is spent.
pub fn propose(
    ctx: &StageCtx<'_>,
    f: &Failure,
    pivots: u32,
    thresholds: &crate::reflect::routing::Thresholds,
) -> Result<Proposal, StageError> {
    let (id, criteria, gate) = (f.hypothesis.as_str(), &f.criteria, &f.gate);
    let failed = gate
        .failed_checks
        .first()
        .map(|c| c.criterion.clone())
        .unwrap_or_default();
    let higher = criteria
        .iter()
        .find(|c| c.metric == failed)
        .is_none_or(|c| matches!(c.op, Op::Ge | Op::Gt | Op::Eq));
    let (trajectory, features) = match analyse(&f.series(&failed), higher) {
        Trajectory::Features(f) => (f.describe(), Some(f)),
        Trajectory::Insufficient { points } => (
            format!("insufficient ({points} point(s) of `{failed}` logged)"),
            None,
        ),
    };
    let snap = ctx.vsa()?;
    let h = snap.vsa.hypothesis(id);
    let statement = h.and_then(|h| h.statement.clone()).unwrap_or_default();
    let gate_type = h
        .and_then(|h| h.gate.gate_type.clone())
        .unwrap_or(GateType::MustWork);
    let failed_checks = failed_text(gate);
    let mut vars: Vars = [
        ("hypothesis", id.to_string()),
        ("statement", statement.clone()),
        ("gate_type", gate_type.as_str().to_string()),
        ("failed_checks", failed_checks.clone()),
        ("metric", failed.clone()),
        ("trajectory", trajectory.clone()),
        (
            "brief",
            ctx.read(&format!("{id}/02c_experiment_brief.md"))
                .unwrap_or_default(),
        ),
        ("log_tail", crate::exec::tail_lines(&f.log, 15).join("\n")),
        ("retry", String::new()),
    ]
    .into_iter()
    .collect();
    let generated = ctx.ask_json(
        "generator",
        "system/executor",
        "attribution_generate",
        &vars,
        &crate::reflect::attribution::generator_schema(),
    )?;
    // A reply the schema admits may still be unusable (K outside [3, 5], evidence that cites
    // no observation): asked again once, naming what was wrong, before the run stops.
    let candidates = match candidates_from_value(&generated) {
        Ok(c) => c,
        Err(first) => {
            let mut again = vars.clone();
            again.insert(
                "retry",
                format!("Your previous answer was unusable: {first}. Answer again, fixing that."),
            );
            let retried = ctx.ask_json(
                "generator",
                "system/executor",
                "attribution_generate",
                &again,
                &crate::reflect::attribution::generator_schema(),
            )?;
            candidates_from_value(&retried).map_err(|e| {
                StageError::MustStop(format!(
                    "{id}: the generator's attributions are unusable, twice: {first}; then {e}"
                ))
            })?
        }
    };
    vars.insert("candidates", numbered(&candidates));
    let scored = ctx.ask_json(
        "critic",
        "system/executor",
        "attribution_critique",
        &vars,
        &crate::reflect::attribution::critic_schema(),
    )?;
    let critique = apply_critique(&candidates, &scored.to_string()).map_err(|e| {
        StageError::MustStop(format!("{id}: the critic's scores are unusable: {e}"))
    })?;
    let top = best(&critique.attributions)
        .cloned()
        .ok_or_else(|| StageError::MustStop(format!("{id}: no attribution to route on")))?;
    let severity = top.severity.unwrap_or(0.0);
    // The judge sees the evidence and every candidate unranked, not the critic's pick and its
    // severity: an independent verdict, not a second opinion on the first.
    let judge = ctx
        .ask_json(
            "judge",
            "system/executor",
            "verdict_clamp",
            &vars,
            &verdict_schema(),
        )
        .ok()
        .and_then(|v| parse_verdict(&v));
    let ranked: Vec<Attribution> = crate::reflect::attribution::ranked(&critique.attributions)
        .into_iter()
        .cloned()
        .collect();
    let decision = if gate_type == GateType::ShouldWork {
        crate::reflect::routing::route_should_work(f.improvement_path)
    } else {
        route(
            &gate_type,
            top.category,
            severity,
            judge,
            pivots,
            thresholds,
        )
    };
    let mut limitation = false;
    let (action, proposed, clamp_reason, stop) = match decision {
        Decision::Act {
            action,
            proposed,
            clamp_reason,
        } => (action, proposed, clamp_reason, None),
        Decision::MustStop(stop) => (
            RoutingAction::Proceed,
            RoutingAction::Proceed,
            None,
            Some(format!("{id}: {}", stop.reason)),
        ),
        Decision::RecordLimitation => {
            limitation = true;
            (RoutingAction::Proceed, RoutingAction::Proceed, None, None)
        }
    };
    Ok(Proposal {
        hypothesis: id.into(),
        metric: failed,
        trajectory,
        features,
        attributions: ranked,
        proposed,
        action,
        clamp: judge,
        clamp_reason,
        failed_checks,
        stop,
        limitation,
        gate_type,
    })
}

fn numbered(c: &[Attribution]) -> String {
    c.iter()
        .enumerate()
        .map(|(i, a)| {
            format!(
                "{}. [{}] {} — evidence: {} — fix: {}",
                i + 1,
                a.category.as_str(),
                a.description,
                a.evidence,
                a.fix
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The clamp judge's reply: valid or not, and its confidence κ in [0, 1].
pub(crate) fn verdict_schema() -> crate::llm::ReplySchema {
    use crate::llm::schema as js;
    crate::llm::ReplySchema::new(
        "clamp_verdict",
        js::object_with(
            &[
                ("verdict", js::one_of(&["valid", "not_valid"])),
                ("kappa", js::number(0.0, 1.0)),
            ],
            &[("reason", js::string())],
        ),
    )
}

/// The judge's reply; an unreadable one means no clamp (the action stands as π gave it).
pub(crate) fn parse_verdict(v: &Value) -> Option<(Verdict, f64)> {
    let verdict = match str_field(v, "verdict")?
        .to_ascii_lowercase()
        .replace(['_', '-', ' '], "")
        .as_str()
    {
        "valid" => Verdict::Valid,
        "notvalid" | "invalid" => Verdict::NotValid,
        _ => return None,
    };
    Some((verdict, v.get("kappa").and_then(Value::as_f64)?))
}

impl Proposal {
    /// The escalation as `workflow.pending_escalation` holds it (the TUI's card reads this).
    pub fn escalation(&self, id: &str, now: &str) -> Value {
        let f = self.features.as_ref();
        json!({
            "id": id,
            "raised_at": now,
            "hypothesis": self.hypothesis,
            "proposed_action": self.action.as_str(),
            "routed_action": self.proposed.as_str(),
            "clamp_verdict": self.clamp.map(|(v, _)| if v == Verdict::Valid { "valid" } else { "not_valid" }),
            "clamp_kappa": self.clamp.map(|(_, k)| k),
            "clamp_reason": self.clamp_reason,
            "failed_checks": self.failed_checks,
            "trajectory": {
                "metric": self.metric,
                "decay": f.map(|f| round(f.decay)),
                "slope": f.map(|f| round(f.slope)),
                "volatility": f.map(|f| round(f.volatility)),
                "signature": f.map_or("insufficient", |f| f.signature.as_str()),
            },
            "attributions": self.attributions.iter().map(|a| json!({
                "category": a.category.as_str(),
                "severity": a.severity.map(round),
                "description": a.description,
                "evidence": a.evidence,
                "fix": a.fix,
            })).collect::<Vec<_>>(),
        })
    }
}

fn round(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_parse_or_mean_no_clamp() {
        assert_eq!(
            parse_verdict(&json!({"verdict": "Valid", "kappa": 0.7})),
            Some((Verdict::Valid, 0.7))
        );
        assert_eq!(
            parse_verdict(&json!({"verdict": "not_valid", "kappa": 0.9})),
            Some((Verdict::NotValid, 0.9))
        );
        assert_eq!(
            parse_verdict(&json!({"verdict": "maybe", "kappa": 0.9})),
            None
        );
        assert_eq!(parse_verdict(&json!({"verdict": "Valid"})), None);
    }
}
