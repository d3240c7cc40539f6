//! The Slurm back end against a real one-node cluster (`scripts/slurm-cluster.sh`, started
//! once per test binary and stopped at its exit when this binary started it): exit codes,
//! cancellation, the time limit, the demo's experiments as Slurm jobs, and a killed engine
//! re-attaching to its job. Skipped, naming the packages, when `sbatch` is absent outside
//! CI; under `CI` or `YOURA_REQUIRE_SLURM=1` a missing Slurm fails.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock, mpsc};
use std::time::{Duration, Instant};

use youra::exec::{Backend, ExitKind, Job, SandboxMode, SlurmBackend, SlurmSettings};
use youra::vsa::store::Store;

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/slurm-cluster.sh");
const STATE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/target/slurm");
/// The test node's `RealMemory` in MiB (below this machine's, and below the default
/// experiment memory limit, half of this machine's).
const NODE_MB: u64 = 2000;
/// `MaxMemPerNode` of the cluster's partition `small` (scripts/slurm-cluster.sh).
const SMALL_PARTITION_MB: u64 = 500;

fn required() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false")
        || std::env::var_os("YOURA_REQUIRE_SLURM").is_some_and(|v| v == "1")
}

extern "C" fn stop_cluster() {
    let _ = Command::new(SCRIPT).arg("stop").status();
}

/// The cluster's `slurm.conf`, or `None` (skip) when Slurm is not installed here.
fn cluster() -> Option<&'static Path> {
    static CONF: OnceLock<Option<PathBuf>> = OnceLock::new();
    CONF.get_or_init(|| {
        let have = Command::new("sh")
            .args(["-c", "command -v sbatch && command -v slurmctld && command -v munged"])
            .output()
            .is_ok_and(|o| o.status.success());
        if !have && !required() {
            eprintln!("skipping: Slurm is not installed (apt-get install slurm-wlm munge, or scripts/slurm-cluster.sh install)");
            return None;
        }
        let running = Path::new(STATE).join("slurmctld.pid").is_file();
        // The node declares less memory than this machine has, as a compute node may have
        // less than the login node youra runs on: a job sized from this machine is refused.
        let out = Command::new(SCRIPT)
            .arg("start")
            .env("YOURA_SLURM_REAL_MEMORY", NODE_MB.to_string())
            .output()
            .expect("run scripts/slurm-cluster.sh");
        assert!(
            out.status.success(),
            "scripts/slurm-cluster.sh start failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        if !running {
            // SAFETY: registers a plain extern "C" function; it runs at process exit.
            unsafe { libc::atexit(stop_cluster) };
        }
        Some(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
    })
    .as_deref()
}

fn backend(conf: &Path) -> SlurmBackend {
    SlurmBackend::new(&SlurmSettings {
        conf: Some(conf.to_path_buf()),
        poll_s: 0.2,
        ..Default::default()
    })
}

fn job(root: &Path, name: &str, script: &str) -> Job {
    let ws = root.join(name);
    std::fs::create_dir_all(ws.join("code")).unwrap();
    let mut job = Job::new(&ws, vec!["sh".into(), "-c".into(), script.into()]);
    job.time_limit = Duration::from_secs(60);
    job.memory_limit = Some(256 << 20);
    job.max_processes = None;
    job
}

/// Workspaces under target/: the cluster's node must see them (it does: one node).
fn workdir() -> tempfile::TempDir {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/slurm-tests");
    std::fs::create_dir_all(&base).unwrap();
    tempfile::Builder::new()
        .prefix("run ")
        .tempdir_in(base)
        .unwrap()
}

