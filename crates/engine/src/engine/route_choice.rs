//! The Independent Controller chooses the recovery level (YouRA §3.3, Algorithm 1 line 15):
//! it is shown the compact VSA summary, the failure, the ranked causes, the judge's verdict,
//! the refines used and the relevant Reflective Memory records (the table's choice only in
//! YouRA's ablation, `[recovery] show_table_choice`), and answers a level, the cause it acts
//! on and the records it relied on; the level fixes the stage re-entered. `reflect::veto`
//! bounds the answer; SAGE's table decides when the controller's endpoint fails or its
//! choice is refused (`[recovery] router = "table"` skips the controller altogether). Then,
//! whoever chose, `reflect::refine_cap` caps refines of one gate at `max_refines`.

use serde_json::Value;

use super::controller::Asked;
use super::ctx::{StageCtx, Vars};
use super::memory_block::{records_block, relevant_records};
use super::recovery::{Failure, Proposal};
use crate::llm::ReplySchema;
use crate::llm::schema as js;
use crate::reflect::routing::Router;
use crate::reflect::veto::{Bounded, Bounds, Choice, Route, bound};
use crate::rundir::events::Event;
use crate::rundir::memory::MemoryRecord;

/// Where recovery goes, and who decided it.
#[derive(Debug, Clone, PartialEq)]
pub struct Routed {
    pub route: Route,
    /// The ranked cause (0-based) the route acts on: the controller's pick, else h*.
    pub cause: usize,
    /// `controller`, `table`, or `table (fallback: …)`.
    pub by: String,
    /// The controller's reason, when its choice was taken.
    pub reason: Option<String>,
    /// The memory records it relied on.
    pub records: Vec<String>,
    /// Each veto's reason, in the rules' order.
    pub vetoes: Vec<String>,
    /// The rules say stop.
    pub stop: Option<String>,
}

/// The controller's reply shape.
pub fn schema() -> ReplySchema {
    ReplySchema::new(
        "controller_route",
        js::object_with(
            &[
                (
                    "level",
                    js::one_of(&[
                        "repair",
                        "Local-Refine",
                        "Method-Refine",
                        "Design-Refine",
                        "redesign",
                        "Pivot",
                        "reset",
                        "Design-Pivot",
                        "proceed",
                        "Proceed",
                        "limitation",
                    ]),
                ),
                ("cause", js::integer(1, 10)),
                ("reason", js::string()),
            ],
            // No `next_stage`: the level alone fixes the stage re-entered, so a second field
            // could only agree or be overruled. Older recordings that carry one still pass
            // (the checker tolerates extra keys) and it is ignored.
            &[("records", js::array(js::string(), 0, Some(16)))],
        ),
    )
}

/// Read the controller's reply; an unknown level is an error, never a guess.
pub(crate) fn parse_choice(v: &Value) -> Result<Choice, String> {
    let level = v
        .get("level")
        .and_then(Value::as_str)
        .ok_or("the reply has no \"level\"")?;
    let route = Route::parse(level).ok_or_else(|| format!("unknown level \"{level}\""))?;
    let cause = v
        .get("cause")
        .and_then(Value::as_u64)
        .ok_or("the reply has no \"cause\" number")? as usize;
    Ok(Choice {
        route,
        cause,
        records: v
            .get("records")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|r| {
                        r.as_str()
                            .map(|s| s.trim().trim_end_matches(".md").to_string())
                    })
                    .collect()
            })
            .unwrap_or_default(),
        reason: v
            .get("reason")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
    })
}

/// The table's route for the proposal.
fn table(p: &Proposal, by: String) -> Routed {
    Routed {
        route: if p.limitation {
            Route::Limitation
        } else {
            Route::Act(p.action)
        },
        cause: 0,
        by,
        reason: None,
        records: Vec::new(),
        vetoes: Vec::new(),
        stop: p.stop.clone(),
    }
}

/// Choose the route, then cap refines: the controller's level bounded by the rules (or the
/// table's), then `reflect::refine_cap`. Never fails the stage (the table is always there).
pub fn choose(ctx: &StageCtx<'_>, f: &Failure, p: &Proposal, pivots: u32) -> Routed {
    let routed = level(ctx, f, p, pivots);
    capped(ctx, p, pivots, routed)
}

