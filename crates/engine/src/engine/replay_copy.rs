//! `youra replay <recorded-run> <new-dir>`: a replay copy of a recorded run. A fresh run
//! (made by [`init`], as `youra init` and the demo make theirs) with the recorded run's
//! topic, execution mode and settings (every `youra.toml` table but `[run]` and `[llm…]`),
//! every model role on the replay provider over a copy of the recorded `transcripts/`, the
//! recorded `data/`, and `metadata.replayed_from` in its VSA naming where it came from.
//!
//! The copy replays by call key (role, stage, hypothesis, round, attempt, ordinal), so the
//! new code's routing decisions are its own while the model's words are the recorded ones;
//! a route the recording never took asks for exchanges it does not have, and the engine
//! stops naming the missing key.
//!
//! The recorded run's commands, addresses and confinement settings do not come along unasked
//! ([`commands`]): its MCP servers and coding agent, its `[notify]` command, webhook and
//! ntfy topic, its literature endpoints, its `sandbox`, `allow_network` and scheduler.
//!
//! The recorded run folder is someone else's data: every file is read with no link followed
//! and only when it is a regular file (`fsutil::open_nofollow`, so a FIFO cannot hang the
//! copy), and no link is copied or followed. A `data/` that is a link (or holds links) is
//! not copied through it: a link to the recipient's own files would carry them into the
//! copy, where the experiment reads them and a kept webhook would send them on. Each link
//! skipped is named ([`ReplayCopy::skipped`]).

use std::path::{Path, PathBuf};

use super::init::{InitError, InitOptions, init};
use super::yamlout::text;
use crate::vsa::mutation::{Change, Mutation};
use crate::vsa::store::{Store, StoreError};

pub mod commands;
pub use commands::Dropped;

/// Where the copy serves its replies from, relative to the new run.
pub(crate) const TRANSCRIPTS: &str = "replay/transcripts";

/// What a replay copy holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayCopy {
    pub dir: PathBuf,
    /// The recorded run, absolute: what `metadata.replayed_from` says.
    pub from: PathBuf,
    pub exchanges: usize,
    pub data_files: usize,
    /// The recorded run's commands and confinement settings: left out of the copy, or kept
    /// because the researcher said so (`kept_commands`).
    pub dropped: Vec<Dropped>,
    pub kept_commands: bool,
    /// What of the recorded run's files was not copied (links, special files), each named
    /// with why.
    pub skipped: Vec<String>,
}

