//! Writing the plan tree. A save is a planned sequence of whole-file replacements (each
//! atomic: `fsutil::write_atomic`): the changed nodes' files first, `tree.json` last. A kill
//! after any prefix leaves a tree that loads: `tree.json` still names only folders that
//! exist, a new folder is an orphan the loader reports, and stats that ran ahead of the
//! tree are recomputed from it.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::budget::Budget;
use super::error::{PlanError, io};
use super::files::{
    BUDGET_FILE, NODES_DIR, PACKET_FILE, PLAN_DIR, PLAN_MD, PRIOR_FILE, STATS_FILE, TREE_FILE,
    TREE_VERSION, TreeFile,
};
use super::id::NodeId;
use super::selection::Selection;
use super::tree::{PlanNode, PlanTree};
use crate::fsutil::{parent, replace, sync_dir};

/// Where the last selection is kept for the TUI's plan pane.
pub const SELECTION_FILE: &str = "selection.json";

/// One step of a save: replace the file at `path` (relative to the run folder) with
/// `contents`, or remove it when `None`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileWrite {
    pub path: PathBuf,
    pub contents: Option<Vec<u8>>,
}

fn json(path: &Path, value: &impl Serialize) -> Result<Vec<u8>, PlanError> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|e| PlanError::Encode {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    bytes.push(b'\n');
    Ok(bytes)
}

fn rel_node(id: &NodeId, file: &str) -> PathBuf {
    Path::new(PLAN_DIR)
        .join(NODES_DIR)
        .join(id.as_str())
        .join(file)
}

impl PlanTree {
    /// The writes that save `ids` (their folders' files) and then the tree.
    pub fn writes(&self, ids: &[NodeId]) -> Result<Vec<FileWrite>, PlanError> {
        let mut out = Vec::new();
        for id in ids {
            let node = self
                .get(id)
                .ok_or_else(|| PlanError::UnknownNode { id: id.clone() })?;
            node_writes(node, &mut out)?;
        }
        let tree_path = Path::new(PLAN_DIR).join(TREE_FILE);
        let file = TreeFile {
            version: TREE_VERSION,
            nodes: self.nodes().iter().map(PlanNode::entry).collect(),
            rules: Some(self.rules()),
            extra: self.extra.clone(),
        };
        out.push(FileWrite {
            contents: Some(json(&tree_path, &file)?),
            path: tree_path,
        });
        Ok(out)
    }

    /// Save the files of `ids` (the nodes a change touched), then `tree.json`.
    pub fn save(&self, run: &Path, ids: &[NodeId]) -> Result<(), PlanError> {
        apply_writes(run, &self.writes(ids)?)
    }

    /// Save every node, then `tree.json`.
    pub fn save_all(&self, run: &Path) -> Result<(), PlanError> {
        let ids: Vec<NodeId> = self.nodes().iter().map(|n| n.id.clone()).collect();
        self.save(run, &ids)
    }
}

/// plan.md (when held), prior.json, stats.json, then packet.json (removed when there is
/// none, so a stale outcome can never be read back).
fn node_writes(node: &PlanNode, out: &mut Vec<FileWrite>) -> Result<(), PlanError> {
    if let Some(plan) = &node.plan {
        out.push(FileWrite {
            path: rel_node(&node.id, PLAN_MD),
            contents: Some(plan.as_bytes().to_vec()),
        });
    }
    let prior = rel_node(&node.id, PRIOR_FILE);
    out.push(FileWrite {
        contents: Some(json(&prior, &node.prior)?),
        path: prior,
    });
    let stats = rel_node(&node.id, STATS_FILE);
    out.push(FileWrite {
        contents: Some(json(&stats, &node.stats)?),
        path: stats,
    });
    let packet = rel_node(&node.id, PACKET_FILE);
    let contents = match &node.packet {
        Some(p) => Some(json(&packet, p)?),
        None => None,
    };
    out.push(FileWrite {
        path: packet,
        contents,
    });
    Ok(())
}

/// Carry out writes in order, creating folders as needed. A file that already holds the
/// bytes is not rewritten (saving a node's ancestors after an outcome touches only their
/// stats). Folder syncs are batched: every folder the other writes touched is synced
/// before the last write (`tree.json` in a tree save) is made, so no file the tree names can
/// be lost behind it in a crash.
pub fn apply_writes(run: &Path, writes: &[FileWrite]) -> Result<(), PlanError> {
    let Some((last, body)) = writes.split_last() else {
        return Ok(());
    };
    let mut touched = BTreeSet::new();
    for w in body {
        apply_one(&run.join(&w.path), w.contents.as_deref(), &mut touched)?;
    }
    for dir in &touched {
        sync_dir(dir).map_err(io("fsync", dir))?;
    }
    let mut last_touched = BTreeSet::new();
    let path = run.join(&last.path);
    apply_one(&path, last.contents.as_deref(), &mut last_touched)?;
    for dir in &last_touched {
        sync_dir(dir).map_err(io("fsync", dir))?;
    }
    Ok(())
}

/// `mkdir -p`, noting the folder that holds each new folder's entry (to be synced).
fn create_dirs(dir: &Path, touched: &mut BTreeSet<PathBuf>) -> Result<(), PlanError> {
    if dir.is_dir() {
        return Ok(());
    }
    let up = parent(dir);
    if up != dir {
        create_dirs(up, touched)?;
    }
    match fs::create_dir(dir) {
        Ok(()) => {
            touched.insert(up.to_path_buf());
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(io("create folder", dir)(e)),
    }
}

/// One write, without folder syncs; the folders it changed are added to `touched`.
fn apply_one(
    path: &Path,
    contents: Option<&[u8]>,
    touched: &mut BTreeSet<PathBuf>,
) -> Result<(), PlanError> {
    let dir = parent(path).to_path_buf();
    match contents {
        Some(bytes) => {
            if crate::fsutil::read_run_file(path).is_ok_and(|old| old == bytes) {
                return Ok(());
            }
            create_dirs(&dir, touched)?;
            replace(path, bytes).map_err(io("write", path))?;
        }
        None => match fs::remove_file(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(io("remove", path)(e)),
        },
    }
    touched.insert(dir);
    Ok(())
}

pub fn save_budget(run: &Path, budget: &Budget) -> Result<(), PlanError> {
    save_plan_file(run, BUDGET_FILE, budget)
}

/// The last selection, for the TUI (weights, probabilities, reasons).
pub fn save_selection(run: &Path, selection: &Selection) -> Result<(), PlanError> {
    save_plan_file(run, SELECTION_FILE, selection)
}

fn save_plan_file(run: &Path, name: &str, value: &impl Serialize) -> Result<(), PlanError> {
    let rel = Path::new(PLAN_DIR).join(name);
    let w = FileWrite {
        contents: Some(json(&rel, value)?),
        path: rel,
    };
    apply_writes(run, &[w])
}
