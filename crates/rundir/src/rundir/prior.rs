//! A run's prior: Reflective Memory records copied in from earlier runs (`youra memory
//! import`). This module decides, without touching the disk, where each copy goes, the id it
//! gets and the provenance it carries; `rundir::memory` reads the provenance back (one owner
//! of the keys), the CLI does the writing.
//!
//! Copies live under `memory/prior/from-<source run>/<original id>.md`: the engine writes its
//! own records at the top of `memory/` (`failure_<h>_run<n>.md`, numbered by what is there),
//! so an imported `failure_h-e1_run1` can neither be overwritten by this run's first failure
//! of h-e1 nor shift its run number. The original id is kept as the tail of the new one, so
//! the kind and hypothesis read from the name stay what they were.

use std::path::PathBuf;

use super::memory::MemoryRecord;
pub use super::provenance::Provenance;

/// The folder under `memory/` that holds imported records.
pub(crate) const PRIOR_DIR: &str = "prior";

/// The run records are copied from.
#[derive(Debug, Clone)]
pub struct Source {
    pub root: PathBuf,
    pub name: String,
}

/// What one import does with one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Write `text` at `file` (relative to the target's `memory/`); its id there is `id`.
    Copy {
        original_id: String,
        id: String,
        file: PathBuf,
        text: String,
    },
    /// The same record from the same run is already in the prior, as `id`.
    AlreadyThere { original_id: String, id: String },
}

/// The steps for copying `records` (from `source`) into a run whose memory holds `target`.
/// `now` is the import time written into each copy's provenance.
pub fn plan(
    source: &Source,
    records: &[&MemoryRecord],
    target: &[MemoryRecord],
    now: &str,
) -> Vec<Step> {
    let source_run = source.root.display().to_string();
    let folder = folder_for(source, target);
    records
        .iter()
        .map(|r| {
            let earlier = target.iter().find(|t| {
                t.provenance
                    .as_ref()
                    .is_some_and(|p| p.source_run == source_run && p.original_id == r.id)
            });
            if let Some(t) = earlier {
                return Step::AlreadyThere {
                    original_id: r.id.clone(),
                    id: t.id.clone(),
                };
            }
            let id = format!("{folder}/{}", r.id);
            let provenance = Provenance {
                source_run: source_run.clone(),
                source_name: source.name.clone(),
                original_id: r.id.clone(),
                imported_at: now.to_string(),
            };
            Step::Copy {
                original_id: r.id.clone(),
                file: PathBuf::from(format!("{id}.md")),
                text: with_provenance(&r.body, &provenance),
                id,
            }
        })
        .collect()
}

/// `prior/from-<name>`, numbered (`-2`, `-3`…) when another run of the same name already
/// filled that folder, so two sources never share one.
fn folder_for(source: &Source, target: &[MemoryRecord]) -> String {
    let source_run = source.root.display().to_string();
    let base = format!("{PRIOR_DIR}/from-{}", slug(&source.name));
    (1..)
        .map(|n| {
            if n == 1 {
                base.clone()
            } else {
                format!("{base}-{n}")
            }
        })
        .find(|folder| {
            let prefix = format!("{folder}/");
            target
                .iter()
                .filter(|t| t.id.starts_with(&prefix))
                .all(|t| {
                    t.provenance
                        .as_ref()
                        .is_some_and(|p| p.source_run == source_run)
                })
        })
        .unwrap_or(base)
}

/// A run name as one safe path component: letters, digits, `-`, `_`, `.`; the rest `-`.
fn slug(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    let s = s.trim_matches(['-', '.']).to_string();
    if s.is_empty() { "run".into() } else { s }
}

