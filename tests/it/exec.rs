//! The experiment executor with real processes: limits, logs, metrics, the sandbox, the
//! environment, GPUs and path confinement. The sandbox tests need bubblewrap and fail (not
//! skip) without it: the README's test command installs it.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use youra::exec::{
    Availability, Backend, ExecError, ExitKind, GpuInfo, GpuPool, Job, LocalBackend, PathError,
    SandboxMode, confine, probe_sandbox, write_confined,
};

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::Builder::new().prefix("youra-exec-").tempdir();
    let dir = dir.unwrap_or_else(|e| panic!("cannot create a temp dir: {e}"));
    std::fs::create_dir(dir.path().join("code")).unwrap_or_else(|e| panic!("mkdir code: {e}"));
    dir
}

fn job(ws: &Path, mode: SandboxMode, argv: &[&str]) -> Job {
    let mut job = Job::new(ws, argv.iter().map(|s| s.to_string()).collect());
    job.sandbox = mode;
    job.time_limit = Duration::from_secs(30);
    job.grace = Duration::from_millis(500);
    job
}

fn backend() -> LocalBackend {
    LocalBackend::with_gpus(GpuPool::new(Vec::new()))
}

fn run(backend: &LocalBackend, job: &Job) -> youra::exec::JobOutcome {
    match backend.start(job) {
        Ok(running) => running.wait(),
        Err(e) => panic!("job {:?} did not start: {e}", job.argv),
    }
}

fn log_of(ws: &Path) -> String {
    std::fs::read_to_string(ws.join("results/run.log")).unwrap_or_default()
}

/// Fails with the fix when bubblewrap is absent or cannot create namespaces here.
fn require_bwrap() {
    match probe_sandbox(std::env::var("PATH").ok().as_deref()) {
        Availability::Works(_) => {}
        other => panic!(
            "these tests need a working bubblewrap: install it with `apt-get install -y bubblewrap` ({other:?})"
        ),
    }
}

/// Alive means present in /proc and not a zombie.
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

#[test]
fn time_limit_kills_the_whole_group_grandchildren_included() {
    let ws = workspace();
    let mut j = job(
        ws.path(),
        SandboxMode::Off,
        &["sh", "-c", "sleep 30 & echo $! > gc.pid; sleep 30"],
    );
    j.time_limit = Duration::from_secs(1);
    let t0 = Instant::now();
    let outcome = run(&backend(), &j);
    let elapsed = t0.elapsed();
    assert_eq!(outcome.exit, ExitKind::TimedOut);
    assert!(
        elapsed < Duration::from_secs(4),
        "took {elapsed:?}, not ~1 s"
    );
    assert!(outcome.duration >= Duration::from_secs(1));
    let pid_text = std::fs::read_to_string(ws.path().join("code/gc.pid")).unwrap_or_default();
    let gc: u32 = pid_text
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("no grandchild pid in {pid_text:?}"));
    // The grandchild is reparented and reaped asynchronously; give it a moment.
    let gone_by = Instant::now() + Duration::from_secs(2);
    while alive(gc) && Instant::now() < gone_by {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(gc), "grandchild {gc} survived the time limit");
    assert_eq!(
        log_of(ws.path()).lines().last(),
        Some("EXPERIMENT COMPLETE (exit=timeout)")
    );
}

#[test]
fn time_limit_inside_the_sandbox() {
    require_bwrap();
    let ws = workspace();
    let mut j = job(
        ws.path(),
        SandboxMode::Required,
        &["sh", "-c", "sleep 30 & sleep 30"],
    );
    j.time_limit = Duration::from_millis(700);
    let t0 = Instant::now();
    let outcome = run(&backend(), &j);
    assert_eq!(outcome.exit, ExitKind::TimedOut);
    assert!(outcome.sandboxed);
    assert!(
        t0.elapsed() < Duration::from_secs(3),
        "took {:?}",
        t0.elapsed()
    );
}

