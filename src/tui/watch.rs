//! Watching the run directory. Editors save by rename, so directories are watched, not
//! files; events are debounced and filtered (youra's own lock and temp files are noise).
//! The watcher also names what changed ([`ChangeSet`]): a reader that sees only appends
//! to the files it follows re-reads those alone (`run_view::refresh`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use notify::RecursiveMode;
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};

use super::app::AppEvent;

pub type Watcher = Debouncer<notify::RecommendedWatcher, RecommendedCache>;

/// Whether a changed path can change what the panes show.
pub fn relevant(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    // The engine's server health is the one file under `.youra/` that the screen shows.
    if path.ends_with(super::tools::HEALTH_FILE) {
        return true;
    }
    let in_side_dir = path
        .components()
        .any(|c| c.as_os_str() == ".youra" || c.as_os_str() == "target" || c.as_os_str() == ".git");
    !(in_side_dir
        || name.ends_with(".tmp")
        || name.ends_with(".swp")
        || name.ends_with('~')
        || name.starts_with(".#"))
}

/// Creations, writes, renames and removals; not opens, reads or closes-without-write.
pub fn changes(kind: &notify::EventKind) -> bool {
    use notify::EventKind::{Any, Create, Modify, Remove};
    use notify::event::AccessKind::Close;
    use notify::event::AccessMode::Write;
    let metadata_only = matches!(kind, Modify(notify::event::ModifyKind::Metadata(_)));
    (matches!(kind, Create(_) | Modify(_) | Remove(_) | Any) && !metadata_only)
        || matches!(kind, notify::EventKind::Access(Close(Write)))
}

/// What changed since the reader last looked: the files written in place (appends), and
/// whether anything else happened (a file created, removed or renamed, or an event that
/// names no path), which calls for a whole read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    pub written: BTreeSet<PathBuf>,
    pub other: bool,
}

/// The watcher's record of [`Changes`], shared with the reader thread. It starts as
/// "anything": nothing is known about what happened before the watch was in place.
#[derive(Debug, Clone)]
pub struct ChangeSet(Arc<Mutex<Changes>>);

impl Default for ChangeSet {
    fn default() -> ChangeSet {
        ChangeSet(Arc::new(Mutex::new(Changes {
            written: BTreeSet::new(),
            other: true,
        })))
    }
}

impl ChangeSet {
    fn record(&self, kind: &notify::EventKind, paths: &[PathBuf]) {
        use notify::EventKind::{Access, Modify};
        use notify::event::ModifyKind::Data;
        let mut c = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let in_place = matches!(kind, Modify(Data(_)) | Access(_));
        if !in_place || paths.is_empty() {
            c.other = true;
        }
        c.written
            .extend(paths.iter().filter(|p| relevant(p)).cloned());
    }

    /// What changed since the last call, and a fresh record for what comes next.
    pub fn take(&self) -> Changes {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

/// Start watching `dirs` recursively; changes arrive as [`AppEvent::Changed`].
pub fn watch(dirs: &[PathBuf], tx: Sender<AppEvent>) -> notify::Result<Watcher> {
    watch_naming(dirs, tx, ChangeSet::default())
}

/// [`watch`], recording what changed in `changes` before each [`AppEvent::Changed`].
pub fn watch_naming(
    dirs: &[PathBuf],
    tx: Sender<AppEvent>,
    set: ChangeSet,
) -> notify::Result<Watcher> {
    let mut debouncer = new_debouncer(
        Duration::from_millis(30),
        None,
        move |res: DebounceEventResult| {
            // Opening or reading a file is an event too (inotify's open/access): the
            // reader's own reads must not wake the reader again.
            let Ok(events) = res else {
                return;
            };
            let mut any = false;
            for e in events
                .iter()
                .filter(|e| changes(&e.kind) && e.paths.iter().any(|p| relevant(p)))
            {
                set.record(&e.kind, &e.paths);
                any = true;
            }
            if any {
                let _ = tx.send(AppEvent::Changed);
            }
        },
    )?;
    for d in dirs {
        debouncer.watch(d, RecursiveMode::Recursive)?;
    }
    Ok(debouncer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_files_and_editor_swaps_are_ignored() {
        assert!(relevant(Path::new("/r/verification_state.yaml")));
        assert!(relevant(Path::new("/r/h-e1/results/metrics.jsonl")));
        assert!(!relevant(Path::new("/r/.youra/vsa.lock")));
        assert!(relevant(Path::new("/r/.youra/tools_health.json")));
        assert!(!relevant(Path::new("/r/.verification_state.yaml.123.tmp")));
        assert!(!relevant(Path::new("/r/.verification_state.yaml.swp")));
    }

    /// The Experiments pane's chart is live only if a line appended to `metrics.jsonl` wakes
    /// the reader: the watcher must report it as a change.
    #[test]
    fn an_appended_metrics_line_is_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let results = dir.path().join("h-e1/results");
        std::fs::create_dir_all(&results).unwrap();
        let path = results.join("metrics.jsonl");
        std::fs::write(&path, "{\"step\": 1, \"accuracy\": 0.1}\n").unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let set = ChangeSet::default();
        let _watcher = watch_naming(&[dir.path().to_path_buf()], tx, set.clone()).unwrap();
        // Let the watches settle, and drop anything the set-up itself reported.
        std::thread::sleep(Duration::from_millis(200));
        while rx.try_recv().is_ok() {}
        assert!(
            set.take().other,
            "before the first look, anything may have changed"
        );
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        writeln!(f, "{{\"step\": 2, \"accuracy\": 0.4}}").unwrap();
        drop(f);
        let got = rx.recv_timeout(Duration::from_secs(5));
        assert!(matches!(got, Ok(AppEvent::Changed)), "{got:?}");
        // An append is named as a write in place, and nothing else changed.
        let seen = set.take();
        assert!(!seen.other, "{seen:?}");
        assert!(
            seen.written
                .iter()
                .any(|p| p.ends_with("h-e1/results/metrics.jsonl"))
        );
        // A new file is more than an append: the reader reads the whole run.
        std::fs::write(dir.path().join("h-e1/notes.md"), "new").unwrap();
        let got = rx.recv_timeout(Duration::from_secs(5));
        assert!(matches!(got, Ok(AppEvent::Changed)), "{got:?}");
        assert!(set.take().other);
    }
}
