//! The card's JSON shape (what `results/run_card.json` holds, which readers and other tools
//! rely on), the package list's hash against `sha256sum`, the data walk's links and special
//! files, and the interpreter refused inside the run folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::super::run_card_probe as probe;
use super::*;

fn card() -> RunCard {
    RunCard {
        schema: SCHEMA,
        hypothesis: "h-e1".into(),
        started_at: "2026-12-05T16:00:00Z".into(),
        backend: "local".into(),
        argv: vec!["python3".into(), "train.py".into()],
        workdir: "code".into(),
        env: BTreeMap::from([("YOURA_SEED".to_string(), "7".to_string())]),
        interpreter: Interpreter {
            program: Some("/usr/bin/python3".into()),
            version: Some("3.11.7".into()),
            executable: Some("/usr/bin/python3".into()),
            packages: vec!["numpy==1.26.4".into(), "pandas==2.2.0".into()],
            packages_sha256: Some(packages_sha256(&[
                "numpy==1.26.4".into(),
                "pandas==2.2.0".into(),
            ])),
            error: None,
        },
        machine: Machine {
            probed_on: "the machine that ran the job".into(),
            cpu_model: Some("Xeon".into()),
            cpus: Some(2),
            ..Machine::default()
        },
        data: vec![DataFile {
            path: "data/evil".into(),
            kind: DataKind::Link,
            bytes: None,
            sha256: None,
            target: Some("/etc/passwd".into()),
            note: None,
        }],
        sandbox: SandboxSettings {
            mode: "required".into(),
            bubblewrap: true,
            time_limit_s: 60.0,
            ..SandboxSettings::default()
        },
    }
}

fn keys(v: &serde_json::Value) -> Vec<String> {
    v.as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn the_card_has_its_documented_shape_and_reads_back() {
    let c = card();
    let json = serde_json::to_string_pretty(&c).expect("serializes");
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(
        keys(&v),
        [
            "argv",
            "backend",
            "data",
            "env",
            "hypothesis",
            "interpreter",
            "machine",
            "sandbox",
            "schema",
            "started_at",
            "workdir"
        ]
    );
    assert_eq!(v["schema"], 1);
    assert_eq!(v["argv"], serde_json::json!(["python3", "train.py"]));
    assert_eq!(v["env"]["YOURA_SEED"], "7");
    assert_eq!(
        keys(&v["interpreter"]),
        [
            "error",
            "executable",
            "packages",
            "packages_sha256",
            "program",
            "version"
        ]
    );
    assert_eq!(v["data"][0]["kind"], "link", "kinds are lower-case words");
    assert_eq!(v["data"][0]["target"], "/etc/passwd");
    assert_eq!(
        keys(&v["data"][0]),
        ["bytes", "kind", "note", "path", "sha256", "target"]
    );
    for k in [
        "mode",
        "bubblewrap",
        "network",
        "seccomp",
        "memory_limit_mb",
        "time_limit_s",
    ] {
        assert!(v["sandbox"].get(k).is_some(), "sandbox.{k} missing: {json}");
    }
    for k in ["cpu_model", "gpus", "cuda_version", "probed_on"] {
        assert!(v["machine"].get(k).is_some(), "machine.{k} missing: {json}");
    }
    let back: RunCard = serde_json::from_str(&json).expect("reads back");
    assert_eq!(back, c);
}

#[test]
fn the_package_hash_is_the_sha256_of_the_lines() {
    // `printf 'numpy==1.26.4\npandas==2.2.0\n' | sha256sum`
    assert_eq!(
        packages_sha256(&["numpy==1.26.4".into(), "pandas==2.2.0".into()]),
        "a781a07ae707b5943c1e26556a95a73c7eb6057461a594fa0f688104a128427b"
    );
    assert_eq!(
        packages_sha256(&[]),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}

#[test]
fn the_data_walk_names_links_and_special_files_and_opens_neither() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    std::fs::create_dir_all(data.join("sub")).expect("mkdir");
    std::fs::write(data.join("sub/a.csv"), b"x,y\n1,2\n").expect("write");
    std::os::unix::fs::symlink("/etc/passwd", data.join("passwd")).expect("symlink");
    std::os::unix::fs::symlink("/", data.join("root")).expect("symlink");
    let fifo = data.join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let walked = probe::data(&data);
    let paths: Vec<&str> = walked.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(
        paths,
        ["data/passwd", "data/pipe", "data/root", "data/sub/a.csv"]
    );
    assert_eq!(walked[0].kind, DataKind::Link);
    assert_eq!(walked[0].target.as_deref(), Some("/etc/passwd"));
    assert_eq!(walked[0].sha256, None);
    assert_eq!(walked[1].kind, DataKind::Other);
    assert_eq!(
        walked[2].kind,
        DataKind::Link,
        "a link to a folder is not walked"
    );
    // `printf 'x,y\n1,2\n' | sha256sum`
    assert_eq!(walked[3].bytes, Some(8));
    assert_eq!(
        walked[3].sha256.as_deref(),
        Some(super::super::trust::sha256_hex(b"x,y\n1,2\n").as_str())
    );
}

#[test]
fn a_data_folder_that_is_a_link_is_named_not_walked() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::os::unix::fs::symlink("/etc", dir.path().join("data")).expect("symlink");
    let walked = probe::data(&dir.path().join("data"));
    assert_eq!(walked.len(), 1);
    assert_eq!(walked[0].kind, DataKind::Link);
    assert_eq!(walked[0].target.as_deref(), Some("/etc"));
}

