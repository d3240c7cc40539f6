//! The plan tree (PrimeScientist §3.2–3.3): research plans as nodes on disk under
//! `<run>/plan/`, and the rules that spend the budget across them.
//!
//! - `files.rs` the on-disk shapes; `id.rs` path-safe node ids; `budget.rs` the budget and r
//! - `tree.rs` the tree in memory and its changes; `structure.rs` repairs of `tree.json`
//! - `load.rs` tolerant reading (warnings, recomputed stats); `save.rs` ordered atomic writes
//! - rules, pure and table-tested: `policy.rs` (α, weights, UCT, sampling), `values.rs`
//!   (running mean, pruning, re-expansion bound), `eligibility.rs` (what descent may enter),
//!   `rules.rs` (`[plan] tree_rules`: the reference's Q and widening, or youra's)
//! - `reward.rs` h(s) from a gate's criteria and metrics; `charge.rs` the budget charged from
//!   the ledger; `directives.rs` the researcher's pin / veto / force / edit / budget changes;
//!   `expand.rs` the reflector's expansion prompt and reply rules, `evidence.rs` what that
//!   prompt shows of the node (result, log tail, diff, failure analysis, branch); `best.rs`
//!   the search's result (the best passing node) and whether a search goes on after its first pass;
//!   `node_code.rs` each executed node's code as a commit of its sub-hypothesis's git repository
//! - `sim/` synthetic research tasks calibrated to the paper and `bench/` the policy comparison
//!   and its sweep (`youra bench allocation [--sweep]`)
//! - `select.rs` the descent, producing a `Selection` (`selection.rs`) the TUI can show;
//!   the seeded draws are `crate::rng`'s (re-exported here)

pub mod bench;
mod best;
mod budget;
mod charge;
mod code_error;
pub mod code_snapshot;
mod code_tree;
mod directives;
mod eligibility;
mod error;
mod evidence;
mod evidence_line;
mod evidence_search;
mod expand;
mod files;
mod git_run;
mod id;
mod load;
pub mod node_code;
mod node_files;
mod object_id;
mod policy;
mod reward;
mod root_draft;
mod rules;
mod save;
mod select;
mod selection;
pub mod sim;
mod structure;
mod tree;
mod tree_rules;
mod values;

pub use crate::rng::{Draw, Fixed, XorShift64};
pub use best::{Best, MEASURED_KEY, PASSED_KEY, Room, best_passing, goes_on, subtree};
pub use budget::{Budget, SpendKind, Split, compact, remaining_share};
pub use charge::{
    Charged, EXPAND_PREFIX, LEDGER_FILE, charge_clock, charge_from_ledger, charge_rows,
    charge_rows_owned, spent_now,
};
pub use directives::{
    ALPHA_MAX_LIMIT, DirectiveApplied, DirectiveRefused, PlanDirective, apply_directive,
    parse_directive,
};
pub use eligibility::{Avail, Blocked, availability};
pub use error::{PlanError, PlanWarning};
pub use evidence::{
    DIFF_CHARS, Evidence, LOG_HEAD_KEY, LOG_HEAD_LINES, LOG_TAIL_KEY, LOG_TAIL_LINES, NO_DIFF,
    evidence, fix_applies, keep_log_brief, latest_recorded,
};
pub use evidence_search::insights;
pub use expand::{
    EXPANSION_PROMPT, ExpandError, Expansion, SIMILARITY_LIMIT, expansion_prompt, parse_expansion,
    similarity,
};
pub use files::{
    BUDGET_FILE, NODES_DIR, NodeEntry, NodeStatus, PACKET_FILE, PLAN_DIR, PLAN_MD, PRIOR_FILE,
    Packet, Prior, STATS_FILE, Stats, TREE_FILE, TreeFile,
};
pub use id::{BadNodeId, NodeId, unsafe_reason};
pub use load::{Loaded, Plans, load, load_since, node_dir, plan_dir, read_selection};
pub use node_files::{NodeFiles, NodeFilesCache};
pub use policy::{
    ALPHA_MAX, EPSILON, FIXED_ALPHA, MIN_SHARE, Policy, UCT_C, UnknownPolicy, Value, alpha, argmax,
    floored, probabilities, sample_index, uct_score, weight,
};
pub use reward::{Criterion, Op, UnknownOp, all_met, met, reward, satisfaction, score, shortfall};
pub use root_draft::{DRAFTED_BY, ROOT_PROMPT, RootPlan, UnknownRootPlan, parse_root, root_prompt};
pub use rules::{ChildState, TreeRules, UnknownRules};
pub use save::{FileWrite, SELECTION_FILE, apply_writes, save_budget, save_selection};
pub use select::{force, select};
pub use selection::{Action, Candidate, Level, Selection};
pub use tree::{DEFAULT_PRIOR, Draft, FAILED_ATTEMPTS_KEY, PlanNode, PlanTree, Recorded};
pub use values::{
    DELTA, MAX_CHILDREN, MAX_NODE_RETRIES, REEXPAND_LIMIT, clamp_reward, may_widen, running_mean,
    should_prune, subtree_means,
};
