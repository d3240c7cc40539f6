//! What the engine asks a back end to run ([`Job`]) and what it gets back ([`JobOutcome`]).
//! Plain data, shared by every back end: the local one fills these from a process, a cluster
//! one would fill them from a scheduler.

use std::path::PathBuf;
use std::time::Duration;

use super::metrics::MetricRecord;

/// Where a job's results live inside its workspace, and the names of the files in it.
pub const RESULTS_DIR: &str = "results";
/// stdout and stderr together, in the order written (one file; see `docs/ARCHITECTURE.md`).
pub const LOG_FILE: &str = "run.log";
/// One JSON object per line, written by the experiment while it runs.
pub const METRICS_FILE: &str = "metrics.jsonl";
/// The experiment's final summary (YouRA's name).
pub const RESULTS_FILE: &str = "experiment_results.json";
/// What reproduces the attempt (command, seeds, interpreter, machine, data hashes, sandbox),
/// written by youra when the job ends (`run_card.rs`), never by the experiment.
pub const RUN_CARD_FILE: &str = "run_card.json";

/// Whether to run the job inside bubblewrap: `[exec] sandbox` in youra.toml. There is no
/// "when available": a missing or broken `bwrap` stops the run under `required`, so code a
/// model wrote never runs unconfined because a package was missing (fail closed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SandboxMode {
    /// Refuse to start without a working `bwrap` (the default).
    #[default]
    Required,
    /// Never sandbox: the researcher's explicit choice, shown wherever the run is shown.
    Off,
}

impl SandboxMode {
    /// The value as written in youra.toml.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::Required => "required",
            SandboxMode::Off => "off",
        }
    }
}

/// One run of generated experiment code.
#[derive(Debug, Clone)]
pub struct Job {
    /// The sub-hypothesis folder, e.g. `<run>/h-e1`: the only place the job may write.
    pub workspace: PathBuf,
    /// Where the command starts, relative to `workspace` (e.g. `code`).
    pub workdir: PathBuf,
    /// The command and its arguments, e.g. `["python3", "train.py"]`.
    pub argv: Vec<String>,
    /// Wall-clock limit; the whole process group is killed when it passes.
    pub time_limit: Duration,
    /// How long the group gets between SIGTERM and SIGKILL.
    pub grace: Duration,
    /// Address-space limit per process (RLIMIT_AS), in bytes.
    pub memory_limit: Option<u64>,
    /// CPU-time limit per process (RLIMIT_CPU).
    pub cpu_limit: Option<Duration>,
    /// Allow network access (the outcome carries a warning when true).
    pub network: bool,
    pub sandbox: SandboxMode,
    /// How many GPUs the job wants; 0 runs it on the CPU with no GPU visible.
    pub gpus: usize,
    /// Extra environment variables; names that look like secrets are refused.
    pub env: Vec<(String, String)>,
    /// Folders the job may read inside the sandbox besides the system (the run's data).
    pub read_only: Vec<PathBuf>,
    /// Further files or folders the experiment reads (inputs its brief names outside
    /// `read_only`): hashed on its run card (`run_card.rs`), nothing more.
    pub inputs: Vec<PathBuf>,
    /// The most processes the job may have at once (its whole process group); more stops
    /// it, named in its record. A watchdog counts them: RLIMIT_NPROC is per user and does
    /// not bind root at all.
    pub max_processes: Option<u32>,
    /// Whether youra writes a run card (`run_card.rs`) when the job ends: an experiment's
    /// job, yes; a coding agent's, no — the agent writes code, measures nothing, and its
    /// workspace check would see the card as a file it created.
    pub card: bool,
}

impl Job {
    /// A job with the defaults: no network, sandbox required, no GPU, one hour, 5 s
    /// grace, no memory or CPU limit.
    pub fn new(workspace: impl Into<PathBuf>, argv: Vec<String>) -> Job {
        Job {
            workspace: workspace.into(),
            workdir: PathBuf::from("code"),
            argv,
            time_limit: Duration::from_secs(3600),
            grace: Duration::from_secs(5),
            memory_limit: None,
            cpu_limit: None,
            network: false,
            sandbox: SandboxMode::Required,
            gpus: 0,
            env: Vec::new(),
            read_only: Vec::new(),
            inputs: Vec::new(),
            max_processes: None,
            card: true,
        }
    }

    /// `<workspace>/results`.
    pub fn results_dir(&self) -> PathBuf {
        self.workspace.join(RESULTS_DIR)
    }

    /// `<workspace>/results/run.log`.
    pub fn log_path(&self) -> PathBuf {
        self.results_dir().join(LOG_FILE)
    }

    /// `<workspace>/results/metrics.jsonl`.
    pub fn metrics_path(&self) -> PathBuf {
        self.results_dir().join(METRICS_FILE)
    }
}

/// How a job ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExitKind {
    /// The command exited with this code.
    Exited(i32),
    /// The command died of this signal (inside the sandbox: bwrap reports it as 128+n).
    Signalled(i32),
    /// The wall-clock limit passed and the group was killed.
    TimedOut,
    /// [`RunningJob::kill`](super::RunningJob::kill) was called.
    Killed,
    /// The scheduler ended it for using more memory than it asked for (Slurm's
    /// OUT_OF_MEMORY; locally an allocation fails under RLIMIT_AS instead).
    OutOfMemory,
    /// It had more processes at once than `Job::max_processes` (this many), and was stopped.
    ProcessLimit(u32),
}

impl ExitKind {
    /// Exited with code 0.
    pub fn success(&self) -> bool {
        *self == ExitKind::Exited(0)
    }

    /// The value written in the log's last line: `EXPERIMENT COMPLETE (exit=<this>)`.
    pub fn log_label(&self) -> String {
        match self {
            ExitKind::Exited(code) => code.to_string(),
            ExitKind::Signalled(sig) => format!("signal:{sig}"),
            ExitKind::TimedOut => "timeout".to_string(),
            ExitKind::Killed => "killed".to_string(),
            ExitKind::OutOfMemory => "out-of-memory".to_string(),
            ExitKind::ProcessLimit(n) => format!("process-limit:{n}"),
        }
    }
}

/// The line appended to the log when a job ends (YouRA's completion marker).
pub fn completion_line(exit: &ExitKind) -> String {
    format!("EXPERIMENT COMPLETE (exit={})", exit.log_label())
}

/// Everything the engine needs once a job has ended.
#[derive(Debug, Clone)]
pub struct JobOutcome {
    pub exit: ExitKind,
    /// From spawn to the exit of the command.
    pub duration: Duration,
    /// stdout and stderr, interleaved, ending with the completion line.
    pub log_path: PathBuf,
    /// Every well-formed record of `results/metrics.jsonl`.
    pub metrics: Vec<MetricRecord>,
    /// `results/experiment_results.json`, when present and valid JSON.
    pub results: Option<serde_json::Value>,
    /// What the engine and the researcher should know: no sandbox, network on, skipped lines.
    pub warnings: Vec<String>,
    /// Whether the job ran inside bubblewrap.
    pub sandboxed: bool,
    /// The `CUDA_VISIBLE_DEVICES` value the job saw.
    pub gpus: String,
    /// Sandbox violations: youra's own files in the workspace (the log, `metrics.jsonl`,
    /// `experiment_results.json`) replaced by symbolic links. None was followed; the engine
    /// sends the attempt to repair as a fabrication suspect.
    pub violations: Vec<String>,
}
