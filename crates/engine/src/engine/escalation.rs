//! Escalations: a hypothesis-discarding action waits for the researcher in INTERACTIVE mode
//! (`workflow.pending_escalation`, status AWAITING_APPROVAL); UNATTENDED applies it and
//! records that it did. A decision (approve, reject, override) is read back from the VSA by
//! the engine loop and applied; a configurable policy decides when nobody does in time.

use chrono::Utc;

use super::ctx::StageCtx;
use super::error::StageError;
use super::gates::GateOutcome;
use super::recovery::{Failure, failed_text, propose};
use super::reroute;
use super::route_choice;
use super::yamlout::{node, now, text};
use crate::reflect::attribution::Category;
use crate::reflect::memory_writer::{FailureInput, GateCheck, RoutingNote, render_failure};
use crate::reflect::routing::{RoutingAction, is_discarding, refinement_equivalent};
use crate::reflect::veto::Route;
use crate::rundir::events::Event;
use crate::vsa::enums::{ExecutionMode, WorkflowStatus};
use crate::vsa::escalation::{Escalation, Verdict};
use crate::vsa::model::{Transition, TransitionStep};
use crate::vsa::mutation::{Change, Mutation};
use crate::yaml::NewNode;

fn put(path: &str, value: NewNode) -> Change {
    Change::at(path, value)
}

/// Finish (or begin) the journaled recovery `t` of a failed MUST_WORK gate. Attributing:
/// attribute, route, write the failure record, then in one transaction the reflection
/// block and the outcome: an escalation raised (INTERACTIVE, discarding), a stop (the rules
/// say so), or the decision journaled; a decided transition is then applied. Returns what
/// was done; the step always ends rerouted (the loop re-reads where the run stands).
pub fn finish(ctx: &StageCtx<'_>, t: &Transition) -> Result<String, StageError> {
    if t.step == TransitionStep::Decided {
        return reroute::apply(ctx, t);
    }
    let id = t.hypothesis.as_str();
    let failure = Failure::load(ctx, id)?;
    let snap = ctx.vsa()?;
    let pivots = reroute::pivots(&snap);
    let mut p = propose(ctx, &failure, pivots, ctx.recovery)?;
    let routed = route_choice::choose(ctx, &failure, &p, pivots);
    if let Route::Act(a) = routed.route {
        p.action = a;
    }
    // The cause the route acts on: the controller's pick, else h*.
    let top = p
        .attributions
        .get(routed.cause)
        .or(p.attributions.first())
        .cloned()
        .ok_or_else(|| StageError::MustStop(format!("{id}: no attribution")))?;
    let interactive = snap.vsa.workflow.execution_mode != Some(ExecutionMode::Unattended);
    let waits = interactive
        && routed.stop.is_none()
        && p.stop.is_none()
        && matches!(routed.route, Route::Act(a) if is_discarding(a));
    let note = RoutingNote {
        action: p.action,
        severity: top.severity.unwrap_or(0.0),
        category: top.category,
        trajectory: Some(p.trajectory.clone()),
        evidence: top.evidence.clone(),
        note: routing_note(&p, &routed),
        pending: waits,
    };
    let stamp = Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let reason = format!(
        "{id}: failure attributed, {} chosen by the {}",
        routed.route.as_str(),
        routed.by
    );
    let mut reflection = p.escalation("reflection", &stamp);
    with_router(&mut reflection, &routed, &t.record);
    // The reflection block: what recovery concluded, beside the sub-hypothesis it concerns.
    let mut tx = Mutation::by("engine").with(
        put(
            &format!("sub_hypotheses.{id}.reflection"),
            node(&reflection),
        ),
        "escalation",
        &reason,
    );
    // Each veto is history of its own: the rule that bound the controller, and why.
    for veto in &routed.vetoes {
        tx.push(
            Change::Append {
                list: "recovery.vetoes".into(),
                item: NewNode::Map(vec![
                    ("hypothesis".into(), text(id)),
                    ("chosen_by".into(), text(&routed.by)),
                    ("veto".into(), text(veto)),
                    ("at".into(), now()),
                ]),
            },
            "controller_veto",
            veto,
        );
    }
    let clear = put(
        "workflow.pending_transition",
        NewNode::Scalar("null".into()),
    );
    if let Some(stop) = routed.stop.as_ref().or(p.stop.as_ref()) {
        failure_record(ctx, t, &failure.gate, &p, &top, &note)?;
        let evidence = failed_text(&failure.gate);
        let reason = format!(
            "{id}: {} gate {} ({evidence}); evidence in {id}/04_validation.md; recovery: {stop}",
            p.gate_type.as_str(),
            failure.gate.verdict.as_str()
        );
        tx.push(clear, "recovery_done", &reason);
        tx.extend(super::run_stop_mutation(&reason));
        ctx.store.mutate(&tx)?;
        return Err(StageError::MustStop(reason));
    }
    if routed.route == Route::Limitation {
        let why = format!(
            "{} gate {}: recorded as a limitation ({}), the loop goes on",
            p.gate_type.as_str(),
            failure.gate.verdict.as_str(),
            routed.by
        );
        super::stages::limitation::limitation(ctx, &mut tx, id, &why, Some(&failure.gate))?;
        tx.push(clear, "recovery_done", &why);
        ctx.store.mutate(&tx)?;
        ctx.emit(
            Event::new("routing")
                .hypothesis(id)
                .action(Route::Limitation.as_str())
                .message(format!("{id}: {why}")),
        );
        return Err(StageError::Rerouted(format!("{id}: {why}")));
    }
    failure_record(ctx, t, &failure.gate, &p, &top, &note)?;
    if waits {
        let esc_id = format!("esc-{}", snap.vsa.revision + 1);
        let why = format!(
            "{id}: {} proposed by the {}; waiting for the researcher",
            p.action.as_str(),
            routed.by
        );
        let mut esc = p.escalation(&esc_id, &stamp);
        with_router(&mut esc, &routed, &t.record);
        tx.push(
            put("workflow.pending_escalation", node(&esc)),
            "escalation",
            &why,
        );
        tx.push(
            put(
                "workflow.next_action",
                text(&format!(
                    "Approve, reject or override the proposed {} for {id} ({esc_id})",
                    p.action.as_str()
                )),
            ),
            "escalation",
            &why,
        );
        tx.push(
            put(
                "workflow.status",
                NewNode::Scalar(WorkflowStatus::AwaitingApproval.as_str().into()),
            ),
            "escalation",
            &why,
        );
        tx.push(clear, "recovery_done", &why);
        ctx.store.mutate(&tx)?;
        emit_proposed(ctx, id, &p, &top, note.severity);
        ctx.emit(
            Event::new("escalation")
                .hypothesis(id)
                .action(p.action.as_str())
                .message(format!("{esc_id} awaits approval")),
        );
        return Err(StageError::Rerouted(why));
    }
    let decided = decide(ctx, t, p.action, &top.fix, &note);
    tx.push(
        put("workflow.pending_transition", decided.node()),
        "recovery_decided",
        &reason,
    );
    ctx.store.mutate(&tx)?;
    emit_proposed(ctx, id, &p, &top, note.severity);
    reroute::apply(ctx, &decided)
}

