//! What an external coding agent may change: only `<h>/code/`. The sandbox makes the whole
//! sub-hypothesis folder writable (the executor's log and scratch space live there), so the
//! rest of the folder is fingerprinted before the agent runs and compared after; symlinks
//! the agent leaves in `code/` must resolve inside `code/`.
//!
//! Exempt, because youra's executor writes them itself: `results/run.log`,
//! `results/*.prev` (a previous run's files moved aside), the disappearance of
//! `results/metrics.jsonl` and `results/experiment_results.json` (moved aside), and
//! `tmp/` (the job's TMPDIR, scratch by definition).

use std::collections::BTreeMap;
use std::fs;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use super::job::{LOG_FILE, METRICS_FILE, RESULTS_DIR, RESULTS_FILE};

/// Files up to this size are compared by content; larger ones by size and mtime (a data
/// set the agent should not touch anyway; hashing gigabytes after every run costs minutes).
const HASH_LIMIT: u64 = 4 << 20;

/// One file's state, enough to tell that it changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fingerprint {
    File {
        len: u64,
        digest: u64,
    },
    Link(PathBuf),
    Dir,
    /// Not a file, folder or link (never opened).
    Special,
}

/// Every entry of the folder outside `code/` and `tmp/`, by path relative to it.
pub(crate) type Snapshot = BTreeMap<PathBuf, Fingerprint>;

/// What the agent did outside its folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Violation {
    /// A file or folder outside `code/` that did not exist before (it has been removed).
    Created(PathBuf),
    /// A file outside `code/` whose content changed.
    Modified(PathBuf),
    /// A file outside `code/` that is gone.
    Removed(PathBuf),
    /// A symlink in `code/` pointing outside it, or nowhere (it has been removed).
    EscapingLink { link: PathBuf, target: PathBuf },
    /// What the walk after every job found (a set-id file, a file capability, a FIFO, a
    /// huge file: `scan.rs`), as it names it.
    Sandbox(String),
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Violation::Created(p) => write!(f, "created {} (removed)", p.display()),
            Violation::Modified(p) => write!(f, "modified {}", p.display()),
            Violation::Removed(p) => write!(f, "removed {}", p.display()),
            Violation::EscapingLink { link, target } => write!(
                f,
                "symlink {} -> {} leaves code/ (removed)",
                link.display(),
                target.display()
            ),
            Violation::Sandbox(what) => f.write_str(what),
        }
    }
}

pub(crate) fn snapshot(workspace: &Path) -> std::io::Result<Snapshot> {
    let mut out = Snapshot::new();
    walk(workspace, Path::new(""), &mut out)?;
    Ok(out)
}

fn walk(root: &Path, rel: &Path, out: &mut Snapshot) -> std::io::Result<()> {
    for entry in fs::read_dir(root.join(rel))? {
        let entry = entry?;
        let path = rel.join(entry.file_name());
        if path == Path::new("code") || path == Path::new("tmp") {
            continue;
        }
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            out.insert(path, Fingerprint::Link(fs::read_link(entry.path())?));
        } else if kind.is_dir() {
            out.insert(path.clone(), Fingerprint::Dir);
            walk(root, &path, out)?;
        } else if kind.is_file() {
            out.insert(path, fingerprint(&entry.path())?);
        } else {
            // A FIFO, socket or device is never opened (a FIFO would block the read).
            out.insert(path, Fingerprint::Special);
        }
    }
    Ok(())
}

fn fingerprint(path: &Path) -> std::io::Result<Fingerprint> {
    let meta = fs::symlink_metadata(path)?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    if meta.len() <= HASH_LIMIT {
        crate::fsutil::read_capped(path, HASH_LIMIT)?.hash(&mut h);
    } else {
        meta.modified()?.hash(&mut h);
    }
    Ok(Fingerprint::File {
        len: meta.len(),
        digest: h.finish(),
    })
}

/// Whether youra's own executor may have made this change (see the module comment).
fn exempt(path: &Path, removed: bool) -> bool {
    let Ok(rest) = path.strip_prefix(RESULTS_DIR) else {
        return false;
    };
    let name = rest.to_string_lossy();
    name == LOG_FILE
        || name.ends_with(".prev")
        || rest.starts_with(super::attempts::ATTEMPTS_DIR)
        || (removed && (name == METRICS_FILE || name == RESULTS_FILE))
}