/// What the researcher confirmed for a copy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReplayOptions {
    /// Keep the recorded run's tool commands and sandbox/network settings
    /// (`youra replay --keep-commands`).
    pub keep_commands: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum ReplayCopyError {
    #[error(
        "{} is not a recorded youra run: it has no youra.toml (a YouRA research folder has no transcripts to replay)",
        .0.display()
    )]
    NotNative(PathBuf),
    #[error(
        "{} recorded no model exchanges (transcripts/ is missing or empty): only a run youra executed can be replayed",
        .0.display()
    )]
    NoTranscripts(PathBuf),
    #[error("{}: {message}", path.display())]
    Settings { path: PathBuf, message: String },
    #[error(transparent)]
    Init(#[from] InitError),
    #[error("cannot copy {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot record where the copy came from: {0}")]
    Store(#[from] StoreError),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ReplayCopyError + '_ {
    move |source| ReplayCopyError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Make the replay copy of `recorded` in `dir` (which must not hold a run yet), without the
/// recorded run's commands and confinement settings.
pub fn replay_copy(recorded: &Path, dir: &Path) -> Result<ReplayCopy, ReplayCopyError> {
    replay_copy_with(recorded, dir, ReplayOptions::default())
}

/// [`replay_copy`] with what the researcher confirmed.
pub fn replay_copy_with(
    recorded: &Path,
    dir: &Path,
    options: ReplayOptions,
) -> Result<ReplayCopy, ReplayCopyError> {
    let from = std::path::absolute(recorded).map_err(io(recorded))?;
    let toml_path = from.join("youra.toml");
    if !std::fs::symlink_metadata(&toml_path).is_ok_and(|m| m.is_file()) {
        return Err(ReplayCopyError::NotNative(from));
    }
    let mut skipped = Vec::new();
    let transcripts = transcript_files(&from.join("transcripts"), &mut skipped)?;
    if transcripts.is_empty() {
        return Err(ReplayCopyError::NoTranscripts(from));
    }
    let toml_text =
        crate::fsutil::read_capped_string(&toml_path, MAX_TOML).map_err(io(&toml_path))?;
    let settings_error = |message| ReplayCopyError::Settings {
        path: toml_path.clone(),
        message,
    };
    let mut settings = kept_tables(&toml_text).map_err(settings_error)?;
    let whole: toml::Table = toml::from_str(&toml_text).unwrap_or_default();
    let dropped = commands::untrusted(&whole);
    let mut header = String::new();
    if !dropped.is_empty() && !options.keep_commands {
        settings = commands::without_untrusted(&settings).map_err(settings_error)?;
        let names: Vec<&str> = dropped.iter().map(|d| d.setting.as_str()).collect();
        header = format!(
            "# Left out of the recorded run's settings (`youra replay --keep-commands` keeps them): {}\n",
            names.join(", ")
        );
    }
    let snap = Store::new(from.join("verification_state.yaml")).load()?;
    let topic = toml_topic(&toml_text)
        .or_else(|| {
            let meta = snap.doc.root.as_ref()?.get("metadata")?;
            meta.get("research_topic")?.as_str().map(str::to_string)
        })
        .unwrap_or_default();
    let mode = snap
        .vsa
        .workflow
        .execution_mode
        .as_ref()
        .map_or("INTERACTIVE".to_string(), |m| m.as_str().to_string());
    let llm_toml = format!(
        "# A replay copy of {}: every role's replies come from its recorded exchanges.\n\
         {header}[llm.default]\nprovider = \"replay\"\nreplay = \"{TRANSCRIPTS}\"\n\n{settings}",
        from.display()
    );
    init(
        dir,
        &InitOptions {
            topic,
            name: None,
            mode,
            llm_toml,
        },
    )?;
    let into = dir.join(TRANSCRIPTS);
    std::fs::create_dir_all(&into).map_err(io(&into))?;
    for f in &transcripts {
        let to = into.join(f.file_name().unwrap_or_default());
        copy_file(f, &to)?;
    }
    let data_files = copy_tree(&from, Path::new("data"), dir, &mut skipped)?;
    // The recorded run's literature search is replayed too: its retrieved works are the
    // only ones the copy's paper may cite (a copy that searched again, or not at all,
    // would cite works it never retrieved).
    let searched = from.join("literature.jsonl");
    match std::fs::symlink_metadata(&searched) {
        Ok(m) if m.is_file() => {
            let to = dir.join(crate::engine::literature::RECORDED);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(io(parent))?;
            }
            copy_file(&searched, &to)?;
        }
        Ok(_) => skipped.push(
            "literature.jsonl: not a regular file (a link is not followed); the copy has no recorded search".into(),
        ),
        Err(_) => {}
    }
    let store = Store::new(dir.join("verification_state.yaml"));
    let mut m = Mutation::new(
        Change::Put {
            path: "metadata.replayed_from".into(),
            value: text(&from.display().to_string()),
        },
        "replay_copy",
        "researcher",
        &format!(
            "replay copy of {}: {} recorded exchanges, {data_files} data files{}",
            from.display(),
            transcripts.len(),
            dropped_note(&dropped, options.keep_commands)
        ),
    );
    m.create = true;
    store.mutate(&m)?;
    Ok(ReplayCopy {
        dir: dir.to_path_buf(),
        from,
        exchanges: transcripts.len(),
        data_files,
        dropped,
        kept_commands: options.keep_commands,
        skipped,
    })
}

/// The history's word on the recorded run's commands: which were left out, or kept.
fn dropped_note(dropped: &[Dropped], kept: bool) -> String {
    if dropped.is_empty() {
        return String::new();
    }
    let names: Vec<&str> = dropped.iter().map(|d| d.setting.as_str()).collect();
    let verb = if kept {
        "kept on the researcher's word (--keep-commands)"
    } else {
        "left out"
    };
    format!("; the recorded run's {}: {verb}", names.join(", "))
}

/// The most bytes of a recorded `youra.toml` read.
const MAX_TOML: u64 = 1024 * 1024;

/// The recorder's exchange files (`transcripts/*.json`, regular files only), sorted; links
/// and special files are named in `skipped`. A linked `transcripts/` is not looked into.
fn transcript_files(
    dir: &Path,
    skipped: &mut Vec<String>,
) -> Result<Vec<PathBuf>, ReplayCopyError> {
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            skipped.push("transcripts: not a folder (a link is not followed)".into());
            return Ok(Vec::new());
        }
        Err(_) => return Ok(Vec::new()),
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut files = Vec::new();
    for e in entries.filter_map(|e| e.ok()) {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "json") {
            continue;
        }
        match e.file_type() {
            Ok(t) if t.is_file() => files.push(p),
            _ => skipped.push(format!(
                "transcripts/{}: not a regular file (not followed, not copied)",
                e.file_name().to_string_lossy()
            )),
        }
    }
    files.sort();
    Ok(files)
}

/// Copy one regular file (opened with no link followed, no FIFO waited on) into a new file.
fn copy_file(from: &Path, to: &Path) -> Result<u64, ReplayCopyError> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut src = crate::fsutil::open_nofollow(from).map_err(io(from))?;
    let mut dst = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(to)
        .map_err(io(to))?;
    std::io::copy(&mut src, &mut dst).map_err(io(from))
}

