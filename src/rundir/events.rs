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
}

impl EventLog {
    pub fn new(run: &Path) -> EventLog {
        EventLog {
            path: run.join("events.jsonl"),
            lock: Mutex::new(()),
            listener: Mutex::new(None),
        }
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
                .create(true)
                .append(true)
                .open(&self.path)?;
            f.write_all(line.as_bytes())?;
        }
        if let Some(tx) = self
            .listener
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            let _ = tx.send(event);
        }
        Ok(())
    }
}

/// Read the log; lines that do not parse (a torn last line) are skipped.
pub fn read(path: &Path) -> Vec<Event> {
    std::fs::read_to_string(path)
        .map(|t| {
            t.lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect()
        })
        .unwrap_or_default()
}
