//! One run's trail: each step it took, in order, with what decided where it went next: a
//! stage's recorded status, a gate's result with each criterion's required and measured
//! value, and the recovery route after a failed gate (h*, the proposal, the clamp, what was
//! taken, the escalation's decision). Built by `read.rs`; compared by `diff.rs`.

use serde::Serialize;

use crate::stage::Stage;
use crate::steer::RoutingAction;
use crate::vsa::enums::{GateResult, PhaseStatus, WorkflowStatus};

/// Which step: a stage, for the hypothesis loop the sub-hypothesis, and the how-many-th
/// time the run took that step (a refined Coding & Validation is attempt 2).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct StepKey {
    /// Serialised by its reader-facing name (`Coding & Validation`).
    #[serde(serialize_with = "stage_name")]
    pub stage: Stage,
    pub hypothesis: Option<String>,
    pub attempt: u32,
}

fn stage_name<S: serde::Serializer>(stage: &Stage, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(stage.name())
}

impl StepKey {
    /// "Coding & Validation h-e1 #2" (the attempt only past the first).
    pub fn describe(&self) -> String {
        let mut s = self.stage.name().to_string();
        if let Some(h) = &self.hypothesis {
            s.push(' ');
            s.push_str(h);
        }
        if self.attempt > 1 {
            s.push_str(&format!(" #{}", self.attempt));
        }
        s
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Outcome {
    /// The step's recorded status (COMPLETED, SKIPPED); `None` while it has not finished
    /// (a gate that failed and was routed elsewhere).
    pub status: Option<PhaseStatus>,
    pub gate: Option<GateOutcome>,
    pub route: Option<Route>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GateOutcome {
    pub result: Option<GateResult>,
    pub checks: Vec<Check>,
    /// The plan node whose measurement this judgement holds, when a plan-tree search wrote
    /// it (its best node so far): an attempt's own node may have measured something else
    /// (issue 40: n-0004 measured 0.7746 while the gate written after it holds n-0003's
    /// 0.9356), so the row names whose value it shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_node: Option<String>,
    /// The attempt's own node, verdict and measured values, when the search recorded them
    /// beside its best (`search.attempt`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub own: Option<OwnAttempt>,
}

/// An attempt's own outcome in a plan-tree search.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct OwnAttempt {
    pub node: String,
    pub result: String,
    pub measured: Vec<(String, String)>,
}

/// One criterion as judged: the requirement (`>= 0.92`) and the measured value, as written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    pub metric: String,
    pub required: Option<String>,
    pub measured: Option<String>,
}

/// What recovery made of a failed gate.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Route {
    /// h*: the attribution ranked first (category, severity).
    pub attribution: Option<(String, Option<f64>)>,
    pub proposed: Option<RoutingAction>,
    /// The Verdict Clamp's verdict (`valid`, `clamped`, …).
    pub clamp: Option<String>,
    pub taken: Option<Taken>,
    /// The escalation's decision: verdict and who gave it (`approve`, `researcher`).
    pub decision: Option<(String, String)>,
}

/// Where the run went after the gate.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Taken {
    Action(RoutingAction),
    /// A SHOULD_WORK failure recorded as a limitation; the loop went on.
    Limitation,
    /// Recovery stopped the run (MUST_STOP).
    Stopped,
    /// An escalation waits for the researcher.
    Awaiting,
    /// A route outside the vocabulary (a YouRA file's own words).
    Other(String),
}

impl std::fmt::Display for Taken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Taken::Action(a) => f.write_str(a.as_str()),
            Taken::Limitation => f.write_str("limitation"),
            Taken::Stopped => f.write_str("MUST_STOP"),
            Taken::Awaiting => f.write_str("awaiting decision"),
            Taken::Other(s) => f.write_str(s),
        }
    }
}

/// A run's steps in the order it took them, and how it ended (so far).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Trail {
    pub steps: Vec<(StepKey, Outcome)>,
    pub status: Option<WorkflowStatus>,
    pub stop_reason: Option<String>,
}

impl Outcome {
    /// One short line: "FAIL accuracy 0.8832 (>= 0.92) → Method-Refine".
    pub fn brief(&self) -> String {
        let mut parts = Vec::new();
        if let Some(g) = &self.gate {
            parts.push(g.brief());
        }
        if let Some(r) = &self.route {
            parts.push(r.brief());
        }
        if parts.is_empty() {
            return self
                .status
                .as_ref()
                .map_or("not finished".into(), |s| s.as_str().to_string());
        }
        parts.join(" ")
    }
}

impl GateOutcome {
    pub fn brief(&self) -> String {
        let result = self.result.as_ref().map_or("-", |r| r.as_str());
        let checks: Vec<String> = self
            .checks
            .iter()
            .map(|c| {
                let measured = c
                    .measured
                    .as_deref()
                    .map_or("?".into(), crate::vsa::model::shown_value);
                match &c.required {
                    Some(req) => format!("{} {measured} ({req})", c.metric),
                    None => format!("{} {measured}", c.metric),
                }
            })
            .collect();
        let mut s = if checks.is_empty() {
            result.to_string()
        } else {
            format!("{result} {}", checks.join(", "))
        };
        if let Some(node) = &self.from_node {
            s.push_str(&format!(" [best {node}]"));
        }
        // Each attempt is labelled with its own measurement first: the gate it left behind
        // may hold another node's value.
        if let Some(own) = self
            .own
            .as_ref()
            .filter(|o| Some(&o.node) != self.from_node.as_ref())
        {
            let values: Vec<String> = own
                .measured
                .iter()
                .map(|(k, v)| format!("{k} {}", crate::vsa::model::shown_value(v)))
                .collect();
            let mine = if values.is_empty() {
                format!("{} {}", own.node, own.result)
            } else {
                format!("{} {} {}", own.node, own.result, values.join(", "))
            };
            s = format!("{mine}; gate {s}");
        }
        s
    }
}

impl Route {
    pub fn brief(&self) -> String {
        let to = match (&self.taken, &self.proposed) {
            (Some(t), _) => t.to_string(),
            (None, Some(p)) => format!("{p} proposed"),
            (None, None) => "?".into(),
        };
        let mut s = format!("→ {to}");
        if let Some((verdict, by)) = &self.decision {
            s.push_str(&format!(" ({verdict} by {by})"));
        }
        s
    }
}

impl Trail {
    /// "COMPLETED", or "STOPPED: <reason>".
    pub fn end(&self) -> String {
        let status = self.status.as_ref().map_or("-", |s| s.as_str());
        match &self.stop_reason {
            Some(r) if self.status == Some(WorkflowStatus::Stopped) => format!("{status}: {r}"),
            _ => status.to_string(),
        }
    }
}
