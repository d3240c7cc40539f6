//! `youra status`: where the research stands, in one screen or as JSON.

use std::collections::BTreeMap;
use std::path::Path;

use color_eyre::eyre::Result;
use serde::Serialize;

use super::fail;
#[path = "status_spend.rs"]
mod spend;
use crate::rundir::archive::{ArchiveMarker, load_archives};
use crate::rundir::artifacts::{ArtifactPresence, scan};
use crate::rundir::memory::load_dir;
use crate::rundir::{RunDir, discover};
use crate::vsa::invariants::{Violation, violations};
use crate::vsa::{HistoryEntry, Store, SubHypothesis, Vsa, Warning};
use spend::{PlanSpend, Usage, plan_line, plan_spend, usage};

#[derive(Serialize)]
struct StatusReport<'a> {
    run: &'a RunDir,
    project: Option<&'a str>,
    schema_version: Option<&'a str>,
    revision: u64,
    stage: Option<&'a str>,
    workflow_status: Option<String>,
    execution_mode: Option<String>,
    /// `[exec] sandbox`: `required` or `off` (shown on its own line when off).
    sandbox: &'static str,
    next_action: Option<&'a str>,
    waiting: Vec<String>,
    sub_hypotheses: &'a [SubHypothesis],
    counts: BTreeMap<String, usize>,
    recent_history: Vec<&'a HistoryEntry>,
    memory_by_kind: BTreeMap<String, usize>,
    archives_by_route: BTreeMap<String, usize>,
    archives: &'a [ArchiveMarker],
    warnings: &'a [Warning],
    invariant_violations: Vec<Violation>,
    artifacts: Vec<ArtifactPresence>,
    /// What the model calls cost, from `ledger.tsv` (absent when no call was made).
    usage: Option<Usage>,
    /// The plan tree's budget and what it was spent on (absent without a plan budget).
    plan: Option<PlanSpend>,
    /// The experiment queue: waiting, running (where, for how long), finished. An
    /// experiment is `running` only while an engine holds the run's lock; otherwise its
    /// row is in `stopped_experiments`.
    experiments: Vec<crate::rundir::jobs::JobRow>,
    /// The engine running this run now (`pid N since T`), from its lock; none: no engine.
    engine: Option<String>,
    /// The workflow reads ACTIVE but no engine runs it, and one did before (it was killed):
    /// `interrupted (no engine is running): resume with `youra run <dir>``.
    interrupted: Option<String>,
    /// `waiting for <endpoint> since <time> …` while the engine waits out a model outage.
    model_waiting: Option<String>,
    /// Experiments the events call started and not ended while no engine runs the run:
    /// nothing follows them (a stopped or killed engine); `youra run` resumes them.
    stopped_experiments: Vec<crate::rundir::jobs::JobRow>,
}

const RECENT: usize = 5;

pub fn run(dir: &Path, json: bool) -> Result<i32> {
    let run = match discover(dir) {
        Ok(r) => r,
        Err(e) => return Ok(super::no_run(e)),
    };
    let snap = match Store::new(&run.vsa).load() {
        Ok(s) => s,
        Err(e) => {
            return Ok(fail(
                e,
                "fix the file by hand at that line; youra never overwrites a file it cannot read",
            ));
        }
    };
    let mut memory_by_kind = BTreeMap::new();
    for root in run.memory_roots() {
        for rec in load_dir(&root).0 {
            *memory_by_kind
                .entry(rec.kind.as_str().to_string())
                .or_insert(0) += 1;
        }
    }
    let archives = load_archives(&run.root);
    let mut archives_by_route = BTreeMap::new();
    for a in &archives {
        *archives_by_route
            .entry(a.route_target.clone().unwrap_or_else(|| "unknown".into()))
            .or_insert(0) += 1;
    }
    let vsa = &snap.vsa;
    let ids: Vec<String> = vsa.sub_hypotheses.iter().map(|h| h.id.clone()).collect();
    let engine = crate::engine::lock::holder(&run.root);
    let (experiments, stopped_experiments) = split_followed(
        crate::rundir::jobs::queue(
            // Streamed: only the experiment events are kept, not the whole log.
            &crate::rundir::jobs::ExperimentIndex::read(&run.root.join("events.jsonl")),
            vsa,
            chrono::Utc::now().fixed_offset(),
        ),
        engine.is_some(),
    );
    let report = StatusReport {
        run: &run,
        project: vsa.project_name.as_deref(),
        schema_version: vsa.schema_version.as_deref(),
        revision: vsa.revision,
        stage: vsa.workflow.current_phase.as_deref(),
        workflow_status: vsa.workflow.status.as_ref().map(ToString::to_string),
        execution_mode: vsa
            .workflow
            .execution_mode
            .as_ref()
            .map(ToString::to_string),
        sandbox: crate::config::load(&run.root)
            .map(|c| c.exec.sandbox.as_str())
            .unwrap_or("unknown (youra.toml does not load: run `youra config show`)"),
        next_action: vsa.workflow.next_action.as_deref(),
        // What waits for a researcher's name (1 of 2) or was decided by whom.
        waiting: [waiting(vsa), crate::steer::who_waits(&snap)].concat(),
        sub_hypotheses: &vsa.sub_hypotheses,
        counts: counts(vsa),
        recent_history: vsa.history.iter().rev().take(RECENT).collect(),
        memory_by_kind,
        archives_by_route,
        archives: &archives,
        warnings: &snap.warnings,
        invariant_violations: violations(vsa),
        artifacts: scan(&run.root, &ids),
        usage: usage(&run.root),
        plan: plan_spend(&run.root),
        experiments,
        interrupted: interrupted(vsa, &run.root, engine.is_some()),
        engine,
        model_waiting: crate::engine::outage::waiting(&run.root).map(|w| w.line()),
        stopped_experiments,
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_text(&report);
    }
    Ok(0)
}

