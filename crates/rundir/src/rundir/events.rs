//! `events.jsonl`: the run's append-only event log. The engine appends; the TUI reads it
//! (and, in-process, receives the same [`Event`] over a channel).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::mpsc::Sender;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Event {
    pub time: String,
    /// `stage_start`, `stage_end`, `llm_call`, `controller`, `steer`, `gate`, `experiment_start`,
    /// `experiment_exit`, `routing`, `escalation`, `decision` (an escalation answered: who,
    /// verdict, the action applied, the full reason), `stop`, `resume`, `error` …
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hypothesis: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
}

impl Event {
    pub fn new(kind: &str) -> Event {
        Event {
            time: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            kind: kind.to_string(),
            actor: Some("engine".into()),
            ..Event::default()
        }
    }
    pub fn stage(mut self, stage: &str) -> Event {
        self.stage = Some(stage.to_string());
        self
    }
    pub fn hypothesis(mut self, h: &str) -> Event {
        self.hypothesis = Some(h.to_string());
        self
    }
    pub fn result(mut self, r: &str) -> Event {
        self.result = Some(r.to_string());
        self
    }
    pub fn action(mut self, a: &str) -> Event {
        self.action = Some(a.to_string());
        self
    }
    pub fn message(mut self, m: impl Into<String>) -> Event {
        self.message = Some(m.into());
        self
    }
    /// Who acted (the engine by default; a researcher's name for a decision).
    pub fn actor(mut self, a: &str) -> Event {
        self.actor = Some(a.to_string());
        self
    }
}

/// Appends events to the file and forwards them to an in-process listener, if any.
pub struct EventLog {
    path: PathBuf,
    lock: Mutex<()>,
    listener: Mutex<Option<Sender<Event>>>,
    /// Observers that may answer an event with more events (`crate::notice`: a waiting
    /// event sends a notice, its delivery is logged as a `notify` event).
    taps: Mutex<Vec<Tap>>,
}

/// An observer of every event; what it returns is appended after the event.
pub type Tap = Box<dyn Fn(&Event) -> Vec<Event> + Send>;

impl EventLog {
    pub fn new(run: &Path) -> EventLog {
        EventLog {
            path: run.join("events.jsonl"),
            lock: Mutex::new(()),
            listener: Mutex::new(None),
            taps: Mutex::new(Vec::new()),
        }
    }

    /// Add an observer of every event emitted from now on.
    pub fn tap(&self, tap: Tap) {
        self.taps
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(tap);
    }

    pub fn listen(&self, tx: Sender<Event>) {
        *self.listener.lock().unwrap_or_else(|p| p.into_inner()) = Some(tx);
    }

    /// Append one event; a failure to log is reported, never fatal to the run.
    pub fn emit(&self, mut event: Event) -> std::io::Result<()> {
        // Messages quote model errors and experiment output: no key-shaped string leaves.
        if let Some(m) = &event.message {
            event.message = Some(crate::redact::redact(m, &[]).into_owned());
        }
        let line = serde_json::to_string(&event).map_err(std::io::Error::other)? + "\n";
        {
            let _g = self.lock.lock().unwrap_or_else(|p| p.into_inner());
            let mut f = std::fs::OpenOptions::new()
                .read(true)
                .create(true)
                .append(true)
                .open(&self.path)?;
            // A line torn by a full disk or a kill stays one bad line: this record starts
            // on a line of its own instead of continuing it (and being lost with it).
            let sep = if crate::fsutil::ends_open(&f)? {
                "\n"
            } else {
                ""
            };
            f.write_all(format!("{sep}{line}").as_bytes())?;
        }
        if let Some(tx) = self
            .listener
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            let _ = tx.send(event.clone());
        }
        // The taps' own events are emitted after the taps' lock is released (a tap's event
        // passes the taps again; `notify` events call for nothing, so this ends).
        let follow: Vec<Event> = self
            .taps
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .flat_map(|tap| tap(&event))
            .collect();
        for e in follow {
            self.emit(e)?;
        }
        Ok(())
    }
}

/// Read the log; a line that does not parse (a torn last line, a torn UTF-8 character, a
/// corrupt row) is skipped alone, never the whole file.
pub fn read(path: &Path) -> Vec<Event> {
    read_counted(path).0
}

/// The log's events and how many lines were skipped as unreadable (for a reader that says
/// so, e.g. `youra status`).
pub fn read_counted(path: &Path) -> (Vec<Event>, usize) {
    let mut events = Vec::new();
    let mut tail = EventTail::new(path);
    let mut bad = tail.read(|e| events.push(e)).map_or(0, |r| r.bad.len());
    // Read once, not followed: an unfinished last line is the last line.
    match tail.unfinished() {
        Some(Ok(e)) => events.push(e),
        Some(Err(_)) => bad += 1,
        None => {}
    }
    (events, bad)
}

/// A line of the log that is not an event, named by its line number (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    pub line: u64,
    pub error: String,
}

/// What one incremental read of the log found besides its events.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventsRead {
    /// The log was truncated or replaced: the events handed out start from its beginning
    /// again, and the caller drops what it kept.
    pub restarted: bool,
    /// Lines that did not parse, each alone: the lines after them are still read.
    pub bad: Vec<BadLine>,
}

/// The log read from where the last read ended ([`super::tail::Tail`]): a reader that
/// keeps one pays for what was appended, not for the whole history.
#[derive(Debug, Clone)]
pub struct EventTail {
    tail: super::tail::Tail,
}

impl EventTail {
    pub fn new(path: &Path) -> EventTail {
        EventTail {
            tail: super::tail::Tail::new(path),
        }
    }

    /// Hand each event appended since the last read to `each`, in file order. A line that
    /// does not parse (a torn UTF-8 character, a corrupt row) is reported with its line
    /// number; an unfinished last line waits for the next read. A missing log is empty.
    pub fn read(&mut self, mut each: impl FnMut(Event)) -> std::io::Result<EventsRead> {
        let mut bad = Vec::new();
        let r = self
            .tail
            .read(|n, line| match serde_json::from_slice::<Event>(line) {
                Ok(e) => each(e),
                Err(e) => bad.push(BadLine {
                    line: n,
                    error: e.to_string(),
                }),
            })?;
        Ok(EventsRead {
            restarted: r.restarted,
            bad,
        })
    }

    /// The last line still waiting for its newline, parsed (for a one-shot read).
    pub fn unfinished(&self) -> Option<Result<Event, BadLine>> {
        let (n, line) = self.tail.partial()?;
        Some(serde_json::from_slice(line).map_err(|e| BadLine {
            line: n,
            error: e.to_string(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_line_is_one_bad_line_and_the_next_record_is_whole() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let log = EventLog::new(dir.path());
        log.emit(Event::new("stage_start").message("one"))?;
        // A full disk tore the next record inside a UTF-8 character ("é" is c3 a9).
        let path = dir.path().join("events.jsonl");
        let mut f = std::fs::OpenOptions::new().append(true).open(&path)?;
        f.write_all(b"{\"kind\":\"warning\",\"message\":\"caf\xc3")?;
        assert_eq!(
            read(&path).len(),
            1,
            "the torn character costs its line only"
        );
        // The resumed engine appends: its record is whole, the torn line stays alone.
        log.emit(Event::new("stage_end").message("two"))?;
        let (events, skipped) = read_counted(&path);
        let kinds: Vec<_> = events.iter().map(|e| e.kind.as_str()).collect();
        assert_eq!((kinds, skipped), (vec!["stage_start", "stage_end"], 1));
        Ok(())
    }
}
