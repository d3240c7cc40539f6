//! VSA read and write speed (issue: Foundation). Prints, besides criterion's report, a
//! summary with medians per 330 KB and the ratio to PyYAML's C loader on the same files.
//!
//! Run: `cargo bench --bench vsa`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group};
use youra::vsa::mutation::{Change, Mutation};
use youra::vsa::{SetRequest, Store};

/// A VSA in YouRA's layout grown to about `bytes`: many sub-hypotheses and a long history.
fn generated(bytes: usize) -> String {
    let base = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/example-run/verification_state.yaml"
    ))
    .unwrap();
    let (head, tail) = base.split_at(base.find("gate_violations:").unwrap());
    let mut hyps = String::new();
    let mut hist = String::new();
    let mut i = 0;
    while hyps.len() + hist.len() + base.len() < bytes {
        hyps.push_str(&format!(
            "  h-x{i}:\n    type: MECHANISM\n    statement: 'Synthetic sub-hypothesis {i}: the effect holds when the learning rate is scaled by {i}'\n    status: NOT_STARTED\n    gate:\n      type: SHOULD_WORK\n      satisfied: null\n      failed_checks: []\n    prerequisites:\n    - h-e1\n    validation:\n      status: NOT_STARTED\n      result: null\n      key_findings: []\n"
        ));
        hist.push_str(&format!(
            "- event: Gate evaluation PASS\n  timestamp: '2026-03-17T17:30:{:02}Z'\n  phase: Phase 4\n  hypothesis_id: h-x{i}\n  gate_type: MUST_WORK\n  details: \"n_analyzable=4493 >= 200 (PASS), n_features_with_variance=3 >= 3 (PASS)\"\n",
            i % 60
        ));
        i += 1;
    }
    let tail = tail.replacen("history:\n", &format!("history:\n{hist}"), 1);
    format!("{head}{hyps}{tail}")
}

fn largest_fixture() -> Option<PathBuf> {
    let root = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/fixtures/youra"
    ));
    let p = root.join("results/generations/youra/sonnet46/iclr2025_bi_align/docs/youra_research/2026_bi_align/verification_state.yaml");
    p.is_file().then_some(p)
}

fn read_model(bytes: &[u8]) -> usize {
    let doc = youra::yaml::parse(bytes).expect("parses");
    let (vsa, _) = youra::vsa::read(&doc);
    vsa.history.len() + vsa.sub_hypotheses.len()
}

fn median(mut f: impl FnMut(), n: usize) -> Duration {
    let mut t: Vec<Duration> = (0..n)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed()
        })
        .collect();
    t.sort();
    t[n / 2]
}

/// PyYAML with libyaml on the same file, timed inside Python (median of `n`), if present.
fn pyyaml(path: &Path, n: usize) -> Option<Duration> {
    let script = format!(
        "import yaml,time,statistics\nsrc=open({:?},encoding='utf-8').read()\nts=[]\nfor _ in range({n}):\n  t=time.perf_counter(); yaml.load(src, Loader=yaml.CSafeLoader); ts.append(time.perf_counter()-t)\nprint(statistics.median(ts))",
        path.display().to_string()
    );
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .output()
        .ok()?;
    let secs: f64 = String::from_utf8_lossy(&out.stdout).trim().parse().ok()?;
    Some(Duration::from_secs_f64(secs))
}

fn per_330k(d: Duration, len: usize) -> f64 {
    d.as_secs_f64() * 1e3 * 330_000.0 / len as f64
}

