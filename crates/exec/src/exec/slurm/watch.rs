//! The watcher of one Slurm job: a thread that polls its state (`squeue`, then `scontrol`
//! for the exit code once it has left the queue), cancels it when the engine's time limit
//! passes or on a kill request, resubmits it once after a node failure, and collects the
//! outcome from the job's files exactly as a local job's (`supervise::collect_outcome`).

use std::ffi::OsString;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::cli::Client;
use super::state::{JobInfo, SlurmState, Verdict, verdict};
use super::watchdog::process_limit;
use crate::exec::job::{ExitKind, JobOutcome};
use crate::exec::log::tail_lines;
use crate::exec::supervise::{Collect, Shared, collect_outcome};
use crate::exec::{PlacementNotify, RunningJob};

/// Ids of the jobs this back end still watches (cancelled when the back end is dropped).
pub type Live = Arc<Mutex<std::collections::BTreeSet<String>>>;

/// Everything the watcher needs to follow (and once resubmit) one job.
pub struct Watch {
    pub client: Client,
    pub id: String,
    pub script: String,
    pub args: Vec<OsString>,
    pub collect: Collect,
    pub poll: Duration,
    pub live: Live,
}

enum Control {
    Kill,
}

/// Where the job is: learnt by the watcher, shown by the handle, told to whoever follows it.
struct Place {
    id: String,
    node: Option<String>,
    /// The placement `notify` was last told (or its follower had already seen).
    shown: String,
    notify: Option<PlacementNotify>,
}

/// `Slurm job 5`, then `Slurm job 5 on node07` once Slurm has placed it.
pub(crate) fn placement_text(id: &str, node: Option<&str>) -> String {
    match node {
        Some(node) => format!("Slurm job {id} on {node}"),
        None => format!("Slurm job {id}"),
    }
}

/// Applies `edit`, then tells the follower when the placement it shows changed. The call is
/// made under the lock so followers see changes in order; it must not call back into the job.
fn change(place: &Mutex<Place>, edit: impl FnOnce(&mut Place)) {
    let mut p = lock(place);
    edit(&mut p);
    let now = placement_text(&p.id, p.node.as_deref());
    if now != p.shown
        && let Some(notify) = p.notify.clone()
    {
        p.shown = now.clone();
        notify(&now);
    }
}

/// The engine's handle on a Slurm job.
pub struct SlurmJob {
    place: Arc<Mutex<Place>>,
    log_path: std::path::PathBuf,
    control: Sender<Control>,
    shared: Arc<Shared>,
}

