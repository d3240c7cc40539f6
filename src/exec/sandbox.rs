//! The bubblewrap sandbox: finding `bwrap`, checking that it can create namespaces here, and
//! the command line that wraps a job. See `docs/ARCHITECTURE.md`, "Executor", for why each
//! flag is there.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::job::SandboxMode;

/// The package that provides `bwrap`, named in every error about it.
pub const PACKAGE_HINT: &str =
    "install the `bubblewrap` package (e.g. `apt-get install -y bubblewrap`)";

/// Why the sandbox cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    #[error("the sandbox is required but `bwrap` is not on PATH; {PACKAGE_HINT}")]
    Missing,
    #[error(
        "the sandbox is required but `{bwrap}` cannot create a sandbox here: {detail}; it needs user or mount namespaces (run as root, or enable unprivileged user namespaces)"
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
    let output = Command::new(&bwrap)
        .args(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"])
        .args([
            "--unshare-net",
            "--unshare-pid",
            "--die-with-parent",
            "true",
        ])
        .env_clear()
        .stdin(Stdio::null())
        .output();
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

/// First executable file named `name` in the `:`-separated `path_var`.
pub fn find_on_path(name: &str, path_var: Option<&str>) -> Option<PathBuf> {
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

/// The decision for one job: the `bwrap` to use, or none with the warning to report.
pub fn decide(
    mode: SandboxMode,
    found: &Availability,
) -> Result<(Option<PathBuf>, Option<String>), SandboxError> {
    match (mode, found) {
        (SandboxMode::Off, _) => Ok((
            None,
            Some("sandbox off: the job could write anywhere this user can".into()),
        )),
        (_, Availability::Works(bwrap)) => Ok((Some(bwrap.clone()), None)),
        (SandboxMode::Required, Availability::Missing) => Err(SandboxError::Missing),
        (SandboxMode::Required, Availability::Broken { bwrap, detail }) => {
            Err(SandboxError::Broken {
                bwrap: bwrap.clone(),
                detail: detail.clone(),
            })
        }
        (SandboxMode::Auto, Availability::Missing) => Ok((
            None,
            Some(format!("no sandbox: `bwrap` not found; {PACKAGE_HINT}")),
        )),
        (SandboxMode::Auto, Availability::Broken { detail, .. }) => {
            Ok((None, Some(format!("no sandbox: `bwrap` failed ({detail})"))))
        }
    }
}

/// What the wrapping needs to know about the job. Paths are absolute and canonical.
#[derive(Debug, Clone)]
pub struct SandboxSpec<'a> {
    pub workspace: &'a Path,
    pub workdir: &'a Path,
    pub network: bool,
    /// Bind the host's `/dev/nvidia*` nodes (a GPU job).
    pub gpu_devices: Vec<PathBuf>,
    /// Extra folders bound read-only (the run's `data/`): needed when they lie under /tmp,
    /// which the sandbox replaces with a private tmpfs.
    pub read_only: &'a [PathBuf],
}

/// The arguments before the job's own argv: `bwrap <these> -- <argv>`.
pub fn bwrap_args(spec: &SandboxSpec) -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::new();
    let mut add = |items: &[&std::ffi::OsStr]| args.extend(items.iter().map(|s| s.to_os_string()));
    let os = |s: &'static str| std::ffi::OsStr::new(s);
    // The whole system read-only: interpreters, libraries and installed packages are found
    // where they are, and nothing outside the workspace can be changed.
    add(&[os("--ro-bind"), os("/"), os("/")]);
    // Fresh minimal /dev (null, zero, urandom, tty, shm) and a /proc of the new pid namespace.
    add(&[os("--dev"), os("/dev"), os("--proc"), os("/proc")]);
    // A private /tmp, so a job neither reads nor leaves files in the host's /tmp.
    add(&[os("--tmpfs"), os("/tmp")]);
    for node in &spec.gpu_devices {
        add(&[os("--dev-bind"), node.as_os_str(), node.as_os_str()]);
    }
    for dir in spec.read_only {
        add(&[os("--ro-bind"), dir.as_os_str(), dir.as_os_str()]);
    }
    // The workspace, writable; after --tmpfs /tmp so a workspace under /tmp stays visible.
    add(&[
        os("--bind"),
        spec.workspace.as_os_str(),
        spec.workspace.as_os_str(),
    ]);
    if !spec.network {
        add(&[os("--unshare-net")]);
    }
    add(&[
        os("--unshare-pid"),
        os("--unshare-ipc"),
        os("--unshare-uts"),
    ]);
    add(&[os("--die-with-parent")]);
    add(&[os("--chdir"), spec.workdir.as_os_str()]);
    add(&[os("--")]);
    args
}

/// The host's NVIDIA device nodes, bound into the sandbox for GPU jobs (`--dev /dev` would
/// otherwise hide them). Which GPUs the job uses is still `CUDA_VISIBLE_DEVICES`'s choice.
pub fn nvidia_device_nodes() -> Vec<PathBuf> {
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
        };
        let args: Vec<String> = bwrap_args(&spec)
            .iter()
            .map(|a| a.to_string_lossy().into())
            .collect();
        assert!(args.contains(&"--unshare-net".to_string()));
        let tmpfs = args.iter().position(|a| a == "--tmpfs");
        let bind = args.iter().position(|a| a == "--bind");
        assert!(tmpfs < bind, "the workspace bind must follow --tmpfs /tmp");
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
        let auto = decide(SandboxMode::Auto, &Availability::Missing);
        assert!(matches!(auto, Ok((None, Some(_)))));
    }
}
