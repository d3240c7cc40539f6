//! Stopping `youra run` (and `youra demo`) cleanly on SIGTERM, SIGINT or SIGHUP.
//!
//! Every experiment the engine starts is wrapped in [`follow`], which registers it until it
//! has ended or been dropped. On a signal, [`install`]'s thread: marks the engine stopping
//! (a registered job's `wait` then never returns, so no outcome of a job killed here is
//! judged, repaired or recorded), ends every local experiment's whole process group (SIGTERM,
//! then SIGKILL after a short grace: with `sandbox = "off"` nothing else would, and the
//! group would outlive its time limit as an orphan), appends an `engine_stop` event to
//! events.jsonl naming what it killed and what it left, and exits 128 + the signal.
//!
//! Slurm jobs are left running: their record in the VSA (`stages/reattach.rs`) lets the
//! next `youra run` re-attach, as after a `kill -9`, and their own `--time` bounds them. A
//! lost SSH session (SIGHUP) must not throw away a job's queue wait and progress; the event
//! names each job and the `scancel` that ends it. A detached engine (`youra run --detach`)
//! ignores SIGHUP.
//!
//! The step in progress is not recorded (steps are recorded when they complete), so a
//! resumed engine runs it again from its start: the same as after a crash.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::exec::{JobOutcome, PlacementNotify, RunningJob};
use crate::rundir::events::{Event, EventLog};

/// How long a local group gets between SIGTERM and SIGKILL when youra is stopped.
const GRACE: Duration = Duration::from_secs(2);

#[derive(Debug, Clone)]
struct Live {
    hypothesis: String,
    pgid: Option<u32>,
    scheduler_id: Option<String>,
}

static LIVE: Mutex<BTreeMap<u64, Live>> = Mutex::new(BTreeMap::new());
static NEXT: AtomicU64 = AtomicU64::new(1);
static STOPPING: AtomicBool = AtomicBool::new(false);

fn live() -> std::sync::MutexGuard<'static, BTreeMap<u64, Live>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// A started experiment, registered until it ends or is dropped.
struct Followed {
    inner: Box<dyn RunningJob>,
    token: u64,
}

/// Registers `running` (the experiment of `hypothesis`) so a signal can end it.
pub fn follow(hypothesis: &str, running: Box<dyn RunningJob>) -> Box<dyn RunningJob> {
    let token = NEXT.fetch_add(1, Ordering::Relaxed);
    live().insert(
        token,
        Live {
            hypothesis: hypothesis.to_string(),
            pgid: running.pid(),
            scheduler_id: running.scheduler_id(),
        },
    );
    Box::new(Followed {
        inner: running,
        token,
    })
}

impl Followed {
    fn ended(&self) {
        live().remove(&self.token);
    }
}

/// Never returns while the process is being stopped: the outcome of a job the signal
/// killed must not reach the engine (it would be judged a failure and repaired).
fn hold_if_stopping() {
    while STOPPING.load(Ordering::SeqCst) {
        std::thread::park_timeout(Duration::from_secs(1));
    }
}

impl RunningJob for Followed {
    fn pid(&self) -> Option<u32> {
        self.inner.pid()
    }
    fn scheduler_id(&self) -> Option<String> {
        self.inner.scheduler_id()
    }
    fn tail(&self, n: usize) -> Vec<String> {
        self.inner.tail(n)
    }
    fn kill(&self) {
        self.inner.kill();
    }
    fn wait(&self) -> JobOutcome {
        let outcome = self.inner.wait();
        hold_if_stopping();
        self.ended();
        outcome
    }
    fn try_outcome(&self) -> Option<JobOutcome> {
        if STOPPING.load(Ordering::SeqCst) {
            return None;
        }
        let outcome = self.inner.try_outcome()?;
        self.ended();
        Some(outcome)
    }
    fn placement(&self) -> String {
        self.inner.placement()
    }
    fn follow_placement(&self, shown: &str, notify: PlacementNotify) {
        self.inner.follow_placement(shown, notify);
    }
}

impl Drop for Followed {
    fn drop(&mut self) {
        self.ended();
    }
}

/// What a stop did to the experiments in flight.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Stopped {
    /// `(hypothesis, process group)` of each local experiment ended.
    pub killed: Vec<(String, u32)>,
    /// `(hypothesis, Slurm job id)` of each scheduler job left for re-attachment.
    pub left: Vec<(String, String)>,
}

