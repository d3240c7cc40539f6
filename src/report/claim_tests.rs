use super::*;
use crate::report::registry::Entry;

/// (key, hypothesis, metric, family, conditions)
type KeyCase<'a> = (
    &'a str,
    Option<&'a str>,
    Option<&'a str>,
    Option<&'a str>,
    &'a [&'a str],
);
/// (text, hypotheses, families, metrics, conditions)
type TextCase<'a> = (
    &'a str,
    &'a [&'a str],
    &'a [&'a str],
    &'a [&'a str],
    &'a [&'a str],
);

#[test]
fn claim_of_key_table() {
    // (key, hypothesis, metric, family, conditions)
    let cases: &[KeyCase] = &[
        (
            "h-e1.results.metrics.accuracy",
            Some("h-e1"),
            Some("accuracy"),
            Some("accuracy"),
            &[],
        ),
        (
            "h-e1.attempt2.results.metrics.accuracy",
            Some("h-e1"),
            Some("accuracy"),
            Some("accuracy"),
            &["attempt2"],
        ),
        (
            "h-e1.metrics.test_loss.best",
            Some("h-e1"),
            Some("test loss"),
            None,
            &[],
        ),
        (
            "h-c1.results.metrics.group_accuracy.female",
            Some("h-c1"),
            Some("group accuracy"),
            Some("accuracy"),
            &["female"],
        ),
        (
            "h-m1.results.metrics.accuracy_with_body_mass_g",
            Some("h-m1"),
            Some("accuracy with body mass"),
            None,
            &[],
        ),
        (
            "h-e1.results.acc_std",
            Some("h-e1"),
            Some("acc std"),
            Some("accuracy"),
            &[],
        ),
        (
            "h-m1.results.metrics.gain",
            Some("h-m1"),
            Some("gain"),
            None,
            &[],
        ),
        (
            "gate_results.h_e1_v2.criteria_met.0.actual",
            Some("h-e1-v2"),
            None,
            None,
            &[],
        ),
        (
            "regression.baseline_model.r_squared",
            None,
            Some("r squared"),
            Some("R²"),
            &["baseline model"],
        ),
        (
            "registry.documentation_sparsity_pct",
            None,
            Some("documentation sparsity"),
            None,
            &[],
        ),
        (
            "verifiable_claims.4.ground_truth.perplexity_filter_documented_variance",
            None,
            Some("perplexity filter documented variance"),
            None,
            &["ground truth"],
        ),
        ("acc", None, Some("acc"), Some("accuracy"), &[]),
    ];
    for (key, h, metric, family, conditions) in cases {
        let k = ClaimKey::of(key);
        assert_eq!(k.hypothesis.as_deref(), *h, "{key}");
        assert_eq!(k.metric.as_deref(), *metric, "{key}");
        assert_eq!(k.family, *family, "{key}");
        assert_eq!(k.conditions, *conditions, "{key}");
    }
    assert_eq!(
        ClaimKey::of("h-c1.results.metrics.group_accuracy.female").label(),
        "h-c1 · group accuracy · female"
    );
}

#[test]
fn hypothesis_ids_and_versions() {
    let cases = [
        ("h-e1", Some("h-e1")),
        ("H-E1", Some("h-e1")),
        ("h_e1_v2", Some("h-e1-v2")),
        ("h-m12", Some("h-m12")),
        ("h-e1-v2", Some("h-e1-v2")),
        ("h-elephant", None),
        ("h-e", None),
        ("h-e1-x", None),
        ("he1", None),
    ];
    for (token, want) in cases {
        assert_eq!(hypothesis_id(token).as_deref(), want, "{token}");
    }
    assert!(names_hypothesis("h-e1", "h-e1"));
    assert!(names_hypothesis("h-e1", "h-e1-v2"));
    assert!(!names_hypothesis("h-e1-v2", "h-e1"));
    assert!(!names_hypothesis("h-e1", "h-e12"));
    assert_eq!(
        hypothesis_mentions("H-E1's accuracy (h-m1) vs h-e1-v2, not ah-e1 or h-elephant."),
        ["h-e1", "h-m1", "h-e1-v2"]
    );
}

#[test]
fn mentions_table() {
    let reg = Registry {
        entries: [
            "h-e1.results.metrics.accuracy",
            "h-m1.results.metrics.gain",
            "h-m1.results.metrics.gain_min",
            "h-c1.results.metrics.group_accuracy.female",
            "regression.baseline_model.r_squared",
            "features.n_features_with_variance",
            "h-e1.metrics.step.final",
        ]
        .iter()
        .map(|k| Entry::new((*k).to_string(), 1.0))
        .chain([Entry::new("h-x1.results.f1".into(), 0.5).declared()])
        .collect(),
        ..Registry::empty()
    };
    let index = ClaimIndex::new(&reg);
    // (text, hypotheses, families, metrics, conditions)
    let cases: &[TextCase] = &[
        (
            "H-E1 reaches an accuracy of 0.93",
            &["h-e1"],
            &["accuracy"],
            &["accuracy"],
            &[],
        ),
        (
            "h-m1 gains 0.03 over h-e1",
            &["h-e1", "h-m1"],
            &[],
            &["gain", "gain min"],
            &[],
        ),
        ("female birds", &[], &[], &[], &["female"]),
        ("males only", &[], &[], &[], &[]),
        (
            "the baseline's R² is 0.42",
            &[],
            &["R²"],
            &[],
            &["baseline model"],
        ),
        (
            "3 features with variance",
            &[],
            &[],
            &["n features with variance"],
            &[],
        ),
        ("after 11,200 steps", &[], &[], &["step"], &[]),
        ("F1 of h-x1", &[], &[], &[], &[]), // declared only: not in the vocabulary
        ("gainful", &[], &[], &[], &[]),
    ];
    for (text, h, f, m, c) in cases {
        let got = index.mentions(text);
        assert_eq!(got.hypotheses, *h, "{text}");
        assert_eq!(got.families, *f, "{text}");
        assert_eq!(got.metrics, *m, "{text}");
        assert_eq!(got.conditions, *c, "{text}");
    }
}
