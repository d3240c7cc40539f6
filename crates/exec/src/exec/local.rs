//! The local back end: prepares a job on this machine (checks, sandbox decision, GPUs,
//! environment, results folder, the command) and hands it to a supervisor thread
//! (`supervise.rs`) that owns the process until its outcome is collected.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, OnceLock};

use super::attempts::ATTEMPTS_DIR;
use super::env::{EnvInputs, build_env, parent_passthrough};
use super::gpu::GpuPool;
use super::harden::Hardening;
use super::job::{Job, METRICS_FILE, RESULTS_FILE};
use super::limits::{self, ChildLimits};
use super::sandbox::{self, Availability, SandboxSpec};
use super::supervise::{self, Collect, JobHandle};
use super::{Backend, ExecError, RunningJob, confine};

/// Runs jobs as local processes. Share one per machine: its GPU pool is what keeps two
/// jobs off the same GPU.
#[derive(Debug)]
pub struct LocalBackend {
    gpus: Arc<GpuPool>,
    /// Probed on first use: running `bwrap` once costs a few milliseconds.
    sandbox: OnceLock<Availability>,
}

impl Default for LocalBackend {
    fn default() -> Self {
        LocalBackend::new()
    }
}

impl LocalBackend {
    /// A back end with the GPUs `nvidia-smi` reports free now (none without it).
    pub fn new() -> LocalBackend {
        LocalBackend::with_gpus(GpuPool::detect())
    }

    /// A back end that hands out the GPUs of `pool` (tests pass a fake inventory).
    pub fn with_gpus(pool: Arc<GpuPool>) -> LocalBackend {
        LocalBackend {
            gpus: pool,
            sandbox: OnceLock::new(),
        }
    }

    pub fn gpu_pool(&self) -> &Arc<GpuPool> {
        &self.gpus
    }

    /// Whether bubblewrap is present and works here.
    pub fn sandbox_availability(&self) -> &Availability {
        self.sandbox
            .get_or_init(|| sandbox::probe(std::env::var("PATH").ok().as_deref()))
    }
}

impl Backend for LocalBackend {
    fn start(&self, job: &Job) -> Result<Box<dyn RunningJob>, ExecError> {
        let _span = tracing::info_span!(
            "experiment",
            workspace = %job.workspace.display(),
            argv = ?job.argv
        )
        .entered();
        let paths = check_job(job)?;
        let (bwrap, sandbox_warning) = sandbox::decide(job.sandbox, self.sandbox_availability())?;
        let mut warnings: Vec<String> = sandbox_warning.into_iter().collect();
        warnings.extend(policy_warnings(job, bwrap.is_some()));
        if let Some(b) = &bwrap {
            warnings.extend(super::harden::missing_warnings(b));
        }
        let lease = self.gpus.acquire(job.gpus)?;
        let cuda = lease.cuda_visible_devices();
        let inputs = EnvInputs {
            parent: parent_passthrough(),
            workspace: &paths.workspace,
            cuda_visible_devices: &cuda,
            sandboxed: bwrap.is_some(),
        };
        let env = build_env(&inputs, &job.env)?;
        warnings.extend(prepare_results(&paths)?);
        let run_card = job.card.then(|| {
            super::run_card::build(&super::run_card::CardInputs {
                job,
                workspace: &paths.workspace,
                env: &env,
                bwrap: bwrap.as_deref(),
                backend: "local",
            })
        });
        let log = open_log(&paths.log)?;
        let mut command = build_command(job, &paths, bwrap.as_deref())?;
        command.env_clear().envs(env).stdin(Stdio::null());
        command.stdout(clone_log(&log, &paths.log)?).stderr(log);
        limits::install(
            &mut command,
            ChildLimits::new(job.memory_limit, job.cpu_limit),
        );
        for w in &warnings {
            tracing::warn!("{w}");
        }
        tracing::info!(sandboxed = bwrap.is_some(), gpus = %cuda, "started");
        let collect = Collect {
            log_path: paths.log.clone(),
            metrics_path: paths.results.join(METRICS_FILE),
            results_path: paths.results.join(RESULTS_FILE),
            sandboxed: bwrap.is_some(),
            time_limit: job.time_limit,
            grace: job.grace,
            warnings,
            gpus: cuda,
            memory_limit: job.memory_limit,
            max_processes: job.max_processes,
            run_card,
        };
        let handle: JobHandle = supervise::spawn(command, &job.argv[0], collect, lease)?;
        Ok(Box::new(handle))
    }
}

/// The canonical paths of a checked job (the Slurm back end checks jobs the same way).
pub(super) struct JobPaths {
    pub(super) workspace: PathBuf,
    pub(super) workdir: PathBuf,
    pub(super) results: PathBuf,
    pub(super) log: PathBuf,
}

