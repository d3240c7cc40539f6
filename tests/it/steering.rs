//! The steering verbs through the store, on a copy of the example run: what each writes to
//! the VSA and its history, what each refuses, and the `youra steer` command end to end.

use crate::common;

use std::sync::Arc;

use common::*;
use youra::rundir::{Layout, discover};
use youra::steer::{DirectiveState, Request, SteerError, Verb, apply, directives};
use youra::vsa::{Snapshot, Store};
use youra::yaml::Node;

/// A steerable copy of the example run (revision 7, escalation esc-0001 waiting).
fn example() -> (tempfile::TempDir, std::path::PathBuf, Store) {
    let (guard, run) = temp_run(&example_run());
    let found = discover(&run).expect("example run");
    assert_eq!(found.layout, Layout::Native);
    let store = Store::new(found.vsa);
    (guard, run, store)
}

fn steer(store: &Store, verb: Verb, target: Option<&str>) -> Result<String, SteerError> {
    let mut req = Request::new(verb, target, &format!("why {verb}"));
    req.actor = "dana".into();
    apply(store, &req, Layout::Native).map(|s| s.summary())
}

/// A field of the newest history entry, read from the YAML tree (the typed model does not
/// carry steering details).
fn last_entry(snap: &Snapshot, key: &str) -> Option<String> {
    let history = snap.doc.root.as_ref()?.get("history")?.as_seq()?;
    history
        .last()?
        .get(key)
        .and_then(Node::as_str)
        .map(str::to_string)
}

fn at(snap: &Snapshot, path: &[&str]) -> Option<String> {
    let mut node = snap.doc.root.as_ref()?;
    for key in path {
        node = node.get(key)?;
    }
    node.as_str().map(str::to_string)
}

fn assert_history(snap: &Snapshot, verb: &str, target: Option<&str>, path: &str) {
    assert_eq!(last_entry(snap, "event").as_deref(), Some("steer"));
    assert_eq!(last_entry(snap, "verb").as_deref(), Some(verb));
    assert_eq!(last_entry(snap, "target").as_deref(), target, "{verb}");
    assert_eq!(last_entry(snap, "actor").as_deref(), Some("dana"));
    assert_eq!(
        last_entry(snap, "reason"),
        Some(format!("why {verb}")),
        "{verb}"
    );
    assert_eq!(last_entry(snap, "path").as_deref(), Some(path));
}

#[test]
fn each_directive_verb_appends_one_pending_directive() {
    let (_g, _run, store) = example();
    let cases: [(Verb, Option<&str>, Option<&str>); 12] = [
        (Verb::Pause, None, None),
        (Verb::Resume, None, None),
        (Verb::Step, None, None),
        (Verb::Retry, Some("h-m1"), Some("h-m1")),
        (Verb::Redesign, Some("h-m1"), Some("h-m1")),
        (Verb::Reset, None, None),
        (Verb::Reset, Some("h-e1"), Some("h-e1")),
        (Verb::Skip, Some("h-m2"), Some("h-m2")),
        (
            Verb::Skip,
            Some("Adversarial Fact Review"),
            Some("Phase 6.5"),
        ),
        // Plan nodes are checked against plan/tree.json and written as the tree spells them.
        (Verb::Pin, Some("n-1"), Some("n-0001")),
        (Verb::Veto, Some("n-0002"), Some("n-0002")),
        (Verb::Force, Some("n-3"), Some("n-0003")),
    ];
    for (i, (verb, target, written)) in cases.into_iter().enumerate() {
        let revision = 8 + i as u64;
        let said = steer(&store, verb, target).unwrap();
        let id = format!("d-{revision}");
        assert!(
            said.ends_with(&format!("requested (directive {id}, revision {revision})")),
            "{said}"
        );
        let snap = store.load().unwrap();
        assert_eq!(snap.vsa.revision, revision);
        assert_eq!(snap.vsa.history.len(), 5 + i, "one history entry per verb");
        let all = directives(&snap.doc);
        assert_eq!(all.len(), i + 1);
        let d = all.last().unwrap();
        assert_eq!(d.id.as_deref(), Some(id.as_str()));
        assert_eq!(d.verb(), Some(verb));
        assert_eq!(d.target.as_deref(), written, "{verb}");
        assert_eq!(d.reason, Some(format!("why {verb}")));
        assert_eq!(d.actor.as_deref(), Some("dana"));
        assert_eq!(d.state, DirectiveState::Pending);
        assert!(d.at_time().is_some_and(|t| !t.naive), "{:?}", d.at);
        assert_history(&snap, verb.name(), written, "workflow.steering");
    }
    // The rest of the file is untouched: the sub-hypotheses read as before.
    let snap = store.load().unwrap();
    assert_eq!(snap.vsa.sub_hypotheses.len(), 3);
    assert!(snap.warnings.is_empty(), "{:?}", snap.warnings);
}

