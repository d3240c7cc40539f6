//! Lossless edits through the store: byte-level diffs, type checks, invariants, conflicts,
//! hand-edit detection, and files that must never be overwritten.

use crate::common;

use common::*;
use similar::{DiffTag, TextDiff};
use youra::vsa::invariants::Invariant;
use youra::vsa::{Base, SetRequest, Store, StoreError};

/// (tag, old line range, new lines) for every change between two texts.
fn changes(old: &str, new: &str) -> Vec<(DiffTag, std::ops::Range<usize>, Vec<String>)> {
    let diff = TextDiff::from_lines(old, new);
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    diff.ops()
        .iter()
        .filter(|op| op.tag() != DiffTag::Equal)
        .map(|op| {
            (
                op.tag(),
                op.old_range(),
                new_lines[op.new_range()]
                    .iter()
                    .map(|s| s.trim_end().to_string())
                    .collect(),
            )
        })
        .collect()
}

fn example_copy() -> (tempfile::TempDir, std::path::PathBuf) {
    temp_copy(&example_run().join("verification_state.yaml"))
}

#[test]
fn a_real_youra_file_changes_only_at_the_value_the_history_and_the_revision() {
    let Some(root) = shared_fixtures() else {
        return;
    };
    let (_dir, vsa) = temp_copy(&root.join(DATA_PROBLEMS_RUN).join("verification_state.yaml"));
    let before = std::fs::read_to_string(&vsa).unwrap();
    let applied = Store::new(&vsa)
        .set(&req("sub_hypotheses.h-m1.gate.type", "SHOULD_WORK"))
        .unwrap();
    assert_eq!(
        (
            applied.old.as_deref(),
            applied.new.as_deref(),
            applied.revision
        ),
        (Some("MUST_WORK"), Some("SHOULD_WORK"), 1)
    );
    let after = std::fs::read_to_string(&vsa).unwrap();
    let c = changes(&before, &after);
    assert_eq!(c.len(), 3, "{c:#?}");
    assert_eq!(
        (c[0].0, c[0].1.clone(), c[0].2.clone()),
        (
            DiffTag::Replace,
            457..458,
            vec!["      type: SHOULD_WORK".to_string()]
        )
    );
    assert_eq!(
        (c[1].0, c[1].1.start),
        (DiffTag::Insert, 712),
        "history entry after the last one (line 712)"
    );
    assert_eq!(c[1].2[0], "- event: field_edit");
    assert!(
        c[1].2
            .contains(&"  path: sub_hypotheses.h-m1.gate.type".to_string())
    );
    assert!(
        c[1].2.contains(&"  old: MUST_WORK".to_string())
            && c[1].2.contains(&"  new: SHOULD_WORK".to_string())
    );
    assert!(
        c[1].2.contains(&"  reason: test".to_string())
            && c[1].2.contains(&"  actor: researcher".to_string())
    );
    assert_eq!(
        (c[2].0, c[2].2.clone()),
        (DiffTag::Insert, vec!["revision: 1".to_string()])
    );
    let snap = Store::new(&vsa).load().unwrap();
    assert_eq!(snap.vsa.history.len(), 17);
}

#[test]
fn quoting_comments_and_block_scalars_survive() {
    let (_dir, vsa) = example_copy();
    let before = std::fs::read_to_string(&vsa).unwrap();
    let store = Store::new(&vsa);
    store
        .set(&req("workflow.next_action", "Decide on h-m1's pivot"))
        .unwrap();
    store
        .set(&req(
            "main_hypothesis.statement",
            "Decay sets the onset: a shorter claim",
        ))
        .unwrap();
    let after = std::fs::read_to_string(&vsa).unwrap();
    assert!(
        after.contains("  next_action: \"Decide on h-m1's pivot\"\n"),
        "double quotes kept"
    );
    assert!(after.contains(
        "  statement: 'Decay sets the onset: a shorter claim'\n  defined_in: 03_refinement.yaml\n"
    ));
    assert!(
        after.contains(
            "  status: AWAITING_APPROVAL # youra: an escalation waits for the researcher\n"
        )
    );
    assert!(after.starts_with("# Verification state of youra's example run"));
    assert!(
        after.contains("modification_history: []\n\nhistory:\n"),
        "blank line kept"
    );
    let c = changes(&before, &after);
    let replaced: Vec<_> = c.iter().filter(|x| x.0 != DiffTag::Insert).collect();
    assert_eq!(
        replaced.len(),
        3,
        "next_action, the 3-line statement, the revision: {c:#?}"
    );
    assert_eq!(store.load().unwrap().vsa.revision, 9);
}