impl JobPaths {
    /// The sandbox `job` runs in here: the one description both back ends hand to bwrap, so
    /// a Slurm job is confined exactly as a local one.
    pub(super) fn sandbox<'a>(&'a self, job: &'a Job, hardening: Hardening) -> SandboxSpec<'a> {
        SandboxSpec {
            workspace: &self.workspace,
            workdir: &self.workdir,
            network: job.network,
            gpu_devices: if job.gpus > 0 {
                sandbox::nvidia_device_nodes()
            } else {
                Vec::new()
            },
            read_only: &job.read_only,
            toolchain: &sandbox::toolchain().prefixes,
            hardening,
        }
    }
}

pub(super) fn check_job(job: &Job) -> Result<JobPaths, ExecError> {
    if job.argv.first().is_none_or(|p| p.is_empty()) {
        return Err(ExecError::InvalidJob(
            "argv is empty; give the command to run, e.g. [\"python3\", \"train.py\"]".into(),
        ));
    }
    if job.time_limit.is_zero() {
        return Err(ExecError::InvalidJob(
            "time_limit is zero; give the job time to run".into(),
        ));
    }
    let workspace = job
        .workspace
        .canonicalize()
        .map_err(|source| ExecError::Workspace {
            path: job.workspace.clone(),
            source,
        })?;
    let workdir = match job.workdir.to_str() {
        Some("" | ".") => workspace.clone(),
        Some(rel) => confine(&workspace, rel)?,
        None => {
            return Err(ExecError::InvalidJob(format!(
                "workdir {:?} is not UTF-8",
                job.workdir
            )));
        }
    };
    if !workdir.is_dir() {
        return Err(ExecError::InvalidJob(format!(
            "workdir {} does not exist; write the experiment's code there first",
            workdir.display()
        )));
    }
    let results = workspace.join(super::job::RESULTS_DIR);
    let log = results.join(super::job::LOG_FILE);
    Ok(JobPaths {
        workspace,
        workdir,
        results,
        log,
    })
}

pub(super) fn policy_warnings(job: &Job, sandboxed: bool) -> Vec<String> {
    let mut warnings = Vec::new();
    if job.network && sandboxed {
        warnings.push("network access allowed for this job (network: true)".to_string());
    }
    if job.gpus > 0 && job.memory_limit.is_some() {
        // CUDA reserves far more address space than it uses; RLIMIT_AS makes it fail to start.
        warnings.push("memory_limit (RLIMIT_AS) with GPUs: CUDA may fail to initialise; drop the limit if it does".to_string());
    }
    warnings
}

/// Creates `results/` and `tmp/`, and moves the previous run's metrics, results and log into
/// `results/attempts/<n>/` (n = 1, 2, … in the order they ran), so this run's outcome holds
/// only what this run wrote and every earlier attempt stays readable: the chart draws each
/// as its own series, the paper may report a failed first attempt, the registry keeps it.
/// An earlier job could have planted links anywhere here (`results -> /home/me`): every
/// folder is opened following no link and the files move by `renameat` between those open
/// folders, so youra never moves a host file; a planted link is removed (the link, never
/// what it points to) with a warning.
pub(super) fn prepare_results(paths: &JobPaths) -> Result<Vec<String>, ExecError> {
    let ws = &paths.workspace;
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ExecError::Workspace { path, source }
    };
    let mut warnings = Vec::new();
    private(ws).map_err(io_err(ws))?;
    let results_rel = Path::new(super::job::RESULTS_DIR);
    let attempts_rel = results_rel.join(ATTEMPTS_DIR);
    for rel in [results_rel, Path::new("tmp"), attempts_rel.as_path()] {
        unlink_planted(ws, rel, &mut warnings).map_err(io_err(&ws.join(rel)))?;
        if rel != attempts_rel.as_path() {
            crate::fsutil::open_dir_beneath(ws, rel, true).map_err(io_err(&ws.join(rel)))?;
        }
    }
    let results =
        crate::fsutil::open_dir_beneath(ws, results_rel, false).map_err(io_err(&paths.results))?;
    let mut kept: Option<(std::os::fd::OwnedFd, PathBuf)> = None;
    for name in [
        METRICS_FILE,
        RESULTS_FILE,
        super::job::LOG_FILE,
        super::job::RUN_CARD_FILE,
    ] {
        let rel = results_rel.join(name);
        // A link here would have this job's honest results written through it.
        if unlink_planted(ws, &rel, &mut warnings).map_err(io_err(&ws.join(&rel)))? {
            continue;
        }
        if !fs::symlink_metadata(ws.join(&rel)).is_ok_and(|m| m.is_file()) {
            continue;
        }
        if kept.is_none() {
            let n = next_attempt(&ws.join(&attempts_rel));
            let rel_dir = attempts_rel.join(n.to_string());
            let fd = crate::fsutil::open_dir_beneath(ws, &rel_dir, true)
                .map_err(io_err(&ws.join(&rel_dir)))?;
            kept = Some((fd, ws.join(rel_dir)));
        }
        if let Some((dir, _)) = &kept {
            crate::fsutil::rename_at(&results, name, dir, name).map_err(io_err(&ws.join(&rel)))?;
        }
    }
    if let Some((_, d)) = kept {
        warnings.push(format!(
            "the previous attempt's files were moved to {}",
            d.display()
        ));
    }
    Ok(warnings)
}

