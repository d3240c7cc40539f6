//! The supervisor thread of one local job: spawns the process, enforces the wall-clock limit
//! and kill requests on its whole process group, then collects the outcome.
//!
//! The spawn happens on the supervisor thread on purpose: `bwrap --die-with-parent` uses
//! PR_SET_PDEATHSIG, which fires when the *thread* that forked it exits. The supervisor
//! lives exactly as long as the job, so the engine may call `start` from any thread.
//! No polling: a second thread blocks in `waitpid` and sends the exit on the same channel
//! that carries kill requests, and the supervisor waits on it with the deadline as timeout.

use std::path::PathBuf;
use std::process::{Command, ExitStatus};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::gpu::GpuLease;
use super::job::{ExitKind, JobOutcome, completion_line};
use super::limits::signal_group;
use super::log::{append_line, tail_lines};
use super::metrics::{MetricsBatch, read_metrics_beneath, read_results_beneath};
use super::{ExecError, RunningJob};

/// What the supervisor needs to finish the job: where to look and what to report.
#[derive(Debug)]
pub(crate) struct Collect {
    pub log_path: PathBuf,
    pub metrics_path: PathBuf,
    pub results_path: PathBuf,
    pub sandboxed: bool,
    pub time_limit: Duration,
    pub grace: Duration,
    pub warnings: Vec<String>,
    pub gpus: String,
    /// RLIMIT_AS in bytes, to name it when the log shows it was hit.
    pub memory_limit: Option<u64>,
    /// The process watchdog's limit (see `Job::max_processes`).
    pub max_processes: Option<u32>,
    /// The run card built at the start (`run_card.rs`), written when the job has ended.
    pub run_card: Option<String>,
}

impl Collect {
    /// The job's workspace: the log is always `<workspace>/results/run.log` (`check_job`).
    pub(super) fn workspace(&self) -> PathBuf {
        self.log_path
            .parent()
            .and_then(|results| results.parent())
            .map_or_else(|| PathBuf::from("."), PathBuf::from)
    }
}

/// `path` relative to `workspace` (it is always inside: both come from `check_job`).
fn rel(workspace: &std::path::Path, path: &std::path::Path) -> PathBuf {
    path.strip_prefix(workspace)
        .map_or_else(|_| path.to_path_buf(), PathBuf::from)
}

/// How often the watchdog counts the job's processes (a Slurm job's script too).
pub(super) const WATCH_EVERY: Duration = Duration::from_millis(100);

enum Control {
    Exited(std::io::Result<ExitStatus>),
    Kill,
}

/// Where the outcome is published once, for every waiter.
#[derive(Default)]
pub(super) struct Shared {
    outcome: Mutex<Option<JobOutcome>>,
    done: Condvar,
}

impl Shared {
    pub(super) fn publish(&self, outcome: JobOutcome) {
        let mut slot = self.outcome.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(outcome);
        }
        drop(slot);
        self.done.notify_all();
    }

    /// Blocks until the outcome is published; every caller gets the same one.
    pub(super) fn wait(&self) -> JobOutcome {
        let mut slot = self.outcome.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(outcome) = slot.as_ref() {
                return outcome.clone();
            }
            slot = self.done.wait(slot).unwrap_or_else(|p| p.into_inner());
        }
    }

    pub(super) fn get(&self) -> Option<JobOutcome> {
        self.outcome
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

/// The engine's handle on a local job.
pub(crate) struct JobHandle {
    pid: u32,
    log_path: PathBuf,
    /// `CUDA_VISIBLE_DEVICES` as given to the job (empty: CPU only).
    gpus: String,
    control: Sender<Control>,
    shared: Arc<Shared>,
}

/// Starts the supervisor; returns once the process exists (or failed to start).
pub fn spawn(
    command: Command,
    program: &str,
    collect: Collect,
    lease: GpuLease,
) -> Result<JobHandle, ExecError> {
    let (control, inbox) = mpsc::channel();
    let (started_tx, started_rx) = mpsc::sync_channel(1);
    let shared = Arc::new(Shared::default());
    let log_path = collect.log_path.clone();
    let gpus = collect.gpus.clone();
    let (shared2, control2) = (Arc::clone(&shared), control.clone());
    let spawned = thread::Builder::new()
        .name("youra-exec".into())
        .spawn(move || {
            supervise(
                command,
                collect,
                lease,
                (control2, inbox),
                started_tx,
                &shared2,
            )
        });
    let spawn_err = |source| ExecError::Spawn {
        program: program.to_string(),
        source,
    };
    spawned.map_err(spawn_err)?;
    let pid = match started_rx.recv() {
        Ok(Ok(pid)) => pid,
        Ok(Err(source)) => {
            let _ = append_line(&log_path, &format!("EXPERIMENT NOT STARTED: {source}"));
            return Err(spawn_err(source));
        }
        Err(_) => {
            return Err(spawn_err(std::io::Error::other(
                "the supervisor thread ended early",
            )));
        }
    };
    Ok(JobHandle {
        pid,
        log_path,
        gpus,
        control,
        shared,
    })
}

fn supervise(
    mut command: Command,
    collect: Collect,
    lease: GpuLease,
    (control, inbox): (Sender<Control>, Receiver<Control>),
    started: mpsc::SyncSender<std::io::Result<u32>>,
    shared: &Shared,
) {
    let child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            let _ = started.send(Err(e));
            return;
        }
    };
    let started_at = Instant::now();
    let pid = child.id();
    let _ = started.send(Ok(pid));
    let waiter = thread::Builder::new()
        .name("youra-exec-wait".into())
        .spawn(move || {
            let mut child = child;
            let _ = control.send(Control::Exited(child.wait()));
        });
    if let Err(e) = waiter {
        // Without a waiter nobody reaps the child; end it rather than leave it unsupervised.
        let _ = signal_group(pid, libc::SIGKILL);
        let mut outcome = collect_outcome(&collect, ExitKind::Killed, started_at.elapsed());
        outcome
            .warnings
            .push(format!("could not supervise the job: {e}"));
        return shared.publish(outcome);
    }
    let (exit, duration) = run_to_end(pid, &collect, &inbox, started_at);
    // Stragglers: processes the command left behind in its group die with it.
    let _ = signal_group(pid, libc::SIGKILL);
    let outcome = collect_outcome(&collect, exit, duration);
    drop(lease);
    shared.publish(outcome);
}

