//! Everything the panes show, read from the run directory in one go, off the UI thread.
//! The UI keeps the last good VSA when a new read fails, and shows the failure instead.
//! A read after the first keeps what no changed path touches ([`read_run_since`], `keep`);
//! the first leaves a large plan tree's node files to the next ([`read_run_first`]).

mod keep;
use keep::PlanKeep;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::data::RunRead;
use super::rows::EventRow;
use crate::rundir::RunDir;
use crate::rundir::archive::load_archives;
use crate::rundir::artifacts::scan;
use crate::rundir::memory::{MemoryRecord, load_dir_keeping};
use crate::vsa::timestamp::Timestamp;
use crate::vsa::{Snapshot, Store};

pub fn read_run(run: &RunDir, store: &Store) -> RunRead {
    read_run_with(run, store, &mut super::follow::Follower::whole(&run.root))
}

/// A read of everything that takes the appended files from where `follower`'s last read
/// ended (the reader thread keeps one for the session).
pub fn read_run_with(
    run: &RunDir,
    store: &Store,
    follower: &mut super::follow::Follower,
) -> RunRead {
    read_all(run, store, follower, Plan::Now)
}

/// The reader's first read of a run: everything, but a large plan tree only as the pane's
/// placeholder (`plan_view::pending`), so the first frame does not wait for thousands of
/// node files; the next read (the watcher's, once it is in place) reads them.
pub fn read_run_first(
    run: &RunDir,
    store: &Store,
    follower: &mut super::follow::Follower,
) -> RunRead {
    read_all(run, store, follower, Plan::Later)
}

fn read_all(
    run: &RunDir,
    store: &Store,
    follower: &mut super::follow::Follower,
    plan: Plan,
) -> RunRead {
    let vsa = store.load().map_err(|e| e.to_string());
    assemble(run, vsa, false, follower, &keep::Keep::nothing(run), plan)
}

/// A whole read after `prev` (the last whole read): what no path in `changes` touches is
/// kept from it (the VSA unless it is named, the plan view unless a path under `plan/` is,
/// the memory records, archives and file lists likewise: `keep`); `changes.other` (an
/// event that named no path) reads everything.
pub fn read_run_since(
    run: &RunDir,
    store: &Store,
    follower: &mut super::follow::Follower,
    prev: Option<&RunRead>,
    changes: &super::watch::Changes,
) -> RunRead {
    let keep = keep::Keep::since(run, prev, changes);
    let vsa = keep
        .vsa()
        .unwrap_or_else(|| store.load().map_err(|e| e.to_string()));
    assemble(run, vsa, false, follower, &keep, Plan::Now)
}

/// Whether a read takes the plan tree's node files now or leaves a large tree to the next.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Plan {
    Now,
    Later,
}

/// Files above this size are first shown without their history, which is most of their bytes.
pub(crate) const QUICK_MIN_BYTES: u64 = 1 << 20;

/// A first read of a large VSA without its top-level `history:` section, so the screen fills
/// while the full read (history and all) is still parsing. `None` when the file is small, or
/// its history cannot be cut out safely; the full read follows in every case.
pub fn read_run_quick(run: &RunDir) -> Option<RunRead> {
    read_run_quick_with(run, &mut super::follow::Follower::new(&run.root))
}

/// [`read_run_quick`] with the reader thread's follower.
pub(crate) fn read_run_quick_with(
    run: &RunDir,
    follower: &mut super::follow::Follower,
) -> Option<RunRead> {
    if std::fs::metadata(&run.vsa).ok()?.len() < QUICK_MIN_BYTES {
        return None;
    }
    let bytes = crate::fsutil::read_vsa_file(&run.vsa).ok()?;
    let text = std::str::from_utf8(&bytes).ok()?;
    let (a, b) = top_level_section(text, "history")?;
    let rest = format!("{}{}", &text[..a], &text[b..]);
    let doc = crate::yaml::parse(rest.as_bytes()).ok()?;
    let (vsa, warnings) = crate::vsa::read(&doc);
    Some(assemble(
        run,
        Ok(Arc::new(Snapshot {
            doc,
            vsa,
            warnings,
            elided: 0,
        })),
        true,
        follower,
        &keep::Keep::nothing(run),
        Plan::Later,
    ))
}

