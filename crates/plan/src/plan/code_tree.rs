//! Files in and out of a per-node repository as data. youra hashes each file itself
//! (`hash-object --no-filters`, the file opened by youra with no link followed, regular files
//! only) and builds trees from a list it made (`update-index --index-info` on a temporary
//! index, `write-tree`); it writes a commit's files itself from `cat-file blob` output into
//! files it created. git's checkout and add are never used: they apply the `filter.<x>.smudge`
//! and `clean` commands that a handed repository's config and a tree's `.gitattributes`
//! name. Paths are checked on the way out: no `..`, no `.git`, nothing through a link.

use std::collections::BTreeMap;
use std::io;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path};

use super::code_error::CodeError;
use super::git_run::{Input, Io, TempFile, git};
use super::object_id::ObjectId;

/// The most files one tree takes from a folder; more are left out and named.
pub const MAX_FILES: usize = 10_000;
/// The largest file (apparent size) a tree takes; a larger one is left out and named (a
/// sparse 8 GiB file costs nothing to write and a minute to hash).
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;
/// Folders of interpreter caches: never the node's code, never a violation.
pub(crate) const CACHES: [&str; 2] = ["__pycache__", ".pytest_cache"];

/// One file of a tree: its path (`/`-separated), mode (`100644`, `100755`) and blob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub path: String,
    pub mode: String,
    pub oid: ObjectId,
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> CodeError + '_ {
    move |source| CodeError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn bad_id(what: &str, git_dir: &Path) -> impl FnOnce(super::object_id::BadObjectId) -> CodeError {
    let what = what.to_string();
    let repo = git_dir.to_path_buf();
    move |e| CodeError::Git {
        what,
        repo,
        stderr: format!("git answered with {e}"),
    }
}

/// Whether git itself refuses `name` as a path component (or youra does): `.git` in any
/// case, with trailing dots or blanks, and its short name.
pub(crate) fn reserved(name: &str) -> bool {
    let n = name.trim_end_matches(['.', ' ']).to_ascii_lowercase();
    n == ".git" || n == "git~1" || name.is_empty() || name == "." || name == ".."
}

/// The blob id of `bytes`, written into the repository.
pub(crate) fn hash_bytes(git_dir: &Path, bytes: Vec<u8>) -> Result<ObjectId, CodeError> {
    let io = Io {
        stdin: Some(Input::Bytes(bytes)),
        ..Io::default()
    };
    let out = git(
        git_dir,
        &["hash-object", "-w", "--no-filters", "--stdin"],
        io,
    )?;
    ObjectId::from_output(&out).map_err(bad_id("hash-object", git_dir))
}

/// The blob id of the regular file at `path` (no link followed, no FIFO opened), written into
/// the repository when `write`.
pub(crate) fn hash_file(git_dir: &Path, path: &Path, write: bool) -> Result<ObjectId, CodeError> {
    let file = crate::fsutil::open_nofollow(path).map_err(io_err(path))?;
    let args: &[&str] = if write {
        &["hash-object", "-w", "--no-filters", "--stdin"]
    } else {
        &["hash-object", "--no-filters", "--stdin"]
    };
    let io = Io {
        stdin: Some(Input::File(file)),
        ..Io::default()
    };
    ObjectId::from_output(&git(git_dir, args, io)?).map_err(bad_id("hash-object", git_dir))
}

/// What a walk of a folder found: its files, and what it left out (each named and why).
#[derive(Debug, Default)]
pub struct Walked {
    /// Path under the folder (`/`-separated) → the file on disk and whether it is executable.
    pub files: BTreeMap<String, (std::path::PathBuf, bool)>,
    pub left_out: Vec<String>,
}

