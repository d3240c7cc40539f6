//! The bubblewrap sandbox: finding `bwrap`, checking that it can create namespaces here, and
//! the command line that wraps a job. See `docs/ARCHITECTURE.md`, "Executor", for why each
//! flag is there.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::harden::{Hardening, SeccompFd};
use super::job::SandboxMode;

/// The package that provides `bwrap`, named in every error about it.
pub(crate) const PACKAGE_HINT: &str =
    "install the `bubblewrap` package (e.g. `apt-get install -y bubblewrap`)";

/// Why the sandbox cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    #[error(
        "the sandbox is required but `bwrap` is not on PATH: {PACKAGE_HINT}, then resume the run; to run model-written code unconfined instead, set `sandbox = \"off\"` under [exec] in youra.toml"
    )]
    Missing,
    #[error(
        "the sandbox is required but `{bwrap}` cannot create a sandbox here: {detail}; it needs user namespaces (as a user: enable unprivileged user namespaces, e.g. `sysctl -w kernel.unprivileged_userns_clone=1` or, on Ubuntu, `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`), then resume the run"
    )]
    Broken { bwrap: PathBuf, detail: String },
}

/// What the back end found about bubblewrap (probed once per back end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Availability {
    Works(PathBuf),
    Missing,
    Broken { bwrap: PathBuf, detail: String },
}

/// Looks for `bwrap` on `path_var` (a PATH value) and runs it once with the flags a job uses.
pub fn probe(path_var: Option<&str>) -> Availability {
    let Some(bwrap) = find_on_path("bwrap", path_var) else {
        return Availability::Missing;
    };
    // The hardening every job gets is part of what must work here.
    let (hardening, seccomp) = match hardening(&bwrap) {
        Ok(h) => h,
        Err(e) => {
            return Availability::Broken {
                detail: format!("cannot prepare the seccomp filter: {e}"),
                bwrap,
            };
        }
    };
    let mut command = Command::new(&bwrap);
    command
        .args(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"])
        .args(["--ro-bind", "/proc/sys", "/proc/sys"])
        .args(CONFINE)
        .args(hardening.args())
        .args([
            "--unshare-net",
            "--unshare-pid",
            "--die-with-parent",
            "true",
        ])
        .env_clear()
        .stdin(Stdio::null());
    if let Some(fd) = seccomp {
        fd.pass_to(&mut command);
    }
    let output = command.output();
    match output {
        Ok(out) if out.status.success() => Availability::Works(bwrap),
        Ok(out) => Availability::Broken {
            detail: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            bwrap,
        },
        Err(e) => Availability::Broken {
            detail: e.to_string(),
            bwrap,
        },
    }
}

/// The hardening flags `bwrap` takes here (see `harden.rs`), and the seccomp program's
/// descriptor to hand to its process ([`SeccompFd::pass_to`]) when it takes one.
pub fn hardening(bwrap: &Path) -> std::io::Result<(Hardening, Option<SeccompFd>)> {
    let found = super::harden::features(bwrap);
    let seccomp = if found.seccomp {
        SeccompFd::native()?
    } else {
        None
    };
    let hardening = Hardening {
        disable_userns: found.disable_userns,
        seccomp_fd: seccomp.as_ref().map(SeccompFd::raw),
    };
    Ok((hardening, seccomp))
}

/// First executable file named `name` in the `:`-separated `path_var`.
pub(crate) fn find_on_path(name: &str, path_var: Option<&str>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    path_var?
        .split(':')
        .filter(|dir| !dir.is_empty())
        .map(|dir| Path::new(dir).join(name))
        .find(|p| {
            p.metadata()
                .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                .unwrap_or(false)
        })
}

/// The decision for one job: the `bwrap` to use (none only when the researcher turned the
/// sandbox off, with the warning every outcome carries), or why the job must not start.
pub fn decide(
    mode: SandboxMode,
    found: &Availability,
) -> Result<(Option<PathBuf>, Option<String>), SandboxError> {
    match (mode, found) {
        (SandboxMode::Off, _) => Ok((None, Some(OFF_WARNING.into()))),
        (SandboxMode::Required, Availability::Works(bwrap)) => Ok((Some(bwrap.clone()), None)),
        (SandboxMode::Required, Availability::Missing) => Err(SandboxError::Missing),
        (SandboxMode::Required, Availability::Broken { bwrap, detail }) => {
            Err(SandboxError::Broken {
                bwrap: bwrap.clone(),
                detail: detail.clone(),
            })
        }
    }
}

/// What every unsandboxed outcome says, and what `youra status` and the paper repeat.
pub const OFF_WARNING: &str = "sandbox off ([exec] sandbox = \"off\"): the experiment ran with this user's full view of the machine and its network";

/// The user the experiment is inside its own user namespace: `nobody`, with no capabilities.
pub(crate) const SANDBOX_UID: &str = "65534";

/// The confinement every sandboxed job gets, even when youra runs as root: its own user
/// namespace in which it is `nobody` with an empty capability set, so the kernel refuses
/// what needs a capability in the host's namespace (`open_by_handle_at` on a bind mount,
/// mounts, raw sockets, module loading). The uid maps to the invoking user outside, so files
/// it writes stay youra's; DAC checks still see that user, hence the read-only binds and the
/// read-only `/proc/sys` (core_pattern is checked by uid, not by capability).
const CONFINE: [&str; 7] = [
    "--unshare-user",
    "--uid",
    SANDBOX_UID,
    "--gid",
    SANDBOX_UID,
    "--cap-drop",
    "ALL",
];

/// What the wrapping needs to know about the job. Paths are absolute and canonical.
#[derive(Debug, Clone)]
pub struct SandboxSpec<'a> {
    pub workspace: &'a Path,
    pub workdir: &'a Path,
    pub network: bool,
    /// Bind the host's `/dev/nvidia*` nodes (a GPU job).
    pub gpu_devices: Vec<PathBuf>,
    /// Extra folders bound read-only (the run's `data/`).
    pub read_only: &'a [PathBuf],
    /// Interpreter installations outside the system folders (a pyenv, venv or conda
    /// Python), bound read-only so `python3` inside is the one the host runs.
    pub toolchain: &'a [PathBuf],
    /// No nested user namespace, no set-id chmod (what this bwrap supports).
    pub hardening: Hardening,
}

