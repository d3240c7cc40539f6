//! `youra init --data`: the researcher's files land in `<run>/data/` byte for byte and
//! read-only, a link or a special file (given, or hidden inside a folder) is refused by name
//! before anything is written, the manifest is what `sha256sum` computes, and `youra doctor`
//! names a data file that changed afterwards.

use crate::common::llm_server::LlmServer;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

fn youra(args: &[&str], home: &Path) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_youra"));
    for (k, _) in std::env::vars() {
        if k.starts_with("YOURA_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("YOURA_CONFIG_DIR", home)
        .args(args)
        .output()
        .expect("youra runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn init_with(run: &Path, home: &Path, base_url: &str, data: &[&Path]) -> Output {
    let mut args = vec![
        "init",
        run.to_str().unwrap(),
        "--topic",
        "Do bill measurements separate penguin species?",
        "--provider",
        "openai",
        "--model",
        "m",
        "--base-url",
        base_url,
        "--data",
    ];
    args.extend(data.iter().map(|p| p.to_str().unwrap()));
    youra(&args, home)
}

/// A source tree: `penguins.csv` alone, and `images/` with a nested binary file.
fn sources(root: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let csv = root.join("penguins.csv");
    std::fs::write(&csv, "species,bill_length_mm\nAdelie,39.1\nGentoo,46.1\n").unwrap();
    let images = root.join("images");
    std::fs::create_dir_all(images.join("train")).unwrap();
    std::fs::write(images.join("labels.txt"), "0\n1\n").unwrap();
    let bytes: Vec<u8> = (0..70_000u32).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(images.join("train").join("x.bin"), bytes).unwrap();
    (csv, images)
}

/// Give the owner write access back, so the temporary folder can be removed.
fn writable(dir: &Path) {
    let _ = Command::new("chmod").args(["-R", "u+w"]).arg(dir).status();
}

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn data_is_copied_read_only_byte_for_byte_with_a_sha256sum_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let (csv, images) = sources(tmp.path());
    let run = tmp.path().join("run");
    let out = init_with(&run, tmp.path(), "http://127.0.0.1:9/v1", &[&csv, &images]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("copied 3 data file(s)"),
        "{}",
        text(&out)
    );
    let data = run.join("data");
    for (rel, src) in [
        ("penguins.csv", csv.clone()),
        ("images/labels.txt", images.join("labels.txt")),
        ("images/train/x.bin", images.join("train/x.bin")),
    ] {
        assert_eq!(
            std::fs::read(data.join(rel)).unwrap(),
            std::fs::read(&src).unwrap(),
            "{rel} is not byte-identical"
        );
        assert_eq!(mode(&data.join(rel)), 0o444, "{rel}");
    }
    assert_eq!(mode(&data.join("images")), 0o555);
    assert_eq!(mode(&data.join("images/train")), 0o555);
    assert_eq!(mode(&data.join("MANIFEST.sha256")), 0o444);
    // The manifest is what sha256sum writes for the same files, and sha256sum -c accepts it.
    let manifest = std::fs::read_to_string(data.join("MANIFEST.sha256")).unwrap();
    let ours: std::collections::BTreeSet<&str> = manifest.lines().collect();
    let theirs = Command::new("sha256sum")
        .args(["penguins.csv", "images/labels.txt", "images/train/x.bin"])
        .current_dir(&data)
        .output()
        .expect("sha256sum (coreutils) runs");
    let theirs = String::from_utf8(theirs.stdout).unwrap();
    assert_eq!(ours, theirs.lines().collect(), "{manifest}");
    let checked = Command::new("sha256sum")
        .args(["-c", "MANIFEST.sha256"])
        .current_dir(&data)
        .output()
        .unwrap();
    assert!(checked.status.success(), "{}", text(&checked));
    writable(tmp.path());
}

#[test]
fn a_link_or_a_fifo_given_or_inside_a_folder_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::write(root.join("secret"), "key").unwrap();
    let mkfifo = |p: &Path| {
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        assert_eq!(
            unsafe { libc::mkfifo(c.as_ptr(), 0o644) },
            0,
            "mkfifo {p:?}"
        );
    };
    for folder in ["with_link/deep", "with_fifo/deep"] {
        std::fs::create_dir_all(root.join(folder)).unwrap();
        std::fs::write(root.join(folder).join("ok.csv"), "a\n").unwrap();
    }
    std::os::unix::fs::symlink(root.join("secret"), root.join("link.csv")).unwrap();
    std::os::unix::fs::symlink(root.join("secret"), root.join("with_link/deep/link.csv")).unwrap();
    mkfifo(&root.join("pipe.csv"));
    mkfifo(&root.join("with_fifo/deep/pipe.csv"));
    let cases = [
        ("link.csv", root.join("link.csv"), "is a symbolic link"),
        ("pipe.csv", root.join("pipe.csv"), "is a FIFO"),
        (
            "with_link/deep/link.csv",
            root.join("with_link"),
            "is a symbolic link",
        ),
        (
            "with_fifo/deep/pipe.csv",
            root.join("with_fifo"),
            "is a FIFO",
        ),
    ];
    for (i, (named, given, what)) in cases.iter().enumerate() {
        let run = root.join(format!("run{i}"));
        let out = init_with(&run, root, "http://127.0.0.1:9/v1", &[given]);
        let said = text(&out);
        assert_eq!(out.status.code(), Some(1), "{named}: {said}");
        let full = root.join(named);
        assert!(
            said.contains(&format!("--data {}: {what}", full.display())),
            "{named}: {said}"
        );
        assert!(said.contains("nothing was written"), "{said}");
        assert!(!run.exists(), "{named}: a refused init left {run:?}");
    }
}

