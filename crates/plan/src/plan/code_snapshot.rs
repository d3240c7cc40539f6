//! What ran is what is recorded: the workspace's `code/` as youra (or the coding agent)
//! wrote it, taken before anything runs it, and held by youra outside the sandbox's reach.
//! After the job every file the experiment added to, changed in or removed from `code/` is a
//! sandbox violation naming it, and `code/` is put back as taken, so the next attempt, the
//! node's commit (`node_code::Repo::commit_node` records the snapshot, not the folder) and
//! every child (which starts from the commit) hold only what youra wrote. Before this, an
//! experiment that left `code/statistics.py` after an honest run had it committed as the
//! node's code, and every child imported it in place of the standard library's.
//!
//! A nested `.git` anywhere under `results/` is removed and named too: youra records no
//! repository inside a node (git refuses one, and the run used to end there).

use std::collections::BTreeMap;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use super::code_error::{CODE_DIR, RESULTS_DIR};
use super::code_tree::{self, reserved};

/// The most bytes `code/` may hold when it is taken (code, not data: `data/` is bound
/// read-only for that).
pub const MAX_CODE_BYTES: u64 = 64 * 1024 * 1024;

/// `code/`'s files as youra wrote them: path under `code/` → (bytes, executable).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodeSnapshot {
    files: BTreeMap<String, (Vec<u8>, bool)>,
}

impl CodeSnapshot {
    /// `workspace/code/` now (empty when there is none), every file read with no link
    /// followed and no FIFO opened. `Err` says why it cannot be taken (too large, unreadable):
    /// the attempt is repaired rather than run unrecorded.
    pub fn take(workspace: &Path) -> Result<CodeSnapshot, String> {
        let code = workspace.join(CODE_DIR);
        let walked = code_tree::walk(&code, "code/", &|_| false);
        let mut files = BTreeMap::new();
        let mut total = 0u64;
        for (rel, (path, exec)) in walked.files {
            let left = MAX_CODE_BYTES.saturating_sub(total);
            let bytes = crate::fsutil::read_capped(&path, left).map_err(|e| {
                format!("youra cannot take code/{rel} as the node's code ({e}); code/ holds at most {MAX_CODE_BYTES} bytes of code: keep data under data/")
            })?;
            total += bytes.len() as u64;
            files.insert(rel, (bytes, exec));
        }
        Ok(CodeSnapshot { files })
    }

    /// Path under `code/`, bytes and whether it is executable, in path order.
    pub fn files(&self) -> impl Iterator<Item = (&str, &[u8], bool)> {
        self.files
            .iter()
            .map(|(p, (b, x))| (p.as_str(), b.as_slice(), *x))
    }

    /// After a job in `workspace`: what the experiment did to `code/` (each a violation
    /// naming the file) and every nested `.git` under `results/` (removed); `code/` is put
    /// back as taken whenever it differs. Interpreter caches (`__pycache__`) are no change.
    pub fn after_run(&self, workspace: &Path) -> io::Result<Vec<String>> {
        let code = workspace.join(CODE_DIR);
        let mut violations = Vec::new();
        if std::fs::symlink_metadata(&code).is_ok_and(|m| !m.is_dir()) {
            violations.push("code/: replaced by the experiment (a link or a file)".to_string());
        }
        let now = code_tree::walk(&code, "code/", &|_| false);
        for v in &now.left_out {
            violations.push(format!("{v}, left in code/ by the experiment (removed)"));
        }
        let kept =
            "(left out of the node's commit and of its children; code/ put back as youra wrote it)";
        for (rel, (path, exec)) in &now.files {
            let why = match self.files.get(rel) {
                None => "added by the experiment after youra wrote the code",
                Some((bytes, x)) => match same(path, bytes) {
                    true if x == exec => continue,
                    true => "its mode changed by the experiment",
                    false => "changed by the experiment after youra wrote it",
                },
            };
            violations.push(format!("code/{rel}: {why} {kept}"));
        }
        for rel in self.files.keys().filter(|k| !now.files.contains_key(*k)) {
            violations.push(format!("code/{rel}: removed by the experiment {kept}"));
        }
        if !violations.is_empty() {
            self.restore(&code)?;
        }
        violations.extend(remove_nested_git(&workspace.join(RESULTS_DIR))?);
        Ok(violations)
    }