#[test]
fn output_captured_nonzero_exit_and_completion_line() {
    let ws = workspace();
    let j = job(
        ws.path(),
        SandboxMode::Required,
        &[
            "sh",
            "-c",
            "echo to-stdout; echo to-stderr >&2; printf partial; exit 3",
        ],
    );
    let outcome = run(&backend(), &j);
    assert_eq!(outcome.exit, ExitKind::Exited(3));
    assert!(!outcome.exit.success());
    let log = log_of(ws.path());
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(
        lines,
        vec![
            "to-stdout",
            "to-stderr",
            "partial",
            "EXPERIMENT COMPLETE (exit=3)"
        ]
    );
    assert_eq!(
        outcome.log_path,
        ws.path()
            .canonicalize()
            .unwrap_or_default()
            .join("results/run.log")
    );
}

#[test]
fn signal_death_reported_as_signal() {
    require_bwrap();
    for mode in [SandboxMode::Off, SandboxMode::Required] {
        let ws = workspace();
        let outcome = run(
            &backend(),
            &job(ws.path(), mode, &["sh", "-c", "kill -9 $$"]),
        );
        assert_eq!(outcome.exit, ExitKind::Signalled(9), "{mode:?}");
        assert!(log_of(ws.path()).ends_with("EXPERIMENT COMPLETE (exit=signal:9)\n"));
    }
}

#[test]
fn kill_ends_the_job_and_tail_reads_the_live_log() {
    let ws = workspace();
    let j = job(
        ws.path(),
        SandboxMode::Required,
        &["sh", "-c", "echo started; sleep 30"],
    );
    let b = backend();
    let running = b.start(&j).unwrap_or_else(|e| panic!("start: {e}"));
    let until = Instant::now() + Duration::from_secs(5);
    while running.tail(5).is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(running.tail(5), vec!["started"]);
    assert!(running.try_outcome().is_none());
    assert!(running.pid().is_some());
    let t0 = Instant::now();
    running.kill();
    let outcome = running.wait();
    assert_eq!(outcome.exit, ExitKind::Killed);
    assert!(t0.elapsed() < Duration::from_secs(2));
    assert_eq!(running.tail(1), vec!["EXPERIMENT COMPLETE (exit=killed)"]);
}

#[test]
fn metrics_and_results_from_a_python_experiment() {
    let ws = workspace();
    let script = r#"
import json, os
with open(os.environ["YOURA_METRICS_FILE"], "w") as f:
    for step in range(3):
        f.write(json.dumps({"step": step, "epoch": 0, "split": "val", "accuracy": 0.5 + step / 10, "loss": 1.0 / (step + 1)}) + "\n")
    f.write("oops not json\n")
    f.write('{"step": 9, "acc')
with open(os.path.join(os.environ["YOURA_RESULTS_DIR"], "experiment_results.json"), "w") as f:
    json.dump({"accuracy": 0.7, "seeds": 1}, f)
print("trained")
"#;
    std::fs::write(ws.path().join("code/train.py"), script).unwrap_or_else(|e| panic!("{e}"));
    let outcome = run(
        &backend(),
        &job(ws.path(), SandboxMode::Required, &["python3", "train.py"]),
    );
    assert_eq!(
        outcome.exit,
        ExitKind::Exited(0),
        "log: {}",
        log_of(ws.path())
    );
    let acc: Vec<f64> = outcome
        .metrics
        .iter()
        .filter_map(|m| m.values.get("accuracy").copied())
        .collect();
    assert_eq!(acc, vec![0.5, 0.6, 0.7]);
    assert_eq!(outcome.metrics[2].step, Some(2));
    assert_eq!(outcome.metrics[2].split.as_deref(), Some("val"));
    let skipped: Vec<&String> = outcome
        .warnings
        .iter()
        .filter(|w| w.contains("skipped"))
        .collect();
    assert_eq!(skipped.len(), 2, "{:?}", outcome.warnings);
    assert!(
        skipped[0].contains("line 4") && skipped[1].contains("line 5"),
        "{skipped:?}"
    );
    let results = outcome.results.unwrap_or_default();
    assert_eq!(results["accuracy"], serde_json::json!(0.7));
}