/// Copy the regular files under `from/rel` into `to/rel`. No link is followed or copied (a
/// linked `data/` is not copied at all): each is named in `skipped`, as is anything but a
/// folder or a regular file. Returns how many files were copied.
fn copy_tree(
    from: &Path,
    rel: &Path,
    to: &Path,
    skipped: &mut Vec<String>,
) -> Result<usize, ReplayCopyError> {
    let src = from.join(rel);
    match std::fs::symlink_metadata(&src) {
        Ok(m) if m.is_dir() => {}
        Ok(m) if m.file_type().is_symlink() => {
            let target = std::fs::read_link(&src).unwrap_or_default();
            skipped.push(format!(
                "{}: a link to {} (not followed, not copied; copy or link the data yourself if you trust it)",
                rel.display(),
                target.display()
            ));
            return Ok(0);
        }
        Ok(_) => {
            skipped.push(format!("{}: not a regular file or folder", rel.display()));
            return Ok(0);
        }
        Err(_) => return Ok(0),
    }
    let dst = crate::fsutil::create_dirs_nofollow(to, rel).map_err(io(to))?;
    let mut entries: Vec<_> = std::fs::read_dir(&src)
        .map_err(io(&src))?
        .filter_map(|e| e.ok())
        .collect();
    entries.sort_by_key(|e| e.file_name());
    let mut n = 0;
    for e in entries {
        let sub = rel.join(e.file_name());
        let kind = e.file_type().map_err(io(&e.path()))?;
        if kind.is_dir() || kind.is_symlink() {
            n += copy_tree(from, &sub, to, skipped)?;
        } else if kind.is_file() {
            copy_file(&e.path(), &dst.join(e.file_name()))?;
            n += 1;
        } else {
            skipped.push(format!(
                "{}: not a regular file (a FIFO, socket or device)",
                sub.display()
            ));
        }
    }
    Ok(n)
}

fn toml_topic(text: &str) -> Option<String> {
    let table: toml::Table = toml::from_str(text).ok()?;
    table.get("run")?.get("topic")?.as_str().map(str::to_string)
}

/// The text of every top-level table of a `youra.toml` but `[run]` (the copy's own) and
/// `[llm]` / `[llm.…]` (replaced by the replay provider), comments kept; checked to parse.
/// Copied as text because the settings travel verbatim, comments and all, and the `toml`
/// crate is built here without its writer.
pub(crate) fn kept_tables(text: &str) -> Result<String, String> {
    toml::from_str::<toml::Table>(text).map_err(|e| format!("not valid TOML: {e}"))?;
    let mut out = String::new();
    let mut keep = false;
    for line in text.lines() {
        if let Some(name) = table_header(line) {
            let first = name.split('.').next().unwrap_or("").trim();
            keep = !matches!(first, "run" | "llm");
        }
        if keep {
            out.push_str(line);
            out.push('\n');
        }
    }
    toml::from_str::<toml::Table>(&out)
        .map_err(|e| format!("its settings cannot be copied on their own: {e}"))?;
    Ok(out)
}

/// The name in a `[table]` or `[[array]]` header line.
pub(crate) fn table_header(line: &str) -> Option<&str> {
    let t = line.trim();
    let inner = t
        .strip_prefix("[[")
        .and_then(|r| r.split("]]").next())
        .or_else(|| t.strip_prefix('[').and_then(|r| r.split(']').next()))?;
    Some(inner.trim().trim_matches('"'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_keep_every_table_but_run_and_llm() {
        let text = "# head\n[run]\nname = \"a\"\n\n[llm.default]\nprovider = \"replay\"\n[llm.roles.controller]\nmodel = \"x\"\n\n[engine]\n# why\nrepair_attempts = 2\n\n[[tools.servers]]\nname = \"echo\"\ncommand = [\"x\"]\n[recovery]\nkappa_min = 0.5\n";
        let kept = kept_tables(text).unwrap();
        assert_eq!(
            kept,
            "[engine]\n# why\nrepair_attempts = 2\n\n[[tools.servers]]\nname = \"echo\"\ncommand = [\"x\"]\n[recovery]\nkappa_min = 0.5\n"
        );
        assert_eq!(kept_tables("[run]\nname = 1\n").unwrap(), "");
        assert!(kept_tables("[engine\n").is_err());
    }

    #[test]
    fn a_run_without_transcripts_is_refused_and_nothing_is_made() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        init(
            &a,
            &InitOptions {
                topic: "t".into(),
                name: None,
                mode: "UNATTENDED".into(),
                llm_toml: String::new(),
            },
        )
        .unwrap();
        let b = dir.path().join("b");
        let err = replay_copy(&a, &b).unwrap_err();
        assert!(matches!(err, ReplayCopyError::NoTranscripts(_)), "{err}");
        assert!(!b.exists());
        let err = replay_copy(dir.path(), &b).unwrap_err();
        assert!(matches!(err, ReplayCopyError::NotNative(_)), "{err}");
    }
}
