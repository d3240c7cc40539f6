use super::*;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("create folder");
    }
    std::fs::write(path, text).expect("write file");
}

#[test]
fn lower_is_better_table() {
    let cases = [
        ("val_loss", true),
        ("test_rmse", true),
        ("eval.error_rate", true),
        ("perplexity", true),
        ("accuracy", false),
        ("f1", false),
        ("auroc", false),
        ("lossless_ratio", false),
    ];
    for (key, want) in cases {
        assert_eq!(lower_is_better(key), want, "{key}");
    }
}

#[test]
fn json_every_numeric_leaf_with_pointer() {
    let v: Value = serde_json::from_str(
        r#"{"metrics": {"accuracy": 0.91, "a/b": 2}, "seeds": [1, 2.5], "name": "x", "ok": true}"#,
    )
    .expect("json");
    let got: Vec<(String, f64, String)> = json_entries("h-e1", "f.json", &v)
        .into_iter()
        .map(|e| (e.key, e.value, e.path.unwrap_or_default()))
        .collect();
    let want = [
        // serde_json keeps object keys sorted.
        ("h-e1.results.metrics.a/b", 2.0, "/metrics/a~1b"),
        ("h-e1.results.metrics.accuracy", 0.91, "/metrics/accuracy"),
        ("h-e1.results.seeds.0", 1.0, "/seeds/0"),
        ("h-e1.results.seeds.1", 2.5, "/seeds/1"),
    ];
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!((g.0.as_str(), g.1, g.2.as_str()), w);
    }
}

#[test]
fn metrics_final_and_best() {
    let log = "{\"step\": 1, \"loss\": 2.0, \"acc\": 0.5}\n\
               {\"step\": 2, \"loss\": 0.7, \"acc\": 0.93}\n\
               not json\n\
               {\"step\": 3, \"loss\": 0.9, \"acc\": 0.91}\n";
    let (entries, warnings) = metrics_entries("h-e1", "h-e1/results/metrics.jsonl", log);
    let r = Registry {
        entries,
        ..Registry::empty()
    };
    assert_eq!(r.value("h-e1.metrics.step.final"), Some(3.0));
    assert_eq!(r.get("h-e1.metrics.step.best"), None);
    assert_eq!(r.value("h-e1.metrics.loss.final"), Some(0.9));
    assert_eq!(r.value("h-e1.metrics.loss.best"), Some(0.7));
    assert_eq!(r.value("h-e1.metrics.acc.final"), Some(0.91));
    assert_eq!(r.value("h-e1.metrics.acc.best"), Some(0.93));
    assert_eq!(
        r.get("h-e1.metrics.acc.best").and_then(|e| e.path.clone()),
        Some("line 2: /acc".to_string())
    );
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains(":3:"), "{warnings:?}");
}

#[test]
fn build_reads_results_logs_and_gates() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dir.path();
    write(
        run,
        "h-e1/results/experiment_results.json",
        r#"{"accuracy": 0.8123}"#,
    );
    write(
        run,
        "h-e1/results/metrics.jsonl",
        "{\"step\": 5, \"acc\": 0.8}\n",
    );
    write(run, "h-m1/results/experiment_results.json", "{broken");
    write(run, "notes/results/experiment_results.json", r#"{"x": 1}"#);
    write(
        run,
        "verification_state.yaml",
        "sub_hypotheses:\n  h-m1:\n    gate:\n      result: FAIL\n      failed_checks:\n      \
         - criterion: rho\n        required: -0.8\n        actual: -0.31\n",
    );
    let r = build(run).expect("build");
    assert_eq!(r.value("h-e1.results.accuracy"), Some(0.8123));
    assert_eq!(r.value("h-e1.metrics.acc.final"), Some(0.8));
    assert_eq!(r.value("h-m1.gate.failed_checks.0.actual"), Some(-0.31));
    // A required value is declared, not measured: it may be stated, never verify a claim.
    assert!(
        r.get("h-m1.gate.failed_checks.0.required")
            .is_some_and(|e| e.declared),
        "{:?}",
        r.get("h-m1.gate.failed_checks.0.required")
    );
    assert!(r.entries.iter().all(|e| !e.key.starts_with("notes")));
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(r.warnings[0].contains("h-m1/results/experiment_results.json"));
    let Origin::Measured { files } = &r.origin else {
        panic!("built registry must say it was measured");
    };
    assert_eq!(
        files,
        &[
            "h-e1/results/experiment_results.json",
            "h-e1/results/metrics.jsonl",
            "verification_state.yaml"
        ]
    );
    assert_eq!(
        r.get("h-e1.results.accuracy").map(Entry::location),
        Some("h-e1/results/experiment_results.json#/accuracy".to_string())
    );
}

/// A results file's `repeats` (issue 40): youra's mean of each metric is an entry, the rows
/// are not (per-fold values would verify almost any number, a row's `fold` would bind "ten
/// folds"); the gate's interval mean is keyed under the run it read; its confidence is a
/// setting, declared.
#[test]
fn repeats_give_means_not_rows_and_the_gate_mean_is_the_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dir.path();
    write(
        run,
        "h-e1/results/experiment_results.json",
        r#"{"repeats": [{"seed": 0, "fold": 0, "accuracy": 0.9, "accuracy_lda": 0.95},
                        {"seed": 0, "fold": 1, "accuracy": 0.8, "accuracy_lda": 0.97}],
            "partitions": 2}"#,
    );
    write(
        run,
        "verification_state.yaml",
        "sub_hypotheses:\n  h-e1:\n    gate:\n      result: PASS\n      evidence:\n      \
         - metric: accuracy\n        mean: 0.85\n        lo: 0.7\n        hi: 0.99\n        \
         confidence: 0.95\n",
    );
    let r = build(run).expect("build");
    assert!(
        r.entries
            .iter()
            .all(|e| !e.key.contains(".repeats.0") && !e.key.contains(".repeats.1")),
        "no per-row entry: {:?}",
        r.entries
    );
    let mean = r
        .value("h-e1.results.repeats.mean.accuracy")
        .expect("a mean");
    assert!((mean - 0.85).abs() < 1e-12);
    assert!(r.value("h-e1.results.repeats.mean.accuracy_lda").is_some());
    assert_eq!(r.value("h-e1.results.partitions"), Some(2.0));
    assert_eq!(r.value("h-e1.results.gate.accuracy"), Some(0.85));
    assert!(
        r.get("h-e1.results.gate.accuracy_lo").is_none(),
        "bounds are youra's annotation"
    );
    assert!(
        r.entries
            .iter()
            .any(|e| e.declared && e.key.ends_with("confidence") && e.value == 0.95),
        "{:?}",
        r.entries
    );
    assert_eq!(
        r.repeats.len(),
        1,
        "the rows kept for the paper's intervals"
    );
}
