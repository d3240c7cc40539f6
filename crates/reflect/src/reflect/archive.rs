//! The archive snapshot YouRA takes before a redesign (back to Hypothesis Debate) or a reset
//! (back to Problem Scoping): the stage artifacts the new attempt will rewrite are *moved*
//! into `_archive/<YYYYmmddTHHMMSS>_routing_recovery/`, with an `_ARCHIVED.md` marker in
//! YouRA's routing shape, which [`crate::rundir::archive`] reads back.
//!
//! What moves ([`disposition`]), by top-level name in the run folder:
//! - never: the run's own state and history — `verification_state.yaml`, `youra.toml`,
//!   `events.jsonl`, `ledger.tsv`, `youra.log`, `transcripts/`, `memory/`, `plan/`,
//!   `_archive/`, `replay/`, `data/`, `prompts/`, and every dot-name (`.youra/`, `.serena/`:
//!   Reflective Memory must survive the recovery it informs);
//! - stage artifacts: names starting `<digits>[letters]_` (`00_…`, `01_round_table/`,
//!   `02b_…`, `045_…`), `discussion_log.md`, `paper/` and the hypothesis folders `h-*/`;
//!   a reset moves all of them; a redesign keeps Problem Scoping and Literature Grounding
//!   (`00_*`, and `01_*` files other than the debate's `01_round_table/`);
//! - anything else stays: a file youra does not know is the researcher's, not a stage's.
//!
//! Moves are renames inside the run folder (one filesystem, so nothing is copied).

use chrono::{DateTime, Utc};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::{fs, io};

/// Never moved: the run's state, configuration, logs and history.
pub(crate) const NEVER_MOVED: [&str; 12] = [
    "verification_state.yaml",
    "youra.toml",
    "events.jsonl",
    "ledger.tsv",
    "youra.log",
    "transcripts",
    "memory",
    "plan",
    "_archive",
    "replay",
    "data",
    "prompts",
];

/// The two archive-producing recovery levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveKind {
    /// Back to Hypothesis Debate (Phase 2A).
    Redesign,
    /// Back to Problem Scoping (Phase 0).
    Reset,
}

impl ArchiveKind {
    /// The marker's `Route target`, as YouRA writes it.
    pub fn route_target(self) -> &'static str {
        match self {
            ArchiveKind::Redesign => "Phase 2A",
            ArchiveKind::Reset => "Phase 0",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Disposition {
    Move,
    Keep,
}

/// The rule of the module doc, for one top-level entry of the run folder.
pub(crate) fn disposition(name: &str, is_dir: bool, kind: ArchiveKind) -> Disposition {
    if name.starts_with('.') || NEVER_MOVED.contains(&name) || !is_stage_artifact(name, is_dir) {
        return Disposition::Keep;
    }
    let grounding =
        name.starts_with("00_") || (name.starts_with("01_") && name != "01_round_table");
    if kind == ArchiveKind::Redesign && grounding {
        return Disposition::Keep;
    }
    Disposition::Move
}

fn is_stage_artifact(name: &str, is_dir: bool) -> bool {
    let digits = name.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &name[digits..];
    let letters = rest.bytes().take_while(u8::is_ascii_lowercase).count();
    let numbered = digits > 0 && rest[letters..].starts_with('_');
    numbered
        || name == "discussion_log.md"
        || (is_dir && (name == "paper" || name.starts_with("h-")))
}

/// What an archive did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveReport {
    /// The new `_archive/<stamp>_routing_recovery/` folder.
    pub dir: PathBuf,
    /// Top-level names moved, sorted.
    pub moved: Vec<String>,
    /// Files under the moved entries (the marker's `Files moved`).
    pub files_moved: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("cannot prepare the archive at {}: {source}", path.display())]
    Prepare { path: PathBuf, source: io::Error },
    #[error("moving {} into {} failed: {source}; already moved: [{}] — move the rest by hand or move those back, then retry", failed.display(), dir.display(), moved.join(", "))]
    Move {
        dir: PathBuf,
        failed: PathBuf,
        moved: Vec<String>,
        source: io::Error,
    },
}

/// Moves the run's stage artifacts into a fresh archive folder and writes its marker.
pub fn archive(
    run: &Path,
    kind: ArchiveKind,
    triggered_by: &str,
    reason: &str,
    now: DateTime<Utc>,
) -> Result<ArchiveReport, ArchiveError> {
    let names = entries_to_move(run, kind).map_err(prepare(run))?;
    archive_entries(run, kind, &names, triggered_by, reason, now)
}