/// Who routed, why, and what was vetoed: the record's and the journal's note.
fn routing_note(p: &super::recovery::Proposal, r: &route_choice::Routed) -> Option<String> {
    let mut parts = vec![format!("routed by the {}", r.by)];
    if let Some(reason) = r.reason.as_deref().filter(|s| !s.is_empty()) {
        parts.push(format!("because {reason}"));
    }
    if !r.records.is_empty() {
        parts.push(format!("relying on {}", r.records.join(", ")));
    }
    parts.extend(r.vetoes.iter().map(|v| format!("veto: {v}")));
    if let Some(c) = &p.clamp_reason {
        parts.push(c.clone());
    }
    Some(parts.join("; "))
}

/// The router's fields on a reflection or escalation block.
fn with_router(v: &mut serde_json::Value, r: &route_choice::Routed, record: &str) {
    v["router"] = r.by.clone().into();
    v["chosen_route"] = r.route.as_str().into();
    if let Some(reason) = &r.reason {
        v["controller_reason"] = reason.clone().into();
    }
    if !r.records.is_empty() {
        v["records_relied_on"] = r.records.clone().into();
    }
    if !r.vetoes.is_empty() {
        v["vetoes"] = r.vetoes.clone().into();
    }
    if !record.is_empty() {
        v["record"] = record.into();
    }
}

fn emit_proposed(
    ctx: &StageCtx<'_>,
    id: &str,
    p: &super::recovery::Proposal,
    top: &crate::reflect::attribution::Attribution,
    severity: f64,
) {
    ctx.emit(
        Event::new("routing")
            .hypothesis(id)
            .action(p.action.as_str())
            .result("proposed")
            .message(format!(
                "h* [{}] s={:.2}: {}",
                top.category.as_str(),
                severity,
                top.description
            )),
    );
}

