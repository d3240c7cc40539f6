//! The whole search beside the node the reflector expands. The reference's reflector browses
//! the tree's files (other nodes' plans, priors and packets) and, resumed, remembers every
//! proposal it made; youra gives it both from the one record of them, the tree:
//!
//! - `outline`: the sub-hypothesis's tree, one line per node, indented by depth, the node
//!   being expanded marked;
//! - `memory`: each earlier expansion's proposals with the estimate the reflector gave and
//!   what running them showed, then its calibration so far (estimates against the rate at
//!   which its proposals beat their parent): what it tried and what it learned.
//!
//! - `insights`: what the run's other searches found (the reference's `insights/`, real
//!   discoveries of other tasks), for the reflector drafting a new search's root.
//!
//! Pure and bounded; the text is the plans' and the reflector's own, masked by the caller.

use super::evidence_line::{entry, one_line};
use super::files::NodeStatus;
use super::id::NodeId;
use super::tree::{PlanNode, PlanTree};

/// Nodes in the outline; the rest are counted.
pub(crate) const OUTLINE_ENTRIES: usize = 40;
/// Earlier expansions remembered (the latest); the rest are counted.
pub(crate) const MEMORY_EXPANSIONS: usize = 12;

/// The roots of `hypothesis`'s search, or (no hypothesis recorded) the root above `at`.
fn roots<'t>(tree: &'t PlanTree, hypothesis: Option<&str>, at: &NodeId) -> Vec<&'t PlanNode> {
    if let Some(h) = hypothesis {
        let mine: Vec<&PlanNode> = tree
            .roots()
            .filter(|r| r.hypothesis_id.as_deref() == Some(h))
            .collect();
        if !mine.is_empty() {
            return mine;
        }
    }
    let mut n = tree.get(at);
    while let Some(p) = n.and_then(|x| x.parent.as_ref()).and_then(|p| tree.get(p)) {
        n = Some(p);
    }
    n.into_iter().collect()
}

/// Every node of the search in depth-first order, with its depth.
fn walk<'t>(tree: &'t PlanTree, roots: &[&'t PlanNode]) -> Vec<(usize, &'t PlanNode)> {
    let mut out = Vec::new();
    let mut stack: Vec<(usize, &PlanNode)> = roots.iter().rev().map(|r| (0, *r)).collect();
    while let Some((d, n)) = stack.pop() {
        out.push((d, n));
        for c in n.children.iter().rev().filter_map(|c| tree.get(c)) {
            stack.push((d + 1, c));
        }
    }
    out
}

/// The search in outline: `n-0003 [evaluated, reward 0.412, gate missed] Title`, indented by
/// depth; the node being expanded ends with `◀ you are expanding this node`.
pub fn outline(tree: &PlanTree, hypothesis: Option<&str>, at: &NodeId) -> String {
    let nodes = walk(tree, &roots(tree, hypothesis, at));
    let mut out = String::new();
    for (d, n) in nodes.iter().take(OUTLINE_ENTRIES) {
        let mark = if &n.id == at {
            " ◀ you are expanding this node"
        } else {
            ""
        };
        out.push_str(&format!("{}- {}{mark}\n", "  ".repeat(*d), entry(n)));
    }
    if nodes.len() > OUTLINE_ENTRIES {
        out.push_str(&format!(
            "- … and {} more nodes\n",
            nodes.len() - OUTLINE_ENTRIES
        ));
    }
    out.trim_end().to_string()
}

/// What became of a proposal: its reward against its parent's, or why it has none.
/// `Some(true)` when it beat its parent.
fn fate(child: &PlanNode, parent: &PlanNode) -> (String, Option<bool>) {
    let reward = |n: &PlanNode| {
        n.packet
            .as_ref()
            .filter(|_| n.status.has_reward())
            .map(|p| p.reward)
    };
    match (child.status, reward(child), reward(parent)) {
        (NodeStatus::Untested | NodeStatus::Running, ..) => ("not run yet".into(), None),
        (NodeStatus::Failed, ..) => ("failed without a result".into(), Some(false)),
        (status, Some(r), Some(pr)) => {
            let beat = r > pr;
            let verdict = if beat {
                "beat its parent"
            } else {
                "did not beat its parent"
            };
            let pruned = if status == NodeStatus::Pruned {
                ", pruned"
            } else {
                ""
            };
            (
                format!("scored {r:.3} against {pr:.3}: {verdict}{pruned}"),
                Some(beat),
            )
        }
        (_, Some(r), None) => (format!("scored {r:.3}"), None),
        _ => ("no result recorded".into(), None),
    }
}

