//! What a whole read of a run may keep from the last one (issue 30): each part whose files
//! no path the watcher named touches (`watch::Changes`). The VSA is re-read when it is
//! named; the plan view when anything under `plan/` is (the ledger alone recharges its
//! budget); the memory records when anything under a memory root is, and their links when
//! the records, the archives or a record's sub-hypothesis folder are (a record whose file
//! no path names is kept when others are read again); the archives under
//! `_archive/`; a sub-hypothesis's file list and artifacts when its folder gains or loses
//! a path; the run's own file list when its folder, `paper/` or `transcripts/` does. With
//! nothing to go by (`Changes::other`, or no last read) everything is read: when unsure,
//! read it all. Parts outside the watched folders (a task root's memories) are always read.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::rundir::RunDir;
use crate::rundir::archive::ArchiveMarker;
use crate::rundir::artifacts::ArtifactPresence;
use crate::rundir::lessons::RecordLinks;
use crate::rundir::memory::MemoryRecord;
use crate::tui::data::RunRead;
use crate::tui::plan_view::PlanView;
use crate::tui::watch::Changes;
use crate::vsa::Snapshot;

/// "Anything may have changed", for reads that have no record of what did.
static UNKNOWN: Changes = Changes {
    written: BTreeSet::new(),
    named: BTreeSet::new(),
    other: true,
};

pub(super) struct Keep<'a> {
    /// The last whole read, when anything of it may be kept.
    prev: Option<&'a RunRead>,
    changes: &'a Changes,
    run: &'a RunDir,
}