/// The journal entry for a chosen action: everything applying it needs, so a resumed
/// application asks nothing again (and a discarding one archives into the same folder).
fn decide(
    ctx: &StageCtx<'_>,
    t: &Transition,
    action: RoutingAction,
    fix: &str,
    note: &RoutingNote,
) -> Transition {
    Transition {
        step: TransitionStep::Decided,
        action: Some(action),
        fix: fix.to_string(),
        severity: note.severity,
        category: note.category.as_str().to_string(),
        trajectory: note.trajectory.clone(),
        evidence: note.evidence.clone(),
        note: note.note.clone(),
        archive: is_discarding(action)
            .then(|| crate::reflect::archive::fresh_name(ctx.run, Utc::now())),
        ..t.clone()
    }
}

fn failure_record(
    ctx: &StageCtx<'_>,
    t: &Transition,
    gate: &GateOutcome,
    p: &super::recovery::Proposal,
    top: &crate::reflect::attribution::Attribution,
    note: &RoutingNote,
) -> Result<(), StageError> {
    let id = t.hypothesis.as_str();
    let memory = ctx.run.join("memory");
    let key = t.round.to_string();
    let run = crate::reflect::record_key::run_number(&memory, "failure", id, &key);
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
    let ranked = &p.attributions;
    let input = FailureInput {
        hypothesis: id.to_string(),
        run,
        date: Utc::now(),
        final_status: gate.verdict.as_str().to_string(),
        failure_type: format!("{}_FAIL", p.gate_type.as_str()),
        gate_type: p.gate_type.as_str().to_string(),
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
        lessons: lessons(top, ranked, ctx.recovery.proceed_below),
        routing: note.clone(),
    };
    let r = render_failure(&input)
        .map_err(|e| StageError::MustStop(format!("cannot render the failure record: {e}")))?;
    crate::reflect::record_key::write_keyed(&memory, &r, &key)
        .map_err(|e| StageError::MustStop(format!("cannot write the failure record: {e}")))?;
    Ok(())
}

/// The lessons a failure teaches: the fix of the cause acted on, then those of the other
/// causes the critic believed (severity at least `believed`); a cause the critic rejected
/// teaches nothing.
pub(super) fn lessons(
    top: &crate::reflect::attribution::Attribution,
    ranked: &[crate::reflect::attribution::Attribution],
    believed: f64,
) -> Vec<String> {
    std::iter::once(top)
        .chain(
            ranked
                .iter()
                .filter(|a| *a != top && a.severity.unwrap_or(0.0) >= believed),
        )
        .map(|a| a.fix.clone())
        .filter(|f| !f.trim().is_empty())
        .collect()
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
    /// The decider's reason, as written.
    pub reason: String,
    /// The failure record the decision rewrites (`memory/<record>`).
    pub record: String,
}

/// Read a decided escalation: approved applies the proposal, rejected its refinement
/// equivalent (the hypothesis is kept), overridden the researcher's action. A verdict that
/// is none of the three is read as an override: its action if it names one, else the proposal.
pub fn decided(esc: &Escalation) -> Option<Decided> {
    let d = esc.decision.as_ref()?;
    let proposed: RoutingAction = esc.proposed_action.as_deref()?.parse().ok()?;
    let verdict = d.verdict_text.clone()?.to_ascii_lowercase();
    let action = match d.verdict() {
        Some(Verdict::Approved) => proposed,
        Some(Verdict::Rejected) => refinement_equivalent(proposed),
        _ => d
            .action
            .as_deref()
            .and_then(|a| a.parse().ok())
            .unwrap_or(proposed),
    };
    // The same h* the card shows first: the model ranks them once.
    let top = esc.attributions.first();
    let trajectory = (!esc.trajectory.is_empty()).then(|| {
        ["decay", "slope", "volatility", "signature"]
            .iter()
            .filter_map(|k| Some(format!("{k}={}", esc.feature(k)?)))
            .collect::<Vec<_>>()
            .join(" ")
    });
    // Both names when a lab's `[steer] second_approval` required two (`ana and bo`).
    let by = match d.approved_by.len() {
        0 | 1 => d.by.clone().unwrap_or_else(|| "?".into()),
        _ => d.who(),
    };
    let note = RoutingNote {
        action,
        severity: top.and_then(|t| t.severity).unwrap_or(0.0),
        category: top.and_then(|t| t.category()).unwrap_or(Category::Method),
        trajectory,
        evidence: top.map(|t| t.evidence.clone()).unwrap_or_default(),
        note: Some(format!(
            "{verdict} by {by}: {}{}",
            d.reason.clone().unwrap_or_default(),
            esc.router
                .as_deref()
                .map(|r| format!(" (proposed {proposed} by the {r})"))
                .unwrap_or_default()
        )),
        pending: false,
    };
    Some(Decided {
        id: esc.id.clone().unwrap_or_else(|| "esc".into()),
        hypothesis: esc.hypothesis.clone()?,
        action,
        verdict,
        by,
        note,
        fix: top.map(|t| t.fix.clone()).unwrap_or_default(),
        reason: d.reason.clone().unwrap_or_default(),
        record: esc.record.clone().unwrap_or_default(),
    })
}

