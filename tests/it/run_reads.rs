//! One reader for run-folder files (issue 39, item 3b): every file youra reads from a run
//! folder or a workspace goes through `fsutil`'s readers, which follow no link, take regular
//! files only (a FIFO is refused without blocking: one left as a metrics file, or in a
//! handed run folder, froze the engine and `youra status`) and cap the bytes. This test fails,
//! naming file:line, when code under `src/` or a crate's `src/` opens a file for reading any other way.
//!
//! It reads source text: `#[cfg(test)]` code (from the attribute to the file's end, and the
//! `*_tests.rs` files) is skipped, since tests read the files they wrote themselves.

use std::path::{Path, PathBuf};

/// The only places that may call the standard library's readers, and why.
const ALLOWED: &[(&str, &str)] = &[
    ("crates/base/src/fsutil.rs", "the readers themselves"),
    (
        "crates/base/src/fsutil/beneath.rs",
        "the readers themselves",
    ),
    (
        "crates/exec/src/exec/supervise.rs",
        "reads /proc/<pid>/stat of the job's processes: the kernel's files, not a run's",
    ),
];

/// Calls that read a file whole or open it for reading, bypassing the checks.
const READERS: &[&str] = &["fs::read(", "fs::read_to_string(", "File::open("];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("src/ is readable")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// (file:line, the line) for each direct read outside [`ALLOWED`].
fn direct_reads(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for dir in crate::common::source_dirs(root) {
        rust_files(&dir, &mut files);
    }
    let mut found = Vec::new();
    for path in files {
        let rel = path
            .strip_prefix(root)
            .expect("under the root")
            .to_string_lossy()
            .into_owned();
        if rel.ends_with("_tests.rs") || ALLOWED.iter().any(|(f, _)| *f == rel) {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("source is UTF-8");
        for (i, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("#[cfg(test)]") {
                break;
            }
            let code = line.split("//").next().unwrap_or("");
            // `/proc` is the kernel's, not a run's: reading a process' state is allowed.
            if READERS.iter().any(|r| code.contains(r)) && !code.contains("\"/proc/") {
                found.push(format!("{rel}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn run_folder_files_are_read_only_through_fsutil() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = direct_reads(root);
    assert!(
        found.is_empty(),
        "read these through fsutil::read_run_file / read_run_text / read_beneath / \
         open_nofollow (no link, regular files only, capped):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_sees_a_planted_direct_read() {
    // The test can fail: a scratch tree with one direct read and one read in a test module.
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("src/engine");
    std::fs::create_dir_all(&src).expect("mkdir");
    std::fs::write(
        src.join("x.rs"),
        "fn a() { let _ = std::fs::read_to_string(\"events.jsonl\"); }\n\
         #[cfg(test)]\nmod tests { fn b() { let _ = std::fs::read(\"x\"); } }\n",
    )
    .expect("write");
    let found = direct_reads(dir.path());
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("src/engine/x.rs:1:"), "{found:?}");
}

/// Run `youra args`, failing the test if it has not ended within `limit` (then killed).
fn ends_within(args: &[&str], limit: std::time::Duration) -> std::process::Output {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("youra runs");
    let start = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("youra {args:?} hung on a FIFO (killed after {limit:?})");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().expect("output")
}

fn mkfifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    let c = std::ffi::CString::new(path.to_str().expect("utf-8")).expect("no NUL");
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "{path:?}");
}

#[test]
fn fifos_in_a_handed_run_folder_hang_no_reader() {
    // A stranger's run folder whose files are FIFOs nobody writes: every reader refuses
    // them at once (a blocking open would wait for a writer forever).
    let (_guard, run) = crate::common::temp_run(&crate::common::example_run());
    for rel in [
        "events.jsonl",
        "memory/failure_h-m1_run1.md",
        "plan/tree.json",
        "h-e1/04_validation.md",
    ] {
        mkfifo(&run.join(rel));
    }
    let limit = std::time::Duration::from_secs(60);
    let run_s = run.to_str().expect("utf-8");
    let status = ends_within(&["status", run_s], limit);
    let (out, err) = crate::common::text(&status);
    assert!(
        out.contains("h-e1") || err.contains("FIFO"),
        "status said something useful: {out}{err}"
    );
    let page = run.parent().expect("parent").join("report.html");
    let html = ends_within(
        &["report", "html", run_s, "-o", page.to_str().expect("utf-8")],
        limit,
    );
    let (out, err) = crate::common::text(&html);
    assert!(
        html.status.success() || err.contains("FIFO") || out.contains("FIFO"),
        "report html ended with a reason: {out}{err}"
    );
    // The VSA itself as a FIFO: a clear refusal naming it, not a hang.
    mkfifo(&run.join("verification_state.yaml"));
    let status = ends_within(&["status", run_s], limit);
    let (out, err) = crate::common::text(&status);
    assert!(!status.status.success(), "{out}{err}");
    assert!(format!("{out}{err}").contains("FIFO"), "{out}{err}");
}