const CONNECT: &str = "import socket, sys\n\
    s = socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=3)\n\
    print('connected')\n";

#[test]
fn sandbox_blocks_network_unless_allowed() {
    require_bwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("bind: {e}"));
    let port = listener
        .local_addr()
        .map(|a| a.port())
        .unwrap_or_default()
        .to_string();
    let b = backend();
    let argv = ["python3", "-c", CONNECT, port.as_str()];

    let ws = workspace();
    let closed = run(&b, &job(ws.path(), SandboxMode::Required, &argv));
    assert_ne!(
        closed.exit,
        ExitKind::Exited(0),
        "connected from inside the sandbox"
    );
    assert!(
        log_of(ws.path()).contains("ConnectionRefusedError")
            || log_of(ws.path()).contains("Network is unreachable")
    );

    for mode in [SandboxMode::Required, SandboxMode::Off] {
        let ws = workspace();
        let mut open = job(ws.path(), mode, &argv);
        open.network = true;
        let outcome = run(&b, &open);
        assert_eq!(
            outcome.exit,
            ExitKind::Exited(0),
            "{mode:?}: {}",
            log_of(ws.path())
        );
        assert!(log_of(ws.path()).starts_with("connected\n"));
        assert!(
            !outcome.warnings.is_empty(),
            "network or no-sandbox must be reported"
        );
    }
}

#[test]
fn sandbox_allows_writes_only_inside_the_workspace() {
    require_bwrap();
    let ws = workspace();
    let outside = tempfile::Builder::new()
        .prefix("youra-outside-")
        .tempdir_in("/var/tmp");
    let outside = outside.unwrap_or_else(|e| panic!("temp dir in /var/tmp: {e}"));
    let target = outside.path().join("escaped.txt");
    let script = format!(
        "echo in > ../results/inside.txt; echo in-rc=$?; echo out > {}; echo out-rc=$?; \
         touch /etc/youra-sandbox-probe; echo etc-rc=$?; echo t > /tmp/scratch; echo tmp-rc=$?",
        target.display()
    );
    let outcome = run(
        &backend(),
        &job(ws.path(), SandboxMode::Required, &["sh", "-c", &script]),
    );
    assert_eq!(outcome.exit, ExitKind::Exited(0));
    let log = log_of(ws.path());
    assert!(log.contains("in-rc=0") && log.contains("tmp-rc=0"), "{log}");
    assert!(
        log.contains("out-rc=1") || log.contains("out-rc=2"),
        "{log}"
    );
    assert!(log.contains("etc-rc=1"), "{log}");
    assert!(ws.path().join("results/inside.txt").is_file());
    assert!(!target.exists(), "the job wrote outside its workspace");
    assert!(!Path::new("/etc/youra-sandbox-probe").exists());
}

#[test]
fn memory_limit_stops_a_large_allocation() {
    let ws = workspace();
    let mut j = job(
        ws.path(),
        SandboxMode::Required,
        &[
            "python3",
            "-c",
            "b = bytearray(2 * 1024**3); print('allocated')",
        ],
    );
    j.memory_limit = Some(256 * 1024 * 1024);
    let outcome = run(&backend(), &j);
    assert_ne!(outcome.exit, ExitKind::Exited(0));
    let log = log_of(ws.path());
    assert!(
        log.contains("MemoryError") && !log.contains("allocated"),
        "{log}"
    );

    // The same allocation without the limit would pass; a small one passes under it.
    let ws = workspace();
    let mut small = job(
        ws.path(),
        SandboxMode::Required,
        &["python3", "-c", "b = bytearray(16 * 1024**2); print('ok')"],
    );
    small.memory_limit = Some(256 * 1024 * 1024);
    assert_eq!(
        run(&backend(), &small).exit,
        ExitKind::Exited(0),
        "{}",
        log_of(ws.path())
    );
}

