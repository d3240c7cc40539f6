//! `workflow.pending_review`, typed: an experiment that waits for the researcher before it
//! runs (issue 42 item 1, decision 0040) — which sub-hypothesis and plan node, the record
//! with its criteria, command, diff and estimated cost (`reviews/<id>.json`), and the answer.
//! Parsed once, in [`super::read`]; the engine, `youra steer … review`, the notices and the
//! TUI's card all read this, so they agree on what waits.

use serde::Serialize;

use crate::yaml::Node;

/// Where the pending review lives in the VSA.
pub const PATH: &str = "workflow.pending_review";
/// Where its answer is written (by `youra steer … review`, the TUI, or the waiting policy).
pub const DECISION_PATH: &str = "workflow.pending_review.decision";
/// Sub-hypotheses whose remaining experiments the researcher approved ("the rest of this
/// branch"): a list of ids.
pub const BRANCHES_LIST: &str = "workflow.review_branches";
/// The folder of review records (`reviews/<id>.json`) and researchers' edits
/// (`reviews/<id>.edit`), relative to the run.
pub const RECORDS_DIR: &str = "reviews";
/// Where a researcher's edit is recorded on its plan node (`PlanNode::extra`): who, why,
/// which file — the tree's ✎.
pub const NODE_EDIT_KEY: &str = "review_edit";
/// The review card's forecast, kept on its node (`{tokens, wall_s}`) to be checked against
/// what the node really cost (the Plan pane shows the error; issue 42 item 4).
pub const NODE_FORECAST_KEY: &str = "review_forecast";
/// Where a rejection is recorded on its pruned node: who and why.
pub const NODE_REJECT_KEY: &str = "review_rejected";
/// The history entries' `event` for a review raised, answered or applied.
pub const EVENT: &str = "review";

/// The researcher's answer to a review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// Run it.
    Approve,
    /// Do not run it: the node is pruned; the reason reaches the reflector.
    Reject,
    /// Run it and every later experiment of this sub-hypothesis without asking.
    Branch,
    /// Run the researcher's change of the code instead.
    Edit,
}

impl Answer {
    pub const ALL: [Answer; 4] = [
        Answer::Approve,
        Answer::Reject,
        Answer::Branch,
        Answer::Edit,
    ];

    /// As written in the VSA (`approved`, `rejected`, `branch`, `edited`).
    pub fn as_str(self) -> &'static str {
        match self {
            Answer::Approve => "approved",
            Answer::Reject => "rejected",
            Answer::Branch => "branch",
            Answer::Edit => "edited",
        }
    }

    /// As typed (`youra steer RUN review approve`).
    pub fn word(self) -> &'static str {
        match self {
            Answer::Approve => "approve",
            Answer::Reject => "reject",
            Answer::Branch => "branch",
            Answer::Edit => "edit",
        }
    }

    /// Either spelling, any case.
    pub fn parse(raw: &str) -> Option<Answer> {
        let t = raw.trim().to_ascii_lowercase();
        Answer::ALL
            .into_iter()
            .find(|a| a.as_str() == t || a.word() == t)
    }

    /// Whether the experiment runs after this answer.
    pub fn runs(self) -> bool {
        self != Answer::Reject
    }
}

/// The answer as written under `decision`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ReviewDecision {
    /// As written; [`ReviewDecision::answer`] parses it.
    pub verdict_text: Option<String>,
    pub by: Option<String>,
    pub at: Option<String>,
    pub reason: Option<String>,
    /// `edit`: the file under `code/` the researcher's text replaces (or adds).
    pub path: Option<String>,
    /// `edit`: the run-relative file holding the researcher's text (`reviews/<id>.edit`).
    pub file: Option<String>,
}

