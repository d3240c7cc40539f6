//! What the reflector sees when it expands a node (PrimeScientist §3.3; the reference's
//! reflector reads the node's packet and verifier tail, its log brief, its diff from the
//! baseline and the other nodes' priors and packets, the pruned children first, and resumes
//! one session that remembers its earlier proposals): the node's measured result, the head
//! and tail of its log, its code diff from its parent, the failure analysis while it is
//! about this node, how its siblings and children fared, the whole search in outline and
//! what the reflector proposed before and how it went (`evidence_search.rs`).
//!
//! Pure: the engine captures the log tail into the packet when it records the attempt (the
//! log itself moves to `results/attempts/` at the next attempt) and computes the diff; this
//! module picks, bounds and masks them. Everything here is the experiment's or a model's
//! text: it goes to a model, and is escaped (`crate::term`) wherever it is shown.

use serde_json::Value;

use super::best::{MEASURED_KEY, subtree};
use super::evidence_line::{LINE_CHARS, entry, one_line, passed};
use super::files::NodeStatus;
use super::id::NodeId;
use super::tree::{PlanNode, PlanTree};

/// The packet key of the attempt's log tail (lines joined by `\n`, secrets masked).
pub const LOG_TAIL_KEY: &str = "log_tail";
/// The packet key of the log's first lines, kept when the log is longer than head and tail.
pub const LOG_HEAD_KEY: &str = "log_head";
/// The packet key of how many lines were left out between head and tail (absent: uncounted).
pub(crate) const LOG_OMITTED_KEY: &str = "log_omitted";
/// The reference's log brief: the first 100 lines (set-up, data, configuration) and the last
/// 500 (the training curve's end, the error and what led to it).
pub const LOG_HEAD_LINES: usize = 100;
pub const LOG_TAIL_LINES: usize = 500;
/// The brief's token cap, in characters (about 4 a token: 1k tokens of head, 4k of tail):
/// each part keeps its start (head) or its end (tail) within its share, in the packet and
/// in the prompt.
pub(crate) const LOG_HEAD_CHARS: usize = 4_000;
pub(crate) const LOG_TAIL_CHARS: usize = 16_000;
/// At most this many characters of a diff reach the prompt.
pub const DIFF_CHARS: usize = 6_000;
/// Siblings and children listed; the rest are counted.
const TREE_ENTRIES: usize = 12;
/// The diff slot when no code diff was recorded (no code per node, or not executed).
pub const NO_DIFF: &str = "(no code diff recorded for this node)";

/// The prompt's evidence sections, each ready to paste.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    pub plan: String,
    /// Reward, gate outcome and measured metrics; or why there are none.
    pub result: String,
    /// The log brief: its head, what was left out, its tail.
    pub log_tail: String,
    pub diff: String,
    /// The failure analysis's requested change, while it is about this node.
    pub failure: String,
    /// Siblings and children: first lines of their plans, rewards, pruned or failed.
    pub branch: String,
    /// The sub-hypothesis's whole tree in outline, this node marked.
    pub tree: String,
    /// The reflector's earlier proposals in this search, how each fared, and its calibration.
    pub memory: String,
}

/// The evidence for expanding `node`. `diff`: its code diff from its parent's, when the run
/// keeps code per node; `fix`: the sub-hypothesis's latest failure analysis (the VSA's
/// `refinement`), shown only while it is this node's ([`fix_applies`]).
pub fn evidence(
    tree: &PlanTree,
    node: &PlanNode,
    diff: Option<&str>,
    fix: Option<&str>,
) -> Evidence {
    let hypothesis = hypothesis_of(tree, node);
    let failure = match (fix.map(str::trim).filter(|f| !f.is_empty()), &hypothesis) {
        (Some(f), Some(h)) if fix_applies(tree, h, &node.id) => f.to_string(),
        (Some(_), _) if passed(node) == Some(true) => {
            "(none: this node passed its gate; the last failure analysis is about an earlier attempt)"
                .into()
        }
        (Some(_), _) => "(none for this node: the last failure analysis is about another attempt)".into(),
        (None, _) => "(no failure analysis was made)".into(),
    };
    Evidence {
        plan: node.plan.clone().unwrap_or_default().trim().to_string(),
        result: result(node),
        log_tail: log_tail(node),
        diff: match diff.map(str::trim_end).filter(|d| !d.trim().is_empty()) {
            Some(d) => bound_head(&mask(d), DIFF_CHARS, "diff"),
            None => NO_DIFF.to_string(),
        },
        failure: mask(&failure),
        branch: branch(tree, node),
        tree: mask(&super::evidence_search::outline(
            tree,
            hypothesis.as_deref(),
            &node.id,
        )),
        memory: mask(&super::evidence_search::memory(
            tree,
            hypothesis.as_deref(),
            &node.id,
        )),
    }
}

