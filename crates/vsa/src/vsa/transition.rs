//! The engine's journal of a transition that spans model calls and file moves: a failed
//! MUST_WORK gate's recovery. The gate judgement writes `workflow.pending_transition` in
//! the same transaction as the gate itself; the recovery's decision moves it to `decided`
//! (with everything the action needs, so nothing is asked twice); the transaction that
//! applies the action clears it. A restarted engine finishes a pending transition before
//! it looks at anything else, so a kill at any point cannot skip a recovery.

use serde::Serialize;

use crate::vocab::RoutingAction;
use crate::yaml::{NewNode, Node, Style, format_scalar};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TransitionStep {
    /// The gate failed; causes are being attributed.
    Attributing,
    /// The action is chosen (by the rules or the researcher); it is being applied.
    Decided,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Transition {
    pub hypothesis: String,
    /// The Coding & Validation round and stage attempt the gate was judged in: the
    /// recovery's model calls are keyed by them, so a resumed recovery asks the same calls.
    pub round: u32,
    pub attempt: u32,
    pub step: TransitionStep,
    /// The failure record's file name under `memory/` (chosen once, rewritten on resume).
    pub record: String,
    pub action: Option<RoutingAction>,
    /// h*'s proposed fix: the constraint a refinement works under.
    pub fix: String,
    pub severity: f64,
    pub category: String,
    pub trajectory: Option<String>,
    pub evidence: String,
    /// The clamp's or the researcher's reason, when the action was changed.
    pub note: Option<String>,
    /// The archive folder name under `_archive/` for a discarding action.
    pub archive: Option<String>,
}

fn text(n: &Node, k: &str) -> Option<String> {
    let s = n.get(k)?.as_scalar()?;
    (!s.is_null()).then(|| s.text.clone())
}

fn num(n: &Node, k: &str) -> Option<f64> {
    n.get(k)?.as_scalar()?.as_f64()
}

fn quoted(s: &str) -> NewNode {
    NewNode::Scalar(format_scalar(s, Style::DoubleQuoted))
}

impl Transition {
    /// A recovery that has just begun.
    pub fn attributing(hypothesis: &str, round: u32, attempt: u32, record: String) -> Transition {
        Transition {
            hypothesis: hypothesis.to_string(),
            round,
            attempt,
            step: TransitionStep::Attributing,
            record,
            action: None,
            fix: String::new(),
            severity: 0.0,
            category: String::new(),
            trajectory: None,
            evidence: String::new(),
            note: None,
            archive: None,
        }
    }

    pub fn read(node: &Node) -> Option<Transition> {
        if node.is_null() {
            return None;
        }
        let step = match text(node, "step")?.as_str() {
            "decided" => TransitionStep::Decided,
            _ => TransitionStep::Attributing,
        };
        Some(Transition {
            hypothesis: text(node, "hypothesis")?,
            round: num(node, "round").map_or(0, |n| n.clamp(0.0, 1e6) as u32),
            attempt: num(node, "attempt").map_or(1, |n| n.clamp(1.0, 1e3) as u32),
            step,
            record: text(node, "record").unwrap_or_default(),
            action: text(node, "action").and_then(|a| a.parse().ok()),
            fix: text(node, "fix").unwrap_or_default(),
            severity: num(node, "severity").unwrap_or(0.0),
            category: text(node, "category").unwrap_or_default(),
            trajectory: text(node, "trajectory"),
            evidence: text(node, "evidence").unwrap_or_default(),
            note: text(node, "note"),
            archive: text(node, "archive"),
        })
    }

    /// The value `workflow.pending_transition` holds.
    pub fn node(&self) -> NewNode {
        let step = match self.step {
            TransitionStep::Attributing => "attributing",
            TransitionStep::Decided => "decided",
        };
        let mut m = vec![
            ("kind".to_string(), NewNode::Scalar("recovery".into())),
            ("hypothesis".into(), quoted(&self.hypothesis)),
            ("round".into(), NewNode::Scalar(self.round.to_string())),
            ("attempt".into(), NewNode::Scalar(self.attempt.to_string())),
            ("step".into(), NewNode::Scalar(step.into())),
            ("record".into(), quoted(&self.record)),
        ];
        if let Some(a) = self.action {
            m.extend([
                ("action".to_string(), NewNode::Scalar(a.as_str().into())),
                ("fix".into(), quoted(&self.fix)),
                (
                    "severity".into(),
                    NewNode::Scalar(format!("{:.4}", self.severity)),
                ),
                ("category".into(), quoted(&self.category)),
                ("evidence".into(), quoted(&self.evidence)),
            ]);
            if let Some(t) = &self.trajectory {
                m.push(("trajectory".into(), quoted(t)));
            }
            if let Some(n) = &self.note {
                m.push(("note".into(), quoted(n)));
            }
            if let Some(a) = &self.archive {
                m.push(("archive".into(), quoted(a)));
            }
        }
        NewNode::Map(m)
    }
}