/// The system folders an experiment sees (read-only); a symlink among them (merged /usr)
/// is recreated as the same symlink.
const SYSTEM: [&str; 8] = [
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/opt/conda",
];

/// The parts of `/etc` programs need: name resolution, TLS roots, the loader's cache,
/// time zone, alternatives. No passwd, group, shadow, sudoers, ssh or machine secrets.
const ETC: [&str; 17] = [
    "/etc/resolv.conf",
    "/etc/hosts",
    "/etc/nsswitch.conf",
    "/etc/host.conf",
    "/etc/gai.conf",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/pki",
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/mime.types",
    "/etc/protocols",
    "/etc/services",
];

/// TLS private keys, hidden behind an empty tmpfs.
const SSL_PRIVATE: &str = "/etc/ssl/private";

/// Where HOME is inside the sandbox: in its private /tmp, so a fresh tmpfs.
pub(crate) const SANDBOX_HOME: &str = "/tmp/home";

/// The host's Python installation, found once: `python3` on PATH asked for its prefixes.
#[derive(Debug, Clone, Default)]
pub struct Toolchain {
    /// Installations outside [`SYSTEM`] to bind (e.g. `/root/.pyenv/versions/3.11.7`).
    pub prefixes: Vec<PathBuf>,
    /// The folder of the real `python3` executable, first on the sandbox's PATH (a pyenv
    /// shim would need the whole of `~/.pyenv`).
    pub bin: Option<PathBuf>,
}