impl ReviewDecision {
    pub fn answer(&self) -> Option<Answer> {
        self.verdict_text.as_deref().and_then(Answer::parse)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PendingReview {
    pub id: Option<String>,
    pub raised_at: Option<String>,
    pub hypothesis: Option<String>,
    /// The plan node whose experiment waits (`None` without a plan tree).
    pub node: Option<String>,
    /// The run-relative record with the criteria, command, diff and cost (`reviews/<id>.json`).
    pub record: Option<String>,
    /// The command, as one line.
    pub command: Option<String>,
    /// The sha256 of the code the review shows (`code_sha`): a restarted engine whose coder
    /// wrote other code raises a new review rather than run what nobody saw.
    pub code_sha: Option<String>,
    /// The estimate as written (`12000`, `95.5`), so the status line shows what the file says.
    pub tokens: Option<String>,
    pub wall_s: Option<String>,
    /// `None` until someone answers.
    pub decision: Option<ReviewDecision>,
}

impl PendingReview {
    /// Waiting for the researcher: raised and not yet answered.
    pub fn waits(&self) -> bool {
        self.decision.is_none()
    }

    /// The block under `workflow.pending_review`, or `None` when it is absent or null.
    pub fn read(node: &Node) -> Option<PendingReview> {
        if node.is_null() || node.as_scalar().is_some() {
            return None;
        }
        let s = |n: &Node, k: &str| {
            n.get(k)
                .and_then(Node::as_scalar)
                .filter(|s| !s.is_null())
                .map(|s| s.text.clone())
        };
        let decision = node
            .get("decision")
            .filter(|d| !d.is_null())
            .map(|d| match d.as_scalar() {
                Some(v) => ReviewDecision {
                    verdict_text: Some(v.text.clone()),
                    ..ReviewDecision::default()
                },
                None => ReviewDecision {
                    verdict_text: s(d, "verdict"),
                    by: s(d, "by"),
                    at: s(d, "at"),
                    reason: s(d, "reason"),
                    path: s(d, "path"),
                    file: s(d, "file"),
                },
            });
        Some(PendingReview {
            id: s(node, "id"),
            raised_at: s(node, "raised_at"),
            hypothesis: s(node, "hypothesis"),
            node: s(node, "node"),
            record: s(node, "record"),
            command: s(node, "command"),
            code_sha: s(node, "code_sha"),
            tokens: s(node, "tokens"),
            wall_s: s(node, "wall_s"),
            decision,
        })
    }
}

/// The sub-hypotheses whose branch the researcher approved (`workflow.review_branches`).
pub fn approved_branches(doc: &crate::yaml::Document) -> Vec<String> {
    doc.root
        .as_ref()
        .and_then(|r| r.get("workflow")?.get("review_branches")?.as_seq())
        .unwrap_or_default()
        .iter()
        .filter_map(|n| Some(n.as_scalar()?.text.trim().to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Option<PendingReview> {
        let doc = crate::yaml::parse(text.as_bytes()).unwrap();
        let root = doc.root.as_ref().unwrap();
        PendingReview::read(root.get("workflow")?.get("pending_review")?)
    }

    #[test]
    fn a_pending_review_reads_with_its_answer() {
        let r = read("workflow:\n  pending_review:\n    id: rv-4\n    hypothesis: h-e1\n    node: n-0002\n    record: reviews/rv-4.json\n    tokens: 1200\n    decision: null\n").unwrap();
        assert!(r.waits());
        assert_eq!(
            (r.id.as_deref(), r.node.as_deref(), r.tokens.as_deref()),
            (Some("rv-4"), Some("n-0002"), Some("1200"))
        );
        let r = read("workflow:\n  pending_review:\n    id: rv-4\n    decision: {verdict: edited, by: ana, reason: use the held-out split, path: main.py, file: reviews/rv-4.edit}\n").unwrap();
        let d = r.decision.unwrap();
        assert_eq!(d.answer(), Some(Answer::Edit));
        assert_eq!(
            (d.by.as_deref(), d.path.as_deref(), d.file.as_deref()),
            (Some("ana"), Some("main.py"), Some("reviews/rv-4.edit"))
        );
        // By hand: a bare word is the verdict; null or absent is no review.
        let r =
            read("workflow:\n  pending_review:\n    id: rv-5\n    decision: approve\n").unwrap();
        assert_eq!(r.decision.unwrap().answer(), Some(Answer::Approve));
        assert_eq!(read("workflow:\n  pending_review: null\n"), None);
        assert_eq!(read("workflow:\n  status: ACTIVE\n"), None);
    }

    #[test]
    fn answers_parse_in_either_spelling() {
        for a in Answer::ALL {
            assert_eq!(Answer::parse(a.as_str()), Some(a));
            assert_eq!(Answer::parse(&a.word().to_uppercase()), Some(a));
        }
        assert_eq!(Answer::parse("maybe"), None);
        assert!(!Answer::Reject.runs() && Answer::Edit.runs());
    }
}
