//! A claim stated after a redesign, measured once (issue 40 item 5): the demo's approved
//! pivot with `[evidence] min_repeats = 1`. Each experiment then runs the one seed youra
//! names and reports one value, so youra cannot check that the redesigned claims were
//! measured on seeds the first hypothesis never used: their PASSes are INCONCLUSIVE and
//! marked post hoc, the claims run on as exploratory, and the recorded paper's "supported"
//! for them is refused at Evidence Check (the recording has no second answer, so the run
//! stops there, named).

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common;
use youra::vsa::store::Store;

fn status(dir: &Path) -> Option<String> {
    let snap = Store::new(dir.join("verification_state.yaml"))
        .load()
        .ok()?;
    snap.vsa
        .workflow
        .status
        .as_ref()
        .map(|s| s.as_str().to_string())
}

#[test]
fn a_post_hoc_claim_measured_once_is_inconclusive_and_marked() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    youra::cli::engine_cmd::demo_dir(
        Some(dir.clone()),
        youra::cli::engine_cmd::DemoOptions::default(),
    )
    .unwrap();
    let toml = dir.join("youra.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, format!("{text}\n[evidence]\nmin_repeats = 1\n")).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["run", dir.to_str().unwrap()])
        .env("YOURA_CONFIG_DIR", tmp.path().join("no-config"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while status(&dir).as_deref() != Some("AWAITING_APPROVAL") {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before h-m1's escalation: {:?}",
            std::fs::read_to_string(dir.join("youra.log")).unwrap_or_default()
        );
        assert!(start.elapsed() < Duration::from_secs(120), "no escalation");
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = common::youra(&[
        "steer",
        dir.to_str().unwrap(),
        "approve",
        "--reason",
        "the bill-first claim is wrong",
    ]);
    assert!(out.status.success(), "{:?}", common::text(&out));
    while child.try_wait().unwrap().is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(240),
            "the run never ended"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let snap = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    for id in ["h-e2", "h-m2", "h-c2"] {
        let h = snap.vsa.hypothesis(id).expect(id);
        assert!(h.post_hoc, "{id} is marked post hoc");
        assert_eq!(
            h.gate.result,
            Some(youra::vsa::enums::GateResult::Inconclusive),
            "{id}: one value, unchecked seeds: no confirmation"
        );
        assert_eq!(h.status.as_str(), "PARTIAL", "{id}: exploratory");
        assert!(
            h.gate.undecided.iter().any(|c| c
                .reason
                .as_deref()
                .is_some_and(|r| r.starts_with("post hoc: stated after 1 redesign"))),
            "{id}: {:?}",
            h.gate.undecided
        );
    }
    // Its experiment was asked for the redesign's seed, and ran it: one fresh value.
    let results = dir.join("h-m2/results");
    let cards: Vec<String> = std::iter::once(results.join("run_card.json"))
        .chain(
            std::fs::read_dir(results.join("attempts"))
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path().join("run_card.json")),
        )
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    assert!(
        cards
            .iter()
            .any(|c| c.contains("\"YOURA_SEEDS\": \"10000\"")),
        "{cards:?}"
    );
    // The recorded Evidence Check calls the redesigned predictions supported: refused.
    let log = std::fs::read_to_string(dir.join("youra.log")).unwrap();
    assert!(
        log.contains("supported is not what the evidence allows"),
        "the recorded verdict is refused: {log}"
    );
    assert!(
        log.contains("MUST_STOP: Evidence Check"),
        "the recording has no second answer: the run stops there, named"
    );
}
