//! Reading a sub-hypothesis's gate, in every shape real runs write it: YouRA's mapping, a
//! bare string (`gate: MUST_WORK`), or a dict of metric criteria.

use super::enums::{GateResult, GateType, Parsed};
use super::model::{ArmInterval, FailedCheck, Gate, GateEvidence};
use super::read::{Reader, text};
use crate::yaml::{Node, NodeKind};

const GATE_KEYS: &[&str] = &[
    "type",
    "satisfied",
    "result",
    "failed_checks",
    "criteria",
    "status",
    "threshold",
    "metric",
    "measured",
    "evidence",
    "undecided",
];

impl Reader {
    pub(super) fn gate(&mut self, id: &str, node: Option<&Node>) -> Gate {
        let Some(node) = node else {
            return Gate::default();
        };
        match &node.kind {
            NodeKind::Scalar(_) => self.gate_from_string(id, node),
            NodeKind::Map(entries) => {
                let has_known = entries
                    .iter()
                    .any(|(k, _)| k.as_str().is_some_and(|k| GATE_KEYS.contains(&k)));
                if has_known {
                    self.gate_map(id, node)
                } else {
                    self.gate_from_metrics(id, node)
                }
            }
            NodeKind::Seq(_) => {
                self.warn(
                    node.pos.line,
                    format!("{id}: gate is a list: read as criteria"),
                );
                Gate {
                    criteria: criteria_of(node),
                    ..Gate::default()
                }
            }
        }
    }

    fn gate_from_string(&mut self, id: &str, node: &Node) -> Gate {
        let Some(raw) = node.as_str() else {
            return Gate::default();
        };
        let mut gate = Gate::default();
        if let Parsed::Exact(t) | Parsed::Alias(t) = GateType::parse(raw) {
            gate.gate_type = Some(t);
            self.warn(
                node.pos.line,
                format!("{id}: gate written as the string `{raw}`: read as its type"),
            );
        } else if let Parsed::Exact(r) | Parsed::Alias(r) = GateResult::parse(raw) {
            gate.result = Some(r);
            self.warn(
                node.pos.line,
                format!("{id}: gate written as the string `{raw}`: read as its result"),
            );
        } else {
            gate.result_text = Some(raw.to_string());
            self.warn(
                node.pos.line,
                format!("{id}: gate written as free text: kept as its description"),
            );
        }
        gate
    }

    /// `gate: {accuracy: ">= 0.9", loss: "< 0.1"}`: no YouRA keys, only metric criteria.
    fn gate_from_metrics(&mut self, id: &str, node: &Node) -> Gate {
        self.warn(
            node.pos.line,
            format!("{id}: gate written as metric criteria without a type"),
        );
        Gate {
            criteria: criteria_of(node),
            ..Gate::default()
        }
    }

    fn gate_map(&mut self, id: &str, node: &Node) -> Gate {
        let mut gate = Gate {
            gate_type: self.enum_value(
                node.get("type"),
                "gate type",
                GateType::parse,
                GateType::read,
                GateType::NAMES,
            ),
            satisfied: self.boolish(id, node.get("satisfied")),
            failed_checks: failed_checks(node.get("failed_checks")),
            criteria: node.get("criteria").map(criteria_of).unwrap_or_default(),
            rules: node.get("criteria").map(rules_of).unwrap_or_default(),
            measured: measured_of(node.get("measured")),
            evidence: evidence_of(node.get("evidence")),
            undecided: failed_checks(node.get("undecided")),
            ..Gate::default()
        };
        if let Some(metric) = text(node.get("metric")) {
            let op = text(node.get("operator")).unwrap_or_else(|| ">=".into());
            let th = node
                .get("threshold")
                .and_then(|t| t.as_scalar())
                .map(|s| s.text.clone())
                .unwrap_or_default();
            gate.criteria
                .push((metric, format!("{op} {th}").trim().to_string()));
        }
        let result = node.get("result").or_else(|| node.get("status"));
        if let Some(r) = result.filter(|r| !r.is_null()) {
            self.gate_result(id, r, &mut gate);
        }
        gate
    }

