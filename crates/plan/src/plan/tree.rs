//! The plan tree in memory: nodes with their files' contents, and the changes the engine
//! and the researcher make to it (add, expand, record an outcome, pin, veto, edit). No I/O
//! here: `load.rs` fills it, `save.rs` writes what changed.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::error::PlanError;
use super::files::{NodeEntry, NodeStatus, Packet, Prior, Stats};
use super::id::{NodeId, next_free};
use super::rules::TreeRules;
use super::values::{MAX_CHILDREN, clamp_reward, running_mean, should_prune, subtree_means};

/// The `tree.json` entry key listing a node's failed executions left to retry.
pub const FAILED_ATTEMPTS_KEY: &str = "failed_attempts";

/// P when a proposal gave no estimate: no reason to favour or disfavour it.
pub const DEFAULT_PRIOR: f64 = 0.5;

#[derive(Debug, Clone, PartialEq)]
pub struct PlanNode {
    pub id: NodeId,
    pub parent: Option<NodeId>,
    pub children: Vec<NodeId>,
    pub status: NodeStatus,
    pub pinned: bool,
    pub vetoed: bool,
    pub created_at: String,
    pub hypothesis_id: Option<String>,
    pub expansions: u32,
    pub prior: Prior,
    pub stats: Stats,
    pub packet: Option<Packet>,
    /// `plan.md`; `None` when it was not read (saving then leaves the file as it is).
    pub plan: Option<String>,
    /// Keys of the node's `tree.json` entry youra does not know, kept.
    pub extra: Map<String, Value>,
}

impl PlanNode {
    /// The executions of this node that ended without a reward and left it unrun to be
    /// selected again (`record_failed_attempt`), oldest first: each one's packet (its attempt
    /// key, commit and log tail). An entry that does not parse is skipped.
    pub fn failed_attempts(&self) -> Vec<Packet> {
        self.extra
            .get(FAILED_ATTEMPTS_KEY)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| serde_json::from_value(v.clone()).ok())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// P in [0, 1] for selection.
    pub fn p(&self) -> f64 {
        match self.prior.estimate {
            Some(p) if p.is_finite() => p.clamp(0.0, 1.0),
            _ => DEFAULT_PRIOR,
        }
    }

    /// h(s) as it counts toward Q: a rewarded status with its packet's reward; a failed
    /// attempt counts 0 even without a packet.
    pub fn reward(&self) -> Option<f64> {
        if !self.status.has_reward() {
            return None;
        }
        match (&self.packet, self.status) {
            (_, NodeStatus::Failed) => Some(0.0),
            (Some(p), _) => Some(clamp_reward(p.reward)),
            (None, _) => None,
        }
    }

    pub(crate) fn entry(&self) -> NodeEntry {
        NodeEntry {
            id: self.id.clone(),
            parent: self.parent.clone(),
            children: self.children.clone(),
            status: self.status,
            pinned: self.pinned,
            vetoed: self.vetoed,
            created_at: self.created_at.clone(),
            hypothesis_id: self.hypothesis_id.clone(),
            expansions: self.expansions,
            extra: self.extra.clone(),
        }
    }
}

/// What the reflector proposes for one new node.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Draft {
    pub plan: String,
    pub prior: Prior,
    pub hypothesis_id: Option<String>,
}

/// What recording an outcome changed: every node whose files must be saved (the node and
/// its ancestors), and whether the node was pruned.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    pub changed: Vec<NodeId>,
    pub pruned: bool,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlanTree {
    nodes: Vec<PlanNode>,
    index: HashMap<NodeId, usize>,
    /// Folders under `plan/nodes/` that `tree.json` does not reference (an interrupted
    /// write): their names are never reused, so a new node cannot inherit a stale file.
    orphans: Vec<String>,
    /// Keys of `tree.json` youra does not know, kept.
    pub(crate) extra: Map<String, Value>,
    /// How Q and widening are computed (`tree.json`'s `rules`).
    rules: TreeRules,
    /// m for the reference's widening; 0 = `MAX_CHILDREN`. Not stored: the engine sets it
    /// from `[plan] max_children` with the rules.
    width: usize,
}

impl PlanTree {
    pub fn new() -> PlanTree {
        PlanTree::default()
    }