/// A free archive folder name for `now` (`{stamp}_routing_recovery[_n]`), not created:
/// a transition records it before moving anything, so a resumed move uses the same folder.
pub fn fresh_name(run: &Path, now: DateTime<Utc>) -> String {
    let stamp = now.format("%Y%m%dT%H%M%S").to_string();
    (1..100)
        .map(|n| match n {
            1 => format!("{stamp}_routing_recovery"),
            n => format!("{stamp}_routing_recovery_{n}"),
        })
        .find(|name| !run.join("_archive").join(name).exists())
        .unwrap_or_else(|| format!("{stamp}_routing_recovery_99"))
}

/// [`archive`] into `_archive/<name>`, which may hold what an interrupted try already moved:
/// the rest is moved, and the marker lists everything the folder holds.
pub fn archive_named(
    run: &Path,
    kind: ArchiveKind,
    name: &str,
    triggered_by: &str,
    reason: &str,
) -> Result<ArchiveReport, ArchiveError> {
    let dir = run.join("_archive").join(name);
    fs::create_dir_all(&dir).map_err(prepare(&dir))?;
    let mut names = entries_to_move(run, kind).map_err(prepare(run))?;
    let earlier: Vec<String> = fs::read_dir(&dir)
        .map_err(prepare(&dir))?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n != "_ARCHIVED.md")
        .collect();
    names.retain(|n| !earlier.contains(n));
    let stamp = name.split('_').next().unwrap_or(name).to_string();
    let mut report = move_into(
        run,
        &dir,
        &stamp,
        kind,
        &names,
        triggered_by,
        reason,
        &earlier,
    )?;
    report.moved = [earlier, report.moved].concat();
    report.moved.sort();
    Ok(report)
}

/// [`archive`] for names already chosen (top-level entries of `run`).
fn archive_entries(
    run: &Path,
    kind: ArchiveKind,
    names: &[String],
    triggered_by: &str,
    reason: &str,
    now: DateTime<Utc>,
) -> Result<ArchiveReport, ArchiveError> {
    let stamp = now.format("%Y%m%dT%H%M%S").to_string();
    let dir = fresh_dir(&run.join("_archive"), &stamp).map_err(prepare(&run.join("_archive")))?;
    move_into(run, &dir, &stamp, kind, names, triggered_by, reason, &[])
}

#[allow(clippy::too_many_arguments)]
fn move_into(
    run: &Path,
    dir: &Path,
    stamp: &str,
    kind: ArchiveKind,
    names: &[String],
    triggered_by: &str,
    reason: &str,
    earlier: &[String],
) -> Result<ArchiveReport, ArchiveError> {
    let dir = dir.to_path_buf();
    let marker = |reason: &str, moved: &[String]| {
        let files = crate::rundir::archive::count_files(&dir, 0);
        let all = [earlier, moved].concat();
        let text = marker_text(stamp, kind, triggered_by, reason, files, &all);
        crate::fsutil::write_atomic(&dir.join("_ARCHIVED.md"), text.as_bytes()).map(|()| files)
    };
    let mut moved = Vec::new();
    for name in names {
        if let Err(source) = fs::rename(run.join(name), dir.join(name)) {
            // Best effort: the marker makes a half-done archive visible; the error is what counts.
            let _ = marker(
                &format!("{reason} (INCOMPLETE: moving {name} failed: {source})"),
                &moved,
            );
            let failed = run.join(name);
            return Err(ArchiveError::Move {
                dir,
                failed,
                moved,
                source,
            });
        }
        moved.push(name.clone());
    }
    let files_moved = marker(reason, &moved).map_err(prepare(&dir.join("_ARCHIVED.md")))?;
    crate::fsutil::sync_dir(run).map_err(prepare(run))?;
    Ok(ArchiveReport {
        dir,
        moved,
        files_moved,
    })
}

fn prepare(path: &Path) -> impl FnOnce(io::Error) -> ArchiveError + use<> {
    let path = path.to_path_buf();
    move |source| ArchiveError::Prepare { path, source }
}

