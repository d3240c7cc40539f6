//! What Coding & Validation records: the gate in YouRA's VSA shape (type, satisfied,
//! result, failed_checks with criterion / required / actual / reason), the sub-hypothesis's
//! status, the statistics block, dependants unblocked, and `04_validation.md`. A MUST_WORK
//! gate that is not met stops the run with the evidence; a SHOULD_WORK one is recorded as a
//! limitation and the loop goes on (YouRA Algorithm 1).

use super::Produced;
use crate::engine::check::Check;
use crate::engine::criteria::Criterion;
use crate::engine::ctx::StageCtx;
use crate::engine::error::StageError;
use crate::engine::gates::{GateOutcome, Verdict};
use crate::engine::yamlout::{now, text};
use crate::exec::JobOutcome;
use crate::rundir::events::Event;
use crate::vsa::enums::{GateType, HypothesisStatus};
use crate::vsa::mutation::{Change, Mutation};
use crate::yaml::NewNode;

fn s(v: &str) -> NewNode {
    NewNode::Scalar(v.to_string())
}

fn gate_node(gate_type: &str, criteria: &[Criterion], gate: &GateOutcome) -> NewNode {
    let checks = gate
        .failed_checks
        .iter()
        .map(|c| {
            NewNode::Map(vec![
                ("criterion".into(), text(&c.criterion)),
                ("required".into(), text(&c.required)),
                ("actual".into(), text(&c.actual)),
                ("reason".into(), text(&c.reason)),
            ])
        })
        .collect();
    let measured = gate
        .measured
        .iter()
        .map(|(k, v)| (k.clone(), s(&v.to_string())))
        .collect();
    NewNode::Map(vec![
        ("type".into(), s(gate_type)),
        (
            "satisfied".into(),
            s(if gate.verdict == Verdict::Pass {
                "true"
            } else {
                "false"
            }),
        ),
        ("result".into(), s(gate.verdict.as_str())),
        ("failed_checks".into(), NewNode::Seq(checks)),
        (
            "criteria".into(),
            NewNode::Seq(criteria.iter().map(|c| text(&c.to_string())).collect()),
        ),
        ("measured".into(), NewNode::Map(measured)),
        ("evaluated_at".into(), now()),
    ])
}

fn mutate(ctx: &StageCtx<'_>, change: Change, event: &str, reason: &str) -> Result<(), StageError> {
    let mut m = Mutation::new(change, event, "engine", reason);
    m.create = true;
    ctx.store.mutate(&m)?;
    Ok(())
}

fn gate_type(ctx: &StageCtx<'_>, id: &str) -> Result<(bool, String), StageError> {
    let snap = ctx.vsa()?;
    let t = snap
        .vsa
        .hypothesis(id)
        .and_then(|h| h.gate.gate_type.clone());
    let must = !matches!(t, Some(GateType::ShouldWork));
    Ok((
        must,
        t.map_or("MUST_WORK".into(), |t| t.as_str().to_string()),
    ))
}

pub fn record(
    ctx: &StageCtx<'_>,
    id: &str,
    criteria: &[Criterion],
    gate: &GateOutcome,
    outcome: &JobOutcome,
    history: &[String],
) -> Result<Produced, StageError> {
    let (must, gtype) = gate_type(ctx, id)?;
    let verdict = gate.verdict.as_str();
    let status = match gate.verdict {
        Verdict::Pass => "VALIDATED",
        Verdict::Partial => "PARTIAL",
        Verdict::Fail => "FAILED",
    };
    let why = format!("{id} gate {verdict} on measured metrics");
    mutate(
        ctx,
        Change::Put {
            path: format!("sub_hypotheses.{id}.gate"),
            value: gate_node(&gtype, criteria, gate),
        },
        "gate_evaluated",
        &why,
    )?;
    mutate(
        ctx,
        Change::Set {
            path: format!("sub_hypotheses.{id}.status"),
            value: status.into(),
        },
        "status",
        &why,
    )?;
    let report = markdown(id, &gtype, criteria, gate, outcome, history);
    let rel = format!("{id}/{}", super::coding::ARTIFACT);
    ctx.write(&rel, &report)?;
    ctx.emit(
        Event::new("gate").hypothesis(id).result(verdict).message(
            gate.failed_checks
                .iter()
                .map(|c| c.reason.clone())
                .collect::<Vec<_>>()
                .join("; "),
        ),
    );
    after_gate(ctx)?;
    if gate.verdict != Verdict::Pass && must {
        // Recovery decides where the run goes; when it cannot, the run stops with the evidence.
        return crate::engine::escalation::recover(ctx, id, criteria, gate, outcome).map_err(|e| match e {
            StageError::MustStop(r) => {
                let evidence = gate.failed_checks.iter().map(|c| c.reason.clone()).collect::<Vec<_>>().join("; ");
                StageError::MustStop(format!("{id}: MUST_WORK gate {verdict} ({evidence}); evidence in {rel}; recovery: {r}"))
            }
            other => other,
        });
    }
    if gate.verdict != Verdict::Pass {
        limitation(
            ctx,
            id,
            &format!("SHOULD_WORK gate {verdict}: recorded as a limitation, the loop goes on"),
            Some(gate),
        )?;
    }
    Ok(Produced {
        artifact: rel,
        check: Check {
            missing: Vec::new(),
        },
    })
}

