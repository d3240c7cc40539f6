//! Which stage artifacts a sub-hypothesis folder (`<run_root>/<h>/`) holds. Presence only:
//! the file names are YouRA's fixed stage outputs (Phase 2C brief, Phase 3 plan and tasks,
//! Phase 4 code, results, validation, checkpoint, reflection), so a glance at the folder
//! tells how far a hypothesis got even when the verification state is stale or drifted.

use serde::Serialize;
use std::fs;
use std::path::{Path, PathBuf};

/// Phase 3 planning documents, in the order they are listed.
const PLAN_DOCS: [&str; 4] = [
    "03_prd.md",
    "03_architecture.md",
    "03_logic.md",
    "03_config.md",
];

/// Stage artifacts found for one sub-hypothesis.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ArtifactPresence {
    pub hypothesis: String,
    /// `<run_root>/<h>` when it is a folder; `None` when absent or the id is not a plain name.
    pub dir: Option<PathBuf>,
    /// `02c_experiment_brief.md`
    pub experiment_brief: bool,
    /// `03_tasks.yaml` (or `.yml`)
    pub tasks: bool,
    /// Which of `03_prd.md`, `03_architecture.md`, `03_logic.md`, `03_config.md` exist.
    pub plan_docs: Vec<String>,
    /// `code/` exists and is not empty.
    pub code: bool,
    /// A non-empty `results/`, or `experiment_results.json` in the folder or in `results/`.
    pub results: bool,
    /// `04_validation.md`
    pub validation: bool,
    /// `04_checkpoint.yaml` (or `.yml`), the live Phase 4 checkpoint.
    pub checkpoint: bool,
    /// `reflection_report.md`, written when a gate did not pass.
    pub reflection_report: bool,
    /// `04_checkpoint_archived_*.yaml` names, sorted: one per superseded Phase 4 attempt.
    pub archived_checkpoints: Vec<String>,
}

/// Looks in `<run_root>/<h>/` for each id, in the order given. Never fails: an unreadable
/// or missing folder reads as "nothing there".
pub fn scan(run_root: &Path, hypothesis_ids: &[String]) -> Vec<ArtifactPresence> {
    hypothesis_ids
        .iter()
        .map(|h| scan_one(run_root, h))
        .collect()
}

fn scan_one(run_root: &Path, hypothesis: &str) -> ArtifactPresence {
    let mut found = ArtifactPresence {
        hypothesis: hypothesis.to_string(),
        ..Default::default()
    };
    // An id is a folder name, never a path: refuse separators and `.`/`..`.
    let plain = !hypothesis.is_empty()
        && !hypothesis.contains(['/', '\\'])
        && hypothesis != "."
        && hypothesis != "..";
    let dir = run_root.join(hypothesis);
    if !plain || !dir.is_dir() {
        return found;
    }
    let file = |name: &str| dir.join(name).is_file();
    found.experiment_brief = file("02c_experiment_brief.md");
    found.tasks = file("03_tasks.yaml") || file("03_tasks.yml");
    found.plan_docs = PLAN_DOCS
        .iter()
        .filter(|n| file(n))
        .map(|n| n.to_string())
        .collect();
    found.code = non_empty_dir(&dir.join("code"));
    found.results = non_empty_dir(&dir.join("results"))
        || file("experiment_results.json")
        || file("results/experiment_results.json");
    found.validation = file("04_validation.md");
    found.checkpoint = file("04_checkpoint.yaml") || file("04_checkpoint.yml");
    found.reflection_report = file("reflection_report.md");
    found.archived_checkpoints = archived_checkpoints(&dir);
    found.dir = Some(dir);
    found
}

fn non_empty_dir(dir: &Path) -> bool {
    fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some())
}

fn archived_checkpoints(dir: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| is_archived_checkpoint(n))
        .collect();
    names.sort();
    names
}

/// `04_checkpoint_archived_20260317T110000.yaml` (any suffix, `.yaml` or `.yml`).
fn is_archived_checkpoint(name: &str) -> bool {
    name.starts_with("04_checkpoint_archived")
        && (name.ends_with(".yaml") || name.ends_with(".yml"))
}

impl ArtifactPresence {
    /// Short names of the stage artifacts present, in lifecycle order (for listings).
    pub fn present(&self) -> Vec<&'static str> {
        let marks = [
            (self.experiment_brief, "brief"),
            (self.tasks, "tasks"),
            (!self.plan_docs.is_empty(), "plan"),
            (self.code, "code"),
            (self.results, "results"),
            (self.validation, "validation"),
            (self.checkpoint, "checkpoint"),
            (self.reflection_report, "reflection"),
        ];
        marks
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| *n)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_run(tag: &str) -> PathBuf {
        let root =
            std::env::temp_dir().join(format!("youra-artifacts-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        root
    }

    #[test]
    fn reports_each_stage() {
        let root = temp_run("stages");
        let h = root.join("h-e1");
        fs::create_dir_all(h.join("code")).unwrap();
        fs::create_dir_all(h.join("results")).unwrap();
        for name in [
            "02c_experiment_brief.md",
            "03_tasks.yaml",
            "03_logic.md",
            "03_prd.md",
            "code/run.py",
        ] {
            fs::write(h.join(name), "x").unwrap();
        }
        for name in [
            "04_checkpoint_archived_2.yaml",
            "04_checkpoint_archived_1.yaml",
            "04_checkpoint.yaml.bak",
        ] {
            fs::write(h.join(name), "x").unwrap();
        }
        let ids = ["h-e1", "h-m1", "../etc", ""].map(String::from);
        let got = scan(&root, &ids);
        let _ = fs::remove_dir_all(&root);
        let e1 = &got[0];
        assert!(e1.experiment_brief && e1.tasks && e1.code);
        assert!(!e1.results && !e1.validation && !e1.checkpoint && !e1.reflection_report);
        assert_eq!(e1.plan_docs, ["03_prd.md", "03_logic.md"]);
        assert_eq!(
            e1.archived_checkpoints,
            [
                "04_checkpoint_archived_1.yaml",
                "04_checkpoint_archived_2.yaml"
            ]
        );
        assert_eq!(e1.dir.as_deref(), Some(h.as_path()));
        for missing in &got[1..] {
            assert_eq!(
                missing,
                &ArtifactPresence {
                    hypothesis: missing.hypothesis.clone(),
                    ..Default::default()
                }
            );
        }
    }

    #[test]
    fn results_json_counts_as_results() {
        let root = temp_run("results");
        let h = root.join("h-e1-v2");
        fs::create_dir_all(&h).unwrap();
        fs::write(h.join("experiment_results.json"), "{}").unwrap();
        fs::write(h.join("04_validation.md"), "").unwrap();
        let got = scan(&root, &["h-e1-v2".to_string()]);
        let _ = fs::remove_dir_all(&root);
        assert!(got[0].results && got[0].validation && !got[0].code);
    }
}