/// The record with its provenance first in its front matter (an existing block is kept
/// after it), and without the engine's `youra-key` marker: that key belongs to the run that
/// wrote the record and must not make this run's engine take the copy for its own.
fn with_provenance(body: &str, p: &Provenance) -> String {
    let kept: Vec<&str> = body
        .lines()
        .filter(|l| !l.trim_start().starts_with("<!-- youra-key:"))
        .collect();
    let body = kept.join("\n");
    let (old, rest) = match body.strip_prefix("---\n") {
        Some(after) => match after.find("\n---\n") {
            Some(end) => (format!("{}\n", &after[..end]), &after[end + 5..]),
            None => (String::new(), body.as_str()),
        },
        None => (String::new(), body.as_str()),
    };
    format!("---\n{}{old}---\n{}\n", p.front_matter(), rest.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rundir::memory::parse_record;
    use std::path::Path;

    fn rec(id: &str, body: &str) -> MemoryRecord {
        parse_record(id, Path::new("x.md"), body)
    }

    fn source(root: &str, name: &str) -> Source {
        Source {
            root: root.into(),
            name: name.into(),
        }
    }

    const FAILURE: &str = "# Failure: h-e1\n\n**Hypothesis:** h-e1\n\n## Lessons Learned\n\n1. **Scale** first\n<!-- youra-key: 0 -->\n";

    #[test]
    fn copies_get_a_prior_id_and_provenance_that_reads_back() {
        let a = rec("failure_h-e1_run1", FAILURE);
        let steps = plan(
            &source("/runs/a", "penguins demo"),
            &[&a],
            &[],
            "2026-12-03T12:00:00Z",
        );
        let [Step::Copy { id, file, text, .. }] = steps.as_slice() else {
            panic!("{steps:?}")
        };
        assert_eq!(id, "prior/from-penguins-demo/failure_h-e1_run1");
        assert_eq!(
            file,
            Path::new("prior/from-penguins-demo/failure_h-e1_run1.md")
        );
        assert!(!text.contains("youra-key"), "{text}");
        let copy = rec(id, text);
        assert_eq!(
            copy.provenance,
            Some(Provenance {
                source_run: "/runs/a".into(),
                source_name: "penguins demo".into(),
                original_id: "failure_h-e1_run1".into(),
                imported_at: "2026-12-03T12:00:00Z".into(),
            })
        );
        // Kind, hypothesis and lessons read from the copy as from the original.
        assert_eq!(
            (copy.kind, copy.hypothesis.as_deref()),
            (a.kind, Some("h-e1"))
        );
        assert_eq!(copy.lessons, a.lessons);
    }

    #[test]
    fn a_second_import_is_recognised_and_another_run_of_that_name_gets_its_own_folder() {
        let a = rec("failure_h-e1_run1", FAILURE);
        let first = plan(&source("/runs/a", "a"), &[&a], &[], "t");
        let Step::Copy { id, text, .. } = &first[0] else {
            panic!()
        };
        let target = vec![rec(id, text), rec("failure_h-e1_run1", FAILURE)];
        assert_eq!(
            plan(&source("/runs/a", "a"), &[&a], &target, "t"),
            [Step::AlreadyThere {
                original_id: "failure_h-e1_run1".into(),
                id: "prior/from-a/failure_h-e1_run1".into()
            }]
        );
        let other = plan(&source("/elsewhere/a", "a"), &[&a], &target, "t");
        let Step::Copy { id, .. } = &other[0] else {
            panic!()
        };
        assert_eq!(id, "prior/from-a-2/failure_h-e1_run1");
        // Never the id of a record the target already has.
        assert!(target.iter().all(|t| &t.id != id));
    }

    #[test]
    fn existing_front_matter_is_kept_and_odd_names_are_made_safe() {
        let a = rec("failures/h-m1", "---\ntitle: x\n---\n# F\n");
        let steps = plan(&source("/r", "../../etc"), &[&a], &[], "t");
        let Step::Copy { id, text, .. } = &steps[0] else {
            panic!()
        };
        assert_eq!(id, "prior/from-etc/failures/h-m1");
        let copy = rec(id, text);
        assert!(
            copy.front_matter
                .iter()
                .any(|(k, v)| k == "title" && v == "x")
        );
        assert_eq!(copy.title.as_deref(), Some("F"));
        assert_eq!(
            copy.provenance.map(|p| p.original_id),
            Some("failures/h-m1".into())
        );
        assert_eq!(slug("..."), "run");
    }
}
