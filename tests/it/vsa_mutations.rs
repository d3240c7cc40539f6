//! Structural changes through the store: append, remove, put. One history entry each.

use crate::common;

use common::*;
use youra::vsa::mutation::{Change, Mutation};
use youra::vsa::{Store, StoreError};
use youra::yaml::{NewNode, Style, format_scalar};

fn s(v: &str) -> NewNode {
    NewNode::Scalar(format_scalar(v, Style::Plain))
}

fn m(change: Change) -> Mutation {
    Mutation::new(change, "steer", "researcher", "test")
}

#[test]
fn append_creates_and_extends_lists() {
    let (_dir, vsa) = temp_copy(&example_run().join("verification_state.yaml"));
    let store = Store::new(&vsa);
    let directive = NewNode::Map(vec![
        ("id".into(), s("d-1")),
        ("verb".into(), s("pause")),
        ("state".into(), s("pending")),
    ]);
    store
        .mutate(&m(Change::Append {
            list: "workflow.steering".into(),
            item: directive,
        }))
        .unwrap();
    store
        .mutate(&m(Change::Append {
            list: "workflow.breakpoints".into(),
            item: s("Phase 4"),
        }))
        .unwrap();
    store
        .mutate(&m(Change::Append {
            list: "workflow.breakpoints".into(),
            item: s("Phase 2C"),
        }))
        .unwrap();
    let snap = store.load().unwrap();
    assert_eq!(snap.vsa.workflow.breakpoints, ["Phase 4", "Phase 2C"]);
    assert!(
        snap.doc
            .text
            .contains("  steering:\n    - id: d-1\n      verb: pause\n      state: pending\n"),
        "{}",
        snap.doc.text
    );
    assert_eq!(snap.vsa.revision, 10);
    let last = snap.vsa.history.last().unwrap();
    assert_eq!(
        (
            last.event.as_deref(),
            last.path.as_deref(),
            last.new.as_deref()
        ),
        (
            Some("steer"),
            Some("workflow.breakpoints"),
            Some("Phase 2C")
        )
    );

    store
        .mutate(&m(Change::Remove {
            item: "workflow.breakpoints[0]".into(),
        }))
        .unwrap();
    let snap = store.load().unwrap();
    assert_eq!(snap.vsa.workflow.breakpoints, ["Phase 2C"]);
    assert_eq!(
        snap.vsa.history.last().unwrap().old.as_deref(),
        Some("Phase 4")
    );
}

#[test]
fn put_replaces_or_inserts_a_whole_value() {
    let (_dir, vsa) = temp_copy(&example_run().join("verification_state.yaml"));
    let store = Store::new(&vsa);
    let decision = NewNode::Map(vec![
        ("verdict".into(), s("approved")),
        ("by".into(), s("dana")),
        ("why".into(), s("plateau is real: redesign")),
    ]);
    store
        .mutate(&m(Change::Put {
            path: "workflow.pending_escalation.decision".into(),
            value: decision,
        }))
        .unwrap();
    let text = std::fs::read_to_string(&vsa).unwrap();
    assert!(text.contains("      fix: repeat each point with three seeds\n    decision:\n      verdict: approved\n      by: dana\n      why: 'plateau is real: redesign'\nsub_hypotheses:"), "{text}");
    // Replace the whole escalation with null once it is resolved.
    store
        .mutate(&m(Change::Put {
            path: "workflow.pending_escalation".into(),
            value: NewNode::Scalar("null".into()),
        }))
        .unwrap();
    let snap = store.load().unwrap();
    assert!(!snap.vsa.workflow.awaits_decision());
    // A block list whose dashes sit at its key's column becomes a flow value after the colon.
    store
        .mutate(&m(Change::Append {
            list: "workflow.breakpoints".into(),
            item: s("Phase 4"),
        }))
        .unwrap();
    store
        .mutate(&m(Change::Put {
            path: "workflow.breakpoints".into(),
            value: NewNode::Seq(vec![]),
        }))
        .unwrap();
    let snap = store.load().unwrap();
    assert!(snap.vsa.workflow.breakpoints.is_empty());
    assert!(
        snap.doc.text.contains("  breakpoints: []\n"),
        "{}",
        snap.doc.text
    );
    assert!(
        snap.doc
            .text
            .contains("  pending_escalation: null\nsub_hypotheses:"),
        "{}",
        snap.doc.text
    );
}

#[test]
fn removing_from_a_flow_list_is_refused_with_a_reason() {
    let (_dir, vsa) = temp_copy(&example_run().join("verification_state.yaml"));
    let text = std::fs::read_to_string(&vsa)
        .unwrap()
        .replace("  breakpoints: []", "  breakpoints: [Phase 4]");
    std::fs::write(&vsa, text).unwrap();
    let err = Store::new(&vsa)
        .mutate(&m(Change::Remove {
            item: "workflow.breakpoints[0]".into(),
        }))
        .unwrap_err();
    assert!(matches!(err, StoreError::Edit { .. }), "{err}");
}
