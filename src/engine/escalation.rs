//! Escalations: a hypothesis-discarding action waits for the researcher in INTERACTIVE mode
//! (`workflow.pending_escalation`, status AWAITING_APPROVAL); UNATTENDED applies it and
//! records that it did. A decision (approve, reject, override) is read back from the VSA by
//! the engine loop and applied; a configurable policy decides when nobody does in time.

use chrono::Utc;

use super::Produced;
use super::criteria::Criterion;
use super::ctx::StageCtx;
use super::error::StageError;
use super::gates::GateOutcome;
use super::recovery::propose;
use super::reroute;
use super::yamlout::{node, now, text};
use crate::exec::JobOutcome;
use crate::reflect::attribution::Category;
use crate::reflect::memory_writer::{
    FailureInput, GateCheck, RoutingNote, render_failure, write_record,
};
use crate::reflect::routing::{RoutingAction, is_discarding, refinement_equivalent};
use crate::rundir::events::Event;
use crate::vsa::enums::ExecutionMode;
use crate::vsa::mutation::{Change, Mutation};
use crate::yaml::{Document, NewNode, Node};

fn set(ctx: &StageCtx<'_>, path: &str, value: NewNode, reason: &str) -> Result<(), StageError> {
    let change = match value {
        NewNode::Scalar(v) => Change::Set {
            path: path.into(),
            value: v,
        },
        v => Change::Put {
            path: path.into(),
            value: v,
        },
    };
    let mut m = Mutation::new(change, "escalation", "engine", reason);
    m.create = true;
    ctx.store.mutate(&m)?;
    Ok(())
}

/// A MUST_WORK gate failed on measured metrics: attribute, route, record, then either
/// apply the action or (INTERACTIVE and discarding) raise an escalation. Always ends the
/// step with `Rerouted`: the loop re-reads the VSA to see where the run now stands.
pub fn recover(
    ctx: &StageCtx<'_>,
    id: &str,
    criteria: &[Criterion],
    gate: &GateOutcome,
    outcome: &JobOutcome,
) -> Result<Produced, StageError> {
    let pivots = reroute::pivots(ctx)?;
    let p = propose(ctx, id, criteria, gate, outcome, pivots, ctx.recovery)?;
    let top = p
        .attributions
        .first()
        .cloned()
        .ok_or_else(|| StageError::MustStop(format!("{id}: no attribution")))?;
    let note = RoutingNote {
        action: p.action,
        severity: top.severity.unwrap_or(0.0),
        category: top.category,
        trajectory: Some(p.trajectory.clone()),
        evidence: top.evidence.clone(),
        note: p.clamp_reason.clone(),
    };
    failure_record(ctx, id, gate, &p.attributions, &note)?;
    // The reflection block: what recovery concluded, beside the sub-hypothesis it concerns.
    let stamp = Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    set(
        ctx,
        &format!("sub_hypotheses.{id}.reflection"),
        node(&p.escalation("reflection", &stamp)),
        &format!("{id}: failure attributed, {} proposed", p.action.as_str()),
    )?;
    if let Some(stop) = p.stop {
        return Err(StageError::MustStop(stop));
    }
    ctx.emit(
        Event::new("routing")
            .hypothesis(id)
            .action(p.action.as_str())
            .result("proposed")
            .message(format!(
                "h* [{}] s={:.2}: {}",
                top.category.as_str(),
                note.severity,
                top.description
            )),
    );
    let snap = ctx.vsa()?;
    let interactive = snap.vsa.workflow.execution_mode != Some(ExecutionMode::Unattended);
    if interactive && is_discarding(p.action) {
        let esc_id = format!("esc-{}", snap.vsa.revision + 1);
        let stamp = Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let why = format!(
            "{id}: {} proposed; waiting for the researcher",
            p.action.as_str()
        );
        set(
            ctx,
            "workflow.pending_escalation",
            node(&p.escalation(&esc_id, &stamp)),
            &why,
        )?;
        set(
            ctx,
            "workflow.next_action",
            text(&format!(
                "Approve, reject or override the proposed {} for {id} ({esc_id})",
                p.action.as_str()
            )),
            &why,
        )?;
        set(
            ctx,
            "workflow.status",
            NewNode::Scalar("AWAITING_APPROVAL".into()),
            &why,
        )?;
        ctx.emit(
            Event::new("escalation")
                .hypothesis(id)
                .action(p.action.as_str())
                .message(format!("{esc_id} awaits approval")),
        );
        return Err(StageError::Rerouted(why));
    }
    let done = reroute::apply(ctx, id, p.action, &top.fix, &note)?;
    Err(StageError::Rerouted(done))
}

