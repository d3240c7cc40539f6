//! Reading a run's plan tree, tolerantly. `tree.json` must parse (it is the commit point);
//! every node file is read around: a missing folder or a malformed JSON file becomes a
//! warning naming the file (and line and column), and the rest loads. Stats are recomputed
//! from the committed statuses and packets, so a write interrupted between a node's files
//! and `tree.json` leaves nothing inconsistent behind.

use std::collections::HashSet;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::budget::Budget;
use super::error::{PlanError, PlanWarning, io, json_message};
use super::files::{
    BUDGET_FILE, NODES_DIR, NodeEntry, PACKET_FILE, PLAN_DIR, STATS_FILE, TREE_FILE, TreeFile,
};
use super::node_files::{NodeFiles, NodeFilesCache, read_files, read_json};
pub use super::node_files::{Plans, node_dir};
use super::rules::TreeRules;
use super::structure::normalise;
use super::tree::{PlanNode, PlanTree};

#[derive(Debug)]
pub struct Loaded {
    pub tree: PlanTree,
    /// `None` when `plan/budget.json` is missing or unreadable (the run config decides).
    pub budget: Option<Budget>,
    pub warnings: Vec<PlanWarning>,
}

pub fn plan_dir(run: &Path) -> PathBuf {
    run.join(PLAN_DIR)
}

/// Load `<run>/plan/`. No `tree.json` is an empty tree (no plan yet), not an error.
pub fn load(run: &Path, plans: Plans) -> Result<Loaded, PlanError> {
    load_since(run, plans, None, &|_| true).map(|(loaded, _)| loaded)
}

/// Load `<run>/plan/`, taking each node's files from `prev` (the last load's) unless
/// `changed` says its folder may have changed; `tree.json`, the budget and the folder
/// listing are always read. Returns the files read or kept, for the next load.
pub fn load_since(
    run: &Path,
    plans: Plans,
    prev: Option<&NodeFilesCache>,
    changed: &(dyn Fn(&str) -> bool + Sync),
) -> Result<(Loaded, NodeFilesCache), PlanError> {
    let mut warnings = Vec::new();
    let budget = read_json::<Budget>(
        &plan_dir(run).join(BUDGET_FILE),
        &mut warnings,
        "the run config's budget is used",
    );
    let tree_path = plan_dir(run).join(TREE_FILE);
    let file = match crate::fsutil::read_run_file(&tree_path) {
        Ok(bytes) => serde_json::from_slice::<TreeFile>(&bytes).map_err(|e| PlanError::Parse {
            path: tree_path.clone(),
            line: e.line(),
            col: e.column(),
            message: json_message(&e),
        })?,
        Err(e) if e.kind() == ErrorKind::NotFound => {
            let orphans = orphans(run, &HashSet::new(), &mut warnings);
            let loaded = Loaded {
                tree: PlanTree::from_nodes(Vec::new(), orphans, Default::default()),
                budget,
                warnings,
            };
            return Ok((loaded, NodeFilesCache::default()));
        }
        Err(e) => return Err(io("read", &tree_path)(e)),
    };
    let (entries, notes) = normalise(file.nodes);
    warnings.extend(notes.into_iter().map(|n| PlanWarning::new(&tree_path, n)));
    let files = node_files(run, &entries, plans, prev, changed);
    let mut stats_read = Vec::with_capacity(entries.len());
    let mut nodes = Vec::with_capacity(entries.len());
    for (e, f) in entries.into_iter().zip(&files) {
        stats_read.push(f.stats.is_some());
        nodes.push(assemble(run, e, f, &mut warnings));
    }
    let known: HashSet<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
    let orphans = orphans(run, &known, &mut warnings);
    let cache = NodeFilesCache {
        plans: Some(plans),
        nodes: nodes
            .iter()
            .map(|n| n.id.as_str().to_string())
            .zip(files)
            .collect(),
    };
    let mut tree = PlanTree::from_nodes(nodes, orphans, file.extra);
    tree.set_rules_as_read(file.rules.unwrap_or(TreeRules::Youra));
    recompute_stats(run, &mut tree, &stats_read, &mut warnings);
    let loaded = Loaded {
        tree,
        budget,
        warnings,
    };
    Ok((loaded, cache))
}

/// Below this many nodes to read one thread reads them all.
const PARALLEL_FROM: usize = 512;