/// Past `[recovery] max_refines` a refine is not taken: a SHOULD_WORK failure becomes a
/// limitation, a MUST_WORK one escalates with a redesign proposed (INTERACTIVE; the pivot
/// budget still applies) or stops the run (UNATTENDED). The reason is a veto of its own.
fn capped(ctx: &StageCtx<'_>, p: &Proposal, pivots: u32, mut r: Routed) -> Routed {
    use crate::reflect::refine_cap::{Capped, cap};
    if r.stop.is_some() || p.stop.is_some() {
        return r;
    }
    let Ok(snap) = ctx.vsa() else {
        return r;
    };
    let h = p.hypothesis.as_str();
    // Someone must be there to answer: an escalation the waiting policy decided last time
    // (`approval_default = reject` refines again) would otherwise refine past the cap forever.
    let interactive = snap.vsa.workflow.execution_mode
        != Some(crate::vsa::enums::ExecutionMode::Unattended)
        && !policy_decided_last(&snap.doc, h);
    let refines = super::reroute::refines(&snap, h);
    let max = ctx.recovery.max_refines;
    // `None`: the run stops (the reason is then the stop's and the veto's both).
    let (route, reason) = match cap(h, r.route, &p.gate_type, refines, max, interactive) {
        Capped::Within => return r,
        Capped::Stop { reason } => (None, reason),
        Capped::Limitation { reason } => (Some(Route::Limitation), reason),
        Capped::Escalate { proposed, reason } => {
            match crate::reflect::routing::budget(proposed, pivots, ctx.recovery.max_pivots) {
                Ok(a) => (Some(Route::Act(a)), reason),
                Err(stop) => (None, format!("{reason}; {h}: {}", stop.reason)),
            }
        }
    };
    ctx.emit(
        Event::new("refine_cap")
            .hypothesis(h)
            .action(route.map_or("MUST_STOP", Route::as_str))
            .message(reason.clone()),
    );
    // The veto goes to `recovery.vetoes` and the failure record's note, so the record of a
    // stopped run says why its refine was not taken.
    r.vetoes.push(reason.clone());
    r.by = format!("{}, then the refine cap", r.by);
    match route {
        Some(route) => r.route = route,
        None => r.stop = Some(reason),
    }
    r
}

/// Whether the last escalation decided for `h` was decided by the waiting policy
/// (`workflow.escalation_log`'s `by: policy`), not by a person.
fn policy_decided_last(doc: &crate::yaml::Document, h: &str) -> bool {
    doc.root
        .as_ref()
        .and_then(|r| r.get("workflow")?.get("escalation_log")?.as_seq())
        .and_then(|log| {
            log.iter()
                .rev()
                .find(|e| e.get("hypothesis").and_then(|n| n.as_str()) == Some(h))
        })
        .and_then(|e| e.get("by")?.as_str().map(|by| by == "policy"))
        .unwrap_or(false)
}

