//! The typed view of a VSA: YouRA schema v3.5 plus youra's own fields (DESIGN.md, "The VSA").
//!
//! The view is read-only. The file itself is never re-serialised from it: edits splice the
//! original text (see `edit.rs`), so keys this model does not know survive every write.

use serde::Serialize;

pub use super::transition::{Transition, TransitionStep};

use super::enums::{
    ExecutionMode, GateResult, GateType, HypothesisStatus, HypothesisType, WorkflowStatus,
};
pub use super::history_list::HistoryEntry;

#[derive(Debug, Clone, Default, Serialize)]
pub struct Vsa {
    pub schema_version: Option<String>,
    /// Bumped by every youra write; 0 for a file youra has never written.
    pub revision: u64,
    pub project_name: Option<String>,
    /// `metadata.replayed_from`: the recorded run this one replays (`youra replay`), so
    /// `youra compare` and the Lifecycle pane can set its routes beside this run's.
    pub replayed_from: Option<String>,
    pub main_hypothesis: Option<MainHypothesis>,
    pub episode_status: Option<String>,
    pub workflow: Workflow,
    pub sub_hypotheses: Vec<SubHypothesis>,
    /// Whether the file lists them as YouRA's `sub_hypotheses:` map or a drifted `hypotheses:` list.
    pub layout: HypothesisLayout,
    pub history: super::history_list::History,
    /// Top-level keys outside the schema, in file order; kept on every write.
    pub unknown_keys: Vec<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HypothesisLayout {
    #[default]
    Map,
    List,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct MainHypothesis {
    pub id: Option<String>,
    pub title: Option<String>,
    pub statement: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Workflow {
    /// False when the file has no `workflow:` block (older YouRA runs).
    pub present: bool,
    pub status: Option<WorkflowStatus>,
    pub current_phase: Option<String>,
    pub next_action: Option<String>,
    pub execution_mode: Option<ExecutionMode>,
    pub stop_reason: Option<String>,
    pub breakpoints: Vec<String>,
    /// youra's `pending_escalation`: raised, and decided or not (see [`Workflow::awaits_decision`]).
    pub escalation: Option<super::escalation::Escalation>,
    /// An experiment waiting for the researcher's review (`workflow.pending_review`).
    pub review: Option<super::review::PendingReview>,
    /// A transition the engine began and must finish before anything else
    /// (`workflow.pending_transition`: a failed gate's recovery).
    pub pending_transition: Option<Transition>,
}

/// How many revisions a stale save's conflict stays on the TUI's banner.
pub(crate) const CONFLICT_SHOWN_FOR: u64 = 20;

impl Vsa {
    /// The newest `stale_save` history entry that reports conflicts (fields youra had set and
    /// an outside write reverted), while it is among the last [`CONFLICT_SHOWN_FOR`] revisions.
    pub fn recent_conflict(&self) -> Option<&HistoryEntry> {
        self.history
            .iter()
            .rev()
            .take(200)
            .find(|e| {
                e.event.as_deref() == Some("stale_save")
                    && e.reason
                        .as_deref()
                        .is_some_and(|r| !r.ends_with("; 0 conflict(s)"))
            })
            .filter(|e| {
                e.revision
                    .is_some_and(|r| r + CONFLICT_SHOWN_FOR > self.revision)
            })
    }

    /// The main hypothesis' statement, empty when none is stated yet.
    pub fn main_statement(&self) -> String {
        self.main_hypothesis
            .as_ref()
            .and_then(|m| m.statement.clone())
            .unwrap_or_default()
    }
}

impl Workflow {
    /// An escalation waits for the researcher's decision (present, not yet decided).
    pub fn awaits_decision(&self) -> bool {
        self.escalation.as_ref().is_some_and(|e| e.waits())
    }

    /// An experiment waits for the researcher's review (raised, not yet answered).
    pub fn awaits_review(&self) -> bool {
        self.review.as_ref().is_some_and(|r| r.waits())
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct SubHypothesis {
    pub id: String,
    pub kind: Option<HypothesisType>,
    pub statement: Option<String>,
    pub status: HypothesisStatus,
    pub gate: Gate,
    pub prerequisites: Vec<String>,
    /// Stated after a redesign or reset (`post_hoc: true` or `stated_after_pivots` > 0):
    /// not pre-registered (issue 40 item 5).
    pub post_hoc: bool,
    /// The fresh seeds a settled plan-tree search's chosen node was confirmed on
    /// (`search.confirmation_seeds`): its gate reads that run, not the selection's.
    pub confirmation_seeds: Option<String>,
    /// Line of the entry in the file.
    pub line: usize,
}

impl SubHypothesis {
    /// Whether its dependants may start: validated, or a failed SHOULD_WORK gate
    /// ([`HypothesisStatus::lets_dependants_start`]), or a post-hoc claim whose gate was left
    /// INCONCLUSIVE: exploratory, its dependants run, exploratory too, and none is confirmed.
    pub fn lets_dependants_start(&self) -> bool {
        self.status
            .lets_dependants_start(self.gate.gate_type.as_ref())
            || (self.post_hoc
                && self.status == HypothesisStatus::Partial
                && self.gate.result == Some(GateResult::Inconclusive))
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Gate {
    pub gate_type: Option<GateType>,
    pub satisfied: Option<bool>,
    pub result: Option<GateResult>,
    /// A free-text result as some runs write it ("Experiment crashed at 53% …").
    pub result_text: Option<String>,
    pub failed_checks: Vec<FailedCheck>,
    /// Machine-readable criteria (metric → requirement) where the gate gives them.
    pub criteria: Vec<(String, String)>,
    /// The criteria the engine judges by: `gate.criteria` items written as
    /// `{metric, op, value}` (Experiment Design writes them; the researcher may edit them).
    pub rules: Vec<GateCriterion>,
    /// `gate.measured`: metric → the value the last judgement measured, as written.
    pub measured: Vec<(String, String)>,
    /// `gate.evidence`: each criterion's interval judgement from repeats (issue 40), as
    /// the engine wrote it; empty for a gate judged on one measurement.
    pub evidence: Vec<GateEvidence>,
    /// `gate.undecided`: the criteria the interval could not decide (INCONCLUSIVE's
    /// reasons), in `failed_checks`' shape.
    pub undecided: Vec<FailedCheck>,
}

/// One criterion's interval judgement, as `sub_hypotheses.<h>.gate.evidence[i]` holds it
/// (`engine::stages::gate_evidence` writes it). Every field is optional: an outside writer
/// may have written anything, and a field that is not what it should be is `None`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GateEvidence {
    pub metric: Option<String>,
    /// A comparative criterion's baseline metric: the interval is of `metric − baseline`.
    pub baseline: Option<String>,
    pub op: Option<crate::vocab::Op>,
    pub threshold: Option<f64>,
    /// PASS, FAIL or INCONCLUSIVE; `None` when the word is none of them.
    pub verdict: Option<GateResult>,
    /// Values summarised (seeds × folds).
    pub n: Option<u64>,
    /// The rule's repeats (seeds, when folds are pooled over seeds).
    pub repeats: Option<u64>,
    pub mean: Option<f64>,
    pub sd: Option<f64>,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    pub confidence: Option<f64>,
    /// `t`, `corrected t`, `bootstrap` or `single`.
    pub method: Option<String>,
    /// The line the engine wrote: "0.936 ± 0.008, n 5, 95% CI 0.928–0.944 vs ≥ 0.92".
    pub card: Option<String>,
    pub why: Option<String>,
    /// A gain's two arms, each with its own interval (`arm_*`, `baseline_*`).
    pub arm: Option<ArmInterval>,
    pub baseline_arm: Option<ArmInterval>,
}

/// One arm of a paired comparison: its mean and interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ArmInterval {
    pub mean: f64,
    pub lo: f64,
    pub hi: f64,
}

impl GateEvidence {
    /// What the interval is of: `accuracy`, or `accuracy - accuracy_lda` for a gain (the
    /// engine's `Criterion::quantity`, so it matches `undecided`'s `criterion`).
    pub fn quantity(&self) -> String {
        let metric = self.metric.as_deref().unwrap_or("?");
        match &self.baseline {
            Some(b) => format!("{metric} - {b}"),
            None => metric.to_string(),
        }
    }

    /// The card line: the one the engine wrote, else the same text rebuilt from the numbers
    /// (`evidence::Summary::card`'s format), else whatever numbers there are.
    pub fn card_line(&self) -> String {
        if let Some(c) = self.card.as_deref().filter(|c| !c.trim().is_empty()) {
            return c.to_string();
        }
        let versus = match (self.op, self.threshold) {
            (Some(op), Some(th)) => format!(" vs {} {th}", op_sign(op)),
            _ => String::new(),
        };
        let Some(mean) = self.mean else {
            return format!("no mean recorded{versus}");
        };
        if self.method.as_deref() == Some("single") || self.n == Some(1) {
            return format!("{mean:.3}, n 1 (no interval){versus}");
        }
        let n = match (self.n, self.repeats) {
            (Some(n), Some(r)) if r != n => format!("n {n} ({r} seeds)"),
            (Some(n), _) => format!("n {n}"),
            (None, _) => "n ?".into(),
        };
        match (self.lo, self.hi, self.confidence) {
            (Some(lo), Some(hi), Some(c)) => format!(
                "{mean:.3} ± {:.3}, {n}, {} CI {lo:.3}–{hi:.3}{versus}",
                (hi - lo) / 2.0,
                percent(c)
            ),
            _ => format!("{mean:.3}, {n}, no interval recorded{versus}"),
        }
    }

    /// Whether this is the judgement of `rule`: the same metric and baseline, and the same
    /// comparison and threshold where the evidence records them.
    pub fn judges(&self, rule: &GateCriterion) -> bool {
        self.metric.as_deref() == Some(rule.metric.as_str())
            && self.baseline == rule.baseline
            && self.op.is_none_or(|op| op == rule.op)
            && self
                .threshold
                .is_none_or(|t| (t - rule.value).abs() <= 1e-6 * rule.value.abs().max(1.0))
    }
}

pub use crate::vocab::percent;

fn op_sign(op: crate::vocab::Op) -> &'static str {
    op.sign()
}

/// One machine-readable gate criterion, as `sub_hypotheses.<h>.gate.criteria[index]` holds it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GateCriterion {
    pub index: usize,
    pub metric: String,
    pub op: crate::vocab::Op,
    pub value: f64,
    /// A comparative criterion's baseline metric: the gate reads `metric − baseline`, paired
    /// repeat by repeat (issue 40).
    pub baseline: Option<String>,
}

impl std::fmt::Display for GateCriterion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.baseline {
            Some(b) => write!(f, "{} - {b} {} {}", self.metric, self.op, self.value),
            None => write!(f, "{} {} {}", self.metric, self.op, self.value),
        }
    }
}

impl Gate {
    /// Whether the gate counts as met: `satisfied: true`, or a PASS result when
    /// `satisfied` was never set.
    pub fn is_met(&self) -> bool {
        match self.satisfied {
            Some(s) => s,
            None => self.result == Some(GateResult::Pass),
        }
    }