/// Waits for the exit, the deadline or a kill request; returns how the job ended and when.
fn run_to_end(
    pid: u32,
    collect: &Collect,
    inbox: &Receiver<Control>,
    started: Instant,
) -> (ExitKind, Duration) {
    let deadline = started + collect.time_limit;
    let (status, ended_by_us) = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let wait = match collect.max_processes {
            Some(_) => left.min(WATCH_EVERY),
            None => left,
        };
        match inbox.recv_timeout(wait) {
            Ok(Control::Exited(status)) => break (status, None),
            Ok(Control::Kill) => {
                break (terminate(pid, collect.grace, inbox), Some(ExitKind::Killed));
            }
            Err(RecvTimeoutError::Timeout) if Instant::now() >= deadline => {
                break (
                    terminate(pid, collect.grace, inbox),
                    Some(ExitKind::TimedOut),
                );
            }
            Err(RecvTimeoutError::Timeout) => {
                if let Some(max) = collect.max_processes
                    && group_size(pid) > max as usize
                {
                    // Stop the whole group at once: a fork bomb outruns a polite SIGTERM.
                    let _ = signal_group(pid, libc::SIGKILL);
                    let status = terminate(pid, Duration::ZERO, inbox);
                    break (status, Some(ExitKind::ProcessLimit(max)));
                }
            }
            // Unreachable while the waiter holds its sender; treat as an exit we cannot read.
            Err(RecvTimeoutError::Disconnected) => {
                break (Err(std::io::Error::other("waiter lost")), None);
            }
        }
    };
    let duration = started.elapsed();
    let exit = ended_by_us.unwrap_or_else(|| exit_kind(status, collect.sandboxed));
    (exit, duration)
}

/// Processes in the process group `pgid` (field 5 of `/proc/<pid>/stat`).
fn group_size(pgid: u32) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter(|stat| {
            // `pid (comm) state ppid pgrp …`: comm may hold spaces, so read after the last ')'.
            stat.rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(2)?.parse::<u32>().ok())
                == Some(pgid)
        })
        .count()
}

/// SIGTERM to the group, the grace period for a clean exit, then SIGKILL.
fn terminate(pid: u32, grace: Duration, inbox: &Receiver<Control>) -> std::io::Result<ExitStatus> {
    let _ = signal_group(pid, libc::SIGTERM);
    let until = Instant::now() + grace;
    loop {
        match inbox.recv_timeout(until.saturating_duration_since(Instant::now())) {
            Ok(Control::Exited(status)) => return status,
            Ok(Control::Kill) => continue,
            Err(_) => break,
        }
    }
    let _ = signal_group(pid, libc::SIGKILL);
    loop {
        match inbox.recv() {
            Ok(Control::Exited(status)) => return status,
            Ok(Control::Kill) => continue,
            Err(_) => return Err(std::io::Error::other("waiter lost")),
        }
    }
}