/// Ask the controller, bound its answer, fall back to the table. Emits `controller_route`,
/// `controller_veto` and `controller_fallback` events.
fn level(ctx: &StageCtx<'_>, f: &Failure, p: &Proposal, pivots: u32) -> Routed {
    if ctx.recovery.router == Router::Table {
        return table(p, "table".into());
    }
    let h = f.hypothesis.as_str();
    let records = relevant_records(ctx, Some(h));
    let offered: Vec<String> = records.iter().map(|r| r.id.clone()).collect();
    let vars = match vars(ctx, f, p, pivots, &records) {
        Ok(v) => v,
        Err(e) => return fallback(ctx, p, &e),
    };
    let choice = match super::controller::ask_retried(
        ctx,
        "controller_route",
        &vars,
        &schema(),
        parse_choice,
    ) {
        Ok(c) => c,
        Err(Asked::Final(e)) => return fallback(ctx, p, &e.to_string()),
        Err(Asked::Failures(f)) => return fallback(ctx, p, &f.join("; ")),
    };
    let causes: Vec<_> = p
        .attributions
        .iter()
        .map(|a| (a.category, a.severity.unwrap_or(0.0)))
        .collect();
    let bounds = Bounds {
        gate: &p.gate_type,
        causes: &causes,
        offered: &offered,
        pivots,
        judge: p.clamp,
        improvement_path: f.improvement_path,
        thresholds: ctx.recovery,
    };
    let said = format!(
        "{} (cause {}): {}",
        choice.route.as_str(),
        choice.cause,
        choice.reason
    );
    ctx.emit(
        Event::new("controller_route")
            .hypothesis(h)
            .action(choice.route.as_str())
            .message(said),
    );
    match bound(&choice, &bounds) {
        Bounded::Take { route, vetoes } => {
            for v in &vetoes {
                ctx.emit(
                    Event::new("controller_veto")
                        .hypothesis(h)
                        .action(route.as_str())
                        .message(v.clone()),
                );
            }
            Routed {
                route,
                cause: choice.cause - 1,
                by: "controller".into(),
                reason: Some(choice.reason),
                records: choice.records,
                vetoes,
                stop: None,
            }
        }
        Bounded::Refuse { veto } => {
            ctx.emit(
                Event::new("controller_veto")
                    .hypothesis(h)
                    .action(choice.route.as_str())
                    .result("refused")
                    .message(format!("{veto}; SAGE's table decides")),
            );
            let mut r = table(p, "table (the controller's choice was vetoed)".into());
            r.vetoes.push(veto);
            r
        }
        Bounded::Stop(stop) => Routed {
            stop: Some(format!("{h}: {}", stop.reason)),
            ..table(p, "controller".into())
        },
    }
}

fn fallback(ctx: &StageCtx<'_>, p: &Proposal, why: &str) -> Routed {
    ctx.emit(
        Event::new("controller_fallback")
            .hypothesis(&p.hypothesis)
            .message(format!(
                "the controller could not choose the recovery level ({why}); SAGE's table decides"
            )),
    );
    table(p, format!("table (fallback: {why})"))
}

