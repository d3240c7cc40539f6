//! A run's trail from its VSA. A youra run is read from its history, which holds every
//! transaction's fields with their revision: a stage's completion, each gate judgement (so
//! every attempt, not only the last), the criteria as written and as edited, the reflection
//! block, the recovery journal's decision, an escalation's outcome, a limitation. A file
//! whose history has no such entries (a YouRA run) is read from its current state instead:
//! one row per recorded stage, one attempt per sub-hypothesis.

use std::collections::HashMap;

use super::trail::{Check, GateOutcome, Outcome, Route, StepKey, Taken, Trail};
use crate::stage::Stage;
use crate::vsa::Snapshot;
use crate::vsa::enums::{GateResult, PhaseStatus};
use crate::yaml::Node;

/// The loop stages and the sub-hypothesis field their completion is recorded in.
const LOOP: [(Stage, &str); 3] = [
    (Stage::ExperimentDesign, "experiment_design"),
    (Stage::ImplementationPlanning, "implementation_planning"),
    (Stage::CodingValidation, "validation"),
];

pub fn trail(snap: &Snapshot) -> Trail {
    let mut t = from_history(snap);
    if t.steps.is_empty() {
        t.steps = from_state(snap);
    }
    t.status = snap.vsa.workflow.status.clone();
    t.stop_reason = snap.vsa.workflow.stop_reason.clone();
    t
}

/// A criterion as the trail tracks it: metric, op and value as written.
type Criterion = (String, String, String);

#[derive(Default)]
struct Walk {
    steps: Vec<(StepKey, Outcome)>,
    criteria: HashMap<String, Vec<Criterion>>,
    /// Per sub-hypothesis: the index of its latest Coding & Validation attempt and the
    /// revision of its gate judgement.
    attempt: HashMap<String, (usize, Option<u64>)>,
}

impl Walk {
    fn push(&mut self, stage: Stage, h: Option<&str>) -> usize {
        let n = self
            .steps
            .iter()
            .filter(|(k, _)| k.stage == stage && k.hypothesis.as_deref() == h)
            .count() as u32;
        self.steps.push((
            StepKey {
                stage,
                hypothesis: h.map(str::to_string),
                attempt: n + 1,
            },
            Outcome::default(),
        ));
        self.steps.len() - 1
    }

    /// The attempt a gate field written at `revision` belongs to: the latest one when it
    /// has no judgement yet or this is the same transaction, else a new one.
    fn judged(&mut self, h: &str, revision: Option<u64>) -> usize {
        match self.attempt.get(h) {
            Some(&(i, rev)) if rev.is_none() || rev == revision => {
                self.attempt.insert(h.to_string(), (i, revision));
                i
            }
            _ => {
                let i = self.push(Stage::CodingValidation, Some(h));
                self.attempt.insert(h.to_string(), (i, revision));
                i
            }
        }
    }

    fn latest(&mut self, h: &str) -> Option<&mut Outcome> {
        let (i, _) = *self.attempt.get(h)?;
        Some(&mut self.steps[i].1)
    }

    fn route(&mut self, h: &str) -> Option<&mut Route> {
        Some(self.latest(h)?.route.get_or_insert_with(Route::default))
    }

    fn gate(&mut self, h: &str, revision: Option<u64>) -> &mut GateOutcome {
        let i = self.judged(h, revision);
        let criteria = self.criteria.get(h).cloned().unwrap_or_default();
        self.steps[i].1.gate.get_or_insert_with(|| GateOutcome {
            from_node: None,
            own: None,
            result: None,
            checks: criteria
                .into_iter()
                .map(|(metric, op, value)| Check {
                    metric,
                    required: Some(format!("{op} {value}")),
                    measured: None,
                })
                .collect(),
        })
    }
}

fn value(raw: Option<&str>) -> Option<Node> {
    crate::yaml::parse(raw?.as_bytes()).ok()?.root
}

fn status_of(node: Option<&Node>) -> Option<PhaseStatus> {
    let n = node?;
    n.get("status")
        .and_then(Node::as_str)
        .or_else(|| n.as_str())
        .map(PhaseStatus::read)
}

