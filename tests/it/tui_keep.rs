//! A whole read of a run keeps what no changed path touches (issue 30): after a `vsa set`
//! (the state saved by rename) the plan's node files and the memory records are not read
//! again, so a change to them that nobody named stays unseen until a path under them is
//! named, or until an event names no path (then everything is read). A run's first read
//! leaves a large plan tree's nodes to the next and says it is reading them.

#[path = "../../benches/common/plan_tree.rs"]
mod plan_tree;

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use youra::tui::data::RunRead;
use youra::tui::effect::AppEvent;
use youra::tui::follow::Follower;
use youra::tui::refresh::{base_of, refresh};
use youra::tui::run_view::{read_run_first, read_run_since, read_run_with};
use youra::tui::watch::{ChangeSet, Changes, watch_naming};
use youra::vsa::Store;

/// What the watcher named once it has been quiet for a while (a rename can come as more
/// than one debounced batch).
fn settled(set: &ChangeSet, rx: &Receiver<AppEvent>) -> Changes {
    let got = rx.recv_timeout(Duration::from_secs(5));
    assert!(matches!(got, Ok(AppEvent::Changed)), "{got:?}");
    let mut all = Changes::default();
    loop {
        all.absorb(set.take());
        if rx.recv_timeout(Duration::from_millis(300)).is_err() {
            return all;
        }
    }
}