/// Keep the log brief in an attempt's packet, bounded as the prompt bounds it (a tree of
/// many nodes stays small): `head` and `tail` lines, `omitted` between them.
pub fn keep_log_brief(
    extra: &mut serde_json::Map<String, Value>,
    head: &[String],
    tail: &[String],
    omitted: Option<usize>,
) {
    let cut = |l: &String| l.chars().take(LINE_CHARS).collect::<String>();
    let tail: Vec<String> = tail.iter().map(cut).collect();
    extra.insert(
        LOG_TAIL_KEY.into(),
        bound_tail(&tail.join("\n"), LOG_TAIL_CHARS).into(),
    );
    if !head.is_empty() {
        let head: Vec<String> = head.iter().map(cut).collect();
        extra.insert(
            LOG_HEAD_KEY.into(),
            bound_head(&head.join("\n"), LOG_HEAD_CHARS, "log head").into(),
        );
        if let Some(n) = omitted {
            extra.insert(LOG_OMITTED_KEY.into(), n.into());
        }
    }
}

/// Whether the sub-hypothesis's latest failure analysis is about `node`: it is written after
/// each missed gate while nothing in the subtree has passed, about the attempt just recorded.
/// After a pass no analysis runs, so the one on record is stale for every later node.
pub fn fix_applies(tree: &PlanTree, hypothesis: &str, node: &NodeId) -> bool {
    let any_passed = subtree(tree, hypothesis)
        .iter()
        .filter_map(|id| tree.get(id))
        .any(|n| passed(n) == Some(true));
    !any_passed && latest_recorded(tree, hypothesis).as_ref() == Some(node)
}

/// The node of `hypothesis`'s subtree whose attempt was recorded last: by the packet's
/// `attempt` key (`<h>#<round>#<attempt>`, the VSA's counters), then its finish time, then
/// the id. Packets of one second are common in a replay, so the counters come first.
pub fn latest_recorded(tree: &PlanTree, hypothesis: &str) -> Option<NodeId> {
    subtree(tree, hypothesis)
        .into_iter()
        .filter_map(|id| tree.get(&id))
        .filter_map(|n| {
            let p = n.packet.as_ref()?;
            let counters = p
                .extra
                .get("attempt")
                .and_then(Value::as_str)
                .and_then(attempt_counters);
            Some((
                (counters, p.finished_at.clone(), n.id.clone()),
                n.id.clone(),
            ))
        })
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, id)| id)
}

/// (round, attempt) of an attempt key `<h>#<round>#<attempt>`.
fn attempt_counters(key: &str) -> Option<(u32, u32)> {
    let mut parts = key.rsplit('#');
    let attempt = parts.next()?.parse().ok()?;
    let round = parts.next()?.parse().ok()?;
    Some((round, attempt))
}

fn hypothesis_of(tree: &PlanTree, node: &PlanNode) -> Option<String> {
    let mut at = node;
    loop {
        if let Some(h) = &at.hypothesis_id {
            return Some(h.clone());
        }
        at = tree.get(at.parent.as_ref()?)?;
    }
}

/// Reward, gate and metrics of the node's attempt, or why it has none.
fn result(node: &PlanNode) -> String {
    let Some(p) = node.packet.as_ref().filter(|_| node.status.has_reward()) else {
        return "Not executed yet.".into();
    };
    if node.status == NodeStatus::Failed {
        return "The attempt produced no usable result (a crash, a timeout or no metrics after its repairs): it counts as reward 0.".into();
    }
    let gate = match passed(node) {
        Some(true) => "the gate passed",
        Some(false) => "the gate was missed",
        None => "the gate's outcome was not recorded",
    };
    let mut out = format!("Reward h = {:.3} in [0, 1]; {gate}.", p.reward);
    let measured: Vec<String> = p
        .extra
        .get(MEASURED_KEY)
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some(format!("{} = {}", one_line(k), v.as_f64()?)))
                .collect()
        })
        .unwrap_or_default();
    if measured.is_empty() {
        out.push_str(" No metric was measured.");
    } else {
        out.push_str(&format!(" Measured: {}.", measured.join(", ")));
    }
    if node.status == NodeStatus::Pruned {
        out.push_str(" Pruned: more than δ below its parent's value.");
    }
    out
}