fn vars(
    ctx: &StageCtx<'_>,
    f: &Failure,
    p: &Proposal,
    pivots: u32,
    records: &[MemoryRecord],
) -> Result<Vars, String> {
    let snap = ctx.vsa().map_err(|e| e.to_string())?;
    let h = f.hypothesis.as_str();
    let causes = p
        .attributions
        .iter()
        .enumerate()
        .map(|(i, a)| {
            format!(
                "{}. [{} s={:.2}] {} — evidence: {} — fix: {}",
                i + 1,
                a.category.as_str(),
                a.severity.unwrap_or(0.0),
                a.description,
                a.evidence,
                a.fix
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    let kappa_min = ctx.recovery.kappa_min;
    let judge = match p.clamp {
        Some((crate::reflect::routing::Verdict::Valid, k)) => {
            format!("the hypothesis is still plausible (Valid, κ = {k:.2}; κ_min = {kappa_min:.2})")
        }
        Some((_, k)) if k >= kappa_min => format!(
            "the evidence contradicts the hypothesis (NotValid, κ = {k:.2} ≥ κ_min {kappa_min:.2})"
        ),
        Some((_, k)) => format!(
            "NotValid, but too unsure to count as a contradiction (κ = {k:.2} < κ_min {kappa_min:.2})"
        ),
        None => "no verdict".into(),
    };
    let table = table_line(ctx.recovery.show_table_choice, p);
    let refines = super::reroute::refines(&snap, h);
    let should_work = if p.gate_type == crate::vsa::enums::GateType::ShouldWork {
        format!(
            "\nSHOULD_WORK: a retry from Experiment Design is {}.",
            if f.improvement_path {
                "still possible"
            } else {
                "used up; record a limitation"
            }
        )
    } else {
        String::new()
    };
    let records = records_block(records);
    let statement = snap
        .vsa
        .hypothesis(h)
        .and_then(|x| x.statement.clone())
        .unwrap_or_default();
    Ok([
        ("hypothesis", h.to_string()),
        ("gate_type", p.gate_type.as_str().to_string()),
        ("summary", super::summary::summary(&snap.vsa)),
        ("statement", statement),
        ("failed_checks", p.failed_checks.clone()),
        ("metric", p.metric.clone()),
        ("trajectory", p.trajectory.clone()),
        (
            "artifact",
            format!("{h}/{}", super::stages::artifacts::VALIDATION),
        ),
        ("causes", causes),
        ("judge", judge),
        ("table", table),
        ("pivots", pivots.to_string()),
        ("max_pivots", ctx.recovery.max_pivots.to_string()),
        ("refines", refines.to_string()),
        ("max_refines", ctx.recovery.max_refines.to_string()),
        ("should_work", should_work),
        ("records", records),
    ]
    .into_iter()
    .collect())
}

/// The table's choice as the prompt shows it: nothing unless the run asks for YouRA's
/// ablation (`[recovery] show_table_choice = true`). Shown by default it would anchor the
/// controller, and agreement between the two routers would say nothing about the controller.
pub(crate) fn table_line(show: bool, p: &Proposal) -> String {
    if !show {
        return String::new();
    }
    let choice = if p.limitation {
        "limitation".to_string()
    } else if let Some(stop) = &p.stop {
        format!("MUST_STOP ({stop})")
    } else {
        p.action.as_str().to_string()
    };
    format!("\nSAGE's table would choose: {choice}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reflect::routing::RoutingAction;

    #[test]
    fn choices_parse_and_unknown_levels_refuse() {
        // An older recording's `next_stage` is read and ignored: the level fixes the stage.
        let v = serde_json::json!({"level": "redesign", "next_stage": "problem_scoping", "cause": 2, "records": ["failure_h-e1_run1.md"], "reason": "mechanism"});
        let c = parse_choice(&v).unwrap();
        assert_eq!(c.route, Route::Act(RoutingAction::Pivot));
        assert_eq!(c.cause, 2);
        assert_eq!(c.records, vec!["failure_h-e1_run1".to_string()]);
        assert!(
            parse_choice(&serde_json::json!({"level": "shrug", "cause": 1}))
                .unwrap_err()
                .contains("unknown level")
        );
        assert!(parse_choice(&serde_json::json!({"level": "repair"})).is_err());
    }

    #[test]
    fn the_schema_takes_good_replies_and_refuses_bad_ones() {
        let s = schema();
        assert!(crate::llm::schema::unsupported_keywords(&s.schema).is_empty());
        let mut good = serde_json::json!({"level": "Method-Refine", "cause": 1, "reason": "x"});
        s.check(&mut good).unwrap();
        let mut bad = serde_json::json!({"level": "Whatever", "cause": 1, "reason": "x"});
        assert!(s.check(&mut bad).is_err());
        // The schema sent names no stage; the demo's recorded replies, which do, still pass.
        assert!(s.schema["properties"].get("next_stage").is_none());
        let mut old = serde_json::json!({"level": "repair", "next_stage": "coding_validation", "cause": 1, "records": [], "reason": "x"});
        s.check(&mut old).unwrap();
        assert!(parse_choice(&old).is_ok());
    }

    #[test]
    fn the_table_choice_is_shown_only_in_the_ablation() {
        let p = Proposal {
            hypothesis: "h-e1".into(),
            metric: "accuracy".into(),
            trajectory: "insufficient".into(),
            features: None,
            attributions: Vec::new(),
            proposed: RoutingAction::MethodRefine,
            action: RoutingAction::MethodRefine,
            clamp: None,
            clamp_reason: None,
            failed_checks: String::new(),
            stop: None,
            limitation: false,
            gate_type: crate::vsa::enums::GateType::MustWork,
        };
        assert_eq!(table_line(false, &p), "");
        assert_eq!(
            table_line(true, &p),
            "\nSAGE's table would choose: Method-Refine"
        );
        let limitation = Proposal {
            limitation: true,
            ..p.clone()
        };
        assert!(table_line(true, &limitation).ends_with("limitation"));
        assert_eq!(table_line(false, &limitation), "");
        let stop = Proposal {
            stop: Some("MaxPivots".into()),
            ..p
        };
        assert!(table_line(true, &stop).contains("MUST_STOP (MaxPivots)"));
    }
}
