//! What a node's own files said (`prior.json`, `stats.json`, `packet.json`, `plan.md`), kept
//! apart from what `tree.json` says of it. A reader that follows a run (the TUI) keeps the
//! last read's files and reads again only the nodes whose folder the watcher named: a
//! 5,000-node tree is 15,000 files, read again on every node write before (issue 30).

use std::collections::HashMap;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::de::DeserializeOwned;

use super::error::PlanWarning;
use super::files::{
    NODES_DIR, PACKET_FILE, PLAN_DIR, PLAN_MD, PRIOR_FILE, Packet, Prior, STATS_FILE, Stats,
};
use super::id::NodeId;

/// Whether to read every `plan.md` (the TUI reads one on demand; the engine and tests
/// may want them all).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plans {
    Skip,
    Read,
}

pub fn node_dir(run: &Path, id: &NodeId) -> PathBuf {
    run.join(PLAN_DIR).join(NODES_DIR).join(id.as_str())
}

/// A JSON file, or `None` with a warning saying what was done instead. Missing is silent:
/// the caller knows whether the file was required.
pub(super) fn read_json<T: DeserializeOwned>(
    path: &Path,
    warnings: &mut Vec<PlanWarning>,
    instead: &str,
) -> Option<T> {
    let bytes = match crate::fsutil::read_run_file(path) {
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

/// One node's files as read.
#[derive(Debug, Clone, Default)]
pub struct NodeFiles {
    /// Whether its folder existed.
    pub present: bool,
    pub prior: Prior,
    /// `None`: missing or unreadable (recomputed from the tree).
    pub stats: Option<Stats>,
    pub packet: Option<Packet>,
    /// Whether `packet.json` existed (a rewarded node without one is warned about).
    pub packet_exists: bool,
    pub plan: Option<String>,
    /// What reading these files found wrong, in file order (`plan.md`'s apart: the
    /// packet's check against the tree's status comes before it).
    pub warnings: Vec<PlanWarning>,
    pub plan_warning: Option<PlanWarning>,
}

/// The files of every node of the last load, by id, and whether they hold `plan.md`s.
#[derive(Debug, Clone, Default)]
pub struct NodeFilesCache {
    pub(super) plans: Option<Plans>,
    pub(super) nodes: HashMap<String, Arc<NodeFiles>>,
}

impl NodeFilesCache {
    /// The kept files of node `id`, unless they were read for other `plans`.
    pub(super) fn get(&self, id: &str, plans: Plans) -> Option<Arc<NodeFiles>> {
        (self.plans == Some(plans))
            .then(|| self.nodes.get(id).cloned())
            .flatten()
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

/// Read node `id`'s files.
pub(super) fn read_files(run: &Path, id: &super::NodeId, plans: Plans) -> NodeFiles {
    let dir = node_dir(run, id);
    let mut f = NodeFiles::default();
    if !dir.is_dir() {
        f.warnings.push(PlanWarning::new(
            &dir,
            "missing; the node is kept with P = 0.5 and no outcome",
        ));
        return f;
    }
    f.present = true;
    let prior_path = dir.join(PRIOR_FILE);
    match read_json(&prior_path, &mut f.warnings, "P = 0.5 is used") {
        Some(p) => f.prior = p,
        None if !prior_path.exists() => {
            f.warnings
                .push(PlanWarning::new(&prior_path, "missing; P = 0.5 is used"));
        }
        None => {}
    }
    if let Some(p) = f.prior.estimate
        && !(0.0..=1.0).contains(&p)
    {
        f.warnings.push(PlanWarning::new(
            &prior_path,
            format!("estimate {p} is outside [0, 1]; clamped"),
        ));
    }
    f.stats = read_json(
        &dir.join(STATS_FILE),
        &mut f.warnings,
        "recomputed from the tree",
    );
    let packet_path = dir.join(PACKET_FILE);
    f.packet = read_json(&packet_path, &mut f.warnings, "the node counts no reward");
    f.packet_exists = f.packet.is_some() || packet_path.exists();
    if plans == Plans::Read {
        match crate::fsutil::read_run_text(dir.join(PLAN_MD)) {
            Ok(text) => f.plan = Some(text),
            Err(err) => {
                f.plan_warning = Some(PlanWarning::new(
                    &dir.join(PLAN_MD),
                    format!("cannot read: {err}"),
                ));
            }
        }
    }
    f
}
