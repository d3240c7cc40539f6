//! Reading a run into a [`Report`]: the store's snapshot for the VSA, `events.jsonl` for the
//! lifecycle and the escalations' reasons, `crate::rundir::memory` for the records,
//! `crate::plan::load` for the tree, `crate::paper::figures` and `crate::paper::draw` for
//! the charts. Nothing here parses a file those readers already parse.

use std::path::Path;

use super::{
    Chart, CriterionRow, EscalationRow, GateRow, IntervalRow, MemoryRow, Paper, PlanRow, Report,
    Summary, lifecycle, markdown,
};
use crate::rundir::events::Event;
use crate::vsa::{Snapshot, Store, SubHypothesis};

/// Why a run cannot be reported; each says what to do.
#[derive(Debug, thiserror::Error)]
pub enum CollectError {
    #[error("{0}")]
    NotARun(#[from] crate::rundir::discover::NotARun),
    #[error(
        "cannot read {path}: {source}. Fix the file at that line (or run `youra vsa repair`), then run this again"
    )]
    Vsa {
        path: String,
        // Boxed: the store's error is large and this one travels up every caller.
        #[source]
        source: Box<crate::vsa::StoreError>,
    },
}

/// Everything the page shows from the run in `dir`; `paper` is the paper and its check as
/// the CLI made them (`None`: the run has no paper yet).
pub fn collect(dir: &Path, paper: Option<Paper>) -> Result<Report, CollectError> {
    let run = crate::rundir::discover(dir)?;
    let snap = Store::new(&run.vsa)
        .load()
        .map_err(|source| CollectError::Vsa {
            path: run.vsa.display().to_string(),
            source: Box::new(source),
        })?;
    let (events, skipped) = crate::rundir::events::read_counted(&run.root.join("events.jsonl"));
    let mut warnings: Vec<String> = snap
        .warnings
        .iter()
        .map(|w| format!("verification_state.yaml:{}: {}", w.line, w.message))
        .collect();
    if skipped > 0 {
        warnings.push(format!(
            "{skipped} unreadable line(s) of events.jsonl skipped"
        ));
    }
    let references = crate::paper::refs::load(&run.root.join(crate::paper::refs::LITERATURE_FILE))
        .unwrap_or_else(|e| {
            warnings.push(e);
            Vec::new()
        });
    let (plan, plan_warning) = plan_rows(&run.root);
    warnings.extend(plan_warning);
    let (charts, chart_warnings) = charts(&run.root, &snap);
    warnings.extend(chart_warnings);
    let mut memory = Vec::new();
    for root in run.memory_roots() {
        let (records, problems) = crate::rundir::memory::load_dir(&root);
        warnings.extend(problems);
        memory.extend(records.into_iter().map(|r| MemoryRow {
            id: r.id,
            kind: r.kind.as_str().to_string(),
            title: r.title,
            hypothesis: r.hypothesis,
            date: r.date,
            routing: r.routing_decision,
            root_causes: r.root_causes,
            lessons: r.lessons,
        }));
    }
    let mut stages = lifecycle::stage_rows(&events);
    let from_history = stages.is_empty();
    if from_history {
        stages = lifecycle::history_rows(&snap.vsa.history);
    }
    Ok(Report {
        run: run.root.display().to_string(),
        generated_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        summary: summary(&run.root, &snap),
        lifecycle: stages,
        lifecycle_from_history: from_history,
        gates: snap.vsa.sub_hypotheses.iter().map(gate_row).collect(),
        plan,
        escalations: escalations(&snap, &events),
        // The whole history: a snapshot elides old items after youra's own writes.
        deviations: Store::new(&run.vsa)
            .whole(&snap)
            .map(|s| crate::vsa::deviation::read(&s.doc))
            .unwrap_or_default(),
        charts,
        memory,
        paper: paper.map(|p| Paper {
            title: markdown::title(&p.markdown),
            // Cited works as the reader knows them, from the records the search retrieved.
            markdown: markdown::cite_short(&p.markdown, &references),
            ..p
        }),
        run_cards: crate::paper::appendix_card::read_all(&run.root),
        warnings,
    })
}

fn summary(root: &Path, snap: &Snapshot) -> Summary {
    let v = &snap.vsa;
    let topic = snap
        .doc
        .root
        .as_ref()
        .and_then(|r| r.get("metadata")?.get("research_topic")?.as_str())
        .map(str::to_string);
    let usage = crate::llm::ledger::read_totals(&root.join("ledger.tsv"))
        .filter(|t| t.calls > 0)
        .map(|t| {
            use crate::plan::compact;
            format!(
                "{} calls, {} in / {} out tokens, {}",
                t.calls,
                compact(t.input_tokens),
                compact(t.output_tokens),
                t.cost_text()
            )
        });
    Summary {
        project: v.project_name.clone(),
        topic,
        hypothesis_title: v.main_hypothesis.as_ref().and_then(|m| m.title.clone()),
        hypothesis: v.main_hypothesis.as_ref().and_then(|m| m.statement.clone()),
        status: v.workflow.status.as_ref().map(ToString::to_string),
        stage: v.workflow.current_phase.clone(),
        mode: v.workflow.execution_mode.as_ref().map(ToString::to_string),
        stop_reason: v.workflow.stop_reason.clone(),
        next_action: v.workflow.next_action.clone(),
        waiting: v.workflow.awaits_decision(),
        usage,
    }
}

