//! The download step (issue 43 item 4): `youra data fetch` brings one http(s) file into the
//! run's data/ from a real HTTP server on loopback, in its own sandbox with the network on.
//! What is kept: the bytes as served, read-only, their sha256 (as `sha256sum` computes it) in
//! the manifest `youra doctor` checks, the source in `data/SOURCES.tsv`. What is refused: a
//! non-http URL, a name that would leave data/, a sum that does not match — keeping nothing.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use crate::common;

/// Serve `body` to every request on a loopback port, for a bounded number of requests.
fn serve(body: &'static [u8], requests: usize) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(requests) {
            let Ok(mut s) = stream else { continue };
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = s.write_all(head.as_bytes());
            let _ = s.write_all(body);
        }
    });
    port
}

const CSV: &[u8] = include_bytes!("../../assets/demo/data/penguins.csv");

#[test]
fn a_fetched_file_is_kept_read_only_with_its_sum_and_source() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let r = run.to_str().unwrap();
    let out = common::youra(&["init", r, "--topic", "t", "--mode", "unattended"]);
    assert!(out.status.success(), "{:?}", common::text(&out));
    let port = serve(CSV, 3);
    let url = format!("http://127.0.0.1:{port}/files/penguins.csv?raw=1");
    let out = common::youra(&["data", "fetch", r, &url]);
    assert_eq!(out.status.code(), Some(0), "{:?}", common::text(&out));
    let kept = run.join("data/penguins.csv");
    assert_eq!(std::fs::read(&kept).unwrap(), CSV, "the bytes as served");
    assert_eq!(
        std::fs::metadata(&kept).unwrap().permissions().mode() & 0o777,
        0o444
    );
    let sum = Command::new("sha256sum").arg(&kept).output().unwrap();
    let hex = String::from_utf8_lossy(&sum.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    let manifest = std::fs::read_to_string(run.join("data/MANIFEST.sha256")).unwrap();
    assert!(
        manifest.contains(&format!("{hex}  penguins.csv")),
        "{manifest}"
    );
    let sources = std::fs::read_to_string(run.join("data/SOURCES.tsv")).unwrap();
    assert!(
        sources.starts_with(&format!("penguins.csv\t{url}\t{hex}\t")),
        "{sources}"
    );
    // Nothing of the fetch is left in the run but the file and its records.
    assert!(
        !run.join(".youra/fetch")
            .read_dir()
            .is_ok_and(|mut d| d.next().is_some())
    );
    let doctor = common::youra(&["doctor", r]);
    assert!(
        common::text(&doctor).0.contains("1 file(s) match"),
        "{:?}",
        common::text(&doctor)
    );

    // The same name again, a wrong sum, a hostile name or URL: refused, nothing kept.
    let again = common::youra(&["data", "fetch", r, &url]);
    assert_eq!(again.status.code(), Some(1));
    assert!(common::text(&again).1.contains("exists already"));
    let wrong = common::youra(&[
        "data",
        "fetch",
        r,
        &url,
        "--name",
        "other.csv",
        "--sha256",
        &"0".repeat(64),
    ]);
    assert_eq!(wrong.status.code(), Some(1), "{:?}", common::text(&wrong));
    assert!(
        common::text(&wrong).1.contains("not the 0000"),
        "{:?}",
        common::text(&wrong)
    );
    assert!(!run.join("data/other.csv").exists());
    for args in [
        vec!["data", "fetch", r, "file:///etc/passwd"],
        vec!["data", "fetch", r, &url, "--name", "../escape.csv"],
        vec!["data", "fetch", r, "http://127.0.0.1:1/\u{1b}[31mred"],
    ] {
        let out = common::youra(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let (_, err) = common::text(&out);
        assert!(!err.contains('\u{1b}'), "escaped: {err:?}");
    }
    assert!(!tmp.path().join("escape.csv").exists());
    let manifest_after = std::fs::read_to_string(run.join("data/MANIFEST.sha256")).unwrap();
    assert_eq!(manifest_after, manifest, "refusals change no record");
    // A folder with no run is said so, with the one exit code for "no run".
    let none = common::youra(&["data", "fetch", tmp.path().to_str().unwrap(), &url]);
    assert_eq!(none.status.code(), Some(2));
}
