//! One gateway for measurements (issue 39, item 3): what an experiment measured reaches the
//! paper's figures, the registry and `report check` only through `exec::collected` (the
//! collection records, the executor's caps, no link, bounded values). From the attacker's
//! side: a planted attempt folder, a link and a FIFO in `results/`, 3M rows, values near
//! ±1e308, control characters in a label, a figure manifest naming `/dev/zero`. And, like
//! `layers.rs`, a scan of `src/` that fails when code outside the gateway opens a measured
//! file.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use youra::paper::figures::{self, HypothesisGate};
use youra::report::findings::{FindingKind, Severity};

fn write(run: &Path, rel: &str, text: &str) {
    let path = run.join(rel);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn rows(value: f64, n: usize) -> String {
    (1..=n)
        .map(|i| format!("{{\"step\": {i}, \"accuracy\": {value}}}\n"))
        .collect()
}

fn gate() -> Vec<HypothesisGate> {
    vec![HypothesisGate {
        id: "h-e1".into(),
        kind: None,
        criteria: vec![("accuracy".into(), ">=".into(), 0.92)],
        measured: vec![("accuracy".into(), 0.8)],
        passed: Some(false),
        intervals: vec![None],
        confirmed: false,
    }]
}

/// `f` on a thread, or a panic naming `what` when it takes longer than a minute (a FIFO
/// opened for reading blocks forever: the test must fail, not hang).
fn within_a_minute<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("{what} hung (no answer within a minute)"))
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
}

fn figure_findings(run: &Path, md: &str) -> Vec<youra::report::findings::Finding> {
    youra::paper::check(run, md)
        .into_iter()
        .filter(|f| f.kind == FindingKind::FigureSource)
        .collect()
}

fn svg(run: &Path, name: &str) -> String {
    std::fs::read_to_string(run.join("paper/figures").join(name)).unwrap_or_default()
}

/// Attempt 1 collected by youra and moved to `attempts/1/`; attempt 2's job measured in
/// `results/` and planted `attempts/77/` at 0.999 (not collected yet).
fn run_with_planted_attempt() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dir.path();
    let ws = run.join("h-e1");
    write(run, "h-e1/results/metrics.jsonl", &rows(0.7, 5));
    youra::exec::trust::record(run, "h-e1", &ws, &[]).expect("record attempt 1");
    std::fs::create_dir_all(ws.join("results/attempts/1")).expect("mkdir");
    std::fs::rename(
        ws.join("results/metrics.jsonl"),
        ws.join("results/attempts/1/metrics.jsonl"),
    )
    .expect("the executor moves attempt 1");
    write(run, "h-e1/results/metrics.jsonl", &rows(0.8, 5));
    write(
        run,
        "h-e1/results/attempts/77/metrics.jsonl",
        &rows(0.999, 5).replace("}\n", ", \"model\": \"forged\"}\n"),
    );
    dir
}

#[test]
fn a_planted_attempt_folder_never_reaches_a_figure_and_is_moved_aside() {
    let dir = run_with_planted_attempt();
    let run = dir.path();
    // Drawn before the job's end: neither its file nor the planted one is in a record.
    let figs = figures::write_all(run, &gate()).expect("figures");
    let curve = &figs[0];
    let paths: Vec<&str> = curve.sources.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(paths, ["h-e1/results/attempts/1/metrics.jsonl"]);
    assert!(
        curve
            .notes
            .iter()
            .any(|n| n.contains("attempts/77/metrics.jsonl: not collected by youra")),
        "{:?}",
        curve.notes
    );
    let drawn = svg(run, "h-e1_metric.svg");
    assert!(drawn.contains("attempt 1"), "{drawn}");
    assert!(!drawn.contains("forged") && !drawn.contains("attempt 77"));
    // The job's end: the violation is recorded, the folder leaves the workspace.
    let mut outcome = outcome(run);
    youra::exec::trust::settle(run, "h-e1", &mut outcome).expect("settle");
    assert!(outcome.violations.iter().any(|v| v.contains("attempts/77")));
    let moved = youra::exec::planted::move_aside(run, "h-e1").expect("moved aside");
    assert_eq!(moved.len(), 1, "{moved:?}");
    assert!(!run.join("h-e1/results/attempts/77").exists());
    assert!(
        run.join(".youra/planted/h-e1/77-r2/metrics.jsonl")
            .is_file()
    );
    // A job with a violation is not trusted at all: its own results/ is not plotted either.
    let figs = figures::write_all(run, &gate()).expect("figures");
    let paths: Vec<&str> = figs[0].sources.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(paths, ["h-e1/results/attempts/1/metrics.jsonl"]);
    let notes = figs[0].notes.join("\n");
    assert!(!notes.contains("attempts/77"), "{notes}");
    let drawn = svg(run, "h-e1_metric.svg");
    assert!(
        !drawn.contains("forged") && !drawn.contains("attempt 77"),
        "{drawn}"
    );
}

