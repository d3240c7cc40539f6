//! Table tests of the controller's bounds: each illegal or unjustified choice and its reason,
//! each correction, and the choices that pass untouched.

use super::*;
use crate::reflect::routing::RoutingAction::*;

fn choice(route: Route, stage: Option<&str>, cause: usize, records: &[&str]) -> Choice {
    Choice {
        route,
        next_stage: stage.map(str::to_string),
        cause,
        records: records.iter().map(|r| r.to_string()).collect(),
        reason: "because".into(),
    }
}

struct Case {
    name: &'static str,
    gate: GateType,
    choice: Choice,
    judge: Option<(Verdict, f64)>,
    pivots: u32,
    path: bool,
    /// `Ok(route, vetoes contain)` for a take, `Err(reason contains)` for a refusal,
    /// `Err("MUST_STOP")` for a stop.
    want: Result<(Route, &'static str), &'static str>,
}

#[test]
fn the_bounds() {
    let must = GateType::MustWork;
    let should = GateType::ShouldWork;
    let valid = Some((Verdict::Valid, 0.9));
    let cases = vec![
        Case {
            name: "a legal repair passes untouched",
            gate: must.clone(),
            choice: choice(
                Route::Act(MethodRefine),
                Some("coding_validation"),
                1,
                &["failure_h-e1_run1"],
            ),
            judge: None,
            pivots: 0,
            path: false,
            want: Ok((Route::Act(MethodRefine), "")),
        },
        Case {
            name: "a redesign to Hypothesis Debate passes",
            gate: must.clone(),
            choice: choice(Route::Act(Pivot), Some("hypothesis_debate"), 2, &[]),
            judge: None,
            pivots: 0,
            path: false,
            want: Ok((Route::Act(Pivot), "")),
        },
        Case {
            name: "a reset to Problem Scoping passes",
            gate: must.clone(),
            choice: choice(Route::Act(DesignPivot), Some("Phase 0"), 1, &[]),
            judge: None,
            pivots: 1,
            path: false,
            want: Ok((Route::Act(DesignPivot), "")),
        },
        Case {
            name: "proceed may name the next loop step",
            gate: must.clone(),
            choice: choice(Route::Act(Proceed), Some("experiment_design"), 1, &[]),
            judge: None,
            pivots: 0,
            path: false,
            want: Ok((Route::Act(Proceed), "")),
        },
        Case {
            name: "a cause it was not shown",
            gate: must.clone(),
            choice: choice(Route::Act(MethodRefine), None, 4, &[]),
            judge: None,
            pivots: 0,
            path: false,
            want: Err("acted on cause 4 but was shown 3"),
        },
        Case {
            name: "cause 0",
            gate: must.clone(),
            choice: choice(Route::Act(MethodRefine), None, 0, &[]),
            judge: None,
            pivots: 0,
            path: false,
            want: Err("cause 0"),
        },
        Case {
            name: "a record it was not given",
            gate: must.clone(),
            choice: choice(Route::Act(Pivot), None, 1, &["failure_h-x9_run7"]),
            judge: None,
            pivots: 0,
            path: false,
            want: Err("`failure_h-x9_run7`, which it was not given"),
        },
        Case {
            name: "MUST_WORK as a limitation",
            gate: must.clone(),
            choice: choice(Route::Limitation, None, 1, &[]),
            judge: None,
            pivots: 0,
            path: false,
            want: Err("MUST_WORK failure cannot be recorded as a limitation"),
        },
        Case {
            name: "SHOULD_WORK redesigned",
            gate: should.clone(),
            choice: choice(Route::Act(Pivot), None, 1, &[]),
            judge: None,
            pivots: 0,
            path: true,
            want: Err(
                "SHOULD_WORK failure is retried from Experiment Design or recorded as a limitation",
            ),
        },
        Case {
            name: "SHOULD_WORK repaired",
            gate: should.clone(),
            choice: choice(Route::Act(MethodRefine), None, 1, &[]),
            judge: None,
            pivots: 0,
            path: true,
            want: Err("not Method-Refine"),
        },
        Case {
            name: "SHOULD_WORK retried from Experiment Design while a path remains",
            gate: should.clone(),
            choice: choice(Route::Act(DesignRefine), Some("experiment_design"), 1, &[]),
            judge: None,
            pivots: 0,
            path: true,
            want: Ok((Route::Act(DesignRefine), "")),
        },
        Case {
            name: "SHOULD_WORK retried with no path left becomes a limitation",
            gate: should.clone(),
            choice: choice(Route::Act(DesignRefine), None, 1, &[]),
            judge: None,
            pivots: 0,
            path: false,
            want: Ok((
                Route::Limitation,
                "no same-hypothesis improvement path remains",
            )),
        },
        Case {
            name: "SHOULD_WORK recorded as a limitation",
            gate: should.clone(),
            choice: choice(Route::Limitation, None, 2, &[]),
            judge: None,
            pivots: 0,
            path: true,
            want: Ok((Route::Limitation, "")),
        },
        Case {
            name: "a redesign on a cause the critic does not believe",
            gate: must.clone(),
            choice: choice(Route::Act(Pivot), None, 3, &[]),
            judge: None,
            pivots: 0,
            path: false,
            want: Err("scored 0.05"),
        },
        Case {
            name: "the Verdict Clamp turns a redesign into a refinement",
            gate: must.clone(),
            choice: choice(Route::Act(Pivot), None, 1, &[]),
            judge: valid,
            pivots: 0,
            path: false,
            want: Ok((Route::Act(MethodRefine), "Verdict Clamp")),
        },
        Case {
            name: "the clamp turns a reset into Design-Refine",
            gate: must.clone(),
            choice: choice(Route::Act(DesignPivot), None, 1, &[]),
            judge: valid,
            pivots: 0,
            path: false,
            want: Ok((Route::Act(DesignRefine), "Verdict Clamp")),
        },
        Case {
            name: "a low-confidence judge does not clamp",
            gate: must.clone(),
            choice: choice(Route::Act(Pivot), None, 1, &[]),
            judge: Some((Verdict::Valid, 0.3)),
            pivots: 0,
            path: false,
            want: Ok((Route::Act(Pivot), "")),
        },
        Case {
            name: "the pivot budget stops the run",
            gate: must.clone(),
            choice: choice(Route::Act(DesignPivot), None, 1, &[]),
            judge: None,
            pivots: 2,
            path: false,
            want: Err("MUST_STOP"),
        },
        Case {
            name: "a clamped redesign is not a pivot, so the budget does not stop it",
            gate: must.clone(),
            choice: choice(Route::Act(Pivot), None, 1, &[]),
            judge: valid,
            pivots: 2,
            path: false,
            want: Ok((Route::Act(MethodRefine), "Verdict Clamp")),
        },
        Case {
            name: "a stage that does not follow from the level is corrected",
            gate: must.clone(),
            choice: choice(Route::Act(Pivot), Some("problem_scoping"), 1, &[]),
            judge: None,
            pivots: 0,
            path: false,
            want: Ok((Route::Act(Pivot), "re-enters Hypothesis Debate (Phase 2A)")),
        },
        Case {
            name: "a stage that names nothing is corrected",
            gate: must.clone(),
            choice: choice(Route::Act(MethodRefine), Some("the lab"), 1, &[]),
            judge: None,
            pivots: 0,
            path: false,
            want: Ok((Route::Act(MethodRefine), "next stage `the lab`")),
        },
        Case {
            name: "proceed naming an earlier stage is corrected",
            gate: must.clone(),
            choice: choice(Route::Act(Proceed), Some("hypothesis_debate"), 1, &[]),
            judge: None,
            pivots: 0,
            path: false,
            want: Ok((Route::Act(Proceed), "goes on with the hypothesis loop")),
        },
    ];
    let causes = [
        (Category::Design, 0.7),
        (Category::Method, 0.4),
        (Category::Method, 0.05),
    ];
    let offered = vec!["failure_h-e1_run1".to_string()];
    let t = Thresholds::default();
    for c in cases {
        let b = Bounds {
            gate: &c.gate,
            causes: &causes,
            offered: &offered,
            pivots: c.pivots,
            judge: c.judge,
            improvement_path: c.path,
            thresholds: &t,
        };
        let got = bound(&c.choice, &b);
        match (&c.want, &got) {
            (Ok((route, veto)), Bounded::Take { route: r, vetoes }) => {
                assert_eq!(r, route, "{}", c.name);
                if veto.is_empty() {
                    assert!(vetoes.is_empty(), "{}: {vetoes:?}", c.name);
                } else {
                    assert!(
                        vetoes.iter().any(|v| v.contains(veto)),
                        "{}: {vetoes:?}",
                        c.name
                    );
                }
            }
            (Err("MUST_STOP"), Bounded::Stop(s)) => {
                assert!(s.reason.contains("MaxPivots"), "{}", c.name)
            }
            (Err(why), Bounded::Refuse { veto }) => {
                assert!(veto.contains(why), "{}: {veto}", c.name)
            }
            _ => panic!("{}: got {got:?}", c.name),
        }
    }
}

#[test]
fn routes_parse_from_the_controllers_words() {
    assert_eq!(Route::parse("repair"), Some(Route::Act(MethodRefine)));
    assert_eq!(Route::parse("Redesign"), Some(Route::Act(Pivot)));
    assert_eq!(Route::parse("RESET"), Some(Route::Act(DesignPivot)));
    assert_eq!(
        Route::parse("Design-Refine"),
        Some(Route::Act(DesignRefine))
    );
    assert_eq!(Route::parse("limitation"), Some(Route::Limitation));
    assert_eq!(Route::parse("Proceed"), Some(Route::Act(Proceed)));
    assert_eq!(Route::parse("Local-Refine"), Some(Route::Act(LocalRefine)));
    assert_eq!(Route::parse("shrug"), None);
    assert_eq!(Route::Act(Pivot).stage(), Some(Stage::HypothesisDebate));
    assert_eq!(Route::Act(DesignPivot).stage(), Some(Stage::ProblemScoping));
    assert_eq!(
        Route::Act(DesignRefine).stage(),
        Some(Stage::ExperimentDesign)
    );
    assert_eq!(
        Route::Act(LocalRefine).stage(),
        Some(Stage::CodingValidation)
    );
    assert_eq!(Route::Limitation.stage(), None);
}