/// The regular files under `dir` (none when it is missing or not a real folder), links and
/// special files left out and named, interpreter caches skipped silently, `skip(rel)`
/// folders skipped silently. `shown` prefixes the names in `left_out` (`code/`).
pub fn walk(dir: &Path, shown: &str, skip: &dyn Fn(&str) -> bool) -> Walked {
    let mut w = Walked::default();
    if !std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
        return w;
    }
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    while let Some((d, rel)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            w.left_out.push(format!("{shown}{rel}: cannot be read"));
            continue;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = e.file_name();
            let Some(name) = name.to_str() else {
                w.left_out.push(format!(
                    "{shown}{rel}{}: a name that is not UTF-8",
                    name.to_string_lossy()
                ));
                continue;
            };
            let path = e.path();
            let sub = format!("{rel}{name}");
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            let kind = meta.file_type();
            if kind.is_dir() && CACHES.contains(&name) || skip(&sub) {
                continue;
            }
            if reserved(name) {
                w.left_out
                    .push(format!("{shown}{sub}: a nested git repository (`.git`)"));
            } else if kind.is_dir() {
                stack.push((path, format!("{sub}/")));
            } else if kind.is_file() && meta.len() > MAX_FILE_BYTES {
                w.left_out.push(format!(
                    "{shown}{sub}: larger than {MAX_FILE_BYTES} bytes ({} bytes apparent)",
                    meta.len()
                ));
            } else if kind.is_file() && w.files.len() >= MAX_FILES {
                w.left_out
                    .push(format!("{shown}{sub}: more than {MAX_FILES} files"));
            } else if kind.is_file() {
                let exec = meta.permissions().mode() & 0o111 != 0;
                w.files.insert(sub, (path, exec));
            } else {
                let what = if kind.is_symlink() {
                    "a symlink"
                } else {
                    "not a regular file (a FIFO, socket or device)"
                };
                w.left_out.push(format!("{shown}{sub}: {what}"));
            }
        }
    }
    w.left_out.sort();
    w
}

/// The walked files hashed into the repository, each path prefixed by `prefix` (`code/`).
pub(crate) fn hash_walked(
    git_dir: &Path,
    w: &Walked,
    prefix: &str,
) -> Result<Vec<Entry>, CodeError> {
    let mut out = Vec::with_capacity(w.files.len());
    for (rel, (path, exec)) in &w.files {
        out.push(Entry {
            path: format!("{prefix}{rel}"),
            mode: if *exec { "100755" } else { "100644" }.to_string(),
            oid: hash_file(git_dir, path, true)?,
        });
    }
    Ok(out)
}

/// The tree of `entries` (built on a temporary index; git is given the list, not a folder).
pub(crate) fn write_tree(
    git_dir: &Path,
    entries: &[Entry],
    tag: &str,
) -> Result<ObjectId, CodeError> {
    let index = TempFile(git_dir.join(format!("index.{tag}.{}", std::process::id())));
    let _ = std::fs::remove_file(&index.0);
    let mut list = Vec::new();
    for e in entries {
        list.extend_from_slice(format!("{} {}\t{}", e.mode, e.oid, e.path).as_bytes());
        list.push(0);
    }
    let io = |stdin| Io {
        index: Some(index.0.as_path()),
        stdin,
        ..Io::default()
    };
    git(
        git_dir,
        &["update-index", "--add", "-z", "--index-info"],
        io(Some(Input::Bytes(list))),
    )?;
    let out = git(git_dir, &["write-tree"], io(None))?;
    ObjectId::from_output(&out).map_err(bad_id("write-tree", git_dir))
}

