//! The plan verbs added for researcher control of the search (unpin, unveto, edit, budget,
//! alpha-max): what each records, and what each refuses before anything is written. A
//! module of `tests/it/steering.rs`, sharing its helpers.

use super::*;

fn edit(store: &Store, node: &str, plan: Option<&str>) -> Result<String, SteerError> {
    let mut req = Request::new(Verb::Edit, Some(node), "why edit");
    req.actor = "dana".into();
    req.plan = plan.map(str::to_string);
    apply(store, &req, Layout::Native).map(|s| s.summary())
}

#[test]
fn plan_verbs_record_one_pending_directive_each() {
    let (_g, run, store) = example();
    // (verb, target as typed, target as recorded)
    let cases: [(Verb, &str, &str); 5] = [
        (Verb::Unpin, "n-1", "n-0001"),
        (Verb::Unveto, "n-0002", "n-0002"),
        (
            Verb::Budget,
            " tokens=1.5M,time=7200 ",
            "tokens=1.5M,time=7200",
        ),
        (Verb::AlphaMax, "3", "3"),
        (Verb::AlphaMax, "0.5", "0.5"),
    ];
    for (i, (verb, target, written)) in cases.into_iter().enumerate() {
        let said = steer(&store, verb, Some(target)).unwrap();
        assert!(
            said.starts_with(&format!("{verb} {written} requested")),
            "{said}"
        );
        let snap = store.load().unwrap();
        let all = directives(&snap.doc);
        assert_eq!(all.len(), i + 1);
        let d = all.last().unwrap();
        assert_eq!(d.verb(), Some(verb));
        assert_eq!(d.target.as_deref(), Some(written), "{verb}");
        assert_eq!(d.state, DirectiveState::Pending);
        assert_eq!(d.plan_file, None, "only edits carry a plan file");
        assert_history(&snap, verb.name(), Some(written), "workflow.steering");
    }

    // An edit saves the text under plan/edits/<directive id>.md and names it.
    let said = edit(&store, "n-3", Some("# New plan\nUse the held-out split.\n")).unwrap();
    assert_eq!(said, "edit n-0003 requested (directive d-13, revision 13)");
    let snap = store.load().unwrap();
    let d = directives(&snap.doc).pop().unwrap();
    assert_eq!(d.verb(), Some(Verb::Edit));
    assert_eq!(d.target.as_deref(), Some("n-0003"));
    assert_eq!(d.plan_file.as_deref(), Some("plan/edits/d-13.md"));
    assert_eq!(
        std::fs::read_to_string(run.join("plan/edits/d-13.md")).unwrap(),
        "# New plan\nUse the held-out split.\n"
    );
    assert_history(&snap, "edit", Some("n-0003"), "workflow.steering");
    assert_eq!(
        last_entry(&snap, "plan_file").as_deref(),
        Some("plan/edits/d-13.md")
    );
    assert!(snap.warnings.is_empty(), "{:?}", snap.warnings);
}

#[test]
fn plan_verbs_refuse_unknown_nodes_and_bad_values_writing_nothing() {
    let (_g, run, store) = example();
    let before = std::fs::read(store.path()).unwrap();
    for verb in [Verb::Unpin, Verb::Unveto] {
        let e = steer(&store, verb, Some("n-0042")).unwrap_err();
        assert!(
            matches!(e, SteerError::UnknownPlanNode { .. }),
            "{verb}: {e}"
        );
    }
    let e = edit(&store, "n-0042", Some("plan")).unwrap_err();
    assert!(matches!(e, SteerError::UnknownPlanNode { .. }), "{e}");
    // (verb, value, message fragment): usage errors, refused before the run is read.
    let bad: [(Verb, &str, &str); 6] = [
        (
            Verb::Budget,
            "tokens=lots",
            "write tokens=<n> and/or time=<seconds>",
        ),
        (Verb::Budget, "tokens=0", "a token budget of 0"),
        (Verb::Budget, "time=-5", "give a positive number of seconds"),
        (Verb::AlphaMax, "three", "α_max `three` is not a number"),
        (
            Verb::AlphaMax,
            "0",
            "out of range: give a number in (0, 100]",
        ),
        (Verb::AlphaMax, "250", "out of range"),
    ];
    for (verb, value, want) in bad {
        let e = steer(&store, verb, Some(value)).unwrap_err();
        assert!(
            matches!(e, SteerError::BadValue { .. }) && e.is_usage(),
            "{e}"
        );
        let said = e.to_string();
        assert!(
            said.starts_with(&format!("`{verb} {value}` is not usable")),
            "{said}"
        );
        assert!(said.contains(want), "{said}");
    }
    for verb in [Verb::Budget, Verb::AlphaMax, Verb::Unpin] {
        let e = steer(&store, verb, None).unwrap_err();
        assert!(matches!(e, SteerError::MissingTarget { .. }), "{verb}: {e}");
    }
    let e = edit(&store, "n-3", None).unwrap_err();
    assert!(matches!(e, SteerError::NoPlanText) && e.is_usage(), "{e}");
    let e = edit(&store, "n-3", Some("  \n")).unwrap_err();
    assert!(matches!(e, SteerError::NoPlanText), "{e}");
    let mut pin = Request::new(Verb::Pin, Some("n-3"), "r");
    pin.plan = Some("text".into());
    let e = apply(&store, &pin, Layout::Native).unwrap_err();
    assert!(matches!(e, SteerError::PlanWithoutEdit { .. }), "{e}");

    assert_eq!(
        std::fs::read(store.path()).unwrap(),
        before,
        "nothing written"
    );
    assert!(!run.join("plan/edits").exists(), "no edit file left behind");
}

#[test]
fn cli_edit_reads_the_plan_file_and_checks_values() {
    let (_g, run, _store) = example();
    let d = run.to_str().unwrap();
    let plan = run.join("new-plan.md");
    std::fs::write(&plan, "# Plan\nFive folds, then the held-out island.\n").unwrap();
    let p = plan.to_str().unwrap();
    let o = youra(&["steer", d, "edit", "n-3", "--plan-file", p, "--reason", "r"]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert_eq!(
        text(&o).0,
        "edit n-0003 requested (directive d-8, revision 8)\n"
    );
    assert_eq!(
        std::fs::read_to_string(run.join("plan/edits/d-8.md")).unwrap(),
        "# Plan\nFive folds, then the held-out island.\n"
    );
    let o = youra(&["steer", d, "budget", "tokens=2M,time=7200", "--reason", "r"]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let o = youra(&["steer", d, "alpha_max", "3", "--reason", "r"]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert_eq!(
        text(&o).0,
        "alpha-max 3 requested (directive d-10, revision 10)\n"
    );

    let missing = run.join("absent.md");
    for (args, want) in [
        (
            vec!["edit", "n-3"],
            "`edit` needs the new plan: pass --plan-file",
        ),
        (
            vec!["edit", "n-3", "--plan-file", missing.to_str().unwrap()],
            "cannot use the plan file",
        ),
        (
            vec!["pin", "n-3", "--plan-file", p],
            "--plan-file only applies to `edit`",
        ),
        (vec!["budget", "tokens=lots"], "is not usable"),
        (vec!["alpha-max", "101"], "out of range"),
    ] {
        let mut all = vec!["steer", d];
        all.extend(args);
        all.extend(["--reason", "r"]);
        let o = youra(&all);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{all:?}: {err}");
        assert!(err.contains(want), "{all:?}: {err}");
    }
    let o = youra(&["steer", d, "unveto", "n-0042", "--reason", "r"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).1.contains("the plan-tree pane"), "{:?}", text(&o));
}