/// Every repair attempt failed before a gate could be judged.
pub fn exhausted(ctx: &StageCtx<'_>, id: &str, history: &[String]) -> Result<Produced, StageError> {
    let (must, _) = gate_type(ctx, id)?;
    let list = history
        .iter()
        .map(|h| format!("- {h}"))
        .collect::<Vec<_>>()
        .join("\n");
    let rel = format!("{id}/{}", super::coding::ARTIFACT);
    ctx.write(&rel, &format!("# Validation: {id}\n\n**Result:** FAILED before a gate could be judged ({} attempts)\n\n## Attempts\n\n{list}\n", history.len()))?;
    let why = format!("{id}: no usable results after {} attempts", history.len());
    mutate(
        ctx,
        Change::Set {
            path: format!("sub_hypotheses.{id}.status"),
            value: "FAILED".into(),
        },
        "status",
        &why,
    )?;
    after_gate(ctx)?;
    if must {
        return Err(StageError::MustStop(format!(
            "{why} (MUST_WORK); see {rel}"
        )));
    }
    limitation(ctx, id, &why, None)?;
    Ok(Produced {
        artifact: rel,
        check: Check {
            missing: Vec::new(),
        },
    })
}

/// A SHOULD_WORK failure: the VSA says so, and a `limitation_<h>_run<n>.md` record in
/// YouRA's format keeps the gap and what it teaches (YouRA Algorithm 1).
fn limitation(
    ctx: &StageCtx<'_>,
    id: &str,
    note: &str,
    gate: Option<&GateOutcome>,
) -> Result<(), StageError> {
    use crate::reflect::memory_writer::{
        GateCheck, LimitationInput, render_limitation, write_record,
    };
    let memory = ctx.run.join("memory");
    let _ = std::fs::create_dir_all(&memory);
    let run = (1..)
        .find(|n| !memory.join(format!("limitation_{id}_run{n}.md")).exists())
        .unwrap_or(1);
    let checks = gate.map(|g| {
        g.measured
            .iter()
            .map(|(k, v)| {
                let failed = g.failed_checks.iter().find(|c| &c.criterion == k);
                GateCheck {
                    name: k.clone(),
                    actual: v.to_string(),
                    threshold: failed.map_or("met".into(), |c| c.required.clone()),
                    passed: failed.is_none(),
                }
            })
            .collect()
    });
    let input = LimitationInput {
        hypothesis: id.to_string(),
        run,
        date: chrono::Utc::now(),
        gate_type: "SHOULD_WORK".into(),
        gate_result: gate.map_or("FAIL".into(), |g| g.verdict.as_str().to_string()),
        checks: checks.unwrap_or_default(),
        root_causes: gate
            .map(|g| g.failed_checks.iter().map(|c| c.reason.clone()).collect())
            .unwrap_or_else(|| vec![note.to_string()]),
        lessons: vec![format!(
            "{id} does not hold as stated; report it as a limitation, not as support"
        )],
    };
    let rendered = render_limitation(&input)
        .map_err(|e| StageError::MustStop(format!("cannot render the limitation record: {e}")))?;
    write_record(&memory, &rendered)
        .map_err(|e| StageError::MustStop(format!("cannot write the limitation record: {e}")))?;
    mutate(
        ctx,
        Change::Set {
            path: format!("sub_hypotheses.{id}.limitation"),
            value: note.to_string(),
        },
        "limitation_recorded",
        note,
    )
}

