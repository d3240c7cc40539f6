//! Transactions and outside writers: several edits in one write and one revision; a stale
//! save (an older copy written back) merged and reported, never silently undone.

use crate::common;

use common::*;
use youra::vsa::mutation::{Change, Mutation};
use youra::vsa::{SetRequest, Store};
use youra::yaml::NewNode;

fn set(path: &str, value: &str) -> Change {
    Change::Set {
        path: path.into(),
        value: value.into(),
    }
}

fn researcher(store: &Store, path: &str, value: &str) {
    store
        .set(&SetRequest {
            path,
            value,
            reason: "test",
            actor: "researcher",
            force: true,
            create: true,
            base: None,
        })
        .unwrap();
}

#[test]
fn a_transaction_is_one_write_one_revision_one_entry_per_field() {
    let (_dir, vsa) = temp_copy(&example_run().join("verification_state.yaml"));
    let store = Store::new(&vsa);
    let before = store.load().unwrap();
    let tx = Mutation::by("engine")
        .with(set("workflow.next_action", "judge h-m2"), "engine", "one")
        .with(set("sub_hypotheses.h-m2.status", "FAILED"), "status", "two")
        .with(
            Change::Put {
                path: "statistics".into(),
                value: NewNode::Map(vec![("validated".into(), NewNode::Scalar("3".into()))]),
            },
            "statistics",
            "three",
        );
    let applied = store.mutate(&tx).unwrap();
    assert_eq!(applied.revision, before.vsa.revision + 1);
    let after = store.load().unwrap();
    assert_eq!(after.vsa.revision, before.vsa.revision + 1);
    let new: Vec<_> = after.vsa.history.since(before.vsa.history.len()).collect();
    assert_eq!(new.len(), 3, "{new:?}");
    assert!(new.iter().all(|e| e.revision == Some(applied.revision)));
    assert_eq!(
        after.vsa.hypothesis("h-m2").unwrap().status.as_str(),
        "FAILED"
    );
    assert_eq!(
        after.vsa.workflow.next_action.as_deref(),
        Some("judge h-m2")
    );
}

#[test]
fn edits_inside_one_new_parent_fall_back_to_one_by_one() {
    let (_dir, vsa) = temp_copy(&example_run().join("verification_state.yaml"));
    let store = Store::new(&vsa);
    let mut tx = Mutation::by("engine");
    tx.push(set("recovery.pivots", "1"), "routing", "a");
    tx.push(
        Change::Append {
            list: "recovery.failed_hypotheses".into(),
            item: NewNode::Map(vec![("hypothesis".into(), NewNode::Scalar("h-e1".into()))]),
        },
        "routing",
        "b",
    );
    store.mutate(&tx).unwrap();
    let text = std::fs::read_to_string(&vsa).unwrap();
    let doc = youra::yaml::parse(text.as_bytes()).unwrap();
    let rec = doc.root.as_ref().unwrap().get("recovery").unwrap();
    assert_eq!(rec.get("pivots").unwrap().as_str(), Some("1"));
    assert_eq!(
        rec.get("failed_hypotheses")
            .unwrap()
            .as_seq()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn a_stale_save_is_merged_and_reported() {
    let (dir, vsa) = temp_copy(&example_run().join("verification_state.yaml"));
    let store = Store::new(&vsa);
    researcher(&store, "workflow.next_action", "first");
    // The editor loads this revision…
    let stale = std::fs::read_to_string(&vsa).unwrap();
    // …youra writes two more…
    researcher(&store, "workflow.next_action", "second");
    researcher(&store, "sub_hypotheses.h-m2.status", "FAILED");
    let high = store.load().unwrap().vsa.revision;
    // …and the editor saves its old buffer with one change of its own.
    let edited = stale.replace("project_name:", "project_name: edited #");
    assert_ne!(edited, stale, "the fixture has a project_name");
    std::fs::write(&vsa, &edited).unwrap();
    let snap = store.load_reconciled().unwrap();
    assert!(
        snap.vsa.revision > high,
        "the revision never moves backwards"
    );
    assert_eq!(
        snap.vsa.workflow.next_action.as_deref(),
        Some("second"),
        "youra's write is back"
    );
    assert_eq!(
        snap.vsa.hypothesis("h-m2").unwrap().status.as_str(),
        "FAILED"
    );
    let text = std::fs::read_to_string(&vsa).unwrap();
    assert!(
        text.contains("project_name: edited"),
        "the editor's own change stays"
    );
    let entry = snap.vsa.history.last().unwrap();
    assert_eq!(entry.event.as_deref(), Some("stale_save"));
    drop(dir);
}

#[test]
fn a_stale_save_over_youra_s_field_is_a_reported_conflict() {
    let (_dir, vsa) = temp_copy(&example_run().join("verification_state.yaml"));
    let store = Store::new(&vsa);
    researcher(&store, "workflow.next_action", "first");
    let stale = std::fs::read_to_string(&vsa).unwrap();
    researcher(&store, "workflow.next_action", "youra's");
    let mine = stale
        .replace("next_action: \"first\"", "next_action: mine")
        .replace("next_action: first", "next_action: mine");
    assert_ne!(mine, stale);
    std::fs::write(&vsa, mine).unwrap();
    let applied = store
        .mutate(&Mutation::new(
            set("workflow.current_phase", "Phase 4"),
            "engine",
            "engine",
            "x",
        ))
        .unwrap();
    assert_eq!(applied.conflicts, vec!["workflow.next_action".to_string()]);
    let snap = store.load().unwrap();
    assert_eq!(
        snap.vsa.workflow.next_action.as_deref(),
        Some("mine"),
        "the outside value is kept"
    );
    let text = std::fs::read_to_string(&vsa).unwrap();
    assert!(
        text.contains("conflicts:"),
        "the history names the conflict"
    );
    assert!(
        text.contains("youra: youra's")
            || text.contains("youra: \"youra's\"")
            || text.contains("youra: 'youra''s'"),
        "youra's lost value is in the history"
    );
    // The TUI's banner reads this entry: a conflict is never only in the history.
    let c = snap.vsa.recent_conflict().expect("the conflict is shown");
    assert!(
        c.reason.as_deref().unwrap().contains("1 conflict(s)"),
        "{c:?}"
    );
    // A stale save that conflicts with nothing raises no banner.
    let (_dir, vsa) = temp_copy(&example_run().join("verification_state.yaml"));
    let store = Store::new(&vsa);
    researcher(&store, "workflow.next_action", "first");
    let stale = std::fs::read_to_string(&vsa).unwrap();
    researcher(&store, "workflow.current_phase", "Phase 4");
    std::fs::write(&vsa, stale).unwrap();
    researcher(&store, "workflow.next_action", "second");
    assert!(store.load().unwrap().vsa.recent_conflict().is_none());
}
