//! Grounded reporting end to end: the registry read from YouRA's own file, and
//! `youra report check` run as a binary on crafted run folders.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{DATA_PROBLEMS_RUN, shared_fixtures};
use youra::report::registry_yaml;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("create folder");
    std::fs::write(path, text).expect("write file");
}

/// A run that measured accuracy 0.8123 on the Iris data with a t-test and lr 1e-3.
fn crafted_run(paper: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dir.path();
    write(
        run,
        "h-e1/results/experiment_results.json",
        r#"{"metrics": {"accuracy": 0.8123, "f1": 0.79}, "n_samples": 150}"#,
    );
    write(
        run,
        "h-e1/results/metrics.jsonl",
        "{\"epoch\": 1, \"loss\": 0.41}\n",
    );
    write(
        run,
        "h-e1/code/train.py",
        "from sklearn.datasets import load_iris\nfrom scipy.stats import ttest_ind\n\
         clf = LogisticRegression()\nopt = dict(lr=1e-3)\n",
    );
    write(run, "paper/06_paper.md", paper);
    dir
}

const CLEAN: &str = "# Results\n\nWe fit logistic regression on the Iris dataset (150 samples) with a \
                     learning rate of 0.001 and compare seeds with a t-test.\n\n\
                     | model | accuracy | F1 |\n|---|---|---|\n| logistic regression | 0.81 | 0.79 |\n";

const DIRTY: &str = "# Results\n\nWe fit logistic regression on the CIFAR-10 dataset with a \
                     learning rate of 0.001 and compare seeds with a t-test.\n\n\
                     | model | accuracy | F1 |\n|---|---|---|\n| logistic regression | 0.95 | 0.79 |\n";

fn check(run: &Path, extra: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["report", "check"])
        .arg(run)
        .args(extra)
        .output()
        .expect("run youra");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn youra_registry_file_loads_every_numeric_leaf() {
    let Some(root) = shared_fixtures() else {
        return;
    };
    let file = root
        .join(DATA_PROBLEMS_RUN)
        .join("paper/065_ground_truth.yaml");
    let r = registry_yaml::load(&file).expect("load YouRA's registry");
    assert_eq!(r.value("registry.n_total_models"), Some(4493.0));
    assert_eq!(r.value("registry.documentation_sparsity_pct"), Some(96.5));
    assert!(
        r.get("registry.documentation_sparsity_pct")
            .is_some_and(|e| e.is_percent())
    );
    assert_eq!(r.value("regression.baseline_model.r_squared"), Some(0.4247));
    assert_eq!(
        r.value("regression.proposed_model.doc_score_coefficient.p_value"),
        Some(1.1e-8)
    );
    assert_eq!(
        r.value("features.features_with_variance.2.prevalence_pct"),
        Some(0.8)
    );
    assert_eq!(
        r.value("gate_results.h_e1_v2.criteria_met.0.actual"),
        Some(4493.0)
    );
    assert_eq!(r.value("verifiable_claims.1.ground_truth"), Some(0.965));
    assert_eq!(r.get("metadata.generated_at"), None);
    assert!(r.entries.iter().all(|e| e.source.is_none()));
}

#[test]
fn check_fails_on_an_unverified_table_number_and_an_absent_dataset() {
    let dir = crafted_run(DIRTY);
    let (code, out, err) = check(dir.path(), &[]);
    assert_eq!(code, 1, "stdout:\n{out}\nstderr:\n{err}");
    assert!(
        out.contains("paper/06_paper.md:7:25: MAJOR table number 0.95"),
        "{out}"
    );
    assert!(out.contains("nearest measured value: h-e1."), "{out}");
    assert!(out.contains("MAJOR dataset `CIFAR-10`"), "{out}");
    assert!(out.contains("searched for CIFAR-10"), "{out}");
    assert!(out.contains("2 MAJOR, 0 MINOR"), "{out}");
    assert!(
        !dir.path().join("paper/06_paper_sanitized.md").exists(),
        "no write without --write"
    );
}

#[test]
fn check_passes_a_clean_paper() {
    let dir = crafted_run(CLEAN);
    let (code, out, err) = check(dir.path(), &[]);
    assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{err}");
    assert!(out.contains("0 MAJOR, 0 MINOR"), "{out}");
    assert!(
        out.contains("ground truth: 6 values from measured results"),
        "{out}"
    );
}

#[test]
fn write_produces_the_sanitized_paper_the_report_and_the_registry() {
    let dir = crafted_run(DIRTY);
    let (code, out, _) = check(dir.path(), &["--write"]);
    assert_eq!(code, 1, "{out}");
    let read = |rel: &str| std::fs::read_to_string(dir.path().join(rel)).expect(rel);
    let sanitized = read("paper/06_paper_sanitized.md");
    assert!(
        sanitized.contains("| logistic regression | --- | 0.79 |"),
        "{sanitized}"
    );
    let report = read("paper/review/sanitizer_report.md");
    assert!(report.contains("| 7:25 | 0.95 | 0.95 | cell |"), "{report}");
    let registry =
        registry_yaml::load(&dir.path().join("paper/065_ground_truth.yaml")).expect("load");
    let e = registry
        .get("h-e1.results.metrics.accuracy")
        .expect("accuracy entry");
    assert_eq!(e.value, 0.8123);
    assert_eq!(
        e.location(),
        "h-e1/results/experiment_results.json#/metrics/accuracy"
    );
}

#[test]
fn json_lists_findings_and_falls_back_to_the_registry_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dir.path();
    write(
        run,
        "paper/065_ground_truth.yaml",
        "registry:\n  n_total_models: 4493\n",
    );
    write(
        run,
        "paper/06_paper_final.md",
        "| a | n |\n|---|---|\n| x | 4,493 |\n| y | 4,600 |\n",
    );
    let (code, out, err) = check(run, &["--json"]);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON output");
    assert_eq!(v["paper"], "paper/06_paper_final.md");
    assert_eq!(v["major"], 1);
    // A paper without sections is all "abstract": 4,493 names no claim (MINOR, line 3).
    assert_eq!(v["minor"], 1);
    assert_eq!(v["findings"][0]["line"], 3);
    assert_eq!(v["findings"][0]["kind"], "UnboundNumber");
    assert_eq!(v["findings"][1]["line"], 4);
    assert_eq!(v["findings"][1]["kind"], "UnverifiedTableNumber");
    assert!(
        v["ground_truth"]
            .as_str()
            .is_some_and(|s| s.contains("loaded from paper/065_ground_truth.yaml"))
    );
}

#[test]
fn usage_and_io_errors_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, _, err) = check(dir.path(), &[]);
    assert_eq!(code, 2);
    assert!(err.contains("--paper"), "{err}");
    let (code, _, _) = check(dir.path(), &["--paper", "/nonexistent/paper.md"]);
    assert_eq!(code, 2);
    let (code, _, _) = check(dir.path(), &["--bogus"]);
    assert_eq!(code, 2);
}
