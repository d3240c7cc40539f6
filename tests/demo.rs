//! The offline demo: the bundled transcript is the one `tests/common/demo.rs` generates, and
//! `youra demo --headless` runs the whole study offline with real experiments on the penguin
//! data — a MUST_WORK gate that fails, is attributed and refined, then passes — to exit 0.

mod common;

use youra::vsa::store::Store;

const BUNDLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo/replay.jsonl");

#[test]
fn the_bundled_demo_is_the_generated_one() {
    let generated = common::demo::script().text();
    if std::env::var_os("YOURA_UPDATE_DEMO").is_some() {
        std::fs::write(BUNDLE, &generated).expect("write the bundle");
    }
    let bundled = std::fs::read_to_string(BUNDLE).expect("bundle");
    assert!(
        bundled == generated,
        "assets/demo/replay.jsonl is stale: run `YOURA_UPDATE_DEMO=1 cargo test --test demo`"
    );
}

#[test]
fn youra_demo_headless_runs_the_study_offline() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["demo", "--headless", "--dir", dir.to_str().unwrap()])
        .env("YOURA_CONFIG_DIR", tmp.path().join("no-config"))
        .output()
        .expect("youra demo runs");
    let (stdout, stderr) = common::text(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(stdout.contains("run complete"), "{stdout}");
    let snap = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    let status = |h: &str| snap.vsa.hypothesis(h).unwrap().status.as_str().to_string();
    assert_eq!(
        (status("h-e1"), status("h-m1"), status("h-c1")),
        ("VALIDATED".into(), "FAILED".into(), "VALIDATED".into())
    );
    assert!(
        dir.join("memory/failure_h-e1_run1.md").is_file(),
        "the first h-e1 run failed its gate and was attributed"
    );
    let results: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("h-e1/results/experiment_results.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        results["metrics"]["accuracy"], 0.9356,
        "the refined run's measured accuracy"
    );
    assert_eq!(results["standardized"], true);
    let paper = std::fs::read_to_string(dir.join("paper/06_paper_final.md")).unwrap();
    assert!(
        paper.contains("| h-e1 | accuracy | 0.9356 | met |"),
        "{paper}"
    );
    let check = common::youra(&["report", "check", dir.to_str().unwrap()]);
    assert!(check.status.success(), "{:?}", common::text(&check));
}