/// The reflector's earlier proposals in this search, how each fared, and its calibration.
/// The node being expanded now is not among them unless it was expanded before.
pub fn memory(tree: &PlanTree, hypothesis: Option<&str>, at: &NodeId) -> String {
    let nodes = walk(tree, &roots(tree, hypothesis, at));
    let mut expanded: Vec<&PlanNode> = nodes
        .iter()
        .map(|(_, n)| *n)
        .filter(|n| !n.children.is_empty())
        .collect();
    if expanded.is_empty() {
        return "(none: this is your first expansion in this search)".into();
    }
    // In the order they were expanded: by their first child's id (ids are issued in order).
    expanded.sort_by(|a, b| a.children.first().cmp(&b.children.first()));
    let skipped = expanded.len().saturating_sub(MEMORY_EXPANSIONS);
    let (mut estimates, mut ran, mut beat) = (Vec::new(), 0usize, 0usize);
    let mut out = String::new();
    if skipped > 0 {
        out.push_str(&format!("(… {skipped} earlier expansions not shown)\n"));
    }
    for (i, parent) in expanded.iter().enumerate() {
        let show = i >= skipped;
        if show {
            out.push_str(&format!("Expanding {} you proposed:\n", parent.id));
        }
        for child in parent.children.iter().filter_map(|c| tree.get(c)) {
            let (what, outcome) = fate(child, parent);
            let estimate = child.prior.estimate;
            if let Some(b) = outcome {
                ran += 1;
                beat += usize::from(b);
                estimates.extend(estimate);
            }
            if show {
                let est =
                    estimate.map_or_else(|| "no estimate".into(), |p| format!("estimate {p:.2}"));
                let tested = one_line(child.prior.hypothesis.trim());
                let tested = if tested.is_empty() {
                    String::new()
                } else {
                    format!(" — {tested}")
                };
                out.push_str(&format!("- {} ({est}){tested}: {what}\n", child.id));
            }
        }
    }
    if ran == 0 {
        out.push_str("None of your proposals has a result yet.");
    } else {
        let mean = estimates.iter().sum::<f64>() / estimates.len().max(1) as f64;
        let rate = beat as f64 / ran as f64;
        let lesson = if estimates.is_empty() {
            String::new()
        } else if mean > rate + 0.15 {
            format!(" Your mean estimate was {mean:.2}: you have been too hopeful.")
        } else if mean + 0.15 < rate {
            format!(" Your mean estimate was {mean:.2}: you have been too cautious.")
        } else {
            format!(" Your mean estimate was {mean:.2}: about right.")
        };
        out.push_str(&format!(
            "So far {beat} of {ran} proposals with a result beat their parent ({:.0}%).{lesson}",
            rate * 100.0
        ));
    }
    out
}

/// Sub-hypotheses listed in `insights`; the rest are counted.
pub(crate) const INSIGHT_SEARCHES: usize = 8;

