//! What Coding & Validation records: the gate in YouRA's VSA shape (type, satisfied,
//! result, failed_checks with criterion / required / actual / reason), the sub-hypothesis's
//! status, the statistics block, dependants unblocked, and `04_validation.md`. A MUST_WORK
//! gate that is not met stops the run with the evidence; a SHOULD_WORK one is recorded as a
//! limitation and the loop goes on (YouRA Algorithm 1).

use super::Produced;
use super::limitation::{limitation, record_key};
use crate::engine::check::Check;
use crate::engine::criteria::Criteria;
use crate::engine::ctx::StageCtx;
use crate::engine::error::StageError;
use crate::engine::gates::{GateOutcome, Verdict};
use crate::engine::plan_search::Note;
use crate::engine::yamlout::{now, text};
use crate::exec::JobOutcome;
use crate::rundir::events::Event;
use crate::vsa::enums::{ExecutionMode, GateType, HypothesisStatus};
use crate::vsa::model::Transition;
use crate::vsa::mutation::{Change, Mutation};
use crate::vsa::store::Snapshot;
use crate::yaml::NewNode;

fn s(v: &str) -> NewNode {
    NewNode::Scalar(v.to_string())
}

/// The gate's judgement as field edits: the engine writes only the keys it owns, never the
/// whole `gate` map, so the type, YouRA's `criterion` text, the criteria (and a
/// researcher's edit of them) and any key the engine does not know stay as they are.
fn gate_edits(tx: &mut Mutation, id: &str, gate: &GateOutcome, why: &str, had_evidence: bool) {
    let check_nodes = |list: &[crate::engine::gates::FailedCheck]| {
        list.iter()
            .map(|c| {
                NewNode::Map(vec![
                    ("criterion".into(), text(&c.criterion)),
                    ("required".into(), text(&c.required)),
                    ("actual".into(), text(&c.actual)),
                    ("reason".into(), text(&c.reason)),
                ])
            })
            .collect::<Vec<_>>()
    };
    let checks = check_nodes(&gate.failed_checks);
    let measured = gate
        .measured
        .iter()
        .map(|(k, v)| (k.clone(), s(&v.to_string())))
        .collect();
    let base = format!("sub_hypotheses.{id}.gate");
    let satisfied = if gate.verdict == Verdict::Pass {
        "true"
    } else {
        "false"
    };
    let fields = [
        ("satisfied", s(satisfied)),
        ("result", s(gate.verdict.as_str())),
        ("failed_checks", NewNode::Seq(checks)),
        ("measured", NewNode::Map(measured)),
        ("evaluated_at", now()),
    ];
    for (k, v) in fields {
        tx.push(Change::at(format!("{base}.{k}"), v), "gate_evaluated", why);
    }
    // The intervals behind the verdict (issue 40), beside the criteria they judge, and what
    // left it undecided (a post-hoc claim measured once has no interval, only the why);
    // written empty over an earlier judgement's, so a gate never shows another run's.
    if !gate.evidence.is_empty() || !gate.undecided.is_empty() || had_evidence {
        let evidence = gate
            .evidence
            .iter()
            .map(super::gate_evidence::node)
            .collect();
        tx.push(
            Change::at(format!("{base}.evidence"), NewNode::Seq(evidence)),
            "gate_evaluated",
            why,
        );
        tx.push(
            Change::at(
                format!("{base}.undecided"),
                NewNode::Seq(check_nodes(&gate.undecided)),
            ),
            "gate_evaluated",
            why,
        );
    }
}

fn gate_type(snap: &Snapshot, id: &str) -> (bool, String) {
    let t = snap
        .vsa
        .hypothesis(id)
        .and_then(|h| h.gate.gate_type.clone());
    let must = !matches!(t, Some(GateType::ShouldWork));
    (
        must,
        t.map_or("MUST_WORK".into(), |t| t.as_str().to_string()),
    )
}