fn outcome(run: &Path) -> youra::exec::JobOutcome {
    youra::exec::JobOutcome {
        exit: youra::exec::ExitKind::Exited(0),
        duration: Duration::ZERO,
        log_path: run.join("h-e1/results/run.log"),
        metrics: Vec::new(),
        results: None,
        warnings: Vec::new(),
        sandboxed: true,
        gpus: String::new(),
        violations: Vec::new(),
    }
}

#[test]
fn report_check_is_major_on_a_figure_whose_source_is_not_recorded_and_never_reads_outside_the_run()
{
    let dir = run_with_planted_attempt();
    let run = dir.path().to_path_buf();
    // The job's end recorded (the planted folder left in place, as before issue 39).
    youra::exec::trust::settle(&run, "h-e1", &mut outcome(&run)).expect("settle");
    let figs = figures::write_all(&run, &gate()).expect("figures");
    let md = format!("# Results\n\n![m]({})\n", figs[0].file);
    assert!(
        figure_findings(&run, &md).is_empty(),
        "the honest figure passes"
    );
    // A forged manifest: the planted file with its true hash, /dev/zero, a host file, a
    // path out of the run, a FIFO under results/.
    let planted = "h-e1/results/attempts/77/metrics.jsonl";
    let sha = youra::paper::figures::sha256_hex(&std::fs::read(run.join(planted)).expect("r"));
    mkfifo(&run.join("h-e1/results/experiment_results.json"));
    let host = tempfile::tempdir().expect("tempdir");
    write(host.path(), "metrics.jsonl", &rows(0.999, 2));
    let host_file = host.path().join("metrics.jsonl").display().to_string();
    let sources = [
        planted,
        "/dev/zero",
        host_file.as_str(),
        "../../etc/passwd",
        "h-e1/results/experiment_results.json",
    ];
    let mut forged = figs.clone();
    forged[0].sources = sources
        .iter()
        .map(|p| figures::Source {
            path: p.to_string(),
            sha256: sha.clone(),
        })
        .collect();
    write(
        &run,
        figures::MANIFEST,
        &serde_json::to_string(&forged).expect("json"),
    );
    let found = within_a_minute("report check", move || figure_findings(&run, &md));
    assert_eq!(found.len(), sources.len(), "{found:#?}");
    assert!(found.iter().all(|f| f.severity == Severity::Major));
    for (f, source) in found.iter().zip(sources) {
        assert!(f.message.contains(source), "{} / {source}", f.message);
    }
    assert!(
        found[0].message.contains("not a file youra collected"),
        "{:?}",
        found[0]
    );
    for f in &found[1..4] {
        assert!(
            f.message.contains("not a measured file of the run"),
            "{f:?}"
        );
    }
    assert!(found[4].evidence.contains("FIFO"), "{:?}", found[4]);
}