/// A sub-hypothesis's gate: each criterion with the value measured for it, then every
/// measured metric no criterion names (so every measured value is on the page).
pub(crate) fn gate_row(h: &SubHypothesis) -> GateRow {
    let g = &h.gate;
    let measured_of = |m: &str| {
        g.measured
            .iter()
            .find(|(k, _)| k == m)
            .map(|(_, v)| crate::vsa::model::shown_value(v))
    };
    let mut criteria: Vec<CriterionRow> = g
        .rules
        .iter()
        .map(|r| {
            let measured = measured_of(&r.metric);
            let met = measured
                .as_deref()
                .and_then(|m| m.trim().parse::<f64>().ok())
                .map(|m| crate::plan::met(r.op, r.value, m));
            CriterionRow {
                metric: r.metric.clone(),
                required: format!("{} {}", r.op, r.value),
                measured,
                met,
            }
        })
        .collect();
    // A gate written with `metric: requirement` text rather than rules.
    for (metric, requirement) in &g.criteria {
        if !criteria.iter().any(|c| &c.metric == metric) {
            criteria.push(CriterionRow {
                metric: metric.clone(),
                required: requirement.clone(),
                measured: measured_of(metric),
                met: None,
            });
        }
    }
    for (metric, value) in &g.measured {
        if !criteria.iter().any(|c| &c.metric == metric) {
            criteria.push(CriterionRow {
                metric: metric.clone(),
                required: String::new(),
                measured: Some(crate::vsa::model::shown_value(value)),
                met: None,
            });
        }
    }
    let failed_checks = g
        .failed_checks
        .iter()
        .map(|c| match &c.text {
            Some(t) => t.clone(),
            None => format!(
                "{}: required {}, actual {}{}",
                c.criterion.as_deref().unwrap_or("-"),
                c.required.as_deref().unwrap_or("-"),
                c.actual.as_deref().unwrap_or("-"),
                c.reason
                    .as_deref()
                    .map(|r| format!(" ({r})"))
                    .unwrap_or_default()
            ),
        })
        .collect();
    let intervals = g
        .evidence
        .iter()
        .map(|e| {
            let mut detail = e.method.clone().unwrap_or_default();
            let arm = |name: &str, a: &crate::vsa::model::ArmInterval| {
                format!("{name} {:.3} [{:.3}, {:.3}]", a.mean, a.lo, a.hi)
            };
            if let (Some(a), Some(b)) = (&e.arm, &e.baseline_arm) {
                detail = format!(
                    "{detail}; {}, {}",
                    arm(e.metric.as_deref().unwrap_or("arm"), a),
                    arm(e.baseline.as_deref().unwrap_or("baseline"), b)
                );
            }
            IntervalRow {
                quantity: e.quantity(),
                card: e.card_line(),
                verdict: e.verdict.as_ref().map_or("?".into(), |v| v.to_string()),
                detail,
            }
        })
        .collect();
    let undecided = g
        .undecided
        .iter()
        .map(|c| match &c.text {
            Some(t) => t.clone(),
            None => format!(
                "{}: {}",
                c.criterion.as_deref().unwrap_or("-"),
                c.reason.as_deref().unwrap_or("-")
            ),
        })
        .collect();
    GateRow {
        id: h.id.clone(),
        kind: h.kind.as_ref().map(ToString::to_string),
        statement: h.statement.clone(),
        status: h.status.to_string(),
        gate_type: g.gate_type.as_ref().map(ToString::to_string),
        result: g
            .result
            .as_ref()
            .map(ToString::to_string)
            .or_else(|| g.result_text.clone()),
        met: g.is_met(),
        criteria,
        failed_checks,
        intervals,
        undecided,
    }
}

fn plan_rows(root: &Path) -> (Vec<PlanRow>, Option<String>) {
    let loaded = match crate::plan::load(root, crate::plan::Plans::Read) {
        Ok(l) => l,
        Err(e) => {
            return (
                Vec::new(),
                Some(format!("the plan tree cannot be read: {e}")),
            );
        }
    };
    let rows = loaded
        .tree
        .preorder()
        .into_iter()
        .map(|(depth, n)| {
            let first_line = n
                .plan
                .as_deref()
                .and_then(|p| p.lines().map(str::trim).find(|l| !l.is_empty()))
                .map(|l| l.trim_start_matches('#').trim().to_string());
            let summary = Some(n.prior.hypothesis.trim().to_string())
                .filter(|s| !s.is_empty())
                .or(first_line)
                .unwrap_or_default();
            PlanRow {
                depth,
                id: n.id.as_str().to_string(),
                hypothesis: n.hypothesis_id.clone(),
                status: n.status.name().to_string(),
                pinned: n.pinned,
                vetoed: n.vetoed,
                prior: n.p(),
                q: n.stats.q,
                visits: n.stats.visits,
                reward: n.reward(),
                summary,
            }
        })
        .collect();
    (rows, None)
}