/// Starts the watcher thread.
pub fn spawn(w: Watch) -> SlurmJob {
    let (control, inbox) = mpsc::channel();
    let shared = Arc::new(Shared::default());
    let place = Arc::new(Mutex::new(Place {
        id: w.id.clone(),
        node: None,
        shown: String::new(),
        notify: None,
    }));
    let job = SlurmJob {
        place: Arc::clone(&place),
        log_path: w.collect.log_path.clone(),
        control,
        shared: Arc::clone(&shared),
    };
    lock(&w.live).insert(w.id.clone());
    let (client, first_id, log_path) = (w.client.clone(), w.id.clone(), w.collect.log_path.clone());
    let spawned = thread::Builder::new()
        .name("youra-slurm".into())
        .spawn(move || {
            let outcome = follow(&w, &place, &inbox);
            let id = lock(&place).id.clone();
            lock(&w.live).remove(&id);
            shared.publish(outcome);
        });
    if let Err(e) = spawned {
        // Submitted, but nobody would follow it: cancel it rather than leave it unwatched.
        client.cancel(&first_id);
        job.shared.publish(JobOutcome {
            exit: ExitKind::Killed,
            duration: Duration::ZERO,
            log_path,
            metrics: Vec::new(),
            results: None,
            warnings: vec![format!(
                "could not watch Slurm job {first_id} ({e}); it was cancelled"
            )],
            sandboxed: false,
            gpus: String::new(),
            violations: Vec::new(),
        });
    }
    job
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Why the watcher stops a job itself.
#[derive(Clone, Copy)]
enum Stop {
    Kill,
    TimeLimit,
}

fn follow(w: &Watch, place: &Mutex<Place>, inbox: &Receiver<Control>) -> JobOutcome {
    let mut id = w.id.clone();
    let mut resubmitted = false;
    let mut started: Option<Instant> = None;
    let mut stopping: Option<(Stop, Instant)> = None;
    let mut notes: Vec<String> = Vec::new();
    loop {
        let deadline = started.map(|s| s + w.collect.time_limit);
        let wait = match deadline {
            Some(d) if stopping.is_none() => {
                w.poll.min(d.saturating_duration_since(Instant::now()))
            }
            _ => w.poll,
        };
        match inbox.recv_timeout(wait) {
            Ok(Control::Kill) if stopping.is_none() => {
                w.client.cancel(&id);
                stopping = Some((Stop::Kill, Instant::now()));
            }
            Ok(Control::Kill) | Err(RecvTimeoutError::Timeout) => {}
            // The handle was dropped: nobody wants the job any more.
            Err(RecvTimeoutError::Disconnected) if stopping.is_none() => {
                w.client.cancel(&id);
                stopping = Some((Stop::Kill, Instant::now()));
            }
            Err(RecvTimeoutError::Disconnected) => thread::sleep(w.poll),
        }
        if stopping.is_none() && deadline.is_some_and(|d| Instant::now() >= d) {
            w.client.cancel(&id);
            stopping = Some((Stop::TimeLimit, Instant::now()));
        }
        let (state, used, node, info) = read_state(&w.client, &id);
        if let Some(node) = node {
            change(place, |p| p.node = Some(node));
        }
        let Some(state) = state else {
            notes.push(format!(
                "Slurm no longer knows job {id} (finished more than MinJobAge ago, or the controller lost it)"
            ));
            return finish(w, &id, ExitKind::Killed, started, None, notes);
        };
        let exit = info.as_ref().and_then(|i| i.exit);
        match verdict(&state, exit) {
            Verdict::Waiting => {}
            Verdict::Running => {
                // From when Slurm started it: a re-attached job's time so far counts, so
                // youra's limit still passes before Slurm's --time.
                let now = Instant::now();
                started.get_or_insert_with(|| used.and_then(|u| now.checked_sub(u)).unwrap_or(now));
            }
            Verdict::Ended(kind) => {
                let kind = match stopping {
                    Some((Stop::TimeLimit, _)) => ExitKind::TimedOut,
                    Some((Stop::Kill, _)) => ExitKind::Killed,
                    None => process_limit(
                        kind,
                        w.collect.max_processes,
                        &tail_lines(&w.collect.log_path, 5),
                    ),
                };
                if stopping.is_none() && state != SlurmState::Completed {
                    // Slurm ended it, not youra: say which state (a TIMEOUT here is the
                    // cluster's --time, youra's own limit having not yet passed).
                    notes.push(format!("Slurm ended job {id} as {}", state.name()));
                }
                if let Some(node) = info.as_ref().and_then(|i| i.node.clone()) {
                    notes.push(format!("ran as Slurm job {id} on {node}"));
                }
                return finish(w, &id, kind, started, info, notes);
            }
            Verdict::Resubmit if !resubmitted && stopping.is_none() => {
                resubmitted = true;
                match w.client.submit(&w.args, &w.script) {
                    Ok(new) => {
                        notes.push(format!(
                            "Slurm job {id} ended {state:?}; resubmitted once as job {new}"
                        ));
                        let mut live = lock(&w.live);
                        live.remove(&id);
                        live.insert(new.clone());
                        drop(live);
                        id = new;
                        change(place, |p| {
                            p.id = id.clone();
                            p.node = None;
                        });
                        started = None;
                    }
                    Err(e) => {
                        notes.push(format!(
                            "Slurm job {id} ended {state:?}; resubmitting failed: {e}"
                        ));
                        return finish(w, &id, ExitKind::Killed, started, info, notes);
                    }
                }
            }
            Verdict::Resubmit => {
                notes.push(format!("Slurm job {id} ended {state:?} again; not retried"));
                return finish(w, &id, ExitKind::Killed, started, info, notes);
            }
        }
    }
}

/// What one look at a job found: its state, time used, node (once placed) and, from
/// `scontrol`, its record.
type Seen = (
    Option<SlurmState>,
    Option<Duration>,
    Option<String>,
    Option<JobInfo>,
);

/// From `squeue` while the job is listed; from `scontrol` (with the exit code) once it is
/// not, or when `squeue` shows an end. A `None` state: neither knows the job.
fn read_state(client: &Client, id: &str) -> Seen {
    if let Some(q) = client.queue_state(id)
        && matches!(verdict(&q.state, None), Verdict::Waiting | Verdict::Running)
    {
        return (Some(q.state), q.used, q.node, None);
    }
    match client.show(id) {
        Ok(Some(info)) => (
            Some(info.state.clone()),
            info.run_time,
            info.node.clone(),
            Some(info),
        ),
        Ok(None) => (None, None, None, None),
        Err(e) => {
            // The controller did not answer: ask again on the next poll.
            tracing::warn!("{e}");
            (
                Some(SlurmState::Other("UNREACHABLE".into())),
                None,
                None,
                None,
            )
        }
    }
}

fn finish(
    w: &Watch,
    id: &str,
    exit: ExitKind,
    started: Option<Instant>,
    info: Option<JobInfo>,
    notes: Vec<String>,
) -> JobOutcome {
    // Slurm's own RunTime (whole seconds) when it has one; else what the watcher saw.
    let observed = started.map(|s| s.elapsed()).unwrap_or_default();
    let duration = info
        .and_then(|i| i.run_time)
        .filter(|d| !d.is_zero())
        .unwrap_or(observed);
    let mut outcome = collect_outcome(&w.collect, exit, duration);
    outcome.warnings.extend(notes);
    tracing::info!(job = id, exit = %outcome.exit.log_label(), "slurm job ended");
    outcome
}

impl RunningJob for SlurmJob {
    fn pid(&self) -> Option<u32> {
        None
    }

    fn scheduler_id(&self) -> Option<String> {
        Some(lock(&self.place).id.clone())
    }

    fn placement(&self) -> String {
        let p = lock(&self.place);
        placement_text(&p.id, p.node.as_deref())
    }

    fn follow_placement(&self, shown: &str, notify: PlacementNotify) {
        change(&self.place, |p| {
            p.shown = shown.to_string();
            p.notify = Some(notify);
        });
    }

    fn tail(&self, n: usize) -> Vec<String> {
        tail_lines(&self.log_path, n)
    }

    fn kill(&self) {
        let _ = self.control.send(Control::Kill);
    }

    fn wait(&self) -> JobOutcome {
        self.shared.wait()
    }

    fn try_outcome(&self) -> Option<JobOutcome> {
        self.shared.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_follower_is_told_each_new_placement_once() {
        let place = Mutex::new(Place {
            id: "7".into(),
            node: None,
            shown: String::new(),
            notify: None,
        });
        let told = Arc::new(Mutex::new(Vec::<String>::new()));
        // Before anyone follows, changes are only remembered.
        change(&place, |p| p.node = Some("n1".into()));
        let sink = Arc::clone(&told);
        let follow = |shown: &str| {
            let sink = Arc::clone(&sink);
            change(&place, |p| {
                p.shown = shown.to_string();
                p.notify = Some(Arc::new(move |now: &str| lock(&sink).push(now.into())));
            })
        };
        // The follower read "Slurm job 7" before the node was known: told at once.
        follow("Slurm job 7");
        change(&place, |p| p.node = Some("n1".into()));
        change(&place, |p| {
            p.id = "8".into();
            p.node = None;
        });
        change(&place, |p| p.node = Some("n2".into()));
        assert_eq!(
            *lock(&told),
            ["Slurm job 7 on n1", "Slurm job 8", "Slurm job 8 on n2"]
        );
        // A follower that already saw the current placement is not told it again.
        lock(&told).clear();
        follow("Slurm job 8 on n2");
        assert!(lock(&told).is_empty());
    }
}
