//! `workflow.pending_escalation`, typed: what the engine raised (the route it proposes, the
//! clamp's verdict, the trajectory, the ranked attributions) and what the researcher
//! decided. Parsed once, in [`super::read`]; the engine, the steering verbs, `youra status`
//! and the TUI's card all read this, so they cannot disagree on which cause ranks first.

use serde::Serialize;

use crate::vocab::{Category, rank};
use crate::yaml::{Node, NodeKind};

/// The researcher's answer to an escalation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Approved,
    Rejected,
    Overridden,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Approved => "approved",
            Verdict::Rejected => "rejected",
            Verdict::Overridden => "overridden",
        }
    }

    /// As written by youra (`approved`) or by hand (`approve`, `Approved`).
    pub fn parse(raw: &str) -> Option<Verdict> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "approved" | "approve" => Some(Verdict::Approved),
            "rejected" | "reject" => Some(Verdict::Rejected),
            "overridden" | "override" => Some(Verdict::Overridden),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Escalation {
    pub id: Option<String>,
    pub raised_at: Option<String>,
    pub hypothesis: Option<String>,
    /// As written (`Pivot`); parse with [`crate::vocab::RoutingAction`].
    pub proposed_action: Option<String>,
    /// What π routed before the clamp changed it, when it did.
    pub routed_action: Option<String>,
    pub clamp_verdict: Option<String>,
    /// κ as written, so the card shows what the file says.
    pub clamp_kappa: Option<String>,
    pub clamp_reason: Option<String>,
    pub failed_checks: Vec<String>,
    /// `(feature, value)` in the file's order (`metric`, `decay`, … `signature`).
    pub trajectory: Vec<(String, String)>,
    /// Ranked as h* is chosen ([`rank`]): severity first, ties to Design, then file order.
    pub attributions: Vec<Attribution>,
    /// `None` until someone decides.
    pub decision: Option<Decision>,
    /// First answers waiting for a second researcher (`[steer] second_approval`): each is
    /// "1 of 2" until a different name gives the same answer, which writes the decision.
    pub approvals: Vec<Decision>,
    /// The failure record (`memory/<record>`) the decision rewrites with the route taken.
    pub record: Option<String>,
    /// Who proposed the action: `controller`, `table`, or the table as the fallback.
    pub router: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Attribution {
    /// As written; [`Attribution::category`] parses it.
    pub category: String,
    pub severity: Option<f64>,
    pub description: String,
    pub evidence: String,
    pub fix: String,
}

impl Attribution {
    pub fn category(&self) -> Option<Category> {
        Category::parse(&self.category)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// As written; [`Decision::verdict`] parses it.
    pub verdict_text: Option<String>,
    pub action: Option<String>,
    pub by: Option<String>,
    pub at: Option<String>,
    pub reason: Option<String>,
    /// Every name that gave this answer when two were required (`[ana, bo]`); empty otherwise.
    pub approved_by: Vec<String>,
}

impl Decision {
    pub fn verdict(&self) -> Option<Verdict> {
        self.verdict_text.as_deref().and_then(Verdict::parse)
    }

    /// Who decided, as a reader says it: `ana and bo` for two names, else `by`.
    pub fn who(&self) -> String {
        if self.approved_by.len() > 1 {
            return super::actor::names(&self.approved_by);
        }
        self.by.clone().unwrap_or_else(|| "someone".into())
    }
}

impl Escalation {
    /// Waiting for the researcher: raised and not yet decided.
    pub fn waits(&self) -> bool {
        self.decision.is_none()
    }

    /// The trajectory feature `key` as written.
    pub fn feature(&self, key: &str) -> Option<&str> {
        self.trajectory
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The block under `workflow.pending_escalation`, or `None` when it is absent, null or a
    /// bare scalar. A decision written as a bare scalar (`decision: approved`) is a verdict.
    pub fn read(node: &Node) -> Option<Escalation> {
        if node.is_null() || node.as_scalar().is_some() {
            return None;
        }
        let s = |n: &Node, k: &str| {
            n.get(k)
                .and_then(Node::as_scalar)
                .filter(|s| !s.is_null())
                .map(|s| s.text.clone())
        };
        let text = |n: &Node, k: &str| s(n, k).unwrap_or_default();
        let trajectory = match node.get("trajectory").map(|t| &t.kind) {
            Some(NodeKind::Map(entries)) => entries
                .iter()
                .filter_map(|(k, v)| {
                    let value = v.as_scalar().filter(|s| !s.is_null())?.text.clone();
                    Some((k.as_str()?.to_string(), value))
                })
                .collect(),
            _ => Vec::new(),
        };
        let mut attributions: Vec<Attribution> = node
            .get("attributions")
            .and_then(Node::as_seq)
            .unwrap_or_default()
            .iter()
            .map(|a| Attribution {
                category: text(a, "category"),
                severity: a.get("severity").and_then(|n| n.as_scalar()?.as_f64()),
                description: text(a, "description"),
                evidence: text(a, "evidence"),
                fix: text(a, "fix"),
            })
            .collect();
        rank(&mut attributions, |a| {
            (a.severity, a.category() == Some(Category::Design))
        });
        let answer = |d: &Node| Decision {
            verdict_text: s(d, "verdict"),
            action: s(d, "action"),
            by: s(d, "by"),
            at: s(d, "at"),
            reason: s(d, "reason"),
            approved_by: d
                .get("approved_by")
                .and_then(Node::as_seq)
                .unwrap_or_default()
                .iter()
                .filter_map(|n| Some(n.as_scalar()?.text.clone()))
                .collect(),
        };
        let decision = node
            .get("decision")
            .filter(|d| !d.is_null())
            .map(|d| match d.as_scalar() {
                Some(v) => Decision {
                    verdict_text: Some(v.text.clone()),
                    ..Decision::default()
                },
                None => answer(d),
            });
        let approvals = node
            .get("approvals")
            .and_then(Node::as_seq)
            .unwrap_or_default()
            .iter()
            .filter(|a| a.as_map().is_some())
            .map(answer)
            .collect();
        let failed_checks = node
            .get("failed_checks")
            .and_then(Node::as_seq)
            .unwrap_or_default()
            .iter()
            .filter_map(|n| Some(n.as_scalar()?.text.clone()))
            .collect();
        Some(Escalation {
            id: s(node, "id"),
            raised_at: s(node, "raised_at"),
            hypothesis: s(node, "hypothesis"),
            proposed_action: s(node, "proposed_action"),
            routed_action: s(node, "routed_action"),
            clamp_verdict: s(node, "clamp_verdict"),
            clamp_kappa: s(node, "clamp_kappa"),
            clamp_reason: s(node, "clamp_reason"),
            failed_checks,
            trajectory,
            attributions,
            decision,
            approvals,
            record: s(node, "record"),
            router: s(node, "router"),
        })
    }
}

/// The actions applied by the escalations decided so far, in order, joined by `/`
/// (`Method-Refine/Proceed`; empty before any): `workflow.escalation_log`'s `applied`. Part of
/// every model call's key, so a replay serves the continuation recorded after the same
/// decisions, and a recorded run in which the researcher approved replays as approved.
pub fn decisions(doc: &crate::yaml::Document) -> String {
    let Some(log) = doc
        .root
        .as_ref()
        .and_then(|r| r.get("workflow")?.get("escalation_log")?.as_seq())
    else {
        return String::new();
    };
    log.iter()
        .filter_map(|item| item.get("applied")?.as_str().map(str::trim))
        .filter(|a| !a.is_empty())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(yaml: &str) -> Option<Escalation> {
        let doc = crate::yaml::parse(yaml.as_bytes()).unwrap();
        Escalation::read(
            doc.root
                .as_ref()?
                .get("workflow")?
                .get("pending_escalation")?,
        )
    }

    #[test]
    fn attributions_rank_by_severity_then_design_then_file_order() {
        let e = read(
            "workflow:\n  pending_escalation:\n    id: e1\n    attributions:\n\
             \x20   - {category: Method, severity: 0.6, description: a}\n\
             \x20   - {category: Method, severity: 0.8, description: b}\n\
             \x20   - {category: Design, severity: 0.8, description: c}\n\
             \x20   - {category: Design, description: unscored}\n\
             \x20   - {category: Method, severity: 0.8, description: d}\n",
        )
        .unwrap();
        let order: Vec<&str> = e
            .attributions
            .iter()
            .map(|a| a.description.as_str())
            .collect();
        assert_eq!(order, ["c", "b", "d", "a", "unscored"]);
        assert!(e.waits());
    }

    #[test]
    fn decisions_read_as_maps_or_bare_verdicts() {
        let cases = [
            ("decision: approved", Some(Verdict::Approved)),
            ("decision: Reject", Some(Verdict::Rejected)),
            (
                "decision: {verdict: overridden, action: Pivot, by: ana}",
                Some(Verdict::Overridden),
            ),
            ("decision: {verdict: maybe}", None),
        ];
        for (line, want) in cases {
            let e = read(&format!(
                "workflow:\n  pending_escalation:\n    id: e1\n    {line}\n"
            ))
            .unwrap();
            assert_eq!(e.decision.as_ref().unwrap().verdict(), want, "{line}");
            assert!(!e.waits());
        }
        assert_eq!(
            read("workflow:\n  pending_escalation: null\n"),
            None,
            "null: nothing waits"
        );
        assert_eq!(read("workflow:\n  pending_escalation: none\n"), None);
    }
}