    fn gate_result(&mut self, id: &str, node: &Node, gate: &mut Gate) {
        let Some(raw) = node.as_str() else { return };
        match GateResult::parse(raw) {
            Parsed::Exact(r) => gate.result = Some(r),
            Parsed::Alias(r) => {
                self.warn(
                    node.pos.line,
                    format!("{id}: gate result `{raw}` read as {r}"),
                );
                gate.result = Some(r);
            }
            Parsed::Unknown => {
                gate.result_text = Some(raw.to_string());
                gate.result = classify_sentence(raw, gate.satisfied);
                let as_what = gate
                    .result
                    .as_ref()
                    .map_or("unclassified".to_string(), |r| format!("classified {r}"));
                self.warn(
                    node.pos.line,
                    format!("{id}: gate result is free text: {as_what}"),
                );
            }
        }
    }

    fn boolish(&mut self, id: &str, node: Option<&Node>) -> Option<bool> {
        let node = node.filter(|n| !n.is_null())?;
        let s = node.as_scalar()?;
        if let Some(b) = s.as_bool() {
            return Some(b);
        }
        let b = match s.text.to_ascii_lowercase().as_str() {
            "true" | "yes" | "pass" => Some(true),
            "false" | "no" | "fail" => Some(false),
            _ => None,
        };
        self.warn(
            node.pos.line,
            format!(
                "{id}: gate `satisfied: {}` is not a boolean{}",
                s.text,
                if b.is_some() {
                    ": read as one"
                } else {
                    ": ignored"
                }
            ),
        );
        b
    }
}

/// `gate.evidence`: one map per criterion; an item that is not a map is skipped, a field
/// that is not what it should be (a word where a number goes, NaN, a negative count) is
/// `None`. Nothing here panics on what an outside writer left.
fn evidence_of(node: Option<&Node>) -> Vec<GateEvidence> {
    let items = node.and_then(Node::as_seq).unwrap_or_default();
    items
        .iter()
        .filter(|i| matches!(i.kind, NodeKind::Map(_)))
        .map(|i| {
            let num = |k: &str| number(i.get(k));
            let arm = |m: &str, lo: &str, hi: &str| {
                Some(ArmInterval {
                    mean: num(m)?,
                    lo: num(lo)?,
                    hi: num(hi)?,
                })
            };
            GateEvidence {
                metric: scalar_text(i.get("metric")),
                baseline: scalar_text(i.get("baseline")).filter(|b| !b.trim().is_empty()),
                op: scalar_text(i.get("op")).and_then(|o| o.parse().ok()),
                threshold: num("threshold"),
                verdict: scalar_text(i.get("verdict")).and_then(|v| match GateResult::parse(&v) {
                    Parsed::Exact(r) | Parsed::Alias(r) => Some(r),
                    Parsed::Unknown => None,
                }),
                n: count(i.get("n")),
                repeats: count(i.get("repeats")),
                mean: num("mean"),
                sd: num("sd"),
                lo: num("lo"),
                hi: num("hi"),
                confidence: num("confidence").filter(|c| *c > 0.0 && *c < 1.0),
                method: scalar_text(i.get("method")),
                card: scalar_text(i.get("card")),
                why: scalar_text(i.get("why")),
                arm: arm("arm_mean", "arm_lo", "arm_hi"),
                baseline_arm: arm("baseline_mean", "baseline_lo", "baseline_hi"),
            }
        })
        .collect()
}

/// A finite number, plain or quoted; anything else is `None`.
fn number(node: Option<&Node>) -> Option<f64> {
    scalar_text(node)?
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
}

/// A whole count (`5`, `5.0`), never negative.
fn count(node: Option<&Node>) -> Option<u64> {
    let t = scalar_text(node)?;
    let t = t.trim();
    t.parse::<u64>().ok().or_else(|| {
        let x = t.parse::<f64>().ok()?;
        (x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x < 1e15).then_some(x as u64)
    })
}

