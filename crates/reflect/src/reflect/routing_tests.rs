use super::*;
use crate::vocab::RoutingAction::*;

/// The module doc's table as data: [lo, hi) → (Method, Design).
const TABLE: [(f64, f64, RoutingAction, RoutingAction); 6] = [
    (0.0, 0.15, Proceed, Proceed),
    (0.15, 0.45, LocalRefine, DesignRefine),
    (0.45, 0.5, LocalRefine, Pivot),
    (0.5, 0.8, MethodRefine, Pivot),
    (0.8, 0.85, MethodRefine, DesignPivot),
    (0.85, f64::INFINITY, Pivot, DesignPivot),
];

fn expected(category: Category, s: f64) -> RoutingAction {
    let row = TABLE.iter().find(|r| r.0 <= s && s < r.1);
    match (row, category) {
        (Some(r), Category::Method) => r.2,
        (Some(r), Category::Design) => r.3,
        (None, _) => panic!("no row for {s}"),
    }
}

#[test]
fn pi_over_its_whole_domain() {
    let t = Thresholds::default();
    let mut grid: Vec<f64> = (0..=100).map(|i| i as f64 / 100.0).collect();
    for edge in [0.15, 0.45, 0.5, 0.8, 0.85] {
        grid.extend([edge, edge - 1e-9, edge + 1e-9]);
    }
    for category in [Category::Method, Category::Design] {
        for &s in &grid {
            assert_eq!(
                pi(category, s, &t),
                expected(category, s),
                "{category:?} s={s}"
            );
        }
        // Out of range and NaN: clamped, NaN as 0.
        assert_eq!(pi(category, -0.5, &t), Proceed);
        assert_eq!(pi(category, f64::NAN, &t), Proceed);
        assert_eq!(pi(category, 7.0, &t), expected(category, 1.0));
    }
}

#[test]
fn pi_is_monotone_in_severity() {
    // Higher severity never routes to a milder level (same category).
    let rank = |a: RoutingAction| RoutingAction::ALL.iter().position(|&x| x == a);
    let t = Thresholds::default();
    for category in [Category::Method, Category::Design] {
        let ranks: Vec<_> = (0..=100)
            .map(|i| rank(pi(category, i as f64 / 100.0, &t)))
            .collect();
        assert!(
            ranks.windows(2).all(|w| w[0] <= w[1]),
            "{category:?}: {ranks:?}"
        );
    }
}

#[test]
fn custom_thresholds_move_the_edges() {
    let t = Thresholds {
        proceed_below: 0.0,
        method_pivot_from: 1.0,
        ..Thresholds::default()
    };
    assert_eq!(pi(Category::Method, 0.0, &t), LocalRefine);
    assert_eq!(pi(Category::Method, 0.99, &t), MethodRefine);
    assert_eq!(pi(Category::Method, 1.0, &t), Pivot);
}

#[test]
fn thresholds_validate_and_deserialize() {
    assert_eq!(Thresholds::default().validate(), Ok(()));
    let bad = Thresholds {
        kappa_min: 1.2,
        ..Thresholds::default()
    };
    assert!(bad.validate().unwrap_err().contains("kappa_min = 1.2"));
    let bad = Thresholds {
        method_refine_from: 0.9,
        ..Thresholds::default()
    };
    assert!(
        bad.validate()
            .unwrap_err()
            .contains("method_refine_from ≤ method_pivot_from")
    );
    let bad = Thresholds {
        design_pivot_from: 0.1,
        ..Thresholds::default()
    };
    assert!(bad.validate().unwrap_err().contains("design_pivot_from"));
    let t: Thresholds = toml::from_str("max_pivots = 3\nkappa_min = 0.7").unwrap();
    assert_eq!((t.max_pivots, t.kappa_min, t.proceed_below), (3, 0.7, 0.15));
    assert!(
        toml::from_str::<Thresholds>("max_pivot = 3").is_err(),
        "typos are refused"
    );
}

#[test]
fn clamp_table() {
    use Verdict::*;
    let k = 0.6;
    let table = [
        (Pivot, Some((Valid, 0.6)), MethodRefine, true),
        (DesignPivot, Some((Valid, 0.9)), DesignRefine, true),
        (Pivot, Some((Valid, 0.5999)), Pivot, false),
        (Pivot, Some((Valid, f64::NAN)), Pivot, false),
        (Pivot, Some((NotValid, 0.99)), Pivot, false),
        (DesignPivot, None, DesignPivot, false),
        (MethodRefine, Some((Valid, 0.9)), MethodRefine, false),
        (Proceed, Some((Valid, 1.0)), Proceed, false),
    ];
    for (action, judge, want, clamped) in table {
        let (got, why) = clamp(action, judge, k);
        assert_eq!((got, why.is_some()), (want, clamped), "{action} {judge:?}");
        if let Some(why) = why {
            assert!(
                why.contains(action.as_str()) && why.contains(want.as_str()),
                "{why}"
            );
        }
    }
}

