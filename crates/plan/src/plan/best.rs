//! The search's result (pure): the best node of a sub-hypothesis's subtree, and whether its
//! search goes on after a pass (PrimeScientist §3.2: the search spends its budget; the result
//! is the best node found, not the first that passed).
//!
//! A node's packet says what its attempt measured (`extra.measured`, metric → value) and
//! whether the gate passed (`extra.passed`), so the best node's result can become the gate's
//! without re-running it. Best = the passing node with the highest reward; ties go to the
//! node executed first (the lower id), so a replay picks the same.

use std::collections::BTreeMap;

use serde_json::Value;

use super::files::NodeStatus;
use super::id::NodeId;
use super::tree::PlanTree;

/// Packet keys the engine writes with a reward.
pub const MEASURED_KEY: &str = "measured";
pub const PASSED_KEY: &str = "passed";

/// The best passing node of one sub-hypothesis.
#[derive(Debug, Clone, PartialEq)]
pub struct Best {
    pub node: NodeId,
    pub reward: f64,
    pub measured: BTreeMap<String, f64>,
    /// Passing nodes in the subtree (the best among them).
    pub passing: usize,
    /// Nodes of the subtree that ran (evaluated, pruned or failed).
    pub executed: usize,
}

impl Best {
    /// Why this node is the result, in a line for the Plan pane and the events.
    pub fn why(&self) -> String {
        match self.passing {
            1 => format!(
                "{}: the only passing node of {} executed (reward {:.3})",
                self.node, self.executed, self.reward
            ),
            n => format!(
                "{}: the highest reward (h = {:.3}) of the {n} passing nodes among {} executed",
                self.node, self.reward, self.executed
            ),
        }
    }
}

/// The ids of the nodes in `hypothesis`'s subtree (its roots and their descendants).
pub fn subtree(tree: &PlanTree, hypothesis: &str) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut stack: Vec<NodeId> = tree
        .roots()
        .filter(|r| r.hypothesis_id.as_deref() == Some(hypothesis))
        .map(|r| r.id.clone())
        .collect();
    while let Some(id) = stack.pop() {
        if let Some(n) = tree.get(&id) {
            stack.extend(n.children.iter().cloned());
            out.push(id);
        }
    }
    out.sort();
    out
}

fn measured(v: Option<&Value>) -> BTreeMap<String, f64> {
    v.and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_f64()?)))
                .collect()
        })
        .unwrap_or_default()
}

/// The best passing node of `hypothesis`'s subtree, if any passed.
pub fn best_passing(tree: &PlanTree, hypothesis: &str) -> Option<Best> {
    let ids = subtree(tree, hypothesis);
    let mut executed = 0;
    let mut passing = 0;
    let mut best: Option<(NodeId, f64, BTreeMap<String, f64>)> = None;
    for id in &ids {
        let Some(node) = tree.get(id) else { continue };
        if !matches!(
            node.status,
            NodeStatus::Evaluated | NodeStatus::Pruned | NodeStatus::Failed
        ) {
            continue;
        }
        executed += 1;
        let Some(p) = &node.packet else { continue };
        if p.extra.get(PASSED_KEY).and_then(Value::as_bool) != Some(true) {
            continue;
        }
        passing += 1;
        if best.as_ref().is_none_or(|(_, r, _)| p.reward > *r) {
            best = Some((id.clone(), p.reward, measured(p.extra.get(MEASURED_KEY))));
        }
    }
    best.map(|(node, reward, measured)| Best {
        node,
        reward,
        measured,
        passing,
        executed,
    })
}

/// What the search of a sub-hypothesis that has passed may still spend.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Room {
    /// Attempts made since the first pass (this one included).
    pub after_pass: u32,
    /// The researcher's or the config's limit on them; `None`: while the budget lasts.
    pub limit: Option<u32>,
    /// Tokens left in the budget.
    pub remaining: u64,
    /// What one more attempt is expected to cost: the mean of this subtree's attempts plus
    /// the mean expansion.
    pub per_attempt: u64,
    /// Sub-hypotheses not settled yet besides this one: each is left one attempt's worth,
    /// so one search cannot starve the others.
    pub others: u64,
    /// The selection has nothing left to run or expand in this subtree.
    pub exhausted: bool,
}

