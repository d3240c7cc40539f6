//! `youra bench routing --youra`: YouRA's shipped failure records replayed through SAGE's
//! table and the Independent Controller, end to end through the binary. The deterministic
//! test answers every role from a replay bundle (a real provider, labelled as such: it
//! checks the wiring and the report, not a model's judgement); without endpoints the bench
//! refuses and says what to give.

use crate::common;

use std::path::Path;

use common::script::{Script, candidates, scores, verdict};

const FIXTURES: &str = "../shared/fixtures/youra";

fn youra(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("youra runs")
}

#[test]
fn without_endpoints_the_bench_refuses_and_says_what_to_give() {
    let o = youra(&["bench", "routing", "--youra", FIXTURES]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--config"), "{err}");
    let o = youra(&[
        "bench",
        "routing",
        "--youra",
        "/nonexistent",
        "--config",
        "x.toml",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("routing_levels_detail.csv"), "{err}");
}

/// The replies every case gets: a Design cause the critic scores 0.9, a judge that finds
/// the experiment invalid, and a controller that resets.
fn bundle(path: &Path, hypotheses: &[&str]) {
    let mut s = Script::default();
    for h in hypotheses {
        s.reply("generator", "coding_validation", Some(h), 1, &candidates("Design"))
            .reply("critic", "coding_validation", Some(h), 1, &scores(0.9))
            .reply("judge", "coding_validation", Some(h), 1, &verdict("NotValid", 0.3))
            .reply(
                "controller",
                "coding_validation",
                Some(h),
                1,
                &serde_json::json!({"level": "reset", "next_stage": "problem_scoping", "cause": 1, "records": [], "reason": "the design cannot show the effect at this scale"}).to_string(),
            );
    }
    s.write(path);
}

#[test]
fn the_shipped_failure_records_replay_through_both_routers() {
    let dir = tempfile::tempdir().unwrap();
    let replay = dir.path().join("replay.jsonl");
    bundle(&replay, &["h-e1", "h-m1"]);
    let config = dir.path().join("youra.toml");
    std::fs::write(
        &config,
        format!(
            "[llm.default]\nprovider = \"replay\"\nreplay = \"{}\"\n\n[engine]\ncontroller_retry_wait_s = 0.0\nliterature_search = false\n",
            replay.display()
        ),
    )
    .unwrap();
    let o = youra(&[
        "bench",
        "routing",
        "--youra",
        FIXTURES,
        "--config",
        config.to_str().unwrap(),
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(
        out.contains("86 archived recoveries (81 reset, 5 redesign)"),
        "{out}"
    );
    // Every failure record shipped with the runs is a row, replayed or not.
    let records: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("/failure") || l.contains("/failures"))
        .collect();
    assert!(records.len() >= 4, "{out}");
    let replayed: Vec<&&str> = records
        .iter()
        .filter(|l| !l.contains("not replayed"))
        .collect();
    assert!(!replayed.is_empty(), "{out}");
    for l in &replayed {
        assert!(
            l.contains(" reset ") && l.contains("controller"),
            "a Design cause at 0.9 is a reset for the table, and the controller's reset is taken: {l}"
        );
    }
    let summary = out
        .lines()
        .find(|l| l.starts_with("agreement with YouRA's level"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        summary.contains("table ") && summary.contains("controller "),
        "{summary}"
    );
    // Beside each router's accuracy: the majority-class baseline, Cohen's κ and the
    // confusion matrix (issue 41 item 4), for the table and for the controller.
    for router in [
        "SAGE's table: accuracy ",
        "the controller (not shown the table's choice): accuracy ",
    ] {
        let line = out
            .lines()
            .find(|l| l.starts_with(router))
            .unwrap_or_else(|| panic!("no {router:?} line: {out}"));
        assert!(
            line.contains("majority-class baseline (reset)") && line.contains("Cohen's κ"),
            "{line}"
        );
    }
    assert_eq!(out.matches("YouRA \\ said").count(), 2, "{out}");
    // data_problems' archived recoveries were all resets, and its records route to Phase 0.
    assert!(
        out.lines()
            .any(|l| l.contains("sonnet45/data_problems/failure_h-e1_run1") && l.contains("reset")),
        "{out}"
    );
}
