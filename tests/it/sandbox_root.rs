//! The sandbox holds when youra runs as root (as in CI and on many lab servers), and it fails
//! closed: probes run as real experiment code inside bubblewrap and report what they could
//! do (capabilities, a file-handle escape, kernel knobs, host files); without `bwrap` on PATH
//! a required sandbox refuses with the install hint, `off` runs and says so; a misspelt or
//! moved setting is an error with file and line. Needs bubblewrap (fails naming it).

use std::path::Path;
use std::time::Duration;

use youra::exec::{Availability, Backend, GpuPool, Job, LocalBackend, SandboxMode, probe_sandbox};

fn require_bwrap() {
    match probe_sandbox(std::env::var("PATH").ok().as_deref()) {
        Availability::Works(_) => {}
        other => panic!(
            "these tests need a working bubblewrap: install it with `apt-get install -y bubblewrap` ({other:?})"
        ),
    }
}

/// What the probe reports, one `key=value` a line: run inside the sandbox as an experiment.
const PROBE: &str = r#"
import ctypes, ctypes.util, os, errno, sys
libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
status = open("/proc/self/status").read().splitlines()
cap = [l.split()[1] for l in status if l.startswith("CapEff:")][0]
print("capeff=" + cap)
print("uid=%d gid=%d" % (os.getuid(), os.getgid()))
# The handle escape: a handle for the workspace folder, then open_by_handle_at on its mount
# (with CAP_DAC_READ_SEARCH a forged handle opens any inode of the host's file system).
class Handle(ctypes.Structure):
    _fields_ = [("bytes", ctypes.c_uint), ("type", ctypes.c_int), ("f", ctypes.c_ubyte * 128)]
h = Handle(); h.bytes = 128
mount_id = ctypes.c_int()
ws = sys.argv[1].encode()
if libc.name_to_handle_at(-100, ws, ctypes.byref(h), ctypes.byref(mount_id), 0) != 0:
    print("name_to_handle=errno%d" % ctypes.get_errno())
else:
    dirfd = os.open(sys.argv[1], os.O_RDONLY)
    fd = libc.open_by_handle_at(dirfd, ctypes.byref(h), os.O_RDONLY)
    print("open_by_handle=" + ("opened" if fd >= 0 else "errno%d" % ctypes.get_errno()))
# Kernel knobs: write back the value already there, so a sandbox that fails to hold does
# no harm to the machine running the test.
try:
    cur = open("/proc/sys/kernel/core_pattern").read()
    with open("/proc/sys/kernel/core_pattern", "w") as f:
        f.write(cur)
    print("proc_sys=written")
except OSError as e:
    print("proc_sys=errno%d" % e.errno)
try:
    print("host_file=read:" + open(sys.argv[2]).read().strip())
except OSError as e:
    print("host_file=errno%d" % e.errno)
try:
    open("/etc/youra-root-probe", "w").write("x")
    print("etc_write=written")
except OSError as e:
    print("etc_write=errno%d" % e.errno)
"#;

