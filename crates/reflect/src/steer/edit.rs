//! `edit <node> --plan-file <path>`: where the new plan text travels.
//!
//! A plan is pages of Markdown, and the VSA's writer has no block scalars, so the text is
//! not put in the directive: `apply` saves it as `plan/edits/<directive-id>.md` (atomically,
//! under the store's lock, just before the directive is appended) and the directive records
//! that path as `plan_file`. The engine reads it back when it applies the directive; the file
//! stays as the record of what the researcher asked for. Directive ids are unique in a run,
//! so an edit file is never overwritten by another edit.

use std::path::Path;

use super::error::SteerError;

/// The folder (relative to the run) that holds the edits' plan texts.
pub const EDITS_DIR: &str = "plan/edits";

/// The largest plan file accepted: a plan is a page or a few, not a data set.
pub const MAX_PLAN_BYTES: u64 = 256 * 1024;

/// The run-relative path of the plan text of directive `id`.
pub fn edit_file(id: &str) -> String {
    format!("{EDITS_DIR}/{id}.md")
}

/// The new plan text from the researcher's file: UTF-8, not blank, at most
/// [`MAX_PLAN_BYTES`].
pub fn read_plan_file(path: &Path) -> Result<String, SteerError> {
    let fail = |why: String| SteerError::PlanFile {
        path: path.display().to_string(),
        why,
    };
    let meta = std::fs::metadata(path).map_err(|e| fail(e.to_string()))?;
    if meta.len() > MAX_PLAN_BYTES {
        return Err(fail(format!(
            "it is {} bytes; a plan is at most {MAX_PLAN_BYTES}",
            meta.len()
        )));
    }
    let bytes = crate::fsutil::read_run_file(path).map_err(|e| fail(e.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|_| fail("it is not UTF-8 text".into()))?;
    if text.trim().is_empty() {
        return Err(fail("it is empty; write the new plan in it".into()));
    }
    Ok(text)
}

/// `n-3 --plan-file p.md` (as typed on the TUI's `:` line) → (`n-3`, `Some("p.md")`).
pub fn split_plan_file(target: &str) -> (String, Option<String>) {
    match target.split_once("--plan-file") {
        Some((node, path)) => {
            let path = path.trim().trim_start_matches('=').trim();
            (
                node.trim().to_string(),
                Some(path.to_string()).filter(|p| !p.is_empty()),
            )
        }
        None => (target.trim().to_string(), None),
    }
}

/// Save `text` as the plan file of directive `id` in `run`.
pub(super) fn save(run: &Path, id: &str, text: &str) -> Result<(), SteerError> {
    let path = run.join(edit_file(id));
    let fail = |e: std::io::Error| SteerError::EditFile(format!("{}: {e}", path.display()));
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    crate::fsutil::write_atomic(&path, text.as_bytes()).map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tui_line_splits_node_and_file() {
        assert_eq!(
            split_plan_file("n-3 --plan-file /tmp/p.md"),
            ("n-3".into(), Some("/tmp/p.md".into()))
        );
        assert_eq!(
            split_plan_file("n-3 --plan-file=p.md"),
            ("n-3".into(), Some("p.md".into()))
        );
        assert_eq!(split_plan_file("n-3"), ("n-3".into(), None));
        assert_eq!(split_plan_file("n-3 --plan-file"), ("n-3".into(), None));
    }

    #[test]
    fn plan_files_must_hold_text() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("p.md");
        std::fs::write(&p, "  \n").unwrap();
        let e = read_plan_file(&p).unwrap_err().to_string();
        assert!(e.contains("it is empty"), "{e}");
        std::fs::write(&p, [0xff, 0xfe]).unwrap();
        let e = read_plan_file(&p).unwrap_err().to_string();
        assert!(e.contains("not UTF-8"), "{e}");
        let e = read_plan_file(&dir.path().join("none.md"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot use the plan file"), "{e}");
        std::fs::write(&p, "# New plan\n").unwrap();
        assert_eq!(read_plan_file(&p).unwrap(), "# New plan\n");
    }
}