pub fn toolchain() -> &'static Toolchain {
    static FOUND: std::sync::OnceLock<Toolchain> = std::sync::OnceLock::new();
    FOUND.get_or_init(|| {
        let script = "import os, sys; print(sys.base_prefix); print(sys.prefix); print(os.path.dirname(os.path.realpath(sys.executable)))";
        let Ok(out) = std::process::Command::new("python3")
            .args(["-c", script])
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
        else {
            return Toolchain::default();
        };
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let lines: Vec<PathBuf> = text.lines().map(PathBuf::from).collect();
        let outside = |p: &PathBuf| {
            p.is_absolute() && !SYSTEM.iter().any(|s| p.starts_with(s)) && p != Path::new("/")
        };
        let mut prefixes: Vec<PathBuf> = lines.iter().take(2).filter(|p| outside(p)).cloned().collect();
        prefixes.dedup();
        Toolchain {
            prefixes,
            bin: lines.get(2).cloned(),
        }
    })
}

/// The PATH inside the sandbox: the real Python's folder, then the system's.
pub(crate) fn sandbox_path() -> String {
    let system = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    match &toolchain().bin {
        Some(bin) => format!("{}:{system}", bin.display()),
        None => system.to_string(),
    }
}

/// The arguments before the job's own argv: `bwrap <these> -- <argv>`.
pub fn bwrap_args(spec: &SandboxSpec) -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::new();
    let mut add = |items: &[&std::ffi::OsStr]| args.extend(items.iter().map(|s| s.to_os_string()));
    let os = |s: &'static str| std::ffi::OsStr::new(s);
    // Only what experiments need, read-only: the system folders, a minimal /etc, /sys (CPU
    // and GPU topology), the Python in use. Not /root, /home, the run's other files or the
    // host's /tmp: what the code could print from them would reach the repair prompt.
    for dir in SYSTEM {
        let p = Path::new(dir);
        match std::fs::read_link(p) {
            Ok(target) => add(&[os("--symlink"), target.as_os_str(), p.as_os_str()]),
            Err(_) if p.is_dir() => add(&[os("--ro-bind"), p.as_os_str(), p.as_os_str()]),
            Err(_) => {}
        }
    }
    for f in ETC {
        add(&[os("--ro-bind-try"), os(f), os(f)]);
    }
    add(&[os("--ro-bind-try"), os("/sys"), os("/sys")]);
    // Private keys under /etc/ssl stay out (readable by owner bits: see CONFINE).
    if Path::new(SSL_PRIVATE).is_dir() {
        add(&[os("--tmpfs"), os(SSL_PRIVATE)]);
    }
    // Fresh minimal /dev (null, zero, urandom, tty, shm) and a /proc of the new pid
    // namespace whose kernel knobs are read-only: `/proc/sys` bound over itself read-only
    // (bwrap leaves it writable), and the sysrq trigger.
    add(&[os("--dev"), os("/dev"), os("--proc"), os("/proc")]);
    add(&[os("--ro-bind"), os("/proc/sys"), os("/proc/sys")]);
    add(&[
        os("--ro-bind-try"),
        os("/proc/sysrq-trigger"),
        os("/proc/sysrq-trigger"),
    ]);
    // A private /tmp, so a job neither reads nor leaves files in the host's /tmp; HOME is
    // a folder in it.
    add(&[os("--tmpfs"), os("/tmp"), os("--dir"), os(SANDBOX_HOME)]);
    for dir in spec.toolchain {
        add(&[os("--ro-bind"), dir.as_os_str(), dir.as_os_str()]);
    }
    for node in &spec.gpu_devices {
        add(&[os("--dev-bind"), node.as_os_str(), node.as_os_str()]);
    }
    for dir in spec.read_only {
        add(&[os("--ro-bind"), dir.as_os_str(), dir.as_os_str()]);
    }
    // The workspace, writable; after --tmpfs /tmp so a workspace under /tmp stays visible,
    // and before the root turns read-only: bwrap creates the mount point's parents in the
    // root (`/work/runs/…` has none there), which fails on a read-only root.
    add(&[
        os("--bind"),
        spec.workspace.as_os_str(),
        spec.workspace.as_os_str(),
    ]);
    // The sandbox's own root (a tmpfs holding the mount points) read-only from here on;
    // the remount is not recursive, so only the workspace, /tmp and HOME take writes.
    add(&[os("--remount-ro"), os("/")]);
    if !spec.network {
        add(&[os("--unshare-net")]);
    }
    add(&[
        os("--unshare-pid"),
        os("--unshare-ipc"),
        os("--unshare-uts"),
    ]);
    let confine: Vec<&std::ffi::OsStr> = CONFINE.iter().map(std::ffi::OsStr::new).collect();
    add(&confine);
    // After --unshare-user, which --disable-userns requires.
    let hardening: Vec<OsString> = spec
        .hardening
        .args()
        .into_iter()
        .map(OsString::from)
        .collect();
    let hardening: Vec<&std::ffi::OsStr> = hardening.iter().map(OsString::as_os_str).collect();
    add(&hardening);
    add(&[os("--die-with-parent")]);
    add(&[os("--chdir"), spec.workdir.as_os_str()]);
    add(&[os("--")]);
    args
}

