//! Finding the run inside a folder: a youra run, a YouRA research folder
//! (`docs/youra_research/<run>/`), the flat ablation layout, a YouRA task folder, or the
//! harness-only `.ablation_shadow/` copy of the state.

use std::path::{Path, PathBuf};

use serde::Serialize;

pub(crate) const VSA_FILE: &str = "verification_state.yaml";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// Written by youra (has `youra.toml` or `events.jsonl`).
    Native,
    /// A YouRA research folder.
    YouraResearch,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunDir {
    /// The run folder: artifacts, `h-*/`, `_archive/` live here.
    pub root: PathBuf,
    pub vsa: PathBuf,
    pub layout: Layout,
    /// The YouRA task folder above `docs/`, where `.serena/memories/` usually is.
    pub task_root: Option<PathBuf>,
    /// How the run was found, when that is worth saying (several runs, a shadow copy).
    pub notes: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("no {VSA_FILE} found in {}: looked in {}.{} Give a youra run, a YouRA research folder (docs/youra_research/<run>) or a YouRA task folder", dir.display(), looked.join(", "), not_regular(dir))]
pub struct NotARun {
    pub dir: PathBuf,
    pub looked: Vec<String>,
}

/// " <dir>/verification_state.yaml is a FIFO …" when the name is there but is not a regular
/// file (a handed run folder may hold anything): the error then says why it was passed over.
fn not_regular(dir: &Path) -> String {
    let path = dir.join(VSA_FILE);
    // A link is followed here: the store reads a linked VSA on purpose.
    let Some(what) = std::fs::metadata(&path)
        .ok()
        .and_then(|m| crate::fsutil::not_regular(m.file_type()))
    else {
        return String::new();
    };
    format!(
        " {} is {what}, not a file: youra reads only regular files from a run folder.",
        path.display()
    )
}

fn vsa_in(dir: &Path) -> Option<(PathBuf, Option<String>)> {
    let direct = dir.join(VSA_FILE);
    if direct.is_file() {
        return Some((direct, None));
    }
    let shadow = dir.join(".ablation_shadow").join(VSA_FILE);
    shadow.is_file().then(|| {
        (
            shadow,
            Some(
                "state read from the harness's .ablation_shadow/ copy (VSA ablation run)"
                    .to_string(),
            ),
        )
    })
}

/// Locate the run in `dir` (or the VSA file itself when `dir` is a file).
pub fn discover(dir: &Path) -> Result<RunDir, NotARun> {
    if dir.is_file() {
        let root = dir
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        return Ok(run_at(root, dir.to_path_buf(), Vec::new()));
    }
    if let Some((vsa, note)) = vsa_in(dir) {
        return Ok(run_at(dir.to_path_buf(), vsa, note.into_iter().collect()));
    }
    let research = if dir.join("docs/youra_research").is_dir() {
        dir.join("docs/youra_research")
    } else {
        dir.to_path_buf()
    };
    if let Some((vsa, note)) = vsa_in(&research) {
        return Ok(run_at(research, vsa, note.into_iter().collect()));
    }
    let mut runs: Vec<(PathBuf, PathBuf, Option<String>)> = std::fs::read_dir(&research)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_dir()
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('_'))
        })
        .filter_map(|p| vsa_in(&p).map(|(v, n)| (p, v, n)))
        .collect();
    runs.sort_by_key(|(_, v, _)| std::fs::metadata(v).and_then(|m| m.modified()).ok());
    let Some((root, vsa, note)) = runs.pop() else {
        return Err(NotARun {
            dir: dir.to_path_buf(),
            looked: vec![
                ".".into(),
                ".ablation_shadow/".into(),
                "docs/youra_research/".into(),
                "docs/youra_research/*/".into(),
            ],
        });
    };
    let mut notes: Vec<String> = note.into_iter().collect();
    if !runs.is_empty() {
        let others: Vec<String> = runs
            .iter()
            .map(|(r, _, _)| r.display().to_string())
            .collect();
        notes.push(format!(
            "several runs found; showing the most recently updated. Others: {}",
            others.join(", ")
        ));
    }
    Ok(run_at(root, vsa, notes))
}

/// Every run in `dir`, for the runs view: the run `dir` is (a file, a folder holding the VSA,
/// a task folder with one run), else each run folder inside it (`docs/youra_research/*/`, or
/// `dir/*/`, where a child may also be a task folder holding its own runs), by path.
pub fn discover_all(dir: &Path) -> Result<Vec<RunDir>, NotARun> {
    if dir.is_file() || vsa_in(dir).is_some() {
        return discover(dir).map(|r| vec![r]);
    }
    let research = if dir.join("docs/youra_research").is_dir() {
        dir.join("docs/youra_research")
    } else {
        dir.to_path_buf()
    };
    if vsa_in(&research).is_some() {
        return discover(dir).map(|r| vec![r]);
    }
    let mut children: Vec<PathBuf> = std::fs::read_dir(&research)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_dir()
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(['_', '.']))
        })
        .collect();
    children.sort();
    let mut runs = Vec::new();
    for child in children {
        if let Some((vsa, note)) = vsa_in(&child) {
            runs.push(run_at(child, vsa, note.into_iter().collect()));
        } else if research == dir && child.join("docs/youra_research").is_dir() {
            runs.extend(discover_all(&child).unwrap_or_default());
        }
    }
    if runs.is_empty() {
        return discover(dir).map(|r| vec![r]);
    }
    Ok(runs)
}

fn run_at(root: PathBuf, vsa: PathBuf, notes: Vec<String>) -> RunDir {
    let native = root.join("youra.toml").is_file() || root.join("events.jsonl").is_file();
    let task_root = task_root_of(&root);
    RunDir {
        layout: if native {
            Layout::Native
        } else {
            Layout::YouraResearch
        },
        task_root,
        root,
        vsa,
        notes,
    }
}

/// `<task>/docs/youra_research[/<run>]` → `<task>`.
fn task_root_of(root: &Path) -> Option<PathBuf> {
    root.ancestors()
        .find(|a| {
            a.file_name().is_some_and(|n| n == "youra_research")
                && a.parent().is_some_and(|p| p.ends_with("docs"))
        })
        .and_then(|yr| yr.parent()?.parent().map(Path::to_path_buf))
}

impl RunDir {
    /// Folders holding Reflective Memory records, nearest first.
    pub fn memory_roots(&self) -> Vec<PathBuf> {
        let mut out = vec![self.root.join("memory"), self.root.join(".serena/memories")];
        if let Some(t) = &self.task_root {
            out.push(t.join(".serena/memories"));
        }
        out.retain(|p| p.is_dir());
        out.dedup();
        out
    }
}
