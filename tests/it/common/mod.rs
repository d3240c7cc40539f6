//! Shared helpers for the integration tests.
#![allow(dead_code)]

pub mod demo;
pub mod evidence;
pub mod lessons;
pub mod llm_server;
pub mod mid_run;
pub mod pty;
pub mod replay_copy;
pub mod revisions;
pub mod script;
pub mod study_sex;
pub mod trust;
pub mod tui;

use std::path::PathBuf;

/// The third-party corpus, read in place (never copied into this repository).
pub fn shared_fixtures() -> Option<PathBuf> {
    let p = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/fixtures/youra"
    ));
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("skipped: {} is absent", p.display());
        None
    }
}

pub fn own_fixture(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures")).join(name)
}

pub fn example_run() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/example-run"))
}

pub const DATA_PROBLEMS: &str = "results/generations/youra/sonnet45/iclr2025_data_problems";
pub const DATA_PROBLEMS_RUN: &str = "results/generations/youra/sonnet45/iclr2025_data_problems/docs/youra_research/2026_data_problems";
pub const DL4C: &str = "results/generations/youra/opus45_no_reflection/iclr2025_dl4c";
pub const BI_ALIGN_RUN: &str =
    "results/generations/youra/sonnet46/iclr2025_bi_align/docs/youra_research/2026_bi_align";

/// Copy a file into a fresh temporary run folder, returning (guard, path of the copy).
pub fn temp_copy(src: &std::path::Path) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let dst = dir.path().join("verification_state.yaml");
    std::fs::copy(src, &dst).expect("copy fixture");
    (dir, dst)
}

/// Copy a whole run folder (files and subfolders) into a fresh temporary folder, returning
/// (guard, path of the copy). `discover` decides the layout from the files beside the VSA
/// (`youra.toml`, `events.jsonl`), so a run copied file by file would change kind.
pub fn temp_run(src: &std::path::Path) -> (tempfile::TempDir, PathBuf) {
    fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
        std::fs::create_dir_all(to).expect("create folder");
        for entry in std::fs::read_dir(from).expect("read folder") {
            let entry = entry.expect("folder entry");
            let dst = to.join(entry.file_name());
            if entry.file_type().expect("file type").is_dir() {
                copy_dir(&entry.path(), &dst);
            } else {
                std::fs::copy(entry.path(), &dst).expect("copy file");
            }
        }
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dir.path().join("run");
    copy_dir(src, &run);
    (dir, run)
}

/// Run the `youra` binary with `args`.
pub fn youra(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(args)
        .output()
        .expect("youra runs")
}

/// A command's stdout and stderr as text.
pub fn text(o: &std::process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The request `youra vsa set <path> <value> --reason test` makes (no flags).
pub fn req<'a>(path: &'a str, value: &'a str) -> youra::vsa::SetRequest<'a> {
    youra::vsa::SetRequest {
        path,
        value,
        reason: "test",
        actor: "researcher",
        force: false,
        create: false,
        base: None,
    }
}

/// Set one VSA field as the researcher would (`youra vsa set` without flags).
pub fn set_field(store: &youra::vsa::Store, path: &str, value: &str) -> youra::vsa::Applied {
    store.set(&req(path, value)).unwrap()
}

/// A scalar of the run's VSA at a dotted path (`sub_hypotheses.h-e1.status`), as written.
pub fn vsa_field(run: &std::path::Path, path: &str) -> Option<String> {
    let s = youra::vsa::Store::new(run.join("verification_state.yaml"))
        .load()
        .unwrap();
    let n = path
        .split('.')
        .try_fold(s.doc.root.as_ref()?, |n, k| n.get(k))?;
    n.as_scalar().map(|x| x.text.clone())
}

/// The run's events of one kind, in order.
pub fn events_of(run: &std::path::Path, kind: &str) -> Vec<youra::rundir::events::Event> {
    youra::rundir::events::read(&run.join("events.jsonl"))
        .into_iter()
        .filter(|e| e.kind == kind)
        .collect()
}

/// A loopback server that counts the connections it accepts and answers each 200.
pub fn listener() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{Read, Write};
    use std::sync::atomic::Ordering;
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", l.local_addr().unwrap());
    let hits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = std::sync::Arc::clone(&hits);
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { continue };
            count.fetch_add(1, Ordering::SeqCst);
            let mut buf = [0u8; 4096];
            let _ = s.set_read_timeout(Some(std::time::Duration::from_millis(200)));
            let _ = s.read(&mut buf);
            let _ =
                s.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}");
        }
    });
    (url, hits)
}

/// The source folders of the workspace under `root`: `src/` (the `youra` package: the binary
/// and `cli`) and each crate's `crates/<name>/src/`, sorted. Tests that read youra's own
/// source (the one-reader, gateway and loop scans) walk them all.
pub fn source_dirs(root: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut dirs = vec![root.join("src")];
    if let Ok(entries) = std::fs::read_dir(root.join("crates")) {
        let mut crates: Vec<std::path::PathBuf> = entries
            .flatten()
            .map(|e| e.path().join("src"))
            .filter(|p| p.is_dir())
            .collect();
        crates.sort();
        dirs.extend(crates);
    }
    dirs
}