/// The queue's rows, and apart from them the rows the events call running while no engine
/// runs the run (`engine_alive` false): an experiment is running only while something
/// follows it.
fn split_followed(
    rows: Vec<crate::rundir::jobs::JobRow>,
    engine_alive: bool,
) -> (
    Vec<crate::rundir::jobs::JobRow>,
    Vec<crate::rundir::jobs::JobRow>,
) {
    use crate::rundir::jobs::JobState;
    if engine_alive {
        return (rows, Vec::new());
    }
    rows.into_iter()
        .partition(|r| !matches!(r.state, JobState::Running { .. }))
}

/// An ACTIVE workflow no engine runs, on a run an engine ran before: its engine was killed
/// (or failed) mid-run, and nothing goes on until `youra run` resumes it.
fn interrupted(vsa: &Vsa, root: &Path, engine_alive: bool) -> Option<String> {
    use crate::vsa::enums::WorkflowStatus as W;
    if engine_alive
        || vsa.workflow.status != Some(W::Active)
        || !crate::rundir::engine_lock::ran_before(root)
    {
        return None;
    }
    let word = crate::notice::message::shell_word(&root.display().to_string());
    Some(format!(
        "interrupted (no engine is running): resume with `youra run {word}`"
    ))
}

/// What needs the researcher: the first thing the status shows.
fn waiting(vsa: &Vsa) -> Vec<String> {
    use crate::vsa::enums::WorkflowStatus as W;
    let mut out = Vec::new();
    if vsa.workflow.awaits_decision() {
        out.push("an escalation waits for approval (workflow.pending_escalation)".into());
    }
    if let Some(r) = vsa.workflow.review.as_ref().filter(|r| r.waits()) {
        out.push(format!(
            "{}'s experiment{} waits for review ({}): `youra steer <run> review approve|reject|branch|edit <file> --file F --reason R`",
            r.hypothesis.as_deref().unwrap_or("?"),
            r.node.as_deref().map(|n| format!(" ({n})")).unwrap_or_default(),
            r.record.as_deref().unwrap_or("workflow.pending_review")
        ));
    }
    match vsa.workflow.status {
        Some(W::AwaitingApproval) if !vsa.workflow.awaits_decision() => {
            out.push("the workflow awaits approval".into())
        }
        Some(W::Paused) => out.push("the run is paused".into()),
        Some(W::Stopped) => out.push(format!(
            "the run stopped (MUST_STOP): {}{}",
            vsa.workflow
                .stop_reason
                .as_deref()
                .unwrap_or("no reason given"),
            // An infrastructure stop's reason already says how it goes on.
            if crate::engine::outage::is_infrastructure(vsa.workflow.stop_reason.as_deref()) {
                ""
            } else {
                "; fix the cause, then `youra steer <run> resume` and `youra run <run>`"
            }
        )),
        _ => {}
    }
    out
}