/// Byte range of a top-level key's section: from its line to the next line that starts a
/// top-level key (a letter, `_` or a quote at column 0), or the end.
fn top_level_section(text: &str, key: &str) -> Option<(usize, usize)> {
    let head = format!("{key}:");
    let start = if text.starts_with(&head) {
        0
    } else {
        text.find(&format!("\n{head}"))? + 1
    };
    let mut i = text[start..].find('\n').map(|p| start + p + 1)?;
    while i < text.len() {
        let c = text.as_bytes()[i];
        if c.is_ascii_alphabetic() || c == b'_' || c == b'"' || c == b'\'' {
            return Some((start, i));
        }
        i = text[i..].find('\n').map_or(text.len(), |p| i + p + 1);
    }
    Some((start, text.len()))
}

fn assemble(
    run: &RunDir,
    vsa: Result<Arc<Snapshot>, String>,
    history_pending: bool,
    follower: &mut super::follow::Follower,
    keep: &keep::Keep,
    plan: Plan,
) -> RunRead {
    let (memory, memory_fresh) = keep.memory().map_or_else(
        || {
            let records = keep.records();
            let kept = |path: &Path| keep.record(&records, path);
            (read_memory_keeping(run, &kept), true)
        },
        |m| (m, false),
    );
    let (archives, archives_fresh) = keep
        .archives()
        .map_or_else(|| (load_archives(&run.root), true), |a| (a, false));
    let memory_links = keep
        .links(&memory, memory_fresh || archives_fresh)
        .unwrap_or_else(|| crate::rundir::lessons::links(&run.root, &memory, &archives));
    let ids: Vec<String> = vsa
        .as_ref()
        .map(|s| s.vsa.sub_hypotheses.iter().map(|h| h.id.clone()).collect())
        .unwrap_or_default();
    let seen = last_seen(run);
    let (events, index, events_file) =
        super::refresh::events(run, follower, vsa.as_ref().ok().map(|s| &**s), seen);
    let entries = super::refresh::entries(run);
    let metrics = super::refresh::metrics(run, &ids, &entries, follower);
    let usage = follower.usage();
    let config = crate::config::load(&run.root);
    let config_error = config.as_ref().err().map(|e| {
        format!(
            "{e} — youra.toml cannot be read: this view uses default settings, and `youra run` \
             refuses the run until it is fixed"
        )
    });
    let config = config.ok();
    let recovery = config.as_ref().map(|c| c.recovery).unwrap_or_default();
    let sandbox = config.as_ref().map(|c| c.exec.sandbox).unwrap_or_default();
    let plan_on = config.as_ref().is_some_and(|c| c.plan.budget_tokens > 0);
    let stage_since = vsa
        .as_ref()
        .ok()
        .and_then(|s| crate::tui::panes::lifecycle::since(&s.vsa));
    let mut files: Vec<(String, Vec<PathBuf>)> = ids
        .iter()
        .map(|h| {
            let listed = keep.files_of(h);
            (
                h.clone(),
                listed.unwrap_or_else(|| list_files(&run.root.join(h), 3)),
            )
        })
        .collect();
    // The run's own files, its paper and review, and every recorded exchange (the viewer
    // shows a transcript as a conversation, tool calls included).
    let run_files = keep.run_files().unwrap_or_else(|| {
        let mut run_files = list_files(&run.root, 1);
        for sub in ["paper", "transcripts"] {
            run_files.extend(list_files(&run.root.join(sub), 2));
        }
        run_files
    });
    files.push(("run".into(), run_files));
    let jobs = vsa.as_ref().map_or_else(
        |_| Vec::new(),
        |s| crate::rundir::jobs::queue(&index, &s.vsa, chrono::Utc::now().fixed_offset()),
    );
    let shown = super::refresh::with_experiments(&ids, &entries, &jobs);
    let experiments =
        super::experiments::read_experiments(&run.root, &shown, &entries, &metrics, &index, &jobs);
    let (skipped_stages, routing) = vsa
        .as_ref()
        .map(|s| lifecycle_directives(&s.doc))
        .unwrap_or_default();
    let progress = vsa
        .as_ref()
        .map(|s| super::progress::read(&s.doc))
        .unwrap_or_default();
    let pause = vsa
        .as_ref()
        .ok()
        .and_then(|s| crate::vsa::pause::PauseCause::of(&s.vsa));
    // The recorded run is read again with every read of this one: both files are small,
    // and a cache would have to watch the other run too.
    let comparison = match &vsa {
        Ok(s) if !history_pending => crate::compare::with_recorded(&run.root, s),
        _ => None,
    };
    RunRead {
        pause,
        comparison,
        audit: crate::audit::record::read(&run.root),
        servers: super::tools::read_servers(&run.root),
        progress,
        history_pending,
        skipped_stages,
        routing,
        plan: match (plan, keep.plan()) {
            (_, PlanKeep::Kept(kept)) => kept.map(|v| *v),
            (_, PlanKeep::Since(prev, ids)) => {
                super::plan_view::read_plan_since(&run.root, Some(prev), &|id| ids.contains(id))
            }
            (Plan::Now, PlanKeep::Read) => super::plan_view::read_plan(&run.root),
            (Plan::Later, PlanKeep::Read) => super::plan_view::read_plan_first(&run.root),
        },
        last_seen: seen,
        experiments,
        vsa,
        memory,
        memory_links,
        lessons_from: Vec::new(),
        archives,
        artifacts: ids
            .iter()
            .map(|h| {
                keep.artifacts_of(h)
                    .unwrap_or_else(|| scan(&run.root, std::slice::from_ref(h)).remove(0))
            })
            .collect(),
        events,
        events_file,
        gpus: super::experiments::gpus(),
        files,
        stage_since,
        usage,
        recovery,
        sandbox,
        plan_on,
        config_error,
        metrics,
    }
}