#[test]
fn plan_node_verbs_refuse_nodes_the_tree_does_not_hold() {
    let (_g, run, store) = example();
    let before = std::fs::read(store.path()).unwrap();
    for verb in [Verb::Pin, Verb::Veto, Verb::Force] {
        let e = steer(&store, verb, Some("n-0042")).unwrap_err();
        assert!(
            matches!(e, SteerError::UnknownPlanNode { .. }),
            "{verb}: {e}"
        );
        let said = e.to_string();
        assert!(
            said.contains("no plan node `n-0042` in this run (nodes: n-0001, n-0002"),
            "{said}"
        );
    }
    std::fs::remove_file(run.join("plan/tree.json")).unwrap();
    let e = steer(&store, Verb::Pin, Some("n-1")).unwrap_err();
    assert!(e.to_string().contains("no plan tree yet"), "{e}");
    std::fs::write(run.join("plan/tree.json"), "{\"nodes\": [").unwrap();
    let e = steer(&store, Verb::Force, Some("n-1")).unwrap_err();
    assert!(
        e.to_string().contains("cannot read this run's plan tree"),
        "{e}"
    );
    assert_eq!(
        std::fs::read(store.path()).unwrap(),
        before,
        "nothing written"
    );
}

#[test]
fn approve_writes_the_decision_once() {
    let (_g, _run, store) = example();
    let said = steer(&store, Verb::Approve, None).unwrap();
    assert_eq!(said, "escalation esc-0001 approved (revision 8)");
    let snap = store.load().unwrap();
    let decision = |k| at(&snap, &["workflow", "pending_escalation", "decision", k]);
    assert_eq!(decision("verdict").as_deref(), Some("approved"));
    assert_eq!(decision("by").as_deref(), Some("dana"));
    assert_eq!(decision("reason").as_deref(), Some("why approve"));
    assert_eq!(decision("action"), None);
    assert!(decision("at").is_some());
    assert_history(
        &snap,
        "approve",
        Some("esc-0001"),
        "workflow.pending_escalation.decision",
    );
    let before = std::fs::read(store.path()).unwrap();
    for (verb, target) in [
        (Verb::Approve, None),
        (Verb::Reject, None),
        (Verb::Override, Some("Proceed")),
    ] {
        let e = steer(&store, verb, target).unwrap_err();
        assert!(matches!(e, SteerError::AlreadyDecided { .. }), "{e}");
        assert!(e.to_string().contains("already approved by dana"), "{e}");
    }
    assert_eq!(
        std::fs::read(store.path()).unwrap(),
        before,
        "refusals write nothing"
    );
}

#[test]
fn reject_and_override_record_their_verdicts() {
    let (_g, _run, store) = example();
    steer(&store, Verb::Reject, None).unwrap();
    let snap = store.load().unwrap();
    let verdict = at(
        &snap,
        &["workflow", "pending_escalation", "decision", "verdict"],
    );
    assert_eq!(verdict.as_deref(), Some("rejected"));
    assert_history(
        &snap,
        "reject",
        Some("esc-0001"),
        "workflow.pending_escalation.decision",
    );

    let (_g, _run, store) = example();
    let said = steer(&store, Verb::Override, Some("method refine")).unwrap();
    assert_eq!(
        said,
        "escalation esc-0001 overridden with Method-Refine (revision 8)"
    );
    let snap = store.load().unwrap();
    let decision = |k| at(&snap, &["workflow", "pending_escalation", "decision", k]);
    assert_eq!(decision("verdict").as_deref(), Some("overridden"));
    assert_eq!(decision("action").as_deref(), Some("Method-Refine"));
    assert_eq!(
        last_entry(&snap, "action").as_deref(),
        Some("Method-Refine")
    );
}

