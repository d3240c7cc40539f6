//! Four processes each run 250 `youra vsa set` on one file: no update is lost.

use crate::common;

use std::process::Command;

use common::*;
use youra::vsa::Store;

const WRITERS: usize = 4;
const EACH: usize = 250;

#[test]
fn four_processes_times_250_sets_lose_nothing() {
    let (dir, vsa) = temp_copy(&example_run().join("verification_state.yaml"));
    let start = Store::new(&vsa).load().unwrap().vsa.clone();
    let handles: Vec<_> = (0..WRITERS)
        .map(|w| {
            let run = dir.path().to_path_buf();
            std::thread::spawn(move || {
                for i in 0..EACH {
                    let out = Command::new(env!("CARGO_BIN_EXE_youra"))
                        .args(["vsa", "set"])
                        .arg(&run)
                        .args([
                            "workflow.next_action",
                            &format!("w{w}-{i}"),
                            "--reason",
                            "race",
                            "--actor",
                            &format!("writer{w}"),
                        ])
                        .output()
                        .expect("youra runs");
                    assert!(
                        out.status.success(),
                        "writer {w} set {i}: {}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("writer thread");
    }
    let end = Store::new(&vsa).load().unwrap().vsa.clone();
    let total = WRITERS * EACH;
    assert_eq!(end.revision, start.revision + total as u64);
    let added: Vec<_> = end.history.since(start.history.len()).collect();
    assert_eq!(added.len(), total);
    let mut seen: Vec<String> = added.iter().filter_map(|h| h.new.clone()).collect();
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), total, "every value written exactly once");
    // Revisions in history are consecutive: no two writers ever read the same revision.
    let revisions: Vec<u64> = added.iter().filter_map(|h| h.revision).collect();
    assert_eq!(revisions.len(), total);
    assert!(revisions.windows(2).all(|w| w[0] < w[1]));
    for w in 0..WRITERS {
        let own: Vec<&str> = added
            .iter()
            .filter(|h| h.actor.as_deref() == Some(&format!("writer{w}")))
            .filter_map(|h| h.new.as_deref())
            .collect();
        let expected: Vec<String> = (0..EACH).map(|i| format!("w{w}-{i}")).collect();
        assert_eq!(own, expected, "writer {w}'s edits in its own order");
    }
    assert_eq!(
        end.workflow.next_action.as_deref(),
        added.last().unwrap().new.as_deref()
    );
}
