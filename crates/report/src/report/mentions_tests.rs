use super::*;
use crate::report::registry::Entry;

/// (text, hypotheses, families, metrics, conditions)
type TextCase<'a> = (
    &'a str,
    &'a [&'a str],
    &'a [&'a str],
    &'a [&'a str],
    &'a [&'a str],
);

#[test]
fn hypothesis_mentions_are_normalised() {
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