#[test]
fn a_link_or_a_fifo_in_results_is_not_followed_and_does_not_hang() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dir.path().to_path_buf();
    let host = tempfile::tempdir().expect("tempdir");
    write(host.path(), "metrics.jsonl", &rows(0.999, 3));
    write(&run, "h-e1/results/attempts/1/metrics.jsonl", &rows(0.7, 3));
    std::os::unix::fs::symlink(
        host.path().join("metrics.jsonl"),
        run.join("h-e1/results/metrics.jsonl"),
    )
    .expect("link");
    std::os::unix::fs::symlink(host.path(), run.join("h-e1/results/attempts/2")).expect("link");
    mkfifo(&run.join("h-e1/results/experiment_results.json"));
    // FIFOs where the registry and the method check read a handed run's other files.
    for d in ["data", "h-e1/code", "h-e1/data"] {
        std::fs::create_dir_all(run.join(d)).expect("mkdir");
    }
    mkfifo(&run.join("data/penguins.csv"));
    mkfifo(&run.join("h-e1/code/model.py"));
    mkfifo(&run.join("h-e1/03_config.md"));
    std::fs::create_dir_all(run.join("h-e1/results/attempts/3")).expect("mkdir");
    mkfifo(&run.join("h-e1/results/attempts/3/metrics.jsonl"));
    let r = run.clone();
    let figs = within_a_minute("drawing the figures", move || {
        figures::write_all(&r, &gate()).expect("figures")
    });
    let paths: Vec<&str> = figs[0].sources.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(paths, ["h-e1/results/attempts/1/metrics.jsonl"]);
    let notes = figs[0].notes.join("\n");
    assert!(
        notes.contains("attempts/3/metrics.jsonl") && notes.contains("FIFO"),
        "{notes}"
    );
    assert!(!svg(&run, "h-e1_metric.svg").contains("latest"));
    let r = run.clone();
    let registry = within_a_minute("the registry", move || {
        youra::report::registry_build::build(&r).expect("registry")
    });
    assert!(!registry.entries.iter().any(|e| e.value == 0.999));
    // The whole `report check` (registry, method corpus, figures) ends on this run.
    let paper = run.join("paper.md");
    std::fs::write(&paper, "# Results\n\nWe measured an accuracy of 0.999.\n").expect("w");
    let args = [
        "report".to_string(),
        "check".into(),
        run.display().to_string(),
        "--paper".into(),
        paper.display().to_string(),
    ];
    let out = within_a_minute("youra report check", move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        crate::common::youra(&args)
    });
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("0.999 in prose is not a measured value") && said.contains("3 values"),
        "{said}"
    );
}

#[test]
fn three_million_rows_make_a_small_figure() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dir.path();
    let path = run.join("h-e1/results/metrics.jsonl");
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
        for i in 0..3_000_000u64 {
            let acc = 0.5 + (i % 1000) as f64 / 4000.0;
            writeln!(f, "{{\"step\": {i}, \"accuracy\": {acc}}}").expect("write");
        }
    }
    let figs = figures::write_all(run, &gate()).expect("figures");
    let bytes = std::fs::metadata(run.join("paper/figures/h-e1_metric.svg"))
        .expect("the figure is drawn")
        .len();
    assert!(bytes < 1_000_000, "a {bytes}-byte SVG");
    let notes = figs[0].notes.join("\n");
    assert!(notes.contains("read only its first"), "{notes}");
}

#[test]
fn values_near_the_largest_float_and_control_characters_end_in_a_clean_figure() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dir.path().to_path_buf();
    let mut text = String::new();
    for (i, v) in ["1.7e308", "-1.7e308", "0.81", "1e300", "0.86"]
        .iter()
        .enumerate()
    {
        // Two splits: a label only one row kind carries names nothing and is not drawn.
        let split = if i % 2 == 0 {
            "val\\u001b[31m\\u0007"
        } else {
            "train"
        };
        text.push_str(&format!(
            "{{\"step\": {i}, \"accuracy\": {v}, \"split\": \"{split}\"}}\n"
        ));
    }
    text.push_str("{\"step\": 1e308, \"accuracy\": 0.9}\n");
    write(&run, "h-e1/results/metrics.jsonl", &text);
    let r = run.clone();
    let figs = within_a_minute("drawing ±1e308", move || {
        figures::write_all(&r, &gate()).expect("figures")
    });
    let drawn = svg(&run, "h-e1_metric.svg");
    assert!(drawn.contains("latest, val[31m"), "{drawn}");
    assert!(
        !drawn.chars().any(|c| c.is_control() && c != '\n'),
        "a control character in the SVG"
    );
    let notes = figs[0].notes.join("\n");
    assert!(notes.contains("4 value(s) not finite or beyond"), "{notes}");
    // The gate summary of a ratio near the largest float, with a hostile label.
    let svg = within_a_minute("the gate summary of ±1e308", || {
        let bars = [youra::paper::draw::GateBar {
            label: "h-e1\u{1b}]0;x\u{7}".into(),
            op: ">=".into(),
            required: 1e-308,
            measured: Some(1.7e308),
            passed: Some(true),
            interval: Some((-1.7e308, 1.7e308)),
            verdict: Some("PASS".into()),
        }];
        youra::paper::draw::gates(&bars).expect("drawn")
    });
    assert!(svg.contains("h-e1]0;x") && !svg.chars().any(|c| c.is_control() && c != '\n'));
}

