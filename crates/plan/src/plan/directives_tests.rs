//! Directives against a small tree: what each changes, what it reports, what it refuses.

use super::*;
use crate::plan::{DELTA, Draft, MAX_CHILDREN, Packet};

/// root (evaluated 0.6) ─┬─ a (untested)
///                       ├─ b (pruned)
///                       └─ c (running)
fn tree() -> (PlanTree, [NodeId; 4]) {
    let mut t = PlanTree::new();
    let r = t.add_root(Draft::default(), "t");
    let packet = |reward| Packet {
        reward,
        ..Packet::default()
    };
    t.record_outcome(&r, packet(0.6), DELTA).unwrap();
    let kids = t
        .expand(&r, vec![Draft::default(); 3], MAX_CHILDREN, "t")
        .unwrap();
    t.record_outcome(&kids[1], packet(0.1), DELTA).unwrap();
    t.set_status(&kids[2], NodeStatus::Running).unwrap();
    (t, [r, kids[0].clone(), kids[1].clone(), kids[2].clone()])
}

fn id(s: &str) -> NodeId {
    NodeId::new(s).unwrap()
}

#[test]
fn node_directives() {
    let (t0, [r, a, b, c]) = tree();
    let ghost = id("n-0099");
    // (directive, Ok(note fragment) | Err(message fragment))
    let table: Vec<(PlanDirective, Result<&str, &str>)> = vec![
        (PlanDirective::Pin(a.clone()), Ok("pinned")),
        (PlanDirective::Pin(b.clone()), Err("is pruned")),
        (
            PlanDirective::Pin(ghost.clone()),
            Err("no plan node `n-0099`"),
        ),
        (
            PlanDirective::Veto(c.clone()),
            Ok("already running finishes"),
        ),
        (PlanDirective::Unveto(a.clone()), Ok("veto lifted")),
        (PlanDirective::Force(a.clone()), Ok("runs next")),
        (PlanDirective::Force(r.clone()), Ok("expanded next")),
        (PlanDirective::Force(c.clone()), Err("is running")),
        (PlanDirective::Force(ghost), Err("no plan node")),
        (
            PlanDirective::Edit {
                node: a.clone(),
                plan: "# better".into(),
                prior: None,
            },
            Ok("plan replaced"),
        ),
        (
            PlanDirective::Edit {
                node: r.clone(),
                plan: "# late".into(),
                prior: None,
            },
            Err("only before it runs"),
        ),
    ];
    for (d, want) in table {
        let mut t = t0.clone();
        let mut b = Budget::tokens(100);
        let got = apply_directive(&mut t, &mut b, &d);
        match (got, want) {
            (Ok(done), Ok(frag)) => {
                assert!(done.note.contains(frag), "{d:?}: {}", done.note);
                assert!(!done.budget_changed && !done.changed.is_empty());
            }
            (Err(e), Err(frag)) => {
                assert!(e.to_string().contains(frag), "{d:?}: {e}");
                assert_eq!(t, t0, "a refusal changes nothing");
            }
            (got, want) => panic!("{d:?}: got {got:?}, want {want:?}"),
        }
    }
}

#[test]
fn latest_word_wins_between_pin_and_veto() {
    let (mut t, [_, a, _, _]) = tree();
    let mut b = Budget::tokens(100);
    apply_directive(&mut t, &mut b, &PlanDirective::Pin(a.clone())).unwrap();
    let v = apply_directive(&mut t, &mut b, &PlanDirective::Veto(a.clone())).unwrap();
    assert!(v.note.contains("pin removed"), "{}", v.note);
    let n = t.get(&a).unwrap();
    assert!(n.vetoed && !n.pinned);
    let p = apply_directive(&mut t, &mut b, &PlanDirective::Pin(a.clone())).unwrap();
    assert!(p.note.contains("veto lifted"), "{}", p.note);
    apply_directive(&mut t, &mut b, &PlanDirective::Veto(a.clone())).unwrap();
    let f = apply_directive(&mut t, &mut b, &PlanDirective::Force(a.clone())).unwrap();
    assert_eq!(f.forced, Some(a.clone()));
    assert!(!t.get(&a).unwrap().vetoed, "forcing lifts the veto");
}

#[test]
fn budget_and_alpha() {
    let (t0, _) = tree();
    let table: Vec<(PlanDirective, Result<&str, &str>)> = vec![
        (
            PlanDirective::Budget {
                total_tokens: Some(200),
                time_budget_secs: None,
            },
            Ok("tokens 100 → 200; r = 0.750"),
        ),
        (
            PlanDirective::Budget {
                total_tokens: Some(40),
                time_budget_secs: Some(60.0),
            },
            Ok("already spent"),
        ),
        (
            PlanDirective::Budget {
                total_tokens: Some(0),
                time_budget_secs: None,
            },
            Err("positive"),
        ),
        (
            PlanDirective::Budget {
                total_tokens: None,
                time_budget_secs: Some(-1.0),
            },
            Err("seconds"),
        ),
        (PlanDirective::AlphaMax(5.0), Ok("α_max 10 → 5")),
        (PlanDirective::AlphaMax(0.0), Err("out of range")),
        (PlanDirective::AlphaMax(f64::NAN), Err("out of range")),
        (PlanDirective::AlphaMax(1000.0), Err("out of range")),
    ];
    for (d, want) in table {
        let mut t = t0.clone();
        let mut b = Budget::tokens(100);
        b.used_tokens = 50;
        let before = b.clone();
        match (apply_directive(&mut t, &mut b, &d), want) {
            (Ok(done), Ok(frag)) => {
                assert!(done.note.contains(frag), "{d:?}: {}", done.note);
                assert!(done.budget_changed && done.changed.is_empty());
            }
            (Err(e), Err(frag)) => {
                assert!(e.to_string().contains(frag), "{d:?}: {e}");
                assert_eq!(b, before);
            }
            (got, want) => panic!("{d:?}: got {got:?}, want {want:?}"),
        }
        assert_eq!(t, t0, "budget directives leave the tree alone");
    }
}

#[test]
fn parse_table() {
    let table: &[(&str, Option<&str>, Result<PlanDirective, &str>)] = &[
        ("pin", Some("n-0002"), Ok(PlanDirective::Pin(id("n-0002")))),
        (
            " Force ",
            Some(" n-1 "),
            Ok(PlanDirective::Force(id("n-1"))),
        ),
        ("veto", None, Err("needs a target")),
        ("veto", Some("../x"), Err("refused")),
        (
            "budget",
            Some("tokens=1.5M,time=7200"),
            Ok(PlanDirective::Budget {
                total_tokens: Some(1_500_000),
                time_budget_secs: Some(7200.0),
            }),
        ),
        (
            "budget",
            Some("tokens=800k"),
            Ok(PlanDirective::Budget {
                total_tokens: Some(800_000),
                time_budget_secs: None,
            }),
        ),
        ("budget", Some("lots"), Err("tokens=<n>")),
        ("budget", Some("tokens=x"), Err("not understood")),
        ("alpha_max", Some("4"), Ok(PlanDirective::AlphaMax(4.0))),
        ("alpha-max", Some("four"), Err("not a number")),
        ("retry", Some("h-1"), Err("not a plan directive")),
    ];
    for (verb, target, want) in table {
        match (parse_directive(verb, *target), want) {
            (Ok(d), Ok(w)) => assert_eq!(&d, w, "{verb} {target:?}"),
            (Err(e), Err(frag)) => assert!(e.to_string().contains(frag), "{verb}: {e}"),
            (got, want) => panic!("{verb} {target:?}: got {got:?}, want {want:?}"),
        }
    }
}