#[test]
fn secret_looking_extra_vars_are_refused() {
    let ws = workspace();
    let mut j = job(ws.path(), SandboxMode::Required, &["true"]);
    j.env.push(("HF_TOKEN".into(), "hf_x".into()));
    match backend().start(&j) {
        Err(ExecError::Env(e)) => assert!(e.to_string().contains("HF_TOKEN")),
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("a job with HF_TOKEN started"),
    }
}

/// Run by `api_key_never_reaches_the_child` in a process whose environment has the key.
#[test]
#[ignore = "helper: runs inside api_key_never_reaches_the_child"]
fn child_env_probe() {
    let Ok(ws) = std::env::var("YOURA_TEST_PROBE_WS") else {
        return;
    };
    let ws = PathBuf::from(ws);
    let had_key = std::env::var("OPENAI_API_KEY").is_ok();
    std::fs::write(ws.join("parent_had_key"), had_key.to_string())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut j = job(&ws, SandboxMode::Required, &["sh", "-c", "env"]);
    j.env.push(("SEED".into(), "7".into()));
    run(&backend(), &j);
}

#[test]
fn api_key_never_reaches_the_child() {
    let ws = workspace();
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("{e}"));
    let status = Command::new(exe)
        .args([
            "--ignored",
            "--exact",
            "exec::child_env_probe",
            "--test-threads=1",
        ])
        .env("OPENAI_API_KEY", "sk-test-abc123")
        .env("ANTHROPIC_API_KEY", "sk-ant-test")
        .env("YOURA_TEST_PROBE_WS", ws.path())
        .status()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(status.success());
    let had = std::fs::read_to_string(ws.path().join("parent_had_key")).unwrap_or_default();
    assert_eq!(had, "true", "the probe's own environment must hold the key");
    let env = log_of(ws.path());
    let canon = ws.path().canonicalize().unwrap_or_default();
    // Sandboxed (bubblewrap present, as in CI): HOME is a fresh folder of its private /tmp.
    assert!(
        env.contains("HOME=/tmp/home\n") || env.contains(&format!("HOME={}\n", canon.display())),
        "{env}"
    );
    assert!(
        env.contains("SEED=7\n") && env.contains("PYTHONUNBUFFERED=1\n"),
        "{env}"
    );
    assert!(env.contains("CUDA_VISIBLE_DEVICES=\n"), "{env}");
    assert!(
        !env.contains("sk-test") && !env.contains("API_KEY"),
        "{env}"
    );
}

#[test]
fn gpu_jobs_queue_for_a_free_gpu() {
    let fake = |i: u32| GpuInfo {
        index: i,
        uuid: format!("GPU-fake-{i}"),
        memory_used_mib: Some(0),
        memory_total_mib: Some(81559),
        utilization_pct: Some(0),
        mig: None,
    };
    let pool = GpuPool::new(vec![fake(0)]);
    let b = Arc::new(LocalBackend::with_gpus(Arc::clone(&pool)));
    let (ws1, ws2) = (workspace(), workspace());
    let mut first = job(
        ws1.path(),
        SandboxMode::Required,
        &["sh", "-c", "echo $CUDA_VISIBLE_DEVICES; sleep 0.6"],
    );
    first.gpus = 1;
    let running = b.start(&first).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(pool.available(), 0);
    let mut second = first.clone();
    second.workspace = ws2.path().to_path_buf();
    let t0 = Instant::now();
    let (b2, s2) = (Arc::clone(&b), second.clone());
    let queued = std::thread::spawn(move || b2.start(&s2).map(|r| r.wait()));
    let one = running.wait();
    let two = queued
        .join()
        .unwrap_or_else(|_| panic!("queued start panicked"));
    let two = two.unwrap_or_else(|e| panic!("{e}"));
    assert!(
        t0.elapsed() >= Duration::from_millis(900),
        "the second job did not wait"
    );
    assert_eq!(
        (one.gpus.as_str(), two.gpus.as_str()),
        ("GPU-fake-0", "GPU-fake-0")
    );
    assert!(log_of(ws2.path()).starts_with("GPU-fake-0\n"));
    assert_eq!(pool.available(), 1);
    let mut greedy = second;
    greedy.gpus = 2;
    assert!(matches!(b.start(&greedy), Err(ExecError::Gpu(_))));
}

