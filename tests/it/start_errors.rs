//! A start that fails for the machine's reasons stops the run (MUST_STOP) with what is
//! missing and what to do, and is never sent to the coder as a code repair nor counted
//! against the hypothesis: here the sandbox is required and `bwrap` is not on PATH. (The
//! Slurm half, a scheduler that refuses the job, is in tests/slurm.rs.)

use std::path::Path;
use std::process::Command;

const BUNDLE: &str = include_str!("../../assets/demo/replay.jsonl");
const TOPIC: &str = include_str!("../../assets/demo/topic.txt");
const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo/data/penguins.csv");

fn youra() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_youra"));
    // No user configuration from this machine.
    c.env("YOURA_CONFIG_DIR", "/nonexistent/youra-config");
    c
}

/// A demo run (as `youra demo` makes it) whose experiments must be sandboxed.
fn make_run(dir: &Path, bundle: &str) {
    let out = youra()
        .args(["init", "--topic", TOPIC.trim(), "--name", "signals"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(
        dir.join("youra.toml"),
        "[llm.default]\nprovider = \"replay\"\nreplay = \"replay/demo.jsonl\"\nreplay_delay_ms = 0\n\n\
         [engine]\ncontroller_retry_wait_s = 0.0\nliterature_search = false\nexperiment_time_limit_s = 120.0\n\
         approval_timeout_s = 0.5\napproval_default = \"reject\"\n\n\
         [plan]\nbudget_tokens = 40000\npolicy = \"adaptive\"\nafter_pass = 1\n\n\
         [evidence]\nmin_repeats = 1\n\n\
         [exec]\nsandbox = \"required\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("replay")).unwrap();
    std::fs::write(dir.join("replay/demo.jsonl"), bundle).unwrap();
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::copy(DATA, dir.join("data/penguins.csv")).unwrap();
}

#[test]
fn a_missing_sandbox_stops_the_run_with_no_repair() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    make_run(&dir, BUNDLE);
    // A PATH with only `git` on it (the plan tree keeps each node's code in git): no
    // `bwrap`, and no other program youra could reach for.
    let empty = tmp.path().join("empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    if let Some(git) = std::env::var("PATH").ok().and_then(|p| {
        p.split(':')
            .map(|d| std::path::Path::new(d).join("git"))
            .find(|g| g.is_file())
    }) {
        std::os::unix::fs::symlink(git, empty.join("git")).unwrap();
    }
    let out = youra()
        .arg("run")
        .arg(&dir)
        .env("PATH", &empty)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stop = stdout
        .lines()
        .find(|l| l.starts_with("MUST_STOP: "))
        .unwrap_or_else(|| panic!("{stdout}"));
    for want in [
        "h-e1: the experiment could not start",
        "no attempt was counted",
        "`bwrap` is not on PATH",
        "apt-get install -y bubblewrap",
    ] {
        assert!(stop.contains(want), "{want:?} not in {stop}");
    }
    let log = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    assert!(!log.contains("\"experiment_start\""), "{log}");
    assert!(log.contains("\"experiment_not_started\""), "{log}");
    // One coder call: the code that never ran; no repair after the refusal.
    let ledger = std::fs::read_to_string(dir.join("ledger.tsv")).unwrap();
    let coding: Vec<&str> = ledger
        .lines()
        .filter(|l| l.split('\t').nth(2) == Some("coding_validation"))
        .collect();
    assert_eq!(coding.len(), 1, "{ledger}");
    assert!(
        ledger.trim_end().ends_with(coding[0]),
        "a call after the refusal:\n{ledger}"
    );
    let snap = youra::vsa::store::Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    let h = snap.vsa.hypothesis("h-e1").unwrap();
    assert_ne!(h.status.as_str(), "FAILED");
    assert_eq!(
        snap.vsa
            .workflow
            .status
            .as_ref()
            .map(|s| s.to_string())
            .as_deref(),
        Some("STOPPED")
    );
}
