use super::*;
use chrono::TimeZone;

pub(crate) fn date() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 17, 4, 5, 6)
        .single()
        .unwrap_or_default()
}

fn note(action: RoutingAction) -> RoutingNote {
    RoutingNote {
        pending: false,
        action,
        severity: 0.725,
        category: Category::Design,
        trajectory: Some(
            "decay=0.950 slope=0.410 volatility=0.000 signature=saturation (n=6)".into(),
        ),
        evidence: "signature=saturation;\nthe curve flattens".into(),
        note: None,
    }
}

fn failure() -> FailureInput {
    FailureInput {
        hypothesis: "h-e1".into(),
        run: 2,
        date: date(),
        final_status: "FAIL".into(),
        failure_type: "MUST_WORK_FAIL".into(),
        gate_type: "MUST_WORK".into(),
        checks: vec![
            GateCheck {
                name: "accuracy | macro".into(),
                actual: "0.61".into(),
                threshold: "≥ 0.70".into(),
                passed: false,
            },
            GateCheck {
                name: "runtime".into(),
                actual: "12 min".into(),
                threshold: "≤ 60 min".into(),
                passed: true,
            },
        ],
        root_causes: vec![
            "cause one\nspans lines".into(),
            "  ".into(),
            "cause two".into(),
        ],
        lessons: vec!["lesson one".into()],
        routing: note(RoutingAction::Pivot),
    }
}

#[test]
fn failure_record_shape() {
    let r = render_failure(&failure()).unwrap();
    assert_eq!(r.file_name, "failure_h-e1_run2.md");
    let t = &r.text;
    assert!(
        t.starts_with("# Phase 4 Failure Record: h-e1 (Run 2)\n\n**Date:** 2026-03-17T04:05:06Z\n"),
        "{t}"
    );
    for line in [
        "**Final Status:** FAIL",
        "**Failure Type:** MUST_WORK_FAIL",
        "**Gate Type:** MUST_WORK",
        "| Check | Actual | Threshold | Passed |",
        "| accuracy \\| macro | 0.61 | ≥ 0.70 | ❌ |",
        "| runtime | 12 min | ≤ 60 min | ✅ |",
        "**Pass Rate:** 1/2",
        "## Root Cause Analysis\n\n1. cause one spans lines\n2. cause two\n",
        "## Lessons Learned\n\n1. lesson one\n",
        "- **Outcome:** ROUTED_TO_PHASE_2A (Pivot)",
        "- **Severity:** 0.72 (Design)",
        "- **Trajectory:** decay=0.950",
        "- **Evidence:** signature=saturation; the curve flattens",
        "*Written at: 2026-03-17T04:05:06Z*",
    ] {
        assert!(t.contains(line), "missing {line:?} in\n{t}");
    }
}

#[test]
fn empty_lists_and_tables_are_left_out() {
    let mut f = failure();
    f.checks.clear();
    f.root_causes = vec![" ".into()];
    let t = render_failure(&f).unwrap().text;
    assert!(
        !t.contains("| Check") && !t.contains("Root Cause") && !t.contains("Pass Rate"),
        "{t}"
    );
}

#[test]
fn other_records_shape() {
    let p = render_pivot(&PivotInput {
        from: "h-e1".into(),
        to: "h-e1-v2".into(),
        date: date(),
        gate_type: "MUST_WORK".into(),
        gate_result: "FAIL".into(),
        what_happened: vec!["it failed".into()],
        lessons: vec![],
        routing: note(RoutingAction::DesignPivot),
        summary: "narrow the scope".into(),
    })
    .unwrap();
    assert_eq!(p.file_name, "pivot_h-e1_h-e1-v2.md");
    assert!(p.text.starts_with("# Pivot Record: h-e1 → h-e1-v2\n"));
    assert!(p.text.contains("**Modification Type:** DESIGN_PIVOT"));
    assert!(p.text.contains("ROUTED_TO_PHASE_0 (Design-Pivot)"));
    let l = render_limitation(&LimitationInput {
        hypothesis: "h-m2".into(),
        run: 1,
        date: date(),
        gate_type: "SHOULD_WORK".into(),
        gate_result: "FAIL".into(),
        checks: vec![],
        root_causes: vec!["scale".into()],
        lessons: vec![],
    })
    .unwrap();
    assert_eq!(l.file_name, "limitation_h-m2_run1.md");
    assert!(l.text.starts_with("# Limitation Record: h-m2 (Run 1)\n"));
    assert!(
        l.text
            .contains("**Reflection Outcome:** LIMITATION_RECORDED")
    );
    let s = render_superseded(&SupersededInput {
        hypothesis: "h-m1".into(),
        superseded_by: "h-m1-v2".into(),
        date: date(),
        reason: "pivot".into(),
        lessons: vec![],
    })
    .unwrap();
    assert_eq!(s.file_name, "superseded_h-m1.md");
    assert!(
        s.text.contains("**Superseded By:** h-m1-v2") && s.text.contains("**Status:** SUPERSEDED")
    );
}

#[test]
fn ids_must_be_path_safe() {
    for bad in ["", "../x", ".hidden", "h e1", "h/e1", "h-é"] {
        assert!(
            matches!(check_id(bad), Err(MemoryWriteError::BadId(_))),
            "{bad:?}"
        );
    }
    for good in ["h-e1", "h_m1.v2", "H1"] {
        assert!(check_id(good).is_ok(), "{good}");
    }
    let mut f = failure();
    f.hypothesis = "../../etc".into();
    let e = render_failure(&f).unwrap_err().to_string();
    assert!(
        e.contains("`../../etc`") && e.contains("letters, digits"),
        "{e}"
    );
}

#[test]
fn a_pending_route_is_rewritten_with_the_route_taken() {
    let mut f = failure();
    f.routing = RoutingNote {
        pending: true,
        ..note(RoutingAction::Pivot)
    };
    let pending = render_failure(&f).unwrap().text;
    assert!(
        pending.contains("AWAITING_DECISION (Pivot proposed)"),
        "{pending}"
    );
    let taken = RoutingNote {
        note: Some("rejected by ana: keep it".into()),
        ..note(RoutingAction::MethodRefine)
    };
    let text = with_routing(&pending, &taken);
    assert!(
        text.contains("SAME_HYPOTHESIS_RETRY (Method-Refine)"),
        "{text}"
    );
    assert!(
        !text.contains("AWAITING") && !text.contains("Pivot"),
        "{text}"
    );
    assert!(text.contains("rejected by ana"));
    assert!(text.ends_with(&pending[pending.find("---\n*For cross-phase").unwrap()..]));
    assert_eq!(with_routing(&text, &taken), text, "idempotent");
    let again = render_failure(&f).unwrap().text;
    assert_eq!(
        with_routing(&again, &taken)
            .matches("## Routing Decision")
            .count(),
        1
    );
}