/// Close a decided escalation and journal its action in one transaction (a line in
/// `workflow.escalation_log`, the escalation cleared, the run active again), then apply it.
pub fn resolve(ctx: &StageCtx<'_>, d: &Decided) -> Result<String, StageError> {
    let snap = ctx.vsa()?;
    let why = format!("{} {}: {}", d.id, d.verdict, d.action.as_str());
    let item = NewNode::Map(vec![
        ("id".into(), text(&d.id)),
        ("hypothesis".into(), text(&d.hypothesis)),
        ("verdict".into(), text(&d.verdict)),
        ("by".into(), text(&d.by)),
        ("applied".into(), NewNode::Scalar(d.action.as_str().into())),
        ("at".into(), now()),
    ]);
    let round = super::progress::round(
        &snap.doc,
        &super::progress::Step::Hypothesis(
            crate::stage::Stage::CodingValidation,
            d.hypothesis.clone(),
        ),
    );
    let begun = Transition::attributing(&d.hypothesis, round, 1, d.record.clone());
    let decided = decide(ctx, &begun, d.action, &d.fix, &d.note);
    let tx = Mutation::by("engine")
        .with(
            Change::Append {
                list: "workflow.escalation_log".into(),
                item,
            },
            "escalation",
            &why,
        )
        .with(
            put(
                "workflow.pending_escalation",
                NewNode::Scalar("null".into()),
            ),
            "escalation",
            &why,
        )
        .with(
            put("workflow.next_action", NewNode::Scalar("null".into())),
            "escalation",
            &why,
        )
        .with(
            put(
                "workflow.status",
                NewNode::Scalar(WorkflowStatus::Active.as_str().into()),
            ),
            "escalation",
            &why,
        )
        .with(
            put("workflow.pending_transition", decided.node()),
            "recovery_decided",
            &why,
        );
    ctx.store.mutate(&tx)?;
    // The decision is an event of its own, in full: who, what, why (the Events pane and
    // `youra status` show it; the routing event that follows says what it did).
    ctx.emit(
        Event::new("decision")
            .stage(crate::stage::Stage::CodingValidation.name())
            .hypothesis(&d.hypothesis)
            .actor(&d.by)
            .result(&d.verdict)
            .action(d.action.as_str())
            .message(format!(
                "{} {} by {}: {} — applies {}",
                d.id,
                d.verdict,
                d.by,
                if d.reason.is_empty() {
                    "(no reason given)"
                } else {
                    d.reason.as_str()
                },
                d.action.as_str()
            )),
    );
    let done = reroute::apply(ctx, &decided)?;
    Ok(format!("{why}: {done}"))
}

/// The waiting policy: past `approval_timeout_s` (0 = never) the escalation is decided by
/// `approval_default` (`reject`, `approve`, or `stop`). Returns the verdict to write.
pub(crate) fn overdue(
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
            let doc = crate::yaml::parse(format!("workflow:\n  pending_escalation:\n    id: esc-3\n    hypothesis: h-e1\n    proposed_action: Pivot\n    attributions:\n    - {{category: Method, severity: 0.5, fix: tune it}}\n    - {{category: Design, severity: 0.8, evidence: decay=0.9, fix: narrow it}}\n    decision: {d}\n").as_bytes()).unwrap();
            let node = doc
                .root
                .as_ref()
                .unwrap()
                .get("workflow")
                .unwrap()
                .get("pending_escalation")
                .unwrap();
            Escalation::read(node).unwrap()
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
