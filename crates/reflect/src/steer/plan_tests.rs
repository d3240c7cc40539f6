//! The planning rules, on the example run's VSA held in memory (no files, no clock).

use chrono::{TimeZone, Utc};

use crate::vsa::mutation::Mutation;

use super::*;

const EXAMPLE: &str = include_str!("../../../../assets/example-run/verification_state.yaml");

fn snap_of(text: &str) -> Snapshot {
    Snapshot::of_text(text).unwrap()
}

fn example() -> Snapshot {
    snap_of(EXAMPLE)
}

fn req(verb: Verb, target: Option<&str>) -> Request {
    Request {
        at: Utc.with_ymd_and_hms(2026, 11, 28, 12, 0, 0).unwrap(),
        actor: "dana".into(),
        ..Request::new(verb, target, "because")
    }
}

fn ok(r: &Request, snap: &Snapshot) -> Plan {
    plan(r, snap, Layout::Native).unwrap()
}

fn err(r: &Request, snap: &Snapshot) -> SteerError {
    plan(r, snap, Layout::Native).unwrap_err()
}

/// A mapping's scalar field, as rendered.
fn get<'a>(node: &'a NewNode, key: &str) -> Option<&'a str> {
    let NewNode::Map(m) = node else { return None };
    m.iter().find(|(k, _)| k == key).and_then(|(_, v)| match v {
        NewNode::Scalar(s) => Some(s.as_str()),
        _ => None,
    })
}

fn appended(p: &Plan) -> &NewNode {
    match &p.mutation.edits[0].change {
        Change::Append { list, item } if list == STEERING_LIST => item,
        other => panic!("expected a directive, got {other:?}"),
    }
}

fn detail<'a>(m: &'a Mutation, key: &str) -> Option<&'a str> {
    m.edits[0]
        .details
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| match v {
            NewNode::Scalar(s) => s.as_str(),
            _ => "",
        })
}

#[test]
fn pause_appends_a_pending_directive() {
    let p = ok(&req(Verb::Pause, None), &example());
    let item = appended(&p);
    for (k, v) in [
        ("id", "d-8"),
        ("verb", "pause"),
        ("target", "null"),
        ("reason", "because"),
        ("actor", "dana"),
        ("at", "'2026-11-28T12:00:00Z'"),
        ("state", "pending"),
    ] {
        assert_eq!(get(item, k), Some(v), "{k}");
    }
    let m = &p.mutation;
    assert_eq!(
        (m.edits[0].event.as_str(), m.actor.as_str()),
        ("steer", "dana")
    );
    assert_eq!(detail(m, "verb"), Some("pause"));
    assert_eq!(detail(m, "target"), Some("null"));
    assert_eq!(
        p.outcome,
        Outcome::Directive {
            id: "d-8".into(),
            verb: Verb::Pause,
            target: None
        }
    );
}

#[test]
fn hypothesis_targets_must_exist_and_are_spelt_as_the_run_does() {
    let snap = example();
    let e = err(&req(Verb::Retry, Some("h-x9")), &snap).to_string();
    assert!(
        e.contains("`h-x9`") && e.contains("h-e1, h-m1, h-m2"),
        "{e}"
    );
    let p = ok(&req(Verb::Redesign, Some("H-M1")), &snap);
    assert_eq!(get(appended(&p), "target"), Some("h-m1"));
    assert_eq!(detail(&p.mutation, "target"), Some("h-m1"));
    let p = ok(&req(Verb::Reset, None), &snap);
    assert_eq!(get(appended(&p), "target"), Some("null"));
    let p = ok(&req(Verb::Reset, Some("h-e1")), &snap);
    assert_eq!(get(appended(&p), "target"), Some("h-e1"));
}

#[test]
fn skip_takes_a_hypothesis_or_a_stage_label() {
    let snap = example();
    let target =
        |t| get(appended(&ok(&req(Verb::Skip, Some(t)), &snap)), "target").map(str::to_string);
    assert_eq!(target("h-m2").as_deref(), Some("h-m2"));
    assert_eq!(
        target("Adversarial Fact Review").as_deref(),
        Some("Phase 6.5")
    );
    let e = err(&req(Verb::Skip, Some("lunch")), &snap);
    assert!(matches!(e, SteerError::UnknownSkipTarget { .. }) && !e.is_usage());
    assert!(e.to_string().contains("h-m2") && e.to_string().contains("Refine"));
}

#[test]
fn plan_nodes_are_free_but_path_safe() {
    let p = ok(&req(Verb::Force, Some("n-3")), &example());
    assert_eq!(get(appended(&p), "target"), Some("n-3"));
    assert!(err(&req(Verb::Pin, Some("../x")), &example()).is_usage());
    assert!(matches!(
        err(&req(Verb::Veto, None), &example()),
        SteerError::MissingTarget { verb: Verb::Veto }
    ));
}

#[test]
fn directive_ids_stay_unique_after_a_hand_edit() {
    let text = EXAMPLE.replace(
        "  breakpoints: []\n",
        "  breakpoints: []\n  steering:\n  - id: d-8\n    verb: pause\n",
    );
    let p = ok(&req(Verb::Step, None), &snap_of(&text));
    assert_eq!(get(appended(&p), "id"), Some("d-8-2"));
}