    /// The interval judgement of `rule`, when the gate was decided on repeats.
    pub fn evidence_for(&self, rule: &GateCriterion) -> Option<&GateEvidence> {
        self.evidence.iter().find(|e| e.judges(rule))
    }

    /// The evidence no criterion of `rules` claims (an outside writer's, or a criterion
    /// edited since the judgement): shown too, never dropped.
    pub fn unmatched_evidence(&self) -> impl Iterator<Item = &GateEvidence> {
        self.evidence
            .iter()
            .filter(|e| !self.rules.iter().any(|r| e.judges(r)))
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct FailedCheck {
    pub criterion: Option<String>,
    pub required: Option<String>,
    pub actual: Option<String>,
    pub reason: Option<String>,
    /// A check written as one sentence instead of a mapping.
    pub text: Option<String>,
}

impl Vsa {
    pub fn hypothesis(&self, id: &str) -> Option<&SubHypothesis> {
        self.sub_hypotheses.iter().find(|h| h.id == id)
    }

    /// Every sub-hypothesis the loop could work on now, in file order: not finished, its
    /// prerequisites all validated (the experiment queue's waiting ones). A fact of the file
    /// alone, so readers below the engine (`rundir::jobs`) ask it here.
    pub fn ready_hypotheses(&self) -> Vec<&str> {
        use super::enums::HypothesisStatus as S;
        self.sub_hypotheses
            .iter()
            .filter(|h| matches!(h.status, S::Ready | S::InProgress | S::NotStarted))
            .filter(|h| {
                h.prerequisites
                    .iter()
                    .all(|p| self.hypothesis(p).is_some_and(|x| x.status.is_validated()))
            })
            .map(|h| h.id.as_str())
            .collect()
    }
}

/// The baselines Experiment Design recorded for `id` (`sub_hypotheses.<id>.gate.baselines`):
/// the one reading of them, for the engine and the paper.
pub fn gate_baselines(doc: &crate::yaml::Document, id: &str) -> Vec<String> {
    doc.root
        .as_ref()
        .and_then(|r| {
            r.get("sub_hypotheses")?
                .get(id)?
                .get("gate")?
                .get("baselines")
        })
        .and_then(|n| n.as_seq())
        .map(|items| {
            items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// A measured value as shown to a reader: at most four decimals (a mean over repeats is a
/// long float the paper, the card and the report all round the same way); text that is no
/// number is shown as written.
pub fn shown_value(v: &str) -> String {
    match v.trim().parse::<f64>() {
        Ok(x) if x.is_finite() => format!("{}", (x * 1e4).round() / 1e4),
        _ => v.to_string(),
    }
}