#[test]
fn values_are_type_checked() {
    let (_dir, vsa) = example_copy();
    let store = Store::new(&vsa);
    let err = store
        .set(&req("sub_hypotheses.h-m2.gate.type", "MAYBE"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("expected one of MUST_WORK, SHOULD_WORK, DETERMINES_SUCCESS"),
        "{err}"
    );
    let err = store
        .set(&req("sub_hypotheses.h-m1.gate.satisfied", "perhaps"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("expected true or false"), "{err}");
    let err = store
        .set(&req(
            "sub_hypotheses.h-m1.gate.failed_checks[0].actual",
            "high",
        ))
        .unwrap_err()
        .to_string();
    assert!(err.contains("expected a number"), "{err}");
    let err = store
        .set(&req("sub_hypotheses.h-m2.prerequisites[0]", "h-zz"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("expected a sub-hypothesis id"), "{err}");
    let err = store.set(&req("revision", "99")).unwrap_err().to_string();
    assert!(err.contains("bumped by every write"), "{err}");
    let err = store
        .set(&req("history[0].event", "x"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("append-only"), "{err}");
    let err = store
        .set(&req("sub_hypotheses.h-m1.gate", "PASS"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("is a mapping, not a single value"), "{err}");
    let err = store
        .set(&req("sub_hypotheses.h-x9.status", "READY"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("no `h-x9` under `sub_hypotheses`"), "{err}");
    let err = store
        .set(&req("workflow.nxt_action", "typo"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("pass --create"), "{err}");
    let err = store
        .set(&req("workflow.breakpoints", "x"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("it is a list"), "{err}");
    // Aliases are accepted and written in canonical form; numbers keep their type.
    let a = store
        .set(&req("sub_hypotheses.h-m2.gate.type", "must_pass"))
        .unwrap();
    assert_eq!(a.new.as_deref(), Some("MUST_WORK"));
    store
        .set(&req(
            "sub_hypotheses.h-m1.gate.failed_checks[0].actual",
            "-0.4",
        ))
        .unwrap();
    let text = std::fs::read_to_string(&vsa).unwrap();
    assert!(text.contains("        actual: -0.4\n"));
    assert_eq!(
        store.load().unwrap().vsa.revision,
        9,
        "refused edits wrote nothing"
    );
}

#[test]
fn invariants_refuse_and_force_records() {
    let (_dir, vsa) = example_copy();
    let store = Store::new(&vsa);
    let before = std::fs::read(&vsa).unwrap();
    let refused = |path, value| match store.set(&req(path, value)) {
        Err(StoreError::Invariant { violations }) => violations,
        other => panic!("{path}={value}: {other:?}"),
    };
    let v = refused("sub_hypotheses.h-m2.status", "IN_PROGRESS");
    assert_eq!(
        (v[0].invariant, v[0].hypothesis.as_str()),
        (Invariant::PrerequisitesFirst, "h-m2")
    );
    assert!(v[0].message.contains("h-m1 is FAILED"), "{}", v[0].message);
    let v = refused("sub_hypotheses.h-m1.status", "VALIDATED");
    assert_eq!(v[0].invariant, Invariant::MustWorkGate);
    let v = refused("sub_hypotheses.h-m1.prerequisites[0]", "h-m2");
    assert!(v.iter().any(|v| v.invariant == Invariant::NoCycle), "{v:?}");
    let v = refused("sub_hypotheses.h-e1.gate.satisfied", "false");
    assert_eq!(v[0].invariant, Invariant::MustWorkGate);
    assert_eq!(
        std::fs::read(&vsa).unwrap(),
        before,
        "refusals write nothing"
    );

    let forced = SetRequest {
        force: true,
        ..req("sub_hypotheses.h-m2.status", "IN_PROGRESS")
    };
    let a = store.set(&forced).unwrap();
    assert_eq!(a.forced[0].invariant, Invariant::PrerequisitesFirst);
    let snap = store.load().unwrap();
    let last = snap.vsa.history.last().unwrap();
    assert!(last.forced);
    assert!(snap.doc.text.contains(
        "  forced: true\n  overridden:\n    - '[prerequisites-first] h-m2 is IN_PROGRESS"
    ));
}

#[test]
fn a_stale_edit_is_rebased_or_reported_as_a_conflict() {
    let (_dir, vsa) = example_copy();
    let store = Store::new(&vsa);
    store
        .set(&req("workflow.current_phase", "Phase 4 (paused)"))
        .unwrap();
    // The caller saw revision 7 and the old next_action: the file moved, the field did not.
    let base = Some(Base {
        revision: 7,
        old: Some("Approve or reject the proposed Pivot for h-m1".into()),
    });
    let a = store
        .set(&SetRequest {
            base: base.clone(),
            ..req("workflow.next_action", "Pivot approved")
        })
        .unwrap();
    assert!(a.rebased);
    // A second writer with the same stale view now conflicts on that field.
    match store.set(&SetRequest {
        base,
        ..req("workflow.next_action", "Reject")
    }) {
        Err(StoreError::Conflict {
            base,
            current,
            theirs,
            ..
        }) => {
            assert_eq!(
                (base, current, theirs.as_deref()),
                (7, 9, Some("Pivot approved"))
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_hand_edit_is_recorded_by_the_next_writer() {
    let (_dir, vsa) = example_copy();
    let store = Store::new(&vsa);
    store
        .set(&req("workflow.current_phase", "Phase 4b"))
        .unwrap();
    let text = std::fs::read_to_string(&vsa).unwrap();
    std::fs::write(
        &vsa,
        text.replace(
            "statement: The effect persists at 3 and 5 layers.",
            "statement: The effect persists at 4 layers.",
        ),
    )
    .unwrap();
    let a = store.set(&req("workflow.next_action", "continue")).unwrap();
    assert_eq!((a.editor_changes, a.revision), (1, 9));
    let snap = store.load().unwrap();
    let n = snap.vsa.history.len();
    let editor = &snap.vsa.history[n - 2];
    assert_eq!(
        (editor.actor.as_deref(), editor.event.as_deref()),
        (Some("editor"), Some("hand_edit"))
    );
    assert!(snap.doc.text.contains("    - path: sub_hypotheses.h-m2.statement\n      old: The effect persists at 3 and 5 layers.\n      new: The effect persists at 4 layers.\n"));
    assert_eq!(
        snap.vsa.history[n - 1].path.as_deref(),
        Some("workflow.next_action")
    );
    // No further hand edit: the next write records none.
    assert_eq!(
        store
            .set(&req("workflow.next_action", "go"))
            .unwrap()
            .editor_changes,
        0
    );
}

#[test]
fn a_file_that_does_not_parse_is_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let vsa = dir.path().join("verification_state.yaml");
    let broken = "workflow:\n  status: ACTIVE\n  next_action: 'unterminated\n";
    std::fs::write(&vsa, broken).unwrap();
    match Store::new(&vsa).set(&req("workflow.status", "PAUSED")) {
        Err(StoreError::Parse { err, .. }) => assert_eq!((err.line, err.col), (3, 16), "{err}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(std::fs::read_to_string(&vsa).unwrap(), broken);
}

#[test]
fn lists_and_keys_are_created_where_missing() {
    let dir = tempfile::tempdir().unwrap();
    let vsa = dir.path().join("verification_state.yaml");
    std::fs::write(
        &vsa,
        "workflow:\n  status: ACTIVE\nhistory: [] # filled by youra\n# trailing comment\n",
    )
    .unwrap();
    let store = Store::new(&vsa);
    store.set(&req("workflow.next_action", "start")).unwrap();
    let text = std::fs::read_to_string(&vsa).unwrap();
    assert!(text.starts_with("workflow:\n  status: ACTIVE\n  next_action: start\nhistory: # filled by youra\n- event: field_edit\n"), "{text}");
    assert!(
        text.ends_with("# trailing comment\nrevision: 1\n") || text.contains("\nrevision: 1"),
        "{text}"
    );
    let snap = store.load().unwrap();
    assert_eq!((snap.vsa.history.len(), snap.vsa.revision), (1, 1));

    std::fs::write(&vsa, "metadata:\n  project_name: bare").unwrap();
    store.set(&req("workflow.status", "PAUSED")).unwrap();
    let snap = store.load().unwrap();
    assert_eq!(
        snap.vsa
            .workflow
            .status
            .as_ref()
            .map(|s| s.to_string())
            .as_deref(),
        Some("PAUSED")
    );
    // A file at a lower revision than youra last wrote replaced it: recorded as a stale
    // save (kept as written: youra has no copy of its base), and the revision goes on.
    assert_eq!((snap.vsa.history.len(), snap.vsa.revision), (2, 2));
    assert_eq!(snap.vsa.history[0].event.as_deref(), Some("stale_save"));
}

#[test]
fn the_template_with_comments_takes_edits() {
    let Some(root) = shared_fixtures() else {
        return;
    };
    let (_dir, vsa) = temp_copy(&root.join("YOURA_no_IC/bmad-custom-src/custom/modules/youra-research/workflows/verification_state_template.yaml"));
    let store = Store::new(&vsa);
    store
        .set(&req("workflow.execution_mode", "INTERACTIVE"))
        .unwrap();
    store
        .set(&SetRequest {
            create: true,
            ..req("metadata.hypothesis_task_mapping.h-e1", "task-1")
        })
        .unwrap();
    let snap = store.load().unwrap();
    assert_eq!((snap.vsa.history.len(), snap.vsa.revision), (2, 2));
    assert!(
        snap.doc
            .text
            .contains("  execution_mode: \"INTERACTIVE\" # UNATTENDED | INTERACTIVE\n")
    );
    assert!(
        snap.doc
            .text
            .contains("  hypothesis_task_mapping: {h-e1: task-1}\n")
    );
}

/// Issue 43: `youra vsa set` on a criterion's threshold says when the sub-hypothesis's
/// statement still names the old number, and how to edit it; a statement already updated
/// gets no note.
#[test]
fn setting_a_threshold_names_the_stale_statement() {
    let (_tmp, run) = example_copy();
    let dir = run.parent().unwrap().to_str().unwrap().to_string();
    let path = "sub_hypotheses.h-e1.gate.criteria[0].value";
    let out = youra(&["vsa", "set", "--reason", "tighter", &dir, path, "15000"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.contains(
            "note: h-e1's statement still says 20k (the gate now requires 15000): edit the statement too: youra vsa set --reason "
        ) && stdout.contains("sub_hypotheses.h-e1.statement"),
        "{stdout}"
    );
    let statement = "A 2-layer transformer on addition mod 97 groks within 15k steps.";
    let out = youra(&[
        "vsa",
        "set",
        "--reason",
        "say 15k",
        &dir,
        "sub_hypotheses.h-e1.statement",
        statement,
    ]);
    assert!(out.status.success(), "{:?}", text(&out));
    let out = youra(&["vsa", "set", "--reason", "same", &dir, path, "15000.0"]);
    let (stdout, _) = text(&out);
    assert!(!stdout.contains("note:"), "{stdout}");
    let out = youra(&["vsa", "set", "--reason", "tighter", &dir, path, "12000"]);
    let (stdout, _) = text(&out);
    assert!(
        stdout.contains("still says 15k (the gate now requires 12000)"),
        "{stdout}"
    );
}