/// Statistics recomputed, dependants whose prerequisites are all validated set READY, and
/// those waiting on a failed prerequisite set BLOCKED.
fn after_gate(ctx: &StageCtx<'_>) -> Result<(), StageError> {
    let snap = ctx.vsa()?;
    let hs = &snap.vsa.sub_hypotheses;
    let count = |f: &dyn Fn(&HypothesisStatus) -> bool| {
        hs.iter().filter(|h| f(&h.status)).count().to_string()
    };
    let stats = NewNode::Map(vec![
        ("total_sub_hypotheses".into(), s(&hs.len().to_string())),
        ("validated".into(), s(&count(&|x| x.is_validated()))),
        (
            "failed".into(),
            s(&count(&|x| {
                matches!(x, HypothesisStatus::Failed | HypothesisStatus::Partial)
            })),
        ),
        (
            "remaining".into(),
            s(&count(&|x| {
                matches!(
                    x,
                    HypothesisStatus::NotStarted
                        | HypothesisStatus::Ready
                        | HypothesisStatus::InProgress
                )
            })),
        ),
        (
            "gates_passed".into(),
            s(&hs.iter().filter(|h| h.gate.is_met()).count().to_string()),
        ),
        (
            "gates_failed".into(),
            s(&hs
                .iter()
                .filter(|h| h.gate.satisfied == Some(false))
                .count()
                .to_string()),
        ),
    ]);
    mutate(
        ctx,
        Change::Put {
            path: "statistics".into(),
            value: stats,
        },
        "statistics",
        "recomputed after a gate",
    )?;
    for h in hs
        .iter()
        .filter(|h| h.status == HypothesisStatus::NotStarted)
    {
        let pre: Vec<_> = h
            .prerequisites
            .iter()
            .filter_map(|p| snap.vsa.hypothesis(p))
            .collect();
        let next = if pre.iter().all(|p| p.status.is_validated()) {
            "READY"
        } else if pre.iter().any(|p| {
            matches!(
                p.status,
                HypothesisStatus::Failed
                    | HypothesisStatus::Partial
                    | HypothesisStatus::Blocked
                    | HypothesisStatus::Skipped
            )
        }) {
            "BLOCKED"
        } else {
            continue;
        };
        mutate(
            ctx,
            Change::Set {
                path: format!("sub_hypotheses.{}.status", h.id),
                value: next.into(),
            },
            "status",
            &format!("prerequisites of {} settled", h.id),
        )?;
    }
    Ok(())
}

fn markdown(
    id: &str,
    gtype: &str,
    criteria: &[Criterion],
    gate: &GateOutcome,
    outcome: &JobOutcome,
    history: &[String],
) -> String {
    let mut out = vec![
        format!("# Validation: {id}\n"),
        format!(
            "**Gate:** {gtype}  \n**Result:** {}  \n**Exit:** {}  \n**Duration:** {:.1} s  \n**Sandboxed:** {}\n",
            gate.verdict.as_str(),
            outcome.exit.log_label(),
            outcome.duration.as_secs_f64(),
            outcome.sandboxed
        ),
    ];
    out.push("## Results\n\n| Check | Actual | Threshold | Passed |\n|-------|--------|-----------|--------|".into());
    for c in criteria {
        let actual = gate
            .measured
            .get(&c.metric)
            .map_or("not measured".to_string(), |v| v.to_string());
        let ok = !gate.failed_checks.iter().any(|f| f.criterion == c.metric);
        out.push(format!(
            "| {} | {actual} | {} {} | {} |",
            c.metric,
            c.op,
            c.value,
            if ok { "✅" } else { "❌" }
        ));
    }
    if !history.is_empty() {
        out.push(format!(
            "\n## Repairs\n\n{}",
            history
                .iter()
                .map(|h| format!("- {h}"))
                .collect::<Vec<_>>()
                .join("\n")
        ));
    }
    if !outcome.warnings.is_empty() {
        out.push(format!(
            "\n## Warnings\n\n{}",
            outcome
                .warnings
                .iter()
                .map(|w| format!("- {w}"))
                .collect::<Vec<_>>()
                .join("\n")
        ));
    }
    out.push(format!("\nLog: `{}`\n", outcome.log_path.display()));
    out.join("\n")
}
