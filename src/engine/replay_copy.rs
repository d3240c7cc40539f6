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
//! The recorded run's commands and confinement settings do not come along unasked
//! ([`commands`]): its MCP servers and coding agent, its `sandbox` and `allow_network`.

use std::path::{Path, PathBuf};

use super::init::{InitError, InitOptions, init};
use super::yamlout::text;
use crate::vsa::mutation::{Change, Mutation};
use crate::vsa::store::{Store, StoreError};

pub mod commands;
pub use commands::Dropped;

/// Where the copy serves its replies from, relative to the new run.
pub const TRANSCRIPTS: &str = "replay/transcripts";

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
    if !toml_path.is_file() {
        return Err(ReplayCopyError::NotNative(from));
    }
    let transcripts = transcript_files(&from.join("transcripts"))?;
    if transcripts.is_empty() {
        return Err(ReplayCopyError::NoTranscripts(from));
    }
    let toml_text = std::fs::read_to_string(&toml_path).map_err(io(&toml_path))?;
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
        std::fs::copy(f, &to).map_err(io(f))?;
    }
    let data_files = copy_tree(&from.join("data"), &dir.join("data"))?;
    // The recorded run's literature search is replayed too: its retrieved works are the
    // only ones the copy's paper may cite (a copy that searched again, or not at all,
    // would cite works it never retrieved).
    let searched = from.join("literature.jsonl");
    if searched.is_file() {
        let to = dir.join(crate::engine::literature::RECORDED);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        std::fs::copy(&searched, &to).map_err(io(&searched))?;
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

/// The recorder's exchange files (`transcripts/*.json`), sorted.
fn transcript_files(dir: &Path) -> Result<Vec<PathBuf>, ReplayCopyError> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    Ok(files)
}

/// Copy the regular files under `from` into `to`; links are not followed (a recorded run's
/// `data/` may link to a shared dataset: the copy names it instead of duplicating it).
fn copy_tree(from: &Path, to: &Path) -> Result<usize, ReplayCopyError> {
    let Ok(entries) = std::fs::read_dir(from) else {
        return Ok(0);
    };
    std::fs::create_dir_all(to).map_err(io(to))?;
    let mut n = 0;
    for e in entries.filter_map(|e| e.ok()) {
        let path = e.path();
        let target = to.join(e.file_name());
        let kind = e.file_type().map_err(io(&path))?;
        if kind.is_symlink() {
            let link = std::fs::read_link(&path).map_err(io(&path))?;
            std::os::unix::fs::symlink(&link, &target).map_err(io(&target))?;
            n += 1;
        } else if kind.is_dir() {
            n += copy_tree(&path, &target)?;
        } else if kind.is_file() {
            std::fs::copy(&path, &target).map_err(io(&path))?;
            n += 1;
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
pub fn kept_tables(text: &str) -> Result<String, String> {
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