/// The files of `treeish` (a commit or a tree): blobs only (a submodule entry is not a file).
pub fn list(git_dir: &Path, treeish: &ObjectId) -> Result<Vec<Entry>, CodeError> {
    let out = git(
        git_dir,
        &[
            "ls-tree",
            "-r",
            "-z",
            "--full-tree",
            "--end-of-options",
            treeish.as_str(),
        ],
        Io::default(),
    )?;
    let mut entries = Vec::new();
    for raw in out.split(|b| *b == 0).filter(|e| !e.is_empty()) {
        let raw = String::from_utf8_lossy(raw);
        let Some((meta, path)) = raw.split_once('\t') else {
            continue;
        };
        let mut parts = meta.split(' ');
        let (Some(mode), Some("blob"), Some(oid)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let oid = ObjectId::parse(oid).map_err(bad_id("ls-tree", git_dir))?;
        entries.push(Entry {
            path: path.to_string(),
            mode: mode.to_string(),
            oid,
        });
    }
    Ok(entries)
}

/// The bytes of blob `oid`.
pub fn blob(git_dir: &Path, oid: &ObjectId) -> Result<Vec<u8>, CodeError> {
    git(
        git_dir,
        &["cat-file", "blob", "--end-of-options", oid.as_str()],
        Io::default(),
    )
}

/// `path` as components youra will create under a folder: relative, no `..`, no `.git`.
fn safe_parts(path: &str) -> Option<Vec<&str>> {
    let parts: Vec<&str> = path.split('/').collect();
    let plain = Path::new(path)
        .components()
        .all(|c| matches!(c, Component::Normal(_)));
    (plain && !parts.iter().any(|p| reserved(p))).then_some(parts)
}

/// Write each entry (paths with `strip` taken off the front) under `dest`, which youra owns:
/// folders created with no link followed, files created new (never opened through a link or
/// over an existing file), their bytes from `cat-file blob`. A link entry becomes a text
/// file holding its target. Returns the entries refused (unsafe paths), named.
pub(crate) fn write_out(
    git_dir: &Path,
    entries: &[Entry],
    strip: &str,
    dest: &Path,
) -> Result<Vec<String>, CodeError> {
    let mut refused = Vec::new();
    for e in entries {
        let Some(rel) = e.path.strip_prefix(strip) else {
            continue;
        };
        let Some(parts) = safe_parts(rel) else {
            refused.push(format!("{}: not a safe relative path; not written", e.path));
            continue;
        };
        let (name, dirs) = parts.split_last().unwrap_or((&"", &[]));
        let dir = crate::fsutil::create_dirs_nofollow(dest, Path::new(&dirs.join("/")))
            .map_err(io_err(dest))?;
        let path = dir.join(name);
        let mode = if e.mode == "100755" { 0o755 } else { 0o644 };
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .map_err(io_err(&path))?;
        let io = Io {
            stdout: Some(file),
            ..Io::default()
        };
        git(
            git_dir,
            &["cat-file", "blob", "--end-of-options", e.oid.as_str()],
            io,
        )?;
    }
    Ok(refused)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_git_refuses_and_paths_that_leave_the_folder_are_refused() {
        for name in [
            ".git", ".GIT", ".git.", ".git ", "git~1", "GIT~1", "", ".", "..",
        ] {
            assert!(reserved(name), "{name:?}");
        }
        for name in ["git", ".gitignore", ".gitattributes", "a.git", "x"] {
            assert!(!reserved(name), "{name:?}");
        }
        assert_eq!(safe_parts("code/a/b.py"), Some(vec!["code", "a", "b.py"]));
        for path in [
            "../x",
            "code/../../x",
            "/etc/passwd",
            "code/.git/hooks/x",
            "a//b",
            "./a",
        ] {
            assert_eq!(safe_parts(path), None, "{path:?}");
        }
    }

    #[test]
    fn a_folder_round_trips_as_data_and_no_entry_is_an_empty_tree() {
        let tmp = tempfile::tempdir().unwrap();
        let git_dir = tmp.path().join("r.git");
        std::fs::create_dir_all(&git_dir).unwrap();
        super::super::git_run::init(&git_dir).unwrap();
        let empty = write_tree(&git_dir, &[], "t").unwrap();
        assert_eq!(empty.as_str(), super::super::git_run::EMPTY_TREE);
        let src = tmp.path().join("src");
        std::fs::create_dir_all(src.join("sub")).unwrap();
        std::fs::write(src.join("a.txt"), "a\r\n").unwrap();
        std::fs::write(src.join("sub/b.sh"), "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(src.join("sub/b.sh"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        std::os::unix::fs::symlink("/etc/passwd", src.join("link")).unwrap();
        let sparse = std::fs::File::create(src.join("sparse.bin")).unwrap();
        sparse.set_len(8 << 30).unwrap();
        let walked = walk(&src, "src/", &|_| false);
        assert_eq!(
            walked.left_out,
            [
                "src/link: a symlink".to_string(),
                format!(
                    "src/sparse.bin: larger than {MAX_FILE_BYTES} bytes (8589934592 bytes apparent)"
                )
            ]
        );
        let entries = hash_walked(&git_dir, &walked, "p/").unwrap();
        let tree = write_tree(&git_dir, &entries, "t").unwrap();
        let listed = list(&git_dir, &tree).unwrap();
        assert_eq!(listed, entries);
        let out = tmp.path().join("out");
        std::fs::create_dir_all(&out).unwrap();
        assert!(write_out(&git_dir, &listed, "p/", &out).unwrap().is_empty());
        assert_eq!(std::fs::read(out.join("a.txt")).unwrap(), b"a\r\n");
        let mode = std::fs::metadata(out.join("sub/b.sh"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o111, 0o111, "executable kept");
        assert!(
            write_out(&git_dir, &listed, "p/", &out).is_err(),
            "never over an existing file"
        );
    }
}