#[test]
fn a_sandboxed_experiment_run_as_root_has_no_capabilities_and_no_escape() {
    require_bwrap();
    let ws = tempfile::Builder::new()
        .prefix("youra-root-")
        .tempdir()
        .unwrap_or_else(|e| panic!("temp dir: {e}"));
    std::fs::create_dir(ws.path().join("code")).unwrap_or_else(|e| panic!("mkdir: {e}"));
    std::fs::write(ws.path().join("code/probe.py"), PROBE).unwrap_or_else(|e| panic!("{e}"));
    // A host file outside every bind, readable only by its owner.
    let host = tempfile::Builder::new()
        .prefix("youra-host-")
        .tempdir_in("/var/tmp")
        .unwrap_or_else(|e| panic!("temp dir in /var/tmp: {e}"));
    let secret = host.path().join("secret.txt");
    std::fs::write(&secret, "host-secret\n").unwrap_or_else(|e| panic!("{e}"));
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let ws_path = ws.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let mut job = Job::new(
        &ws_path,
        vec![
            "python3".into(),
            "probe.py".into(),
            ws_path.display().to_string(),
            secret.display().to_string(),
        ],
    );
    job.sandbox = SandboxMode::Required;
    job.time_limit = Duration::from_secs(60);
    let backend = LocalBackend::with_gpus(GpuPool::new(Vec::new()));
    let outcome = match backend.start(&job) {
        Ok(r) => r.wait(),
        Err(e) => panic!("the probe did not start: {e}"),
    };
    let log = std::fs::read_to_string(ws_path.join("results/run.log")).unwrap_or_default();
    assert!(outcome.sandboxed, "{log}");
    assert!(outcome.exit.success(), "{log}");
    assert!(
        log.contains("capeff=0000000000000000"),
        "capabilities inside: {log}"
    );
    assert!(log.contains("uid=65534 gid=65534"), "nobody inside: {log}");
    assert!(
        log.contains("open_by_handle=errno1") || log.contains("name_to_handle=errno"),
        "the handle escape must fail with EPERM: {log}"
    );
    assert!(!log.contains("open_by_handle=opened"), "{log}");
    assert!(
        log.contains("proc_sys=errno30") || log.contains("proc_sys=errno13"),
        "/proc/sys must be read-only: {log}"
    );
    assert!(
        log.contains("host_file=errno2"),
        "no host file outside the binds: {log}"
    );
    assert!(!log.contains("host-secret"), "{log}");
    assert!(log.contains("etc_write=errno"), "{log}");
    assert!(!Path::new("/etc/youra-root-probe").exists());
    // What the experiment wrote belongs to youra's user outside, not to a stranger.
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(ws_path.join("results/run.log")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        meta.uid(),
        unsafe_geteuid(),
        "files written inside are youra's"
    );
}

fn unsafe_geteuid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// A PATH holding only python3, sh, env and git (no bwrap), as on a machine without
/// bubblewrap (git: the plan tree keeps each node's code in it).
fn path_without_bwrap(dir: &Path) -> String {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap_or_else(|e| panic!("{e}"));
    for tool in ["python3", "sh", "env", "git"] {
        if let Some(real) = which(tool) {
            let _ = std::os::unix::fs::symlink(real, bin.join(tool));
        }
    }
    bin.display().to_string()
}

fn which(tool: &str) -> Option<std::path::PathBuf> {
    std::env::var("PATH")
        .ok()?
        .split(':')
        .map(|d| Path::new(d).join(tool))
        .find(|p| p.is_file())
}

fn youra_with_path(args: &[&str], path: &str) -> (i32, String) {
    youra_with_config(args, path, Path::new("/nonexistent-youra-config"))
}

