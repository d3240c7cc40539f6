//! Who hears that a model endpoint is being waited for, and the clock the waiting runs on:
//! the retry loop (`super::retry`) tells an [`OutageWatch`] when an outage starts, ends or
//! outlasts its window; the engine listens (`crate::engine::outage`). Here so the loop's rules
//! stay pure and the wiring stays out of them.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// Time as the retry loop sees it: a real clock, or a test's that moves only when it sleeps.
pub trait Clock {
    fn now(&self) -> Instant;
    /// The wall-clock time, for what a researcher reads ("since 14:05").
    fn wall(&self) -> SystemTime;
    fn sleep(&mut self, pause: Duration);
}

/// The process's clocks and `std::thread::sleep`.
pub struct RealClock;

impl Clock for RealClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
    fn wall(&self) -> SystemTime {
        SystemTime::now()
    }
    fn sleep(&mut self, pause: Duration) {
        std::thread::sleep(pause)
    }
}

/// What a client waiting out an outage says, for whoever shows the run (the engine writes
/// events, `youra status`'s line and a notice from it).
#[derive(Debug, Clone, PartialEq)]
pub enum OutageNote {
    /// The quick retries are spent and `url` still does not answer: waiting since `since`
    /// (its first failure), at most until `until`.
    Waiting {
        url: String,
        since: SystemTime,
        until: SystemTime,
        error: String,
    },
    /// It answered again (with a reply, or an error waiting cannot fix) after `waited`.
    Back {
        url: String,
        since: SystemTime,
        waited: Duration,
    },
    /// The window passed: the call fails with [`super::LlmError::Outage`].
    GaveUp {
        url: String,
        since: SystemTime,
        waited: Duration,
    },
}

type Listener = Arc<dyn Fn(&OutageNote) + Send + Sync>;

/// Where the notes go: one per run's roles, shared by their clients; the engine sets the
/// listener once it has its event log. Without one, notes are dropped. It also remembers
/// whether the last outage ended in a give-up, so the stop that follows is named an
/// infrastructure stop wherever the error travelled ([`OutageWatch::take_gave_up`]).
#[derive(Clone, Default)]
pub struct OutageWatch {
    listener: Arc<Mutex<Option<Listener>>>,
    gave_up: Arc<Mutex<Option<String>>>,
}

impl std::fmt::Debug for OutageWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OutageWatch")
    }
}

impl OutageWatch {
    pub fn listen(&self, listener: impl Fn(&OutageNote) + Send + Sync + 'static) {
        if let Ok(mut slot) = self.listener.lock() {
            *slot = Some(Arc::new(listener));
        }
    }

    pub fn tell(&self, note: &OutageNote) {
        if let Ok(mut g) = self.gave_up.lock() {
            *g = match note {
                OutageNote::GaveUp { url, .. } => Some(url.clone()),
                _ => None,
            };
        }
        let listener = self.listener.lock().ok().and_then(|l| l.clone());
        if let Some(listener) = listener {
            listener(note);
        }
    }

    /// The endpoint whose outage outlasted its window, if no call has succeeded since; taken.
    pub fn take_gave_up(&self) -> Option<String> {
        self.gave_up.lock().ok().and_then(|mut g| g.take())
    }

    /// A call succeeded: an earlier give-up no longer explains anything.
    pub fn answered(&self) {
        if let Ok(mut g) = self.gave_up.lock() {
            *g = None;
        }
    }
}
