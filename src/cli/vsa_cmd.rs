//! `youra vsa …`: get, set, history and validate.

use std::path::{Path, PathBuf};

use clap::Subcommand;
use color_eyre::eyre::{Result, WrapErr};

use super::fail;
use crate::rundir::discover;
use crate::vsa::invariants::violations;
use crate::vsa::path::{Resolved, VsaPath, resolve};
use crate::vsa::{Base, SetRequest, Store, StoreError};

#[derive(Debug, Subcommand)]
pub enum VsaCommand {
    /// Print one field, e.g. `workflow.next_action` or `sub_hypotheses.h-e1.gate.type`.
    Get {
        dir: PathBuf,
        /// Dotted path; `[N]` indexes a list (`history[-1]`), quotes protect keys with dots.
        path: String,
        /// One JSON object: `{path, revision, line, value}` (the value typed as YAML reads it).
        #[arg(long)]
        json: bool,
    },
    /// Change one field. Only that value's bytes change in the file; a history entry with
    /// your reason is appended and the revision bumped. The value is checked against the
    /// field's type and the VSA invariants.
    Set {
        dir: PathBuf,
        path: String,
        value: String,
        /// Why you are changing it (recorded in history).
        #[arg(long)]
        reason: String,
        /// Apply even if it breaks an invariant (recorded as forced).
        #[arg(long)]
        force: bool,
        /// Add the field (and missing parents) if the file does not have it yet.
        #[arg(long)]
        create: bool,
        /// Who is changing it, recorded in the history. Default: $YOURA_NAME, else `[steer]
        /// name` of your user config, else user@host of this login.
        #[arg(long = "as", visible_alias = "actor", value_name = "NAME")]
        actor: Option<String>,
        /// Refuse if the file moved past this revision and the field changed meanwhile.
        #[arg(long, value_name = "N")]
        if_revision: Option<u64>,
        /// With --if-revision: the value you saw (default: the current one).
        #[arg(long, value_name = "VALUE", requires = "if_revision")]
        expect_old: Option<String>,
    },
    /// List history entries, newest first.
    History {
        dir: PathBuf,
        /// How many entries to show.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// One JSON object a line (newest first), the typed history entry.
        #[arg(long)]
        json: bool,
    },
    /// Check that a VSA reads: exit 0 (with warnings for what was normalised) or 1 with
    /// file:line:column for each problem.
    Validate {
        /// A verification_state.yaml or a run folder.
        target: PathBuf,
    },
    /// Undo the two ways agents break a VSA: history items appended at the top level, and a
    /// block spliced in too deep. Prints the fix as a diff; writes it only with --write (the
    /// original kept beside as `<file>.bak`). Any other break: its line:col, exit 1, no change.
    Repair {
        /// The verification_state.yaml (or a run folder).
        target: PathBuf,
        /// Apply the fix.
        #[arg(long)]
        write: bool,
    },
}

pub fn run(cmd: VsaCommand) -> Result<i32> {
    match cmd {
        VsaCommand::Get { dir, path, json } => get(&dir, &path, json),
        VsaCommand::Set {
            dir,
            path,
            value,
            reason,
            force,
            create,
            actor,
            if_revision,
            expect_old,
        } => {
            let base = if_revision.map(|revision| Base {
                revision,
                old: expect_old,
            });
            // Who decided, as `youra steer` names them (`crate::vsa::actor`).
            let configured = crate::config::load(&dir).ok().and_then(|c| c.steer.name);
            let actor = match crate::vsa::actor::resolve(actor.as_deref(), configured.as_deref()) {
                Ok(a) => a,
                Err(e) => {
                    fail(&e, "give a plain one-line name: --as \"Ana Souza\"");
                    return Ok(2);
                }
            };
            let req = SetRequest {
                path: &path,
                value: &value,
                reason: &reason,
                actor: &actor,
                force,
                create,
                base,
            };
            set(&dir, &req)
        }
        VsaCommand::History { dir, limit, json } => history(&dir, limit, json),
        VsaCommand::Validate { target } => validate(&target),
        VsaCommand::Repair { target, write } => repair(&target, write),
    }
}

/// The VSA a command names: the file itself, or the one of the run folder (`Err`: the exit
/// code after the error was printed).
fn vsa_file(target: &Path) -> std::result::Result<std::path::PathBuf, i32> {
    if target.is_file() {
        return Ok(target.to_path_buf());
    }
    discover(target).map(|run| run.vsa).map_err(super::no_run)
}