/// Every node's files, in tree order: kept from `prev` where its folder did not change,
/// else read. Many to read are read by a few threads over contiguous chunks (the reads are
/// independent; 10,000 nodes are 30,000 small files), joined in order.
fn node_files(
    run: &Path,
    entries: &[NodeEntry],
    plans: Plans,
    prev: Option<&NodeFilesCache>,
    changed: &(dyn Fn(&str) -> bool + Sync),
) -> Vec<Arc<NodeFiles>> {
    let kept: Vec<Option<Arc<NodeFiles>>> = entries
        .iter()
        .map(|e| {
            prev.filter(|_| !changed(e.id.as_str()))
                .and_then(|p| p.get(e.id.as_str(), plans))
        })
        .collect();
    let to_read: Vec<&NodeEntry> = entries
        .iter()
        .zip(&kept)
        .filter(|(_, k)| k.is_none())
        .map(|(e, _)| e)
        .collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    let read: Vec<Arc<NodeFiles>> = if threads < 2 || to_read.len() < PARALLEL_FROM {
        to_read
            .iter()
            .map(|e| Arc::new(read_files(run, &e.id, plans)))
            .collect()
    } else {
        let size = to_read.len().div_ceil(threads);
        std::thread::scope(|s| {
            let handles: Vec<_> = to_read
                .chunks(size)
                .map(|chunk| {
                    s.spawn(move || {
                        chunk
                            .iter()
                            .map(|e| Arc::new(read_files(run, &e.id, plans)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        })
    };
    let mut read = read.into_iter();
    kept.into_iter()
        .map(|k| k.or_else(|| read.next()).unwrap_or_default())
        .collect()
}

/// The node from its entry in `tree.json` and its files.
fn assemble(run: &Path, e: NodeEntry, f: &NodeFiles, warnings: &mut Vec<PlanWarning>) -> PlanNode {
    let node = PlanNode {
        id: e.id,
        parent: e.parent,
        children: e.children,
        status: e.status,
        pinned: e.pinned,
        vetoed: e.vetoed,
        created_at: e.created_at,
        hypothesis_id: e.hypothesis_id,
        expansions: e.expansions,
        prior: f.prior.clone(),
        stats: f.stats.unwrap_or_default(),
        packet: f.packet.clone(),
        plan: f.plan.clone(),
        extra: e.extra,
    };
    warnings.extend(f.warnings.iter().cloned());
    if f.present {
        let packet_path = node_dir(run, &node.id).join(PACKET_FILE);
        check_packet(&node, &packet_path, f.packet_exists, warnings);
    }
    warnings.extend(f.plan_warning.iter().cloned());
    node
}

fn check_packet(node: &PlanNode, path: &Path, exists: bool, warnings: &mut Vec<PlanWarning>) {
    let rewarded = node.status.has_reward() && node.status != super::NodeStatus::Failed;
    match &node.packet {
        None if rewarded && !exists => warnings.push(PlanWarning::new(
            path,
            format!("missing for a node marked {}; it counts no reward", node.status.name()),
        )),
        Some(_) if !node.status.has_reward() => warnings.push(PlanWarning::new(
            path,
            format!(
                "an outcome for a node marked {} (a write interrupted before tree.json?); not counted until recorded",
                node.status.name()
            ),
        )),
        Some(p) if !(0.0..=1.0).contains(&p.reward) => warnings.push(PlanWarning::new(
            path,
            format!("reward {} is outside [0, 1]; clamped", p.reward),
        )),
        _ => {}
    }
}

/// Visits and Q from the committed statuses and packets; a `stats.json` that disagrees was
/// left by an interrupted write (or edited by hand) and is corrected, with a warning.
fn recompute_stats(
    run: &Path,
    tree: &mut PlanTree,
    stats_read: &[bool],
    warnings: &mut Vec<PlanWarning>,
) {
    let means = tree.computed_stats();
    for ((n, (visits, q)), &read) in tree.nodes_mut().iter_mut().zip(means).zip(stats_read) {
        let stale = n.stats.visits != visits || (n.stats.q - q).abs() > 1e-9;
        if stale && read {
            warnings.push(PlanWarning::new(
                &node_dir(run, &n.id).join(STATS_FILE),
                format!(
                    "says visits {} Q {:.4}, the tree gives visits {visits} Q {q:.4}; recomputed",
                    n.stats.visits, n.stats.q
                ),
            ));
        }
        if stale {
            n.stats.visits = visits;
            n.stats.q = q;
        }
        n.stats.p = n.p();
    }
}

/// Folders under `plan/nodes/` that the tree does not name.
fn orphans(run: &Path, known: &HashSet<&str>, warnings: &mut Vec<PlanWarning>) -> Vec<String> {
    let dir = plan_dir(run).join(NODES_DIR);
    let Ok(entries) = fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| !known.contains(name.as_str()))
        .collect();
    out.sort();
    for name in &out {
        warnings.push(PlanWarning::new(
            &dir.join(name),
            "not in tree.json (a write interrupted before the tree was saved?); ignored, its name is not reused",
        ));
    }
    out
}

/// The last selection the engine saved (`plan/selection.json`), for the TUI; a missing
/// file is `None`, a malformed one `None` with a warning.
pub fn read_selection(run: &Path) -> (Option<super::Selection>, Vec<PlanWarning>) {
    let mut warnings = Vec::new();
    let path = plan_dir(run).join(super::save::SELECTION_FILE);
    let s = read_json(&path, &mut warnings, "no selection is shown");
    (s, warnings)
}