fn measured_of(node: Option<&Node>) -> Vec<(String, String)> {
    match node.map(|n| &n.kind) {
        Some(NodeKind::Map(entries)) => entries
            .iter()
            .filter_map(|(k, v)| Some((k.as_str()?.to_string(), v.as_scalar()?.text.clone())))
            .collect(),
        _ => Vec::new(),
    }
}

/// A leading verdict word ("FAILED - crashed at 53%") decides; otherwise `satisfied` does.
fn classify_sentence(raw: &str, satisfied: Option<bool>) -> Option<GateResult> {
    let first = raw
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .next()
        .unwrap_or("");
    match GateResult::parse(first) {
        Parsed::Exact(r) | Parsed::Alias(r) => Some(r),
        Parsed::Unknown => satisfied.map(|s| {
            if s {
                GateResult::Pass
            } else {
                GateResult::Fail
            }
        }),
    }
}

fn failed_checks(node: Option<&Node>) -> Vec<FailedCheck> {
    let items = node.and_then(Node::as_seq).unwrap_or_default();
    items
        .iter()
        .map(|item| match &item.kind {
            NodeKind::Map(_) => FailedCheck {
                criterion: text(item.get("criterion"))
                    .or_else(|| text(item.get("metric")))
                    .or_else(|| text(item.get("check"))),
                required: scalar_text(item.get("required"))
                    .or_else(|| scalar_text(item.get("threshold"))),
                actual: scalar_text(item.get("actual")).or_else(|| scalar_text(item.get("value"))),
                reason: text(item.get("reason")),
                text: None,
            },
            _ => FailedCheck {
                text: scalar_text(Some(item)),
                ..FailedCheck::default()
            },
        })
        .collect()
}

/// A scalar's text whatever its type (numbers included), `None` for null or collections.
pub(super) fn scalar_text(node: Option<&Node>) -> Option<String> {
    let s = node?.as_scalar()?;
    (!s.is_null()).then(|| s.text.clone())
}

/// `criteria: [{metric, op, value}, …]`: the items the engine can judge by (others are
/// kept as text in `criteria` only).
fn rules_of(node: &Node) -> Vec<super::model::GateCriterion> {
    node.as_seq()
        .unwrap_or_default()
        .iter()
        .enumerate()
        .filter_map(|(index, i)| {
            Some(super::model::GateCriterion {
                index,
                metric: text(i.get("metric"))?.trim().to_string(),
                op: text(i.get("op"))?.parse().ok()?,
                value: i.get("value")?.as_scalar()?.as_f64()?,
                baseline: text(i.get("baseline"))
                    .map(|b| b.trim().to_string())
                    .filter(|b| !b.is_empty()),
            })
        })
        .collect()
}

fn criteria_of(node: &Node) -> Vec<(String, String)> {
    match &node.kind {
        NodeKind::Map(entries) => entries
            .iter()
            .filter_map(|(k, v)| Some((k.as_str()?.to_string(), requirement(v))))
            .collect(),
        NodeKind::Seq(items) => items
            .iter()
            .filter_map(|i| match &i.kind {
                NodeKind::Map(_) => {
                    let metric = text(i.get("metric")).or_else(|| text(i.get("criterion")))?;
                    Some((metric, requirement(i)))
                }
                _ => Some((scalar_text(Some(i))?, String::new())),
            })
            .collect(),
        NodeKind::Scalar(_) => Vec::new(),
    }
}

fn requirement(node: &Node) -> String {
    match &node.kind {
        NodeKind::Scalar(s) => s.text.clone(),
        NodeKind::Map(_) => {
            let op = text(node.get("operator"))
                .or_else(|| text(node.get("op")))
                .unwrap_or_default();
            let th = scalar_text(node.get("threshold"))
                .or_else(|| scalar_text(node.get("value")))
                .or_else(|| scalar_text(node.get("required")))
                .unwrap_or_default();
            format!("{op} {th}").trim().to_string()
        }
        NodeKind::Seq(_) => String::new(),
    }
}

#[cfg(test)]
#[path = "read_gate_tests.rs"]
mod tests;
