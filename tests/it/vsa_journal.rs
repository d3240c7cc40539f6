//! The store's own kill sweep (issue 32, item 4): `youra vsa set` killed with SIGKILL at
//! every step of a write (before anything, after the journal, after the VSA's rename, after
//! the numbered copy, after all) and by an outside process that kills it the moment it sees
//! the file change; the next write must recognise youra's own write as youra's (no
//! `hand_edit`), skip no revision, and end in the uninterrupted state. An edit made by hand
//! while youra is stopped must still be recorded as `hand_edit`.

use crate::common;

use std::collections::BTreeSet;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use youra::vsa::{HistoryEntry, Store};

const POINTS: [&str; 5] = ["before", "journaled", "renamed", "copied", "after"];
const FIELD: &str = "workflow.next_action";

fn set_cmd(dir: &Path, value: &str, crash: Option<&str>) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_youra"));
    c.args(["vsa", "set"])
        .arg(dir)
        .args([FIELD, value, "--reason", "journal test"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    match crash {
        Some(at) => c.env("YOURA_CRASH_AT", at),
        None => c.env_remove("YOURA_CRASH_AT"),
    };
    c
}

/// One `vsa set`; `true` when it ran to the end, `false` when the crash point killed it.
fn set(dir: &Path, value: &str, crash: Option<&str>) -> bool {
    let out = set_cmd(dir, value, crash).output().expect("youra runs");
    match out.status.code() {
        Some(0) => true,
        None => false,
        Some(rc) => panic!(
            "vsa set {value} exited {rc}: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

fn example(dir: &Path) -> PathBuf {
    let vsa = dir.join("verification_state.yaml");
    std::fs::copy(example_run().join("verification_state.yaml"), &vsa).unwrap();
    vsa
}

fn load(vsa: &Path) -> youra::vsa::Snapshot {
    Store::new(vsa).load().unwrap().as_ref().clone()
}

/// A history entry as compared across runs: everything but the time.
fn key(e: &HistoryEntry) -> String {
    format!(
        "{:?} {:?} r{:?} {:?} {:?}",
        e.event, e.actor, e.revision, e.path, e.new
    )
}

/// Every revision after `start` up to the file's carries a history entry.
fn contiguous(snap: &youra::vsa::Snapshot, start: u64) -> Result<(), String> {
    let seen: BTreeSet<u64> = snap
        .vsa
        .history
        .iter()
        .filter_map(|h| h.revision)
        .filter(|r| *r > start)
        .collect();
    let want: BTreeSet<u64> = (start + 1..=snap.vsa.revision).collect();
    (seen == want).then_some(()).ok_or_else(|| {
        format!(
            "revisions after {start}: missing {:?}, extra {:?}",
            want.difference(&seen).collect::<Vec<_>>(),
            seen.difference(&want).collect::<Vec<_>>()
        )
    })
}

fn editor_entries(snap: &youra::vsa::Snapshot) -> Vec<&HistoryEntry> {
    snap.vsa
        .history
        .iter()
        .filter(|e| e.actor.as_deref() == Some("editor") || e.event.as_deref() == Some("hand_edit"))
        .collect()
}

/// `.youra/` at rest: no journal, the last copy equal to the file.
fn side_at_rest(dir: &Path, vsa: &Path, what: &str) {
    assert!(
        !dir.join(".youra/pending.yaml").exists(),
        "{what}: a journal left"
    );
    assert_eq!(
        std::fs::read(dir.join(".youra/last_written.yaml")).unwrap(),
        std::fs::read(vsa).unwrap(),
        "{what}: the last copy is not the file"
    );
}

#[test]
fn a_kill_at_every_step_of_a_write_leaves_youra_s_write_youra_s() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole");
    std::fs::create_dir_all(&whole).unwrap();
    let vsa = example(&whole);
    let start = load(&vsa).vsa.revision;
    for v in ["one", "two", "three"] {
        assert!(set(&whole, v, None));
    }
    let want = load(&vsa);
    let want_keys: Vec<String> = want.vsa.history.iter().map(key).collect();
    contiguous(&want, start).unwrap();
    let target = start + 2;
    for point in POINTS {
        let dir = tmp.path().join(point);
        std::fs::create_dir_all(&dir).unwrap();
        let vsa = example(&dir);
        assert!(set(&dir, "one", None));
        let at = format!("{point}:{target}");
        assert!(
            !set(&dir, "two", Some(&at)),
            "{at}: the crash point was not reached"
        );
        let journal_left = dir.join(".youra/pending.yaml").exists();
        assert_eq!(
            journal_left,
            matches!(point, "journaled" | "renamed" | "copied"),
            "{at}: journal present"
        );
        // Resume as the engine does: the interrupted step again (a no-op when it landed),
        // then the next one.
        assert!(set(&dir, "two", None));
        assert!(set(&dir, "three", None));
        let got = load(&vsa);
        assert!(
            editor_entries(&got).is_empty(),
            "{at}: {:?}",
            editor_entries(&got)
        );
        contiguous(&got, start).unwrap_or_else(|e| panic!("{at}: {e}"));
        assert_eq!(got.vsa.revision, want.vsa.revision, "{at}");
        assert_eq!(
            got.vsa.workflow.next_action.as_deref(),
            Some("three"),
            "{at}"
        );
        let recovered: Vec<&HistoryEntry> = got
            .vsa
            .history
            .iter()
            .filter(|e| e.event.as_deref() == Some("recovered"))
            .collect();
        let keys: Vec<String> = got
            .vsa
            .history
            .iter()
            .filter(|e| e.event.as_deref() != Some("recovered"))
            .map(key)
            .collect();
        assert_eq!(keys, want_keys, "{at}: the history differs");
        if point == "journaled" {
            // The write never reached the file: rolled back, said so at its own number.
            assert_eq!(recovered.len(), 1, "{at}");
            assert_eq!(recovered[0].revision, Some(target), "{at}");
            assert!(
                got.doc.text.contains(&format!("rolled_back: {target}")),
                "{at}"
            );
        } else {
            assert!(recovered.is_empty(), "{at}: {recovered:?}");
        }
        side_at_rest(&dir, &vsa, &at);
        let written = std::fs::read_dir(dir.join(".youra/written"))
            .unwrap()
            .count();
        let want_written = std::fs::read_dir(whole.join(".youra/written"))
            .unwrap()
            .count();
        assert_eq!(written, want_written, "{at}: numbered copies");
    }
}

#[test]
fn a_hand_edit_while_youra_is_stopped_is_still_a_hand_edit() {
    for point in ["journaled", "renamed", "none"] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let vsa = example(dir);
        let start = load(&vsa).vsa.revision;
        assert!(set(dir, "one", None));
        let at = format!("{point}:{}", start + 2);
        let crashed = !set(dir, "two", (point != "none").then_some(at.as_str()));
        assert_eq!(crashed, point != "none", "{at}");
        let text = std::fs::read_to_string(&vsa).unwrap();
        let edited = text.replace(
            "statement: The effect persists at 3 and 5 layers.",
            "statement: The effect persists at 4 layers.",
        );
        assert_ne!(edited, text);
        std::fs::write(&vsa, edited).unwrap();
        assert!(set(dir, "three", None));
        let got = load(&vsa);
        let editor = editor_entries(&got);
        assert_eq!(editor.len(), 1, "{at}: {editor:?}");
        assert_eq!(editor[0].event.as_deref(), Some("hand_edit"), "{at}");
        // Only the researcher's field is attributed to the editor, never youra's write.
        let listed = |t: &str| t.matches("    - path: ").count();
        assert_eq!(
            listed(&got.doc.text) - listed(&text),
            1,
            "{at}: fields listed as hand edits"
        );
        assert!(
            got.doc
                .text
                .contains("    - path: sub_hypotheses.h-m2.statement\n"),
            "{at}"
        );
        contiguous(&got, start).unwrap_or_else(|e| panic!("{at}: {e}"));
        side_at_rest(dir, &vsa, &at);
    }
}

/// An outside killer, as in the probe: it watches the file and kills the writer
/// the instant the new file is in place (its inode changes), whatever step it is at.
#[test]
fn a_killer_polling_the_file_never_turns_youra_s_write_into_a_hand_edit() {
    const WRITES: usize = 40;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let vsa = example(dir);
    let start = load(&vsa).vsa.revision;
    let (mut in_window, mut landed) = (0, 0);
    let mut last_landed = None;
    for i in 0..WRITES {
        let value = format!("value-{i}");
        let ino = std::fs::metadata(&vsa).unwrap().ino();
        let mut child = set_cmd(dir, &value, None).spawn().expect("youra runs");
        let t = Instant::now();
        loop {
            if std::fs::metadata(&vsa).is_ok_and(|m| m.ino() != ino) {
                let _ = child.kill();
                break;
            }
            if child.try_wait().unwrap().is_some() || t.elapsed() > Duration::from_secs(20) {
                break;
            }
            std::thread::sleep(Duration::from_micros(100));
        }
        let _ = child.kill();
        let status = child.wait().unwrap();
        if dir.join(".youra/pending.yaml").exists() {
            in_window += 1;
        }
        assert!(
            status.success() || status.code().is_none(),
            "write {i}: {status:?}"
        );
        if load(&vsa).vsa.workflow.next_action.as_deref() == Some(value.as_str()) {
            landed += 1;
            last_landed = Some(value);
        }
    }
    assert!(set(dir, "final", None));
    let got = load(&vsa);
    eprintln!(
        "{WRITES} kills as the file changed: {landed} writes landed, {in_window} kills inside the write's bookkeeping"
    );
    assert!(
        landed > 0,
        "no write reached the file: the killer saw nothing"
    );
    assert!(last_landed.is_some());
    assert!(
        editor_entries(&got).is_empty(),
        "{:?}",
        editor_entries(&got)
    );
    contiguous(&got, start).unwrap();
    assert_eq!(got.vsa.workflow.next_action.as_deref(), Some("final"));
    assert_eq!(got.vsa.revision, start + landed as u64 + 1);
    side_at_rest(dir, &vsa, "after the killer");
}

#[test]
fn a_killed_journal_s_temp_file_is_removed_and_nobody_else_s() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let vsa = example(dir);
    assert!(set(dir, "one", None));
    let orphan = dir.join(".youra/.pending.yaml.99999.0.tmp");
    let copy = dir.join(".youra/written/.12.yaml.99999.1.tmp");
    let other = dir.join(".youra/.tools_health.json.99999.2.tmp");
    for f in [&orphan, &copy, &other] {
        std::fs::write(f, "half a file").unwrap();
    }
    assert!(set(dir, "two", None));
    assert!(
        !orphan.exists() && !copy.exists(),
        "the store's orphans stay"
    );
    assert!(other.exists(), "another owner's temp file was removed");
    side_at_rest(dir, &vsa, "after the orphans");
}
