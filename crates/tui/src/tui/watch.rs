//! Watching the run directory. Editors save by rename, so directories are watched, not
//! files; events are debounced and filtered (youra's own lock and temp files are noise).
//! The watcher also names what changed ([`ChangeSet`]): every path it sees created,
//! removed, renamed or written, so a reader that sees only appends to the files it follows
//! re-reads those alone (`tui::refresh`), and a whole read re-reads only the parts a named
//! path touches. Only an event that names no path (or lost events) leaves it "unknown".

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use notify::RecursiveMode;
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};

use super::effect::AppEvent;

pub(crate) type Watcher = Debouncer<notify::RecommendedWatcher, RecommendedCache>;

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

/// What changed since the reader last looked: the files written in place (appends), the
/// paths created, removed or renamed (both names of a rename), and whether something
/// changed that no path names (an event without a path, a queue that overflowed, a watch
/// error, or nothing known yet), which calls for reading everything. A whole read keeps
/// each part of the last one that no named path touches (`run_view::read_run_since`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    pub written: BTreeSet<PathBuf>,
    pub named: BTreeSet<PathBuf>,
    pub other: bool,
}

impl Changes {
    /// `later` added to what is already known (a record taken in several batches).
    pub fn absorb(&mut self, later: Changes) {
        self.written.extend(later.written);
        self.named.extend(later.named);
        self.other |= later.other;
    }

    /// Anything may have changed: read everything.
    pub fn unknown() -> Changes {
        Changes {
            other: true,
            ..Changes::default()
        }
    }

    /// Nothing named and nothing unknown: the record was taken by an earlier read.
    pub fn is_empty(&self) -> bool {
        !self.other && self.written.is_empty() && self.named.is_empty()
    }

    /// Every path named, written in place or otherwise.
    pub fn paths(&self) -> impl Iterator<Item = &PathBuf> {
        self.written.iter().chain(&self.named)
    }

    /// Whether what lies under `dir` (or is the file `dir`) may have changed: anything
    /// unknown, a path under it, or a folder above it created, removed or renamed.
    pub fn touches(&self, dir: &Path) -> bool {
        self.other
            || self.paths().any(|p| p.starts_with(dir))
            || self.named.iter().any(|p| dir.starts_with(p))
    }

    /// Whether the entries of `dir` itself may differ (a listing of it, not of its
    /// sub-folders): a path created, removed or renamed in it or above it. A write in
    /// place changes no listing.
    pub fn lists(&self, dir: &Path) -> bool {
        self.other
            || self
                .named
                .iter()
                .any(|p| p.parent() == Some(dir) || dir.starts_with(p))
    }
}

/// The watcher's record of [`Changes`], shared with the reader thread. It starts as
/// "anything": nothing is known about what happened before the watch was in place.
#[derive(Debug, Clone)]
pub struct ChangeSet(Arc<Mutex<Changes>>);

impl Default for ChangeSet {
    fn default() -> ChangeSet {
        ChangeSet(Arc::new(Mutex::new(Changes::unknown())))
    }
}

impl ChangeSet {
    fn lock(&self) -> std::sync::MutexGuard<'_, Changes> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// One event: its paths are named (written in place, or otherwise); an event that
    /// names no path, or says the watcher lost events, makes everything unknown.
    fn record(&self, event: &notify::Event) {
        use notify::EventKind::{Access, Modify};
        use notify::event::AccessKind::Close;
        use notify::event::AccessMode::Write;
        use notify::event::ModifyKind::Data;
        let mut c = self.lock();
        if event.paths.is_empty() || event.need_rescan() {
            c.other = true;
            return;
        }
        let in_place = matches!(event.kind, Modify(Data(_)) | Access(Close(Write)));
        let into = if in_place {
            &mut c.written
        } else {
            &mut c.named
        };
        into.extend(event.paths.iter().filter(|p| relevant(p)).cloned());
    }

