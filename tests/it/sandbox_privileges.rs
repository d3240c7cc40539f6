//! The sandbox leaves no privilege behind (issue 39, item 3b), tried from the attacker's
//! side with real experiments in the real sandbox: a set-uid copy of bash, a file capability
//! written from a nested user namespace, a FIFO as the metrics file and as the log, a sparse
//! 8 GiB result. Each is refused inside, or removed after the job and named as a violation;
//! youra never hangs; run folders and workspaces are private to their owner. Needs
//! bubblewrap (fails naming it), like `tests/it/sandbox_root.rs`; works as root (CI) and as
//! another user (the parts that plant a capability from outside need CAP_SETFCAP and say so).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use youra::exec::{
    Availability, Backend, GpuPool, Job, JobOutcome, LocalBackend, SandboxMode, probe_sandbox,
};

fn require_bwrap() {
    match probe_sandbox(std::env::var("PATH").ok().as_deref()) {
        Availability::Works(_) => {}
        other => panic!(
            "these tests need a working bubblewrap: install it with `apt-get install -y bubblewrap` ({other:?})"
        ),
    }
}

fn workspace() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("youra-priv-")
        .tempdir()
        .unwrap_or_else(|e| panic!("temp dir: {e}"));
    let ws = dir.path().join("h-e1");
    std::fs::create_dir_all(ws.join("code")).unwrap_or_else(|e| panic!("mkdir: {e}"));
    let ws = ws.canonicalize().unwrap_or_else(|e| panic!("{e}"));
    (dir, ws)
}

/// Runs `script` (Python) as the experiment, sandboxed, with `limit` of time.
fn run(ws: &Path, script: &str, limit: Duration) -> (JobOutcome, String, Duration) {
    require_bwrap();
    std::fs::write(ws.join("code/attack.py"), script).unwrap_or_else(|e| panic!("{e}"));
    let mut job = Job::new(ws, vec!["python3".into(), "attack.py".into()]);
    job.sandbox = SandboxMode::Required;
    job.time_limit = limit;
    job.grace = Duration::from_millis(500);
    let backend = LocalBackend::with_gpus(GpuPool::new(Vec::new()));
    let t0 = Instant::now();
    let running = match backend.start(&job) {
        Ok(r) => r,
        Err(e) => panic!("the experiment did not start: {e}"),
    };
    // Polled, not waited on: a youra that hangs on what the job left fails the test.
    let outcome = loop {
        if let Some(o) = running.try_outcome() {
            break o;
        }
        assert!(
            t0.elapsed() < limit + Duration::from_secs(30),
            "youra has not collected the job {:?} after its limit: it hangs",
            t0.elapsed()
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = t0.elapsed();
    let log = std::fs::read_to_string(ws.join("results/run.log")).unwrap_or_default();
    (outcome, log, took)
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path).map_or(0, |m| m.permissions().mode() & 0o7777)
}

/// Every regular file under `dir` with a set-id bit (no link followed).
fn set_id_files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let Ok(m) = std::fs::symlink_metadata(e.path()) else {
            continue;
        };
        if m.is_dir() {
            out.extend(set_id_files(&e.path()));
        } else if m.is_file() && m.permissions().mode() & 0o6000 != 0 {
            out.push(e.path().display().to_string());
        }
    }
    out
}

const SETUID: &str = r#"
import os, shutil, subprocess
shutil.copy("/bin/bash", "x")
r = subprocess.run(["chmod", "u+s", "x"], capture_output=True, text=True)
print("chmod_rc=%d %s" % (r.returncode, r.stderr.strip()))
for name, call in [("os.chmod", lambda: os.chmod("x", 0o4755)),
                   ("os.fchmod", lambda: os.fchmod(os.open("x", os.O_RDONLY), 0o6755)),
                   ("dir_setgid", lambda: os.chmod(".", 0o2755))]:
    try:
        call()
        print(name + "=done")
    except OSError as e:
        print(name + "=errno%d" % e.errno)
