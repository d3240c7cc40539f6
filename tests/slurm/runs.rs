//! tests/slurm.rs, continued: whole runs through Slurm (the demo, a killed engine that
//! re-attaches, a partition that refuses the job) and what a job asks of the scheduler.
//! The cluster and the helpers are the parent's.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::*;

fn status(dir: &Path, h: &str) -> String {
    let snap = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    snap.vsa
        .hypothesis(h)
        .map_or("absent".into(), |x| x.status.as_str().to_string())
}

/// A user config with the test cluster's conf and a quick poll.
fn user_config(root: &Path, conf: &Path) -> PathBuf {
    let dir = root.join("config");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("youra.toml"),
        format!(
            "[exec.slurm]\nconf = \"{}\"\npoll_s = 0.2\n",
            conf.display()
        ),
    )
    .unwrap();
    dir
}

fn youra(config: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_youra"));
    c.env("YOURA_CONFIG_DIR", config);
    c
}

fn events(dir: &Path, kind: &str) -> Vec<youra::rundir::events::Event> {
    youra::rundir::events::read(&dir.join("events.jsonl"))
        .into_iter()
        .filter(|e| e.kind == kind)
        .collect()
}

#[test]
fn the_demo_through_slurm_gives_the_local_gate_results() {
    let Some(conf) = cluster() else { return };
    // The point of the small node: the default limit (half of this machine) asked as --mem
    // would be refused ("Memory specification can not be satisfied").
    assert!(
        youra::exec::default_memory_mb() > NODE_MB,
        "this machine is too small for the test: half its memory must exceed {NODE_MB} MiB"
    );
    let tmp = workdir();
    let dir = tmp.path().join("demo");
    let out = youra(&user_config(tmp.path(), conf))
        .args([
            "demo",
            "--headless",
            "--exec",
            "slurm",
            "--dir",
            dir.to_str().unwrap(),
        ])
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
            status(&dir, "h-e1"),
            status(&dir, "h-m1"),
            status(&dir, "h-c1")
        ),
        ("VALIDATED".into(), "FAILED".into(), "VALIDATED".into())
    );
    let submitted = events(&dir, "experiment_submitted");
    assert!(
        submitted.len() >= 3,
        "every experiment was a Slurm job: {submitted:?}"
    );
    let vsa = std::fs::read_to_string(dir.join("verification_state.yaml")).unwrap();
    assert!(
        vsa.contains("slurm_job:") && vsa.contains("ended_at:"),
        "{vsa}"
    );
    // Each job's node reached the events once Slurm placed it.
    let placed = events(&dir, "experiment_placed");
    for e in &submitted {
        let want = format!("Slurm job {} on {}", e.result.as_deref().unwrap(), host());
        assert!(
            placed
                .iter()
                .any(|p| p.hypothesis == e.hypothesis && p.action.as_deref() == Some(&want)),
            "{want}: {placed:?}"
        );
    }
    // `youra status` as it was while the first job ran: the events up to its placement.
    let log = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    let upto = log
        .lines()
        .position(|l| l.contains("\"experiment_placed\""))
        .unwrap();
    let first = &placed[0];
    let then: String = log
        .lines()
        .take(upto + 1)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(dir.join("events.jsonl"), then).unwrap();
    // An experiment is "running" only while an engine holds the run: hold its lock as the
    // engine did then.
    let lock = youra::engine::lock::EngineLock::acquire(&dir).unwrap();
    let out = youra(&user_config(tmp.path(), conf))
        .args(["status", dir.to_str().unwrap()])
        .output()
        .unwrap();
    drop(lock);
    let text = String::from_utf8_lossy(&out.stdout);
    let row = format!(
        "{} running {}",
        first.hypothesis.as_deref().unwrap(),
        first.action.as_deref().unwrap()
    );
    assert!(
        text.lines().any(|l| l
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .starts_with(&row)),
        "{row}:\n{text}"
    );
}

