use super::*;
/// (key, hypothesis, metric, family, conditions)
type KeyCase<'a> = (
    &'a str,
    Option<&'a str>,
    Option<&'a str>,
    Option<&'a str>,
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
}

#[test]
fn summary_of_a_metric_name() {
    let cases = [
        ("gain", Summary::Value),
        ("gain min", Summary::Min),
        ("min group accuracy", Summary::Min),
        ("gain max", Summary::Max),
        ("accuracy mean", Summary::Value),
        ("accuracy std", Summary::Spread),
        ("ci lower", Summary::Min),
        ("accuracy ci", Summary::Spread),
        ("loss median", Summary::Median),
        // One word is the metric itself, even a qualifier's: a metric named `max`.
        ("max", Summary::Value),
        // Only the ends qualify: `max depth` in the middle of a name is not its maximum.
        ("tree max depth count", Summary::Value),
    ];
    for (name, want) in cases {
        assert_eq!(Summary::of_metric(name), want, "{name}");
    }
    assert_eq!(
        ClaimKey::of("h-m1.results.metrics.gain_min").summary(),
        Summary::Min
    );
}