fn from_history(snap: &Snapshot) -> Trail {
    let mut w = Walk::default();
    for e in &snap.vsa.history {
        let Some(path) = e.path.as_deref() else {
            continue;
        };
        let parts: Vec<&str> = path.split('.').collect();
        let new = value(e.new.as_deref());
        let complete = e.event.as_deref() == Some("phase_complete");
        match parts.as_slice() {
            ["phases", key] if complete => {
                if let Some(stage) = Stage::ALL.into_iter().find(|s| s.key() == *key) {
                    let i = w.push(stage, None);
                    w.steps[i].1.status = status_of(new.as_ref());
                }
            }
            ["sub_hypotheses", h, field] if complete => {
                let Some((stage, _)) = LOOP.iter().find(|(_, f)| f == field) else {
                    continue;
                };
                let i = match stage {
                    Stage::CodingValidation => w.judged(h, e.revision),
                    s => w.push(*s, Some(h)),
                };
                w.steps[i].1.status = status_of(new.as_ref());
            }
            ["sub_hypotheses", h, "gate", "criteria"] => {
                let list = new.as_ref().and_then(Node::as_seq).unwrap_or_default();
                let rules = list.iter().filter_map(criterion).collect();
                w.criteria.insert(h.to_string(), rules);
            }
            [
                "sub_hypotheses",
                h,
                "gate",
                item,
                field @ ("value" | "op" | "metric"),
            ] => {
                let index = item
                    .strip_prefix("criteria[")
                    .and_then(|r| r.strip_suffix(']')?.parse::<usize>().ok());
                let rule = index.and_then(|i| w.criteria.get_mut(*h)?.get_mut(i));
                if let (Some(rule), Some(v)) = (rule, e.new.clone()) {
                    match *field {
                        "value" => rule.2 = v,
                        "op" => rule.1 = v,
                        _ => rule.0 = v,
                    }
                }
            }
            ["sub_hypotheses", h, "gate", "result"] => {
                let g = w.gate(h, e.revision);
                g.result = e.new.as_deref().map(GateResult::read);
            }
            [
                "sub_hypotheses",
                h,
                "gate",
                "satisfied" | "failed_checks" | "evaluated_at",
            ] => {
                w.gate(h, e.revision);
            }
            // The search's best node, written with the gate it judged: the value shown is
            // that node's, not necessarily the attempt's own.
            ["sub_hypotheses", h, "search", "best_node"] => {
                let node = e
                    .new
                    .as_deref()
                    .map(|n| n.trim_matches(['\'', '"']).to_string());
                let same = w.attempt.get(*h).is_some_and(|(_, rev)| *rev == e.revision);
                if let (true, Some(node)) = (same, node.filter(|n| !n.is_empty())) {
                    w.gate(h, e.revision).from_node = Some(node);
                }
            }
            ["sub_hypotheses", h, "search", "attempt"] => {
                let same = w.attempt.get(*h).is_some_and(|(_, rev)| *rev == e.revision);
                let Some(n) = new.as_ref().filter(|_| same) else {
                    continue;
                };
                let field = |k: &str| n.get(k).and_then(Node::as_str).unwrap_or("?").to_string();
                let measured = n
                    .get("measured")
                    .and_then(Node::as_map)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|(k, v)| Some((k.as_str()?.to_string(), v.as_str()?.to_string())))
                    .collect();
                w.gate(h, e.revision).own = Some(super::trail::OwnAttempt {
                    node: field("node"),
                    result: field("result"),
                    measured,
                });
            }
            ["sub_hypotheses", h, "gate", "measured"] => {
                let g = w.gate(h, e.revision);
                for (k, v) in new.as_ref().and_then(Node::as_map).unwrap_or_default() {
                    let (Some(metric), Some(v)) = (k.as_str(), v.as_str()) else {
                        continue;
                    };
                    match g.checks.iter_mut().find(|c| c.metric == metric) {
                        Some(c) => c.measured = Some(v.to_string()),
                        None => g.checks.push(Check {
                            metric: metric.to_string(),
                            required: None,
                            measured: Some(v.to_string()),
                        }),
                    }
                }
            }
            ["sub_hypotheses", h, "reflection"] => {
                if let (Some(node), Some(r)) = (new.as_ref(), w.route(h)) {
                    reflection(node, r);
                }
            }
            ["sub_hypotheses", h, "limitation"] if new.as_ref().is_some_and(|n| !n.is_null()) => {
                if let Some(r) = w.route(h) {
                    r.taken = Some(Taken::Limitation);
                }
            }
            ["workflow", "pending_transition"] => {
                let Some(n) = new
                    .as_ref()
                    .filter(|n| n.get("step").and_then(Node::as_str) == Some("decided"))
                else {
                    continue;
                };
                let h = n
                    .get("hypothesis")
                    .and_then(Node::as_str)
                    .unwrap_or_default();
                let action = n.get("action").and_then(Node::as_str).map(taken);
                if let (Some(r), Some(a)) = (w.route(h), action) {
                    r.taken = Some(a);
                }
            }
            ["workflow", "pending_escalation"] => {
                let Some(n) = new.as_ref().filter(|n| !n.is_null()) else {
                    continue;
                };
                let h = n
                    .get("hypothesis")
                    .and_then(Node::as_str)
                    .unwrap_or_default();
                if let Some(r) = w.route(h) {
                    r.taken = Some(Taken::Awaiting);
                }
            }
            ["workflow", log] if log.starts_with("escalation_log") => {
                let Some(n) = new.as_ref() else { continue };
                let s = |k: &str| n.get(k).and_then(Node::as_str).map(str::to_string);
                let h = s("hypothesis").unwrap_or_default();
                if let Some(r) = w.route(&h) {
                    r.decision = Some((
                        s("verdict").unwrap_or_default(),
                        s("by").unwrap_or_default(),
                    ));
                    r.taken = s("applied").as_deref().map(taken);
                }
            }
            _ => {}
        }
    }
    Trail {
        steps: w.steps,
        ..Trail::default()
    }
}