fn counts(vsa: &Vsa) -> BTreeMap<String, usize> {
    let mut c = BTreeMap::new();
    for h in &vsa.sub_hypotheses {
        *c.entry(h.status.to_string()).or_insert(0) += 1;
    }
    c
}

fn opt(v: Option<&str>) -> &str {
    v.unwrap_or("-")
}

fn print_text(r: &StatusReport<'_>) {
    let layout = match r.run.layout {
        crate::rundir::Layout::Native => "youra run",
        crate::rundir::Layout::YouraResearch => "YouRA research folder",
    };
    println!("Run:        {} ({layout})", r.run.root.display());
    for n in &r.run.notes {
        println!("            note: {n}");
    }
    println!(
        "Project:    {}   schema {}   revision {}",
        opt(r.project),
        opt(r.schema_version),
        r.revision
    );
    println!("Stage:      {}", opt(r.stage));
    println!(
        "Workflow:   {} ({}){}",
        r.workflow_status.as_deref().unwrap_or("-"),
        r.execution_mode.as_deref().unwrap_or("-"),
        r.interrupted
            .as_deref()
            .map(|i| format!(" — {i}"))
            .unwrap_or_default()
    );
    match r.sandbox {
        "required" => {}
        "off" => println!("Sandbox:    OFF — experiments run without a sandbox"),
        other => println!("Sandbox:    {other}"),
    }
    println!("Next:       {}", opt(r.next_action));
    if let Some(u) = &r.usage {
        let thinking = if u.reasoning_tokens > 0 {
            format!(" ({} thinking)", u.reasoning_tokens)
        } else {
            String::new()
        };
        println!(
            "Models:     {} calls, {} in / {} out tokens{thinking}, {}",
            u.calls, u.input_tokens, u.output_tokens, u.cost
        );
    }
    if let Some(p) = &r.plan {
        println!("Plan:       {}", plan_line(p));
    }
    for w in &r.waiting {
        println!(">> WAITING FOR YOU: {w}");
    }
    match &r.engine {
        Some(who) => println!("Engine:     running ({who})"),
        None => println!("Engine:     not running"),
    }
    if let Some(w) = &r.model_waiting {
        println!("Model:      {w}");
    }
    print_running(&r.experiments);
    print_stopped(&r.stopped_experiments);
    let summary: Vec<String> = r.counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
    println!(
        "\nSub-hypotheses ({}): {}",
        r.sub_hypotheses.len(),
        summary.join(", ")
    );
    if !r.sub_hypotheses.is_empty() {
        println!(
            "  {:<12} {:<10} {:<18} {:<14} {:<8} {:<14} ARTIFACTS",
            "ID", "TYPE", "GATE", "STATUS", "RESULT", "PREREQUISITES"
        );
    }
    for (h, art) in r.sub_hypotheses.iter().zip(&r.artifacts) {
        let gate = h
            .gate
            .gate_type
            .as_ref()
            .map_or("-".into(), ToString::to_string);
        let result = h
            .gate
            .result
            .as_ref()
            .map_or("-".into(), ToString::to_string);
        let kind = h.kind.as_ref().map_or("-".into(), ToString::to_string);
        println!(
            "  {:<12} {:<10} {:<18} {:<14} {:<8} {:<14} {}",
            h.id,
            kind,
            gate,
            h.status.to_string(),
            result,
            h.prerequisites.join(", "),
            art.present().join(" ")
        );
        for c in h.gate.failed_checks.iter().take(3) {
            let text = c.text.clone().unwrap_or_else(|| {
                format!(
                    "{}: required {}, actual {}",
                    opt(c.criterion.as_deref()),
                    opt(c.required.as_deref()),
                    opt(c.actual.as_deref())
                )
            });
            println!("  {:<12} failed check: {text}", "");
        }
        for line in interval_lines(&h.gate) {
            println!("  {:<12} {line}", "");
        }
    }
    println!("\nRecent history (newest first):");
    for e in &r.recent_history {
        let when = e.timestamp.map_or_else(
            || "-".to_string(),
            |t| t.at.format("%Y-%m-%d %H:%M").to_string(),
        );
        println!("  {when:<16}  {}", truncate(&e.summary(), 100));
    }
    let mem: Vec<String> = r
        .memory_by_kind
        .iter()
        .map(|(k, v)| format!("{v} {k}"))
        .collect();
    println!(
        "\nMemory:     {}",
        if mem.is_empty() {
            "none".into()
        } else {
            mem.join(", ")
        }
    );
    let arch: Vec<String> = r
        .archives_by_route
        .iter()
        .map(|(k, v)| format!("{v} -> {k}"))
        .collect();
    println!(
        "Archives:   {}",
        if arch.is_empty() {
            "none".into()
        } else {
            arch.join(", ")
        }
    );
    for v in &r.invariant_violations {
        println!("Invariant:  [{}] {}", v.invariant.name(), v.message);
    }
    if !r.warnings.is_empty() {
        println!(
            "Warnings:   {} normalisation(s); `youra vsa validate {}` lists them",
            r.warnings.len(),
            r.run.root.display()
        );
    }
}

