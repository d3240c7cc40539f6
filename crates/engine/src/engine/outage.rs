//! A model endpoint that does not answer: the run waits it out (`llm::retry` retries with
//! backoff for `[llm] outage_wait_s`), and this module is how the wait is seen and how the
//! run goes on after it. While waiting, `<run>/.youra/waiting.json` says for which endpoint
//! and since when (read by `youra status`), and `model_waiting` / `model_back` events reach
//! the TUI, the printed log and `[notify]`. Past the window the run stops as an
//! *infrastructure stop*: its reason starts with [`PREFIX`], and the next `youra run` (or
//! `youra steer RUN resume`) lifts it and goes on where it stopped.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use crate::llm::retry::OutageNote;
use crate::rundir::events::{Event, EventLog};
use crate::vsa::enums::WorkflowStatus;
use crate::vsa::mutation::{Change, Mutation};

/// How an infrastructure stop's reason begins: the one mark readers decide by.
pub(crate) const PREFIX: &str = "infrastructure stop: ";

/// The waiting record, under the run's private `.youra/`.
pub(crate) const WAITING_FILE: &str = ".youra/waiting.json";

/// The most of the waiting record read back (it is a few hundred bytes).
const WAITING_CAP: u64 = 16 * 1024;

/// The stop reason for a stop an outage caused, with what brings the run back.
pub fn mark(reason: &str) -> String {
    if reason.starts_with(PREFIX) {
        return reason.to_string();
    }
    format!(
        "{PREFIX}{reason}; once the model server answers, `youra run` on this run (or `youra steer <run> resume`) goes on from here"
    )
}

/// [`mark`] for an outage of something other than a model server (`what`: "the Slurm
/// controller").
pub(crate) fn mark_for(reason: &str, what: &str) -> String {
    if reason.starts_with(PREFIX) {
        return reason.to_string();
    }
    format!(
        "{PREFIX}{reason}; once {what} answers, `youra run` on this run (or `youra steer <run> resume`) goes on from here"
    )
}

/// Whether a stop reason is an infrastructure stop's.
pub fn is_infrastructure(reason: Option<&str>) -> bool {
    reason.is_some_and(|r| r.starts_with(PREFIX))
}

/// The write that lifts a stop: ACTIVE again, the reason cleared, `why` in the history.
pub fn lift(why: &str) -> Mutation {
    Mutation::by("engine")
        .with(
            Change::Set {
                path: "workflow.status".into(),
                value: WorkflowStatus::Active.as_str().into(),
            },
            "resume",
            why,
        )
        .with(
            Change::Set {
                path: "workflow.stop_reason".into(),
                value: "null".into(),
            },
            "resume",
            why,
        )
}

/// What `youra status` shows while an engine waits: the record, when its writer still runs.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Waiting {
    pub endpoint: String,
    /// RFC 3339, UTC.
    pub since: String,
    pub until: String,
    pub error: String,
}

impl Waiting {
    /// `waiting for http://… since 14:05:03 UTC (…); the run goes on by itself when it answers`.
    pub fn line(&self) -> String {
        format!(
            "waiting for {} since {} (retrying until {}; last: {}); the run goes on by itself when it answers",
            self.endpoint,
            clock(&self.since),
            clock(&self.until),
            self.error
        )
    }
}

/// `2026-12-05T14:05:03Z` → `14:05:03 UTC` (the date when it is not today's).
fn clock(rfc: &str) -> String {
    let Ok(t) = chrono::DateTime::parse_from_rfc3339(rfc) else {
        return rfc.to_string();
    };
    let t = t.with_timezone(&chrono::Utc);
    if t.date_naive() == chrono::Utc::now().date_naive() {
        t.format("%H:%M:%S UTC").to_string()
    } else {
        t.format("%Y-%m-%d %H:%M:%S UTC").to_string()
    }
}