    /// Nodes already made consistent (`structure::normalise`).
    pub(crate) fn from_nodes(
        nodes: Vec<PlanNode>,
        orphans: Vec<String>,
        extra: Map<String, Value>,
    ) -> PlanTree {
        let index = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.id.clone(), i))
            .collect();
        PlanTree {
            nodes,
            index,
            orphans,
            extra,
            rules: TreeRules::default(),
            width: 0,
        }
    }

    /// The rules Q and widening follow.
    pub fn rules(&self) -> TreeRules {
        self.rules
    }

    /// m: children per expansion at most, and the number of children in play the
    /// reference's widening fills a node up to.
    pub fn max_children(&self) -> usize {
        if self.width == 0 {
            MAX_CHILDREN
        } else {
            self.width
        }
    }

    /// Follow `rules` with `max_children` from now on. Q and visits are recomputed from the
    /// statuses and rewards when the rules change; the nodes whose stats changed are returned
    /// (to be saved). Pruning decisions already made stand.
    pub fn set_rules(&mut self, rules: TreeRules, max_children: usize) -> Vec<NodeId> {
        self.width = max_children;
        if rules == self.rules {
            return Vec::new();
        }
        self.rules = rules;
        self.recompute_stats()
    }

    /// The rules as read from `tree.json`, stats not touched (the loader checks them).
    pub(crate) fn set_rules_as_read(&mut self, rules: TreeRules) {
        self.rules = rules;
    }

    /// (visits, Q) of every node from the statuses and rewards under the tree's rules.
    pub(crate) fn computed_stats(&self) -> Vec<(u64, f64)> {
        let parent: Vec<Option<usize>> = self
            .nodes
            .iter()
            .map(|n| n.parent.as_ref().and_then(|p| self.position(p)))
            .collect();
        let order: Vec<usize> = self.preorder_indices().iter().map(|&(_, i)| i).collect();
        let rewards: Vec<Option<f64>> = self.nodes.iter().map(PlanNode::reward).collect();
        let upward: Vec<bool> = self
            .nodes
            .iter()
            .map(|n| self.rules.counts_upward(n.status))
            .collect();
        subtree_means(&parent, &order, &rewards, &upward)
    }

    fn recompute_stats(&mut self) -> Vec<NodeId> {
        let means = self.computed_stats();
        let mut changed = Vec::new();
        for (n, (visits, q)) in self.nodes.iter_mut().zip(means) {
            if n.stats.visits != visits || (n.stats.q - q).abs() > 1e-12 {
                n.stats.visits = visits;
                n.stats.q = q;
                changed.push(n.id.clone());
            }
        }
        changed
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Every node, in `tree.json` order.
    pub fn nodes(&self) -> &[PlanNode] {
        &self.nodes
    }

    pub fn get(&self, id: &NodeId) -> Option<&PlanNode> {
        self.index.get(id).map(|&i| &self.nodes[i])
    }

    pub fn orphans(&self) -> &[String] {
        &self.orphans
    }

    pub fn roots(&self) -> impl Iterator<Item = &PlanNode> {
        self.nodes.iter().filter(|n| n.parent.is_none())
    }

    pub(crate) fn position(&self, id: &NodeId) -> Option<usize> {
        self.index.get(id).copied()
    }

    fn at(&self, id: &NodeId) -> Result<usize, PlanError> {
        self.position(id)
            .ok_or_else(|| PlanError::UnknownNode { id: id.clone() })
    }

    /// The ids from a root down to `id`, both included.
    pub fn path_to(&self, id: &NodeId) -> Result<Vec<NodeId>, PlanError> {
        let mut path = vec![id.clone()];
        let mut i = self.at(id)?;
        // Bounded by the node count: a consistent tree has no cycle, but never loop forever.
        for _ in 0..self.nodes.len() {
            match self.nodes[i].parent.as_ref().and_then(|p| self.position(p)) {
                Some(p) => {
                    path.push(self.nodes[p].id.clone());
                    i = p;
                }
                None => break,
            }
        }
        path.reverse();
        Ok(path)
    }

    /// (depth, node) in display order: each root, then its children in order, depth first.
    pub fn preorder(&self) -> Vec<(usize, &PlanNode)> {
        self.preorder_indices()
            .into_iter()
            .map(|(d, i)| (d, &self.nodes[i]))
            .collect()
    }

    /// (depth, index into `nodes()`) in display order.
    pub(crate) fn preorder_indices(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::with_capacity(self.nodes.len());
        let mut stack: Vec<(usize, usize)> = self
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.parent.is_none())
            .map(|(i, _)| (0, i))
            .rev()
            .collect();
        let mut seen = vec![false; self.nodes.len()];
        while let Some((depth, i)) = stack.pop() {
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            out.push((depth, i));
            for c in self.nodes[i].children.iter().rev() {
                if let Some(ci) = self.position(c) {
                    stack.push((depth + 1, ci));
                }
            }
        }
        out
    }

    /// The next generated id not taken by a node or an orphan folder.
    pub fn next_id(&self) -> NodeId {
        next_free(
            self.nodes
                .iter()
                .map(|n| n.id.as_str())
                .chain(self.orphans.iter().map(String::as_str)),
        )
    }

    /// A new root plan (the reflector's first draft from the task), untested.
    pub fn add_root(&mut self, draft: Draft, created_at: &str) -> NodeId {
        let id = self.next_id();
        self.push(id.clone(), None, draft, created_at);
        id
    }

    /// How many children an expansion of `id` may add: m under the youra rules; under the
    /// reference's, m less the children still in play (not pruned, not vetoed), at least 1.
    pub fn room(&self, id: &NodeId) -> Result<usize, PlanError> {
        let i = self.at(id)?;
        let m = self.max_children();
        if self.rules == TreeRules::Youra {
            return Ok(m);
        }
        let in_play = self.nodes[i]
            .children
            .iter()
            .filter_map(|c| self.get(c))
            .filter(|c| !c.vetoed && c.status != NodeStatus::Pruned)
            .count();
        Ok(m.saturating_sub(in_play).max(1))
    }

    /// One expansion of `parent`: up to `max_children` new untested children, and the
    /// parent's expansion count goes up by one (a second expansion is a widening). Under the
    /// reference rules only `room` of them are added (the reference asks for m less the
    /// children in play): a longer reply keeps its first ones.
    pub fn expand(
        &mut self,
        parent: &NodeId,
        drafts: Vec<Draft>,
        max_children: usize,
        created_at: &str,
    ) -> Result<Vec<NodeId>, PlanError> {
        let pi = self.at(parent)?;
        let status = self.nodes[pi].status;
        if !status.has_reward() {
            return Err(PlanError::NotExpandable {
                id: parent.clone(),
                status,
            });
        }
        if drafts.len() > max_children {
            return Err(PlanError::TooManyChildren {
                parent: parent.clone(),
                given: drafts.len(),
                max: max_children,
            });
        }
        let room = self.room(parent)?;
        self.nodes[pi].expansions = self.nodes[pi].expansions.saturating_add(1);
        let mut ids = Vec::with_capacity(drafts.len());
        for d in drafts.into_iter().take(room) {
            let id = self.next_id();
            self.push(id.clone(), Some(parent.clone()), d, created_at);
            self.nodes[pi].children.push(id.clone());
            ids.push(id);
        }
        Ok(ids)
    }

    fn push(&mut self, id: NodeId, parent: Option<NodeId>, d: Draft, created_at: &str) {
        let mut node = PlanNode {
            id: id.clone(),
            parent,
            children: Vec::new(),
            status: NodeStatus::Untested,
            pinned: false,
            vetoed: false,
            created_at: created_at.to_string(),
            hypothesis_id: d.hypothesis_id,
            expansions: 0,
            prior: d.prior,
            stats: Stats::default(),
            packet: None,
            plan: Some(d.plan),
            extra: Map::new(),
        };
        node.stats.p = node.p();
        self.index.insert(id, self.nodes.len());
        self.nodes.push(node);
    }

    /// Mark a node running (the engine started its attempt) or back to untested.
    pub fn set_status(&mut self, id: &NodeId, status: NodeStatus) -> Result<(), PlanError> {
        let i = self.at(id)?;
        self.nodes[i].status = status;
        Ok(())
    }

    pub fn set_pinned(&mut self, id: &NodeId, pinned: bool) -> Result<(), PlanError> {
        let i = self.at(id)?;
        self.nodes[i].pinned = pinned;
        Ok(())
    }

    pub fn set_vetoed(&mut self, id: &NodeId, vetoed: bool) -> Result<(), PlanError> {
        let i = self.at(id)?;
        self.nodes[i].vetoed = vetoed;
        Ok(())
    }

    /// Replace a plan (and optionally its prior) before it runs.
    pub fn edit(
        &mut self,
        id: &NodeId,
        plan: String,
        prior: Option<Prior>,
    ) -> Result<(), PlanError> {
        let i = self.at(id)?;
        let node = &mut self.nodes[i];
        if node.status != NodeStatus::Untested {
            return Err(PlanError::NotEditable {
                id: id.clone(),
                status: node.status,
            });
        }
        node.plan = Some(plan);
        if let Some(p) = prior {
            node.prior = p;
            node.stats.p = node.p();
        }
        Ok(())
    }

    /// The attempt on `id` produced `packet`: the node is evaluated, its reward is folded
    /// into Q along the path to the root (running mean), and then it is pruned if its reward
    /// is more than `delta` below its parent's Q (now including it). Pinned nodes are never
    /// pruned; the check is made once, here.
    pub fn record_outcome(
        &mut self,
        id: &NodeId,
        mut packet: Packet,
        delta: f64,
    ) -> Result<Recorded, PlanError> {
        packet.reward = clamp_reward(packet.reward);
        let reward = packet.reward;
        self.finish(id, packet, NodeStatus::Evaluated, reward, delta)
    }

    /// The attempt on `id` ended without a reward (crash, timeout, no metrics after
    /// repair): it counts as reward 0 and is not selected again.
    pub fn record_failure(
        &mut self,
        id: &NodeId,
        mut packet: Packet,
    ) -> Result<Recorded, PlanError> {
        packet.reward = 0.0;
        self.finish(id, packet, NodeStatus::Failed, 0.0, f64::INFINITY)
    }

    /// The attempt on `id` ended without a reward. The reference leaves such a node unrun
    /// (no packet, nothing backpropagated) and selects it again; youra does so while the node
    /// has failed fewer than `max_retries` times before, then records it Failed (reward 0) as
    /// `record_failure` does. Each failed execution's packet is kept in the node's
    /// `failed_attempts` (each execution is an attempt; a kill-resume finds it by its
    /// `attempt` key). Returns what changed and whether the node is left to retry.
    pub fn record_failed_attempt(
        &mut self,
        id: &NodeId,
        mut packet: Packet,
        max_retries: u32,
    ) -> Result<(Recorded, bool), PlanError> {
        let i = self.at(id)?;
        let was = self.nodes[i].status;
        if !matches!(was, NodeStatus::Untested | NodeStatus::Running) {
            return Err(PlanError::NotRunnable {
                id: id.clone(),
                status: was,
            });
        }
        if self.nodes[i].failed_attempts().len() >= max_retries as usize {
            return Ok((self.record_failure(id, packet)?, false));
        }
        packet.reward = 0.0;
        let node = &mut self.nodes[i];
        let mut kept = node
            .extra
            .get(FAILED_ATTEMPTS_KEY)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        kept.push(serde_json::to_value(&packet).unwrap_or(Value::Null));
        node.extra
            .insert(FAILED_ATTEMPTS_KEY.into(), Value::Array(kept));
        node.status = NodeStatus::Untested;
        node.packet = None;
        Ok((
            Recorded {
                changed: vec![id.clone()],
                pruned: false,
            },
            true,
        ))
    }

    fn finish(
        &mut self,
        id: &NodeId,
        packet: Packet,
        status: NodeStatus,
        reward: f64,
        delta: f64,
    ) -> Result<Recorded, PlanError> {
        let i = self.at(id)?;
        let was = self.nodes[i].status;
        if !matches!(was, NodeStatus::Untested | NodeStatus::Running) {
            return Err(PlanError::NotRunnable {
                id: id.clone(),
                status: was,
            });
        }
        let path = self.path_to(id)?;
        // Pruning compares the child with its parent's Q as it stood before this reward:
        // folding the child in first would drag the parent's Q towards it and spare a child
        // the paper prunes (PrimeScientist §3.3).
        let parent_q = self.nodes[i]
            .parent
            .as_ref()
            .and_then(|p| self.index.get(p))
            .map(|&p| self.nodes[p].stats.q);
        let pruned = status == NodeStatus::Evaluated
            && !self.nodes[i].pinned
            && parent_q.is_some_and(|q| should_prune(reward, q, delta));
        let node = &mut self.nodes[i];
        node.status = if pruned { NodeStatus::Pruned } else { status };
        node.packet = Some(packet);
        // Fold the reward into the node and up its path, stopping above the first node
        // (the new one included) whose subtree the rules keep out of its ancestors' Q.
        for n in path.iter().rev() {
            let Some(j) = self.position(n) else { break };
            let s = &mut self.nodes[j].stats;
            (s.q, s.visits) = running_mean(s.q, s.visits, reward);
            if !self.rules.counts_upward(self.nodes[j].status) {
                break;
            }
        }
        Ok(Recorded {
            changed: path,
            pruned,
        })
    }

    pub fn nodes_mut(&mut self) -> &mut [PlanNode] {
        &mut self.nodes
    }
}

#[cfg(test)]
#[path = "tree_tests.rs"]
mod tests;