#[test]
fn an_interpreter_inside_the_run_folder_is_never_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ws = dir.path().join("h-e1");
    let bin = ws.join("venv/bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    let marker = dir.path().join("ran");
    let python = bin.join("python3");
    std::fs::write(
        &python,
        format!("#!/bin/sh\ntouch {}\necho 3.99\n", marker.display()),
    )
    .expect("write");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path_var = bin.display().to_string();
    for argv0 in [
        python.display().to_string(),
        "python3".into(),
        "venv/bin/python3".into(),
    ] {
        let found = probe::interpreter(&argv0, Some(&path_var), &ws);
        assert_eq!(found.version, None, "{argv0}");
        assert!(
            found
                .error
                .as_deref()
                .is_some_and(|e| e.contains("inside the run folder")),
            "{argv0}: {found:?}"
        );
    }
    assert!(!marker.exists(), "the workspace's interpreter ran");
}

#[test]
fn a_named_input_is_hashed_or_named_by_its_full_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("extra.csv");
    std::fs::write(&file, b"x,y\n1,2\n").expect("write");
    let got = probe::input(&file);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].path, file.display().to_string());
    assert_eq!(
        got[0].sha256.as_deref(),
        Some(super::super::trust::sha256_hex(b"x,y\n1,2\n").as_str())
    );
    let link = dir.path().join("link.csv");
    std::os::unix::fs::symlink("/etc/passwd", &link).expect("symlink");
    assert_eq!(probe::input(&link)[0].kind, DataKind::Link);
    let missing = probe::input(&dir.path().join("missing.csv"));
    assert!(
        missing[0].sha256.is_none()
            && missing[0]
                .note
                .as_deref()
                .is_some_and(|n| n.contains("not read")),
        "{missing:?}"
    );
}

#[test]
fn the_gpus_the_job_got_and_the_cuda_version_are_read_from_nvidia_smi() {
    let csv = "0, GPU-aaaa, NVIDIA H100 80GB HBM3, 550.54.15, 81559\n\
               1, GPU-bbbb, NVIDIA H100 80GB HBM3, 550.54.15, 81559\n\
               2, GPU-cccc, NVIDIA A10, [N/A], [N/A]\n";
    let got = probe::parse_gpus(csv, "GPU-bbbb,2");
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0].uuid, "GPU-bbbb");
    assert_eq!(got[0].name, "NVIDIA H100 80GB HBM3");
    assert_eq!(got[0].driver.as_deref(), Some("550.54.15"));
    assert_eq!(got[0].memory_mib, Some(81559));
    assert_eq!((got[1].driver.as_deref(), got[1].memory_mib), (None, None));
    assert!(
        probe::parse_gpus(csv, "").is_empty(),
        "a CPU job lists none"
    );
    let banner = "+-----------------------------------------------------------------------------+\n\
                  | NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4     |\n";
    assert_eq!(probe::parse_cuda(banner).as_deref(), Some("12.4"));
    assert_eq!(probe::parse_cuda("no banner"), None);
}

/// A virtual environment made by the host's `python3`, and that interpreter's own path.
fn venv(at: &Path) -> (PathBuf, PathBuf) {
    let made = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(at)
        .status()
        .expect("python3 runs (the run card needs it)");
    assert!(made.success(), "python3 -m venv --without-pip: {made}");
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3");
    let real = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    (at.join("bin/python3"), real)
}

#[test]
fn the_package_list_is_asked_again_only_after_an_install_and_a_shim_every_time() {
    use super::super::run_card_cache as cache;
    let dir = tempfile::tempdir().expect("tempdir");
    let ws = dir.path().join("run/h-e1");
    std::fs::create_dir_all(&ws).expect("ws");
    let (python, real) = venv(&dir.path().join("env"));
    let shim_dir = dir.path().join("shims");
    std::fs::create_dir(&shim_dir).expect("shims");
    let shim = shim_dir.join("python3");
    std::fs::write(
        &shim,
        format!("#!/bin/sh\nexec '{}' \"$@\"\n", real.display()),
    )
    .expect("shim");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let ask = |p: &Path| probe::interpreter(&p.display().to_string(), None, &ws);

    // Just made: a change this recent may not show in the folders' times, so it is not kept.
    let first = ask(&python);
    assert_eq!(first.error, None, "{first:?}");
    assert_eq!(ask(&python), first);
    assert_eq!(cache::asked(&python), 2);
    std::thread::sleep(Duration::from_millis(2100));
    let settled = ask(&python);
    assert_eq!(settled, first);
    assert_eq!(ask(&python), first);
    assert_eq!(ask(&python), first);
    assert_eq!(cache::asked(&python), 3, "a settled answer is kept");

    // An install adds a `*.dist-info` folder to site-packages: asked again, and listed.
    let lib = std::fs::read_dir(dir.path().join("env/lib"))
        .expect("lib")
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("python"))
        .expect("lib/python3.x")
        .path();
    let info = lib.join("site-packages/foo_pkg-1.2.dist-info");
    std::fs::create_dir_all(&info).expect("dist-info");
    std::fs::write(
        info.join("METADATA"),
        "Metadata-Version: 2.1\nName: foo-pkg\nVersion: 1.2\n",
    )
    .expect("METADATA");
    let installed = ask(&python);
    assert_eq!(cache::asked(&python), 4);
    assert!(
        installed.packages.contains(&"foo-pkg==1.2".to_string()),
        "{installed:?}"
    );
    assert_ne!(installed.packages_sha256, first.packages_sha256);

    // A script picks its interpreter by settings youra does not see: asked every time.
    let by_shim = ask(&shim);
    assert_eq!(by_shim.error, None, "{by_shim:?}");
    ask(&shim);
    assert_eq!(cache::asked(&shim), 2);
}