#[test]
fn a_killed_engine_reattaches_to_its_running_job() {
    let Some(conf) = cluster() else { return };
    let tmp = workdir();
    let config = user_config(tmp.path(), conf);
    let dir = tmp.path().join("demo");
    let mut child = youra(&config)
        .args([
            "demo",
            "--headless",
            "--exec",
            "slurm",
            "--dir",
            dir.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it as soon as its first job is submitted (pending or running).
    let until = Instant::now() + Duration::from_secs(120);
    let (hypothesis, id) = loop {
        if let Some(e) = events(&dir, "experiment_submitted").into_iter().next() {
            break (e.hypothesis.clone().unwrap(), e.result.clone().unwrap());
        }
        assert!(Instant::now() < until, "no job was submitted");
        std::thread::sleep(Duration::from_millis(20));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    let state = squeue(conf, &id);
    assert!(
        matches!(state.as_str(), "PENDING" | "RUNNING" | "CONFIGURING"),
        "the job outlived its engine: {state:?}"
    );
    let out = youra(&config)
        .args(["run", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let attached = events(&dir, "experiment_attach");
    assert_eq!(
        attached.first().and_then(|e| e.result.clone()),
        Some(id.clone()),
        "{attached:?}"
    );
    // The next engine learnt where the job it re-attached to runs.
    let on = format!("Slurm job {id} on {}", host());
    assert!(
        events(&dir, "experiment_placed")
            .iter()
            .any(|e| e.action.as_deref() == Some(on.as_str())),
        "{on}"
    );
    // No second submission for that experiment: the next one of that hypothesis (if any)
    // came after the attached job had ended.
    let submitted: Vec<String> = events(&dir, "experiment_submitted")
        .into_iter()
        .filter(|e| e.hypothesis.as_deref() == Some(hypothesis.as_str()))
        .filter_map(|e| e.result)
        .collect();
    assert_eq!(submitted.first(), Some(&id), "{submitted:?}");
    assert_eq!(
        submitted.iter().filter(|s| **s == id).count(),
        1,
        "{submitted:?}"
    );
    assert_eq!(
        (
            status(&dir, "h-e1"),
            status(&dir, "h-m1"),
            status(&dir, "h-c1")
        ),
        ("VALIDATED".into(), "FAILED".into(), "VALIDATED".into())
    );
}

/// `--mem` comes from the run's settings only: none by default (the partition's default
/// applies; the sandbox enforces the job's own limit), `[exec.slurm] mem_mb`, or the
/// experiment's limit when the researcher set it. Each of the last two, above the node's
/// memory, is refused with Slurm's message and the setting that asked it.
#[test]
fn a_job_asks_memory_only_when_the_run_sets_it() {
    let Some(conf) = cluster() else { return };
    let tmp = workdir();
    let big = 3 * NODE_MB;
    let mut j = job(tmp.path(), "h-mem", "echo fine");
    j.memory_limit = Some(big << 20);
    let outcome = backend(conf).start(&j).unwrap().wait();
    assert_eq!(outcome.exit, ExitKind::Exited(0), "{:?}", outcome.warnings);
    let asked = |settings: SlurmSettings| {
        SlurmBackend::new(&SlurmSettings {
            conf: Some(conf.to_path_buf()),
            poll_s: 0.2,
            ..settings
        })
        .start(&j)
        .err()
        .map(|e| e.to_string())
    };
    let explicit = asked(SlurmSettings {
        experiment_memory_set: true,
        ..Default::default()
    })
    .expect("a --mem above the node's memory is refused");
    assert!(
        explicit.contains("Memory specification can not be satisfied")
            && explicit.contains(&format!(
                "--mem={big}M (experiment_memory_mb under [engine])"
            )),
        "{explicit}"
    );
    let set = asked(SlurmSettings {
        mem_mb: Some(big),
        ..Default::default()
    })
    .expect("refused");
    assert!(set.contains("(mem_mb under [exec.slurm])"), "{set}");
}

/// Whether the researcher set `experiment_memory_mb` is known from the layers, not from its
/// value (the default is this machine's half, which a researcher may also write).
#[test]
fn the_experiment_memory_counts_as_set_only_when_written() {
    let tmp = tempfile::tempdir().unwrap();
    let load = || youra::config::load_with(tmp.path(), None, &[]).unwrap();
    assert!(!load().exec.slurm.experiment_memory_set);
    std::fs::write(
        tmp.path().join("youra.toml"),
        format!(
            "[engine]\nexperiment_memory_mb = {}\n",
            youra::exec::default_memory_mb()
        ),
    )
    .unwrap();
    assert!(load().exec.slurm.experiment_memory_set);
}

/// A partition that refuses the job (its MaxMemPerNode below `mem_mb`): the run stops
/// (MUST_STOP) naming Slurm's message and the setting, with no repair: the coder was asked
/// once, for the code that never ran, and the hypothesis keeps its status.
#[test]
fn a_partition_that_refuses_the_job_stops_the_run_without_a_repair() {
    let Some(conf) = cluster() else { return };
    let tmp = workdir();
    let config = tmp.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    let mem = 2 * SMALL_PARTITION_MB;
    std::fs::write(
        config.join("youra.toml"),
        format!(
            "[exec.slurm]\nconf = \"{}\"\npoll_s = 0.2\npartition = \"small\"\nmem_mb = {mem}\n",
            conf.display()
        ),
    )
    .unwrap();
    let dir = tmp.path().join("demo");
    let out = youra(&config)
        .args([
            "demo",
            "--headless",
            "--exec",
            "slurm",
            "--dir",
            dir.to_str().unwrap(),
        ])
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
        "Memory required by task is not available",
        &format!("--mem={mem}M (mem_mb under [exec.slurm]) on partition `small`"),
    ] {
        assert!(stop.contains(want), "{want:?} not in {stop}");
    }
    let not_started = events(&dir, "experiment_not_started");
    assert_eq!(not_started.len(), 1, "{not_started:?}");
    assert_eq!(not_started[0].result.as_deref(), Some("machine"));
    assert!(events(&dir, "experiment_start").is_empty());
    assert!(events(&dir, "experiment_submitted").is_empty());
    // One coder call (the code that was never run), no repair after the refusal. (The
    // reflector's draft of the root plan comes before it.)
    let ledger = std::fs::read_to_string(dir.join("ledger.tsv")).unwrap();
    let coding: Vec<&str> = ledger
        .lines()
        .filter(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            c.get(2) == Some(&"coding_validation") && c.get(1) == Some(&"executor")
        })
        .collect();
    assert_eq!(coding.len(), 1, "{ledger}");
    assert!(
        ledger.trim_end().ends_with(coding[0]),
        "a call after the refusal:\n{ledger}"
    );
    let snap = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    let vsa = &snap.vsa;
    assert_eq!(
        vsa.workflow
            .status
            .as_ref()
            .map(|s| s.to_string())
            .as_deref(),
        Some("STOPPED")
    );
    assert_ne!(status(&dir, "h-e1"), "FAILED");
}