/// What every other sub-hypothesis's search found: its plans run, its best by reward (title,
/// reward, gate) and the directions that did not pay (pruned or failed), one block each.
pub fn insights(tree: &PlanTree, except: &str) -> String {
    let mut ids: Vec<&str> = tree
        .roots()
        .filter_map(|r| r.hypothesis_id.as_deref())
        .filter(|h| *h != except)
        .collect();
    ids.sort();
    ids.dedup();
    if ids.is_empty() {
        return "(none: this is the run's first search)".into();
    }
    let mut out = String::new();
    for h in ids.iter().take(INSIGHT_SEARCHES) {
        let mine: Vec<&PlanNode> = tree
            .roots()
            .filter(|r| r.hypothesis_id.as_deref() == Some(*h))
            .collect();
        let nodes: Vec<&PlanNode> = walk(tree, &mine).into_iter().map(|(_, n)| n).collect();
        let ran: Vec<&PlanNode> = nodes
            .iter()
            .copied()
            .filter(|n| n.status.has_reward())
            .collect();
        if ran.is_empty() {
            out.push_str(&format!("- {h}: no plan has run yet.\n"));
            continue;
        }
        let best = ran
            .iter()
            .filter(|n| n.status != NodeStatus::Failed)
            .max_by(|a, b| {
                let r = |n: &PlanNode| n.packet.as_ref().map_or(0.0, |p| p.reward);
                r(a).total_cmp(&r(b))
            });
        out.push_str(&format!("- {h}: {} plan(s) run", ran.len()));
        match best {
            Some(b) => out.push_str(&format!("; the best: {}\n", entry(b))),
            None => out.push_str("; every one failed without a result\n"),
        }
        for n in ran
            .iter()
            .filter(|n| matches!(n.status, NodeStatus::Pruned | NodeStatus::Failed))
        {
            out.push_str(&format!("  - did not pay: {}\n", entry(n)));
        }
    }
    if ids.len() > INSIGHT_SEARCHES {
        out.push_str(&format!(
            "- … and {} more searches\n",
            ids.len() - INSIGHT_SEARCHES
        ));
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::evidence::tests::fixture;

    fn id(s: &str) -> NodeId {
        NodeId::new(s).unwrap()
    }

    #[test]
    fn the_outline_shows_the_whole_search_indented_with_this_node_marked() {
        let t = fixture();
        let o = outline(&t, Some("h-e1"), &id("n-0003"));
        let lines: Vec<&str> = o.lines().collect();
        assert!(lines[0].starts_with("- n-0001 ["), "{o}");
        assert!(lines[1..].iter().all(|l| l.starts_with("  - n-000")), "{o}");
        let marked: Vec<&&str> = lines.iter().filter(|l| l.contains('◀')).collect();
        assert_eq!(marked.len(), 1, "{o}");
        assert!(marked[0].contains("n-0003"), "{o}");
        assert!(
            !o.contains("n-0005"),
            "another sub-hypothesis's search is not shown: {o}"
        );
        // Without a hypothesis: the tree above the node.
        assert_eq!(outline(&t, None, &id("n-0003")), o);
    }

    #[test]
    fn memory_says_what_was_proposed_how_it_went_and_the_calibration() {
        let t = fixture();
        let m = memory(&t, Some("h-e1"), &id("n-0003"));
        assert!(m.starts_with("Expanding n-0001 you proposed:"), "{m}");
        assert!(m.contains("n-0002 (estimate 0.40)"), "{m}");
        assert!(m.contains("failed without a result"), "{m}");
        assert!(m.contains("n-0004") && m.contains("not run yet"), "{m}");
        // Two with a result (a failure and a miss below the parent), none beat it, 0.40
        // estimated each: too hopeful.
        assert!(m.contains("So far 0 of 2 proposals"), "{m}");
        assert!(m.contains("too hopeful"), "{m}");
        let first = memory(&t, Some("h-m1"), &id("n-0005"));
        assert_eq!(first, "(none: this is your first expansion in this search)");
    }

    #[test]
    fn insights_name_each_other_searchs_best_and_what_did_not_pay() {
        let t = fixture();
        let i = insights(&t, "h-m2");
        let lines: Vec<&str> = i.lines().collect();
        assert!(
            lines[0].starts_with("- h-e1: 3 plan(s) run; the best: n-0001 ["),
            "{i}"
        );
        assert!(i.contains("did not pay: n-0002 [failed]"), "{i}");
        assert!(i.contains("did not pay: n-0003 [pruned"), "{i}");
        assert!(i.contains("- h-m1: 1 plan(s) run; the best: n-0005"), "{i}");
        assert!(
            !insights(&t, "h-e1").contains("h-e1"),
            "its own search is not an insight"
        );
        assert_eq!(
            insights(&PlanTree::new(), "h-e1"),
            "(none: this is the run's first search)"
        );
    }
}