impl<'a> Keep<'a> {
    /// Keep nothing: a first read, or a one-shot one.
    pub fn nothing(run: &'a RunDir) -> Keep<'a> {
        Keep {
            prev: None,
            changes: &UNKNOWN,
            run,
        }
    }

    /// Keep what `changes` do not touch of `prev`.
    pub fn since(run: &'a RunDir, prev: Option<&'a RunRead>, changes: &'a Changes) -> Keep<'a> {
        Keep {
            prev: prev.filter(|_| !changes.other),
            changes,
            run,
        }
    }

    /// Whether a path under `dir` (or `dir` itself, or a folder above it) was created,
    /// removed or renamed: what a listing or an existence check would see. Writes in place
    /// (a metrics line appended) do not count.
    fn reshaped(&self, dir: &Path) -> bool {
        let c = self.changes;
        c.other
            || c.named
                .iter()
                .any(|p| p.starts_with(dir) || dir.starts_with(p))
    }

    /// The last read's VSA when it is not named (and the last read had its history).
    pub fn vsa(&self) -> Option<Result<Arc<Snapshot>, String>> {
        let p = self.prev?;
        (!p.history_pending && !self.changes.touches(&self.run.vsa)).then(|| p.vsa.clone())
    }

    /// The last read's records when nothing under a memory root changed and every root is
    /// inside the run folder (the one the watcher sees whole).
    pub fn memory(&self) -> Option<Vec<MemoryRecord>> {
        let p = self.prev?;
        let root = &self.run.root;
        // The roots as they are now, and where they may appear or go (a created or removed
        // root is a named path above or at them).
        let mut roots = self.run.memory_roots();
        roots.extend([root.join("memory"), root.join(".serena")]);
        if let Some(t) = &self.run.task_root {
            roots.push(t.join(".serena"));
        }
        let watched = roots.iter().all(|r| r.starts_with(root));
        (watched && !roots.iter().any(|r| self.changes.touches(r))).then(|| p.memory.clone())
    }

    /// The last read's records by file, to look up with [`Keep::record`].
    pub fn records(&self) -> HashMap<&'a Path, &'a MemoryRecord> {
        self.prev.map_or_else(HashMap::new, |p| {
            p.memory.iter().map(|r| (r.path.as_path(), r)).collect()
        })
    }

    /// The last read's record of the file at `path` (from [`Keep::records`]), when nothing
    /// named the file (or a folder above it) and it lies in the run folder, the one the
    /// watcher sees.
    pub fn record(
        &self,
        records: &HashMap<&Path, &MemoryRecord>,
        path: &Path,
    ) -> Option<MemoryRecord> {
        if !path.starts_with(&self.run.root) || self.changes.touches(path) {
            return None;
        }
        records.get(path).map(|r| (*r).clone())
    }

    /// The last read's links when its records and archives are kept and no folder of a
    /// record's sub-hypothesis (where its attempt logs are) gained or lost a path.
    pub fn links(&self, records: &[MemoryRecord], fresh: bool) -> Option<Vec<RecordLinks>> {
        let p = self.prev.filter(|_| !fresh)?;
        let touched = records
            .iter()
            .filter_map(|r| r.hypothesis.as_deref())
            .any(|h| self.reshaped(&self.run.root.join(h)));
        (!touched).then(|| p.memory_links.clone())
    }

    pub fn archives(&self) -> Option<Vec<ArchiveMarker>> {
        let p = self.prev?;
        (!self.changes.touches(&self.run.root.join("_archive"))).then(|| p.archives.clone())
    }

    /// The file list of sub-hypothesis `id`'s folder, when it was listed and is unchanged.
    pub(crate) fn files_of(&self, id: &str) -> Option<Vec<PathBuf>> {
        let p = self.prev?;
        if self.reshaped(&self.run.root.join(id)) {
            return None;
        }
        p.files
            .iter()
            .find(|(h, _)| h == id)
            .map(|(_, f)| f.clone())
    }

    /// The run's own file list (its folder, `paper/`, `transcripts/`), when unchanged.
    pub(crate) fn run_files(&self) -> Option<Vec<PathBuf>> {
        let p = self.prev?;
        let root = &self.run.root;
        if self.changes.lists(root)
            || self.reshaped(&root.join("paper"))
            || self.reshaped(&root.join("transcripts"))
        {
            return None;
        }
        p.files
            .iter()
            .find(|(h, _)| h == "run")
            .map(|(_, f)| f.clone())
    }

    /// What sub-hypothesis `id`'s folder holds, when it was looked at and is unchanged.
    pub(crate) fn artifacts_of(&self, id: &str) -> Option<ArtifactPresence> {
        let p = self.prev?;
        if self.reshaped(&self.run.root.join(id)) {
            return None;
        }
        p.artifacts.iter().find(|a| a.hypothesis == id).cloned()
    }

    /// The last read's plan view when nothing under `plan/` changed and its nodes were
    /// read (not the first read's placeholder), recharged when only the ledger changed; or
    /// that view to read again keeping the files of every node whose folder no path names.
    pub fn plan(&self) -> PlanKeep<'a> {
        let Some(p) = self.prev else {
            return PlanKeep::Read;
        };
        let root = &self.run.root;
        let plan_dir = crate::plan::plan_dir(root);
        let Some(view) = p.plan.as_ref().filter(|v| !v.loading) else {
            return match &p.plan {
                None if !self.changes.touches(&plan_dir) => PlanKeep::Kept(None),
                _ => PlanKeep::Read,
            };
        };
        if self.changes.touches(&plan_dir) {
            let nodes = plan_dir.join(crate::plan::NODES_DIR);
            // The folder of all nodes (or one above it) made or removed: read them all.
            if self.changes.named.iter().any(|n| nodes.starts_with(n)) {
                return PlanKeep::Read;
            }
            let ids = self
                .changes
                .paths()
                .filter_map(|p| p.strip_prefix(&nodes).ok()?.components().next())
                .filter_map(|c| c.as_os_str().to_str().map(str::to_string))
                .collect();
            return PlanKeep::Since(view, ids);
        }
        if self.changes.touches(&root.join("ledger.tsv")) {
            return PlanKeep::Kept(Some(Box::new(crate::tui::plan_view::recharged(view, root))));
        }
        PlanKeep::Kept(Some(Box::new(view.clone())))
    }
}

/// What a read does about the plan view.
pub(super) enum PlanKeep<'a> {
    /// This view (or none: the run has no plan tree).
    Kept(Option<Box<PlanView>>),
    /// Read again, keeping this view's files of the nodes not named here.
    Since(&'a PlanView, BTreeSet<String>),
    /// Read everything.
    Read,
}