fn failure_record(
    ctx: &StageCtx<'_>,
    id: &str,
    gate: &GateOutcome,
    ranked: &[crate::reflect::attribution::Attribution],
    note: &RoutingNote,
) -> Result<(), StageError> {
    let memory = ctx.run.join("memory");
    let _ = std::fs::create_dir_all(&memory);
    let run = (1..)
        .find(|n| !memory.join(format!("failure_{id}_run{n}.md")).exists())
        .unwrap_or(1);
    let checks = gate
        .measured
        .iter()
        .map(|(k, v)| GateCheck {
            name: k.clone(),
            actual: v.to_string(),
            threshold: gate
                .failed_checks
                .iter()
                .find(|c| &c.criterion == k)
                .map_or("met".into(), |c| c.required.clone()),
            passed: !gate.failed_checks.iter().any(|c| &c.criterion == k),
        })
        .collect();
    let input = FailureInput {
        hypothesis: id.to_string(),
        run,
        date: Utc::now(),
        final_status: gate.verdict.as_str().to_string(),
        failure_type: "MUST_WORK_FAIL".into(),
        gate_type: "MUST_WORK".into(),
        checks,
        root_causes: ranked
            .iter()
            .map(|a| {
                format!(
                    "[{} s={:.2}] {} (evidence: {})",
                    a.category.as_str(),
                    a.severity.unwrap_or(0.0),
                    a.description,
                    a.evidence
                )
            })
            .collect(),
        lessons: ranked.iter().map(|a| a.fix.clone()).collect(),
        routing: note.clone(),
    };
    let r = render_failure(&input)
        .map_err(|e| StageError::MustStop(format!("cannot render the failure record: {e}")))?;
    write_record(&memory, &r)
        .map_err(|e| StageError::MustStop(format!("cannot write the failure record: {e}")))?;
    Ok(())
}

/// The decided escalation, if the researcher (or the policy) has decided it.
pub struct Decided {
    pub id: String,
    pub hypothesis: String,
    pub action: RoutingAction,
    pub verdict: String,
    pub by: String,
    pub note: RoutingNote,
    pub fix: String,
}

fn at<'a>(doc: &'a Document, path: &[&str]) -> Option<&'a Node> {
    path.iter().try_fold(doc.root.as_ref()?, |n, k| n.get(k))
}

/// Read a decided escalation: approved applies the proposal, rejected its refinement
/// equivalent (the hypothesis is kept), overridden the researcher's action.
pub fn decided(doc: &Document) -> Option<Decided> {
    let esc = at(doc, &["workflow", "pending_escalation"]).filter(|n| !n.is_null())?;
    let d = esc.get("decision").filter(|n| !n.is_null())?;
    let s = |n: &Node, k: &str| n.get(k).and_then(Node::as_str).map(str::to_string);
    let proposed: RoutingAction = s(esc, "proposed_action")?.parse().ok()?;
    let verdict = s(d, "verdict")
        .or_else(|| d.as_str().map(str::to_string))?
        .to_ascii_lowercase();
    let action = match verdict.as_str() {
        "approved" | "approve" => proposed,
        "rejected" | "reject" => refinement_equivalent(proposed),
        _ => s(d, "action")
            .and_then(|a| a.parse().ok())
            .unwrap_or(proposed),
    };
    let top = esc
        .get("attributions")
        .and_then(Node::as_seq)
        .and_then(|a| a.first());
    let field = |k: &str| top.and_then(|t| s(t, k)).unwrap_or_default();
    let severity = top
        .and_then(|t| t.get("severity")?.as_scalar()?.as_f64())
        .unwrap_or(0.0);
    let trajectory = esc.get("trajectory").map(|t| {
        ["decay", "slope", "volatility", "signature"]
            .iter()
            .filter_map(|k| Some(format!("{k}={}", t.get(k)?.as_scalar()?.text)))
            .collect::<Vec<_>>()
            .join(" ")
    });
    let note = RoutingNote {
        action,
        severity,
        category: Category::parse(&field("category")).unwrap_or(Category::Method),
        trajectory,
        evidence: field("evidence"),
        note: Some(format!(
            "{verdict} by {}: {}",
            s(d, "by").unwrap_or_else(|| "?".into()),
            s(d, "reason").unwrap_or_default()
        )),
    };
    Some(Decided {
        id: s(esc, "id").unwrap_or_else(|| "esc".into()),
        hypothesis: s(esc, "hypothesis")?,
        action,
        verdict,
        by: s(d, "by").unwrap_or_else(|| "?".into()),
        note,
        fix: field("fix"),
    })
}

