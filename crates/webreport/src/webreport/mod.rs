//! `youra report html`: a run as one self-contained HTML file for people without a terminal
//! (an advisor, a collaborator): the lifecycle with times, the gates with required vs
//! measured, the plan tree, the escalations with their decisions and reasons, the metric
//! charts, the memory records, and the paper with its check results.
//!
//! Two steps, so each can be tested alone: [`collect`] reads the run through the existing
//! readers (the store's snapshot, `events.jsonl`, Reflective Memory, the plan tree, the
//! paper's figures) into a [`Report`] of plain data; [`page::render`] turns it into HTML.
//! Every string that came from the run passes through [`escape::text`]; the file loads
//! nothing (no script, stylesheet, font or image from elsewhere): charts are inline SVG
//! drawn by `crate::paper::draw`. Decision 0014.

mod collect;
mod deviations;
pub mod escape;
pub mod lifecycle;
pub mod markdown;
pub mod page;
mod run_cards;
mod sections;

pub use collect::{CollectError, collect};
pub use lifecycle::StageRow;

use crate::report::findings::Finding;

/// Everything the page shows, read from one run.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The run folder, as given.
    pub run: String,
    pub generated_at: String,
    pub summary: Summary,
    pub lifecycle: Vec<StageRow>,
    /// The lifecycle comes from the VSA's history (the run has no stage events).
    pub lifecycle_from_history: bool,
    pub gates: Vec<GateRow>,
    pub plan: Vec<PlanRow>,
    pub escalations: Vec<EscalationRow>,
    /// Departures from the plan with who and why (`vsa::deviation`), as the paper lists them.
    pub deviations: Vec<crate::vsa::deviation::Deviation>,
    pub charts: Vec<Chart>,
    pub memory: Vec<MemoryRow>,
    pub paper: Option<Paper>,
    /// Each attempt's run card, read through the collection records.
    pub run_cards: Vec<crate::paper::appendix_card::AttemptCard>,
    /// What could not be read, said on the page rather than hidden.
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub project: Option<String>,
    pub topic: Option<String>,
    pub hypothesis_title: Option<String>,
    pub hypothesis: Option<String>,
    pub status: Option<String>,
    pub stage: Option<String>,
    pub mode: Option<String>,
    pub stop_reason: Option<String>,
    pub next_action: Option<String>,
    /// An escalation waits for the researcher.
    pub waiting: bool,
    /// `88 calls, 8.8k in / 4.4k out tokens, $0.01`.
    pub usage: Option<String>,
}

/// One sub-hypothesis and its gate.
#[derive(Debug, Clone, Default)]
pub struct GateRow {
    pub id: String,
    pub kind: Option<String>,
    pub statement: Option<String>,
    pub status: String,
    pub gate_type: Option<String>,
    /// `PASS`, `FAIL`, or the free text a run wrote.
    pub result: Option<String>,
    pub met: bool,
    pub criteria: Vec<CriterionRow>,
    /// The failed checks as sentences (`gain: required <= 0.02, actual 0.0342`).
    pub failed_checks: Vec<String>,
    /// Each criterion's interval judgement when the gate was decided on repeats (issue 40).
    pub intervals: Vec<IntervalRow>,
    /// What the interval could not decide, as sentences (INCONCLUSIVE's reasons).
    pub undecided: Vec<String>,
}

/// One criterion's interval: what it is of, the card line and the verdict.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IntervalRow {
    /// `accuracy`, or `accuracy - accuracy_lda` for a gain.
    pub quantity: String,
    /// "0.936 ± 0.008, n 5, 95% CI 0.928–0.944 vs ≥ 0.92".
    pub card: String,
    /// PASS, FAIL, INCONCLUSIVE, or `?`.
    pub verdict: String,
    /// The method (`t`, `corrected t`, …) and, for a gain, both arms' intervals.
    pub detail: String,
}

/// One criterion: what the gate requires and what was measured.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CriterionRow {
    pub metric: String,
    /// `>= 0.92`; empty for a measured metric no criterion names.
    pub required: String,
    /// As the VSA writes it.
    pub measured: Option<String>,
    /// `None` when it cannot be judged (nothing measured, no criterion, not a number).
    pub met: Option<bool>,
}

/// One plan node, in display order.
#[derive(Debug, Clone, Default)]
pub struct PlanRow {
    pub depth: usize,
    pub id: String,
    pub hypothesis: Option<String>,
    pub status: String,
    pub pinned: bool,
    pub vetoed: bool,
    pub prior: f64,
    pub q: f64,
    pub visits: u64,
    pub reward: Option<f64>,
    /// The proposal in a line: the prior's hypothesis, else the plan's first line.
    pub summary: String,
}

/// One escalation: what was proposed, and what the researcher (or the waiting policy)
/// decided and why.
#[derive(Debug, Clone, Default)]
pub struct EscalationRow {
    pub id: String,
    pub hypothesis: Option<String>,
    pub raised_at: Option<String>,
    pub proposed: Option<String>,
    pub verdict: Option<String>,
    pub by: Option<String>,
    pub applied: Option<String>,
    pub decided_at: Option<String>,
    /// The decision's full sentence (its reason) from `events.jsonl`.
    pub reason: Option<String>,
    /// Why it was raised: failed checks and ranked attributions (a waiting escalation).
    pub grounds: Vec<String>,
    pub waiting: bool,
}

/// A metric chart, drawn as the paper draws it.
#[derive(Debug, Clone, Default)]
pub struct Chart {
    /// The path the paper links it by (`figures/gates.svg`), so its image shows this chart.
    pub path: String,
    pub caption: String,
    pub svg: String,
}

/// One Reflective Memory record.
#[derive(Debug, Clone, Default)]
pub struct MemoryRow {
    pub id: String,
    pub kind: String,
    pub title: Option<String>,
    pub hypothesis: Option<String>,
    pub date: Option<String>,
    pub routing: Option<String>,
    pub root_causes: Vec<String>,
    pub lessons: Vec<String>,
}

/// The paper and what `youra report check` found in it (the CLI runs the check: its
/// ground truth is `cli/report_cmd.rs`'s).
#[derive(Debug, Clone, Default)]
pub struct Paper {
    /// Relative to the run (`paper/06_paper_final.md`).
    pub file: String,
    /// The first level-1 heading (filled by [`collect`]).
    pub title: Option<String>,
    pub markdown: String,
    /// Where the check's ground truth came from.
    pub ground_truth: String,
    pub findings: Vec<Finding>,
}