#[test]
fn approve_and_reject_put_a_decision() {
    let snap = example();
    for (verb, verdict) in [(Verb::Approve, "approved"), (Verb::Reject, "rejected")] {
        let p = ok(&req(verb, None), &snap);
        let Change::Put { path, value } = &p.mutation.edits[0].change else {
            panic!("{:?}", p.mutation.edits[0].change)
        };
        assert_eq!(path, DECISION_PATH);
        assert_eq!(get(value, "verdict"), Some(verdict));
        assert_eq!(get(value, "by"), Some("dana"));
        assert_eq!(get(value, "reason"), Some("because"));
        assert_eq!(get(value, "at"), Some("'2026-11-28T12:00:00Z'"));
        assert_eq!(get(value, "action"), None);
        assert_eq!(detail(&p.mutation, "target"), Some("esc-0001"));
    }
}

#[test]
fn override_names_another_action() {
    let snap = example();
    let p = ok(&req(Verb::Override, Some("design_refine")), &snap);
    let Change::Put { value, .. } = &p.mutation.edits[0].change else {
        panic!()
    };
    assert_eq!(get(value, "verdict"), Some("overridden"));
    assert_eq!(get(value, "action"), Some("Design-Refine"));
    assert_eq!(detail(&p.mutation, "action"), Some("Design-Refine"));
    let same = err(&req(Verb::Override, Some("PIVOT")), &snap);
    assert!(matches!(same, SteerError::OverrideSame { .. }), "{same}");
    let bad = err(&req(Verb::Override, Some("Abandon")), &snap);
    assert!(
        bad.is_usage() && bad.to_string().contains("Local-Refine"),
        "{bad}"
    );
}

#[test]
fn decisions_need_an_undecided_escalation() {
    let none = snap_of(&EXAMPLE.replace(
        "  pending_escalation:\n    id: esc-0001\n",
        "  pending_escalation: null\n  old:\n    id: esc-0001\n",
    ));
    let e = err(&req(Verb::Approve, None), &none);
    assert!(e.to_string().contains("no escalation is waiting"), "{e}");
    let decided = snap_of(&EXAMPLE.replace(
        "    clamp_verdict: not_valid\n",
        "    clamp_verdict: not_valid\n    decision:\n      verdict: rejected\n      by: lee\n",
    ));
    let e = err(&req(Verb::Override, Some("Proceed")), &decided).to_string();
    assert!(e.contains("already rejected by lee"), "{e}");
}

#[test]
fn breakpoints_add_once_and_remove_what_is_set() {
    let snap = example();
    let mut r = req(Verb::Breakpoint, Some("Coding & Validation"));
    let p = ok(&r, &snap);
    assert_eq!(
        p.mutation.edits[0].change,
        Change::Append {
            list: BREAKPOINTS_LIST.into(),
            item: NewNode::Scalar("Phase 4".into())
        }
    );
    assert_eq!(detail(&p.mutation, "target"), Some("Phase 4"));
    r.off = true;
    let e = err(&r, &snap);
    assert!(matches!(e, SteerError::BreakpointNotSet { .. }), "{e}");

    let block = snap_of(&EXAMPLE.replace(
        "  breakpoints: []\n",
        "  breakpoints:\n  - Phase 2C\n  - Coding & Validation\n",
    ));
    let p = ok(&r, &block);
    assert_eq!(
        p.mutation.edits[0].change,
        Change::Remove {
            item: "workflow.breakpoints[1]".into()
        }
    );
    assert_eq!(detail(&p.mutation, "off"), Some("true"));
    r.off = false;
    let e = err(&r, &block).to_string();
    assert!(e.contains("already set (as `Coding & Validation`)"), "{e}");

    let flow = snap_of(&EXAMPLE.replace("  breakpoints: []", "  breakpoints: [Phase 4, Phase 6]"));
    r.off = true;
    let p = ok(&r, &flow);
    assert_eq!(
        p.mutation.edits[0].change,
        Change::Put {
            path: BREAKPOINTS_LIST.into(),
            value: NewNode::Seq(vec![NewNode::Scalar("Phase 6".into())])
        }
    );
}

#[test]
fn youra_folders_and_missing_reasons_are_refused() {
    let snap = example();
    for verb in Verb::ALL {
        let e = plan(&req(verb, Some("x")), &snap, Layout::YouraResearch).unwrap_err();
        // Argument errors come first; the rest are refused for the layout.
        if !e.is_usage() {
            assert!(
                e.to_string().contains("no youra engine runs it"),
                "{verb}: {e}"
            );
        }
    }
    let e = plan(&req(Verb::Pause, None), &snap, Layout::YouraResearch).unwrap_err();
    assert!(matches!(e, SteerError::Unavailable { .. }), "{e}");
    let mut r = req(Verb::Pause, None);
    r.reason = "  ".into();
    assert!(matches!(err(&r, &snap), SteerError::NoReason));
    r.reason = "ok".into();
    r.actor = String::new();
    assert!(matches!(err(&r, &snap), SteerError::NoActor));
}
