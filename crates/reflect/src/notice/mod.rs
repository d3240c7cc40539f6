//! Notices to the researcher when a run waits for them (an escalation, a MUST_STOP, a
//! breakpoint pause) or ends, sent by the engine itself so that attached and detached runs
//! alike reach someone who closed the laptop. Configured under `[notify]` in `youra.toml`
//! (the user's, or the run's own):
//!
//! ```toml
//! [notify]
//! webhook = "https://hooks.slack.com/services/…"   # Slack-compatible JSON {"text": …}
//! ntfy = "https://ntfy.sh/my-topic"
//! command = ["notify-send", "youra"]                # the notice on stdin, YOURA_NOTICE_*
//! timeout_s = 5
//! ```
//!
//! [`Notifier::tap`] is installed on the run's event log: every event passes through
//! [`message::notice_for`] (pure), and a waiting one is delivered at once, synchronously and
//! bounded by `timeout_s` per channel (a waiting engine has nothing better to do, and the
//! run's last notice must leave before the process exits). Each delivery becomes a `notify`
//! event (`result` `sent` or `failed`); a failure never stops the run.

pub mod message;
pub mod send;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use message::{Notice, clean, notice_for};

use crate::rundir::events::Event;

/// `[notify]`: where notices go. Nothing configured, nothing sent.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct NotifySection {
    pub webhook: Option<String>,
    pub ntfy: Option<String>,
    pub command: Vec<String>,
    /// Per channel, seconds.
    pub timeout_s: f64,
}

impl Default for NotifySection {
    fn default() -> Self {
        NotifySection {
            webhook: None,
            ntfy: None,
            command: Vec::new(),
            timeout_s: 5.0,
        }
    }
}

impl NotifySection {
    pub fn is_empty(&self) -> bool {
        self.webhook.is_none() && self.ntfy.is_none() && self.command.is_empty()
    }
}

/// The run's notice sender.
pub struct Notifier {
    run: PathBuf,
    config: NotifySection,
}

impl Notifier {
    /// `None` when `[notify]` configures no channel.
    pub fn new(run: &Path, config: &NotifySection) -> Option<Notifier> {
        (!config.is_empty()).then(|| Notifier {
            run: run.to_path_buf(),
            config: config.clone(),
        })
    }

    /// Deliver the notice `event` calls for, if any; the outcomes as `notify` events.
    pub fn on_event(&self, event: &Event) -> Vec<Event> {
        let Some(notice) = notice_for(event, &self.run) else {
            return Vec::new();
        };
        send::deliver(&self.config, &notice, &self.run)
            .into_iter()
            .map(|(channel, outcome)| {
                let e = Event::new("notify").action(channel);
                match outcome {
                    Ok(()) => e
                        .result("sent")
                        .message(format!("{} ({})", notice.title, notice.kind)),
                    Err(why) => e.result("failed").message(format!(
                        "the {} notice \"{}\" was not delivered: {why}; the run goes on \
                         (check [notify] {channel} in youra.toml)",
                        notice.kind, notice.title
                    )),
                }
            })
            .collect()
    }

    /// As a tap for [`crate::rundir::events::EventLog::tap`].
    pub fn tap(self) -> crate::rundir::events::Tap {
        Box::new(move |e| self.on_event(e))
    }
}
