//! The escalation waiting for the researcher (`workflow.pending_escalation`) and the
//! decision a researcher writes into it, read from the YAML tree.

use crate::yaml::{Document, Node};

/// The researcher's answer to an escalation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Escalation {
    pub id: Option<String>,
    pub hypothesis: Option<String>,
    /// As written (`Pivot`); parse with [`super::RoutingAction`].
    pub proposed_action: Option<String>,
    /// `None` until someone decides.
    pub decision: Option<Decision>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Decision {
    pub verdict: Option<String>,
    pub action: Option<String>,
    pub by: Option<String>,
    pub at: Option<String>,
    pub reason: Option<String>,
}

fn field(node: &Node, key: &str) -> Option<String> {
    node.get(key).and_then(Node::as_str).map(str::to_string)
}

/// The escalation that waits, or `None` when `workflow.pending_escalation` is absent or null.
/// A decision written as a bare scalar (`decision: approved`) counts as a verdict.
pub fn pending_escalation(doc: &Document) -> Option<Escalation> {
    let node = doc
        .root
        .as_ref()?
        .get("workflow")?
        .get("pending_escalation")?;
    if node.is_null() {
        return None;
    }
    let decision = node
        .get("decision")
        .filter(|d| !d.is_null())
        .map(|d| match d.as_str() {
            Some(verdict) => Decision {
                verdict: Some(verdict.to_string()),
                ..Decision::default()
            },
            None => Decision {
                verdict: field(d, "verdict"),
                action: field(d, "action"),
                by: field(d, "by"),
                at: field(d, "at"),
                reason: field(d, "reason"),
            },
        });
    Some(Escalation {
        id: field(node, "id"),
        hypothesis: field(node, "hypothesis"),
        proposed_action: field(node, "proposed_action"),
        decision,
    })
}
