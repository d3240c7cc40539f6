//! Steering directives as the VSA holds them (`workflow.steering`), read back into structs
//! for the TUI, the engine's intake and tests. Tolerant: a hand-written or older item with
//! missing fields still reads, with `None` where a field is absent.

use crate::vsa::timestamp::Timestamp;
use crate::yaml::{Document, Node};

/// Where a directive stands: the engine sets `applied`, or `rejected` with a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DirectiveState {
    Pending,
    /// Waits for a second researcher's name (`[steer] second_approval`) before the engine
    /// may take it: written `needs_second`, and `pending` once a different name seconds it.
    NeedsSecond,
    Applied,
    Rejected,
    /// A value outside the vocabulary, kept as written.
    Other(String),
}

impl DirectiveState {
    /// A missing state reads as pending: that is what every directive starts as.
    fn read(raw: Option<&str>) -> DirectiveState {
        match raw.map(|s| s.trim().to_ascii_lowercase()).as_deref() {
            None | Some("pending") => DirectiveState::Pending,
            Some("needs_second") => DirectiveState::NeedsSecond,
            Some("applied") => DirectiveState::Applied,
            Some("rejected") => DirectiveState::Rejected,
            Some(_) => DirectiveState::Other(raw.unwrap_or_default().to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            DirectiveState::Pending => "pending",
            DirectiveState::NeedsSecond => "needs_second",
            DirectiveState::Applied => "applied",
            DirectiveState::Rejected => "rejected",
            DirectiveState::Other(s) => s,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directive {
    pub id: Option<String>,
    /// As written; [`Directive::verb`] parses it.
    pub verb: Option<String>,
    pub target: Option<String>,
    pub reason: Option<String>,
    pub actor: Option<String>,
    /// As written (RFC 3339 when youra wrote it); [`Directive::at_time`] parses it.
    pub at: Option<String>,
    pub state: DirectiveState,
    /// Why the engine rejected it, or what applying it did.
    pub note: Option<String>,
    /// `edit`: the run-relative file holding the new plan text (`plan/edits/<id>.md`).
    pub plan_file: Option<String>,
    /// Every name that gave it when two were required (`[ana, bo]`); empty otherwise.
    pub approved_by: Vec<String>,
    /// Line of the item in the file.
    pub line: usize,
}

impl Directive {
    pub fn verb(&self) -> Option<super::Verb> {
        self.verb.as_deref()?.parse().ok()
    }

    pub fn at_time(&self) -> Option<Timestamp> {
        Timestamp::parse(self.at.as_deref()?)
    }

    fn from_node(node: &Node) -> Directive {
        let field = |k: &str| node.get(k).and_then(Node::as_str).map(str::to_string);
        Directive {
            id: field("id"),
            verb: field("verb"),
            target: field("target"),
            reason: field("reason"),
            actor: field("actor"),
            at: field("at"),
            state: DirectiveState::read(node.get("state").and_then(Node::as_str)),
            note: field("note"),
            plan_file: field("plan_file"),
            approved_by: node
                .get("approved_by")
                .and_then(Node::as_seq)
                .unwrap_or_default()
                .iter()
                .filter_map(|n| n.as_str().map(str::to_string))
                .collect(),
            line: node.pos.line,
        }
    }
}

/// The directives in `workflow.steering`, in file order; empty when there are none. Items
/// that are not mappings (a bare `- pause` typed by hand) read as a verb alone.
pub fn directives(doc: &Document) -> Vec<Directive> {
    let Some(items) = steering_items(doc) else {
        return Vec::new();
    };
    items
        .iter()
        .map(|n| match n.as_str() {
            Some(verb) if n.as_map().is_none() => Directive {
                verb: Some(verb.to_string()),
                ..Directive::from_node(n)
            },
            _ => Directive::from_node(n),
        })
        .collect()
}

fn steering_items(doc: &Document) -> Option<&[Node]> {
    doc.root
        .as_ref()?
        .get("workflow")?
        .get("steering")?
        .as_seq()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Document {
        crate::yaml::parse(text.as_bytes()).unwrap()
    }

    #[test]
    fn items_read_with_missing_fields() {
        let d = doc(
            "workflow:\n  steering:\n  - id: d-3\n    verb: retry\n    target: h-m1\n    state: applied\n    note: reran\n  - verb: pause\n  - step\n",
        );
        let all = directives(&d);
        assert_eq!(all.len(), 3);
        assert_eq!(all[0].id.as_deref(), Some("d-3"));
        assert_eq!(all[0].verb(), Some(super::super::Verb::Retry));
        assert_eq!(all[0].state, DirectiveState::Applied);
        assert_eq!(all[0].note.as_deref(), Some("reran"));
        assert_eq!(all[1].state, DirectiveState::Pending);
        assert_eq!(all[1].id, None);
        assert_eq!(all[2].verb.as_deref(), Some("step"));
        assert_eq!(all[2].line, 9);
        assert!(directives(&doc("workflow:\n  steering: null\n")).is_empty());
        assert!(directives(&doc("revision: 1\n")).is_empty());
    }
}