// ---- the scan: no reader outside the gateway ----

/// The files that may open a measured file (`<h>/results/…`) themselves, and why.
const ALLOWED: &[(&str, &str)] = &[
    ("crates/exec/src/exec/collected.rs", "the gateway"),
    (
        "crates/exec/src/exec/trust.rs",
        "writes the collection records the gateway checks: it hashes what the executor collected",
    ),
    (
        "crates/tui/src/tui/refresh.rs",
        "follows the running job's metrics.jsonl live (it has no record until the job ends); earlier attempts pass `Follower::collected` (the gateway) before they are drawn",
    ),
];

/// A measured file named: a results or attempts folder, a collected file's name.
const NAMES: &[&str] = &[
    "\"results\"",
    "\"attempts\"",
    "metrics.jsonl",
    "experiment_results.json",
    "RESULTS_DIR",
    "ATTEMPTS_DIR",
    "METRICS_FILE",
    "RESULTS_FILE",
    "results_dir(",
    "results.join(",
    "attempts.join(",
];

/// A file opened or read.
const READS: &[&str] = &[
    "fs::read(",
    "fs::read_to_string(",
    "read_to_string(",
    "File::open(",
    "read_capped",
    "read_beneath(",
    "open_beneath(",
    "open_nofollow(",
    "read_metrics",
    "read_results",
    "MetricsReader::",
    "Tail::new(",
    "Tail::from_offset(",
    ".metrics(",
];

/// How many lines around a read a measured name makes it a read of a measured file.
const WINDOW: usize = 6;

/// `line: text` of each read in `src` that has a measured name within [`WINDOW`] lines.
/// Comments and test modules (from a `#[cfg(test)]` at the start of a line) are left out.
fn measured_reads(src: &str) -> Vec<String> {
    let lines: Vec<String> = src
        .lines()
        .take_while(|l| !l.starts_with("#[cfg(test)]"))
        .map(|l| match l.trim_start().starts_with("//") {
            true => String::new(),
            false => l.to_string(),
        })
        .collect();
    let named = |l: &String| NAMES.iter().any(|n| l.contains(n));
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if READS.iter().any(|r| l.contains(r))
            && lines[i.saturating_sub(WINDOW)..(i + WINDOW + 1).min(lines.len())]
                .iter()
                .any(named)
        {
            out.push(format!("{}: {}", i + 1, l.trim()));
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read src").flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs")
            && !p.to_string_lossy().ends_with("_tests.rs")
        {
            out.push(p);
        }
    }
}

#[test]
fn no_code_outside_the_gateway_opens_a_measured_file() {
    // The scan can fail: the reader issue 39 found in paper/figures.rs is caught.
    let old = "fn source(run: &Path, h: &str) {\n    let rel = format!(\"{h}/results/attempts/{n}/metrics.jsonl\");\n    let bytes = std::fs::read(run.join(rel));\n}\n";
    assert_eq!(measured_reads(old).len(), 1);
    assert!(measured_reads("let x = std::fs::read(p);\n").is_empty());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in crate::common::source_dirs(root) {
        rust_files(&dir, &mut files);
    }
    files.sort();
    let mut offenders = Vec::new();
    let mut allowed_used = Vec::new();
    for f in files {
        let rel = f
            .strip_prefix(root)
            .expect("under the crate")
            .to_string_lossy()
            .replace('\\', "/");
        let reads = measured_reads(&std::fs::read_to_string(&f).expect("read a source file"));
        if reads.is_empty() {
            continue;
        }
        if ALLOWED.iter().any(|(a, _)| *a == rel) {
            allowed_used.push(rel);
        } else {
            offenders.extend(reads.into_iter().map(|r| format!("{rel}:{r}")));
        }
    }
    assert!(
        offenders.is_empty(),
        "read measured files only through youra::exec::collected (read, each_row):\n{}",
        offenders.join("\n")
    );
    // An allow-list entry that no longer reads anything is stale: remove it.
    let stale: Vec<&str> = ALLOWED
        .iter()
        .map(|(a, _)| *a)
        .filter(|a| !allowed_used.iter().any(|u| u == a))
        .collect();
    assert!(stale.is_empty(), "stale entries in ALLOWED: {stale:?}");
}
