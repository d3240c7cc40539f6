//! The kill sweep: the offline demo killed (SIGKILL, through the store's crash points
//! `YOURA_CRASH_AT`) at a step of every revision it writes (before it, after its journal,
//! after its rename, after it), and by an outside killer that polls the file's `revision:`
//! and kills the engine the moment it moves; then resumed with `youra run`. Every resumed
//! run must end in the uninterrupted run's final state: statuses, gate results, validation
//! statuses, memory records, archives, the paper; history revisions contiguous; no
//! decision event written twice; no history entry blaming youra's own write on `editor`.

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

/// History entries that attribute a change to someone outside youra.
fn outside_entries(run: &Path) -> Vec<String> {
    let snap = Store::new(run.join("verification_state.yaml"))
        .load()
        .unwrap();
    snap.vsa
        .history
        .iter()
        .filter(|h| {
            h.actor.as_deref() == Some("editor")
                || matches!(h.event.as_deref(), Some("hand_edit" | "stale_save"))
        })
        .map(|h| format!("r{:?} {:?} {:?}", h.revision, h.event, h.actor))
        .collect()
}

/// What is wrong with a resumed run, against the uninterrupted one.
fn check_resumed(
    at: &str,
    dir: &Path,
    rc: i32,
    want: &Final,
    want_events: &BTreeMap<String, usize>,
) -> Vec<String> {
    let got = final_state(dir);
    if rc != 0 || &got != want {
        return vec![format!("{at}: exit {rc}, {got:?}")];
    }
    let mut bad = Vec::new();
    if let Err(e) = revisions_contiguous(dir) {
        bad.push(format!("{at}: {e}"));
    }
    let outside = outside_entries(dir);
    if !outside.is_empty() {
        bad.push(format!(
            "{at}: youra's write recorded as outside: {outside:?}"
        ));
    }
    for (k, n) in decisions(dir) {
        if n > want_events.get(&k).copied().unwrap_or(0) {
            bad.push(format!("{at}: event {k} written {n} times"));
        }
    }
    bad
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
    assert_eq!(outside_entries(&base), Vec::<String>::new());
    let last = Store::new(base.join("verification_state.yaml"))
        .load()
        .unwrap()
        .vsa
        .revision;
    assert!(last >= 30, "the demo writes {last} revisions");
    // Every revision after its write, every other one before it (the window in which a
    // transition's files are written and its VSA write is not).
    // After the rename on odd revisions (youra's copies not yet written: the moment a
    // write once looked like a hand edit), after everything on even ones; before every
    // fourth, after the journal (not yet renamed) on the others between.
    let mut points: Vec<String> = (1..=last)
        .map(|n| {
            let at = if n % 2 == 1 { "renamed" } else { "after" };
            format!("{at}:{n}")
        })
        .collect();
    points.extend((2..=last).step_by(2).map(|n| {
        let at = if n % 4 == 0 { "before" } else { "journaled" };
        format!("{at}:{n}")
    }));
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
                        bad.extend(check_resumed(&at, &dir, rc, want, want_events));
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

/// The `revision:` of the VSA in `run`, read as an outside poller would (0 when absent).
fn revision_now(run: &Path) -> u64 {
    let text = std::fs::read(run.join("verification_state.yaml")).unwrap_or_default();
    String::from_utf8_lossy(&text)
        .lines()
        .find_map(|l| l.strip_prefix("revision:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

/// The probe: an outside process polls the file's `revision:` every 0.2 ms and
/// kills the engine (SIGKILL) the moment it reaches a chosen revision, at 12 points spread
/// over the demo, wherever the engine then is in its write.
#[test]
fn a_killer_polling_the_revision_never_turns_youra_s_write_into_a_hand_edit() {
    const POINTS: u64 = 12;
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("whole");
    assert_eq!(demo(&base, None), 0, "the uninterrupted demo completes");
    let want = final_state(&base);
    let want_events = decisions(&base);
    let last = revision_now(&base);
    let targets: Vec<u64> = (1..=POINTS).map(|i| 2 + i * (last - 4) / POINTS).collect();
    let mut failures = Vec::new();
    let (mut early, mut in_window) = (0, 0);
    for k in targets {
        let at = format!("revision {k}");
        let dir = tmp.path().join(format!("poll_{k}"));
        let mut child = Command::new(BIN)
            .args(["demo", "--headless", "--dir"])
            .arg(&dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("youra runs");
        let started = std::time::Instant::now();
        loop {
            if revision_now(&dir) >= k {
                let _ = child.kill();
                break;
            }
            if child.try_wait().unwrap().is_some()
                || started.elapsed() > std::time::Duration::from_secs(300)
            {
                break;
            }
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        let status = child.wait().unwrap();
        if dir.join(".youra/pending.yaml").exists() {
            in_window += 1;
        }
        if status.code().is_some() {
            // The demo ended before the killer saw the revision: nothing to resume.
            early += 1;
            continue;
        }
        let rc = resume(&dir);
        failures.extend(check_resumed(&at, &dir, rc, &want, &want_events));
    }
    eprintln!("{POINTS} kills: {early} after the demo ended, {in_window} inside a write's commit");
    assert!(
        early < POINTS as usize / 2,
        "{early} of {POINTS} runs ended before their kill"
    );
    assert!(
        failures.is_empty(),
        "{} of {POINTS} kills ended wrong (want {want:?}):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