/// Top-level names of `run` that [`disposition`] moves, sorted. Names that are not UTF-8
/// are kept: no stage writes one.
fn entries_to_move(run: &Path, kind: ArchiveKind) -> io::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in fs::read_dir(run)? {
        let entry = entry?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        // A link is judged by its own type and moved as a link.
        let is_dir = entry.file_type()?.is_dir();
        if disposition(&name, is_dir, kind) == Disposition::Move {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// `_archive/<stamp>_routing_recovery`, or `…_2`, `…_3` when a recovery in the same second
/// already took the name.
fn fresh_dir(archive_root: &Path, stamp: &str) -> io::Result<PathBuf> {
    fs::create_dir_all(archive_root)?;
    for n in 1..100 {
        let suffix = if n == 1 {
            String::new()
        } else {
            format!("_{n}")
        };
        let dir = archive_root.join(format!("{stamp}_routing_recovery{suffix}"));
        match fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "99 archives in one second",
    ))
}

/// The marker text, YouRA's routing shape plus the moved names for an audit.
pub(crate) fn marker_text(
    stamp: &str,
    kind: ArchiveKind,
    triggered_by: &str,
    reason: &str,
    files: u32,
    moved: &[String],
) -> String {
    let flat = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut t = String::from("# Archive Record\n\n");
    let _ = writeln!(t, "**Archived:** {stamp}");
    let _ = writeln!(t, "**Route target:** {}", kind.route_target());
    let _ = writeln!(t, "**Triggered by:** {}", flat(triggered_by));
    let _ = writeln!(t, "**Reason:** {}", flat(reason));
    let _ = writeln!(t, "**Files moved:** {files}");
    if !moved.is_empty() {
        t.push_str("\n## Moved\n\n");
        for name in moved {
            let _ = writeln!(t, "- {name}");
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use ArchiveKind::*;
    use Disposition::*;

    #[test]
    fn disposition_table() {
        let table: &[(&str, bool, Disposition, Disposition)] = &[
            // name, is_dir, Reset, Redesign
            ("00_brainstorm_session.md", false, Move, Keep),
            ("01_targeted_research.md", false, Move, Keep),
            ("01_round_table", true, Move, Move),
            ("discussion_log.md", false, Move, Move),
            ("02_synthesis.yaml", false, Move, Move),
            ("02b_verification_plan.md", false, Move, Move),
            ("03_tasks.yaml", false, Move, Move),
            ("045_validated_hypothesis.md", false, Move, Move),
            ("h-e1", true, Move, Move),
            ("h-e1", false, Keep, Keep),
            ("paper", true, Move, Move),
            ("verification_state.yaml", false, Keep, Keep),
            ("youra.toml", false, Keep, Keep),
            ("events.jsonl", false, Keep, Keep),
            ("ledger.tsv", false, Keep, Keep),
            ("youra.log", false, Keep, Keep),
            ("transcripts", true, Keep, Keep),
            ("memory", true, Keep, Keep),
            ("plan", true, Keep, Keep),
            ("_archive", true, Keep, Keep),
            (".youra", true, Keep, Keep),
            (".serena", true, Keep, Keep),
            ("replay", true, Keep, Keep),
            ("data", true, Keep, Keep),
            ("prompts", true, Keep, Keep),
            ("notes.txt", false, Keep, Keep),
            ("2026_plan.md", false, Move, Move),
            ("0x.md", false, Keep, Keep),
        ];
        for &(name, is_dir, reset, redesign) in table {
            assert_eq!(disposition(name, is_dir, Reset), reset, "reset {name}");
            assert_eq!(
                disposition(name, is_dir, Redesign),
                redesign,
                "redesign {name}"
            );
        }
    }

    #[test]
    fn a_failed_move_reports_what_was_moved() {
        let tmp = tempfile::tempdir().unwrap();
        let run = tmp.path();
        fs::write(run.join("00_a.md"), "a").unwrap();
        fs::write(run.join("02_b.md"), "b").unwrap();
        let names: Vec<String> = ["00_a.md", "01_gone.md", "02_b.md"]
            .map(String::from)
            .to_vec();
        let now = chrono::DateTime::<Utc>::UNIX_EPOCH;
        let e = archive_entries(run, Reset, &names, "h-x", "test", now).unwrap_err();
        let ArchiveError::Move {
            dir, moved, failed, ..
        } = &e
        else {
            panic!("{e}")
        };
        assert_eq!(moved, &["00_a.md"]);
        assert!(failed.ends_with("01_gone.md"));
        assert!(dir.join("00_a.md").is_file() && run.join("02_b.md").is_file());
        let text = fs::read_to_string(dir.join("_ARCHIVED.md")).unwrap();
        assert!(
            text.contains("INCOMPLETE: moving 01_gone.md failed")
                && text.contains("**Files moved:** 1"),
            "{text}"
        );
        assert!(e.to_string().contains("already moved: [00_a.md]"), "{e}");
    }

    #[test]
    fn marker_shape() {
        let t = marker_text(
            "20260317T035502",
            Reset,
            "h-e1\n(Design-Pivot)",
            "why",
            3,
            &["h-e1".into()],
        );
        assert!(
            t.starts_with(
                "# Archive Record\n\n**Archived:** 20260317T035502\n**Route target:** Phase 0\n"
            ),
            "{t}"
        );
        assert!(
            t.contains(
                "**Triggered by:** h-e1 (Design-Pivot)\n**Reason:** why\n**Files moved:** 3\n"
            ),
            "{t}"
        );
        assert!(marker_text("s", Redesign, "", "", 0, &[]).contains("**Route target:** Phase 2A"));
    }
}