/// The gate judged: its fields, the status, statistics and dependants in one transaction.
/// A MUST_WORK gate not met also opens the recovery journal in that transaction and goes
/// straight into recovery; otherwise the transaction is returned to be written with the
/// stage's completion (after the controller accepts the validation record).
/// With a plan-tree search, `search` is its end: the gate is the best node's, and the VSA's
/// `search` map says which node and why (`outcome` is `None` when the best node is not the
/// attempt that just ran).
pub fn record(
    ctx: &StageCtx<'_>,
    id: &str,
    criteria: &Criteria,
    gate: &GateOutcome,
    outcome: Option<&JobOutcome>,
    history: &[String],
    search: Option<&Note>,
) -> Result<Produced, StageError> {
    let snap = ctx.vsa()?;
    // A claim stated after a redesign is not confirmed by a measurement youra cannot tell
    // from the old one, whichever path judged it (one run, a search, a confirmation).
    let gate = &super::post_hoc::unconfirmed(
        super::post_hoc::stated_after(&snap, id),
        !gate.evidence.is_empty(),
        gate.clone(),
    );
    let (must, gtype) = gate_type(&snap, id);
    // A post-hoc claim left INCONCLUSIVE is exploratory: recorded as such, like a
    // SHOULD_WORK limitation, never a stop of the pre-registered study nor a recovery.
    let exploratory = super::post_hoc::exploratory(&snap, id, gate.verdict);
    // Repeats could not decide a MUST_WORK gate: INTERACTIVE, the researcher decides (the
    // run stops below); UNATTENDED, nobody is there to, so it is recorded as inconclusive —
    // never a pass, its dependants blocked — and the run goes on with the rest.
    let unattended = gate.verdict == Verdict::Inconclusive
        && snap.vsa.workflow.execution_mode == Some(ExecutionMode::Unattended);
    let recorded_only = must && (exploratory || unattended);
    let must = must && !recorded_only;
    let verdict = gate.verdict.as_str();
    let status = match gate.verdict {
        Verdict::Pass => HypothesisStatus::Validated,
        Verdict::Partial => HypothesisStatus::Partial,
        Verdict::Fail => HypothesisStatus::Failed,
        // Never a pass: a SHOULD_WORK gate's limitation; a MUST_WORK one stops below with
        // the hypothesis still in progress.
        Verdict::Inconclusive if must => HypothesisStatus::InProgress,
        Verdict::Inconclusive => HypothesisStatus::Partial,
    };
    let had_evidence = super::gate_evidence::present(&snap, id);
    let why = format!("{id} gate {verdict} on measured metrics");
    let mut report = markdown(id, &gtype, criteria, gate, outcome, history);
    if let Some(n) = search {
        report.push_str(&search_section(n, true));
    }
    let rel = format!("{id}/{}", super::artifacts::VALIDATION);
    ctx.write(&rel, &report)?;
    let mut message = gate
        .failed_checks
        .iter()
        .chain(&gate.undecided)
        .map(|c| c.reason.clone())
        .collect::<Vec<_>>();
    message.extend(criteria.edits.iter().cloned());
    if let Some(n) = search {
        message.push(format!("the search's result is {}", n.best.why()));
    }
    let event = Event::new("gate")
        .hypothesis(id)
        .result(verdict)
        .message(message.join("; "));
    let mut tx = Mutation::by("engine");
    gate_edits(&mut tx, id, gate, &why, had_evidence);
    if let Some(n) = search {
        n.edits(&mut tx, id, true);
    }
    tx.push(
        Change::Set {
            path: format!("sub_hypotheses.{id}.status"),
            value: status.as_str().into(),
        },
        "status",
        &why,
    );
    after_gate(&mut tx, &snap, id, status, exploratory);
    if gate.verdict == Verdict::Inconclusive && must {
        // Repeats could not decide it (at `max_repeats`, or a criterion no repeat can prove):
        // the researcher decides, and nothing after this gate runs on it meanwhile.
        let reason = super::gate_evidence::stop_reason(id, gate, &rel);
        tx.extend(crate::engine::run_stop_mutation(&reason));
        ctx.store.mutate(&tx)?;
        ctx.emit(event);
        return Err(StageError::MustStop(reason));
    }
    // A failed SHOULD_WORK gate is retried from Experiment Design while a same-hypothesis
    // improvement path remains (YouRA Algorithm 1, lines 6–9), through the same recovery.
    let retry = !must
        && gate.verdict != Verdict::Inconclusive
        && crate::engine::recovery::improvement_path(&snap.doc, id, ctx.recovery);
    if gate.verdict != Verdict::Pass && (must || retry) {
        // Recovery decides where the run goes: journaled with the gate, so a crash cannot
        // leave a failed gate without its recovery.
        let memory = ctx.run.join("memory");
        let run = crate::reflect::record_key::run_number(&memory, "failure", id, &record_key(ctx));
        let t = Transition::attributing(
            id,
            ctx.round,
            ctx.attempt,
            format!("failure_{id}_run{run}.md"),
        );
        tx.push(
            Change::Put {
                path: "workflow.pending_transition".into(),
                value: t.node(),
            },
            "recovery_begun",
            &format!("{id}: {gtype} gate {verdict}; recovery begins"),
        );
        ctx.store.mutate(&tx)?;
        ctx.emit(event);
        let done = crate::engine::escalation::finish(ctx, &t)?;
        return Err(StageError::Rerouted(done));
    }
    if gate.verdict != Verdict::Pass {
        let note = if exploratory {
            format!(
                "{gtype} gate {verdict}, post hoc: recorded as exploratory (not confirmed), the loop goes on"
            )
        } else if recorded_only {
            format!(
                "{gtype} gate {verdict}: repeats could not decide it and the run is UNATTENDED, so it is \
                 recorded as inconclusive (never a pass; its dependants stay blocked), the loop goes on"
            )
        } else {
            format!("SHOULD_WORK gate {verdict}: recorded as a limitation, the loop goes on")
        };
        limitation(ctx, &mut tx, id, &note, Some(gate))?;
    }
    let mut produced = Produced::new(
        rel,
        Check {
            missing: Vec::new(),
        },
    );
    produced.commit = tx;
    produced.events.push(event);
    Ok(produced)
}

