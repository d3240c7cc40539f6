//! The plan tree's files, as serde types. Layout under `<run>/plan/`:
//! `tree.json` (structure and status: the commit point, written last), `budget.json`, and
//! per node `nodes/<id>/{plan.md, prior.json, stats.json, packet.json}`. Keys youra does not
//! know are kept (`extra`) so a hand- or model-written field survives youra's next write.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::id::NodeId;

pub const PLAN_DIR: &str = "plan";
pub const TREE_FILE: &str = "tree.json";
pub const BUDGET_FILE: &str = "budget.json";
pub const NODES_DIR: &str = "nodes";
pub const PLAN_MD: &str = "plan.md";
pub const PRIOR_FILE: &str = "prior.json";
pub const STATS_FILE: &str = "stats.json";
pub const PACKET_FILE: &str = "packet.json";

/// Bumped when a reader of the old shape would misread the new one.
pub(crate) const TREE_VERSION: u32 = 1;

/// Where a node is in its life. `failed`: the attempt ended without a reward (crash,
/// timeout, missing metrics after repair); it counts as reward 0 and is not selected again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeStatus {
    Untested,
    Running,
    Evaluated,
    Pruned,
    Failed,
}

impl NodeStatus {
    pub fn name(self) -> &'static str {
        match self {
            NodeStatus::Untested => "untested",
            NodeStatus::Running => "running",
            NodeStatus::Evaluated => "evaluated",
            NodeStatus::Pruned => "pruned",
            NodeStatus::Failed => "failed",
        }
    }

    /// Whether the node's own reward is part of its ancestors' Q. A pruned node was
    /// evaluated first, so its reward still counts.
    pub fn has_reward(self) -> bool {
        matches!(
            self,
            NodeStatus::Evaluated | NodeStatus::Pruned | NodeStatus::Failed
        )
    }
}

/// `tree.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TreeFile {
    #[serde(default = "tree_version")]
    pub version: u32,
    /// Pre-order is not required: `parent` decides membership, `children` decides order.
    #[serde(default)]
    pub nodes: Vec<NodeEntry>,
    /// How Q and widening were computed (`rules.rs`); absent in a tree written before the
    /// setting existed, which the youra rules built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<super::tree_rules::TreeRules>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn tree_version() -> u32 {
    TREE_VERSION
}

/// One node's line in `tree.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeEntry {
    pub id: NodeId,
    #[serde(default)]
    pub parent: Option<NodeId>,
    #[serde(default)]
    pub children: Vec<NodeId>,
    pub status: NodeStatus,
    #[serde(default)]
    pub pinned: bool,
    #[serde(default)]
    pub vetoed: bool,
    #[serde(default)]
    pub created_at: String,
    /// The sub-hypothesis this plan serves (`h-e1`), if any.
    #[serde(default)]
    pub hypothesis_id: Option<String>,
    /// How many times the reflector has expanded this node (more than one: it widened).
    #[serde(default)]
    pub expansions: u32,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `prior.json`: the reflector's proposal and its prior estimate P of success.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Prior {
    /// P in [0, 1]; `None` when the proposal gave none (selection then uses 0.5).
    #[serde(default)]
    pub estimate: Option<f64>,
    #[serde(default)]
    pub hypothesis: String,
    #[serde(default)]
    pub rationale: String,
    #[serde(default)]
    pub changes: Vec<String>,
    #[serde(default)]
    pub risks: Vec<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `stats.json`: branch statistics. Derivable from the tree and the packets; the loader
/// recomputes them and warns when a file disagrees (an interrupted write).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Stats {
    /// Evaluated nodes in this subtree, this node included (|D(v)|).
    #[serde(default)]
    pub visits: u64,
    /// Mean reward over those nodes; 0 while there are none.
    #[serde(rename = "Q", alias = "q", default)]
    pub q: f64,
    /// A copy of the prior estimate, for readers of this file alone.
    #[serde(rename = "P", alias = "p", default)]
    pub p: f64,
}

/// `packet.json`: the outcome of executing the node.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Packet {
    /// h(s) in [0, 1].
    pub reward: f64,
    /// Tokens the attempt cost (planning of this node is charged to its parent's expansion).
    #[serde(default)]
    pub cost_tokens: u64,
    /// Paths of the attempt's logs, relative to the run folder.
    #[serde(default)]
    pub logs: Vec<String>,
    #[serde(default)]
    pub finished_at: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
