//! One recorded exchange as it lies in `transcripts/` and in replay bundles.
//!
//! Requests are stored as the provider-neutral [`ChatRequest`]: no URL, no header, so an
//! API key has no field to land in.

use serde::{Deserialize, Serialize};

use super::{CallKey, ChatRequest, ChatResponse};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Exchange {
    pub key: CallKey,
    /// The n-th call (from 0) under the same key in this process; replay serves by it.
    pub ordinal: u32,
    #[serde(default)]
    pub provider: String,
    #[serde(default)]
    pub model: String,
    #[serde(default)]
    pub time: String,
    #[serde(default)]
    pub elapsed_ms: u64,
    pub request: Option<ChatRequest>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<ChatResponse>,
    /// What went wrong when the call failed (the response is then absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Exchange {
    /// The transcript file's name: sortable by sequence, readable by key.
    pub fn file_name(&self, sequence: u64) -> String {
        let k = &self.key;
        let hyp = k
            .hypothesis
            .as_deref()
            .map(|h| format!("-{h}"))
            .unwrap_or_default();
        let clean = |s: &str| {
            s.replace(
                |c: char| !c.is_ascii_alphanumeric() && c != '-' && c != '_',
                "_",
            )
        };
        format!(
            "{sequence:05}-{}-{}{}-{}a{}-{}.json",
            clean(&k.stage),
            clean(&k.role),
            clean(&hyp),
            if k.round > 0 {
                format!("r{}-", k.round)
            } else {
                String::new()
            },
            k.attempt,
            self.ordinal
        )
    }
}