/// Moves the last attempt's files from `results/` into `results/attempts/<n>/`, as the next
/// job's start would (their collection record follows them by number): a plan tree's
/// restore of its best node then keeps the attempt that ran last, with its own values
/// (issue 40: n-0004's 0.7746 vanished when n-0003's results came back).
pub fn keep_last_attempt(workspace: &Path) -> Result<Vec<String>, ExecError> {
    let workspace = workspace
        .canonicalize()
        .map_err(|source| ExecError::Workspace {
            path: workspace.to_path_buf(),
            source,
        })?;
    let results = workspace.join(super::job::RESULTS_DIR);
    let paths = JobPaths {
        workdir: workspace.clone(),
        log: results.join(super::job::LOG_FILE),
        results,
        workspace,
    };
    prepare_results(&paths)
}

/// Makes the workspace private to its owner (0700): a job's files are youra's user's files,
/// and whatever it left that the walk after it could not check (`scan.rs`'s bounds) is
/// then out of other local users' reach.
fn private(ws: &Path) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let dir = crate::fsutil::open_dir_beneath(ws, Path::new(""), false)?;
    // SAFETY: an open folder this function owns.
    if unsafe { libc::fchmod(dir.as_raw_fd(), 0o700) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Removes `ws/rel` when it is a symbolic link (the link, never its target); says so.
/// A FIFO, socket or device there (a handed run folder's, say) is removed too: youra would
/// block opening a FIFO as the log.
fn unlink_planted(ws: &Path, rel: &Path, warnings: &mut Vec<String>) -> std::io::Result<bool> {
    let path = ws.join(rel);
    let Ok(kind) = fs::symlink_metadata(&path).map(|m| m.file_type()) else {
        return Ok(false);
    };
    let what = if kind.is_symlink() {
        "a link"
    } else if kind.is_file() || kind.is_dir() {
        return Ok(false);
    } else {
        "a FIFO, socket or device"
    };
    fs::remove_file(&path)?;
    warnings.push(format!(
        "{what} planted as {} was removed (the entry, never what it points to) before this job",
        rel.display()
    ));
    Ok(true)
}

/// The first attempt number (from 1) above every numbered entry of `attempts`, of any kind:
/// a link an earlier job planted as `attempts/5` must not be the folder youra moves into.
fn next_attempt(attempts: &Path) -> u32 {
    fs::read_dir(attempts)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .max()
        .map_or(1, |n| n.saturating_add(1))
}

/// Truncates the log, then reopens it for appending: stdout and stderr share this one open
/// file, so their lines land in the order written.
pub(super) fn open_log(path: &Path) -> Result<File, ExecError> {
    let err = |source| ExecError::Workspace {
        path: path.to_path_buf(),
        source,
    };
    // Truncate (a new job's log) without following a link, then append from there on.
    super::log::open_log_file(path, true).map_err(err)?;
    super::log::open_log_file(path, false).map_err(err)
}

fn clone_log(log: &File, path: &Path) -> Result<File, ExecError> {
    log.try_clone().map_err(|source| ExecError::Workspace {
        path: path.to_path_buf(),
        source,
    })
}

fn build_command(job: &Job, paths: &JobPaths, bwrap: Option<&Path>) -> Result<Command, ExecError> {
    let Some(bwrap) = bwrap else {
        let mut command = Command::new(&job.argv[0]);
        command.args(&job.argv[1..]).current_dir(&paths.workdir);
        return Ok(command);
    };
    let (hardening, seccomp) =
        sandbox::hardening(bwrap).map_err(|e| super::SandboxError::Broken {
            bwrap: bwrap.to_path_buf(),
            detail: format!("cannot prepare the seccomp filter: {e}"),
        })?;
    let spec = paths.sandbox(job, hardening);
    let mut command = Command::new(bwrap);
    command.args(sandbox::bwrap_args(&spec)).args(&job.argv);
    if let Some(fd) = seccomp {
        fd.pass_to(&mut command);
    }
    // bwrap resolves its own relative paths from here; the job starts in --chdir.
    command.current_dir(&paths.workspace);
    Ok(command)
}