fn criterion(n: &Node) -> Option<Criterion> {
    let s = |k: &str| n.get(k).and_then(Node::as_str).map(str::to_string);
    Some((s("metric")?, s("op")?, s("value")?))
}

fn taken(raw: &str) -> Taken {
    match raw.parse() {
        Ok(a) => Taken::Action(a),
        Err(_) => Taken::Other(raw.to_string()),
    }
}

/// The reflection block (youra's, or a YouRA file's where it has the same keys): h* as the
/// attribution with the highest severity, the proposal, the clamp, the action routed to.
fn reflection(node: &Node, r: &mut Route) {
    let s = |k: &str| node.get(k).and_then(Node::as_str).map(str::to_string);
    let severity = |a: &Node| a.get("severity")?.as_str()?.parse::<f64>().ok();
    let top = node
        .get("attributions")
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .max_by(|a, b| {
            severity(a)
                .unwrap_or(0.0)
                .total_cmp(&severity(b).unwrap_or(0.0))
        });
    r.attribution = top.and_then(|a| {
        let category = a.get("category")?.as_str()?.to_string();
        Some((category, severity(a)))
    });
    r.proposed = s("proposed_action").and_then(|p| p.parse().ok());
    r.clamp = s("clamp_verdict");
    if let Some(routed) = s("routed_action") {
        r.taken = Some(taken(&routed));
    }
}

/// A run read from where it stands: the lifecycle stages with a recorded status, and per
/// sub-hypothesis its loop stages and one Coding & Validation attempt with the gate as it is.
fn from_state(snap: &Snapshot) -> Vec<(StepKey, Outcome)> {
    let root = snap.doc.root.as_ref();
    let phases = root.and_then(|r| r.get("phases"));
    let mut steps = Vec::new();
    let key = |stage: Stage, h: Option<&str>| StepKey {
        stage,
        hypothesis: h.map(str::to_string),
        attempt: 1,
    };
    let stage_row = |stage: Stage| {
        let status = status_of(phases.and_then(|p| p.get(stage.key())))?;
        Some((
            key(stage, None),
            Outcome {
                status: Some(status),
                ..Outcome::default()
            },
        ))
    };
    steps.extend(Stage::ALL[..4].iter().filter_map(|s| stage_row(*s)));
    let hyps = root.and_then(|r| r.get("sub_hypotheses"));
    for h in &snap.vsa.sub_hypotheses {
        let node = hyps.and_then(|m| m.get(&h.id));
        for (stage, field) in LOOP {
            let status = status_of(node.and_then(|n| n.get(field)));
            let gate = (stage == Stage::CodingValidation && h.gate.result.is_some())
                .then(|| state_gate(&h.gate));
            if status.is_none() && gate.is_none() {
                continue;
            }
            let route = match (stage, node.and_then(|n| n.get("reflection"))) {
                (Stage::CodingValidation, Some(r)) if r.as_map().is_some() => {
                    let mut route = Route::default();
                    reflection(r, &mut route);
                    // A YouRA reflection in other words than youra's says nothing here.
                    (route != Route::default()).then_some(route)
                }
                _ => None,
            };
            steps.push((
                key(stage, Some(&h.id)),
                Outcome {
                    status,
                    gate,
                    route,
                },
            ));
        }
    }
    steps.extend(Stage::ALL[7..].iter().filter_map(|s| stage_row(*s)));
    steps
}

fn state_gate(g: &crate::vsa::Gate) -> GateOutcome {
    let mut checks: Vec<Check> = g
        .rules
        .iter()
        .map(|c| Check {
            metric: c.metric.clone(),
            required: Some(format!("{} {}", c.op, c.value)),
            measured: None,
        })
        .collect();
    for f in &g.failed_checks {
        let Some(metric) = f.criterion.clone() else {
            continue;
        };
        if !checks.iter().any(|c| c.metric == metric) {
            checks.push(Check {
                metric,
                required: f.required.clone(),
                measured: f.actual.clone(),
            });
        }
    }
    for (metric, v) in &g.measured {
        match checks.iter_mut().find(|c| &c.metric == metric) {
            Some(c) => c.measured = Some(v.clone()),
            None => checks.push(Check {
                metric: metric.clone(),
                required: None,
                measured: Some(v.clone()),
            }),
        }
    }
    GateOutcome {
        result: g.result.clone(),
        checks,
        from_node: None,
        own: None,
    }
}
