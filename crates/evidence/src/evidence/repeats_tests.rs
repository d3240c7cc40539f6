//! The results schema's `repeats` read as a hostile experiment would write it, and the
//! corrected resampled t checked against a hand computation (Python's `statistics` with
//! SciPy's t(0.975, 9) = 2.262157162798205: mean 0.933, sd 0.018885620632287027, interval
//! 0.9077251807890733–0.9582748192109268 for the ten values below as 2 seeds × 5 folds).

use serde_json::json;

use super::*;
use crate::evidence::stats::{Method, Spec, Summary};
use crate::evidence::{IntervalRule, Rule, Verdict, judge_sample};
use crate::vocab::Op;

const TEN: [f64; 10] = [0.93, 0.95, 0.91, 0.94, 0.92, 0.96, 0.90, 0.93, 0.94, 0.95];

fn cv_rows(seeds: i64, values: &[f64]) -> serde_json::Value {
    let folds = values.len() as i64 / seeds;
    let rows: Vec<_> = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let (s, f) = (i as i64 / folds, i as i64 % folds);
            json!({"seed": s, "fold": f, "accuracy": v, "accuracy_majority": 0.44 + 0.001 * i as f64, "model": "centroid"})
        })
        .collect();
    json!({ "metrics": {"accuracy": 0.99}, "repeats": rows })
}

#[test]
fn a_cross_validation_gets_the_corrected_interval_and_counts_its_seeds() {
    let r = Repeats::from_results(&cv_rows(2, &TEN)).unwrap().unwrap();
    let sample = r.sample("accuracy", None).unwrap();
    assert_eq!(sample.cv, Some(Cv { folds: 5, seeds: 2 }));
    let spec = Spec {
        confidence: 0.95,
        interval: IntervalRule::Auto,
        bounds: None,
        cv: sample.cv,
    };
    let s = Summary::of(&sample.values, &spec).unwrap();
    assert_eq!((s.n, s.repeats, s.method), (10, 2, Method::CorrectedT));
    assert!((s.mean - 0.933).abs() < 1e-12);
    assert!((s.sd - 0.018885620632287027).abs() < 1e-12);
    assert!((s.lo - 0.9077251807890733).abs() < 1e-9, "{}", s.lo);
    assert!((s.hi - 0.9582748192109268).abs() < 1e-9, "{}", s.hi);
    // The experiment's own `metrics.accuracy` (0.99) is not the evidence: youra's mean is.
    assert!((r.means()["accuracy"] - 0.933).abs() < 1e-12);
    // Two seeds are two repeats, however many folds: short of min_repeats, more are asked.
    let j = judge_sample(Op::Ge, 0.9, &sample, None, &Rule::default()).unwrap();
    assert_eq!(j.decision.verdict, Verdict::Inconclusive);
    assert_eq!(
        j.decision.next,
        crate::evidence::Next::MoreRepeats { have: 2, want: 5 }
    );
}

#[test]
fn a_gain_is_the_paired_difference_row_by_row() {
    let r = Repeats::from_results(&cv_rows(2, &TEN)).unwrap().unwrap();
    let g = r.sample("accuracy", Some("accuracy_majority")).unwrap();
    let (arm, base) = g.arms.clone().unwrap();
    assert_eq!(arm, TEN.to_vec());
    for i in 0..10 {
        assert!((g.values[i] - (TEN[i] - 0.44 - 0.001 * i as f64)).abs() < 1e-12);
        assert!((base[i] - (0.44 + 0.001 * i as f64)).abs() < 1e-12);
    }
}

#[test]
fn what_a_hostile_experiment_writes_is_refused_with_its_row() {
    let cases: &[(serde_json::Value, &str)] = &[
        (json!({"repeats": 3}), "not a list"),
        (json!({"repeats": []}), "empty"),
        (json!({"repeats": [1, 2]}), "`repeats[0]` is not an object"),
        (
            json!({"repeats": [{"seed": 0, "accuracy": 0.9}, {"seed": 0, "accuracy": 0.99}]}),
            "repeats seed 0",
        ),
        (
            json!({"repeats": [{"seed": 0, "accuracy": 0.9}, {"accuracy": 0.99}]}),
            "unlike `repeats[0]`",
        ),
        (
            json!({"repeats": [{"seed": "zero", "accuracy": 0.9}]}),
            "`repeats[0].seed` is not an integer",
        ),
        (
            json!({"repeats": [{"seed": 1.5, "accuracy": 0.9}]}),
            "not an integer",
        ),
        (
            json!({"repeats": [
                {"seed": 0, "fold": 0, "accuracy": 0.9}, {"seed": 0, "fold": 1, "accuracy": 0.9},
                {"seed": 1, "fold": 0, "accuracy": 0.9}
            ]}),
            "every seed runs the same folds",
        ),
    ];
    for (doc, want) in cases {
        let err = Repeats::from_results(doc).unwrap_err();
        assert!(err.contains(want), "{doc}: {err}");
    }
    let too_many: Vec<_> = (0..=MAX_ROWS).map(|i| json!({"seed": i, "a": 1})).collect();
    assert!(
        Repeats::from_results(&json!({ "repeats": too_many }))
            .unwrap_err()
            .contains("more than")
    );
    assert_eq!(
        Repeats::from_results(&json!({"metrics": {}})).unwrap(),
        None
    );
}

#[test]
fn a_missing_metric_or_an_unasked_seed_is_named() {
    let doc = json!({"repeats": [
        {"seed": 0, "accuracy": 0.9, "loss": 0.1},
        {"seed": 7, "accuracy": 0.91}
    ]});
    let r = Repeats::from_results(&doc).unwrap().unwrap();
    let err = r.sample("loss", None).unwrap_err();
    assert!(err.contains("seed 7") && err.contains("`loss`"), "{err}");
    let asked: std::collections::BTreeSet<i64> = (0..5).collect();
    let err = r.only_seeds(&asked).unwrap_err();
    assert!(err.contains("seed 7") && err.contains("0,1,2,3,4"), "{err}");
    assert!(r.only_seeds(&[0, 7].into_iter().collect()).is_ok());
    // Seeds without folds: each seed is a repeat, plain t.
    assert_eq!(r.cv(), None);
    assert_eq!(r.sample("accuracy", None).unwrap().values, vec![0.9, 0.91]);
}