    /// Something changed that no event named (a reload nobody named, a watch just put in
    /// place): the next read reads everything.
    pub(crate) fn mark_unknown(&self) {
        self.lock().other = true;
    }

    /// What changed since the last call, and a fresh record for what comes next.
    pub fn take(&self) -> Changes {
        std::mem::take(&mut *self.lock())
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
            // A watch error may have lost events: what changed is unknown.
            let Ok(events) = res else {
                set.mark_unknown();
                let _ = tx.send(AppEvent::Changed);
                return;
            };
            let mut any = false;
            for e in &events {
                // An overflowed queue (a rescan) or an event without a path names nothing:
                // kept, as "unknown". Otherwise only changes to paths the screen shows.
                let unnamed = e.need_rescan() || (changes(&e.kind) && e.paths.is_empty());
                if unnamed || (changes(&e.kind) && e.paths.iter().any(|p| relevant(p))) {
                    set.record(e);
                    any = true;
                }
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
        // A new file is more than an append, and it is named: the reader re-reads what
        // lies under it, not everything.
        std::fs::write(dir.path().join("h-e1/notes.md"), "new").unwrap();
        let got = rx.recv_timeout(Duration::from_secs(5));
        assert!(matches!(got, Ok(AppEvent::Changed)), "{got:?}");
        let seen = settled(&set, &rx);
        assert!(!seen.other, "{seen:?}");
        assert!(seen.named.contains(&dir.path().join("h-e1/notes.md")));
        assert!(seen.touches(&dir.path().join("h-e1")) && !seen.touches(&dir.path().join("plan")));
        // An atomic save (a temp file renamed over the state, as the store and editors do)
        // names the state; the temp file is youra's noise and is not named.
        let vsa = dir.path().join("verification_state.yaml");
        let tmp = dir.path().join(".verification_state.yaml.9.tmp");
        std::fs::write(&tmp, "revision: 2\n").unwrap();
        std::fs::rename(&tmp, &vsa).unwrap();
        let got = rx.recv_timeout(Duration::from_secs(5));
        assert!(matches!(got, Ok(AppEvent::Changed)), "{got:?}");
        let seen = settled(&set, &rx);
        assert!(!seen.other && seen.touches(&vsa), "{seen:?}");
        assert!(seen.paths().all(|p| p == &vsa), "{seen:?}");
    }

    /// What the set holds once the watcher has been quiet for a while (a rename can come
    /// as more than one debounced batch).
    fn settled(set: &ChangeSet, rx: &std::sync::mpsc::Receiver<AppEvent>) -> Changes {
        let mut all = Changes::default();
        loop {
            all.absorb(set.take());
            if rx.recv_timeout(Duration::from_millis(300)).is_err() {
                return all;
            }
        }
    }

    /// An event that names no path, or a queue that overflowed, leaves nothing to go by:
    /// the next read reads everything.
    #[test]
    fn an_event_without_a_path_is_unknown() {
        use notify::event::{CreateKind, Flag};
        use notify::{Event, EventKind};
        let set = ChangeSet::default();
        assert!(set.take().other, "nothing is known before the first look");
        assert!(set.take().is_empty());
        set.record(&Event::new(EventKind::Any));
        assert_eq!(set.take(), Changes::unknown());
        set.record(&Event::new(EventKind::Other).set_flag(Flag::Rescan));
        assert!(set.take().other);
        set.record(&Event::new(EventKind::Create(CreateKind::File)).add_path("/r/plan/x".into()));
        let c = set.take();
        assert!(!c.other && c.touches(Path::new("/r/plan")) && !c.touches(Path::new("/r/memory")));
        // A folder above a part removed or renamed touches it; so does anything unknown.
        let mut c = Changes::default();
        c.named.insert("/r".into());
        assert!(c.touches(Path::new("/r/plan")) && c.lists(Path::new("/r/paper")));
        assert!(Changes::unknown().touches(Path::new("/anything")));
    }
}
