//! Path confinement for files that generated code asks the executor role to write: a requested
//! relative path must stay inside its root, lexically (`..`) and through symlinks that already
//! exist. This guards youra's own writes (the LLM names the path); a running experiment is
//! confined by the sandbox instead. [`write_confined`] goes further: it follows no link at
//! all, opening each component with `O_NOFOLLOW` from the one before (no check-then-write
//! race), because the folder it writes into is one the experiment could write too.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Why a requested path was refused. Every variant names the path as asked for.
#[derive(Debug, thiserror::Error)]
pub enum PathError {
    #[error("refused path {requested:?}: it is empty; name a file relative to {root}")]
    Empty { requested: String, root: PathBuf },
    #[error(
        "refused path {requested:?}: absolute paths are not allowed; use a path relative to {root}"
    )]
    Absolute { requested: String, root: PathBuf },
    #[error("refused path {requested:?}: its `..` components leave {root}")]
    Escapes { requested: String, root: PathBuf },
    #[error(
        "refused path {requested:?}: {link} is a symlink to {target}, outside {root}; remove the link or write elsewhere"
    )]
    SymlinkEscape {
        requested: String,
        root: PathBuf,
        link: PathBuf,
        target: PathBuf,
    },
    #[error("refused path {requested:?}: {link} is a symlink whose target cannot be resolved")]
    DanglingSymlink {
        requested: String,
        root: PathBuf,
        link: PathBuf,
    },
    #[error(
        "refused path {requested:?}: {link} is a symbolic link; youra writes into a workspace only through real folders (was it planted by the experiment?)"
    )]
    Link { requested: String, link: PathBuf },
    #[error("cannot check path {requested:?} under {root}: {source}")]
    Io {
        requested: String,
        root: PathBuf,
        source: io::Error,
    },
}

/// The absolute path `requested` names under `root`, or why it may not be written.
/// `root` must exist; the returned path starts with `root`'s canonical form.
pub fn confine(root: &Path, requested: &str) -> Result<PathBuf, PathError> {
    let err_io = |source| PathError::Io {
        requested: requested.to_string(),
        root: root.to_path_buf(),
        source,
    };
    let parts = lexical_parts(root, requested)?;
    let canon_root = root.canonicalize().map_err(err_io)?;
    let mut current = canon_root.clone();
    for part in &parts {
        current.push(part);
        let meta = match fs::symlink_metadata(&current) {
            Ok(meta) => meta,
            // Nothing exists from here down, so nothing below can be a link.
            Err(e) if e.kind() == io::ErrorKind::NotFound => break,
            Err(e) => return Err(err_io(e)),
        };
        if meta.file_type().is_symlink() {
            check_link(&current, &canon_root, requested, root)?;
        }
    }
    Ok(canon_root.join(parts.iter().collect::<PathBuf>()))
}

/// The normal components of `requested` after resolving `.` and `..` without leaving root.
fn lexical_parts(root: &Path, requested: &str) -> Result<Vec<PathBuf>, PathError> {
    let refuse = |make: fn(String, PathBuf) -> PathError| make(requested.to_string(), root.into());
    if requested.trim().is_empty() {
        return Err(refuse(|requested, root| PathError::Empty {
            requested,
            root,
        }));
    }
    let mut parts: Vec<PathBuf> = Vec::new();
    for component in Path::new(requested).components() {
        match component {
            Component::Normal(name) => parts.push(PathBuf::from(name)),
            Component::CurDir => {}
            Component::ParentDir => {
                if parts.pop().is_none() {
                    return Err(refuse(|requested, root| PathError::Escapes {
                        requested,
                        root,
                    }));
                }
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(refuse(|requested, root| PathError::Absolute {
                    requested,
                    root,
                }));
            }
        }
    }
    if parts.is_empty() {
        return Err(refuse(|requested, root| PathError::Empty {
            requested,
            root,
        }));
    }
    Ok(parts)
}

/// A symlink inside root is allowed only when what it points to is inside root too.
fn check_link(
    link: &Path,
    canon_root: &Path,
    requested: &str,
    root: &Path,
) -> Result<(), PathError> {
    match link.canonicalize() {
        Ok(target) if target.starts_with(canon_root) => Ok(()),
        Ok(target) => Err(PathError::SymlinkEscape {
            requested: requested.to_string(),
            root: root.to_path_buf(),
            link: link.to_path_buf(),
            target,
        }),
        // Writing through a dangling link would create its target, wherever that is.
        Err(_) => Err(PathError::DanglingSymlink {
            requested: requested.to_string(),
            root: root.to_path_buf(),
            link: link.to_path_buf(),
        }),
    }
}

/// Writes `contents` to `requested` under `root`, creating parent folders. The path must
/// pass [`confine`]'s lexical rules; then every component from `root`'s own name down is
/// opened with `openat(O_NOFOLLOW)` (`fsutil::write_beneath`), so no link is followed at
/// all, even one pointing inside: experiment code can replace `code/` (or any folder in it)
/// with a link between two attempts, and youra writes the next attempt's files outside
/// the sandbox. Only `root`'s parent is trusted as given. Returns the path written.
pub fn write_confined(root: &Path, requested: &str, contents: &[u8]) -> Result<PathBuf, PathError> {
    let parts = lexical_parts(root, requested)?;
    let (base, name) = match (root.parent(), root.file_name()) {
        (Some(base), Some(name)) => (base, PathBuf::from(name)),
        _ => (root, PathBuf::new()),
    };
    let rel: PathBuf = std::iter::once(name).chain(parts).collect();
    crate::fsutil::write_beneath(base, &rel, contents).map_err(|e| {
        match crate::fsutil::planted_link(&e) {
            Some(planted) => PathError::Link {
                requested: requested.to_string(),
                link: planted.link.clone(),
            },
            None => PathError::Io {
                requested: requested.to_string(),
                root: root.to_path_buf(),
                source: e,
            },
        }
    })?;
    Ok(base.join(rel))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_rules() {
        let root = Path::new("/r");
        let ok = |s: &str| lexical_parts(root, s).map(|p| p.iter().collect::<PathBuf>());
        assert_eq!(ok("a/b.py").ok(), Some(PathBuf::from("a/b.py")));
        assert_eq!(ok("./a/../b.py").ok(), Some(PathBuf::from("b.py")));
        assert!(matches!(ok("/etc/passwd"), Err(PathError::Absolute { .. })));
        assert!(matches!(ok("a/../../x"), Err(PathError::Escapes { .. })));
        assert!(matches!(ok(""), Err(PathError::Empty { .. })));
        assert!(matches!(ok("a/.."), Err(PathError::Empty { .. })));
    }
}
