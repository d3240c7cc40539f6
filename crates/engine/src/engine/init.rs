//! `youra init`: a fresh youra-native run folder with its configuration and a VSA skeleton
//! in YouRA's schema v3.5 plus youra's workflow fields.

use std::path::{Path, PathBuf};

use crate::yaml::{Style, format_scalar};

#[derive(Debug, Clone)]
pub struct InitOptions {
    pub topic: String,
    pub name: Option<String>,
    /// INTERACTIVE or UNATTENDED.
    pub mode: String,
    /// Extra TOML appended to `youra.toml` (provider settings).
    pub llm_toml: String,
}

#[derive(Debug, thiserror::Error)]
pub enum InitError {
    #[error("{} already holds a run (verification_state.yaml); choose an empty folder", .0.display())]
    Exists(std::path::PathBuf),
    #[error("the execution mode must be INTERACTIVE or UNATTENDED, not {0:?}")]
    Mode(String),
    #[error("cannot write {}: {source}", path.display())]
    Io {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}

pub fn init(dir: &Path, opts: &InitOptions) -> Result<(), InitError> {
    let mode = opts.mode.to_ascii_uppercase();
    if !["INTERACTIVE", "UNATTENDED"].contains(&mode.as_str()) {
        return Err(InitError::Mode(opts.mode.clone()));
    }
    let vsa = dir.join("verification_state.yaml");
    if vsa.exists() {
        return Err(InitError::Exists(dir.to_path_buf()));
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| InitError::Io { path, source }
    };
    // Private to its owner (0700): the workspaces in it hold files experiments wrote, as
    // this user. A folder the researcher made beforehand keeps the mode they chose.
    if !dir.exists() {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(io(dir))?;
    }
    let name = opts.name.clone().unwrap_or_else(|| {
        dir.file_name()
            .map_or("run".into(), |n| n.to_string_lossy().into_owned())
    });
    let toml = format!(
        "# Configuration of this youra run. Layers: compiled defaults < user config < this file < YOURA_* variables.\n[run]\nname = {}\ntopic = {}\nexecution_mode = \"{mode}\"\n\n{}",
        toml_str(&name),
        toml_str(&opts.topic),
        opts.llm_toml
    );
    let path = dir.join("youra.toml");
    std::fs::write(&path, toml).map_err(io(&path))?;
    std::fs::write(&vsa, skeleton(&name, &opts.topic, &mode)).map_err(io(&vsa))?;
    let events = dir.join("events.jsonl");
    std::fs::write(&events, "").map_err(io(&events))?;
    Ok(())
}

fn toml_str(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

fn skeleton(name: &str, topic: &str, mode: &str) -> String {
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let q = |s: &str| format_scalar(s, Style::DoubleQuoted);
    format!(
        "# Verification state of a youra run (YouRA schema v3.5 plus youra's workflow fields).\n\
         # youra edits this file in place; edit it by hand or with `youra vsa set`.\n\
         revision: 0\n\
         metadata:\n  project_name: {}\n  research_topic: {}\n  created_at: '{now}'\n  schema_version: '3.5'\n\
         main_hypothesis:\n  id: null\n  title: null\n  statement: null\n\
         episode:\n  status: ACTIVE\n  started_at: '{now}'\n\
         workflow:\n  status: ACTIVE\n  current_phase: Phase 0\n  execution_mode: {mode}\n  stop_reason: null\n  next_action: null\n  breakpoints: []\n  steering: []\n\
         sub_hypotheses: {{}}\n\
         history: []\n",
        q(name),
        q(topic)
    )
}

/// The most `youra init --data` copies in all (16 GiB): a data set larger than that belongs
/// on a shared disk the researcher links to the experiments' code themselves, not in a copy
/// per run (each run keeps its own copy so its results stay reproducible).
pub const DATA_CAP: u64 = 16 << 30;

/// The sha256sum-format list of every file `--data` copied, in `<run>/data/`:
/// `(cd <run>/data && sha256sum -c MANIFEST.sha256)` checks it, as `youra doctor` does.
pub const DATA_MANIFEST: &str = "MANIFEST.sha256";

/// One thing `--data` will copy, relative to `<run>/data/`.
#[derive(Debug, Clone, PartialEq)]
pub enum DataEntry {
    Folder {
        rel: PathBuf,
    },
    File {
        src: PathBuf,
        rel: PathBuf,
        len: u64,
    },
}

/// What `--data` refused, before anything was written: the path given (or found inside a
/// folder given), what it is and what to do.
#[derive(Debug, thiserror::Error)]
#[error("--data {}: {why}", path.display())]
pub struct DataRefused {
    pub path: PathBuf,
    pub why: String,
}

fn refused(path: &Path, why: impl Into<String>) -> DataRefused {
    DataRefused {
        path: path.to_path_buf(),
        why: why.into(),
    }
}

/// Every file and folder the `--data` paths name, walked without following a link, with
/// their total size: a link, a special file (FIFO, socket, device), a name the manifest
/// cannot hold, two paths with one name, or more than `cap` bytes in all is refused here,
/// so a refused `init` writes nothing.
pub fn plan_data(paths: &[PathBuf], cap: u64) -> Result<Vec<DataEntry>, DataRefused> {
    let mut entries = Vec::new();
    let mut total = 0u64;
    let mut tops: Vec<(String, &Path)> = Vec::new();
    for path in paths {
        // `.` and `dir/` have no last component of their own: name them as the folder is named.
        let name = match path.file_name() {
            Some(n) => Some(n.to_os_string()),
            None => std::fs::canonicalize(path)
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_os_string())),
        };
        let name = name.ok_or_else(|| refused(path, "has no name to copy it under"))?;
        let name = data_name(path, &name)?;
        if name == DATA_MANIFEST {
            return Err(refused(
                path,
                format!(
                    "{DATA_MANIFEST} is the name of youra's manifest in data/: rename the file"
                ),
            ));
        }
        if let Some((_, other)) = tops.iter().find(|(n, _)| *n == name) {
            return Err(refused(
                path,
                format!(
                    "{} has the same name ({name}); data/ holds one thing per name: rename one",
                    other.display()
                ),
            ));
        }
        tops.push((name.clone(), path));
        walk(path, PathBuf::from(&name), &mut entries, &mut total, cap)?;
    }
    Ok(entries)
}

