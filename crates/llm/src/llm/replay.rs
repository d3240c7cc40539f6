//! The replay provider: serves recorded exchanges by role, stage, hypothesis, attempt and
//! ordinal. Used for the offline demo, deterministic tests and re-running a recorded run to
//! debug a routing change. A recording that carries no usage is charged its text's token
//! count (`super::tokens`), so a replay's budget and status line are realistic. A request with no recording is an error naming the missing key
//! (the engine turns it into MUST_STOP), never a made-up reply.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use super::transcript::Exchange;
use super::{CallKey, ChatRequest, ChatResponse, LlmError, Provider};

pub struct Replay {
    label: String,
    exchanges: HashMap<(CallKey, u32), ChatResponse>,
    ordinals: Mutex<HashMap<CallKey, u32>>,
    delay: std::time::Duration,
}

impl Replay {
    /// Load a bundle: a `.jsonl` file (one exchange a line) or a `transcripts/` folder of
    /// `.json` files as the recorder writes them. Recordings of failed calls are skipped.
    pub fn load(path: &Path) -> Result<Replay, LlmError> {
        let io = |e: std::io::Error| {
            LlmError::Config(format!("cannot read replay bundle {}: {e}", path.display()))
        };
        let mut list = Vec::new();
        if path.is_dir() {
            let mut files: Vec<_> = std::fs::read_dir(path)
                .map_err(io)?
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .collect();
            files.sort();
            for f in files
                .iter()
                .filter(|f| f.extension().is_some_and(|x| x == "json"))
            {
                let text = crate::fsutil::read_run_text(f).map_err(io)?;
                list.push(parse(&text, f, 1)?);
            }
        } else {
            let text = crate::fsutil::read_run_text(path).map_err(io)?;
            return Replay::from_jsonl(&text, path);
        }
        Ok(Replay::from_exchanges(&path.display().to_string(), list))
    }

    pub(crate) fn from_jsonl(text: &str, origin: &Path) -> Result<Replay, LlmError> {
        let mut list = Vec::new();
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            list.push(parse(line, origin, i + 1)?);
        }
        Ok(Replay::from_exchanges(&origin.display().to_string(), list))
    }

    pub(crate) fn from_exchanges(label: &str, list: Vec<Exchange>) -> Replay {
        let exchanges = list
            .into_iter()
            .filter_map(|x| Some(((x.key, x.ordinal), x.response?)))
            .collect();
        Replay {
            label: label.to_string(),
            exchanges,
            ordinals: Mutex::new(HashMap::new()),
            delay: std::time::Duration::ZERO,
        }
    }

    /// Serve each reply after `delay` (a watchable demo, kill-mid-stage tests).
    pub(crate) fn with_delay(mut self, delay: std::time::Duration) -> Replay {
        self.delay = delay;
        self
    }

    pub fn len(&self) -> usize {
        self.exchanges.len()
    }

    pub fn is_empty(&self) -> bool {
        self.exchanges.is_empty()
    }
}

fn parse(text: &str, origin: &Path, line: usize) -> Result<Exchange, LlmError> {
    serde_json::from_str(text).map_err(|e| {
        LlmError::Config(format!(
            "{}:{}:{}: not a recorded exchange: {e}",
            origin.display(),
            line + e.line() - 1,
            e.column()
        ))
    })
}

impl Provider for Replay {
    fn kind(&self) -> &str {
        "replay"
    }

    fn free(&self) -> bool {
        true
    }

    fn model(&self) -> &str {
        &self.label
    }

    fn complete(&self, key: &CallKey, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        std::thread::sleep(self.delay);
        let ordinal = {
            let mut o = self.ordinals.lock().unwrap_or_else(|p| p.into_inner());
            let n = o.entry(key.clone()).or_insert(0);
            *n += 1;
            *n - 1
        };
        let mut reply = self
            .exchanges
            .get(&(key.clone(), ordinal))
            .cloned()
            .ok_or_else(|| LlmError::MissingRecording {
                key: key.to_string(),
                ordinal,
            })?;
        // A recording without usage (the demo's bundle) is charged what its text counts,
        // with the request as this run sent it.
        if reply.usage.input_tokens == 0 && reply.usage.output_tokens == 0 {
            reply.usage = super::tokens::counted_usage(request, &reply);
        }
        Ok(reply)
    }
}
