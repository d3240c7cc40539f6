//! The audited folder, read safely: only inside it, no link followed (a link is listed as
//! skipped, and every file is opened with `fsutil::open_beneath`, which refuses a link on
//! any component), regular files only, each capped, binaries skipped, at most
//! [`Limits::max_depth`] folders deep and [`Limits::max_entries`] entries in all.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::audit::ctx::TextFile;
use crate::audit::verdict::Skipped;
use crate::fsutil::{Beneath, open_beneath};

#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_depth: usize,
    pub max_entries: usize,
    /// A Python file larger than this is skipped (generated code, or an attack).
    pub code_cap: u64,
    /// A notebook, a result file or a log: at most this much is read.
    pub text_cap: u64,
    /// All bytes read together.
    pub total_cap: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_depth: 24,
            max_entries: 20_000,
            code_cap: 2 << 20,
            text_cap: 8 << 20,
            total_cap: 256 << 20,
        }
    }
}

#[derive(Debug, Default)]
pub struct Found {
    pub code: Vec<TextFile>,
    pub notebooks: Vec<TextFile>,
    pub results: Vec<TextFile>,
    pub logs: Vec<TextFile>,
    pub data_files: Vec<String>,
    pub skipped: Vec<Skipped>,
}

const SKIP_DIRS: [&str; 9] = [
    ".git",
    "__pycache__",
    "node_modules",
    ".venv",
    "venv",
    "site-packages",
    ".ipynb_checkpoints",
    ".tox",
    ".mypy_cache",
];

enum Kind {
    Code,
    Notebook,
    Result,
    Log,
    Data,
    Other,
}

fn kind(name: &str) -> Kind {
    let ext = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "py" => Kind::Code,
        "ipynb" => Kind::Notebook,
        "json" | "jsonl" => Kind::Result,
        "log" | "out" | "err" | "txt" => Kind::Log,
        "csv" | "tsv" | "parquet" | "npy" | "npz" | "pt" | "pth" | "pkl" | "h5" | "hdf5"
        | "arrow" | "feather" | "zip" | "gz" | "tar" | "png" | "jpg" | "jpeg" | "wav" => Kind::Data,
        _ => Kind::Other,
    }
}

fn rel_text(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Walk `root` and read what the audit needs.
pub fn walk(root: &Path, limits: Limits) -> std::io::Result<Found> {
    let mut found = Found::default();
    let mut stack: Vec<(PathBuf, usize)> = vec![(PathBuf::new(), 0)];
    let (mut entries, mut total) = (0usize, 0u64);
    std::fs::read_dir(root)?;
    while let Some((dir, depth)) = stack.pop() {
        let Ok(list) = std::fs::read_dir(root.join(&dir)) else {
            found.skipped.push(Skipped {
                path: rel_text(&dir),
                why: "a folder that cannot be listed".into(),
            });
            continue;
        };
        let mut list: Vec<_> = list.filter_map(Result::ok).collect();
        list.sort_by_key(|e| e.file_name());
        for entry in list {
            entries += 1;
            let rel = dir.join(entry.file_name());
            let shown = rel_text(&rel);
            if entries > limits.max_entries {
                found.skipped.push(Skipped {
                    path: shown,
                    why: format!(
                        "more than {} entries; the rest is not read",
                        limits.max_entries
                    ),
                });
                return Ok(found);
            }
            // The entry's own type (lstat): a link is never followed.
            let Ok(ft) = entry.file_type() else { continue };
            let name = entry.file_name().to_string_lossy().to_string();
            if ft.is_symlink() {
                found.skipped.push(Skipped {
                    path: shown,
                    why: "a symbolic link: not followed".into(),
                });
                continue;
            }
            if ft.is_dir() {
                if SKIP_DIRS.contains(&name.as_str()) {
                    continue;
                }
                if depth + 1 > limits.max_depth {
                    found.skipped.push(Skipped {
                        path: shown,
                        why: format!("deeper than {} folders", limits.max_depth),
                    });
                } else {
                    stack.push((rel, depth + 1));
                }
                continue;
            }
            if !ft.is_file() {
                found.skipped.push(Skipped {
                    path: shown,
                    why: "not a regular file".into(),
                });
                continue;
            }
            let size = entry.metadata().map(|m| m.len()).unwrap_or(u64::MAX);
            let k = kind(&name);
            let cap = match k {
                Kind::Code => limits.code_cap,
                Kind::Notebook | Kind::Result | Kind::Log => limits.text_cap,
                Kind::Data => {
                    found.data_files.push(shown);
                    continue;
                }
                Kind::Other => continue,
            };
            if size > cap && !matches!(k, Kind::Log) {
                found.skipped.push(Skipped {
                    path: shown.clone(),
                    why: format!("{size} bytes, over the {cap}-byte cap: not read"),
                });
                if matches!(k, Kind::Result) {
                    found.data_files.push(shown);
                }
                continue;
            }
            if total >= limits.total_cap {
                found.skipped.push(Skipped {
                    path: shown,
                    why: format!(
                        "{} bytes read in all: the rest is not read",
                        limits.total_cap
                    ),
                });
                continue;
            }
            let text = match read(root, &rel, cap) {
                Ok(t) => t,
                Err(why) => {
                    found.skipped.push(Skipped { path: shown, why });
                    continue;
                }
            };
            total += text.len() as u64;
            let file = TextFile { path: shown, text };
            match k {
                Kind::Code => found.code.push(file),
                Kind::Notebook => found.notebooks.push(file),
                Kind::Result => found.results.push(file),
                _ => found.logs.push(file),
            }
        }
    }
    Ok(found)
}

/// At most `cap` bytes of `root/rel`, through `open_beneath` (no link on any component,
/// regular files only, no blocking), as text; binary content is refused.
fn read(root: &Path, rel: &Path, cap: u64) -> Result<String, String> {
    let file = open_beneath(root, rel, Beneath::Read).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(cap)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.contains(&0) {
        return Err("binary content (a NUL byte): not text, not read".into());
    }
    match String::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(e) if e.utf8_error().error_len().is_none() => {
            // Cut inside a character at the cap: keep the whole characters before it.
            let valid = e.utf8_error().valid_up_to();
            let mut b = e.into_bytes();
            b.truncate(valid);
            Ok(String::from_utf8(b).unwrap_or_default())
        }
        Err(_) => Err("not UTF-8 text: not read".into()),
    }
}
