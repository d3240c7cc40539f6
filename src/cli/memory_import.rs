//! `youra memory import <from-run> <record>… --into <run>`: resolves the runs and the
//! records, lets `rundir::prior::plan` decide ids and text, then writes each copy as a new
//! file under the target's `memory/` (folders checked for planted links, atomic write,
//! never over an existing file).

use std::path::Path;

use color_eyre::eyre::Result;

use super::fail;
use crate::rundir::memory::{MemoryRecord, load_dir};
use crate::rundir::prior::{self, Source, Step};
use crate::rundir::{Layout, discover};

pub fn run(from: &Path, wanted: &[String], into: &Path) -> Result<i32> {
    let Ok(target) = discover(into) else {
        fail(
            format!(
                "{} is not a run (no verification_state.yaml there)",
                into.display()
            ),
            "create it first with `youra init <dir> --topic \"…\"`, or give the run's folder",
        );
        return Ok(super::NO_RUN);
    };
    if target.layout != Layout::Native {
        return Ok(fail(
            format!(
                "{} is a YouRA research folder, not a youra run",
                target.root.display()
            ),
            "import into a run made by `youra init` (its engine reads memory/prior/)",
        ));
    }
    let source = match super::memory_records::records(from) {
        Ok(r) => r,
        Err(code) => return Ok(code),
    };
    let source_root = discover(from)
        .map(|r| r.root)
        .unwrap_or_else(|_| from.to_path_buf());
    if source_root == target.root {
        return Ok(fail(
            "the source and the target are the same run",
            "a run's own records are already its memory",
        ));
    }
    let mut chosen: Vec<&MemoryRecord> = Vec::new();
    for w in wanted {
        match find(&source, w) {
            Some(r) if !chosen.iter().any(|c| c.id == r.id) => chosen.push(r),
            Some(_) => {}
            None => {
                let ids: Vec<&str> = source.iter().map(|r| r.id.as_str()).collect();
                let listed = if ids.is_empty() {
                    "it has none".to_string()
                } else {
                    format!("its records are: {}", ids.join(", "))
                };
                return Ok(fail(
                    format!(
                        "no memory record `{w}` in {}; {listed}",
                        source_root.display()
                    ),
                    "give ids or file names as `youra memory list <from-run>` shows them",
                ));
            }
        }
    }
    let memory = target.root.join("memory");
    let (existing, _) = load_dir(&memory);
    let name = source_root
        .file_name()
        .map_or_else(|| "run".into(), |n| n.to_string_lossy().into_owned());
    let src = Source {
        root: source_root.clone(),
        name,
    };
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    for step in prior::plan(&src, &chosen, &existing, &now) {
        match step {
            Step::AlreadyThere { original_id, id } => {
                println!("{original_id}: already imported as {id}, left as it is")
            }
            Step::Copy {
                original_id,
                id,
                file,
                text,
            } => {
                let written = crate::fsutil::create_dirs_nofollow(
                    &target.root,
                    &Path::new("memory").join(crate::fsutil::parent(&file)),
                )
                .and_then(|dir| {
                    let path = dir.join(file.file_name().unwrap_or_default());
                    crate::fsutil::write_new_atomic(&path, text.as_bytes()).map(|()| path)
                });
                match written {
                    Ok(path) => println!("{original_id} → {id} ({})", path.display()),
                    Err(e) => {
                        return Ok(fail(
                            format!("cannot import {original_id}: {e}"),
                            "nothing after it was imported; fix the path and run the command again",
                        ));
                    }
                }
            }
        }
    }
    Ok(0)
}

/// A record by id (`failures/h-m1`), id with `.md`, or file name (`failure_h-e1_run1.md`)
/// when only one record has it.
fn find<'a>(records: &'a [MemoryRecord], wanted: &str) -> Option<&'a MemoryRecord> {
    let stem = wanted.strip_suffix(".md").unwrap_or(wanted);
    if let Some(r) = records.iter().find(|r| r.id == stem) {
        return Some(r);
    }
    let by_name: Vec<&MemoryRecord> = records
        .iter()
        .filter(|r| {
            r.path
                .file_name()
                .is_some_and(|n| n == wanted || n.to_string_lossy() == format!("{stem}.md"))
        })
        .collect();
    match by_name.as_slice() {
        [one] => Some(one),
        _ => None,
    }
}