#[test]
fn refinement_equivalents_never_discard() {
    for a in RoutingAction::ALL {
        assert!(!is_discarding(refinement_equivalent(a)), "{a}");
        assert_eq!(is_discarding(a), matches!(a, Pivot | DesignPivot));
    }
}

#[test]
fn pivot_budget() {
    assert_eq!(budget(Pivot, 0, 2), Ok(Pivot));
    assert_eq!(budget(DesignPivot, 1, 2), Ok(DesignPivot));
    let stop = budget(Pivot, 2, 2).unwrap_err();
    assert!(
        stop.reason.contains("pivot 3") && stop.reason.contains("allows 2"),
        "{stop}"
    );
    assert!(stop.to_string().starts_with("MUST_STOP"));
    assert!(budget(DesignPivot, 0, 0).is_err());
    assert_eq!(
        budget(MethodRefine, 9, 2),
        Ok(MethodRefine),
        "refinements are free"
    );
}

#[test]
fn should_work_never_routes() {
    let t = Thresholds::default();
    for category in [Category::Method, Category::Design] {
        for s in [0.0, 0.5, 1.0] {
            let d = route(&GateType::ShouldWork, category, s, None, 9, &t);
            assert_eq!(d, Decision::RecordLimitation);
        }
    }
}

#[test]
fn route_composes_pi_clamp_and_budget() {
    let t = Thresholds::default();
    let must = GateType::MustWork;
    let act = |action, proposed, clamped: bool| (action, proposed, clamped);
    let got = |d: Decision| match d {
        Decision::Act {
            action,
            proposed,
            clamp_reason,
        } => Some(act(action, proposed, clamp_reason.is_some())),
        _ => None,
    };
    assert_eq!(
        got(route(&must, Category::Design, 0.9, None, 0, &t)),
        Some(act(DesignPivot, DesignPivot, false))
    );
    let valid = Some((Verdict::Valid, 0.8));
    assert_eq!(
        got(route(&must, Category::Design, 0.9, valid, 0, &t)),
        Some(act(DesignRefine, DesignPivot, true))
    );
    // The clamp runs before the budget: a clamped pivot costs nothing.
    assert_eq!(
        got(route(&must, Category::Method, 0.9, valid, 2, &t)),
        Some(act(MethodRefine, Pivot, true))
    );
    assert!(matches!(
        route(&must, Category::Method, 0.9, None, 2, &t),
        Decision::MustStop(_)
    ));
    let other = GateType::Other("MAYBE".into());
    assert!(matches!(
        route(&other, Category::Method, 0.3, None, 0, &t),
        Decision::Act {
            action: LocalRefine,
            ..
        }
    ));
    let ds = GateType::DeterminesSuccess;
    assert!(matches!(
        route(&ds, Category::Design, 0.3, None, 0, &t),
        Decision::Act {
            action: DesignRefine,
            ..
        }
    ));
}

#[test]
fn youra_mapping() {
    let table = [
        (Proceed, Level::Continue, None, false, "PROCEED"),
        (
            LocalRefine,
            Level::Retry,
            Some(Stage::ImplementationPlanning),
            false,
            "SAME_HYPOTHESIS_RETRY",
        ),
        (
            MethodRefine,
            Level::Retry,
            Some(Stage::ImplementationPlanning),
            false,
            "SAME_HYPOTHESIS_RETRY",
        ),
        (
            DesignRefine,
            Level::RedoDesign,
            Some(Stage::ExperimentDesign),
            false,
            "ROUTED_TO_PHASE_2C",
        ),
        (
            Pivot,
            Level::Redesign,
            Some(Stage::HypothesisDebate),
            true,
            "ROUTED_TO_PHASE_2A",
        ),
        (
            DesignPivot,
            Level::Reset,
            Some(Stage::ProblemScoping),
            true,
            "ROUTED_TO_PHASE_0",
        ),
    ];
    for (action, level, stage, archives, outcome) in table {
        let l = youra_level(action);
        assert_eq!(
            (l, l.stage(), l.archives(), l.outcome()),
            (level, stage, archives, outcome),
            "{action}"
        );
        assert_eq!(
            l.archives(),
            is_discarding(action),
            "only discarding actions archive"
        );
    }
}