/// Every repair attempt failed before a gate could be judged.
pub fn exhausted(ctx: &StageCtx<'_>, id: &str, history: &[String]) -> Result<Produced, StageError> {
    let snap = ctx.vsa()?;
    let (must, _) = gate_type(&snap, id);
    let list = history
        .iter()
        .map(|h| format!("- {h}"))
        .collect::<Vec<_>>()
        .join("\n");
    let rel = format!("{id}/{}", super::artifacts::VALIDATION);
    ctx.write(&rel, &format!("# Validation: {id}\n\n**Result:** FAILED before a gate could be judged ({} attempts)\n\n## Attempts\n\n{list}\n", history.len()))?;
    let why = format!("{id}: no usable results after {} attempts", history.len());
    let mut tx = Mutation::by("engine");
    tx.push(
        Change::Set {
            path: format!("sub_hypotheses.{id}.status"),
            value: HypothesisStatus::Failed.as_str().into(),
        },
        "status",
        &why,
    );
    after_gate(&mut tx, &snap, id, HypothesisStatus::Failed, false);
    if must {
        // The failure and the stop in one write: a crash cannot leave a failed MUST_WORK
        // hypothesis in a run that goes on.
        let reason = format!("{why} (MUST_WORK); see {rel}");
        tx.extend(crate::engine::run_stop_mutation(&reason));
        ctx.store.mutate(&tx)?;
        return Err(StageError::MustStop(reason));
    }
    limitation(ctx, &mut tx, id, &why, None)?;
    let mut produced = Produced::new(
        rel,
        Check {
            missing: Vec::new(),
        },
    );
    produced.commit = tx;
    Ok(produced)
}

/// Statistics recomputed and dependants settled as they stand once `id` has `status`:
/// those whose prerequisites all let them start (validated, or a failed SHOULD_WORK gate: a
/// limitation, not a block) become READY, those waiting on a failed MUST_WORK prerequisite
/// BLOCKED. Added to the gate's transaction.
pub(crate) fn after_gate(
    tx: &mut Mutation,
    snap: &Snapshot,
    id: &str,
    status: HypothesisStatus,
    exploratory: bool,
) {
    let status_of = |h: &crate::vsa::SubHypothesis| {
        if h.id == id {
            status.clone()
        } else {
            h.status.clone()
        }
    };
    let hs = &snap.vsa.sub_hypotheses;
    let count = |f: &dyn Fn(&HypothesisStatus) -> bool| {
        hs.iter().filter(|h| f(&status_of(h))).count().to_string()
    };
    let met = |h: &crate::vsa::SubHypothesis| {
        if h.id == id {
            status.is_validated()
        } else {
            h.gate.is_met()
        }
    };
    let unmet = |h: &crate::vsa::SubHypothesis| {
        if h.id == id {
            !status.is_validated()
        } else {
            h.gate.satisfied == Some(false)
        }
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
            s(&hs.iter().filter(|h| met(h)).count().to_string()),
        ),
        (
            "gates_failed".into(),
            s(&hs.iter().filter(|h| unmet(h)).count().to_string()),
        ),
    ]);
    tx.push(
        Change::Put {
            path: "statistics".into(),
            value: stats,
        },
        "statistics",
        "recomputed after a gate",
    );
    for h in hs
        .iter()
        .filter(|h| h.id != id && h.status == HypothesisStatus::NotStarted)
    {
        // (status, whether it lets its dependants start): the gate just judged by its new
        // status (an exploratory post-hoc one lets them run, exploratory too).
        let pre: Vec<(HypothesisStatus, bool)> = h
            .prerequisites
            .iter()
            .filter_map(|p| snap.vsa.hypothesis(p))
            .map(|p| {
                let starts = if p.id == id {
                    exploratory || status.lets_dependants_start(p.gate.gate_type.as_ref())
                } else {
                    p.lets_dependants_start()
                };
                (status_of(p), starts)
            })
            .collect();
        let next = if pre.iter().all(|(_, starts)| *starts) {
            HypothesisStatus::Ready
        } else if pre.iter().any(|(p, _)| {
            matches!(
                p,
                HypothesisStatus::Failed
                    | HypothesisStatus::Partial
                    | HypothesisStatus::Blocked
                    | HypothesisStatus::Skipped
            )
        }) {
            HypothesisStatus::Blocked
        } else {
            continue;
        };
        tx.push(
            Change::Set {
                path: format!("sub_hypotheses.{}.status", h.id),
                value: next.as_str().into(),
            },
            "status",
            &format!("prerequisites of {} settled", h.id),
        );
    }
}

