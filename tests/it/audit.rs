//! `youra audit` as a user runs it (issue 44): the demo run audits as Real, a copy whose
//! experiment writes a literal accuracy as Fabricated (and the engine's gate refuses that
//! code), exit codes per verdict, and hostile folders — a 1 GB file, a link out of the
//! folder, a binary named `.py`, a FIFO, 100k nested parentheses — answered in bounded time
//! and memory with a message naming each.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::{text, youra};

fn audit(args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["audit"];
    all.extend_from_slice(args);
    let o = youra(&all);
    let (out, err) = text(&o);
    (o.status.code().unwrap_or(-1), out, err)
}

fn audit_json(dir: &Path) -> (i32, serde_json::Value) {
    let (code, out, err) = audit(&[dir.to_str().unwrap(), "--json"]);
    let v = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
    (code, v)
}

fn demo(tmp: &Path) -> PathBuf {
    let run = tmp.join("demo");
    let o = youra(&[
        "demo",
        "--headless",
        "--fast",
        "--dir",
        run.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "demo: {:?}", text(&o));
    run
}

/// Every experiment code copy in a run (`h-*/code/*.py`).
fn code_files(run: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for h in std::fs::read_dir(run).unwrap().filter_map(Result::ok) {
        let code = h.path().join("code");
        if let Ok(files) = std::fs::read_dir(&code) {
            out.extend(
                files
                    .filter_map(Result::ok)
                    .map(|f| f.path())
                    .filter(|p| p.extension().is_some_and(|e| e == "py")),
            );
        }
    }
    out.sort();
    out
}

const LITERAL_LINE: &str = "    final = {\"accuracy\": round(base, 4), \"n\": len(rows)}";

#[test]
fn the_demo_audits_real_and_a_literal_accuracy_copy_fabricated_and_refused_by_the_gate() {
    let tmp = tempfile::tempdir().unwrap();
    let run = demo(tmp.path());
    let (code, v) = audit_json(&run);
    assert_eq!((code, v["verdict"].as_str()), (0, Some("real")), "{v:#}");
    let accuracy = v["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == "accuracy")
        .expect("accuracy traced");
    assert_eq!(accuracy["origin"], "loader", "{accuracy}");
    assert!(
        accuracy["sources"][0]
            .as_str()
            .unwrap()
            .contains("csv.DictReader"),
        "{accuracy}"
    );

    // The copy: every experiment writes the accuracy it wishes it had.
    let files = code_files(&run);
    assert!(!files.is_empty());
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        assert!(
            src.contains(LITERAL_LINE),
            "the demo's code changed: {}",
            f.display()
        );
        std::fs::write(
            f,
            src.replace(
                LITERAL_LINE,
                "    final = {\"accuracy\": 0.97, \"n\": len(rows)}",
            ),
        )
        .unwrap();
    }
    let (code, out, _) = audit(&[run.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with("verdict: Fabricated"), "{out}");
    let line = std::fs::read_to_string(&files[0])
        .unwrap()
        .lines()
        .position(|l| l.contains("0.97"))
        .unwrap()
        + 1;
    let cited = files.iter().any(|f| {
        let rel = f.strip_prefix(&run).unwrap().display().to_string();
        out.contains(&format!("{rel}:{line} — metric-origin"))
    });
    assert!(cited, "{out}");

    // The gate Coding & Validation runs refuses the same code, naming the line.
    let code_text = std::fs::read_to_string(&files[0]).unwrap();
    let findings = youra::engine::fabrication::check(&youra::engine::fabrication::Evidence {
        files: &[("centroid.py".to_string(), code_text)],
        metrics: &["accuracy".to_string()],
        real_dataset: Some("Palmer penguins"),
        records: &[],
    });
    assert!(
        findings.iter().any(|f| f.file == "centroid.py"
            && f.line == line
            && f.detail.contains("literal 0.97")),
        "{findings:?}"
    );
}

#[test]
fn exit_codes_tell_real_not_real_unknown_and_usage_apart() {
    let tmp = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/audit/rules");
    assert_eq!(audit(&[fixtures.join("real_plain").to_str().unwrap()]).0, 0);
    assert_eq!(
        audit(&[fixtures.join("synthetic_generator").to_str().unwrap()]).0,
        1
    );
    assert_eq!(
        audit(&[fixtures.join("literal_metric").to_str().unwrap()]).0,
        1
    );
    let (code, out, _) = audit(&[tmp.path().to_str().unwrap()]);
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains("verdict: Unknown") && out.contains("no Python code"),
        "{out}"
    );
    let (code, _, err) = audit(&[tmp.path().join("missing").to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("is not a folder"), "{err}");
    let (code, _, err) = audit(&[
        tmp.path().to_str().unwrap(),
        "--paper",
        tmp.path().join("nope.md").to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read the paper"), "{err}");
}

#[test]
fn a_paper_and_a_dataset_are_checked_against_what_the_code_loads() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/audit/rules");
    let dir = fixtures.join("paper_dataset_missing");
    let paper = dir.join("paper.md");
    let (code, out, _) = audit(&[dir.to_str().unwrap(), "--paper", paper.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        out.contains("paper.md:3 — paper-vs-code") && out.contains("names `CIFAR-10`"),
        "{out}"
    );
    // The real run with a dataset it does load stays real; one it never loads is named.
    let real = fixtures.join("real_plain");
    assert_eq!(
        audit(&[real.to_str().unwrap(), "--dataset", "palmer penguins"]).0,
        0
    );
    let (_, v) = {
        let (c, out, _) = audit(&[real.to_str().unwrap(), "--dataset", "ImageNet", "--json"]);
        (c, serde_json::from_str::<serde_json::Value>(&out).unwrap())
    };
    let named = v["evidence"].as_array().unwrap().iter().any(|e| {
        e["rule"] == "paper-vs-code" && e["detail"].as_str().unwrap().contains("ImageNet")
    });
    assert!(named, "{v:#}");
}

#[test]
fn every_cited_file_line_exists() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/audit/rules");
    let mut cited = 0;
    for case in std::fs::read_dir(&fixtures)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
    {
        let (_, v) = audit_json(&case);
        for e in v["evidence"].as_array().unwrap() {
            let file = case.join(e["file"].as_str().unwrap());
            let line = e["line"].as_u64().unwrap() as usize;
            let lines = std::fs::read_to_string(&file)
                .unwrap_or_else(|_| panic!("{} cites {}", case.display(), file.display()))
                .lines()
                .count();
            assert!(
                line >= 1 && line <= lines,
                "{}:{line} of {lines}",
                file.display()
            );
            cited += 1;
        }
    }
    assert!(cited >= 30, "{cited}");
}

/// Peak memory of the finished children of this process, in KiB.
fn children_peak_kib() -> i64 {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid out-pointer to a zeroed rusage.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    usage.ru_maxrss
}

#[test]
fn hostile_folders_are_answered_in_bounded_time_and_memory_with_a_message() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("out");
    std::fs::create_dir(&dir).unwrap();
    // A 1 GB (sparse) Python file.
    std::fs::File::create(dir.join("huge.py"))
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    // A link out of the folder, to code that would make the verdict Fabricated.
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("fake.py"), "print({'accuracy': 0.99})\n").unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("linked")).unwrap();
    std::os::unix::fs::symlink(outside.join("fake.py"), dir.join("fake.py")).unwrap();
    // A binary named `.py`, and a FIFO named `.py` (opened, it would block a reader).
    std::fs::write(
        dir.join("blob.py"),
        [0x7f, b'E', b'L', b'F', 0, 1, 2, 0xff, 0xfe],
    )
    .unwrap();
    let fifo = std::ffi::CString::new(dir.join("pipe.py").to_str().unwrap()).unwrap();
    // SAFETY: a valid C path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    // 100k nested parentheses, then honest code.
    let deep = format!(
        "x = {}1{}\nimport pandas as pd\ndf = pd.read_csv('d.csv')\nprint({{'accuracy': df['y'].mean()}})\n",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    std::fs::write(dir.join("deep.py"), deep).unwrap();

    let start = Instant::now();
    let (code, out, err) = audit(&[dir.to_str().unwrap()]);
    let took = start.elapsed();
    assert!(took < Duration::from_secs(20), "{took:?}");
    assert!(
        children_peak_kib() < 1 << 20,
        "peak {} KiB",
        children_peak_kib()
    );
    assert_eq!(code, 0, "{out}{err}");
    for (path, why) in [
        ("huge.py", "over the 2097152-byte cap: not read"),
        ("linked", "a symbolic link: not followed"),
        ("fake.py", "a symbolic link: not followed"),
        ("blob.py", "binary content"),
        ("pipe.py", "not a regular file"),
    ] {
        assert!(
            out.contains(&format!("skipped: {path} — ")) && out.contains(why),
            "{path}: {out}"
        );
    }
    assert!(
        out.contains("deep.py:1: nesting deeper than 200 levels"),
        "{out}"
    );
    assert!(!out.contains("0.99"), "the linked code was read: {out}");
}

#[test]
fn bench_audit_scores_the_shipped_corpus_and_times_500_files() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/audit/corpus");
    let o = youra(&["bench", "audit", corpus.to_str().unwrap(), "--json"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let s = &v["scores"];
    let labels = s["rows"].as_array().unwrap();
    assert!(labels.len() >= 12, "{labels:?}");
    for class in ["real", "synthetic", "fabricated"] {
        assert!(
            labels.iter().filter(|r| r["label"] == class).count() >= 3,
            "{class}"
        );
    }
    // youra's own corpus: every output classified as labelled (not a measurement on agents).
    for key in [
        "not_real_precision",
        "not_real_recall",
        "fabricated_precision",
        "fabricated_recall",
    ] {
        assert_eq!(s[key].as_f64(), Some(1.0), "{key}: {s:#}");
    }
    assert_eq!(s["cited"], s["cited_exist"], "{s:#}");
    assert_eq!(v["speed"]["files"], 500);
    assert!(v["speed"]["seconds"].as_f64().unwrap() < 2.0, "{v:#}");
    // A folder without labels.json is a usage error with a message.
    let o = youra(&["bench", "audit", env!("CARGO_MANIFEST_DIR"), "--files", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("labels.json"), "{:?}", text(&o));
}
