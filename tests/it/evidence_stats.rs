//! Issue 40's foundation end to end: `youra bench claims` as a user runs it (the real binary:
//! deterministic, and interval gating makes fewer false claims than one measurement where it
//! matters, at the threshold), `[evidence]` read from a run's youra.toml, and the public rule
//! from the side of an experiment that would like to pass: one value, a NaN repeat, unpaired
//! arms, a straddling interval at the cap.

use crate::common::{text, youra};
use youra::evidence::{self, Bounds, Next, Refused, Rule, StatsError, Verdict};
use youra::vocab::Op;

fn claims_json(studies: &str, seed: &str) -> serde_json::Value {
    let o = youra(&[
        "bench",
        "claims",
        "--studies",
        studies,
        "--seed",
        seed,
        "--json",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// The PASS rate of `gating` in `scenario`, with whether the truth holds there.
fn pass_rate(v: &serde_json::Value, scenario: &str, gating: &str) -> (f64, bool) {
    let row = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["scenario"]["name"] == scenario && r["gating"] == gating)
        .unwrap_or_else(|| panic!("no row {scenario} / {gating}"));
    let t = &row["tally"];
    let rate = t["pass"].as_f64().unwrap() / t["studies"].as_f64().unwrap();
    (rate, row["truth_holds"].as_bool().unwrap())
}

#[test]
fn interval_gating_makes_fewer_false_claims_than_one_measurement_at_the_threshold() {
    let v = claims_json("300", "5");
    assert_eq!(v["bench"], "claims");
    assert_eq!(v["params"]["studies"], 300);
    assert_eq!(v["params"]["rule"]["min_repeats"], 5);
    assert_eq!(v["params"]["rule"]["max_repeats"], 20);
    assert_eq!(v["params"]["rule"]["confidence"], 0.95);
    for scenario in ["at the threshold", "gain at the threshold"] {
        let (today, holds) = pass_rate(&v, scenario, "one measurement");
        let (interval, _) = pass_rate(&v, scenario, "interval + repeats");
        assert!(!holds, "{scenario}: the threshold counts as failing");
        assert!(today > 0.35, "{scenario}: one measurement passes {today}");
        assert!(interval < today, "{scenario}: {interval} vs {today}");
        assert!(interval <= 0.08, "{scenario}: {interval}");
    }
    // Where the truth holds, repeats buy power back.
    let (one_look, holds) = pass_rate(&v, "well above", "interval, one look");
    let (looped, _) = pass_rate(&v, "well above", "interval + repeats");
    assert!(
        holds && looped > one_look && looped > 0.9,
        "{one_look} {looped}"
    );
    let worst = &v["worst_false_claims"];
    assert!(
        worst["interval + repeats"].as_f64().unwrap() < worst["one measurement"].as_f64().unwrap()
    );
    // Seeded: the same seed, the same bytes; another seed, other studies.
    assert_eq!(v, claims_json("300", "5"));
    assert_ne!(v["rows"], claims_json("300", "6")["rows"]);
}

#[test]
fn the_table_names_both_rules_and_the_target() {
    let o = youra(&["bench", "claims", "--studies", "200"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        out.starts_with("youra bench claims: 200 simulated studies per row, seed 1\n"),
        "{out}"
    );
    for want in [
        "sd 0.026 (accuracy: the demo's per-fold spread), 0.021 (paired gain)",
        "min_repeats 5, max_repeats 20, confidence 0.95 (top-up looks at 0.9833), interval auto",
        "worst false-claim rate (target ≤ 5.0%):",
        "(today's rule)",
        "null gain",
    ] {
        assert!(out.contains(want), "{want}:\n{out}");
    }
}

#[test]
fn the_bench_refuses_what_it_cannot_simulate() {
    for (args, names) in [
        (&["--studies", "0"][..], "--studies 0"),
        (&["--sd", "NaN"][..], "--sd NaN"),
        (&["--sd", "2"][..], "--sd 2"),
        (&["--gain-sd=-0.1"][..], "--gain-sd -0.1"),
    ] {
        let o = youra(&[&["bench", "claims"][..], args].concat());
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {out}{err}");
        assert!(err.contains(names), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: no table on a refusal: {out}");
    }
}

#[test]
fn evidence_settings_are_read_from_the_run_and_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let o = youra(&["init", run.to_str().unwrap(), "--topic", "t"]);
    assert!(o.status.success(), "{o:?}");
    let conf = run.join("youra.toml");
    let base = std::fs::read_to_string(&conf).unwrap();
    let show = |extra: &str| {
        std::fs::write(&conf, format!("{base}\n{extra}")).unwrap();
        youra(&["config", "show", run.to_str().unwrap(), "--json"])
    };
    let o = show("[evidence]\nmin_repeats = 7\ninterval = \"t\"\n");
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let value = |key: &str| {
        out.lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .find(|r| r["key"] == key)
            .map(|r| r["value"].as_str().unwrap_or_default().to_string())
    };
    assert_eq!(value("evidence.min_repeats").as_deref(), Some("7"), "{out}");
    assert_eq!(
        value("evidence.max_repeats").as_deref(),
        Some("20"),
        "{out}"
    );
    assert_eq!(
        value("evidence.interval").as_deref(),
        Some("\"t\""),
        "{out}"
    );
    for (bad, names) in [
        (
            "[evidence]\nconfidence = 1.5\n",
            "evidence.confidence = 1.5",
        ),
        ("[evidence]\ninterval = \"z\"\n", "bootstrap"),
        (
            "[evidence]\nmin_repeats = 30\n",
            "min_repeats = 30 is above max_repeats = 20",
        ),
    ] {
        let o = show(bad);
        let (out, err) = text(&o);
        assert!(!o.status.success(), "{bad}: {out}");
        assert!(err.contains(names), "{bad}: {err}");
    }
}

#[test]
fn an_experiment_cannot_pass_a_gate_by_what_it_reports() {
    let rule = Rule::default();
    let unit = Some(Bounds::UNIT);
    // One value where the plan asks for five: refused, not passed.
    let e = evidence::judge(Op::Ge, 0.92, &[0.9999], unit, &rule).unwrap_err();
    assert_eq!(e, Refused::TooFewRepeats { n: 1, min: 5 });
    // A repeat that failed to a NaN cannot be dropped into a pass.
    let e = evidence::judge(
        Op::Ge,
        0.92,
        &[0.95, 0.96, f64::NAN, 0.97, 0.95],
        unit,
        &rule,
    );
    assert!(
        matches!(
            e,
            Err(Refused::Values(StatsError::NotFinite { index: 2, .. }))
        ),
        "{e:?}"
    );
    // A gain over a baseline run on fewer repeats is not paired by truncation.
    let e = evidence::judge_gain(Op::Ge, 0.02, &[0.9; 5], &[0.8; 4], unit, &rule);
    assert!(matches!(
        e,
        Err(Refused::Values(StatsError::Unpaired {
            arm: 5,
            baseline: 4
        }))
    ));
    // Five folds around the threshold: inconclusive, asking for ten; at the cap of twenty,
    // still straddling, it goes to the researcher and is never a pass.
    let folds = [0.971, 0.913, 0.9265, 0.9265, 0.9412];
    let j = evidence::judge(Op::Ge, 0.92, &folds, unit, &rule).unwrap();
    assert_eq!(j.decision.verdict, Verdict::Inconclusive);
    assert_eq!(j.decision.next, Next::MoreRepeats { have: 5, want: 10 });
    let twenty: Vec<f64> = folds.iter().cycle().take(20).copied().collect();
    let capped = Rule {
        max_repeats: 20,
        ..rule
    };
    let j = evidence::judge(Op::Ge, 0.935, &twenty, unit, &capped).unwrap();
    assert_eq!(
        (j.decision.verdict, j.decision.next),
        (Verdict::Inconclusive, Next::Researcher)
    );
    assert!(
        j.decision
            .why(&j.summary, Op::Ge, 0.935)
            .contains("the researcher decides")
    );
}
