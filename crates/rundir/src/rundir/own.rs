//! youra's own copies of the files it writes into a sub-hypothesis's workspace (the brief,
//! the tasks, the validation report): `<run>/.youra/own/<h>/<file>`, outside every sandbox.
//! The workspace is mounted writable for the experiment, which can replace
//! `<h>/02c_experiment_brief.md` with a link to `/proc/self/environ` or rewrite it with
//! instructions for the next model call; youra's later stages read its own copy instead.
//! A file youra never copied (a run made before this) is read from the workspace following
//! no link on any component (`fsutil::read_beneath`).

use std::io;
use std::path::{Component, Path, PathBuf};

/// Under the run.
pub(crate) const OWN_DIR: &str = ".youra/own";

/// The most bytes read of a workspace file youra wrote (briefs and task lists are small).
const MAX_BYTES: u64 = 8 * 1024 * 1024;

/// Whether `rel` (relative to the run) lies in a sub-hypothesis's workspace: at least two
/// components, the first a plain folder name (not `.youra`, not `..`).
pub(crate) fn in_workspace(rel: &Path) -> bool {
    let mut parts = rel.components();
    matches!(
        (parts.next(), parts.next()),
        (Some(Component::Normal(first)), Some(Component::Normal(_)))
            if !first.to_string_lossy().starts_with('.')
    )
}

/// Where youra keeps its copy of `rel`.
pub(crate) fn copy_path(run: &Path, rel: &Path) -> PathBuf {
    run.join(OWN_DIR).join(rel)
}

/// Keep youra's copy of the workspace file `rel` it just wrote (no-op outside workspaces).
pub fn keep(run: &Path, rel: &Path, bytes: &[u8]) -> io::Result<()> {
    if !in_workspace(rel) {
        return Ok(());
    }
    let copy = copy_path(run, rel);
    let dir = crate::fsutil::parent(&copy);
    let rel_dir = dir.strip_prefix(run).unwrap_or(dir);
    crate::fsutil::create_dirs_nofollow(run, rel_dir)?;
    crate::fsutil::write_atomic(&copy, bytes)
}

/// The text of `rel` youra wrote: its own copy when it kept one, else the workspace file
/// read following no link (a link planted there is an error naming it).
pub fn read(run: &Path, rel: &Path) -> io::Result<String> {
    let bytes = if in_workspace(rel) && copy_path(run, rel).is_file() {
        crate::fsutil::read_beneath(&run.join(OWN_DIR), rel, MAX_BYTES)?
    } else {
        crate::fsutil::read_beneath(run, rel, MAX_BYTES)?
    };
    String::from_utf8(bytes).map_err(io::Error::other)
}

/// Put youra's files back in workspace `h` where the experiment replaced one with a link
/// (or removed it): the link goes (never its target) and youra's copy is written in its
/// place, so the next attempt starts from the inputs youra wrote instead of failing on the
/// same planted link forever. A plain file that differs is left alone (a researcher's edit
/// looks the same; youra reads its own copy either way). Returns the files put back.
pub fn restore(run: &Path, h: &str) -> io::Result<Vec<PathBuf>> {
    let own = run.join(OWN_DIR).join(h);
    let mut restored = Vec::new();
    for e in std::fs::read_dir(&own).into_iter().flatten().flatten() {
        if !e.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let there = run.join(h).join(e.file_name());
        match std::fs::symlink_metadata(&there) {
            Ok(m) if m.is_file() => continue,
            Ok(m) if m.is_dir() => continue,
            Ok(_) => std::fs::remove_file(&there)?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        crate::fsutil::write_atomic(&there, &crate::fsutil::read_run_file(e.path())?)?;
        restored.push(there);
    }
    restored.sort();
    Ok(restored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_brief_is_read_from_youras_copy_never_through_a_planted_link() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let run = dir.path();
        let rel = Path::new("h-e1/02c_experiment_brief.md");
        std::fs::create_dir_all(run.join("h-e1"))?;
        std::fs::write(run.join(rel), "the brief")?;
        keep(run, rel, b"the brief")?;
        // The experiment swaps the brief for a link to youra's environment.
        std::fs::remove_file(run.join(rel))?;
        std::os::unix::fs::symlink("/proc/self/environ", run.join(rel))?;
        assert_eq!(read(run, rel)?, "the brief");
        // Without a copy (an older run), the link is refused, not followed.
        std::fs::remove_file(copy_path(run, rel))?;
        let e = read(run, rel).unwrap_err();
        assert!(crate::fsutil::planted_link(&e).is_some(), "{e}");
        // The next attempt gets youra's brief back in place of the link.
        keep(run, rel, b"the brief")?;
        assert_eq!(restore(run, "h-e1")?, vec![run.join(rel)]);
        assert_eq!(std::fs::read_to_string(run.join(rel))?, "the brief");
        assert!(restore(run, "h-e1")?.is_empty(), "nothing left to restore");
        // Run-level files are not workspace files and keep no copy.
        assert!(!in_workspace(Path::new("00_scoping.md")));
        assert!(!in_workspace(Path::new(".youra/x/y")));
        keep(run, Path::new("00_scoping.md"), b"x")?;
        assert!(!copy_path(run, Path::new("00_scoping.md")).exists());
        Ok(())
    }
}