fn squeue(conf: &Path, id: &str) -> String {
    let out = Command::new("squeue")
        .args(["-h", "-j", id, "-o", "%T"])
        .env("SLURM_CONF", conf)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn wait_running(conf: &Path, id: &str) {
    let until = Instant::now() + Duration::from_secs(30);
    while squeue(conf, id) != "RUNNING" {
        assert!(Instant::now() < until, "job {id} never ran");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn scontrol(conf: &Path, id: &str) -> String {
    let out = Command::new("scontrol")
        .args(["show", "job", id])
        .env("SLURM_CONF", conf)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Slurm's own time limit, not youra's: youra's is set far beyond the cluster's `--time=1`
/// (a site's extra flag, which comes last and so wins). Slurm's least limit is a minute and
/// slurmctld tests limits every 30 s (`PERIODIC_TIMEOUT`, fixed in its source), so this
/// takes 60 to 90 s; its name sorts first so it starts at once and the others run beside it.
#[test]
fn a_job_over_its_slurm_time_limit_ends_as_timeout() {
    let Some(conf) = cluster() else { return };
    let tmp = workdir();
    let b = SlurmBackend::new(&SlurmSettings {
        conf: Some(conf.to_path_buf()),
        poll_s: 0.2,
        extra_args: vec!["--time=1".into()],
        ..Default::default()
    });
    let mut j = job(tmp.path(), "h-st", "echo start; sleep 300");
    j.time_limit = Duration::from_secs(600);
    let t = Instant::now();
    let running = b.start(&j).unwrap();
    let id = running.scheduler_id().unwrap();
    let outcome = running.wait();
    let waited = t.elapsed();
    assert_eq!(outcome.exit, ExitKind::TimedOut, "{:?}", outcome.warnings);
    assert!(
        outcome
            .warnings
            .iter()
            .any(|w| w == &format!("Slurm ended job {id} as TIMEOUT")),
        "{:?}",
        outcome.warnings
    );
    let record = scontrol(conf, &id);
    let info = youra::exec::slurm::state::JobInfo::parse(&record).unwrap();
    assert_eq!(
        info.state,
        youra::exec::slurm::state::SlurmState::Timeout,
        "{record}"
    );
    let ran = info.run_time.unwrap();
    assert!(ran >= Duration::from_secs(60), "{record}");
    let log = std::fs::read_to_string(&outcome.log_path).unwrap();
    assert!(log.contains("DUE TO TIME LIMIT"), "{log}");
    assert!(
        log.trim_end()
            .ends_with("EXPERIMENT COMPLETE (exit=timeout)"),
        "{log}"
    );
    println!(
        "slurm TIMEOUT at --time=1: Slurm ran the job {} s (60 s limit, then slurmctld's next 30 s check); youra reported it {:.1} s after submitting",
        ran.as_secs(),
        waited.as_secs_f64()
    );
}

#[test]
fn a_job_that_exits_3_fails_with_exit_3_and_its_log() {
    let Some(conf) = cluster() else { return };
    let tmp = workdir();
    let b = backend(conf);
    let j = job(
        tmp.path(),
        "h-x1",
        "echo \"in $PWD\"; echo '{\"metrics\": {\"acc\": 0.5}}' > \"$YOURA_RESULTS_DIR/experiment_results.json\"; exit 3",
    );
    let running = b.start(&j).unwrap();
    let id = running.scheduler_id().expect("a Slurm job id");
    let outcome = running.wait();
    let log = std::fs::read_to_string(&outcome.log_path).unwrap_or_default();
    assert_eq!(
        outcome.exit,
        ExitKind::Exited(3),
        "{:?}\n{log}",
        outcome.warnings
    );
    let log = std::fs::read_to_string(&outcome.log_path).unwrap();
    assert!(log.contains("in ") && log.contains("h-x1/code"), "{log}");
    assert!(
        log.trim_end().ends_with("EXPERIMENT COMPLETE (exit=3)"),
        "{log}"
    );
    assert_eq!(outcome.results.unwrap()["metrics"]["acc"], 0.5);
    assert!(
        outcome
            .warnings
            .iter()
            .any(|w| w.contains(&format!("Slurm job {id}")))
    );
    assert_eq!(squeue(conf, &id), "", "the job left the queue");
}

#[test]
fn a_job_runs_in_the_sandbox_and_completes() {
    let Some(conf) = cluster() else { return };
    let tmp = workdir();
    let b = backend(conf);
    // Inside bwrap: writes outside the workspace fail, the network is gone.
    let j = job(
        tmp.path(),
        "h-ok",
        "touch /etc/youra-escape 2>/dev/null && exit 9; echo sandboxed-ok",
    );
    let outcome = b.start(&j).unwrap().wait();
    assert_eq!(outcome.exit, ExitKind::Exited(0), "{:?}", outcome.warnings);
    assert!(outcome.sandboxed, "bubblewrap is installed here");
    assert!(
        std::fs::read_to_string(&outcome.log_path)
            .unwrap()
            .contains("sandboxed-ok")
    );
}

/// A Slurm attempt leaves its run card like a local one (issue 40, item 6): written by youra
/// when the job ended, its command, seeds and data hashes, the back end named, and the
/// machine said to be the submitting one (the node is not probed).
#[test]
fn a_slurm_job_leaves_its_run_card() {
    let Some(conf) = cluster() else { return };
    let tmp = workdir();
    let b = backend(conf);
    let data = tmp.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(data.join("x.csv"), "a,b\n1,2\n").unwrap();
    let mut j = job(
        tmp.path(),
        "h-card",
        "cat ../../data/x.csv >/dev/null; echo ok",
    );
    j.read_only.push(data.clone());
    j.env.push(("YOURA_SEEDS".into(), "3,4".into()));
    let outcome = b.start(&j).unwrap().wait();
    assert_eq!(outcome.exit, ExitKind::Exited(0), "{:?}", outcome.warnings);
    let text = std::fs::read_to_string(tmp.path().join("h-card/results/run_card.json"))
        .expect("the card is written when the job ends");
    let card: youra::exec::run_card::RunCard = serde_json::from_str(&text).expect("a card");
    assert_eq!(card.backend, "slurm");
    assert_eq!(card.argv, j.argv);
    assert_eq!(card.env.get("YOURA_SEEDS").map(String::as_str), Some("3,4"));
    assert!(
        card.machine.probed_on.contains("Slurm"),
        "{:?}",
        card.machine
    );
    let x = card
        .data
        .iter()
        .find(|d| d.path == "data/x.csv")
        .expect("x.csv");
    // `printf 'a,b\n1,2\n' | sha256sum`
    assert_eq!(
        x.sha256.as_deref(),
        Some("492d5ea496056f1a6a6592241032fab764c321596317930b4fa0e1e8bc3b7470")
    );
    assert_eq!(card.sandbox.memory_limit_mb, Some(256));
}

/// The local back end's fork-bomb test (tests/it/exec.rs), as a Slurm job: the batch script's
/// watchdog stops it the same way, and it is reported the same way.
#[test]
fn a_job_over_the_process_limit_is_stopped_as_locally() {
    let Some(conf) = cluster() else { return };
    let tmp = workdir();
    let b = backend(conf);
    let bomb = "import os, time\nfor _ in range(400):\n    if os.fork() == 0:\n        time.sleep(30); os._exit(0)\ntime.sleep(30)\n";
    let mut forks = job(tmp.path(), "h-f", "");
    forks.argv = vec!["python3".into(), "-c".into(), bomb.into()];
    forks.sandbox = SandboxMode::Required;
    forks.max_processes = Some(64);
    let started = Instant::now();
    let outcome = b.start(&forks).unwrap().wait();
    let log = std::fs::read_to_string(&outcome.log_path).unwrap_or_default();
    assert_eq!(
        outcome.exit,
        ExitKind::ProcessLimit(64),
        "{:?}\n{log}",
        outcome.warnings
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "stopped early, not at the time limit: {:?}",
        started.elapsed()
    );
    assert!(
        outcome
            .warnings
            .iter()
            .any(|w| w.contains("process limit reached") && w.contains("64")),
        "{:?}",
        outcome.warnings
    );
    assert!(
        log.trim_end()
            .ends_with("EXPERIMENT COMPLETE (exit=process-limit:64)"),
        "{log}"
    );
}

/// Processes still running whose command line names `ws` (a job's bwrap binds it), once
/// they have had 10 s to go.
fn leftovers(ws: &Path) -> Vec<String> {
    let needle = ws.to_string_lossy().into_owned();
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let found: Vec<String> = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| e.ok())
            .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
            .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
            .filter(|c| c.contains(&needle))
            .collect();
        if found.is_empty() || Instant::now() > until {
            return found;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn kill_cancels_the_job() {
    let Some(conf) = cluster() else { return };
    let tmp = workdir();
    let b = backend(conf);
    let running = b.start(&job(tmp.path(), "h-k", "sleep 120")).unwrap();
    let id = running.scheduler_id().unwrap();
    wait_running(conf, &id);
    let t = Instant::now();
    running.kill();
    let outcome = running.wait();
    assert_eq!(outcome.exit, ExitKind::Killed);
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
    assert_eq!(squeue(conf, &id), "");
    assert!(b.live_jobs().is_empty());
    // The sandbox should go with it (its init ignores SIGTERM; the script's trap ends the
    // group). Known race, not yet fixed: on this test cluster's `proctrack/linuxproc`, a
    // sandbox reparented before the trap runs is lost to Slurm's tracking and survives the
    // cancel (seen once in CI, 2026-12-03). A cgroup-tracking cluster kills the whole job
    // cgroup. Reported, and the leftovers are killed so they cannot disturb other tests.
    let ws = tmp.path().join("h-k").canonicalize().unwrap();
    let left = leftovers(&ws);
    if !left.is_empty() {
        eprintln!(
            "KNOWN RACE: {} sandbox process(es) outlived the cancel under proctrack/linuxproc",
            left.len()
        );
        let _ = std::process::Command::new("pkill")
            .args(["-KILL", "-f", &ws.to_string_lossy()])
            .status();
    }
}

#[test]
fn the_time_limit_cancels_the_job_as_timed_out() {
    // youra's own limit (below Slurm's --time, which is rounded up to whole minutes above
    // limit + grace) cancels the job on time; Slurm's own TIMEOUT is the test above.
    let Some(conf) = cluster() else { return };
    let tmp = workdir();
    let b = backend(conf);
    let mut j = job(tmp.path(), "h-t", "echo start; sleep 120");
    j.time_limit = Duration::from_secs(2);
    let running = b.start(&j).unwrap();
    let id = running.scheduler_id().unwrap();
    let outcome = running.wait();
    assert_eq!(outcome.exit, ExitKind::TimedOut, "{:?}", outcome.warnings);
    assert_eq!(squeue(conf, &id), "");
    assert!(
        std::fs::read_to_string(&outcome.log_path)
            .unwrap()
            .contains("EXPERIMENT COMPLETE (exit=timeout)")
    );
}

/// The one node's name, as Slurm calls it (the cluster script names it `hostname -s`).
fn host() -> String {
    let out = Command::new("hostname").arg("-s").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn a_placed_job_names_its_node() {
    let Some(conf) = cluster() else { return };
    let tmp = workdir();
    let b = backend(conf);
    let running = b.start(&job(tmp.path(), "h-p", "sleep 2")).unwrap();
    let id = running.scheduler_id().unwrap();
    let on = format!("Slurm job {id} on {}", host());
    let shown = running.placement();
    let (tx, rx) = mpsc::channel();
    let tx = Mutex::new(tx);
    running.follow_placement(
        &shown,
        Arc::new(move |now: &str| {
            let _ = tx.lock().unwrap().send(now.to_string());
        }),
    );
    if shown != on {
        assert_eq!(shown, format!("Slurm job {id}"), "before Slurm placed it");
        let told = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("told where it runs");
        assert_eq!(told, on);
    }
    assert_eq!(running.placement(), on);
    let outcome = running.wait();
    assert!(outcome.exit.success(), "{:?}", outcome.warnings);
    assert!(rx.try_recv().is_err(), "told once");
    assert!(
        outcome
            .warnings
            .contains(&format!("ran as Slurm job {id} on {}", host())),
        "{:?}",
        outcome.warnings
    );
}

/// youra's limit runs from Slurm's start of the job, so an engine that re-attaches to it
/// does not give it its whole time again (Slurm's --time would end it first).
#[test]
fn a_reattached_job_keeps_the_time_it_has_run() {
    let Some(conf) = cluster() else { return };
    let tmp = workdir();
    let first = backend(conf);
    let mut j = job(tmp.path(), "h-r", "sleep 120");
    let running = first.start(&j).unwrap();
    let id = running.scheduler_id().unwrap();
    wait_running(conf, &id);
    std::thread::sleep(Duration::from_secs(5));
    // The next engine, whose limit is 8 s: about 3 s of it are left.
    j.time_limit = Duration::from_secs(8);
    let next = backend(conf);
    let t = Instant::now();
    let attached = next.attach(&j, &id).unwrap().expect("Slurm still knows it");
    let outcome = attached.wait();
    assert_eq!(outcome.exit, ExitKind::TimedOut, "{:?}", outcome.warnings);
    assert!(t.elapsed() < Duration::from_secs(7), "{:?}", t.elapsed());
    drop(running);
}

#[test]
fn dropping_the_backend_cancels_its_jobs() {
    let Some(conf) = cluster() else { return };
    let tmp = workdir();
    let b = backend(conf);
    let running = b.start(&job(tmp.path(), "h-d", "sleep 120")).unwrap();
    let id = running.scheduler_id().unwrap();
    drop(b);
    assert_eq!(running.wait().exit, ExitKind::Killed);
    assert_eq!(squeue(conf, &id), "");
}

/// Shutdown cancels what has not started yet too: a job held in the queue (`--begin`).
#[test]
fn dropping_the_backend_cancels_a_queued_job_too() {
    let Some(conf) = cluster() else { return };
    let tmp = workdir();
    let b = SlurmBackend::new(&SlurmSettings {
        conf: Some(conf.to_path_buf()),
        poll_s: 0.2,
        extra_args: vec!["--begin=now+10minutes".into()],
        ..Default::default()
    });
    let running = b.start(&job(tmp.path(), "h-q", "echo ran")).unwrap();
    let id = running.scheduler_id().unwrap();
    assert_eq!(squeue(conf, &id), "PENDING");
    assert_eq!(b.live_jobs(), vec![id.clone()]);
    drop(b);
    let outcome = running.wait();
    assert_eq!(outcome.exit, ExitKind::Killed, "{:?}", outcome.warnings);
    assert!(scontrol(conf, &id).contains("JobState=CANCELLED"));
    let log = std::fs::read_to_string(&outcome.log_path).unwrap_or_default();
    assert!(!log.contains("ran"), "it never started: {log}");
}

#[test]
fn submission_to_start_overhead() {
    let Some(conf) = cluster() else { return };
    let tmp = workdir();
    let b = backend(conf);
    let mut lags = Vec::new();
    for i in 0..3 {
        let j = job(tmp.path(), &format!("h-b{i}"), "date +%s.%N");
        let submitted = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        let outcome = b.start(&j).unwrap().wait();
        assert!(outcome.exit.success());
        let log = std::fs::read_to_string(&outcome.log_path).unwrap();
        let started: f64 = log.lines().next().unwrap().trim().parse().unwrap();
        lags.push(started - submitted);
    }
    lags.sort_by(f64::total_cmp);
    println!(
        "slurm submission-to-start overhead (one node, {} jobs): median {:.2} s, min {:.2} s, max {:.2} s",
        lags.len(),
        lags[lags.len() / 2],
        lags[0],
        lags[lags.len() - 1]
    );
    assert!(lags[0] > 0.0 && lags[lags.len() - 1] < 30.0, "{lags:?}");
}

/// Whole runs and memory requests (split for size).
#[path = "slurm/runs.rs"]
mod runs;

/// A controller that does not answer (issue 43 item 3): the real `sbatch`'s failure is
/// recognised as an outage to wait out (`exec::unreachable`), not a refusal to repair, and
/// the back end waits `[exec.slurm] outage_wait_s` (30 minutes by default) for it. The
/// controller is made unreachable by pointing a copy of the cluster's configuration at a
/// port nothing listens on.
#[test]
fn an_unanswering_controller_is_an_outage_not_a_refusal() {
    let Some(conf) = cluster() else { return };
    let tmp = workdir();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let text = std::fs::read_to_string(conf).unwrap();
    let moved: String = text
        .lines()
        .map(|l| {
            if l.to_ascii_lowercase().starts_with("slurmctldport=") {
                format!("SlurmctldPort={port}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(moved, text, "the configuration names its controller's port");
    let dead = tmp.path().join("slurm.conf");
    std::fs::write(&dead, moved + "\n").unwrap();
    let b = backend(&dead);
    assert_eq!(b.outage_window(), Some(Duration::from_secs(1800)));
    let j = job(tmp.path(), "h-down", "echo never");
    let err = b.start(&j).err().expect("no controller answers");
    assert!(youra::exec::unreachable(&err), "{err}");
    // The live cluster's refusal of an impossible job is not an outage.
    let live = backend(conf);
    let mut big = job(tmp.path(), "h-big", "echo never");
    big.gpus = 64;
    if let Err(e) = live.start(&big) {
        assert!(
            !youra::exec::unreachable(&e),
            "a refusal is not an outage: {e}"
        );
    }
}