/// Maps a wait status. Inside bubblewrap a signal death arrives as exit 128+n (bwrap's own
/// convention), so such codes are reported as the signal.
fn exit_kind(status: std::io::Result<ExitStatus>, sandboxed: bool) -> ExitKind {
    use std::os::unix::process::ExitStatusExt;
    let Ok(status) = status else {
        return ExitKind::Killed;
    };
    match (status.code(), status.signal()) {
        (Some(code), _) if sandboxed && (129..=128 + 64).contains(&code) => {
            ExitKind::Signalled(code - 128)
        }
        (Some(code), _) => ExitKind::Exited(code),
        (None, Some(sig)) => ExitKind::Signalled(sig),
        (None, None) => ExitKind::Killed,
    }
}

/// What a process prints when an allocation fails under RLIMIT_AS.
fn hit_memory_limit(tail: &[String]) -> bool {
    const SIGNS: [&str; 5] = [
        "MemoryError",
        "Cannot allocate memory",
        "std::bad_alloc",
        "out of memory",
        "Unable to allocate",
    ];
    tail.iter().any(|l| SIGNS.iter().any(|s| l.contains(s)))
}

pub(super) fn collect_outcome(collect: &Collect, exit: ExitKind, duration: Duration) -> JobOutcome {
    // First of all, before youra opens anything the job left: set-id and capability files,
    // FIFOs (one as the log or the metrics file would block the reads below) and huge
    // files are removed, each a violation (`scan.rs`).
    let workspace = collect.workspace();
    let scan = super::scan::scan(&workspace);
    let mut violations = scan.violations;
    let mut warnings = collect.warnings.clone();
    warnings.extend(scan.cleared);
    if let Err(e) = append_line(&collect.log_path, &completion_line(&exit)) {
        warnings.push(format!(
            "cannot append the completion line to {}: {e}",
            collect.log_path.display()
        ));
    }
    if let ExitKind::ProcessLimit(max) = exit {
        warnings.push(format!(
            "process limit reached: the job had more than {max} processes at once and was stopped (engine.experiment_max_processes)"
        ));
    }
    if let Some(bytes) = collect.memory_limit
        && hit_memory_limit(&tail_lines(&collect.log_path, 40))
    {
        warnings.push(format!(
            "memory limit reached: the job ran out of its {} MiB address space (engine.experiment_memory_mb)",
            bytes / 1024 / 1024
        ));
    }
    // Every file is read from the workspace following no link on any component: experiment
    // code can rename `results/` and leave a link to a host folder in its place.
    let mut failed = Vec::new();
    let metrics = read_metrics_beneath(&workspace, &rel(&workspace, &collect.metrics_path))
        .unwrap_or_else(|e| {
            failed.push(e);
            MetricsBatch::default()
        });
    warnings.extend(metrics.warnings);
    let results = match read_results_beneath(&workspace, &rel(&workspace, &collect.results_path)) {
        Ok(Ok(v)) => v,
        Ok(Err(w)) => {
            warnings.push(w);
            None
        }
        Err(e) => {
            failed.push(e);
            None
        }
    };
    for e in failed {
        match crate::fsutil::planted_link(&e) {
            Some(link) => violations.push(link.to_string()),
            None => warnings.push(e.to_string()),
        }
    }
    for v in super::trust::planted_links(&workspace) {
        if !violations.contains(&v) {
            violations.push(v);
        }
    }
    // Last, once the links are named: the card replaces whatever holds its name.
    if let Some(card) = &collect.run_card
        && let Err(e) = super::run_card::write(&workspace, card)
    {
        warnings.push(e);
    }
    JobOutcome {
        violations,
        exit,
        duration,
        log_path: collect.log_path.clone(),
        metrics: metrics.records,
        results,
        warnings,
        sandboxed: collect.sandboxed,
        gpus: collect.gpus.clone(),
    }
}

impl RunningJob for JobHandle {
    fn pid(&self) -> Option<u32> {
        Some(self.pid)
    }

    fn placement(&self) -> String {
        match self.gpus.as_str() {
            "" => "cpu".into(),
            g => format!("GPU {g}"),
        }
    }

    fn tail(&self, n: usize) -> Vec<String> {
        tail_lines(&self.log_path, n)
    }

    fn kill(&self) {
        // After the job ended the supervisor is gone and the send fails: nothing to kill.
        let _ = self.control.send(Control::Kill);
    }

    fn wait(&self) -> JobOutcome {
        self.shared.wait()
    }

    fn try_outcome(&self) -> Option<JobOutcome> {
        self.shared.get()
    }
}