#[test]
fn decisions_need_a_waiting_escalation() {
    let (_g, run, store) = example();
    let vsa = run.join("verification_state.yaml");
    let text = std::fs::read_to_string(&vsa).unwrap().replace(
        "  pending_escalation:\n    id: esc-0001\n",
        "  pending_escalation: null\n  resolved:\n    id: esc-0001\n",
    );
    std::fs::write(&vsa, text).unwrap();
    for (verb, target) in [
        (Verb::Approve, None),
        (Verb::Reject, None),
        (Verb::Override, Some("Pivot")),
    ] {
        let e = steer(&store, verb, target).unwrap_err();
        assert!(matches!(e, SteerError::NoEscalation), "{e}");
        assert!(e.to_string().contains("no escalation is waiting"));
    }
}

#[test]
fn breakpoints_are_set_once_and_removed_by_index() {
    let (_g, _run, store) = example();
    let said = steer(&store, Verb::Breakpoint, Some("Phase 4")).unwrap();
    assert_eq!(
        said,
        "breakpoint set before Coding & Validation (Phase 4) (revision 8)"
    );
    steer(&store, Verb::Breakpoint, Some("experiment design")).unwrap();
    let snap = store.load().unwrap();
    assert_eq!(snap.vsa.workflow.breakpoints, ["Phase 4", "Phase 2C"]);
    assert_history(
        &snap,
        "breakpoint",
        Some("Phase 2C"),
        "workflow.breakpoints",
    );

    let e = steer(&store, Verb::Breakpoint, Some("Coding & Validation")).unwrap_err();
    assert!(matches!(e, SteerError::BreakpointExists { .. }), "{e}");
    assert!(e.to_string().contains("already set (as `Phase 4`)"), "{e}");

    let mut off = Request::new(Verb::Breakpoint, Some("Phase 4"), "why breakpoint");
    off.actor = "dana".into();
    off.off = true;
    let said = apply(&store, &off, Layout::Native).unwrap().summary();
    assert_eq!(
        said,
        "breakpoint before Coding & Validation (Phase 4) removed (revision 10)"
    );
    let snap = store.load().unwrap();
    assert_eq!(snap.vsa.workflow.breakpoints, ["Phase 2C"]);
    assert_history(
        &snap,
        "breakpoint",
        Some("Phase 4"),
        "workflow.breakpoints[0]",
    );
    assert_eq!(last_entry(&snap, "old").as_deref(), Some("Phase 4"));
    let e = apply(&store, &off, Layout::Native).unwrap_err();
    assert!(matches!(e, SteerError::BreakpointNotSet { .. }), "{e}");
    assert!(e.to_string().contains("(set: Phase 2C)"), "{e}");
}

#[test]
fn unknown_hypotheses_are_named_and_nothing_is_written() {
    let (_g, _run, store) = example();
    let before = std::fs::read(store.path()).unwrap();
    for verb in [Verb::Retry, Verb::Redesign, Verb::Reset, Verb::Skip] {
        let e = steer(&store, verb, Some("h-zz")).unwrap_err();
        assert!(
            e.to_string().contains("known: h-e1, h-m1, h-m2"),
            "{verb}: {e}"
        );
    }
    assert_eq!(std::fs::read(store.path()).unwrap(), before);
}