/// The log brief for the prompt: the head (when the log was longer than head and tail), a
/// line saying what was left out, the tail; each part within its share of the cap.
fn log_tail(node: &PlanNode) -> String {
    let text = |key: &str| {
        node.packet
            .as_ref()
            .and_then(|p| p.extra.get(key))
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let (head, tail) = (text(LOG_HEAD_KEY), text(LOG_TAIL_KEY));
    if tail.trim().is_empty() && head.trim().is_empty() {
        return "(no log recorded for this node)".into();
    }
    let lines = |t: &str, n: usize, from_end: bool| -> String {
        let all: Vec<String> = t
            .lines()
            .map(|l| l.chars().take(LINE_CHARS).collect())
            .collect();
        let kept = match from_end {
            true => &all[all.len().saturating_sub(n)..],
            false => &all[..n.min(all.len())],
        };
        kept.join("\n")
    };
    let tail = bound_tail(&mask(&lines(tail, LOG_TAIL_LINES, true)), LOG_TAIL_CHARS);
    if head.trim().is_empty() {
        return tail;
    }
    let head = bound_head(
        &mask(&lines(head, LOG_HEAD_LINES, false)),
        LOG_HEAD_CHARS,
        "log head",
    );
    let omitted = node
        .packet
        .as_ref()
        .and_then(|p| p.extra.get(LOG_OMITTED_KEY))
        .and_then(Value::as_u64)
        .map_or_else(
            || "… the middle of the log is left out …".to_string(),
            |n| format!("… {n} lines of the log are left out …"),
        );
    format!("{head}\n{omitted}\n{tail}")
}

/// Siblings (the parent's other children) and the node's own children, one line each.
fn branch(tree: &PlanTree, node: &PlanNode) -> String {
    let siblings: Vec<&PlanNode> = node
        .parent
        .as_ref()
        .and_then(|p| tree.get(p))
        .map(|p| {
            p.children
                .iter()
                .filter(|c| **c != node.id)
                .filter_map(|c| tree.get(c))
                .collect()
        })
        .unwrap_or_default();
    let children: Vec<&PlanNode> = node.children.iter().filter_map(|c| tree.get(c)).collect();
    let mut out = String::new();
    match node.parent.as_ref() {
        None => out.push_str("Siblings: none (this is the sub-hypothesis's first plan).\n"),
        Some(p) if siblings.is_empty() => {
            out.push_str(&format!("Siblings: none (the only child of {p}).\n"))
        }
        Some(p) => {
            out.push_str(&format!("Siblings (the other children of {p}):\n"));
            list(&mut out, &siblings);
        }
    }
    if children.is_empty() {
        out.push_str("Children: none yet.\n");
    } else {
        out.push_str("Children already proposed (do not repeat them; a pruned or failed one is a direction that did not pay):\n");
        list(&mut out, &children);
    }
    mask(out.trim_end())
}

fn list(out: &mut String, nodes: &[&PlanNode]) {
    for n in nodes.iter().take(TREE_ENTRIES) {
        out.push_str(&format!("- {}\n", entry(n)));
    }
    if nodes.len() > TREE_ENTRIES {
        out.push_str(&format!("- … and {} more\n", nodes.len() - TREE_ENTRIES));
    }
}

/// Secrets masked by pattern (the tail was masked with the process's keys when captured),
/// and code fences broken so a log or diff cannot close the prompt's fence around it.
fn mask(text: &str) -> String {
    crate::redact::redact(text, &[]).replace("```", "'''")
}

/// The last `limit` characters, from a line start, with a first line saying what was cut.
fn bound_tail(text: &str, limit: usize) -> String {
    let total = text.chars().count();
    if total <= limit {
        return text.to_string();
    }
    let kept: String = text.chars().skip(total - limit).collect();
    let kept = kept
        .split_once('\n')
        .map_or(kept.as_str(), |(_, rest)| rest);
    format!(
        "… log cut: its last {} of {total} characters\n{kept}",
        kept.chars().count()
    )
}

/// The first `limit` characters, to a line end, with a last line saying what (`what`) was cut.
fn bound_head(text: &str, limit: usize, what: &str) -> String {
    let total = text.chars().count();
    if total <= limit {
        return text.to_string();
    }
    let cut: String = text.chars().take(limit).collect();
    let cut = cut.rsplit_once('\n').map_or(cut.as_str(), |(head, _)| head);
    format!(
        "{cut}\n… {what} cut: {} of {total} characters shown",
        cut.chars().count()
    )
}

#[cfg(test)]
#[path = "evidence_tests.rs"]
pub(crate) mod tests;