print("mode=%o" % (os.stat("x").st_mode & 0o7777))
"#;

#[test]
fn a_set_uid_copy_of_bash_is_refused_and_none_is_left() {
    let (_dir, ws) = workspace();
    let (outcome, log, _) = run(&ws, SETUID, Duration::from_secs(60));
    assert!(outcome.sandboxed && outcome.exit.success(), "{log}");
    // Refused inside, by every chmod a program uses (the seccomp filter).
    assert!(log.contains("chmod_rc=1"), "{log}");
    assert!(log.contains("Operation not permitted"), "{log}");
    for refused in ["os.chmod=errno1", "os.fchmod=errno1", "dir_setgid=errno1"] {
        assert!(log.contains(refused), "{refused}: {log}");
    }
    assert!(log.contains("mode=755"), "{log}");
    // And nothing set-id is left in the workspace.
    assert_eq!(set_id_files(&ws), Vec::<String>::new());
    assert_eq!(mode(&ws.join("code/x")), 0o755);
    assert!(outcome.violations.is_empty(), "{:?}", outcome.violations);
}

#[test]
fn a_set_id_file_left_in_a_workspace_is_removed_after_the_job_and_named() {
    // As if a job under an older bwrap (no --seccomp) had left it: the walk after every job
    // is the guard that does not depend on the filter.
    let (_dir, ws) = workspace();
    std::fs::create_dir_all(ws.join("results/deep/er")).unwrap_or_else(|e| panic!("{e}"));
    let planted = ws.join("results/deep/er/sh");
    std::fs::copy("/bin/sh", &planted).unwrap_or_else(|e| panic!("{e}"));
    std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o4755))
        .unwrap_or_else(|e| panic!("{e}"));
    let (outcome, log, _) = run(&ws, "print('honest')\n", Duration::from_secs(60));
    assert!(log.contains("honest"), "{log}");
    assert!(!planted.exists(), "the set-uid file is still there");
    let named: Vec<&String> = outcome
        .violations
        .iter()
        .filter(|v| v.contains("results/deep/er/sh") && v.contains("set-uid"))
        .collect();
    assert_eq!(named.len(), 1, "{:?}", outcome.violations);
}

const NESTED_USERNS: &str = r#"
import ctypes, os, shutil, subprocess
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER = 0x10000000
rc = libc.unshare(CLONE_NEWUSER)
print("unshare=%s" % ("done" if rc == 0 else "errno%d" % ctypes.get_errno()))
shutil.copy(os.path.realpath(shutil.which("python3")), "py")
os.chmod("py", 0o755)
if shutil.which("unshare") and shutil.which("setcap"):
    r = subprocess.run(["unshare", "-U", "-r", "setcap", "cap_setuid+ep", "py"],
                       capture_output=True, text=True)
    print("setcap_rc=%d %s" % (r.returncode, r.stderr.strip()))
# Without a namespace of its own the job cannot write the attribute either.
cap = bytes.fromhex("01000002" "80000000" "00000000" "0000000000000000")
try:
    os.setxattr("py", "security.capability", cap)
    print("setxattr=done")
except OSError as e:
    print("setxattr=errno%d" % e.errno)
"#;

#[test]
fn a_file_capability_from_a_nested_user_namespace_is_refused() {
    let (_dir, ws) = workspace();
    let (outcome, log, _) = run(&ws, NESTED_USERNS, Duration::from_secs(60));
    assert!(outcome.sandboxed && outcome.exit.success(), "{log}");
    // --disable-userns: the kernel refuses a nested user namespace (ENOSPC: the limit is 0
    // inside; EPERM on kernels that say it so).
    assert!(
        log.contains("unshare=errno28") || log.contains("unshare=errno1"),
        "a nested user namespace was created: {log}"
    );
    assert!(!log.contains("setcap_rc=0"), "{log}");
    assert!(log.contains("setxattr=errno1"), "{log}");
    // Whatever happened inside, no copy of python carries a capability now.
    let py = ws.join("code/py");
    assert!(
        !py.exists() || xattr(&py, "security.capability").is_none(),
        "py keeps a file capability: {:?}",
        outcome.violations
    );
}