/// The state saved as the store and editors save it: a temp file renamed over it.
fn save_by_rename(vsa: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(vsa).unwrap().replacen(from, to, 1);
    let tmp = vsa.with_file_name(".verification_state.yaml.77.tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, vsa).unwrap();
}

fn prior(run: &Path, estimate: f64) {
    prior_of(run, "n-0001", estimate);
}

/// Node `id`'s P written as `estimate`.
fn prior_of(run: &Path, id: &str, estimate: f64) {
    let path = run.join("plan/nodes").join(id).join("prior.json");
    std::fs::write(path, format!("{{\"estimate\": {estimate}}}")).unwrap();
}

/// The run at `root` read once: the run, its store, the follower and the read to keep from.
fn read_once(root: &Path) -> (youra::rundir::RunDir, Store, Follower, RunRead) {
    let run = youra::rundir::discover(root).unwrap();
    let store = Store::new(&run.vsa);
    let mut follower = Follower::new(&run.root);
    let mut first = read_run_with(&run, &store, &mut follower);
    let base = base_of(&mut first);
    (run, store, follower, base)
}

fn p_of(read: &RunRead, id: &str) -> f64 {
    let plan = read.plan.as_ref().expect("a plan view");
    plan.rows.iter().find(|r| r.id == id).expect("the node").p
}

fn revision(read: &RunRead) -> u64 {
    read.vsa.as_ref().unwrap().vsa.revision
}

#[test]
fn a_vsa_save_re_reads_the_vsa_and_not_the_plan_nodes_or_records() {
    let (_guard, root) = super::common::temp_run(&super::common::example_run());
    let (run, store, mut follower, base) = read_once(&root);
    let (p0, records) = (p_of(&base, "n-0001"), base.memory.len());
    assert!(records > 0 && (p0 - 0.7).abs() < 1e-9, "{p0} {records}");

    // Changed behind the watcher's back: nobody names these.
    prior(&root, 0.1);
    let record: PathBuf = std::fs::read_dir(root.join("memory"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.is_file())
        .unwrap();
    std::fs::remove_file(&record).unwrap();

    let (tx, rx) = channel();
    let set = ChangeSet::default();
    let _watcher = watch_naming(std::slice::from_ref(&run.root), tx, set.clone()).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    while rx.try_recv().is_ok() {}
    assert!(
        set.take().other,
        "before the first look, anything may have changed"
    );

    // `youra vsa set`: the state is named, and only the state.
    save_by_rename(&run.vsa, "revision: 7", "revision: 8");
    let changes = settled(&set, &rx);
    assert!(!changes.other, "{changes:?}");
    assert!(changes.paths().all(|p| p == &run.vsa), "{changes:?}");
    assert!(refresh(&base, &run, &mut follower, &changes).is_none());
    let mut read = read_run_since(&run, &store, &mut follower, Some(&base), &changes);
    assert_eq!(revision(&read), 8, "the named state is read again");
    assert_eq!(
        p_of(&read, "n-0001"),
        p0,
        "the plan's node files are not read"
    );
    assert_eq!(read.memory.len(), records, "nor are the memory records");
    let base = base_of(&mut read);

    // A node file the watcher names is read, with the plan it belongs to.
    prior(&root, 0.2);
    let changes = settled(&set, &rx);
    assert!(
        !changes.other && changes.touches(&root.join("plan")),
        "{changes:?}"
    );
    let mut read = read_run_since(&run, &store, &mut follower, Some(&base), &changes);
    assert!((p_of(&read, "n-0001") - 0.2).abs() < 1e-9);
    assert_eq!(read.memory.len(), records, "the records are still not read");
    let base = base_of(&mut read);

    // An event that names no path: everything is read.
    let read = read_run_since(
        &run,
        &store,
        &mut follower,
        Some(&base),
        &Changes::unknown(),
    );
    assert_eq!(read.memory.len(), records - 1, "the removed record is gone");
    assert_eq!(revision(&read), 8);
    // And so is a read with no last read to keep from.
    let fresh = read_run_since(&run, &store, &mut follower, None, &Changes::default());
    assert_eq!(fresh.memory.len(), records - 1);
}

#[test]
fn only_the_named_nodes_files_are_read_again() {
    let (_guard, root) = super::common::temp_run(&super::common::example_run());
    let (run, store, mut follower, base) = read_once(&root);
    let p2 = p_of(&base, "n-0002");

    // Both nodes change; the watcher names only n-0001's file (n-0002's change is the
    // kind a missed event would leave).
    prior(&root, 0.2);
    prior_of(&root, "n-0002", 0.35);
    let named = Changes {
        written: [root.join("plan/nodes/n-0001/prior.json")].into(),
        ..Changes::default()
    };
    let mut read = read_run_since(&run, &store, &mut follower, Some(&base), &named);
    assert!(
        (p_of(&read, "n-0001") - 0.2).abs() < 1e-9,
        "the named node is read"
    );
    assert_eq!(p_of(&read, "n-0002"), p2, "the other node's files are kept");
    let base = base_of(&mut read);

    // Once n-0002 is named too, the view is what a full read gives.
    let named = Changes {
        written: [root.join("plan/nodes/n-0002/prior.json")].into(),
        ..Changes::default()
    };
    let read = read_run_since(&run, &store, &mut follower, Some(&base), &named);
    assert!((p_of(&read, "n-0002") - 0.35).abs() < 1e-9);
    let full = read_run_with(&run, &store, &mut Follower::new(&run.root));
    assert_eq!(read.plan, full.plan);

    // The nodes' folder itself made again: every node is read.
    prior(&root, 0.4);
    let renamed = Changes {
        named: [root.join("plan/nodes")].into(),
        ..Changes::default()
    };
    let read = read_run_since(&run, &store, &mut follower, Some(&base), &renamed);
    assert!((p_of(&read, "n-0001") - 0.4).abs() < 1e-9);
}

#[test]
fn only_the_named_memory_record_is_read_again() {
    let (_guard, root) = super::common::temp_run(&super::common::example_run());
    let (a, b) = (
        root.join("memory/failure_h-m1_run1.md"),
        root.join("memory/note_h-e1.md"),
    );
    std::fs::write(&b, "# A note on h-e1\n\n**Hypothesis:** h-e1\n").unwrap();
    let (run, store, mut follower, base) = read_once(&root);
    let title = |read: &RunRead, path: &Path| {
        let r = read
            .memory
            .iter()
            .find(|r| r.path == path)
            .expect("the record");
        r.title.clone().unwrap_or_default()
    };
    let old_a = title(&base, &a);
    assert_eq!(title(&base, &b), "A note on h-e1");

    // Both change; the watcher names only the note.
    let text = std::fs::read_to_string(&a).unwrap();
    std::fs::write(&a, text.replacen("# ", "# Edited: ", 1)).unwrap();
    std::fs::write(&b, "# The note, edited\n\n**Hypothesis:** h-e1\n").unwrap();
    let named = Changes {
        written: [b.clone()].into(),
        ..Changes::default()
    };
    let mut read = read_run_since(&run, &store, &mut follower, Some(&base), &named);
    assert_eq!(
        title(&read, &b),
        "The note, edited",
        "the named record is read"
    );
    assert_eq!(title(&read, &a), old_a, "the other record is kept");
    let base = base_of(&mut read);

    // Named too, it reads as a full read does.
    let named = Changes {
        written: [a.clone()].into(),
        ..Changes::default()
    };
    let read = read_run_since(&run, &store, &mut follower, Some(&base), &named);
    let full = read_run_with(&run, &store, &mut Follower::new(&run.root));
    assert!(
        title(&read, &a).starts_with("Edited: "),
        "{}",
        title(&read, &a)
    );
    let titles = |r: &RunRead| r.memory.iter().map(|m| m.title.clone()).collect::<Vec<_>>();
    assert_eq!(titles(&read), titles(&full));
}

#[test]
fn the_first_read_leaves_a_large_plan_tree_to_the_next() {
    let (_guard, root) = super::common::temp_run(&super::common::example_run());
    plan_tree::write_ternary(&root, 1200, 4, Some("h-e1"));
    let run = youra::rundir::discover(&root).unwrap();
    let store = Store::new(&run.vsa);
    let mut follower = Follower::new(&run.root);
    let mut first = read_run_first(&run, &store, &mut follower);
    let plan = first.plan.as_ref().expect("a plan tree, still being read");
    assert!(plan.loading && plan.rows.is_empty());
    assert_eq!(plan.problems, [youra::tui::plan_view::LOADING]);
    assert!(
        plan.budget.is_some(),
        "the budget is one file: shown at once"
    );
    let base = base_of(&mut first);
    // Even with nothing named, the next read is a whole one and reads the nodes.
    assert!(refresh(&base, &run, &mut follower, &Changes::default()).is_none());
    let next = read_run_since(
        &run,
        &store,
        &mut follower,
        Some(&base),
        &Changes::default(),
    );
    let plan = next.plan.as_ref().unwrap();
    assert!(!plan.loading);
    assert_eq!(plan.rows.len(), 1200);
    assert_eq!(
        next.plan,
        read_run_with(&run, &store, &mut Follower::new(&run.root)).plan
    );
}
