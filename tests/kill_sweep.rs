//! The kill sweep: the offline demo killed (SIGKILL, through the store's crash points
//! `YOURA_CRASH_AT`) just before and just after every revision it writes, then resumed
//! with `youra run`; every resumed run must end in the uninterrupted run's final state:
//! statuses, gate results, validation statuses, memory records, archives, the paper;
//! history revisions contiguous; no decision event written twice.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use youra::vsa::Store;

const BIN: &str = env!("CARGO_BIN_EXE_youra");

#[derive(Debug, Clone, PartialEq)]
struct Final {
    status: String,
    hypotheses: Vec<(String, String, String, String)>,
    memory: Vec<String>,
    archives: usize,
    paper: bool,
    pending_transition: bool,
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|r| {
            r.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn final_state(run: &Path) -> Final {
    let snap = Store::new(run.join("verification_state.yaml"))
        .load()
        .unwrap();
    let hypotheses = snap
        .vsa
        .sub_hypotheses
        .iter()
        .map(|h| {
            let validation = youra::engine::progress::loop_status(
                &snap.doc,
                &h.id,
                youra::stage::Stage::CodingValidation,
            );
            (
                h.id.clone(),
                h.status.as_str().to_string(),
                format!("{:?}", h.gate.result),
                validation.unwrap_or_default(),
            )
        })
        .collect();
    Final {
        status: format!("{:?}", snap.vsa.workflow.status),
        hypotheses,
        memory: names(&run.join("memory")),
        archives: names(&run.join("_archive")).len(),
        paper: run.join("paper/06_paper_final.md").is_file(),
        pending_transition: snap.vsa.workflow.pending_transition.is_some(),
    }
}

/// Every revision from 1 to the file's appears in the history, and no other.
fn revisions_contiguous(run: &Path) -> Result<(), String> {
    let snap = Store::new(run.join("verification_state.yaml"))
        .load()
        .unwrap();
    let seen: BTreeSet<u64> = snap.vsa.history.iter().filter_map(|h| h.revision).collect();
    let want: BTreeSet<u64> = (1..=snap.vsa.revision).collect();
    if seen == want {
        Ok(())
    } else {
        Err(format!(
            "history revisions {:?} (missing {:?}, extra {:?})",
            seen.len(),
            want.difference(&seen).collect::<Vec<_>>(),
            seen.difference(&want).collect::<Vec<_>>()
        ))
    }
}

/// Decision events counted by what they say (time aside).
fn decisions(run: &Path) -> BTreeMap<String, usize> {
    let text = std::fs::read_to_string(run.join("events.jsonl")).unwrap_or_default();
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let kind = v["kind"].as_str().unwrap_or("");
        if !matches!(
            kind,
            "gate" | "routing" | "stage_end" | "completed" | "escalation"
        ) {
            continue;
        }
        let key = format!(
            "{kind}|{}|{}|{}|{}",
            v["stage"], v["hypothesis"], v["result"], v["action"]
        );
        *out.entry(key).or_default() += 1;
    }
    out
}

fn demo(dir: &Path, crash: Option<String>) -> i32 {
    let mut c = Command::new(BIN);
    c.args(["demo", "--headless", "--dir"]).arg(dir);
    if let Some(at) = crash {
        c.env("YOURA_CRASH_AT", at);
    }
    let out = c.output().expect("youra runs");
    out.status.code().unwrap_or(-9)
}

fn resume(dir: &Path) -> i32 {
    let out = Command::new(BIN)
        .arg("run")
        .arg(dir)
        .output()
        .expect("youra runs");
    out.status.code().unwrap_or(-9)
}

#[test]
fn a_kill_before_or_after_any_revision_resumes_to_the_same_end() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("whole");
    assert_eq!(demo(&base, None), 0, "the uninterrupted demo completes");
    let want = final_state(&base);
    assert_eq!(want.status, "Some(Completed)");
    revisions_contiguous(&base).unwrap();
    let want_events = decisions(&base);
    let last = Store::new(base.join("verification_state.yaml"))
        .load()
        .unwrap()
        .vsa
        .revision;
    assert!(last >= 30, "the demo writes {last} revisions");
    // Every revision after its write, every other one before it (the window in which a
    // transition's files are written and its VSA write is not).
    let mut points: Vec<String> = (1..=last).map(|n| format!("after:{n}")).collect();
    points.extend((2..=last).step_by(2).map(|n| format!("before:{n}")));
    let chunks: Vec<Vec<String>> = points
        .chunks(points.len().div_ceil(2))
        .map(<[_]>::to_vec)
        .collect();
    let root = tmp.path().to_path_buf();
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let (root, want, want_events) = (&root, &want, &want_events);
                s.spawn(move || {
                    let mut bad = Vec::new();
                    for at in chunk {
                        let dir = root.join(at.replace(':', "_"));
                        let first = demo(&dir, Some(at.clone()));
                        if first != -9 && first != 137 {
                            bad.push(format!(
                                "{at}: the crash point was not reached (exit {first})"
                            ));
                            continue;
                        }
                        let rc = resume(&dir);
                        let got = final_state(&dir);
                        if rc != 0 || &got != want {
                            bad.push(format!("{at}: exit {rc}, {got:?}"));
                            continue;
                        }
                        if let Err(e) = revisions_contiguous(&dir) {
                            bad.push(format!("{at}: {e}"));
                        }
                        for (k, n) in decisions(&dir) {
                            if n > want_events.get(&k).copied().unwrap_or(0) {
                                bad.push(format!("{at}: event {k} written {n} times"));
                            }
                        }
                    }
                    bad
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} kill points ended wrong (want {want:?}):\n{}",
        failures.len(),
        points.len(),
        failures.join("\n")
    );
}
