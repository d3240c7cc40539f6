//! Experiment review from the attacker's side and across a restart (decision 0040): an
//! answer written past `youra steer` cannot point the engine at another file of the run, and a
//! killed engine started again waits on the review it raised (same node, same code) rather
//! than raise a second one or run what nobody answered. Helpers from `experiment_review.rs`.

use crate::common;
use crate::experiment_review::{answer, engine, passing, pending, toml, waits};

use std::time::{Duration, Instant};

use common::script::{CENTROID_PY, replay_run, with_data};

#[test]
fn a_hand_written_edit_cannot_point_the_engine_at_another_file() {
    let s = passing();
    let (_g, run) = replay_run(&s, &toml(false));
    with_data(&run);
    let e = engine(&run);
    waits(&run, &e);
    // Written past `youra steer`: an edit whose text is the run's own youra.toml.
    let t = |v: &str| {
        youra::yaml::NewNode::Scalar(youra::yaml::format_scalar(v, youra::yaml::Style::Plain))
    };
    let value = youra::yaml::NewNode::Map(vec![
        ("verdict".into(), t("edited")),
        ("by".into(), t("mallory")),
        ("reason".into(), t("x")),
        ("path".into(), t("centroid.py")),
        ("file".into(), t("youra.toml")),
    ]);
    youra::vsa::Store::new(run.join("verification_state.yaml"))
        .mutate(&youra::vsa::mutation::Mutation::new(
            youra::vsa::mutation::Change::Put {
                path: youra::vsa::review::DECISION_PATH.into(),
                value,
            },
            "field_edit",
            "mallory",
            "x",
        ))
        .unwrap();
    let end = e.join().unwrap();
    let why = common::vsa_field(&run, "workflow.stop_reason").unwrap_or_default();
    assert!(
        why.contains("the edit names `youra.toml`, not reviews/"),
        "{end:?}: {why}"
    );
    assert!(
        common::events_of(&run, "experiment_exit").is_empty(),
        "nothing ran"
    );
    assert_eq!(
        std::fs::read(run.join("h-e1/code/centroid.py")).unwrap(),
        CENTROID_PY.as_bytes(),
        "the code is youra's"
    );
}

#[test]
fn a_killed_engine_waits_on_the_same_review_when_it_starts_again() {
    let s = passing();
    let (_g, run) = replay_run(&s, &toml(false));
    with_data(&run);
    let bin = env!("CARGO_BIN_EXE_youra");
    let spawn = || {
        std::process::Command::new(bin)
            .args(["run", run.to_str().unwrap()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let wait_pending = || {
        let start = Instant::now();
        loop {
            if let Some(r) = pending(&run) {
                return r;
            }
            assert!(start.elapsed() < Duration::from_secs(60), "no review");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let mut first = spawn();
    let before = wait_pending();
    first.kill().unwrap();
    first.wait().unwrap();
    let mut second = spawn();
    // The restarted engine writes the same code again and finds its review: no new one.
    std::thread::sleep(Duration::from_millis(1500));
    let again = wait_pending();
    assert_eq!(again.id, before.id, "the same review waits");
    let rid = before.id.clone().unwrap();
    let records = std::fs::read_dir(run.join("reviews")).unwrap().count();
    assert_eq!(records, 1, "no second review was raised");
    // The restarted engine calls again (the first may have died before its call went out),
    // about the same review.
    let calls = common::events_of(&run, "review");
    assert!(
        (1..=2).contains(&calls.len())
            && calls
                .iter()
                .all(|e| e.message.as_deref().is_some_and(|m| m.starts_with(&rid))),
        "{calls:?}"
    );
    answer(&run, &["approve"], "after the restart", "ana", None);
    let status = second.wait().unwrap();
    assert_eq!(
        common::vsa_field(&run, "sub_hypotheses.h-e1.status").as_deref(),
        Some("VALIDATED"),
        "{status:?}"
    );
}