impl Stopped {
    /// The `engine_stop` event's message.
    pub fn describe(&self, signal: &str, run: &Path) -> String {
        let mut s = format!("youra was stopped by {signal}");
        if self.killed.is_empty() {
            s.push_str("; no local experiment was running");
        } else {
            let groups: Vec<String> = self
                .killed
                .iter()
                .map(|(h, g)| format!("{h} (process group {g})"))
                .collect();
            s.push_str(&format!("; ended the experiments of {}", groups.join(", ")));
        }
        if !self.left.is_empty() {
            let jobs: Vec<String> = self
                .left
                .iter()
                .map(|(h, id)| format!("{h} (Slurm job {id}; `scancel {id}` ends it)"))
                .collect();
            s.push_str(&format!(
                "; left running for the next engine to re-attach: {}",
                jobs.join(", ")
            ));
        }
        s.push_str(&format!(
            "; the step in progress was not recorded: `youra run {}` resumes it",
            run.display()
        ));
        s
    }
}

/// Marks the process stopping and ends every registered local experiment's process group:
/// SIGTERM, then SIGKILL to whatever is left after `grace`.
pub(crate) fn stop_experiments(grace: Duration) -> Stopped {
    STOPPING.store(true, Ordering::SeqCst);
    let jobs: Vec<Live> = live().values().cloned().collect();
    let mut stopped = Stopped::default();
    let mut groups = Vec::new();
    for j in jobs {
        match (j.scheduler_id, j.pgid) {
            (Some(id), _) => stopped.left.push((j.hypothesis, id)),
            (None, Some(pgid)) => {
                let _ = crate::exec::signal_group(pgid, libc::SIGTERM);
                groups.push(pgid);
                stopped.killed.push((j.hypothesis, pgid));
            }
            (None, None) => {}
        }
    }
    let until = Instant::now() + grace;
    while Instant::now() < until && groups.iter().any(|&g| group_alive(g)) {
        std::thread::sleep(Duration::from_millis(50));
    }
    for &g in &groups {
        let _ = crate::exec::signal_group(g, libc::SIGKILL);
    }
    stopped
}

/// Whether any process is left in group `pgid` (signal 0 checks without sending).
fn group_alive(pgid: u32) -> bool {
    matches!(crate::exec::signal_group(pgid, 0), Ok(true))
}

/// The signal's name, for the event and the message.
fn name(signal: libc::c_int) -> &'static str {
    match signal {
        libc::SIGTERM => "SIGTERM",
        libc::SIGINT => "SIGINT",
        libc::SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

/// Handles SIGTERM, SIGINT and (unless `ignore_hangup`: a detached engine) SIGHUP for the
/// engine running `run`, on a thread of its own: see the module's comment.
pub fn install(run: &Path, ignore_hangup: bool) -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut wanted = vec![SIGTERM, SIGINT];
    if !ignore_hangup {
        wanted.push(SIGHUP);
    }
    let mut signals = signal_hook::iterator::Signals::new(&wanted)?;
    let run: PathBuf = run.to_path_buf();
    std::thread::Builder::new()
        .name("youra-signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                let code = stop(&run, signal);
                std::process::exit(code);
            }
        })?;
    Ok(())
}

/// The stop itself: experiments ended, the event written, the message said. Returns the
/// exit status (128 + the signal, as a shell reports a process the signal killed).
fn stop(run: &Path, signal: libc::c_int) -> i32 {
    let stopped = stop_experiments(GRACE);
    let message = stopped.describe(name(signal), run);
    tracing::warn!("{message}");
    let event = Event::new("engine_stop")
        .result(name(signal))
        .message(message.clone());
    if let Err(e) = EventLog::new(run).emit(event) {
        eprintln!("youra: cannot append to events.jsonl: {e}");
    }
    eprintln!("youra: {message}");
    128 + signal
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_names_what_was_ended_and_what_was_left() {
        let s = Stopped {
            killed: vec![("h-e1".into(), 4242)],
            left: vec![("h-m1".into(), "17".into())],
        };
        let m = s.describe("SIGTERM", Path::new("/runs/r"));
        assert_eq!(
            m,
            "youra was stopped by SIGTERM; ended the experiments of h-e1 (process group 4242); left running for the next engine to re-attach: h-m1 (Slurm job 17; `scancel 17` ends it); the step in progress was not recorded: `youra run /runs/r` resumes it"
        );
        let none = Stopped::default().describe("SIGINT", Path::new("r"));
        assert!(none.contains("no local experiment was running"), "{none}");
    }
}
