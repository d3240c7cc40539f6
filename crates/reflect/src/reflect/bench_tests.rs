use super::*;
use crate::reflect::corpus::Shape;

fn case(cause: Cause, category: Category, values: &[f64]) -> Case {
    Case {
        key: 42,
        cause,
        category,
        shape: Shape::Flat,
        values: values.to_vec(),
        higher_is_better: true,
        log: Vec::new(),
        hint: None,
        decoy: None,
    }
}

#[test]
fn each_causes_band_lands_on_its_level_under_pi() {
    // The deterministic router's premise: every severity in a cause's band routes (with the
    // true category) to the cause's level — checked at both edges.
    let t = Thresholds::default();
    let table = [
        (Cause::MethodIssue, Category::Method),
        (Cause::DesignFlaw, Category::Design),
        (Cause::WrongHypothesis, Category::Method),
        (Cause::WrongHypothesis, Category::Design),
        (Cause::WrongQuestion, Category::Design),
    ];
    for (cause, cat) in table {
        let (lo, hi) = band(cause, cat, &t);
        for s in [lo, (lo + hi) / 2.0, hi - 1e-9] {
            let level = routing::youra_level(routing::pi(cat, s, &t));
            assert_eq!(
                Target::Level(level),
                Target::of(cause),
                "{cause:?} {cat:?} s={s}"
            );
        }
    }
    // A bug's band is Local-Refine's: π alone cannot say "repair".
    let (lo, hi) = band(Cause::Bug, Category::Method, &t);
    assert_eq!(
        routing::pi(Category::Method, lo, &t),
        RoutingAction::LocalRefine
    );
    assert_eq!(
        routing::pi(Category::Method, hi - 1e-9, &t),
        RoutingAction::LocalRefine
    );
}

#[test]
fn deterministic_router_goes_wrong_only_through_the_no_metric_rule() {
    let t = Thresholds::default();
    let curve = [0.4, 0.5, 0.55, 0.56, 0.56, 0.56];
    let table: &[(Cause, Category, &[f64], Option<Target>)] = &[
        (Cause::Bug, Category::Method, &[], Some(Target::Repair)),
        (
            Cause::Bug,
            Category::Method,
            &[f64::NAN; 6],
            Some(Target::Repair),
        ),
        // A bug that logged a curve: π has no repair row, so it lands on a retry (a miss).
        (
            Cause::Bug,
            Category::Method,
            &curve,
            Some(Target::Level(Level::Retry)),
        ),
        // A method run that diverged before logging: repair (a miss).
        (
            Cause::MethodIssue,
            Category::Method,
            &[0.4],
            Some(Target::Repair),
        ),
        (
            Cause::MethodIssue,
            Category::Method,
            &curve,
            Some(Target::Level(Level::Retry)),
        ),
        (
            Cause::DesignFlaw,
            Category::Design,
            &curve,
            Some(Target::Level(Level::RedoDesign)),
        ),
        (
            Cause::WrongHypothesis,
            Category::Method,
            &curve,
            Some(Target::Level(Level::Redesign)),
        ),
        (
            Cause::WrongHypothesis,
            Category::Design,
            &curve,
            Some(Target::Level(Level::Redesign)),
        ),
        (
            Cause::WrongQuestion,
            Category::Design,
            &curve,
            Some(Target::Level(Level::Reset)),
        ),
    ];
    for (cause, cat, values, want) in table {
        let c = case(*cause, *cat, values);
        let traj = trajectory::analyse(values, true);
        assert_eq!(deterministic(&c, &traj, &t), *want, "{cause:?} {values:?}");
    }
}

#[test]
fn the_critic_proposes_k_candidates_with_the_true_cause_among_them() {
    let t = Thresholds::default();
    let spec = CriticSpec::default();
    for c in corpus::generate(200, 3) {
        let mut rng = XorShift64::new(c.key);
        let list = critique(&c, Signature::Stagnation, &t, &spec, &mut rng);
        assert!((attribution::K_MIN..=attribution::K_MAX).contains(&list.len()));
        let own = format!("{} cause", c.cause.as_str());
        assert_eq!(list.iter().filter(|a| a.description == own).count(), 1);
        for a in &list {
            assert!(attribution::cites_observation(&a.evidence), "{a:?}");
            assert!(
                a.severity.is_some_and(|s| (0.0..=1.0).contains(&s)),
                "{a:?}"
            );
        }
    }
}

#[test]
fn a_perfect_critic_makes_the_pipeline_as_good_as_the_deterministic_part() {
    // With no critic error the pipeline differs from router 1 only by severity noise at the
    // band edges and the clamp; with zero noise too it must agree case by case, except that
    // a discarded hypothesis or question may be clamped by a judge that wrongly says Valid.
    let t = Thresholds::default();
    let spec = CriticSpec {
        misrank: 0.0,
        no_hint: 0.0,
        decoy: 0.0,
        atypical: 0.0,
        miscategorise: 0.0,
        severity_sd: 0.0,
    };
    for c in corpus::generate(300, 5) {
        let traj = trajectory::analyse(&c.values, c.higher_is_better);
        let (p, d) = (pipeline(&c, &traj, &t, &spec), deterministic(&c, &traj, &t));
        if c.cause.hypothesis_fine() {
            assert_eq!(p, d, "{c:?}");
        }
    }
}

#[test]
fn wilson_by_hand() {
    let table = [
        (0, 0, 0.0, 1.0),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (50, 100, 0.4038, 0.5962),
    ];
    for (k, n, lo, hi) in table {
        let (a, b) = wilson(k, n);
        assert!(
            (a - lo).abs() < 1e-4 && (b - hi).abs() < 1e-4,
            "{k}/{n}: {a} {b}"
        );
    }
}

#[test]
fn the_report_is_deterministic_and_the_rows_count_every_case() {
    let a = run(400, 11);
    assert_eq!(a, run(400, 11));
    assert_eq!(a.per_cause.iter().sum::<usize>(), 400);
    let names: Vec<&str> = a.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(&names[..2], ["deterministic", "pipeline"]);
    assert_eq!(names.len(), 7);
    // A fixed verdict recalls its own level fully and nothing else.
    let always_pivot = &a.rows[5];
    assert_eq!(
        always_pivot.recall,
        [Some(0.0), Some(0.0), Some(0.0), Some(1.0), Some(0.0)]
    );
    let text = render(&a);
    assert!(
        text.contains("pipeline") && text.contains("vs best single verdict"),
        "{text}"
    );
}