/// `Ok(why it goes on)` or `Err(why it ends)`: the search continues after its first pass
/// while the limit allows, the budget keeps one attempt for each other open sub-hypothesis
/// besides one more for this one, and the subtree has something to try.
pub fn goes_on(room: &Room) -> Result<String, String> {
    if let Some(limit) = room.limit.filter(|l| room.after_pass >= *l) {
        return Err(format!(
            "{} attempt(s) after the first pass, the limit is {limit}",
            room.after_pass
        ));
    }
    let need = room.per_attempt.saturating_mul(1 + room.others);
    if room.remaining < need {
        return Err(format!(
            "{} tokens left, one more attempt costs about {} and {} other sub-hypothes{} keep one each",
            room.remaining,
            room.per_attempt,
            room.others,
            if room.others == 1 { "is" } else { "es" }
        ));
    }
    if room.exhausted {
        return Err("nothing left in the subtree to run or expand".into());
    }
    Ok(match room.limit {
        Some(l) => format!(
            "{} tokens left; attempt {} of {l} after the pass",
            room.remaining,
            room.after_pass + 1
        ),
        None => format!("{} tokens left: the search goes on", room.remaining),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::files::{Packet, Prior};
    use crate::plan::tree::Draft;

    fn draft(h: Option<&str>) -> Draft {
        Draft {
            plan: "# p\n".into(),
            prior: Prior::default(),
            hypothesis_id: h.map(str::to_string),
        }
    }

    fn packet(reward: f64, passed: bool, acc: f64) -> Packet {
        let mut extra = serde_json::Map::new();
        extra.insert(PASSED_KEY.into(), passed.into());
        extra.insert(MEASURED_KEY.into(), serde_json::json!({ "accuracy": acc }));
        Packet {
            reward,
            extra,
            ..Packet::default()
        }
    }

    #[test]
    fn the_best_is_the_highest_passing_reward_of_the_subtree() {
        let mut t = PlanTree::new();
        let r = t.add_root(draft(Some("h-e1")), "t");
        let other = t.add_root(draft(Some("h-m1")), "t");
        t.record_outcome(&r, packet(0.4, false, 0.88), 0.05)
            .unwrap();
        let kids = t
            .expand(&r, vec![draft(None), draft(None), draft(None)], 3, "t")
            .unwrap();
        t.record_outcome(&kids[0], packet(0.52, true, 0.93), 0.05)
            .unwrap();
        t.record_outcome(&kids[1], packet(0.55, true, 0.95), 0.05)
            .unwrap();
        t.record_outcome(&other, packet(0.9, true, 0.99), 0.05)
            .unwrap();
        let best = best_passing(&t, "h-e1").unwrap();
        assert_eq!(best.node, kids[1]);
        assert_eq!(best.measured["accuracy"], 0.95);
        assert_eq!((best.passing, best.executed), (2, 3));
        assert!(
            best.why().contains("2 passing nodes among 3"),
            "{}",
            best.why()
        );
        // A tie goes to the node executed first (the lower id).
        t.record_outcome(&kids[2], packet(0.55, true, 0.95), 0.05)
            .unwrap();
        assert_eq!(best_passing(&t, "h-e1").unwrap().node, kids[1]);
        assert!(best_passing(&t, "h-c1").is_none());
    }

    #[test]
    fn the_search_goes_on_while_limit_budget_and_subtree_allow() {
        let room = Room {
            after_pass: 0,
            limit: None,
            remaining: 10_000,
            per_attempt: 1_000,
            others: 2,
            exhausted: false,
        };
        // (change, goes on)
        type Edit = fn(&mut Room);
        let table: &[(Edit, bool)] = &[
            (|_| {}, true),
            (|r| r.limit = Some(1), true),
            (|r| (r.limit, r.after_pass) = (Some(1), 1), false),
            (|r| r.limit = Some(0), false),  // stop at the first pass
            (|r| r.remaining = 3_000, true), // exactly one each for 2 others + 1
            (|r| r.remaining = 2_999, false),
            (|r| (r.remaining, r.others) = (1_000, 0), true),
            (|r| r.per_attempt = u64::MAX, false),
            (|r| r.exhausted = true, false),
        ];
        for (i, (edit, want)) in table.iter().enumerate() {
            let mut r = room;
            edit(&mut r);
            assert_eq!(
                goes_on(&r).is_ok(),
                *want,
                "row {i}: {r:?} {:?}",
                goes_on(&r)
            );
        }
        let e = goes_on(&Room {
            remaining: 10,
            ..room
        })
        .unwrap_err();
        assert!(e.contains("10 tokens left") && e.contains("2 other"), "{e}");
    }
}