#[test]
fn concurrent_steering_never_shares_a_directive_id() {
    let (_g, _run, store) = example();
    let path = Arc::new(store.path().to_path_buf());
    let threads: Vec<_> = (0..6)
        .map(|_| {
            let path = Arc::clone(&path);
            std::thread::spawn(move || {
                let store = Store::new(path.as_ref());
                steer(&store, Verb::Pause, None).unwrap();
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let snap = store.load().unwrap();
    let mut ids: Vec<String> = directives(&snap.doc)
        .into_iter()
        .filter_map(|d| d.id)
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 6, "{ids:?}");
    assert_eq!(snap.vsa.revision, 13);
}

/// A copy of a VSA YouRA wrote itself, alone in a folder: a YouRA research folder.
fn youra_folder() -> Option<(tempfile::TempDir, std::path::PathBuf)> {
    let src = shared_fixtures()?
        .join(DATA_PROBLEMS_RUN)
        .join("verification_state.yaml");
    Some(temp_copy(&src))
}

#[test]
fn youra_research_folders_refuse_every_verb() {
    let Some((dir, vsa)) = youra_folder() else {
        return;
    };
    let found = discover(dir.path()).unwrap();
    assert_eq!(found.layout, Layout::YouraResearch);
    let store = Store::new(&vsa);
    let before = std::fs::read(&vsa).unwrap();
    let targets = |v: Verb| match v {
        Verb::Override => Some("Pivot"),
        Verb::Breakpoint => Some("Phase 4"),
        Verb::Pin | Verb::Unpin | Verb::Veto | Verb::Unveto | Verb::Force | Verb::Edit => {
            Some("n-1")
        }
        Verb::Budget => Some("tokens=1M"),
        Verb::AlphaMax => Some("3"),
        Verb::Retry | Verb::Redesign | Verb::Skip => Some("h-e1"),
        _ => None,
    };
    for verb in Verb::ALL {
        let mut req = Request::new(verb, targets(verb), "try");
        req.plan = (verb == Verb::Edit).then(|| "a plan".to_string());
        let e = apply(&store, &req, found.layout).unwrap_err();
        assert!(matches!(e, SteerError::Unavailable { .. }), "{verb}: {e}");
        assert!(
            e.to_string()
                .contains("this is a YouRA research folder: no youra engine runs it"),
            "{e}"
        );
    }
    assert_eq!(std::fs::read(&vsa).unwrap(), before);
}

#[test]
fn cli_confirms_refuses_and_rejects_bad_arguments() {
    let (_g, run, _store) = example();
    let d = run.to_str().unwrap();
    let o = youra(&["steer", d, "pause", "--reason", "look at the curve"]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert_eq!(text(&o).0, "pause requested (directive d-8, revision 8)\n");

    let o = youra(&[
        "steer",
        d,
        "breakpoint",
        "Phase",
        "4",
        "--reason",
        "debug",
        "--actor",
        "lee",
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let o = youra(&["vsa", "get", d, "history[-1].actor"]);
    assert_eq!(text(&o).0, "lee\n");

    let o = youra(&["steer", d, "retry", "h-x", "--reason", "r"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(err.contains("error: no sub-hypothesis `h-x` in this run (known: h-e1, h-m1, h-m2)"));
    assert!(err.contains("hint: `youra status"), "{err}");

    let o = youra(&[
        "steer",
        d,
        "approve",
        "--reason",
        "ok",
        "--as",
        "researcher",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let o = youra(&["steer", d, "reject", "--reason", "no"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).1.contains("already approved by researcher"));

    for bad in [
        &["steer", d, "retry", "--reason", "r"][..],
        &["steer", d, "pause", "now", "--reason", "r"],
        &["steer", d, "pause", "--off", "--reason", "r"],
        &["steer", d, "override", "Abandon", "--reason", "r"],
        &["steer", d, "halt", "--reason", "r"],
    ] {
        let o = youra(bad);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {:?}", text(&o));
    }
    let o = youra(&["steer", d, "halt", "--reason", "r"]);
    assert!(text(&o).1.contains("the verbs are: pause, resume"));
    // Answering an escalation needs a reason (issue 31); the other verbs do not.
    for verb in [&["approve"][..], &["reject"], &["override", "Proceed"]] {
        let mut args = vec!["steer", d];
        args.extend_from_slice(verb);
        let o = youra(&args);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{verb:?}: {err}");
        assert!(
            err.contains("answers an escalation: a reason is required") && err.contains("--reason"),
            "{verb:?}: {err}"
        );
    }
    let o = youra(&["steer", d, "pause"]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let o = youra(&["vsa", "get", d, "history[-1].reason"]);
    assert_eq!(text(&o).0, "pause (command line; no reason given)\n");
}

#[test]
fn cli_refuses_youra_folders_with_the_reason() {
    let Some((dir, _)) = youra_folder() else {
        return;
    };
    let o = youra(&[
        "steer",
        dir.path().to_str().unwrap(),
        "pause",
        "--reason",
        "r",
    ]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(err.contains("this is a YouRA research folder"), "{err}");
    assert!(
        err.contains("hint: to change a field: youra vsa set"),
        "{err}"
    );
}

#[test]
fn help_lists_the_verbs() {
    let (out, _) = text(&youra(&["steer", "--help"]));
    for verb in Verb::ALL {
        assert!(out.contains(&verb.usage()), "{verb}");
    }
    assert!(out.contains("Phase 6.5  Adversarial Fact Review"));
    let (out, _) = text(&youra(&["--help"]));
    assert!(out.contains("steer"));
}

#[path = "steering/plan_verbs.rs"]
mod plan_verbs;