#[test]
fn two_concurrent_gpu_jobs_get_different_gpus_and_say_where_they_run() {
    let fake = |i: u32| GpuInfo {
        index: i,
        uuid: format!("GPU-fake-{i}"),
        memory_used_mib: Some(0),
        memory_total_mib: Some(81559),
        utilization_pct: Some(0),
        mig: None,
    };
    let pool = GpuPool::new(vec![fake(0), fake(1)]);
    let b = LocalBackend::with_gpus(Arc::clone(&pool));
    let (ws1, ws2) = (workspace(), workspace());
    let mut first = job(
        ws1.path(),
        SandboxMode::Required,
        &["sh", "-c", "echo $CUDA_VISIBLE_DEVICES; sleep 0.3"],
    );
    first.gpus = 1;
    let mut second = first.clone();
    second.workspace = ws2.path().to_path_buf();
    let a = b.start(&first).unwrap_or_else(|e| panic!("{e}"));
    let c = b.start(&second).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(pool.available(), 0, "both run at once, one GPU each");
    let mut places = vec![a.placement(), c.placement()];
    places.sort();
    assert_eq!(places, ["GPU GPU-fake-0", "GPU GPU-fake-1"]);
    let (one, two) = (a.wait(), c.wait());
    assert_ne!(one.gpus, two.gpus);
    assert_eq!(pool.available(), 2);
    let cpu = job(ws1.path(), SandboxMode::Required, &["true"]);
    let on_cpu = b.start(&cpu).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(on_cpu.placement(), "cpu");
    on_cpu.wait();
}

