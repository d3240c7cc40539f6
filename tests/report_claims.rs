//! Claim-level grounding end to end: `youra report check` binds each number to the claim
//! its sentence or table row names, so a paper that swaps two hypotheses' accuracies
//! fails, while the same numbers stated the right way round pass, and values the run
//! declared (a gate threshold, a config seed, the data's size) pass as declared.

use std::path::Path;
use std::process::Command;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("create folder");
    std::fs::write(path, text).expect("write file");
}

/// Two sub-hypotheses that measured accuracy on a 6-row table, seed 7, gate 0.8.
fn run_with(paper: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dir.path();
    write(
        run,
        "h-e1/results/experiment_results.json",
        r#"{"metrics": {"accuracy": 0.9123}}"#,
    );
    write(
        run,
        "h-e2/results/experiment_results.json",
        r#"{"metrics": {"accuracy": 0.8532}}"#,
    );
    write(run, "h-e1/03_config.md", "# Config\nseed: 7\n");
    write(
        run,
        "data/rows.csv",
        "x,y\n1,2\n3,4\n5,6\n7,8\n9,10\n11,12\n",
    );
    write(
        run,
        "verification_state.yaml",
        "sub_hypotheses:\n  h-e1:\n    gate:\n      criteria:\n        - metric: accuracy\n          value: 0.8\n",
    );
    write(run, "paper/06_paper.md", paper);
    dir
}

fn check(run: &Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["report", "check"])
        .arg(run)
        .output()
        .expect("run youra");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

const RIGHT: &str = "# Results\n\nh-e1 reaches an accuracy of 0.91, while h-e2 reaches 0.85.\n\n\
                     | Sub-hypothesis | Accuracy |\n|---|---|\n| h-e1 | 0.91 |\n| h-e2 | 0.85 |\n\n\
                     The gate asked for 0.8 on the 6 rows, with 7 as the seed.\n";

#[test]
fn swapped_accuracies_fail_as_wrong_claims() {
    let swapped = RIGHT
        .replace(
            "0.91, while h-e2 reaches 0.85",
            "0.85, while h-e2 reaches 0.91",
        )
        .replace(
            "| h-e1 | 0.91 |\n| h-e2 | 0.85 |",
            "| h-e1 | 0.85 |\n| h-e2 | 0.91 |",
        );
    let dir = run_with(&swapped);
    let (code, out) = check(dir.path());
    assert_eq!(code, 1, "{out}");
    for at in ["3:29", "3:54", "7:10", "8:10"] {
        assert!(
            out.contains(&format!("paper/06_paper.md:{at}: MAJOR wrong claim:")),
            "{at}: {out}"
        );
    }
    assert!(
        out.contains(
            "wrong claim: 0.85 is bound to h-e1 · accuracy but is the value of \
             h-e2.results.metrics.accuracy = 0.8532; state h-e1 · accuracy's value 0.9123"
        ),
        "{out}"
    );
    assert!(
        out.contains("h-e2/results/experiment_results.json#/metrics/accuracy"),
        "{out}"
    );
    assert!(out.contains("4 MAJOR, 0 MINOR"), "{out}");
}

#[test]
fn numbers_stated_against_their_own_claims_and_declared_values_pass() {
    let dir = run_with(RIGHT);
    let (code, out) = check(dir.path());
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("0 MAJOR, 0 MINOR"), "{out}");
    assert!(
        out.contains("4 stating the claim their context names, 0 naming no claim"),
        "{out}"
    );
    assert!(
        out.contains("3 values the run declared"),
        "0.8, 6 and 7: {out}"
    );
}
