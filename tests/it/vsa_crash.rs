//! A writer killed with SIGKILL at a random moment leaves the old file or the new one,
//! never a mixture: the atomic rename is the only moment the file changes.

use crate::common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::*;
use youra::vsa::Store;

const KILLS: usize = 100;

/// The example run grown to about 1 MB of history, so that a write takes a while.
fn big_vsa(dir: &std::path::Path) -> std::path::PathBuf {
    let mut text = std::fs::read_to_string(example_run().join("verification_state.yaml")).unwrap();
    let entry = "- event: synthetic load\n  timestamp: '2026-11-28T10:00:00Z'\n  actor: engine\n  details: 'padding entry to make the file large enough that a write takes measurable time'\n";
    let at = text.find("statistics:\n").unwrap();
    let pad = entry.repeat(1_000_000 / entry.len());
    text.insert_str(at, &pad);
    let p = dir.join("verification_state.yaml");
    std::fs::write(&p, text).unwrap();
    p
}

fn set(dir: &std::path::Path, value: &str) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["vsa", "set"])
        .arg(dir)
        .args(["workflow.next_action", value, "--reason", "crash test"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("youra runs")
}

#[test]
fn sigkill_mid_write_leaves_old_or_new() {
    let dir = tempfile::tempdir().unwrap();
    let vsa = big_vsa(dir.path());
    let t = Instant::now();
    assert!(set(dir.path(), "warm-up").wait().unwrap().success());
    let full = t.elapsed();
    let (mut old_bytes, mut seen_old, mut seen_new) = (std::fs::read(&vsa).unwrap(), 0, 0);
    for i in 0..KILLS {
        let before = Store::new(&vsa).load().unwrap().vsa.revision;
        let value = format!("value-{i}");
        let mut child = set(dir.path(), &value);
        // Spread the kills over the whole run of a write, start to finish.
        let frac = (i as u32 * 7919 % 100) as f64 / 100.0;
        std::thread::sleep(Duration::from_secs_f64(full.as_secs_f64() * frac * 1.1));
        let _ = child.kill();
        let _ = child.wait();
        let bytes = std::fs::read(&vsa).unwrap();
        let snap = Store::new(&vsa)
            .load()
            .unwrap_or_else(|e| panic!("kill {i}: the file must parse: {e}"));
        if bytes == old_bytes {
            seen_old += 1;
            assert_eq!(snap.vsa.revision, before);
        } else {
            seen_new += 1;
            assert_eq!(snap.vsa.revision, before + 1, "kill {i}");
            assert_eq!(
                snap.vsa.workflow.next_action.as_deref(),
                Some(value.as_str())
            );
            assert_eq!(
                snap.vsa.history.last().unwrap().new.as_deref(),
                Some(value.as_str())
            );
            old_bytes = bytes;
        }
    }
    eprintln!(
        "{KILLS} kills: {seen_old} left the old file, {seen_new} the new one (a full write takes {full:?})"
    );
    assert_eq!(seen_old + seen_new, KILLS);
    assert!(seen_old > 0, "some kills must land before the rename");
}
