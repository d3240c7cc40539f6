//! Signals stop `youra run` cleanly: SIGTERM during an experiment ends the experiment's
//! whole process group (even processes that ignore SIGTERM, even with `sandbox = "off"`,
//! where nothing else would), writes an `engine_stop` event, exits 143 with a message;
//! `youra status` then calls nothing running; `youra run` resumes to the demo's result.
//! The run is the offline demo's (replayed replies), stopped at its breakpoint first (SIGTERM
//! with no experiment running), then with h-e1's first command made to sleep in processes
//! that ignore SIGTERM.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BUNDLE: &str = include_str!("../../assets/demo/replay.jsonl");
/// In the sleeping processes' command lines only: how the test finds them in /proc.
const MARK: &str = "987.654";

fn youra() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_youra"));
    // No user configuration from this machine.
    c.env("YOURA_CONFIG_DIR", "/nonexistent/youra-config");
    c
}

/// The config folder of the run at `dir` (beside it): where `youra trust` recorded its
/// settings, for the `youra run`s that act on them.
fn config_of(dir: &Path) -> std::path::PathBuf {
    dir.with_file_name("config")
}

/// The demo's bundle with h-e1's first experiment command replaced by `command`.
fn bundle_with(command: &[&str]) -> String {
    let mut out = String::new();
    let mut patched = 0;
    for line in BUNDLE.lines() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        let k = &v["key"];
        let first_h_e1 = k["role"] == "executor"
            && k["stage"] == "coding_validation"
            && k["hypothesis"] == "h-e1"
            && k.get("round").is_none();
        if first_h_e1 {
            let mut reply: serde_json::Value =
                serde_json::from_str(v["response"]["content"].as_str().unwrap()).unwrap();
            reply["command"] = serde_json::json!(command);
            v["response"]["content"] = reply.to_string().into();
            patched += 1;
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    assert_eq!(
        patched, 1,
        "the demo bundle changed: find h-e1's first coding reply"
    );
    out
}

/// A demo run, as `youra demo --step` makes it (its bundle, data and settings): the demo is
/// stopped by SIGTERM at its breakpoint before Coding & Validation (no experiment running
/// then; its one-shot breakpoint is used up by that stop), h-e1's first command replaced by `command`, and its
/// experiments set to run unsandboxed.
fn make_run(dir: &Path, command: &[&str]) {
    let demo = youra()
        .args(["demo", "--headless", "--step", "--dir"])
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    until("the demo's breakpoint", Duration::from_secs(60), || {
        !events(dir, "breakpoint").is_empty()
    });
    let out = sigterm(demo.id(), demo);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    assert!(
        stderr.contains("youra was stopped by SIGTERM; no local experiment was running"),
        "{stderr}"
    );
    std::fs::write(dir.join("replay/demo.jsonl"), bundle_with(command)).unwrap();
    let mut toml = std::fs::read_to_string(dir.join("youra.toml")).unwrap();
    // The hard case: no sandbox, so nothing but youra ends the experiment's processes.
    toml.push_str("\n[exec]\nsandbox = \"off\"\n");
    std::fs::write(dir.join("youra.toml"), toml).unwrap();
    // The researcher's own choice, recorded as theirs (`youra trust`) for `youra run`.
    crate::common::trust::trusted(dir, &config_of(dir));
    // `--step`'s breakpoint is one-shot: its stop used it up, so a resume is all it takes.
    let out = youra()
        .arg("steer")
        .args(["--reason", "the signals test"])
        .arg(dir)
        .arg("resume")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn sigterm(pid: u32, child: std::process::Child) -> std::process::Output {
    // SAFETY: kill(2) on the child's pid, which has not been waited for yet.
    assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGTERM) }, 0);
    child.wait_with_output().unwrap()
}

/// Pids whose command line holds [`MARK`].
fn marked() -> Vec<u32> {
    let mut pids = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmd).contains(MARK) {
            pids.push(pid);
        }
    }
    pids
}

fn events(dir: &Path, kind: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("events.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["kind"] == kind)
        .collect()
}

fn until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let end = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn status_of(dir: &Path, h: &str) -> String {
    let snap = youra::vsa::store::Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    snap.vsa
        .hypothesis(h)
        .map_or("absent".into(), |x| x.status.as_str().to_string())
}

#[test]
fn sigterm_during_an_experiment_ends_its_group_and_resume_gives_the_clean_result() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    // Both sleeps ignore SIGTERM (the trap is inherited): only SIGKILL ends them.
    let script = format!("trap '' TERM; sleep {MARK} & sleep {MARK}; python3 centroid.py");
    make_run(&dir, &["sh", "-c", &script]);
    let child = youra()
        .arg("run")
        .arg(&dir)
        .env("YOURA_CONFIG_DIR", config_of(&dir))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    until(
        "h-e1's experiment to start",
        Duration::from_secs(60),
        || !events(&dir, "experiment_start").is_empty(),
    );
    until("its sleeping processes", Duration::from_secs(10), || {
        marked().len() >= 2
    });
    let started = Instant::now();
    let out = sigterm(child.id(), child);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(
        stderr
            .contains("youra was stopped by SIGTERM; ended the experiments of h-e1 (process group"),
        "{stderr}"
    );
    // No process left: not the group's leader, not the SIGTERM-proof sleeps.
    until("no experiment process left", Duration::from_secs(3), || {
        marked().is_empty()
    });
    let stop = events(&dir, "engine_stop");
    // One at the demo's breakpoint, one now.
    assert_eq!(stop.len(), 2, "{stop:?}");
    assert_eq!(stop[1]["result"], "SIGTERM");
    let message = stop[1]["message"].as_str().unwrap();
    assert!(
        message.contains("ended the experiments of h-e1") && message.contains("`youra run"),
        "{stop:?}"
    );
    // The killed attempt was never judged: no exit, no repair.
    assert!(events(&dir, "experiment_exit").is_empty());
    // `youra status`: no engine, so nothing is running; the started experiment is named.
    let out = youra().arg("status").arg(&dir).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Engine:     not running"), "{text}");
    assert!(!text.contains("Running:"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with("h-e1") && l.contains("not followed")),
        "{text}"
    );
    // Resume with the recorded replies: the demo's result.
    std::fs::write(dir.join("replay/demo.jsonl"), BUNDLE).unwrap();
    let out = youra()
        .arg("run")
        .arg(&dir)
        .env("YOURA_CONFIG_DIR", config_of(&dir))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        (
            status_of(&dir, "h-e1"),
            status_of(&dir, "h-m1"),
            status_of(&dir, "h-c1")
        ),
        ("VALIDATED".into(), "FAILED".into(), "VALIDATED".into())
    );
    assert!(marked().is_empty());
}