#[test]
fn path_escapes_are_refused() {
    let root = workspace();
    let root = root.path();
    let outside = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(outside.path(), root.join("code/data"))
        .unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(root.join("code"), root.join("alias"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(
        confine(root, "/etc/passwd"),
        Err(PathError::Absolute { .. })
    ));
    assert!(matches!(
        confine(root, "code/../../x.py"),
        Err(PathError::Escapes { .. })
    ));
    let err = confine(root, "code/data/x.py");
    assert!(matches!(err, Err(PathError::SymlinkEscape { .. })));
    assert!(
        err.err()
            .map(|e| e.to_string())
            .unwrap_or_default()
            .contains("code/data/x.py")
    );
    assert!(matches!(
        write_confined(root, "code/data/new/y.py", b"x"),
        Err(PathError::Link { .. })
    ));
    assert!(!outside.path().join("new").exists());
    // `confine` (the job's workdir) accepts a link that stays inside; a write follows none.
    let canon = root.canonicalize().unwrap_or_default();
    assert_eq!(
        confine(root, "alias/m.py").ok(),
        Some(canon.join("alias/m.py"))
    );
    assert!(matches!(
        write_confined(&root.join("alias"), "m.py", b"x"),
        Err(PathError::Link { .. })
    ));
    let written = write_confined(root, "code/pkg/sub/model.py", b"print(1)\n");
    assert_eq!(written.ok(), Some(root.join("code/pkg/sub/model.py")));
    assert_eq!(
        std::fs::read(root.join("code/pkg/sub/model.py")).ok(),
        Some(b"print(1)\n".to_vec())
    );
}

#[test]
fn a_log_replaced_by_a_symlink_is_never_written_through() {
    require_bwrap();
    let ws = workspace();
    let outside = tempfile::tempdir().unwrap();
    let vsa = outside.path().join("verification_state.yaml");
    std::fs::write(&vsa, "revision: 9\n").unwrap();
    // The experiment swaps its own log for a link to a file youra may write.
    let cmd = format!("ln -sf {} ../results/run.log; echo done", vsa.display());
    let j = job(ws.path(), SandboxMode::Required, &["sh", "-c", &cmd]);
    let b = backend();
    let outcome = run(&b, &j);
    assert!(
        outcome
            .violations
            .iter()
            .any(|v| v.contains("run.log was replaced by a symbolic link")),
        "the attempt records the violation: {:?}",
        outcome.violations
    );
    let log = ws.path().join("results/run.log");
    assert!(
        std::fs::symlink_metadata(&log)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the experiment planted its link"
    );
    assert_eq!(
        std::fs::read_to_string(&vsa).unwrap(),
        "revision: 9\n",
        "the completion line did not follow the link"
    );
    // The next job's log is not truncated through it either: the job does not start.
    let j2 = job(
        ws.path(),
        SandboxMode::Required,
        &["sh", "-c", "echo second"],
    );
    match b.start(&j2) {
        Ok(r) => {
            let _ = r.wait();
        }
        Err(e) => assert!(e.to_string().contains("symlink"), "{e}"),
    }
    assert_eq!(std::fs::read_to_string(&vsa).unwrap(), "revision: 9\n");
}

#[test]
fn a_results_folder_swapped_for_a_link_is_neither_read_nor_moved_from() {
    require_bwrap();
    let ws = workspace();
    let host = tempfile::tempdir().unwrap();
    std::fs::write(
        host.path().join("metrics.jsonl"),
        "{\"accuracy\": 0.9911}\n",
    )
    .unwrap();
    // Measure 0.8832, then leave a link to the host folder where results/ was.
    let cmd = format!(
        "echo '{{\"accuracy\": 0.8832}}' > ../results/metrics.jsonl; mv ../results ../results.real; ln -s {} ../results",
        host.path().display()
    );
    let b = backend();
    let outcome = run(
        &b,
        &job(ws.path(), SandboxMode::Required, &["sh", "-c", &cmd]),
    );
    assert!(outcome.metrics.is_empty(), "{:?}", outcome.metrics);
    assert!(
        outcome
            .violations
            .iter()
            .any(|v| v.contains("/results was replaced by a symbolic link")),
        "{:?}",
        outcome.violations
    );
    // The next job removes the link (not the host folder) and moves no host file.
    let outcome = run(&b, &job(ws.path(), SandboxMode::Required, &["true"]));
    assert!(outcome.violations.is_empty(), "{:?}", outcome.violations);
    assert!(
        outcome
            .warnings
            .iter()
            .any(|w| w.contains("planted as results was removed")),
        "{:?}",
        outcome.warnings
    );
    assert!(host.path().join("metrics.jsonl").is_file());
    assert!(!ws.path().join("results/attempts").exists());
    let results = std::fs::symlink_metadata(ws.path().join("results")).unwrap();
    assert!(results.is_dir());
}

#[test]
fn metrics_and_results_planted_as_links_are_not_read_through() {
    require_bwrap();
    let ws = workspace();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("youra.toml");
    std::fs::write(
        &secret,
        "{\"step\": 1, \"accuracy\": 0.99, \"token\": \"s3cr3t-value\"}\n",
    )
    .unwrap();
    let cmd = format!(
        "ln -sf {s} ../results/metrics.jsonl; ln -sf {s} ../results/experiment_results.json; echo ok",
        s = secret.display()
    );
    let j = job(ws.path(), SandboxMode::Required, &["sh", "-c", &cmd]);
    let outcome = run(&backend(), &j);
    for name in ["metrics.jsonl", "experiment_results.json"] {
        let p = ws.path().join("results").join(name);
        assert!(
            std::fs::symlink_metadata(&p)
                .unwrap()
                .file_type()
                .is_symlink(),
            "{name} was planted"
        );
    }
    assert!(outcome.metrics.is_empty(), "{:?}", outcome.metrics);
    assert_eq!(outcome.results, None);
    assert_eq!(outcome.violations.len(), 2, "{:?}", outcome.violations);
    assert!(
        outcome
            .violations
            .iter()
            .all(|v| v.contains("replaced by a symbolic link")),
        "{:?}",
        outcome.violations
    );
    assert!(!format!("{outcome:?}").contains("s3cr3t-value"));
}

#[test]
fn sandbox_probes_find_no_secrets_and_limits_are_named_in_the_record() {
    require_bwrap();
    // The workspace inside a run folder, beside the run's own files.
    let run_dir = tempfile::tempdir().unwrap();
    std::fs::write(
        run_dir.path().join("youra.toml"),
        "api_key = \"sk-hidden\"\n",
    )
    .unwrap();
    let ws = run_dir.path().join("h-e1");
    std::fs::create_dir_all(ws.join("code")).unwrap();
    // Only the way to the Python in use (a pyenv under /root, say) may show in /root or
    // /home, and the workspace in the run folder.
    let mut keep = vec!["h-e1".to_string()];
    for p in &youra::exec::sandbox::toolchain().prefixes {
        for base in ["/root", "/home"] {
            if let Ok(rest) = p.strip_prefix(base)
                && let Some(first) = rest.components().next()
            {
                keep.push(first.as_os_str().to_string_lossy().to_string());
            }
        }
    }
    let keep = format!("{keep:?}").replace('"', "'");
    let probe = format!(
        "import os\n\
         for p in ['/etc/shadow', '/etc/passwd', {toml:?}]:\n\
         \x20   try:\n\
         \x20       open(p).read(); print('READ', p)\n\
         \x20   except OSError as e:\n\
         \x20       print('denied', p, type(e).__name__)\n\
         for d in ['/root', '/home', {run:?}]:\n\
         \x20   try:\n\
         \x20       names = [n for n in os.listdir(d) if n not in {keep}]\n\
         \x20       print('LISTED' if names else 'empty', d, names)\n\
         \x20   except OSError as e:\n\
         \x20       print('denied', d, type(e).__name__)\n\
         print('home', os.environ['HOME'], os.listdir(os.environ['HOME']))\n",
        toml = run_dir.path().join("youra.toml").display().to_string(),
        run = run_dir.path().display().to_string(),
        keep = keep,
    );
    let outcome = run(
        &backend(),
        &job(&ws, SandboxMode::Required, &["python3", "-c", &probe]),
    );
    let log = log_of(&ws);
    assert_eq!(outcome.exit, ExitKind::Exited(0), "{log}");
    assert!(!log.contains("READ") && !log.contains("LISTED"), "{log}");
    assert!(
        log.contains("denied /etc/shadow") && log.contains("home /tmp/home []"),
        "{log}"
    );

    // A memory hog: stopped by the address-space limit, named in the record.
    let mut hog = job(
        &ws,
        SandboxMode::Required,
        &[
            "python3",
            "-c",
            "b = [bytearray(64 * 1024**2) for _ in range(64)]",
        ],
    );
    hog.memory_limit = Some(256 * 1024 * 1024);
    let outcome = run(&backend(), &hog);
    assert_ne!(outcome.exit, ExitKind::Exited(0));
    assert!(
        outcome
            .warnings
            .iter()
            .any(|w| w.contains("memory limit reached") && w.contains("256 MiB")),
        "{:?}",
        outcome.warnings
    );

    // A fork bomb, bounded so a failure of the limit cannot hurt the machine: 400 sleepers.
    let bomb = "import os, time\nfor _ in range(400):\n    if os.fork() == 0:\n        time.sleep(30); os._exit(0)\ntime.sleep(30)\n";
    let mut forks = job(&ws, SandboxMode::Required, &["python3", "-c", bomb]);
    forks.max_processes = Some(64);
    let started = Instant::now();
    let outcome = run(&backend(), &forks);
    assert_eq!(outcome.exit, ExitKind::ProcessLimit(64));
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "stopped early, not at the time limit"
    );
    assert!(
        outcome
            .warnings
            .iter()
            .any(|w| w.contains("process limit reached") && w.contains("64")),
        "{:?}",
        outcome.warnings
    );
}