/// A step of a plan-tree search that has passed and goes on: the gate fields show the best
/// node so far, the sub-hypothesis stays IN_PROGRESS (its dependants wait for its result),
/// and Coding & Validation is reopened for the next node. No recovery: the sub-hypothesis has
/// passed, and a later node that misses is only a worse branch of its search.
pub(crate) fn search_step(
    ctx: &StageCtx<'_>,
    id: &str,
    criteria: &Criteria,
    attempt: Option<(&GateOutcome, &JobOutcome)>,
    history: &[String],
    note: &Note,
) -> Result<Produced, StageError> {
    let best = crate::engine::gates::evaluate(&criteria.list, &note.best.measured);
    let (gtype, verdict) = (gate_type(&*ctx.vsa()?, id).1, best.verdict.as_str());
    let mut report = match attempt {
        Some((gate, outcome)) => markdown(id, &gtype, criteria, gate, Some(outcome), history),
        None => format!("# Validation: {id}\n\nThis attempt produced no usable result.\n"),
    };
    report.push_str(&search_section(note, false));
    let rel = format!("{id}/{}", super::artifacts::VALIDATION);
    ctx.write(&rel, &report)?;
    let why = format!("{id}: plan-tree search goes on ({})", note.why);
    let had_evidence = super::gate_evidence::present(&*ctx.vsa()?, id);
    let mut tx = Mutation::by("engine");
    gate_edits(&mut tx, id, &best, &why, had_evidence);
    note.edits(&mut tx, id, false);
    tx.push(
        Change::Set {
            path: format!("sub_hypotheses.{id}.status"),
            value: HypothesisStatus::InProgress.as_str().into(),
        },
        "status",
        &why,
    );
    let mut produced = Produced::new(
        rel,
        Check {
            missing: Vec::new(),
        },
    );
    produced.commit = tx;
    produced.reopen = true;
    produced.events.push(
        Event::new("gate")
            .hypothesis(id)
            .result(verdict)
            .message(format!(
                "best so far {}; the search goes on: {}",
                note.best.why(),
                note.why
            )),
    );
    Ok(produced)
}

fn search_section(note: &Note, settled: bool) -> String {
    let mut out = format!(
        "\n## Plan-tree search\n\n- Best node: {}\n- Attempts after the first pass: {}\n",
        note.best.why(),
        note.after_pass_attempts
    );
    let measured = note
        .best
        .measured
        .iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect::<Vec<_>>()
        .join(", ");
    if !measured.is_empty() {
        out.push_str(&format!("- Best node measured: {measured}\n"));
    }
    out.push_str(&format!(
        "- {}: {}\n",
        if settled {
            "The search ended"
        } else {
            "The search goes on"
        },
        note.why
    ));
    out
}

fn markdown(
    id: &str,
    gtype: &str,
    criteria: &Criteria,
    gate: &GateOutcome,
    outcome: Option<&JobOutcome>,
    history: &[String],
) -> String {
    let mut out = vec![
        format!("# Validation: {id}\n"),
        match outcome {
            Some(outcome) => format!(
                "**Gate:** {gtype}  \n**Result:** {}  \n**Exit:** {}  \n**Duration:** {:.1} s  \n**Sandboxed:** {}\n",
                gate.verdict.as_str(),
                outcome.exit.log_label(),
                outcome.duration.as_secs_f64(),
                outcome.sandboxed
            ),
            None => format!(
                "**Gate:** {gtype}  \n**Result:** {}  \n**Measured by:** the plan-tree search's best node (an earlier attempt)\n",
                gate.verdict.as_str()
            ),
        },
    ];
    out.push("## Results\n\n| Check | Actual | Threshold | Passed |\n|-------|--------|-----------|--------|".into());
    for c in &criteria.list {
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
    if !criteria.edits.is_empty() {
        out.push(format!(
            "\n## Criteria edits\n\nJudged by the criteria in the VSA at judgement time, which differ from the brief's:\n\n{}",
            criteria
                .edits
                .iter()
                .map(|e| format!("- {e}"))
                .collect::<Vec<_>>()
                .join("\n")
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
    if let Some(outcome) = outcome {
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
    }
    out.join("\n")
}
