//! The repeat loop killed (SIGKILL) wherever it can be: during the top-up's experiment, and at
//! every step of the store's write of the gate that ends it (`YOURA_CRASH_AT`). Each killed
//! run, started again with `youra run`, ends as the uninterrupted one did: the same verdict,
//! the same ten seeds, the same interval — no row counted twice, none lost, never a pass on
//! five seeds.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common;
use common::evidence::REPEATS;
use common::script::{replay_run, with_data};
use youra::vsa::store::Store;

const BIN: &str = env!("CARGO_BIN_EXE_youra");

/// h-e1 at `accuracy ≥ 0.921`: INCONCLUSIVE on seeds 0–4, PASS on 0–9
/// (tests/it/evidence_gates.rs). The judge's check is answered for every run a resumed
/// engine may start again.
fn run_folder() -> (tempfile::TempDir, std::path::PathBuf) {
    let (g, dir) = replay_run(&common::evidence::h_e1(0.921, 2), REPEATS);
    with_data(&dir);
    (g, dir)
}

/// What must be the same after any kill: h-e1's verdict and evidence.
fn outcome(dir: &Path) -> Vec<String> {
    let s = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    let g = s
        .doc
        .root
        .as_ref()
        .and_then(|r| r.get("sub_hypotheses")?.get("h-e1")?.get("gate").cloned())
        .expect("h-e1's gate");
    let leaf = |path: &[&str]| {
        let mut at = Some(g.clone());
        for k in path {
            at = at.and_then(|n| match k.parse::<usize>() {
                Ok(i) => n.as_seq().and_then(|s| s.get(i).cloned()),
                Err(_) => n.get(k).cloned(),
            });
        }
        at.and_then(|n| n.as_scalar().map(|s| s.text.clone()))
            .unwrap_or_else(|| "-".into())
    };
    let mut out: Vec<String> = [
        &["result"][..],
        &["satisfied"],
        &["evidence", "0", "verdict"],
        &["evidence", "0", "n"],
        &["evidence", "0", "mean"],
        &["evidence", "0", "lo"],
        &["evidence", "0", "hi"],
        &["measured", "accuracy"],
    ]
    .iter()
    .map(|p| format!("{}={}", p.join("."), leaf(p)))
    .collect();
    out.push(format!(
        "status={}",
        s.vsa.hypothesis("h-e1").unwrap().status.as_str()
    ));
    out
}

fn run(dir: &Path, crash: Option<&str>) -> std::process::ExitStatus {
    let mut c = Command::new(BIN);
    c.arg("run")
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(at) = crash {
        c.env("YOURA_CRASH_AT", at);
    }
    c.status().expect("youra runs")
}

/// The revision of the write that recorded h-e1's gate.
fn gate_revision(dir: &Path) -> u64 {
    let s = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    s.vsa
        .history
        .iter()
        .filter(|e| e.event.as_deref() == Some("gate_evaluated"))
        .filter_map(|e| e.revision)
        .next()
        .expect("a gate_evaluated entry with its revision")
}

#[test]
fn a_kill_anywhere_in_the_repeat_loop_ends_as_the_uninterrupted_run() {
    let (_g0, clean) = run_folder();
    run(&clean, None);
    let want = outcome(&clean);
    assert!(want.contains(&"result=PASS".to_string()), "{want:?}");
    assert!(want.contains(&"evidence.0.n=10".to_string()), "{want:?}");
    let rev = gate_revision(&clean);

    // Killed while the top-up's experiment runs (after the `repeats` event).
    let (_g1, dir) = run_folder();
    let mut child = Command::new(BIN)
        .arg("run")
        .arg(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let events = dir.join("events.jsonl");
    loop {
        let text = std::fs::read_to_string(&events).unwrap_or_default();
        if text.lines().any(|l| l.contains("\"kind\":\"repeats\"")) {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no repeats event"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    run(&dir, None);
    assert_eq!(outcome(&dir), want, "killed during the top-up");

    // Killed at each step of the gate's write.
    for point in ["before", "journaled", "renamed", "copied", "after"] {
        let (_g, dir) = run_folder();
        let at = format!("{point}:{rev}");
        let status = run(&dir, Some(&at));
        assert_eq!(status.code(), None, "{at}: killed at the crash point");
        run(&dir, None);
        assert_eq!(outcome(&dir), want, "killed at {at}");
    }
}