fn truncate(s: &str, n: usize) -> String {
    let one_line = s.replace('\n', " ");
    if one_line.chars().count() <= n {
        one_line
    } else {
        format!("{}…", one_line.chars().take(n - 1).collect::<String>())
    }
}

/// Experiments started and never ended, with no engine to follow them.
fn print_stopped(jobs: &[crate::rundir::jobs::JobRow]) {
    use crate::rundir::jobs::JobState;
    if jobs.is_empty() {
        return;
    }
    println!(
        "Stopped:    {} experiment(s) started and not followed (no engine runs this run); `youra run` resumes them",
        jobs.len()
    );
    for j in jobs {
        if let JobState::Running { placement, .. } = &j.state {
            println!("  {:<12} not followed {placement}", j.hypothesis);
        }
    }
}

/// The experiments running now, one line each, and how many wait for a slot.
fn print_running(jobs: &[crate::rundir::jobs::JobRow]) {
    use crate::rundir::jobs::JobState;
    let running: Vec<_> = jobs
        .iter()
        .filter(|j| matches!(j.state, JobState::Running { .. }))
        .collect();
    let waiting = jobs.iter().filter(|j| j.state == JobState::Waiting).count();
    if running.is_empty() && waiting == 0 {
        return;
    }
    println!(
        "Running:    {} experiment(s), {waiting} waiting",
        running.len()
    );
    for j in running {
        println!("  {:<12} {}", j.hypothesis, j.label());
    }
}

/// A gate decided on repeats: one line per criterion with its verdict and interval card
/// (`interval: INCONCLUSIVE accuracy: 0.936 ± 0.008, n 5, 95% CI 0.928–0.944 vs ≥ 0.92`),
/// then what the interval could not decide and why. Printed through `println!`, so escaped.
fn interval_lines(g: &crate::vsa::model::Gate) -> Vec<String> {
    let mut out: Vec<String> = g
        .evidence
        .iter()
        .map(|e| {
            let verdict = e.verdict.as_ref().map_or("?", |v| v.as_str());
            format!(
                "interval: {verdict} {}: {}",
                e.quantity(),
                e.card_line().replace(['\n', '\r'], " ")
            )
        })
        .collect();
    out.extend(g.undecided.iter().take(3).map(|u| {
        let text = u.text.clone().unwrap_or_else(|| {
            format!(
                "{}: {}",
                opt(u.criterion.as_deref()),
                opt(u.reason.as_deref())
            )
        });
        format!("undecided: {}", text.replace(['\n', '\r'], " "))
    }));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rundir::jobs::{JobRow, JobState};

    fn row(h: &str, state: JobState) -> JobRow {
        JobRow {
            hypothesis: h.into(),
            state,
        }
    }

    #[test]
    fn without_an_engine_nothing_is_running() {
        let rows = vec![
            row(
                "h-e1",
                JobState::Running {
                    placement: "cpu".into(),
                    elapsed_s: 3.0,
                },
            ),
            row(
                "h-m1",
                JobState::Finished {
                    exit: "0".into(),
                    elapsed_s: 2.0,
                },
            ),
            row("h-c1", JobState::Waiting),
        ];
        let (shown, stopped) = split_followed(rows.clone(), true);
        assert_eq!((shown.len(), stopped.len()), (3, 0));
        let (shown, stopped) = split_followed(rows, false);
        let ids = |v: &[JobRow]| v.iter().map(|r| r.hypothesis.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&shown), ["h-m1", "h-c1"]);
        assert_eq!(ids(&stopped), ["h-e1"]);
    }
}
