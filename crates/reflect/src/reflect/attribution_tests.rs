use super::*;

fn cand(desc: &str, category: &str, evidence: &str) -> String {
    format!(
        r#"{{"description": "{desc}", "category": "{category}", "evidence": {evidence:?}, "fix": "do x"}}"#
    )
}

fn three() -> String {
    format!(
        "[{}, {}, {}]",
        cand("lr too high", "Method", "volatility=0.31 with loss spikes"),
        cand("eval split leaks", "design", "log line 42 shows overlap"),
        cand("too few samples", "DESIGN", "slope=0.01: flat"),
    )
}

fn scored(cats: &[(Category, f64)]) -> Vec<Attribution> {
    cats.iter()
        .enumerate()
        .map(|(i, &(category, s))| Attribution {
            description: format!("c{i}"),
            category,
            evidence: "decay".into(),
            fix: "f".into(),
            severity: Some(s),
        })
        .collect()
}

#[test]
fn parses_k_in_range_and_wrappers() {
    let list = parse_candidates(&three()).unwrap();
    assert_eq!(list.len(), 3);
    assert_eq!(list[0].category, Category::Method);
    assert_eq!(list[1].category, Category::Design);
    assert_eq!((list[0].fix.as_str(), list[0].severity), ("do x", None));
    let wrapped = format!(r#"{{"candidates": {}}}"#, three());
    assert_eq!(parse_candidates(&wrapped).unwrap(), list);
}

#[test]
fn k_outside_range_is_refused() {
    let one = cand("a", "Method", "decay");
    for k in [0usize, 1, 2, 6] {
        let items = vec![one.clone(); k].join(",");
        let e = parse_candidates(&format!("[{items}]")).unwrap_err();
        assert!(
            e.contains(&format!("proposed {k} candidate")) && e.contains("3 to 5"),
            "{e}"
        );
    }
    for k in [3usize, 4, 5] {
        let items = vec![one.clone(); k].join(",");
        assert_eq!(parse_candidates(&format!("[{items}]")).unwrap().len(), k);
    }
}

#[test]
fn malformed_candidates_say_what_is_wrong() {
    let ok = cand("a", "Method", "decay");
    let table = [
        (
            r#"{"category": "Method", "evidence": "decay", "fix": "f"}"#,
            "no `description`",
        ),
        (
            r#"{"description": "a", "category": "Data", "evidence": "decay", "fix": "f"}"#,
            "category `Data`",
        ),
        (
            r#"{"description": "a", "category": "Method", "evidence": "it is bad", "fix": "f"}"#,
            "cites no observation",
        ),
        (
            r#"{"description": "a", "category": "Method", "evidence": "decay"}"#,
            "no `fix`",
        ),
        (
            r#"{"description": " ", "category": "Method", "evidence": "decay", "fix": "f"}"#,
            "no `description`",
        ),
    ];
    for (bad, want) in table {
        let e = parse_candidates(&format!("[{ok}, {ok}, {bad}]")).unwrap_err();
        assert!(e.contains("candidate 3") && e.contains(want), "{bad}: {e}");
    }
    assert!(
        parse_candidates("not json")
            .unwrap_err()
            .contains("not valid JSON")
    );
    assert!(
        parse_candidates(r#"{"x": 1}"#)
            .unwrap_err()
            .contains("no list")
    );
}

#[test]
fn evidence_rule_table() {
    let table = [
        ("Decay of 0.92 after epoch 3", true),
        ("signature is saturation", true),
        ("the loss shows INSTABILITY", true),
        ("see line 118 of train.log", true),
        ("Line #7", true),
        ("log says \"CUDA out of memory at step 40\"", true),
        ("log says `ValueError: shape mismatch`", true),
        ("log says “loss is nan at step 9”", true),
        ("the \"model\" is wrong", false),
        ("the pipeline 3 failed", false),
        ("the results look bad", false),
        ("line of reasoning", false),
        ("", false),
    ];
    for (text, want) in table {
        assert_eq!(cites_observation(text), want, "{text:?}");
    }
}

#[test]
fn critique_scores_clamps_and_recategorises() {
    let list = parse_candidates(&three()).unwrap();
    let critic = r#"{"scores": [
        {"candidate": 2, "severity": 1.4},
        {"candidate": 1, "severity": 0.5, "category": "Design"},
        {"candidate": 3, "severity": -0.1, "category": "design"}]}"#;
    let c = apply_critique(&list, critic).unwrap();
    let got: Vec<_> = c
        .attributions
        .iter()
        .map(|a| (a.category, a.severity))
        .collect();
    use Category::*;
    assert_eq!(
        got,
        [
            (Design, Some(0.5)),
            (Design, Some(1.0)),
            (Design, Some(0.0))
        ]
    );
    assert_eq!(c.notes.len(), 3, "{:?}", c.notes);
    assert!(
        c.notes[0].contains("candidate 2: severity 1.4") && c.notes[0].contains("clamped to 1")
    );
    assert!(c.notes[1].contains("candidate 1: re-categorised Method → Design"));
    assert!(c.notes[2].contains("clamped to 0"));
}

#[test]
fn critique_errors() {
    let list = parse_candidates(&three()).unwrap();
    let s = |n: u32, v: f64| format!(r#"{{"candidate": {n}, "severity": {v}}}"#);
    let table = [
        (
            format!("[{}, {}]", s(1, 0.1), s(2, 0.2)),
            "did not score candidate 3",
        ),
        (
            format!("[{}, {}, {}]", s(1, 0.1), s(1, 0.2), s(3, 0.3)),
            "scored candidate 1 twice",
        ),
        (
            format!("[{}, {}, {}]", s(0, 0.1), s(2, 0.2), s(3, 0.3)),
            "names no candidate 1..=3",
        ),
        (
            format!("[{}, {}, {}]", s(4, 0.1), s(2, 0.2), s(3, 0.3)),
            "names no candidate",
        ),
        (
            r#"[{"candidate": 1, "severity": "high"}]"#.to_string(),
            "no numeric `severity`",
        ),
        (
            r#"[{"candidate": 1, "severity": 0.2, "category": "Both"}]"#.to_string(),
            "category `Both`",
        ),
        ("{}".to_string(), "no list of scores"),
        ("{".to_string(), "not valid JSON"),
    ];
    for (json, want) in table {
        let e = apply_critique(&list, &json).unwrap_err();
        assert!(e.contains(want), "{json}: {e}");
    }
}

#[test]
fn best_is_argmax_with_design_then_first_on_ties() {
    use Category::*;
    type Case<'a> = (&'a [(Category, f64)], Option<usize>);
    let table: &[Case] = &[
        (&[(Method, 0.2), (Design, 0.9), (Method, 0.5)], Some(1)),
        (&[(Method, 0.7), (Design, 0.7), (Method, 0.1)], Some(1)),
        (&[(Design, 0.7), (Method, 0.7)], Some(0)),
        (&[(Method, 0.7), (Method, 0.7), (Design, 0.2)], Some(0)),
        (&[(Design, 0.4), (Design, 0.4)], Some(0)),
        (&[], None),
    ];
    for (cats, want) in table {
        let list = scored(cats);
        let got = best(&list).map(|b| list.iter().position(|c| std::ptr::eq(c, b)).unwrap_or(99));
        assert_eq!(got, *want, "{cats:?}");
    }
    let mut unscored = scored(&[(Method, 0.3), (Design, 0.1)]);
    unscored[0].severity = None;
    assert_eq!(best(&unscored).map(|b| b.description.as_str()), Some("c1"));
    unscored[1].severity = None;
    assert_eq!(best(&unscored), None);
}
