//! The recorder: wraps any provider so every exchange lands in `transcripts/` and in the
//! token ledger, whatever the provider is (a replayed run is recorded too, so a debugging
//! re-run leaves the same trail as a live one).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::ledger::{Ledger, LedgerRow};
use super::transcript::Exchange;
use super::{CallKey, ChatRequest, ChatResponse, LlmError, Provider};

pub struct Recorder {
    inner: Arc<dyn Provider>,
    dir: PathBuf,
    ledger: Arc<Ledger>,
    state: Arc<Mutex<Counters>>,
}

/// Shared by every role's recorder of one run, so sequence numbers are run-wide.
#[derive(Default)]
pub struct Counters {
    sequence: u64,
    ordinals: HashMap<CallKey, u32>,
}

impl Counters {
    /// Counters that continue after the transcripts already in `dir` (a resumed run).
    pub fn resume(dir: &Path) -> Counters {
        let sequence = std::fs::read_dir(dir)
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .filter_map(|e| e.file_name().to_str()?.get(..5)?.parse::<u64>().ok())
                    .max()
                    .map_or(0, |m| m + 1)
            })
            .unwrap_or(0);
        Counters {
            sequence,
            ordinals: HashMap::new(),
        }
    }
}

impl Recorder {
    pub fn new(
        inner: Arc<dyn Provider>,
        dir: PathBuf,
        ledger: Arc<Ledger>,
        state: Arc<Mutex<Counters>>,
    ) -> Self {
        Recorder {
            inner,
            dir,
            ledger,
            state,
        }
    }

    fn next(&self, key: &CallKey) -> (u64, u32) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let seq = s.sequence;
        s.sequence += 1;
        let ord = s.ordinals.entry(key.clone()).or_insert(0);
        let ordinal = *ord;
        *ord += 1;
        (seq, ordinal)
    }

    fn write(&self, seq: u64, exchange: &Exchange) -> Result<(), LlmError> {
        let io = |e: std::io::Error| {
            LlmError::Io(format!("cannot record to {}: {e}", self.dir.display()))
        };
        std::fs::create_dir_all(&self.dir).map_err(io)?;
        let json =
            serde_json::to_string_pretty(exchange).map_err(|e| LlmError::Io(e.to_string()))?;
        // A reply or an error may quote a key; masking keeps the JSON valid (no quotes).
        let json = crate::redact::redact_known(&json);
        crate::fsutil::replace_unsynced(&self.dir.join(exchange.file_name(seq)), json.as_bytes())
            .map_err(io)
    }
}

impl Provider for Recorder {
    fn kind(&self) -> &str {
        self.inner.kind()
    }

    fn model(&self) -> &str {
        self.inner.model()
    }

    fn free(&self) -> bool {
        self.inner.free()
    }

    fn complete(&self, key: &CallKey, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let (seq, ordinal) = self.next(key);
        let _span = tracing::info_span!(
            "llm_call",
            role = %key.role,
            stage = %key.stage,
            hypothesis = %key.hypothesis.as_deref().unwrap_or("-"),
            round = key.round,
            attempt = key.attempt,
            ordinal,
            provider = %self.inner.kind(),
            model = %self.inner.model(),
        )
        .entered();
        tracing::debug!(
            max_tokens = request.max_tokens,
            schema = request.schema.as_ref().map(|s| s.name.as_str()),
            messages = request.messages.len(),
            "request"
        );
        let started = Instant::now();
        let time = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let result = self.inner.complete(key, request);
        let mut exchange = Exchange {
            key: key.clone(),
            ordinal,
            provider: self.inner.kind().to_string(),
            model: self.inner.model().to_string(),
            time: time.clone(),
            elapsed_ms: started.elapsed().as_millis() as u64,
            request: Some(request.clone()),
            response: None,
            error: None,
        };
        match &result {
            Ok(r) => {
                tracing::debug!(
                    input_tokens = r.usage.input_tokens,
                    output_tokens = r.usage.output_tokens,
                    reasoning_tokens = r.usage.reasoning_tokens,
                    finish = r.finish_reason.as_deref().unwrap_or("-"),
                    elapsed_ms = exchange.elapsed_ms,
                    "reply"
                );
                exchange.response = Some(r.clone());
            }
            Err(e) => {
                tracing::warn!(
                    elapsed_ms = exchange.elapsed_ms,
                    "failed: {}",
                    crate::redact::redact(&e.to_string(), &[])
                );
                exchange.error = Some(e.to_string());
            }
        }
        self.write(seq, &exchange)?;
        if let Ok(r) = &result {
            let model = if r.model.is_empty() {
                self.inner.model()
            } else {
                &r.model
            };
            self.ledger.append(&LedgerRow {
                time: time.clone(),
                role: key.role.clone(),
                stage: key.stage.clone(),
                model: model.to_string(),
                input_tokens: r.usage.input_tokens,
                output_tokens: r.usage.output_tokens,
                reasoning_tokens: r.usage.reasoning_tokens,
                free: self.inner.free(),
                plan_node: None,
                plan_kind: None,
            })?;
            self.charge_tool_results(key, request, &time)?;
        }
        result
    }
}

impl Recorder {
    /// Tool results are charged once, by the request that first hands them back: a row with
    /// role `<role>:tool`, model `tool` (no price, so it costs no dollars) and their chars/4
    /// as input tokens. The model's own usage on that request counts them again as input;
    /// the extra row makes tool-heavy stages visible in the ledger and keeps a budget that
    /// runs on tokens conservative (docs/ARCHITECTURE.md, "Tool access").
    fn charge_tool_results(
        &self,
        key: &CallKey,
        request: &ChatRequest,
        time: &str,
    ) -> Result<(), LlmError> {
        let chars: usize = super::tool_loop::new_tool_results(request)
            .map(|m| m.content.chars().count())
            .sum();
        if chars == 0 {
            return Ok(());
        }
        self.ledger.append(&LedgerRow {
            time: time.to_string(),
            role: format!("{}:tool", key.role),
            stage: key.stage.clone(),
            model: "tool".to_string(),
            input_tokens: super::http::estimate_tokens(chars),
            output_tokens: 0,
            plan_node: None,
            plan_kind: None,
            reasoning_tokens: 0,
            free: true,
        })
    }
}