fn repair(target: &Path, write: bool) -> Result<i32> {
    let path = match vsa_file(target) {
        Ok(p) => p,
        Err(code) => return Ok(code),
    };
    let text = crate::fsutil::read_vsa_file(&path)
        .and_then(|b| {
            String::from_utf8(b)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
        })
        .wrap_err_with(|| format!("cannot read {} as UTF-8 text", path.display()))?;
    let fix = match crate::vsa::repair::repair(&text) {
        Ok(None) => {
            println!("{}: reads as it is; nothing to repair", path.display());
            return Ok(0);
        }
        Ok(Some(fix)) => fix,
        Err(e) => {
            eprintln!("{}:{e}", path.display());
            return Ok(1);
        }
    };
    println!("{}: {}", path.display(), fix.shape.describe());
    let diff = similar::TextDiff::from_lines(&text, &fix.text);
    print!(
        "{}",
        diff.unified_diff()
            .context_radius(2)
            .header(&path.display().to_string(), "repaired")
    );
    if !write {
        println!("nothing written: run again with --write to apply it");
        return Ok(0);
    }
    let backup = path.with_extension("yaml.bak");
    std::fs::copy(&path, &backup)
        .wrap_err_with(|| format!("cannot keep a backup at {}", backup.display()))?;
    crate::fsutil::write_atomic(&path, fix.text.as_bytes())
        .wrap_err_with(|| format!("cannot write {}", path.display()))?;
    println!(
        "repaired {} (the original is {}); `youra vsa validate` reads it",
        path.display(),
        backup.display()
    );
    Ok(0)
}

fn store_for(dir: &Path) -> Result<Store, i32> {
    match discover(dir) {
        Ok(run) => Ok(Store::new(run.vsa)),
        Err(e) => Err(super::no_run(e)),
    }
}

pub(super) fn report(e: &StoreError) -> i32 {
    let hint = match e {
        StoreError::Parse { .. } => {
            "fix the file by hand at that line; youra never overwrites a file it cannot read"
        }
        StoreError::Invariant { violations }
            if violations
                .iter()
                .any(|v| v.invariant == crate::vsa::invariants::Invariant::SafeId) =>
        {
            "choose an id that is one plain name, such as `h-e2` (--force cannot override this)"
        }
        StoreError::Invariant { .. } => {
            "fix the state this depends on first, or pass --force to override (recorded as forced)"
        }
        StoreError::Conflict { .. } => {
            "run `youra vsa get` to see the current value, then set it again"
        }
        StoreError::Edit { .. } => {
            "see `youra vsa get <dir> <parent path>` for what the file holds"
        }
        _ => "",
    };
    fail(e, hint)
}

fn get(dir: &Path, raw: &str, json: bool) -> Result<i32> {
    let store = match store_for(dir) {
        Ok(s) => s,
        Err(code) => return Ok(code),
    };
    // A path may lie anywhere, the oldest history item included.
    let snap = match store.load().and_then(|s| store.whole(&s)) {
        Ok(s) => s,
        Err(e) => return Ok(report(&e)),
    };
    let path = match VsaPath::parse(raw) {
        Ok(p) => p,
        Err(e) => return Ok(fail(e, "")),
    };
    let Some(root) = snap.doc.root.as_ref() else {
        return Ok(fail("the file is empty", ""));
    };
    match resolve(root, &path) {
        Ok(Resolved::Found(node)) if json => {
            let out = serde_json::json!({
                "path": path.to_string(),
                "revision": snap.vsa.revision,
                "line": node.pos.line,
                "value": crate::yaml::json::to_json(node),
            });
            println!("{out}");
            Ok(0)
        }
        Ok(Resolved::Found(node)) => {
            let text = snap
                .doc
                .text
                .get(node.start..node.content_end(&snap.doc.text))
                .unwrap_or("");
            match node.as_scalar() {
                Some(s) if s.is_null() => println!("null"),
                Some(s) => println!("{}", s.text),
                None => println!("{text}"),
            }
            Ok(0)
        }
        Ok(Resolved::Missing { .. }) => Ok(fail(
            format!("`{path}` is not set in {}", store.path().display()),
            "",
        )),
        Err(e) => Ok(fail(e, "")),
    }
}

fn set(dir: &Path, req: &SetRequest<'_>) -> Result<i32> {
    let store = match store_for(dir) {
        Ok(s) => s,
        Err(code) => return Ok(code),
    };
    match store.set(req) {
        Ok(a) if a.unchanged => {
            println!(
                "{} already holds that value; nothing written (revision {})",
                req.path, a.revision
            );
            Ok(0)
        }
        Ok(a) => {
            let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "null".into());
            println!(
                "{}: {} -> {} (revision {})",
                req.path,
                show(&a.old),
                show(&a.new),
                a.revision
            );
            if let Some(note) = alias_note(req.value, a.new.as_deref()) {
                println!("{note}");
            }
            if let Some(note) = stale_note(&store, req.path, a.old.as_deref(), dir) {
                println!("{note}");
            }
            if a.editor_changes > 0 {
                println!(
                    "recorded a hand edit of {} field(s) made outside youra",
                    a.editor_changes
                );
            }
            if a.rebased {
                println!(
                    "the file had moved on since revision {}, but not this field: applied on top",
                    req.base.as_ref().map_or(0, |b| b.revision)
                );
            }
            for v in &a.forced {
                println!("forced past [{}] {}", v.invariant.name(), v.message);
            }
            Ok(0)
        }
        Err(e) => Ok(report(&e)),
    }
}

