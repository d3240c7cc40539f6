//! Spawn-to-collected-results latency of a trivial experiment, with and without the
//! bubblewrap sandbox: `cargo bench --bench exec`. Targets: ≤ 50 ms without, ≤ 150 ms with.
//! Outside the sandbox the job's `PATH` is this process's, so the run card asks the first
//! `python3` on it; the bench says which, since a shim's answer is never kept.

use std::time::{Duration, Instant};

use youra::exec::{Availability, Backend, GpuPool, Job, LocalBackend, SandboxMode};

const RUNS: usize = 30;
const SCRIPT: &str = r#"echo '{"accuracy":1}' > "$YOURA_METRICS_FILE""#;

fn main() {
    let backend = LocalBackend::with_gpus(GpuPool::new(Vec::new()));
    println!("exec/run card asks {}", python_on_path());
    let bwrap_works = matches!(backend.sandbox_availability(), Availability::Works(_));
    let plain = measure(&backend, SandboxMode::Off);
    println!(
        "exec/no-sandbox  median {:6.2} ms  (n={RUNS}, target ≤ 50)",
        ms(plain)
    );
    if !bwrap_works {
        println!(
            "exec/sandbox     skipped: {:?}",
            backend.sandbox_availability()
        );
        return;
    }
    let boxed = measure(&backend, SandboxMode::Required);
    println!(
        "exec/sandbox     median {:6.2} ms  (n={RUNS}, target ≤ 150)",
        ms(boxed)
    );
    println!("exec/sandbox ÷ no-sandbox  {:.2}×", ms(boxed) / ms(plain));
}

fn measure(backend: &LocalBackend, mode: SandboxMode) -> Duration {
    let dir = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(e) => panic!("cannot create a temp dir: {e}"),
    };
    if let Err(e) = std::fs::create_dir(dir.path().join("code")) {
        panic!("cannot create code/: {e}");
    }
    let mut job = Job::new(dir.path(), vec!["sh".into(), "-c".into(), SCRIPT.into()]);
    job.sandbox = mode;
    let mut times: Vec<Duration> = (0..RUNS).map(|_| once(backend, &job)).collect();
    times.sort();
    times[RUNS / 2]
}

fn once(backend: &LocalBackend, job: &Job) -> Duration {
    let t0 = Instant::now();
    let outcome = match backend.start(job) {
        Ok(running) => running.wait(),
        Err(e) => panic!("start failed: {e}"),
    };
    let elapsed = t0.elapsed();
    assert!(outcome.exit.success(), "{:?}", outcome.exit);
    assert_eq!(outcome.metrics.len(), 1, "{:?}", outcome.warnings);
    elapsed
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Which `python3` the run card asks after a job outside the sandbox (the job's `PATH` is
/// this one), and whether its answer can be kept: a script (a pyenv shim) is asked after
/// every job, which the no-sandbox figure then carries.
fn python_on_path() -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let Some(found) = std::env::split_paths(&path)
        .map(|d| d.join("python3"))
        .find(|p| p.is_file())
    else {
        return "no python3 (no PATH entry holds one)".into();
    };
    let head = std::fs::read(&found).map(|b| b.starts_with(b"#!"));
    match head {
        Ok(true) => format!(
            "{} (a script: asked after every job, not kept)",
            found.display()
        ),
        _ => format!("{} (kept while unchanged)", found.display()),
    }
}