fn rfc(t: SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// The waiting record of `run`, when an engine holds the run (a killed engine's record
/// says nothing any more). Read with no link followed, capped.
pub fn waiting(run: &Path) -> Option<Waiting> {
    crate::engine::lock::holder(run)?;
    let text = crate::fsutil::read_capped_string(run.join(WAITING_FILE), WAITING_CAP).ok()?;
    serde_json::from_str(&text).ok()
}

/// What the engine does with each note: the record, the event, the log line.
pub fn listener(run: &Path, events: Arc<EventLog>) -> impl Fn(&OutageNote) + Send + Sync + 'static {
    let path: PathBuf = run.join(WAITING_FILE);
    move |note| {
        let event = match note {
            OutageNote::Waiting {
                url,
                since,
                until,
                error,
            } => {
                let w = Waiting {
                    endpoint: url.clone(),
                    since: rfc(*since),
                    until: rfc(*until),
                    error: crate::llm::http::excerpt(error),
                };
                if let (Ok(json), Some(dir)) = (serde_json::to_vec(&w), path.parent()) {
                    let _ = std::fs::create_dir_all(dir);
                    let _ = crate::fsutil::write_atomic(&path, &json);
                }
                Event::new("model_waiting").message(w.line())
            }
            OutageNote::Back { url, waited, .. } => {
                let _ = std::fs::remove_file(&path);
                Event::new("model_back").message(format!(
                    "{url} answers again after {}; the run goes on",
                    crate::llm::duration_words(*waited)
                ))
            }
            OutageNote::GaveUp { url, waited, .. } => {
                let _ = std::fs::remove_file(&path);
                Event::new("model_gave_up").message(format!(
                    "{url} did not answer for {}; the run stops (an infrastructure stop: `youra run` resumes it)",
                    crate::llm::duration_words(*waited)
                ))
            }
        };
        // Info, not a warning: the Events pane lists the log's warnings beside the events,
        // and this one is already there as its event.
        tracing::info!("{}", event.message.as_deref().unwrap_or_default());
        let _ = events.emit(event);
    }
}

/// A record left by an engine that died while waiting: removed when the next one starts.
/// The waiting record for an outage the engine itself waits out (a scheduler's), as the
/// model client's listener writes it for a model server's.
pub fn record(
    run: &Path,
    endpoint: &str,
    since: SystemTime,
    until: SystemTime,
    error: &str,
) -> Waiting {
    let w = Waiting {
        endpoint: endpoint.to_string(),
        since: rfc(since),
        until: rfc(until),
        error: crate::llm::http::excerpt(error),
    };
    let path = run.join(WAITING_FILE);
    if let (Ok(json), Some(dir)) = (serde_json::to_vec(&w), path.parent()) {
        let _ = std::fs::create_dir_all(dir);
        let _ = crate::fsutil::write_atomic(&path, &json);
    }
    w
}

pub fn clear(run: &Path) {
    let _ = std::fs::remove_file(run.join(WAITING_FILE));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_is_marked_once_and_read_back() {
        let r = mark("Problem Scoping (Phase 0): LLM call failed");
        assert!(r.starts_with(PREFIX) && r.contains("`youra run`"), "{r}");
        assert_eq!(mark(&r), r, "marking twice changes nothing");
        assert!(is_infrastructure(Some(&r)));
        assert!(!is_infrastructure(Some("controller: the data is missing")));
        assert!(!is_infrastructure(None));
    }

    #[test]
    fn the_waiting_line_names_the_endpoint_and_the_time() {
        let w = Waiting {
            endpoint: "http://127.0.0.1:8080/v1/chat/completions".into(),
            since: "2020-01-02T03:04:05Z".into(),
            until: "2020-01-02T03:34:05Z".into(),
            error: "connection refused".into(),
        };
        assert_eq!(
            w.line(),
            "waiting for http://127.0.0.1:8080/v1/chat/completions since 2020-01-02 03:04:05 UTC (retrying until 2020-01-02 03:34:05 UTC; last: connection refused); the run goes on by itself when it answers"
        );
    }
}