/// The value of attribute `name` on `path`, if it has one.
fn xattr(path: &Path, name: &str) -> Option<Vec<u8>> {
    use std::os::unix::ffi::OsStrExt;
    let p = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    let n = std::ffi::CString::new(name).ok()?;
    let mut buf = vec![0u8; 256];
    // SAFETY: NUL-terminated strings; `buf` is writable for its length.
    let len =
        unsafe { libc::lgetxattr(p.as_ptr(), n.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    (len >= 0).then(|| buf[..len as usize].to_vec())
}

#[test]
fn a_file_capability_left_in_a_workspace_is_removed_after_the_job() {
    let (_dir, ws) = workspace();
    let py = ws.join("results/py");
    std::fs::create_dir_all(ws.join("results")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&py, "x").unwrap_or_else(|e| panic!("{e}"));
    // What `setcap cap_setuid+ep` writes: vfs_cap_data revision 2, effective, cap_setuid.
    let cap: Vec<u8> = [0x0200_0001u32, 1 << 7, 0, 0, 0]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let ok = {
        use std::os::unix::ffi::OsStrExt;
        let p = std::ffi::CString::new(py.as_os_str().as_bytes()).unwrap_or_default();
        // SAFETY: NUL-terminated strings and a value buffer of its length.
        unsafe {
            libc::setxattr(
                p.as_ptr(),
                c"security.capability".as_ptr(),
                cap.as_ptr().cast(),
                cap.len(),
                0,
            ) == 0
        }
    };
    // SAFETY: geteuid has no preconditions. As root (CI) the planting must work.
    if !ok && unsafe { libc::geteuid() } == 0 {
        panic!(
            "root could not set security.capability: {}",
            std::io::Error::last_os_error()
        );
    }
    if !ok {
        eprintln!("this user lacks CAP_SETFCAP: the planting half is skipped");
        return;
    }
    assert!(xattr(&py, "security.capability").is_some());
    let (outcome, log, _) = run(&ws, "print('honest')\n", Duration::from_secs(60));
    assert!(log.contains("honest"), "{log}");
    assert!(!py.exists(), "the capability file is still there");
    assert!(
        outcome
            .violations
            .iter()
            .any(|v| v.contains("results/py") && v.contains("security.capability")),
        "{:?}",
        outcome.violations
    );
}

const FIFOS: &str = r#"
import os
r = os.environ["YOURA_RESULTS_DIR"]
os.mkfifo(os.environ["YOURA_METRICS_FILE"])
os.mkfifo(os.path.join(r, "experiment_results.json"))
os.unlink(os.path.join(r, "run.log"))
os.mkfifo(os.path.join(r, "run.log"))
"#;

#[test]
fn fifos_as_the_metrics_results_and_log_files_do_not_hang_youra() {
    let (_dir, ws) = workspace();
    let limit = Duration::from_secs(20);
    let (outcome, _, took) = run(&ws, FIFOS, limit);
    assert!(
        took < limit,
        "youra took {took:?} for a job that ends at once"
    );
    for name in ["metrics.jsonl", "experiment_results.json", "run.log"] {
        let path = ws.join("results").join(name);
        assert!(
            !std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()),
            "{name} is still a FIFO"
        );
        assert!(
            outcome
                .violations
                .iter()
                .any(|v| v.contains(&format!("results/{name} was a FIFO"))),
            "{name}: {:?}",
            outcome.violations
        );
    }
}

#[test]
fn a_sparse_8_gib_result_is_removed_and_recorded_quickly() {
    let (_dir, ws) = workspace();
    let script = "import os\nwith open(os.path.join(os.environ['YOURA_RESULTS_DIR'], 'big'), 'wb') as f:\n    f.truncate(8 << 30)\nprint('made')\n";
    let (outcome, log, took) = run(&ws, script, Duration::from_secs(60));
    assert!(log.contains("made"), "{log}");
    println!("a sparse 8 GiB result: the job and its collection took {took:?}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(!ws.join("results/big").exists());
    assert!(
        outcome
            .violations
            .iter()
            .any(|v| v.contains("results/big was 8589934592 bytes")),
        "{:?}",
        outcome.violations
    );
}

#[test]
fn a_new_run_folder_and_a_workspace_that_ran_are_private_to_their_owner() {
    let parent = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let run_dir = parent.path().join("runs/new-run");
    let opts = youra::engine::init::InitOptions {
        topic: "privacy".into(),
        name: None,
        mode: "UNATTENDED".into(),
        llm_toml: String::new(),
    };
    youra::engine::init::init(&run_dir, &opts).unwrap_or_else(|e| panic!("init: {e}"));
    assert_eq!(mode(&run_dir), 0o700);
    // A workspace made open (as an older youra made them) is private once a job ran in it.
    let (_dir, ws) = workspace();
    std::fs::set_permissions(&ws, std::fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|e| panic!("{e}"));
    let (_, log, _) = run(&ws, "print('ran')\n", Duration::from_secs(60));
    assert!(log.contains("ran"), "{log}");
    assert_eq!(mode(&ws), 0o700);
}

#[test]
fn a_coding_agent_that_leaves_a_fifo_in_code_is_not_accepted() {
    use youra::exec::agent::{AgentConfig, AgentError, AgentTask, run_agent};
    require_bwrap();
    let (_dir, ws) = workspace();
    std::fs::write(ws.join("03_plan.md"), "# Plan\n").unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(ws.join("03_tasks.md"), "- [ ] main.py\n").unwrap_or_else(|e| panic!("{e}"));
    // The agent works in code/ (its folder) but leaves a FIFO and a sparse 8 GiB file there.
    let agent = "printf 'print(1)\\n' > main.py\nmkfifo pipe\ntruncate -s 8G weights.bin\n";
    std::fs::write(ws.join("agent.sh"), agent).unwrap_or_else(|e| panic!("{e}"));
    let cfg: AgentConfig = toml::from_str(&format!(
        "command = [\"sh\", {:?}]\nmodel = \"fake-agent\"\nsandbox = \"required\"\nnetwork = false\ntime_limit_s = 30",
        ws.join("agent.sh").display().to_string()
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    let task = AgentTask {
        workspace: &ws,
        plan: &ws.join("03_plan.md"),
        tasks: &ws.join("03_tasks.md"),
        results: "{\"metrics\": {...}}",
    };
    let ledger = youra::llm::ledger::Ledger::new(ws.join("ledger.tsv"), Default::default());
    let key = youra::llm::CallKey::new("coder", "coding_validation", Some("h-e1"), 1);
    let backend = LocalBackend::with_gpus(GpuPool::new(Vec::new()));
    let err = match run_agent(&backend, &cfg, &task, &ledger, &key) {
        Ok(_) => panic!("the agent's work was accepted with a FIFO and an 8 GiB file in code/"),
        Err(e) => e,
    };
    let AgentError::Escaped { violations, .. } = &err else {
        panic!("expected a confinement error, got {err}");
    };
    let text: Vec<String> = violations.iter().map(ToString::to_string).collect();
    assert!(
        text.iter().any(|v| v.contains("code/pipe was a FIFO")),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|v| v.contains("code/weights.bin was 8589934592 bytes")),
        "{text:?}"
    );
    assert!(!ws.join("code/pipe").exists() && !ws.join("code/weights.bin").exists());
    assert!(ws.join("code/main.py").is_file());
}

/// A Slurm job's batch script, run under bash as a node would (no cluster needed): the
/// filter it feeds bwrap on its descriptor holds there too.
#[test]
fn a_slurm_job_script_hands_bwrap_the_same_filter() {
    use std::ffi::OsString;
    use youra::exec::harden::{Hardening, features};
    use youra::exec::sandbox::{SandboxSpec, bwrap_args, toolchain};
    use youra::exec::slurm::script::{SECCOMP_FD, ScriptSpec, render};
    let Availability::Works(bwrap) = probe_sandbox(std::env::var("PATH").ok().as_deref()) else {
        panic!("these tests need a working bubblewrap: `apt-get install -y bubblewrap`");
    };
    let Some(program) = youra::exec::seccomp::native_filter() else {
        return; // no table for this machine: the walk after the job is the guard
    };
    assert!(features(&bwrap).seccomp, "bwrap without --seccomp");
    let (_dir, ws) = workspace();
    let code = ws.join("code");
    let spec = SandboxSpec {
        workspace: &ws,
        workdir: &code,
        network: false,
        gpu_devices: Vec::new(),
        read_only: &[],
        toolchain: &toolchain().prefixes,
        hardening: Hardening {
            disable_userns: features(&bwrap).disable_userns,
            seccomp_fd: Some(SECCOMP_FD),
        },
    };
    let mut command = vec![bwrap.into_os_string()];
    command.extend(bwrap_args(&spec));
    let attack = "cp /bin/sh x; chmod u+s x; echo chmod_rc=$?";
    command.extend(["sh", "-c", attack].map(OsString::from));
    let env = vec![("PATH".to_string(), "/usr/bin:/bin".to_string())];
    let text = render(&ScriptSpec {
        cwd: &ws,
        env: &env,
        slurm_gpus: false,
        limits: youra::exec::ChildLimits::new(None, None),
        max_processes: None,
        command: &command,
        seccomp: Some(&program),
    })
    .unwrap_or_else(|e| panic!("render: {e}"));
    let out = std::process::Command::new("bash")
        .args(["-c", &text])
        .output()
        .unwrap_or_else(|e| panic!("bash: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("chmod_rc=1"),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(mode(&code.join("x")) & 0o6000, 0);
}

/// A workspace handed over with FIFOs as the log and the metrics file (a shared run folder,
/// or an older youra's): the next job starts, at once, and says what it removed.
#[test]
fn fifos_left_before_a_job_do_not_hang_its_start() {
    require_bwrap();
    let (_dir, ws) = workspace();
    std::fs::create_dir_all(ws.join("results")).unwrap_or_else(|e| panic!("{e}"));
    for name in ["run.log", "metrics.jsonl"] {
        let c = std::ffi::CString::new(ws.join("results").join(name).to_str().unwrap_or_default())
            .unwrap_or_default();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    }
    std::fs::write(ws.join("code/attack.py"), "print('started')\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let (tx, rx) = std::sync::mpsc::channel();
    let w = ws.clone();
    std::thread::spawn(move || {
        let mut job = Job::new(&w, vec!["python3".into(), "attack.py".into()]);
        job.sandbox = SandboxMode::Required;
        job.time_limit = Duration::from_secs(30);
        let backend = LocalBackend::with_gpus(GpuPool::new(Vec::new()));
        let _ = tx.send(
            backend
                .start(&job)
                .map(|r| r.wait())
                .map_err(|e| e.to_string()),
        );
    });
    let outcome = rx
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("the job's start hangs on a FIFO"))
        .unwrap_or_else(|e| panic!("the job did not start: {e}"));
    let log = std::fs::read_to_string(ws.join("results/run.log")).unwrap_or_default();
    assert!(log.contains("started"), "{log}");
    for name in ["run.log", "metrics.jsonl"] {
        assert!(
            outcome
                .warnings
                .iter()
                .any(|w| w.contains("a FIFO, socket or device planted as") && w.contains(name)),
            "{name}: {:?}",
            outcome.warnings
        );
    }
}