/// The decided escalations (`workflow.escalation_log`) with the decision's sentence from the
/// events, and the one that waits, with its grounds.
fn escalations(snap: &Snapshot, events: &[Event]) -> Vec<EscalationRow> {
    let by_id = |kind: &str, id: &str| {
        events.iter().find(|e| {
            e.kind == kind
                && e.message
                    .as_deref()
                    .is_some_and(|m| m.split_whitespace().next() == Some(id))
        })
    };
    let log = snap
        .doc
        .root
        .as_ref()
        .and_then(|r| r.get("workflow")?.get("escalation_log")?.as_seq())
        .unwrap_or_default();
    let mut out: Vec<EscalationRow> = log
        .iter()
        .map(|item| {
            let s = |k: &str| item.get(k).and_then(|n| n.as_str()).map(str::to_string);
            let id = s("id").unwrap_or_default();
            let raised = by_id("escalation", &id);
            EscalationRow {
                hypothesis: s("hypothesis"),
                raised_at: raised.map(|e| e.time.clone()),
                proposed: raised.and_then(|e| e.action.clone()),
                verdict: s("verdict"),
                by: s("by"),
                applied: s("applied"),
                decided_at: s("at"),
                reason: by_id("decision", &id).and_then(|e| e.message.clone()),
                grounds: Vec::new(),
                waiting: false,
                id,
            }
        })
        .collect();
    if let Some(e) = &snap.vsa.workflow.escalation {
        let mut grounds: Vec<String> = e.failed_checks.clone();
        grounds.extend(e.attributions.iter().map(|a| {
            let severity = a.severity.map(|s| format!(" s={s}")).unwrap_or_default();
            format!(
                "[{}{severity}] {} — fix: {}",
                a.category, a.description, a.fix
            )
        }));
        if let Some(r) = &e.clamp_reason {
            grounds.push(format!("clamp: {r}"));
        }
        let d = e.decision.as_ref();
        out.push(EscalationRow {
            id: e.id.clone().unwrap_or_else(|| "pending".into()),
            hypothesis: e.hypothesis.clone(),
            raised_at: e.raised_at.clone(),
            proposed: e.proposed_action.clone(),
            verdict: d.and_then(|d| d.verdict_text.clone()),
            // Both names where two were required; a first answer's "1 of 2" while it waits.
            by: d
                .map(|d| d.who())
                .or_else(|| super::deviations::first_answers(e)),
            applied: d.and_then(|d| d.action.clone()),
            decided_at: d.and_then(|d| d.at.clone()),
            reason: d.and_then(|d| d.reason.clone()),
            grounds,
            waiting: e.waits(),
        });
    }
    out
}

/// The metric curve of each sub-hypothesis and the gate summary, drawn as the paper draws
/// them, from the measured files. Labels come from the run, so control and bidi characters
/// are removed before plotters writes them (it escapes the markup characters itself).
fn charts(root: &Path, snap: &Snapshot) -> (Vec<Chart>, Vec<String>) {
    use crate::paper::{draw, figures};
    let clean = |s: &str| s.chars().filter(|c| !crate::term::is_unsafe(*c)).collect();
    let gates = figures::gates_of(&snap.vsa);
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    for h in &gates {
        let Some(figures::Plot {
            curve: mut c,
            notes,
            ..
        }) = figures::curve(root, h)
        else {
            continue;
        };
        warnings.extend(notes);
        c.title = clean(&c.title);
        c.x_name = clean(&c.x_name);
        c.metric = clean(&c.metric);
        for (name, _) in &mut c.series {
            *name = clean(name);
        }
        let caption = format!(
            "Measured {} of {} across its attempts{}",
            c.metric,
            clean(&h.id),
            if c.threshold.is_some() {
                ", with the gate's threshold dashed"
            } else {
                ""
            }
        );
        match draw::curves(&c) {
            Ok(svg) => out.push((format!("figures/{}_metric.svg", h.id), caption, svg)),
            Err(e) => warnings.push(format!("{}: {e}", h.id)),
        }
    }
    let (mut bars, _) = figures::gate_bars(root, &gates);
    for b in &mut bars {
        b.label = clean(&b.label);
    }
    if !bars.is_empty() {
        match draw::gates(&bars) {
            Ok(svg) => out.push((
                "figures/gates.svg".into(),
                "Gate summary: each criterion's required value beside the value measured".into(),
                svg,
            )),
            Err(e) => warnings.push(format!("gate summary: {e}")),
        }
    }
    let charts = out
        .into_iter()
        .map(|(path, caption, svg)| Chart { path, caption, svg })
        .collect();
    (charts, warnings)
}