fn data_name(path: &Path, name: &std::ffi::OsStr) -> Result<String, DataRefused> {
    match name.to_str() {
        Some(s) if !s.contains(['\n', '\r', '\\']) => Ok(s.to_string()),
        _ => Err(refused(
            path,
            format!(
                "the name {name:?} is not UTF-8 or holds a line break or a backslash, which \
                 {DATA_MANIFEST} (sha256sum's format) cannot list: rename it"
            ),
        )),
    }
}

fn walk(
    path: &Path,
    rel: PathBuf,
    entries: &mut Vec<DataEntry>,
    total: &mut u64,
    cap: u64,
) -> Result<(), DataRefused> {
    let meta = std::fs::symlink_metadata(path)
        .map_err(|e| refused(path, format!("cannot be read ({e}): check the path")))?;
    let kind = meta.file_type();
    if kind.is_symlink() {
        let target = std::fs::read_link(path)
            .map(|t| t.display().to_string())
            .unwrap_or_else(|_| "?".into());
        return Err(refused(
            path,
            format!(
                "is a symbolic link (to {target}); youra copies no link, since the experiment \
                 could not follow it out of its sandbox: give the file it points to instead"
            ),
        ));
    }
    if kind.is_dir() {
        entries.push(DataEntry::Folder { rel: rel.clone() });
        let mut children: Vec<_> = std::fs::read_dir(path)
            .and_then(|d| d.map(|e| e.map(|e| e.file_name())).collect())
            .map_err(|e| refused(path, format!("the folder cannot be listed ({e})")))?;
        children.sort();
        for child in children {
            let at = path.join(&child);
            let name = data_name(&at, &child)?;
            walk(&at, rel.join(name), entries, total, cap)?;
        }
        return Ok(());
    }
    if let Some(what) = crate::fsutil::not_regular(kind) {
        return Err(refused(
            path,
            format!("is {what}, not a file or a folder; only plain files are copied: leave it out"),
        ));
    }
    *total = total.saturating_add(meta.len());
    if *total > cap {
        return Err(refused(
            path,
            format!(
                "the data reaches {} bytes with this file, over the cap of {cap} bytes: keep a \
                 data set this large outside the run and copy in only what the study reads",
                *total
            ),
        ));
    }
    entries.push(DataEntry::File {
        src: path.to_path_buf(),
        rel,
        len: meta.len(),
    });
    Ok(())
}

