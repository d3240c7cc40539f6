//! The experiment executor: runs a sub-hypothesis's generated code under a time limit that
//! kills its whole process group, resource limits, a bubblewrap sandbox (no network, no
//! writes outside its workspace), an allow-listed environment and assigned GPUs, and
//! collects its log, metrics and results.
//!
//! The engine is synchronous: it calls [`Backend::start`], then [`RunningJob::wait`] on its
//! own thread; the TUI may call [`RunningJob::tail`] and [`RunningJob::kill`] meanwhile.
//! [`LocalBackend`] runs jobs on this machine; [`SlurmBackend`] submits the same sandboxed
//! command to a Slurm cluster ([`backend_for`] picks one from `[exec]`). See
//! `docs/ARCHITECTURE.md`, "Executor".

pub mod agent;
mod agent_check;
mod attempts;
pub mod collected;
pub mod config;
mod confine;
mod env;
mod gpu;
pub mod harden;
mod job;
pub mod limits;
mod local;
pub use local::keep_last_attempt;
mod log;
pub mod metrics;
pub mod planted;
pub mod run_card;
mod run_card_cache;
mod run_card_model;
mod run_card_probe;
pub mod sandbox;
pub mod scan;
pub mod seccomp;
pub mod slurm;
mod supervise;
pub mod trust;

pub use agent_check::Violation;
pub use attempts::{ATTEMPTS_DIR, attempt_numbers};
pub use config::{BackendKind, ExecSection, SlurmSettings};
pub use confine::{PathError, confine, write_confined};
pub use env::{EnvError, EnvInputs, build_env, check_extra, parent_passthrough, secret_reason};
pub use gpu::{
    GpuError, GpuInfo, GpuLease, GpuPool, MigSlice, NVIDIA_SMI_ARGS, parse_nvidia_smi,
    parse_nvidia_smi_l, query_gpus, with_mig,
};
pub use job::{
    ExitKind, Job, JobOutcome, LOG_FILE, METRICS_FILE, RESULTS_DIR, RESULTS_FILE, RUN_CARD_FILE,
    SandboxMode, completion_line,
};
pub use limits::{ChildLimits, signal_group};
pub use local::LocalBackend;
pub use log::{Brief, brief_lines, tail_lines};
pub use metrics::{
    MetricRecord, MetricsBatch, MetricsReader, read_metrics, read_metrics_beneath, read_results,
    read_results_beneath,
};
pub use sandbox::{Availability, SandboxError, bwrap_args, probe as probe_sandbox};
pub use slurm::SlurmBackend;

use std::path::PathBuf;

/// Why a job could not be started. Once started, a job always ends in a [`JobOutcome`].
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("invalid job: {0}")]
    InvalidJob(String),
    #[error(transparent)]
    Env(#[from] EnvError),
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error("the job's workdir is not usable: {0}")]
    Workdir(#[from] PathError),
    #[error("cannot prepare {path}: {source}; check that the workspace exists and is writable")]
    Workspace {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "the scheduler refused the job: {0}; check [exec.slurm] in youra.toml and that the cluster is up (sinfo)"
    )]
    Submit(String),
    #[error("cannot start {program:?}: {source}; check that it is installed and on PATH")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
}

/// Something that runs [`Job`]s: this machine, or a cluster scheduler.
pub trait Backend: Send + Sync {
    /// Starts `job`. May block while the GPUs it wants are taken by other jobs.
    fn start(&self, job: &Job) -> Result<Box<dyn RunningJob>, ExecError>;

    /// Follows `job` as the scheduler job `scheduler_id` an earlier engine started (see
    /// [`RunningJob::scheduler_id`]), without submitting it again; `None` when the scheduler
    /// no longer knows it. Local processes die with their engine, so by default: `None`.
    fn attach(
        &self,
        _job: &Job,
        _scheduler_id: &str,
    ) -> Result<Option<Box<dyn RunningJob>>, ExecError> {
        Ok(None)
    }

    /// How long a start waits for a scheduler that does not answer ([`unreachable`]):
    /// `None` for a back end with no scheduler (this machine).
    fn outage_window(&self) -> Option<std::time::Duration> {
        None
    }
}

/// Whether a submission failed because the scheduler's controller did not answer (its
/// clients' own words), not because it refused the job: worth waiting for, never a repair.
pub fn unreachable(e: &ExecError) -> bool {
    const SIGNS: &[&str] = &[
        "unable to contact slurm controller",
        "socket timed out",
        "connection refused",
        "zero bytes were transmitted or received",
        "slurm_receive_msg",
        "communication connection failure",
    ];
    match e {
        ExecError::Submit(msg) => {
            let m = msg.to_ascii_lowercase();
            SIGNS.iter().any(|s| m.contains(s))
        }
        _ => false,
    }
}

/// The back end `[exec] backend` names.
pub fn backend_for(
    exec: &ExecSection,
    gpus: std::sync::Arc<GpuPool>,
) -> std::sync::Arc<dyn Backend> {
    match exec.backend {
        BackendKind::Local => std::sync::Arc::new(LocalBackend::with_gpus(gpus)),
        BackendKind::Slurm => std::sync::Arc::new(SlurmBackend::new(&exec.slurm)),
    }
}

/// A started job. Safe to share: one thread waits while another tails or kills.
pub trait RunningJob: Send + Sync {
    /// The process id of the job's leader (its process group id), where there is one.
    fn pid(&self) -> Option<u32>;
    /// The scheduler's id for the job (a Slurm job id), which outlives the engine: recorded
    /// in the VSA so a restarted engine can [`Backend::attach`] to it. None for local jobs.
    fn scheduler_id(&self) -> Option<String> {
        None
    }
    /// The last `n` lines of the live log (stdout and stderr together).
    fn tail(&self, n: usize) -> Vec<String>;
    /// Ends the job now (SIGTERM to the group, then SIGKILL after the grace period).
    fn kill(&self);
    /// Blocks until the job has ended and its results are collected. Calling it again
    /// returns the same outcome.
    fn wait(&self) -> JobOutcome;
    /// The outcome if the job has ended, without blocking.
    fn try_outcome(&self) -> Option<JobOutcome>;
    /// Where the job runs, for people (the Experiments pane, `youra status`): `cpu`,
    /// `GPU <id>` locally; a cluster back end names its job id and node.
    fn placement(&self) -> String {
        String::new()
    }
    /// Calls `notify` with the new [`placement`](Self::placement) each time it differs from
    /// the one last shown, starting from `shown` (what the caller just read): at once when
    /// it has changed already, later from the job's own thread (a Slurm job reaching its
    /// node, or resubmitted). A local job is placed for good when it starts: never called.
    fn follow_placement(&self, _shown: &str, _notify: PlacementNotify) {}
}

/// Told a job's new placement (see [`RunningJob::follow_placement`]).
pub type PlacementNotify = std::sync::Arc<dyn Fn(&str) + Send + Sync>;

/// Half of this machine's memory in MiB (`MemTotal` in /proc/meminfo), the default address
/// space limit of a CPU experiment; 4096 when it cannot be read.
pub fn default_memory_mb() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("MemTotal:"))?
                .split_whitespace()
                .nth(1)?
                .parse::<u64>()
                .ok()
        })
        .map_or(4096, |kib| (kib / 1024 / 2).max(256))
}