/// [`youra_with_path`] with the researcher's config folder at `config` (where `youra trust`
/// records what they allowed).
fn youra_with_config(args: &[&str], path: &str, config: &Path) -> (i32, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(args)
        .env("PATH", path)
        .env("YOURA_CONFIG_DIR", config)
        .output()
        .unwrap_or_else(|e| panic!("youra runs: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn without_bwrap_a_required_sandbox_stops_the_run_with_the_install_hint() {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = path_without_bwrap(tmp.path());
    let run = tmp.path().join("run");
    let (code, out) = youra_with_path(
        &[
            "demo",
            "--headless",
            "--fast",
            "--dir",
            run.to_str().unwrap_or_default(),
        ],
        &path,
    );
    assert_ne!(
        code, 0,
        "the demo cannot complete without its sandbox: {out}"
    );
    assert!(out.contains("bubblewrap"), "names the package: {out}");
    let events = std::fs::read_to_string(run.join("events.jsonl")).unwrap_or_default();
    let kinds: Vec<serde_json::Value> = events
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let of = |k: &str| kinds.iter().filter(|e| e["kind"] == k).collect::<Vec<_>>();
    // Nothing was repaired: the machine's fault is not the code's.
    assert!(
        of("repair").is_empty(),
        "no repair for a missing sandbox: {events}"
    );
    assert!(
        of("experiment_exit").is_empty(),
        "no experiment ran: {events}"
    );
    let stops = of("stop");
    assert_eq!(stops.len(), 1, "{events}");
    let why = stops[0].to_string();
    assert!(
        why.contains("bubblewrap") && why.contains("apt-get install"),
        "{why}"
    );
    let vsa = std::fs::read_to_string(run.join("verification_state.yaml")).unwrap_or_default();
    assert!(
        vsa.contains("MUST_STOP") || vsa.contains("STOPPED"),
        "{vsa}"
    );
    // `youra doctor` says so before a run.
    let (code, out) = youra_with_path(&["doctor", run.to_str().unwrap_or_default()], &path);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("sandbox: required") && out.contains("bubblewrap"),
        "{out}"
    );
    // `off` is the researcher's explicit choice: doctor shows it, and so does status.
    let toml = run.join("youra.toml");
    let text = std::fs::read_to_string(&toml).unwrap_or_default();
    std::fs::write(&toml, format!("{text}\n[exec]\nsandbox = \"off\"\n"))
        .unwrap_or_else(|e| panic!("{e}"));
    // The researcher's own choice, recorded as theirs: doctor then acts on it.
    let config = tmp.path().join("config");
    let (code, out) =
        youra_with_config(&["trust", run.to_str().unwrap_or_default()], &path, &config);
    assert_eq!(code, 0, "{out}");
    let (_, out) = youra_with_config(
        &["doctor", run.to_str().unwrap_or_default()],
        &path,
        &config,
    );
    assert!(out.contains("sandbox: OFF"), "{out}");
    let (_, out) = youra_with_path(&["status", run.to_str().unwrap_or_default()], &path);
    assert!(out.contains("Sandbox:    OFF"), "{out}");
}

#[test]
fn sandbox_settings_are_checked_with_file_and_line() {
    let run = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let dir = run.path().to_str().unwrap_or_default().to_string();
    let path = std::env::var("PATH").unwrap_or_default();
    // (youra.toml, what the error must name)
    let table: [(&str, &[&str]); 6] = [
        (
            "[exec]\nsandbox = \"requried\"\n",
            &["youra.toml", "line 2", "requried", "`required`", "`off`"],
        ),
        (
            "[exec]\nsandbox = \"auto\"\n",
            &["line 2", "auto", "`required`", "`off`"],
        ),
        (
            "# old\n[engine]\nsandbox = \"off\"\n",
            &["youra.toml", "line 3", "[exec] sandbox"],
        ),
        (
            "[engine]\nexperiment_time_limit_s = 1e20\n",
            &["youra.toml:2", "experiment_time_limit_s"],
        ),
        (
            "[engine]\nwait_poll_s = nan\n",
            &["youra.toml:2", "wait_poll_s"],
        ),
        (
            "[engine]\napproval_default = \"later\"\n",
            &["line 2", "later", "`reject`", "`stop`"],
        ),
    ];
    for (text, want) in table {
        std::fs::write(run.path().join("youra.toml"), text).unwrap_or_else(|e| panic!("{e}"));
        let (code, out) = youra_with_path(&["config", "show", &dir], &path);
        assert_ne!(code, 0, "{text}: {out}");
        for w in want {
            assert!(out.contains(w), "{text}: `{w}` missing in {out}");
        }
    }
    // A misspelt key in a checked table is an error naming the valid ones.
    std::fs::write(run.path().join("youra.toml"), "[exec]\nsandbx = \"off\"\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let (code, out) = youra_with_path(&["config", "show", &dir], &path);
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("sandbx") && out.contains("`sandbox`"), "{out}");
    // Elsewhere an unknown key is a warning naming the nearest valid one; the rest loads.
    std::fs::write(
        run.path().join("youra.toml"),
        "[run]\ntopik = \"x\"\n\n[exex]\nsandbox = \"off\"\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (code, out) = youra_with_path(&["config", "show", &dir], &path);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("youra.toml:2") && out.contains("`run.topik`"),
        "{out}"
    );
    assert!(out.contains("youra.toml:4: unknown key `exex`"), "{out}");
    assert!(out.contains("did you mean `exec`"), "{out}");
    assert!(out.contains("exec.sandbox = \"required\""), "{out}");
}
