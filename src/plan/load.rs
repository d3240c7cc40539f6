//! Reading a run's plan tree, tolerantly. `tree.json` must parse (it is the commit point);
//! every node file is read around: a missing folder or a malformed JSON file becomes a
//! warning naming the file (and line and column), and the rest loads. Stats are recomputed
//! from the committed statuses and packets, so a write interrupted between a node's files
//! and `tree.json` leaves nothing inconsistent behind.

use std::collections::HashSet;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use super::budget::Budget;
use super::error::{PlanError, PlanWarning, io, json_message};
use super::files::{
    BUDGET_FILE, NODES_DIR, NodeEntry, PACKET_FILE, PLAN_DIR, PLAN_MD, PRIOR_FILE, STATS_FILE,
    Stats, TREE_FILE, TreeFile,
};
use super::id::NodeId;
use super::rules::TreeRules;
use super::structure::normalise;
use super::tree::{PlanNode, PlanTree};

/// Whether to read every `plan.md` (the TUI reads one on demand; the engine and tests
/// may want them all).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plans {
    Skip,
    Read,
}

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

pub fn node_dir(run: &Path, id: &NodeId) -> PathBuf {
    run.join(PLAN_DIR).join(NODES_DIR).join(id.as_str())
}

/// Load `<run>/plan/`. No `tree.json` is an empty tree (no plan yet), not an error.
pub fn load(run: &Path, plans: Plans) -> Result<Loaded, PlanError> {
    let mut warnings = Vec::new();
    let budget = read_json::<Budget>(
        &plan_dir(run).join(BUDGET_FILE),
        &mut warnings,
        "the run config's budget is used",
    );
    let tree_path = plan_dir(run).join(TREE_FILE);
    let file = match fs::read(&tree_path) {
        Ok(bytes) => serde_json::from_slice::<TreeFile>(&bytes).map_err(|e| PlanError::Parse {
            path: tree_path.clone(),
            line: e.line(),
            col: e.column(),
            message: json_message(&e),
        })?,
        Err(e) if e.kind() == ErrorKind::NotFound => {
            let orphans = orphans(run, &HashSet::new(), &mut warnings);
            return Ok(Loaded {
                tree: PlanTree::from_nodes(Vec::new(), orphans, Default::default()),
                budget,
                warnings,
            });
        }
        Err(e) => return Err(io("read", &tree_path)(e)),
    };
    let (entries, notes) = normalise(file.nodes);
    warnings.extend(notes.into_iter().map(|n| PlanWarning::new(&tree_path, n)));
    let (nodes, stats_read) = read_nodes(run, entries, plans, &mut warnings);
    let known: HashSet<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
    let orphans = orphans(run, &known, &mut warnings);
    let mut tree = PlanTree::from_nodes(nodes, orphans, file.extra);
    tree.set_rules_as_read(file.rules.unwrap_or(TreeRules::Youra));
    recompute_stats(run, &mut tree, &stats_read, &mut warnings);
    Ok(Loaded {
        tree,
        budget,
        warnings,
    })
}

/// One reader thread's nodes (each with whether its stats were read) and warnings.
type ChunkRead = (Vec<(PlanNode, bool)>, Vec<PlanWarning>);

/// Below this many nodes one thread reads them all.
const PARALLEL_FROM: usize = 512;