/// A criterion's threshold set while its statement still names the old number (issue 43):
/// said, with the command that edits the statement.
fn stale_note(
    store: &crate::vsa::Store,
    path: &str,
    old: Option<&str>,
    dir: &Path,
) -> Option<String> {
    let old: f64 = old?.trim().trim_matches(['"', '\'']).parse().ok()?;
    let (id, _) = crate::vsa::stale::criterion_path(path)?;
    let snap = store.load().ok()?;
    let new = crate::vsa::stale::criterion_value(&snap.vsa, path)?;
    let note = crate::vsa::stale::stale_statement(&snap.vsa, path, old, &new.to_string())?;
    let run = crate::notice::message::shell_word(&dir.display().to_string());
    Some(format!(
        "note: {note}: youra vsa set --reason \"…\" {run} sub_hypotheses.{id}.statement \"…\""
    ))
}

fn history(dir: &Path, limit: usize, json: bool) -> Result<i32> {
    let store = match store_for(dir) {
        Ok(s) => s,
        Err(code) => return Ok(code),
    };
    let snap = match store.load() {
        Ok(s) => s,
        Err(e) => return Ok(report(&e)),
    };
    for e in snap.vsa.history.iter().rev().take(limit) {
        if json {
            println!("{}", serde_json::to_string(e)?);
            continue;
        }
        let when = e.timestamp.map_or_else(
            || "-".to_string(),
            |t| t.at.format("%Y-%m-%d %H:%M:%S").to_string(),
        );
        let actor = e.actor.as_deref().unwrap_or("-");
        let reason = e
            .reason
            .as_deref()
            .filter(|_| e.path.is_some())
            .map(|r| format!("  ({r})"))
            .unwrap_or_default();
        // The revision the entry's write made (`r12`), as `vsa set` and `status` print it;
        // `-` for an entry an agent wrote by hand, which carries none.
        let rev = e
            .revision
            .map_or_else(|| "-".to_string(), |r| format!("r{r}"));
        println!("{when}  {rev:<5}  {actor:<10}  {}{reason}", e.summary());
    }
    Ok(0)
}

fn validate(target: &Path) -> Result<i32> {
    let path = match vsa_file(target) {
        Ok(p) => p,
        Err(code) => return Ok(code),
    };
    let bytes = crate::fsutil::read_vsa_file(&path)
        .wrap_err_with(|| format!("cannot read {}", path.display()))?;
    let doc = match crate::yaml::parse(&bytes) {
        Ok(d) => d,
        Err(e) => {
            println!(
                "{}:{}:{}: error: {}",
                path.display(),
                e.line,
                e.col,
                e.message
            );
            return Ok(1);
        }
    };
    let (vsa, warnings) = crate::vsa::read(&doc);
    for w in &warnings {
        println!("{}:{}: warning: {}", path.display(), w.line, w.message);
    }
    let mut unsafe_ids = 0;
    for v in violations(&vsa) {
        let line = vsa.hypothesis(&v.hypothesis).map_or(1, |h| h.line);
        // An unsafe id is an error, not a warning: the engine refuses to run with it.
        let level = if v.invariant == crate::vsa::invariants::Invariant::SafeId {
            unsafe_ids += 1;
            "error"
        } else {
            "warning"
        };
        println!(
            "{}:{line}: {level}: invariant [{}] {}",
            path.display(),
            v.invariant.name(),
            v.message
        );
    }
    if unsafe_ids > 0 {
        println!(
            "{}: {unsafe_ids} unsafe id(s): rename them (and their folders) by hand, then validate again",
            path.display()
        );
        return Ok(1);
    }
    println!(
        "{}: ok ({} sub-hypotheses, {} history entries, revision {}, {} warning(s))",
        path.display(),
        vsa.sub_hypotheses.len(),
        vsa.history.len(),
        vsa.revision,
        warnings.len()
    );
    Ok(0)
}

/// `DONE` for a status is read as `COMPLETED` (an alias the YouRA files drifted to): said, so
/// nobody believes a value was kept that was not. `None` when the value was written as given.
fn alias_note(given: &str, written: Option<&str>) -> Option<String> {
    use crate::vsa::enums::{
        ExecutionMode, GateResult, GateType, HypothesisStatus, PhaseStatus, WorkflowStatus,
    };
    let given = given.trim();
    let written = written?;
    let canonical = [
        HypothesisStatus::NAMES,
        PhaseStatus::NAMES,
        GateType::NAMES,
        GateResult::NAMES,
        WorkflowStatus::NAMES,
        ExecutionMode::NAMES,
    ]
    .iter()
    .any(|names| names.contains(&written));
    (canonical && given != written)
        .then(|| format!("note: `{given}` was read as {written}, the name youra writes (an alias)"))
}

#[cfg(test)]
mod alias_tests {
    use super::alias_note;

    #[test]
    fn an_alias_is_named_and_a_canonical_value_is_not() {
        assert_eq!(
            alias_note("DONE", Some("COMPLETED")).as_deref(),
            Some("note: `DONE` was read as COMPLETED, the name youra writes (an alias)")
        );
        assert_eq!(alias_note("COMPLETED", Some("COMPLETED")), None);
        assert_eq!(alias_note("a text", Some("a text")), None);
        assert_eq!(alias_note("0.5", Some("0.50")), None, "not a vocabulary");
    }
}
