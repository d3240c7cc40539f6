//! Spawn-to-collected-results latency of a trivial experiment, with and without the
//! bubblewrap sandbox: `cargo bench --bench exec`. Targets: ≤ 50 ms without, ≤ 150 ms with.

use std::time::{Duration, Instant};

use youra::exec::{Availability, Backend, GpuPool, Job, LocalBackend, SandboxMode};

const RUNS: usize = 30;
const SCRIPT: &str = r#"echo '{"accuracy":1}' > "$YOURA_METRICS_FILE""#;

fn main() {
    let backend = LocalBackend::with_gpus(GpuPool::new(Vec::new()));
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