/// Every node's files, in tree order. A large tree is read by a few threads over
/// contiguous chunks (the reads are independent; 10,000 nodes are 30,000 small files), and
/// their results and warnings are joined in order, so the outcome equals a sequential read.
fn read_nodes(
    run: &Path,
    entries: Vec<NodeEntry>,
    plans: Plans,
    warnings: &mut Vec<PlanWarning>,
) -> (Vec<PlanNode>, Vec<bool>) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    if threads < 2 || entries.len() < PARALLEL_FROM {
        return entries
            .into_iter()
            .map(|e| read_node(run, e, plans, warnings))
            .unzip();
    }
    let size = entries.len().div_ceil(threads);
    let mut chunks: Vec<Vec<NodeEntry>> = Vec::with_capacity(threads);
    let mut rest = entries.into_iter();
    loop {
        let chunk: Vec<NodeEntry> = rest.by_ref().take(size).collect();
        if chunk.is_empty() {
            break;
        }
        chunks.push(chunk);
    }
    let results: Vec<ChunkRead> = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                s.spawn(move || {
                    let mut w = Vec::new();
                    let nodes = chunk
                        .into_iter()
                        .map(|e| read_node(run, e, plans, &mut w))
                        .collect();
                    (nodes, w)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut out = (Vec::new(), Vec::new());
    for (nodes, w) in results {
        warnings.extend(w);
        for (n, read) in nodes {
            out.0.push(n);
            out.1.push(read);
        }
    }
    out
}

/// A JSON file, or `None` with a warning saying what was done instead. Missing is silent:
/// the caller knows whether the file was required.
fn read_json<T: DeserializeOwned>(
    path: &Path,
    warnings: &mut Vec<PlanWarning>,
    instead: &str,
) -> Option<T> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == ErrorKind::NotFound => return None,
        Err(e) => {
            warnings.push(PlanWarning::new(
                path,
                format!("cannot read: {e}; {instead}"),
            ));
            return None;
        }
    };
    match serde_json::from_slice(&bytes) {
        Ok(v) => Some(v),
        Err(e) => {
            warnings.push(PlanWarning::json(path, &e, instead));
            None
        }
    }
}

/// The node, and whether its `stats.json` was read (only then can it be stale).
fn read_node(
    run: &Path,
    e: NodeEntry,
    plans: Plans,
    warnings: &mut Vec<PlanWarning>,
) -> (PlanNode, bool) {
    let dir = node_dir(run, &e.id);
    let mut node = PlanNode {
        id: e.id,
        parent: e.parent,
        children: e.children,
        status: e.status,
        pinned: e.pinned,
        vetoed: e.vetoed,
        created_at: e.created_at,
        hypothesis_id: e.hypothesis_id,
        expansions: e.expansions,
        prior: Default::default(),
        stats: Stats::default(),
        packet: None,
        plan: None,
        extra: e.extra,
    };
    if !dir.is_dir() {
        warnings.push(PlanWarning::new(
            &dir,
            "missing; the node is kept with P = 0.5 and no outcome",
        ));
        return (node, false);
    }
    let prior_path = dir.join(PRIOR_FILE);
    match read_json(&prior_path, warnings, "P = 0.5 is used") {
        Some(p) => node.prior = p,
        None if !prior_path.exists() => {
            warnings.push(PlanWarning::new(&prior_path, "missing; P = 0.5 is used"));
        }
        None => {}
    }
    if let Some(p) = node.prior.estimate
        && !(0.0..=1.0).contains(&p)
    {
        warnings.push(PlanWarning::new(
            &prior_path,
            format!("estimate {p} is outside [0, 1]; clamped"),
        ));
    }
    let stats = read_json(&dir.join(STATS_FILE), warnings, "recomputed from the tree");
    let stats_read = stats.is_some();
    node.stats = stats.unwrap_or_default();
    let packet_path = dir.join(PACKET_FILE);
    node.packet = read_json(&packet_path, warnings, "the node counts no reward");
    check_packet(&node, &packet_path, warnings);
    if plans == Plans::Read {
        match fs::read_to_string(dir.join(PLAN_MD)) {
            Ok(text) => node.plan = Some(text),
            Err(err) => warnings.push(PlanWarning::new(
                &dir.join(PLAN_MD),
                format!("cannot read: {err}"),
            )),
        }
    }
    (node, stats_read)
}

fn check_packet(node: &PlanNode, path: &Path, warnings: &mut Vec<PlanWarning>) {
    let rewarded = node.status.has_reward() && node.status != super::NodeStatus::Failed;
    match &node.packet {
        None if rewarded && !path.exists() => warnings.push(PlanWarning::new(
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
