use super::*;

fn features(values: &[f64], higher: bool) -> Features {
    match analyse(values, higher) {
        Trajectory::Features(f) => f,
        other => panic!("{values:?}: {other:?}"),
    }
}

#[test]
fn signatures_table() {
    use Signature::*;
    let table: &[(&str, &[f64], bool, Signature)] = &[
        ("flat accuracy", &[0.50, 0.50, 0.50, 0.50], true, Stagnation),
        (
            "flat with tiny noise",
            &[0.500, 0.501, 0.499, 0.500, 0.501],
            true,
            Stagnation,
        ),
        ("all zeros", &[0.0, 0.0, 0.0], true, Stagnation),
        (
            "rose then plateaued",
            &[0.40, 0.60, 0.70, 0.71, 0.71, 0.71],
            true,
            Saturation,
        ),
        ("three-point saturation", &[0.5, 0.8, 0.8], true, Saturation),
        (
            "loss fell then plateaued",
            &[2.0, 1.0, 0.6, 0.59, 0.59, 0.59],
            false,
            Saturation,
        ),
        ("steady climb", &[0.1, 0.2, 0.3, 0.4, 0.5], true, Improving),
        ("two points up", &[0.5, 0.6], true, Improving),
        (
            "loss still falling",
            &[1.0, 0.8, 0.6, 0.4],
            false,
            Improving,
        ),
        (
            "oscillating",
            &[0.5, 0.8, 0.5, 0.8, 0.5, 0.8],
            true,
            Instability,
        ),
        (
            "loss spiking",
            &[1.0, 0.5, 1.5, 0.4, 1.2],
            false,
            Instability,
        ),
        (
            "diverged to NaN",
            &[0.5, 0.6, f64::NAN, 0.7],
            true,
            Instability,
        ),
        ("accuracy falling", &[0.8, 0.7, 0.6, 0.5], true, Decline),
        ("loss rising", &[0.5, 0.6, 0.7], false, Decline),
    ];
    for (name, values, higher, want) in table {
        let f = features(values, *higher);
        assert_eq!(f.signature, *want, "{name}: {f:?}");
    }
}

#[test]
fn formulas_on_known_series() {
    // Linear 0.1 → 0.5: gains 0.1/0.5 = 0.2 each, so D = 0, S = 0.4/0.5, V = 0.
    let f = features(&[0.1, 0.2, 0.3, 0.4, 0.5], true);
    assert!(f.decay.abs() < 1e-12, "{f:?}");
    assert!((f.slope - 0.8).abs() < 1e-12, "{f:?}");
    assert!(f.volatility.abs() < 1e-12, "{f:?}");
    // 0.5, 0.8, 0.8: first gain 0.375, last 0 → D = 1; S = 0.15·2/0.8.
    let f = features(&[0.5, 0.8, 0.8], true);
    assert!(
        (f.decay - 1.0).abs() < 1e-12 && (f.slope - 0.375).abs() < 1e-12,
        "{f:?}"
    );
    // 0.5, 0.8, 0.5: |Δ| sums to 0.6, net 0 → V = 0.6 / (2 · 0.8).
    let f = features(&[0.5, 0.8, 0.5], true);
    assert!((f.volatility - 0.375).abs() < 1e-12, "{f:?}");
}

#[test]
fn orientation_mirrors() {
    // A loss series is the accuracy series negated: the features must be identical.
    let up = features(&[0.2, 0.5, 0.6, 0.62], true);
    let down = features(&[-0.2, -0.5, -0.6, -0.62], false);
    assert_eq!(up, down);
}

#[test]
fn insufficient_and_dropped() {
    assert_eq!(analyse(&[], true), Trajectory::Insufficient { points: 0 });
    assert_eq!(
        analyse(&[0.3], true),
        Trajectory::Insufficient { points: 1 }
    );
    let nan_heavy = [f64::NAN, 0.3, f64::INFINITY];
    assert_eq!(
        analyse(&nan_heavy, true),
        Trajectory::Insufficient { points: 1 }
    );
    let f = features(&[0.3, f64::NEG_INFINITY, 0.3], true);
    assert_eq!(
        (f.points, f.dropped, f.signature),
        (2, 1, Signature::Instability)
    );
    assert!(f.describe().contains("1 non-finite dropped"));
}

#[test]
fn classify_edges() {
    use Signature::*;
    let c = |d, s, v, g| classify(0, d, s, v, g);
    assert_eq!(
        c(0.0, 0.5, VOLATILITY_MIN, 0.1),
        Instability,
        "V at the threshold"
    );
    assert_eq!(c(0.0, 0.5, VOLATILITY_MIN - 1e-9, 0.1), Improving);
    assert_eq!(
        c(0.0, FLAT_SLOPE - 1e-9, 0.0, 0.1),
        Stagnation,
        "just under flat"
    );
    assert_eq!(c(0.0, -FLAT_SLOPE + 1e-9, 0.0, 0.1), Stagnation);
    assert_eq!(
        c(0.0, FLAT_SLOPE, 0.0, 0.1),
        Improving,
        "S at the threshold"
    );
    assert_eq!(c(0.0, -FLAT_SLOPE, 0.0, 0.1), Decline);
    assert_eq!(
        c(SATURATION_DECAY, 0.3, 0.0, 0.1),
        Saturation,
        "D at the threshold"
    );
    assert_eq!(c(SATURATION_DECAY - 1e-9, 0.3, 0.0, 0.1), Improving);
    assert_eq!(c(0.9, 0.3, 0.0, RISE_MIN), Improving, "no real early rise");
    assert_eq!(
        classify(1, 0.0, 0.5, 0.0, 0.1),
        Instability,
        "a dropped point"
    );
}

#[test]
fn describe_names_the_citable_features() {
    let d = features(&[0.5, 0.8, 0.8], true).describe();
    for name in ["decay=", "slope=", "volatility=", "signature=saturation"] {
        assert!(d.contains(name), "{d}");
    }
}
