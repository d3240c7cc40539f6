//! Table tests of the controller's bounds: each illegal or unjustified choice and its reason,
//! each correction, and the choices that pass untouched.

use super::*;
use crate::reflect::routing::RoutingAction::*;

fn choice(route: Route, cause: usize, records: &[&str]) -> Choice {
    Choice {
        route,
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
            name: "a legal repair (a Method cause) passes untouched",
            gate: must.clone(),
            choice: choice(Route::Act(MethodRefine), 2, &["failure_h-e1_run1"]),
            judge: None,
            pivots: 0,
            path: false,
            want: Ok((Route::Act(MethodRefine), "")),
        },
        Case {
            name: "a redesign to Hypothesis Debate passes",
            gate: must.clone(),
            choice: choice(Route::Act(Pivot), 2, &[]),
            judge: None,
            pivots: 0,
            path: false,
            want: Ok((Route::Act(Pivot), "")),
        },
        Case {
            name: "a reset to Problem Scoping passes",
            gate: must.clone(),
            choice: choice(Route::Act(DesignPivot), 1, &[]),
            judge: None,
            pivots: 1,
            path: false,
            want: Ok((Route::Act(DesignPivot), "")),
        },
        Case {
            name: "proceed passes",
            gate: must.clone(),
            choice: choice(Route::Act(Proceed), 1, &[]),
            judge: None,
            pivots: 0,
            path: false,
            want: Ok((Route::Act(Proceed), "")),
        },
        Case {
            name: "a cause it was not shown",
            gate: must.clone(),
            choice: choice(Route::Act(MethodRefine), 4, &[]),
            judge: None,
            pivots: 0,
            path: false,
            want: Err("acted on cause 4 but was shown 3"),
        },
        Case {
            name: "cause 0",
            gate: must.clone(),
            choice: choice(Route::Act(MethodRefine), 0, &[]),
            judge: None,
            pivots: 0,
            path: false,
            want: Err("cause 0"),
        },
        Case {
            name: "a record it was not given",
            gate: must.clone(),
            choice: choice(Route::Act(Pivot), 1, &["failure_h-x9_run7"]),
            judge: None,
            pivots: 0,
            path: false,
            want: Err("`failure_h-x9_run7`, which it was not given"),
        },
        Case {
            name: "MUST_WORK as a limitation",
            gate: must.clone(),
            choice: choice(Route::Limitation, 1, &[]),
            judge: None,
            pivots: 0,
            path: false,
            want: Err("MUST_WORK failure cannot be recorded as a limitation"),
        },
        Case {
            name: "SHOULD_WORK redesigned",
            gate: should.clone(),
            choice: choice(Route::Act(Pivot), 1, &[]),
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
            choice: choice(Route::Act(MethodRefine), 1, &[]),
            judge: None,
            pivots: 0,
            path: true,
            want: Err("not Method-Refine"),
        },
        Case {
            name: "SHOULD_WORK retried from Experiment Design while a path remains",
            gate: should.clone(),
            choice: choice(Route::Act(DesignRefine), 1, &[]),
            judge: None,
            pivots: 0,
            path: true,
            want: Ok((Route::Act(DesignRefine), "")),
        },
        Case {
            name: "SHOULD_WORK retried with no path left becomes a limitation",
            gate: should.clone(),
            choice: choice(Route::Act(DesignRefine), 1, &[]),
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
            choice: choice(Route::Limitation, 2, &[]),
            judge: None,
            pivots: 0,
            path: true,
            want: Ok((Route::Limitation, "")),
        },
        Case {
            name: "a redesign on a cause the critic does not believe",
            gate: must.clone(),
            choice: choice(Route::Act(Pivot), 3, &[]),
            judge: None,
            pivots: 0,
            path: false,
            want: Err("scored 0.05"),
        },
        Case {
            name: "the Verdict Clamp turns a redesign into a refinement",
            gate: must.clone(),
            choice: choice(Route::Act(Pivot), 1, &[]),
            judge: valid,
            pivots: 0,
            path: false,
            want: Ok((Route::Act(MethodRefine), "Verdict Clamp")),
        },
        Case {
            name: "the clamp turns a reset into Design-Refine",
            gate: must.clone(),
            choice: choice(Route::Act(DesignPivot), 1, &[]),
            judge: valid,
            pivots: 0,
            path: false,
            want: Ok((Route::Act(DesignRefine), "Verdict Clamp")),
        },
        Case {
            name: "a low-confidence judge does not clamp",
            gate: must.clone(),
            choice: choice(Route::Act(Pivot), 1, &[]),
            judge: Some((Verdict::Valid, 0.3)),
            pivots: 0,
            path: false,
            want: Ok((Route::Act(Pivot), "")),
        },
        Case {
            name: "the pivot budget stops the run",
            gate: must.clone(),
            choice: choice(Route::Act(DesignPivot), 1, &[]),
            judge: None,
            pivots: 2,
            path: false,
            want: Err("MUST_STOP"),
        },
        Case {
            name: "a clamped redesign is not a pivot, so the budget does not stop it",
            gate: must.clone(),
            choice: choice(Route::Act(Pivot), 1, &[]),
            judge: valid,
            pivots: 2,
            path: false,
            want: Ok((Route::Act(MethodRefine), "Verdict Clamp")),
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

/// Each cause category × each level, on a MUST_WORK gate: taken, or refused with a reason
/// that names the cause (its number, category and severity) and what the level needs.
#[test]
fn each_category_and_level() {
    use crate::reflect::attribution::Category::{Design, Method};
    let causes = [(Design, 0.7), (Method, 0.72)];
    let offered: Vec<String> = Vec::new();
    let t = Thresholds::default();
    let sure_no = Some((Verdict::NotValid, 0.9));
    let unsure_no = Some((Verdict::NotValid, 0.3));
    let weak_yes = Some((Verdict::Valid, 0.55));
    // (cause number, level, judge, Ok(route taken) | Err(reason contains each))
    type Want = Result<RoutingAction, &'static [&'static str]>;
    type Row = (usize, RoutingAction, Option<(Verdict, f64)>, Want);
    let rows: Vec<Row> = vec![
        (2, Proceed, None, Ok(Proceed)),
        (2, LocalRefine, None, Ok(LocalRefine)),
        (2, MethodRefine, None, Ok(MethodRefine)),
        (
            2,
            DesignRefine,
            None,
            Err(&[
                "Design-Refine redoes the experiment design, which needs a Design cause",
                "cause 2 is a Method cause (s = 0.72)",
            ]),
        ),
        (2, Pivot, None, Ok(Pivot)),
        (
            2,
            DesignPivot,
            None,
            Err(&[
                "Design-Pivot (reset) needs a Design cause or an evidence contradiction (YouRA Table 8)",
                "cause 2 is a Method cause (s = 0.72)",
                "no judge's verdict shows a contradiction",
            ]),
        ),
        (
            2,
            DesignPivot,
            weak_yes,
            Err(&[
                "cause 2 is a Method cause (s = 0.72)",
                "still plausible (Valid, κ = 0.55)",
            ]),
        ),
        (
            2,
            DesignPivot,
            unsure_no,
            Err(&[
                "cause 2 is a Method cause",
                "too unsure to count as a contradiction (κ = 0.30 < κ_min 0.60)",
            ]),
        ),
        // An evidence contradiction (the judge: NotValid, κ ≥ κ_min) lets a Method cause reset.
        (2, DesignPivot, sure_no, Ok(DesignPivot)),
        (1, Proceed, None, Ok(Proceed)),
        (
            1,
            LocalRefine,
            None,
            Err(&[
                "Local-Refine (repair) keeps the design",
                "cause 1 is a Design cause (s = 0.70)",
            ]),
        ),
        (
            1,
            MethodRefine,
            sure_no,
            Err(&[
                "Method-Refine (repair)",
                "cannot apply a Design cause's fix",
                "cause 1 is a Design cause (s = 0.70)",
            ]),
        ),
        (1, DesignRefine, None, Ok(DesignRefine)),
        (1, Pivot, None, Ok(Pivot)),
        (1, DesignPivot, None, Ok(DesignPivot)),
        (1, DesignPivot, sure_no, Ok(DesignPivot)),
    ];
    for (cause, level, judge, want) in rows {
        let b = Bounds {
            gate: &GateType::MustWork,
            causes: &causes,
            offered: &offered,
            pivots: 0,
            judge,
            improvement_path: false,
            thresholds: &t,
        };
        let got = bound(&choice(Route::Act(level), cause, &[]), &b);
        match (&want, &got) {
            (Ok(route), Bounded::Take { route: r, vetoes }) => {
                assert_eq!(*r, Route::Act(*route), "cause {cause} × {level}");
                assert!(vetoes.is_empty(), "cause {cause} × {level}: {vetoes:?}");
            }
            (Err(says), Bounded::Refuse { veto }) => {
                for s in *says {
                    assert!(veto.contains(s), "cause {cause} × {level}: {veto}");
                }
            }
            _ => panic!("cause {cause} × {level} ({judge:?}): got {got:?}"),
        }
    }
}

/// π is the floor: every level the table reaches for a category, at any severity, is one
/// the category justifies without a contradiction, so the rule never refuses the table.
#[test]
fn the_table_is_the_floor() {
    use crate::reflect::attribution::Category;
    use crate::reflect::routing::pi;
    let t = Thresholds::default();
    for category in [Category::Method, Category::Design] {
        for i in 0..=100 {
            let s = f64::from(i) / 100.0;
            let a = pi(category, s, &t);
            assert_eq!(
                justifies(category, a, false),
                Ok(()),
                "{category:?} s = {s}: {a}"
            );
        }
    }
    // And the table never resets on a Method cause, which the rule refuses without a
    // contradiction: the two agree on what needs evidence.
    assert!((0..=100).all(|i| pi(Category::Method, f64::from(i) / 100.0, &t) != DesignPivot));
    assert!(justifies(Category::Method, DesignPivot, false).is_err());
    assert!(justifies(Category::Method, DesignPivot, true).is_ok());
}

/// SHOULD_WORK is ruled by the gate type, not the category (YouRA Algorithm 1 retries any
/// SHOULD_WORK miss from Experiment Design): a Method cause's Design-Refine passes there.
#[test]
fn should_work_retries_whatever_the_category() {
    use crate::reflect::attribution::Category::Method;
    let causes = [(Method, 0.4)];
    let t = Thresholds::default();
    let b = Bounds {
        gate: &GateType::ShouldWork,
        causes: &causes,
        offered: &[],
        pivots: 0,
        judge: None,
        improvement_path: true,
        thresholds: &t,
    };
    assert_eq!(
        bound(&choice(Route::Act(DesignRefine), 1, &[]), &b),
        Bounded::Take {
            route: Route::Act(DesignRefine),
            vetoes: Vec::new()
        }
    );
}
