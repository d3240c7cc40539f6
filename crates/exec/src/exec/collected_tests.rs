//! The gateway from the attacker's side: a planted or changed file, a link, a FIFO, a path
//! out of the run, values no chart can draw.

use super::*;

fn run_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(crate::fsutil::parent(&path)).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    dir
}

#[test]
fn a_run_without_records_is_read_as_found_and_one_with_records_only_as_recorded() {
    let dir = run_with(&[("h-e1/results/metrics.jsonl", "{\"accuracy\": 0.8}\n")]);
    let run = dir.path();
    let m = read(run, "h-e1", "metrics.jsonl").expect("read as found");
    assert_eq!((m.record, m.bytes.len()), (None, 18));
    // youra collects: the file is in record 1.
    crate::exec::trust::record(run, "h-e1", &run.join("h-e1"), &[]).expect("record");
    assert_eq!(
        read(run, "h-e1", "metrics.jsonl").expect("recorded").record,
        Some(1)
    );
    // The experiment plants an attempt and rewrites the current file afterwards.
    std::fs::create_dir_all(run.join("h-e1/results/attempts/77")).expect("mkdir");
    std::fs::write(
        run.join("h-e1/results/attempts/77/metrics.jsonl"),
        "{\"accuracy\": 0.999}\n",
    )
    .expect("write");
    std::fs::write(
        run.join("h-e1/results/metrics.jsonl"),
        "{\"accuracy\": 0.95}\n",
    )
    .expect("w");
    for rel in ["attempts/77/metrics.jsonl", "metrics.jsonl"] {
        match read(run, "h-e1", rel) {
            Err(Refused::NotRecorded { why, .. }) => {
                assert!(why.contains("not collected by youra"), "{why}")
            }
            other => panic!("{rel}: {other:?}"),
        }
    }
    assert_eq!(
        read(run, "h-e1", "attempts/5/metrics.jsonl"),
        Err(Refused::Absent)
    );
}

#[test]
fn an_untrusted_record_trusts_nothing() {
    let dir = run_with(&[(
        "h-e1/results/experiment_results.json",
        "{\"accuracy\": 0.9}",
    )]);
    let run = dir.path();
    crate::exec::trust::record(run, "h-e1", &run.join("h-e1"), &["a violation".into()])
        .expect("record");
    assert!(matches!(
        read(run, "h-e1", "experiment_results.json"),
        Err(Refused::NotRecorded { .. })
    ));
}

#[test]
fn links_fifos_and_paths_out_of_the_run_are_refused_unopened() {
    let host = run_with(&[("secret.jsonl", "{\"accuracy\": 0.99}\n")]);
    let dir = run_with(&[("h-e1/results/attempts/1/x", "")]);
    let run = dir.path();
    std::os::unix::fs::symlink(
        host.path().join("secret.jsonl"),
        run.join("h-e1/results/metrics.jsonl"),
    )
    .expect("link");
    std::os::unix::fs::symlink(host.path(), run.join("h-e1/results/attempts/2")).expect("link");
    let fifo = run.join("h-e1/results/experiment_results.json");
    nix_fifo(&fifo);
    for rel in [
        "metrics.jsonl",
        "attempts/2/secret.jsonl",
        "attempts/2/metrics.jsonl",
        "experiment_results.json",
    ] {
        let got = read(run, "h-e1", rel);
        assert!(
            matches!(got, Err(Refused::Unreadable(_) | Refused::NotMeasured(_))),
            "{rel}: {got:?}"
        );
    }
    for rel in [
        "/dev/zero",
        "../etc/passwd",
        "h-e1/results/../../x",
        "h-e1/code/m.py",
    ] {
        assert!(
            matches!(read_run_rel(run, rel), Err(Refused::NotMeasured(_))),
            "{rel}"
        );
    }
    assert!(matches!(
        read(run, "../h-e1", "metrics.jsonl"),
        Err(Refused::NotMeasured(_))
    ));
}

fn nix_fifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).expect("path");
    // SAFETY: a NUL-terminated path; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

#[test]
fn values_no_chart_can_draw_are_dropped_and_counted() {
    let text = "{\"step\": 1, \"acc\": 0.5}\n{\"step\": 2, \"acc\": 1e308}\nnot json\n{\"step\": 3, \"acc\": -1.7e308, \"loss\": 2e12}\n{\"step\": 4, \"acc\": 0.6}";
    let dir = run_with(&[("h-e1/results/metrics.jsonl", text)]);
    let m = read(dir.path(), "h-e1", "metrics.jsonl").expect("read");
    let mut acc = Vec::new();
    let stats = each_row(&m, |line, row| {
        if let Some(v) = row.get("acc").and_then(Value::as_f64) {
            acc.push((line, v));
        }
    });
    assert_eq!(acc, vec![(1, 0.5), (5, 0.6)]);
    assert_eq!((stats.rows, stats.skipped, stats.dropped_values), (4, 1, 3));
    let note = stats.note("h-e1/results/metrics.jsonl").expect("a note");
    assert!(note.contains("3 value(s) not finite or beyond"), "{note}");
    assert_eq!(bounded(f64::NAN), None);
    assert_eq!(bounded(-MAX_VALUE), Some(-MAX_VALUE));
}