/// Apply a decided escalation and close it: the action, a line in `workflow.escalation_log`,
/// the pending escalation cleared and the run active again.
pub fn resolve(ctx: &StageCtx<'_>, d: &Decided) -> Result<String, StageError> {
    let done = reroute::apply(ctx, &d.hypothesis, d.action, &d.fix, &d.note)?;
    let why = format!("{} {}: {}", d.id, d.verdict, done);
    let item = NewNode::Map(vec![
        ("id".into(), text(&d.id)),
        ("hypothesis".into(), text(&d.hypothesis)),
        ("verdict".into(), text(&d.verdict)),
        ("by".into(), text(&d.by)),
        ("applied".into(), NewNode::Scalar(d.action.as_str().into())),
        ("at".into(), now()),
    ]);
    let mut m = Mutation::new(
        Change::Append {
            list: "workflow.escalation_log".into(),
            item,
        },
        "escalation",
        "engine",
        &why,
    );
    m.create = true;
    ctx.store.mutate(&m)?;
    let mut clear = Mutation::new(
        Change::Put {
            path: "workflow.pending_escalation".into(),
            value: NewNode::Scalar("null".into()),
        },
        "escalation",
        "engine",
        &why,
    );
    clear.create = true;
    ctx.store.mutate(&clear)?;
    set(
        ctx,
        "workflow.next_action",
        NewNode::Scalar("null".into()),
        &why,
    )?;
    set(
        ctx,
        "workflow.status",
        NewNode::Scalar("ACTIVE".into()),
        &why,
    )?;
    Ok(why)
}

/// The waiting policy: past `approval_timeout_s` (0 = never) the escalation is decided by
/// `approval_default` (`reject`, `approve`, or `stop`). Returns the verdict to write.
pub fn overdue(
    raised_at: Option<&str>,
    timeout_s: f64,
    default: &str,
    now: chrono::DateTime<Utc>,
) -> Option<String> {
    if timeout_s <= 0.0 {
        return None;
    }
    let raised = chrono::DateTime::parse_from_rfc3339(raised_at?)
        .ok()?
        .with_timezone(&Utc);
    let waited = (now - raised).num_milliseconds() as f64 / 1000.0;
    (waited >= timeout_s).then(|| match default.to_ascii_lowercase().as_str() {
        "approve" | "approved" => "approved".into(),
        "stop" => "stop".into(),
        _ => "rejected".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_waiting_policy() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-12-02T10:01:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let raised = Some("2026-12-02T10:00:00Z");
        assert_eq!(overdue(raised, 0.0, "reject", now), None, "0 waits forever");
        assert_eq!(overdue(raised, 120.0, "reject", now), None);
        assert_eq!(
            overdue(raised, 60.0, "reject", now).as_deref(),
            Some("rejected")
        );
        assert_eq!(
            overdue(raised, 30.0, "approve", now).as_deref(),
            Some("approved")
        );
        assert_eq!(overdue(raised, 30.0, "stop", now).as_deref(), Some("stop"));
        assert_eq!(overdue(None, 30.0, "stop", now), None);
    }

    #[test]
    fn decisions_map_to_actions() {
        let doc = |d: &str| {
            crate::yaml::parse(format!("workflow:\n  pending_escalation:\n    id: esc-3\n    hypothesis: h-e1\n    proposed_action: Pivot\n    attributions:\n    - {{category: Design, severity: 0.8, evidence: decay=0.9, fix: narrow it}}\n    decision: {d}\n").as_bytes()).unwrap()
        };
        assert_eq!(
            decided(&doc("{verdict: approved, by: ana}"))
                .unwrap()
                .action,
            RoutingAction::Pivot
        );
        assert_eq!(
            decided(&doc("{verdict: rejected, by: ana}"))
                .unwrap()
                .action,
            RoutingAction::MethodRefine
        );
        let o = decided(&doc(
            "{verdict: overridden, action: Design-Refine, by: ana}",
        ))
        .unwrap();
        assert_eq!(o.action, RoutingAction::DesignRefine);
        assert_eq!(o.fix, "narrow it");
        assert!(decided(&doc("null")).is_none());
    }
}