/// Copy what [`plan_data`] found into `<run>/data/`: files 0444, folders 0555 (read-only
/// for the researcher too: the copy is the run's record of its input), and the sha256 of
/// each in `data/MANIFEST.sha256` (0444). A source that changed into a link or a special
/// file since it was planned is refused (opened without following a link, regular only).
pub fn copy_data(run: &Path, entries: &[DataEntry]) -> Result<usize, InitError> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
    let data = run.join("data");
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| InitError::Io { path, source }
    };
    if !data.is_dir() {
        std::fs::DirBuilder::new()
            .mode(0o755)
            .create(&data)
            .map_err(io(&data))?;
    }
    let mut manifest = String::new();
    let mut folders = Vec::new();
    for entry in entries {
        match entry {
            DataEntry::Folder { rel } => {
                let to = data.join(rel);
                std::fs::DirBuilder::new()
                    .mode(0o755)
                    .create(&to)
                    .map_err(io(&to))?;
                folders.push(to);
            }
            DataEntry::File { src, rel, len } => {
                let to = data.join(rel);
                let from = crate::fsutil::open_nofollow(src).map_err(io(src))?;
                // At most the size it had when planned (and measured against the cap): a
                // file that grew since is refused, not copied past the cap.
                let from = std::io::Read::take(from, len.saturating_add(1));
                let out = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o644)
                    .open(&to)
                    .map_err(io(&to))?;
                let (hex, copied) = copy_hashing(from, out).map_err(io(&to))?;
                if copied != *len {
                    return Err(InitError::Io {
                        path: src.clone(),
                        source: std::io::Error::other(format!(
                            "changed while it was copied ({len} bytes when checked, {copied} \
                             read): run `youra init` again once nothing writes it"
                        )),
                    });
                }
                std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o444))
                    .map_err(io(&to))?;
                manifest.push_str(&format!("{hex}  {}\n", rel.display()));
            }
        }
    }
    // Deepest first: a folder made read-only before its children were written would refuse them.
    for folder in folders.iter().rev() {
        std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o555))
            .map_err(io(folder))?;
    }
    let path = data.join(DATA_MANIFEST);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o444)
        .open(&path)
        .map_err(io(&path))?;
    std::io::Write::write_all(&mut file, manifest.as_bytes()).map_err(io(&path))?;
    Ok(manifest.lines().count())
}

/// Stream `from` into `to` (or nowhere); its sha256 in lower-case hex and its length.
pub(crate) fn copy_hashing(
    mut from: impl std::io::Read,
    mut to: impl std::io::Write,
) -> std::io::Result<(String, u64)> {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 256 * 1024];
    let mut total = 0u64;
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..n]);
        to.write_all(&buf[..n])?;
        total += n as u64;
    }
    to.flush()?;
    Ok((format!("{:x}", hasher.finalize()), total))
}

