//! Selection apart from reporting (issue 40 item 3): where the plan asks for repeats, the
//! plan tree chooses its node on the selection seeds, and the gate reads that node's
//! confirmation run on fresh seeds the search never saw.
//!
//! `tests/fixtures/evidence/split.py` at a 50/50 split: seeds 0–4 give a mean accuracy of
//! 0.93216 (95% CI 0.9190–0.9454), the confirmation seeds 1000000–1000004 give 0.92865
//! (0.9167–0.9406; computed once with Python's `statistics`). Both clear 0.9.

use crate::common;
use common::script::{replay_run, with_data};
use youra::vsa::store::Store;

fn scalar(dir: &std::path::Path, path: &[&str]) -> String {
    let s = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    let mut at = s.doc.root.clone();
    for k in path {
        at = at.and_then(|n| match k.parse::<usize>() {
            Ok(i) => n.as_seq().and_then(|s| s.get(i).cloned()),
            Err(_) => n.get(k).cloned(),
        });
    }
    at.and_then(|n| n.as_scalar().map(|s| s.text.clone()))
        .unwrap_or_else(|| panic!("no {path:?}"))
}

#[test]
fn the_gate_reads_the_selected_nodes_run_on_fresh_seeds() {
    // The judge's check of the selection run, then of the confirmation run.
    let s = common::evidence::h_e1(0.9, 2);
    let (_g, dir) = replay_run(
        &s,
        "experiment_time_limit_s = 60\n\n[evidence]\nmin_repeats = 5\n\n[plan]\nbudget_tokens = 1000000\npolicy = \"greedy\"\nafter_pass = 0\n",
    );
    with_data(&dir);
    common::script::run_engine(&dir, true);
    let gate = ["sub_hypotheses", "h-e1", "gate"];
    let at = |rest: &[&str]| scalar(&dir, &[&gate[..], rest].concat());
    assert_eq!(at(&["result"]), "PASS");
    let mean: f64 = at(&["evidence", "0", "mean"]).parse().unwrap();
    assert!(
        (mean - 0.92865).abs() < 5e-4,
        "the gate's mean is the confirmation run's (0.92865), not the selection's (0.93216): {mean}"
    );
    assert_eq!(
        scalar(
            &dir,
            &["sub_hypotheses", "h-e1", "search", "confirmation_seeds"]
        ),
        "1000000,1000001,1000002,1000003,1000004"
    );
    let events = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    let line = events
        .lines()
        .find(|l| l.contains("\"kind\":\"confirmation\""))
        .expect("a confirmation event");
    assert!(line.contains("fresh seeds 1000000,"), "{line}");
    // What the workspace's results hold now is the confirmation run's rows.
    let results: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("h-e1/results/experiment_results.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(results["repeats"][0]["seed"], 1_000_000);
}