/// The host's NVIDIA device nodes, bound into the sandbox for GPU jobs (`--dev /dev` would
/// otherwise hide them). Which GPUs the job uses is still `CUDA_VISIBLE_DEVICES`'s choice.
pub(crate) fn nvidia_device_nodes() -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir("/dev") else {
        return Vec::new();
    };
    let mut nodes: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("nvidia"))
        .map(|e| e.path())
        .collect();
    nodes.sort();
    nodes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_network_unless_asked() {
        let spec = SandboxSpec {
            workspace: Path::new("/tmp/w"),
            workdir: Path::new("/tmp/w/code"),
            network: false,
            gpu_devices: vec![],
            read_only: &[],
            toolchain: &[],
            hardening: Hardening {
                disable_userns: true,
                seccomp_fd: Some(5),
            },
        };
        let args: Vec<String> = bwrap_args(&spec)
            .iter()
            .map(|a| a.to_string_lossy().into())
            .collect();
        assert!(args.contains(&"--unshare-net".to_string()));
        let tmpfs = args.iter().position(|a| a == "--tmpfs");
        let bind = args.iter().position(|a| a == "--bind");
        assert!(tmpfs < bind, "the workspace bind must follow --tmpfs /tmp");
        for flag in ["--unshare-user", "--cap-drop", "--uid", "--gid"] {
            assert!(args.contains(&flag.to_string()), "{flag} missing: {args:?}");
        }
        let user = args.iter().position(|a| a == "--unshare-user");
        let no_userns = args.iter().position(|a| a == "--disable-userns");
        assert!(
            user < no_userns,
            "--disable-userns needs --unshare-user first: {args:?}"
        );
        let seccomp = args.windows(2).any(|w| w[0] == "--seccomp" && w[1] == "5");
        assert!(seccomp, "{args:?}");
        let proc_sys = args
            .windows(3)
            .position(|w| w[0] == "--ro-bind" && w[1] == "/proc/sys");
        let proc = args.iter().position(|a| a == "--proc");
        assert!(
            proc < proc_sys,
            "/proc/sys read-only after the new /proc: {args:?}"
        );
        assert_eq!(args.last().map(String::as_str), Some("--"));
        let open = SandboxSpec {
            network: true,
            ..spec
        };
        let args: Vec<String> = bwrap_args(&open)
            .iter()
            .map(|a| a.to_string_lossy().into())
            .collect();
        assert!(!args.contains(&"--unshare-net".to_string()));
    }

    #[test]
    fn required_without_bwrap_names_the_package() {
        let err = decide(SandboxMode::Required, &Availability::Missing).err();
        assert!(
            err.map(|e| e.to_string())
                .unwrap_or_default()
                .contains("bubblewrap")
        );
        let broken = Availability::Broken {
            bwrap: PathBuf::from("/usr/bin/bwrap"),
            detail: "no user namespaces".into(),
        };
        assert!(decide(SandboxMode::Required, &broken).is_err());
        let off = decide(SandboxMode::Off, &Availability::Missing);
        assert!(matches!(off, Ok((None, Some(w))) if w.contains("sandbox off")));
        let works = Availability::Works(PathBuf::from("/usr/bin/bwrap"));
        assert!(matches!(
            decide(SandboxMode::Required, &works),
            Ok((Some(_), None))
        ));
    }
}