fn read_memory(run: &RunDir) -> Vec<MemoryRecord> {
    read_memory_keeping(run, &|_| None)
}

/// Every memory root's records, each taken from `kept` when it has it.
fn read_memory_keeping(
    run: &RunDir,
    kept: &dyn Fn(&Path) -> Option<MemoryRecord>,
) -> Vec<MemoryRecord> {
    let mut memory = Vec::new();
    for root in run.memory_roots() {
        memory.extend(load_dir_keeping(&root, kept).0);
    }
    memory
}

/// The records of a further run given to `youra tui`, with their links.
pub fn read_lessons(run: &RunDir) -> super::lessons_state::OtherRun {
    let records = read_memory(run);
    let links = crate::rundir::lessons::links(&run.root, &records, &load_archives(&run.root));
    super::lessons_state::OtherRun {
        name: run.root.file_name().map_or_else(
            || run.root.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ),
        root: run.root.clone(),
        records,
        links,
    }
}

/// Files under `dir` down to `depth` levels, sorted, without youra's and VCS folders; capped
/// so that a run with a huge `data/` folder still lists quickly.
fn list_files(dir: &Path, depth: usize) -> Vec<PathBuf> {
    const CAP: usize = 500;
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), 0)];
    while let Some((d, level)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || name == "__pycache__" {
                continue;
            }
            if p.is_dir() {
                if level + 1 < depth {
                    stack.push((p, level + 1));
                }
            } else if out.len() < CAP {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn seen_file(run: &RunDir) -> PathBuf {
    run.vsa
        .parent()
        .map_or_else(|| run.root.clone(), Path::to_path_buf)
        .join(".youra")
        .join("tui_seen")
}

fn last_seen(run: &RunDir) -> Option<Timestamp> {
    crate::fsutil::read_run_text(seen_file(run))
        .ok()
        .as_deref()
        .map(str::trim)
        .and_then(Timestamp::parse)
}

/// Remember the newest event shown, so the next session can mark what is new.
pub fn remember_seen(run: &RunDir, events: &[EventRow]) -> std::io::Result<()> {
    let Some(newest) = events.iter().filter_map(|e| e.at).map(|t| t.at).max() else {
        return Ok(());
    };
    let path = seen_file(run);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, newest.to_rfc3339())
}

/// The steering directives that reshape the lifecycle: applied skips of a stage, and every
/// redesign, reset or skip for the timeline (with its state: pending until the engine acts).
fn lifecycle_directives(doc: &crate::yaml::Document) -> (Vec<crate::stage::Stage>, Vec<String>) {
    use crate::steer::{DirectiveState, Verb, directives};
    let mut skipped = Vec::new();
    let mut lines = Vec::new();
    for d in directives(doc) {
        let Some(verb @ (Verb::Redesign | Verb::Reset | Verb::Skip)) = d.verb() else {
            continue;
        };
        let target = d.target.clone().unwrap_or_else(|| "run".into());
        if verb == Verb::Skip
            && d.state == DirectiveState::Applied
            && let Some(stage) = crate::stage::Stage::parse(&target)
        {
            skipped.push(stage);
        }
        lines.push(format!("⤴ {} {target} ({})", verb.name(), d.state.as_str()));
    }
    (skipped, lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_are_cut_at_top_level_keys() {
        let t = "a: 1\nhistory:\n- event: x\n  details: 'y'\n# c\n- event: z\nrevision: 2\n";
        let (s, e) = top_level_section(t, "history").unwrap();
        assert_eq!(
            &t[s..e],
            "history:\n- event: x\n  details: 'y'\n# c\n- event: z\n"
        );
        assert_eq!(top_level_section("history: []\n", "history"), Some((0, 12)));
        assert_eq!(top_level_section("a:\n  history: 1\n", "history"), None);
    }

    #[test]
    fn the_events_rows_hold_the_newest_history_entries_as_many_as_the_window() {
        let dir = tempfile::tempdir().unwrap();
        let n = crate::tui::follow::WINDOW + 500;
        let mut v = String::from("workflow:\n  status: ACTIVE\nhistory:\n");
        for i in 0..n {
            v.push_str(&format!("- event: step\n  details: 'mark-{i:05}'\n"));
        }
        std::fs::write(dir.path().join("verification_state.yaml"), &v).unwrap();
        let run = crate::rundir::discover(dir.path()).unwrap();
        let read = read_run(&run, &Store::new(&run.vsa));
        let rows: Vec<&str> = read
            .events
            .iter()
            .filter(|e| e.from_history)
            .map(|e| e.text.as_str())
            .collect();
        assert_eq!(rows.len(), crate::tui::follow::WINDOW);
        let has = |m: &str| rows.iter().any(|t| t.contains(m));
        assert!(has(&format!("mark-{:05}", n - 1)), "the newest is shown");
        assert!(
            has("mark-00500") && !has("mark-00499"),
            "the oldest 500 are not"
        );
    }

    #[test]
    fn a_large_run_is_first_read_without_its_history() {
        let dir = tempfile::tempdir().unwrap();
        let mut v = String::from(
            "workflow:\n  status: ACTIVE\nsub_hypotheses:\n  h-e1:\n    status: READY\nhistory:\n",
        );
        while v.len() < QUICK_MIN_BYTES as usize + 10 {
            v.push_str("- event: padding entry for a large file\n  details: 'x'\n");
        }
        v.push_str("revision: 4\n");
        std::fs::write(dir.path().join("verification_state.yaml"), &v).unwrap();
        let run = crate::rundir::discover(dir.path()).unwrap();
        let quick = read_run_quick(&run).expect("quick path");
        let snap = quick.vsa.as_ref().unwrap();
        assert!(quick.history_pending);
        assert_eq!(
            (
                snap.vsa.history.len(),
                snap.vsa.revision,
                snap.vsa.sub_hypotheses.len()
            ),
            (0, 4, 1)
        );
        let full = read_run(&run, &Store::new(&run.vsa));
        assert!(!full.history_pending);
        assert!(full.vsa.as_ref().unwrap().vsa.history.len() > 10_000);
        std::fs::write(
            dir.path().join("verification_state.yaml"),
            "workflow:\n  status: ACTIVE\n",
        )
        .unwrap();
        assert!(read_run_quick(&run).is_none(), "small files take one read");
    }
}