    /// `code` emptied and written again from the snapshot (files created new, no link
    /// followed).
    fn restore(&self, code: &Path) -> io::Result<()> {
        clear(code)?;
        std::fs::create_dir_all(code)?;
        for (rel, (bytes, exec)) in &self.files {
            let (dirs, name) = rel.rsplit_once('/').unwrap_or(("", rel));
            let dir = crate::fsutil::create_dirs_nofollow(code, Path::new(dirs))?;
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(if *exec { 0o755 } else { 0o644 })
                .custom_flags(libc::O_NOFOLLOW)
                .open(dir.join(name))?;
            io::Write::write_all(&mut f, bytes)?;
        }
        Ok(())
    }
}

/// Whether the file at `path` holds exactly `bytes` (read with no link followed; a file that
/// cannot be read so differs).
fn same(path: &Path, bytes: &[u8]) -> bool {
    crate::fsutil::read_capped(path, bytes.len() as u64).is_ok_and(|b| b == bytes)
}

/// Every `.git` under `dir` (any depth, any case) removed, each named.
fn remove_nested_git(dir: &Path) -> io::Result<Vec<String>> {
    let mut out = Vec::new();
    if !std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
        return Ok(out);
    }
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)?.filter_map(Result::ok) {
            let path = e.path();
            let name = e.file_name();
            if reserved(&name.to_string_lossy()) {
                clear(&path)?;
                let rel = path
                    .strip_prefix(dir)
                    .unwrap_or(&path)
                    .display()
                    .to_string();
                out.push(format!(
                    "results/{rel}: a nested git repository left by the experiment (removed; youra records no repository inside a node)"
                ));
            } else if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Remove `path` (a file, a link, or a folder with everything in it; never a link's target).
fn clear(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(p: &Path, text: &str) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn a_planted_module_a_rewritten_script_and_a_nested_git_are_named_and_undone() {
        let ws = tempfile::tempdir().unwrap();
        let w = ws.path();
        write(&w.join("code/centroid.py"), "print('honest')\n");
        write(&w.join("code/lib/util.py"), "X = 1\n");
        let snap = CodeSnapshot::take(w).unwrap();
        assert_eq!(
            snap.after_run(w).unwrap(),
            Vec::<String>::new(),
            "no change"
        );
        // The experiment's doing.
        write(&w.join("code/statistics.py"), "def mean(x): return 0.99\n");
        write(&w.join("code/centroid.py"), "print('forged')\n");
        std::fs::remove_file(w.join("code/lib/util.py")).unwrap();
        write(&w.join("code/.git/HEAD"), "ref: refs/heads/main\n");
        write(&w.join("code/__pycache__/x.pyc"), "cache");
        std::os::unix::fs::symlink("/etc/passwd", w.join("code/link")).unwrap();
        write(&w.join("results/deep/.GIT/config"), "[core]\n");
        write(&w.join("results/experiment_results.json"), "{}");
        let v = snap.after_run(w).unwrap();
        let named = |s: &str| v.iter().any(|x| x.starts_with(s));
        assert!(named("code/statistics.py: added"), "{v:?}");
        assert!(named("code/centroid.py: changed"), "{v:?}");
        assert!(named("code/lib/util.py: removed"), "{v:?}");
        assert!(named("code/.git: a nested git repository"), "{v:?}");
        assert!(named("code/link: a symlink"), "{v:?}");
        assert!(named("results/deep/.GIT: a nested git repository"), "{v:?}");
        assert_eq!(v.len(), 6, "the cache is no change: {v:?}");
        // Put back exactly.
        assert_eq!(CodeSnapshot::take(w).unwrap(), snap);
        assert!(!w.join("code/statistics.py").exists());
        assert!(std::fs::symlink_metadata(w.join("code/link")).is_err());
        assert!(!w.join("results/deep/.GIT").exists());
        assert!(w.join("results/experiment_results.json").exists());
    }

    #[test]
    fn a_code_folder_replaced_by_a_link_is_named_and_rebuilt() {
        let ws = tempfile::tempdir().unwrap();
        let w = ws.path();
        write(&w.join("code/a.py"), "a\n");
        let snap = CodeSnapshot::take(w).unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        write(&elsewhere.path().join("a.py"), "other\n");
        std::fs::remove_dir_all(w.join("code")).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), w.join("code")).unwrap();
        let v = snap.after_run(w).unwrap();
        assert!(v[0].starts_with("code/: replaced"), "{v:?}");
        assert_eq!(std::fs::read_to_string(w.join("code/a.py")).unwrap(), "a\n");
        assert_eq!(
            std::fs::read_to_string(elsewhere.path().join("a.py")).unwrap(),
            "other\n",
            "the link's target untouched"
        );
    }
}