#[test]
fn doctor_names_a_data_file_that_changed_or_went_missing() {
    let server = LlmServer::start(0, &["m"], true, |_| "1 2 3".to_string());
    let tmp = tempfile::tempdir().unwrap();
    let (csv, images) = sources(tmp.path());
    let run = tmp.path().join("run");
    let out = init_with(&run, tmp.path(), &server.base_url(), &[&csv, &images]);
    assert!(out.status.success(), "{}", text(&out));
    let doctor = || youra(&["doctor", run.to_str().unwrap()], tmp.path());
    let said = text(&doctor());
    assert!(
        said.contains("data: 3 file(s) match data/MANIFEST.sha256"),
        "{said}"
    );
    assert!(!said.contains("changed since"), "{said}");
    // The researcher (or anything running as them) edits a copy and deletes another.
    let changed = run.join("data/images/labels.txt");
    std::fs::set_permissions(&changed, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::write(&changed, "0\n2\n").unwrap();
    std::fs::set_permissions(run.join("data"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::remove_file(run.join("data/penguins.csv")).unwrap();
    let out = doctor();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("data: data/images/labels.txt changed since `youra init` copied it"),
        "{said}"
    );
    assert!(
        said.contains("data: data/penguins.csv is missing"),
        "{said}"
    );
    assert!(
        !said.contains("data/images/train/x.bin"),
        "an unchanged file named: {said}"
    );
    // A link put in a copy's place (to the same bytes) is not read through: it is named.
    let train = run.join("data/images/train");
    std::fs::set_permissions(&train, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::rename(train.join("x.bin"), tmp.path().join("x.bin")).unwrap();
    std::os::unix::fs::symlink(tmp.path().join("x.bin"), train.join("x.bin")).unwrap();
    let said = text(&doctor());
    assert!(
        said.contains("data: data/images/train/x.bin cannot be read"),
        "{said}"
    );
    assert!(said.contains("link"), "{said}");
    std::fs::remove_file(train.join("x.bin")).unwrap();
    std::fs::rename(tmp.path().join("x.bin"), train.join("x.bin")).unwrap();
    let json = youra(&["doctor", run.to_str().unwrap(), "--json"], tmp.path());
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("doctor --json");
    assert_eq!(v["ok"], false);
    assert_eq!(v["data"]["matching"], 1);
    assert_eq!(v["data"]["problems"].as_array().map(Vec::len), Some(2));
    writable(tmp.path());
}