fn summary(files: &[(String, PathBuf)], set_file: &Path) {
    println!("\n== youra VSA benchmark summary (median; ms per 330 KB; ratio = PyYAML / youra) ==");
    for (name, path) in files {
        let bytes = std::fs::read(path).unwrap();
        let ours = median(
            || {
                read_model(&bytes);
            },
            21,
        );
        let theirs = pyyaml(path, 21);
        let ratio = theirs.map_or("PyYAML unavailable".to_string(), |t| {
            format!(
                "PyYAML CSafeLoader {:.2} ms, ratio {:.1}x",
                t.as_secs_f64() * 1e3,
                t.as_secs_f64() / ours.as_secs_f64()
            )
        });
        println!(
            "read+model {name} ({} KB): {:.2} ms = {:.2} ms/330KB (target <= 10); {ratio}",
            bytes.len() / 1000,
            ours.as_secs_f64() * 1e3,
            per_330k(ours, bytes.len())
        );
    }
    let store = Store::new(set_file);
    let mut i = 0u64;
    let len = std::fs::metadata(set_file).unwrap().len();
    let d = median(
        || {
            i += 1;
            let v = format!("bench {i}");
            store.set(&set_req(&v)).unwrap();
        },
        21,
    );
    println!(
        "vsa set in a long-lived store (TUI/engine) on {} KB incl. lock, fsync, rename: {:.2} ms (target <= 20)",
        len / 1000,
        d.as_secs_f64() * 1e3
    );
    // A gate judgement's shape: ten fields in one transaction (one lock, one write, one
    // revision), values alternating so every round changes all ten.
    let tx = |i: u64| {
        let mut m = Mutation::by("bench");
        for k in 0..10 {
            let (path, value) = match k {
                0 => ("workflow.next_action".to_string(), format!("tx {i}")),
                _ => (
                    format!("sub_hypotheses.h-x{k}.validation.status"),
                    status(i + k as u64),
                ),
            };
            m.push(Change::Set { path, value }, "bench", "bench");
        }
        m
    };
    let d = median(
        || {
            i += 1;
            store.mutate(&tx(i)).unwrap();
        },
        21,
    );
    println!(
        "one transaction of 10 changes on {} KB incl. lock, fsync, rename: {:.2} ms (target <= 25)",
        std::fs::metadata(set_file).unwrap().len() / 1000,
        d.as_secs_f64() * 1e3
    );
    let run = set_file.parent().unwrap();
    let cli = median(
        || {
            i += 1;
            let ok = Command::new(env!("CARGO_BIN_EXE_youra"))
                .args(["vsa", "set"])
                .arg(run)
                .args([
                    "workflow.next_action",
                    &format!("cli {i}"),
                    "--reason",
                    "bench",
                ])
                .output()
                .unwrap()
                .status
                .success();
            assert!(ok);
        },
        11,
    );
    let len = std::fs::metadata(set_file).unwrap().len();
    println!(
        "`youra vsa set` as a new process on {} KB (start-up, read, parse, read-back, lock, fsync, rename): {:.2} ms (target <= 20)",
        len / 1000,
        cli.as_secs_f64() * 1e3
    );
}

fn status(i: u64) -> String {
    if i.is_multiple_of(2) {
        "IN_PROGRESS"
    } else {
        "NOT_STARTED"
    }
    .to_string()
}

fn set_req(v: &str) -> SetRequest<'_> {
    SetRequest {
        path: "workflow.next_action",
        value: v,
        reason: "bench",
        actor: "bench",
        force: false,
        create: false,
        base: None,
    }
}

fn setup() -> (tempfile::TempDir, Vec<(String, PathBuf)>, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    if let Some(p) = largest_fixture() {
        files.push(("largest fixture (bi_align)".to_string(), p));
    }
    for (name, size) in [("generated 330 KB", 330_000), ("generated 1 MB", 1_000_000)] {
        let p = dir.path().join(format!("{}.yaml", size));
        std::fs::write(&p, generated(size)).unwrap();
        files.push((name.to_string(), p));
    }
    let run = dir.path().join("run");
    std::fs::create_dir_all(&run).unwrap();
    let set_file = run.join("verification_state.yaml");
    std::fs::write(&set_file, generated(330_000)).unwrap();
    (dir, files, set_file)
}

fn benches(c: &mut Criterion) {
    let (_dir, files, set_file) = setup();
    let mut g = c.benchmark_group("vsa");
    g.sample_size(20).measurement_time(Duration::from_secs(3));
    for (name, path) in &files {
        let bytes = std::fs::read(path).unwrap();
        g.bench_function(format!("read+model {name}"), |b| {
            b.iter(|| read_model(&bytes))
        });
    }
    let store = Store::new(&set_file);
    let mut i = 0u64;
    g.bench_function("set 330 KB (lock, fsync, rename)", |b| {
        b.iter(|| {
            i += 1;
            let v = format!("c{i}");
            store.set(&set_req(&v)).unwrap()
        })
    });
    g.finish();
    summary(&files, &set_file);
}

criterion_group!(vsa, benches);

fn main() {
    vsa();
    Criterion::default().configure_from_args().final_summary();
}