/// Compare, and remove what the agent created outside `code/` (so nothing it wrote there,
/// an `experiment_results.json` above all, can be mistaken for youra's measurement).
pub(crate) fn compare(workspace: &Path, before: &Snapshot, after: &Snapshot) -> Vec<Violation> {
    let mut out = Vec::new();
    for (path, now) in after {
        match before.get(path) {
            None if !exempt(path, false) => {
                // A created folder's files are reported one by one; removing it removes them.
                if !matches!(now, Fingerprint::Dir) {
                    out.push(Violation::Created(path.clone()));
                }
                remove(&workspace.join(path));
            }
            Some(was) if was != now && !exempt(path, false) => {
                out.push(Violation::Modified(path.clone()))
            }
            _ => {}
        }
    }
    for path in before.keys() {
        if !after.contains_key(path) && !exempt(path, true) {
            out.push(Violation::Removed(path.clone()));
        }
    }
    out
}

fn remove(path: &Path) {
    let is_dir = fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
    let _ = if is_dir {
        fs::remove_dir_all(path)
    } else {
        fs::remove_file(path)
    };
}

/// Symlinks in `code/` that resolve outside it (or nowhere); each is removed.
pub(crate) fn escaping_links(code: &Path) -> Vec<Violation> {
    let mut out = Vec::new();
    let Ok(root) = code.canonicalize() else {
        return out;
    };
    links(&root, &root, &mut out);
    out
}

fn links(root: &Path, dir: &Path, out: &mut Vec<Violation>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            let inside = path.canonicalize().is_ok_and(|t| t.starts_with(root));
            if !inside {
                let target = fs::read_link(&path).unwrap_or_default();
                let link = path.strip_prefix(root).unwrap_or(&path);
                out.push(Violation::EscapingLink {
                    link: Path::new("code").join(link),
                    target,
                });
                let _ = fs::remove_file(&path);
            }
        } else if kind.is_dir() {
            links(root, &path, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_outside_code_are_found_and_created_files_removed() {
        let ws = tempfile::tempdir().unwrap();
        let w = ws.path();
        fs::create_dir_all(w.join("code")).unwrap();
        fs::create_dir_all(w.join("results")).unwrap();
        fs::write(w.join("plan.md"), "plan").unwrap();
        fs::write(w.join("results/metrics.jsonl"), "{}").unwrap();
        let before = snapshot(w).unwrap();
        fs::write(w.join("code/main.py"), "print(1)").unwrap();
        fs::write(w.join("plan.md"), "mine now").unwrap();
        fs::write(w.join("results/experiment_results.json"), "{}").unwrap();
        fs::write(w.join("results/run.log"), "log").unwrap();
        fs::rename(
            w.join("results/metrics.jsonl"),
            w.join("results/metrics.jsonl.prev"),
        )
        .unwrap();
        fs::create_dir_all(w.join("tmp")).unwrap();
        fs::write(w.join("tmp/scratch"), "x").unwrap();
        let after = snapshot(w).unwrap();
        let v = compare(w, &before, &after);
        assert_eq!(
            v,
            vec![
                Violation::Modified("plan.md".into()),
                Violation::Created("results/experiment_results.json".into()),
            ]
        );
        assert!(!w.join("results/experiment_results.json").exists());
        assert!(w.join("code/main.py").exists());
    }

    #[test]
    fn a_fifo_outside_code_is_fingerprinted_without_being_opened() {
        let ws = tempfile::tempdir().unwrap();
        let fifo = ws.path().join("results/metrics.jsonl");
        fs::create_dir_all(ws.path().join("results")).unwrap();
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let (tx, rx) = std::sync::mpsc::channel();
        let w = ws.path().to_path_buf();
        std::thread::spawn(move || tx.send(snapshot(&w).map_err(|e| e.to_string())));
        let snap = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("the snapshot blocked on a FIFO")
            .unwrap();
        assert_eq!(
            snap.get(Path::new("results/metrics.jsonl")),
            Some(&Fingerprint::Special)
        );
    }

    #[test]
    fn links_leaving_code_are_removed() {
        let ws = tempfile::tempdir().unwrap();
        let code = ws.path().join("code");
        fs::create_dir_all(code.join("sub")).unwrap();
        fs::write(code.join("a.py"), "").unwrap();
        std::os::unix::fs::symlink("../a.py", code.join("sub/ok")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", code.join("sub/bad")).unwrap();
        let v = escaping_links(&code);
        assert_eq!(v.len(), 1, "{v:?}");
        assert!(
            v[0].to_string().contains("code/sub/bad -> /etc/passwd"),
            "{}",
            v[0]
        );
        assert!(code.join("sub/ok").exists());
        assert!(fs::symlink_metadata(code.join("sub/bad")).is_err());
    }
}