/// What `youra doctor` says of `<run>/data/`: `None` when the run has no manifest (no
/// `--data` was given), else how many files match and a line per file that changed, went
/// missing or cannot be read (read without following a link, beneath the run).
pub fn check_data(run: &Path) -> Option<DataCheck> {
    let rel_manifest = Path::new("data").join(DATA_MANIFEST);
    let text = match crate::fsutil::read_beneath(run, &rel_manifest, crate::fsutil::RUN_FILE_CAP) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            return Some(DataCheck {
                matching: 0,
                problems: vec![format!("data/{DATA_MANIFEST} cannot be read: {e}")],
            });
        }
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
    };
    let mut check = DataCheck {
        matching: 0,
        problems: Vec::new(),
    };
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let Some((hex, name)) = line
            .split_once("  ")
            .or_else(|| line.split_once(" *"))
            .filter(|(h, _)| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
        else {
            check.problems.push(format!(
                "data/{DATA_MANIFEST}:{}: not a sha256sum line (`<64 hex>  <file>`): fix or delete it",
                n + 1
            ));
            continue;
        };
        let rel = Path::new("data").join(name);
        let now = crate::fsutil::open_beneath(run, &rel, crate::fsutil::Beneath::Read)
            .and_then(|f| copy_hashing(f, std::io::sink()).map(|(h, _)| h));
        match now {
            Ok(h) if h.eq_ignore_ascii_case(hex) => check.matching += 1,
            Ok(h) => check.problems.push(format!(
                "data/{name} changed since `youra init` copied it (sha256 {} recorded, {} now): \
                 restore it, or, if the change is yours, put its new sum in data/{DATA_MANIFEST}",
                &hex[..12],
                &h[..12]
            )),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => check.problems.push(format!(
                "data/{name} is missing (listed in data/{DATA_MANIFEST}): restore it from its source"
            )),
            Err(e) => check
                .problems
                .push(format!("data/{name} cannot be read: {e}")),
        }
    }
    Some(check)
}

/// [`check_data`]'s verdict.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DataCheck {
    pub matching: usize,
    pub problems: Vec<String>,
}

#[cfg(test)]
mod data_tests {
    use super::*;

    #[test]
    fn what_plan_data_refuses_before_anything_is_written() {
        let tmp = tempfile::tempdir().unwrap();
        let at = |n: &str| tmp.path().join(n);
        std::fs::write(at("a.csv"), "0123456789").unwrap();
        std::fs::create_dir_all(at("other")).unwrap();
        std::fs::write(at("other/a.csv"), "x").unwrap();
        std::fs::write(at(DATA_MANIFEST), "x").unwrap();
        std::fs::write(at("line\nbreak"), "x").unwrap();
        let cases: [(Vec<PathBuf>, u64, Option<&str>); 6] = [
            (vec![at("a.csv")], 10, None),
            (vec![at("a.csv")], 9, Some("over the cap of 9 bytes")),
            (
                vec![at("a.csv"), at("other/a.csv")],
                100,
                Some("has the same name (a.csv)"),
            ),
            (
                vec![at(DATA_MANIFEST)],
                100,
                Some("the name of youra's manifest"),
            ),
            (vec![at("line\nbreak")], 100, Some("holds a line break")),
            (vec![at("absent")], 100, Some("cannot be read")),
        ];
        for (paths, cap, want) in cases {
            match (plan_data(&paths, cap), want) {
                (Ok(_), None) => {}
                (Err(e), Some(w)) => assert!(e.to_string().contains(w), "{paths:?}: {e}"),
                (got, want) => panic!("{paths:?}: {got:?}, wanted {want:?}"),
            }
        }
        // A folder given as `.`-like path is named as the folder is.
        let plan = plan_data(&[at("other").join(".")], 100).unwrap();
        assert_eq!(
            plan,
            vec![
                DataEntry::Folder {
                    rel: "other".into()
                },
                DataEntry::File {
                    src: at("other/./a.csv"),
                    rel: "other/a.csv".into(),
                    len: 1
                }
            ]
        );
    }

    #[test]
    fn a_file_that_grew_after_its_check_is_not_copied_past_it() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("a.csv");
        std::fs::write(&src, "0123456789").unwrap();
        let plan = plan_data(std::slice::from_ref(&src), 10).unwrap();
        std::fs::write(&src, "0123456789 and far more than the cap").unwrap();
        let run = tmp.path().join("run");
        std::fs::create_dir(&run).unwrap();
        let err = copy_data(&run, &plan).unwrap_err().to_string();
        assert!(
            err.contains("changed while it was copied (10 bytes when checked, 11 read)"),
            "{err}"
        );
        assert!(!run.join("data").join(DATA_MANIFEST).exists());
    }
}
