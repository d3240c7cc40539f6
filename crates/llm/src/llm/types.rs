//! The exchange types shared by every provider; serialisable because transcripts store them.

use serde::{Deserialize, Serialize};

/// Who asks: the coordinates a recorded exchange is filed and replayed under.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CallKey {
    /// The configured role: executor, controller, generator, critic, judge, persona, reviewer …
    pub role: String,
    /// The stage's key (`Stage::key`), or a loop step such as `coding_validation`.
    pub stage: String,
    /// The sub-hypothesis the call serves, when it serves one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hypothesis: Option<String>,
    /// How often recovery sent the run back into this step before (0 the first time):
    /// read from the VSA, so a restarted engine asks for the same recordings.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub round: u32,
    /// Which attempt of the stage (1 for the first; a resume or repair counts up).
    pub attempt: u32,
    /// The actions the run's decided escalations applied so far (`Pivot`, `Method-Refine/Proceed`;
    /// empty before any): after a researcher's decision the run is a different branch, and a
    /// replay must serve the continuation recorded after the same decisions.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub decisions: String,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl CallKey {
    pub fn new(role: &str, stage: &str, hypothesis: Option<&str>, attempt: u32) -> Self {
        Self {
            role: role.to_string(),
            stage: stage.to_string(),
            hypothesis: hypothesis.map(str::to_string),
            round: 0,
            attempt,
            decisions: String::new(),
        }
    }
}

impl std::fmt::Display for CallKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "role={} stage={}", self.role, self.stage)?;
        if let Some(h) = &self.hypothesis {
            write!(f, " hypothesis={h}")?;
        }
        if self.round > 0 {
            write!(f, " round={}", self.round)?;
        }
        write!(f, " attempt={}", self.attempt)?;
        if !self.decisions.is_empty() {
            write!(f, " decisions={}", self.decisions)?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageRole {
    System,
    User,
    Assistant,
    Tool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: MessageRole,
    pub content: String,
    /// Tool calls the assistant asked for (assistant messages only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The call this message answers (tool messages only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    fn plain(role: MessageRole, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }
    pub fn system(content: impl Into<String>) -> Self {
        Self::plain(MessageRole::System, content)
    }
    pub fn user(content: impl Into<String>) -> Self {
        Self::plain(MessageRole::User, content)
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::plain(MessageRole::Assistant, content)
    }
    pub fn tool_result(call_id: &str, content: impl Into<String>) -> Self {
        Self {
            tool_call_id: Some(call_id.to_string()),
            ..Self::plain(MessageRole::Tool, content)
        }
    }
}

/// A tool the model may call: a name, what it does, and its arguments' JSON Schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: serde_json::Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: serde_json::Value,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChatRequest {
    pub messages: Vec<Message>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Ask for a JSON object reply (`response_format` where the endpoint supports it).
    #[serde(default)]
    pub json: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolSpec>,
    /// The reply's JSON Schema: sent in the endpoint's dialect (`super::structured`) so a
    /// server that constrains decoding cannot answer outside it; checked again on arrival.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<super::schema::ReplySchema>,
}

impl ChatRequest {
    pub fn new(messages: Vec<Message>) -> Self {
        Self {
            messages,
            ..Self::default()
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// The server reported no usage, so these are chars/4 estimates (the ledger says so).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
    /// The recording carried no usage, so youra counted the exchange's text with its
    /// tokenizer (`llm::tokens`): a replayed demo charges what a model would have.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub counted: bool,
    /// Of `output_tokens`, those spent thinking (the server's count, else chars/4 of the
    /// separated reasoning).
    #[serde(default, skip_serializing_if = "is_zero64")]
    pub reasoning_tokens: u64,
}

fn is_zero64(n: &u64) -> bool {
    *n == 0
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChatResponse {
    pub content: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    #[serde(default)]
    pub usage: Usage,
    /// The model that answered, as the endpoint named it.
    #[serde(default)]
    pub model: String,
    /// `stop`, `length`, `tool_calls` … as the endpoint said; `length` means truncated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// What a reasoning model thought before answering (`<think>` blocks, `reasoning_content`,
    /// `thinking` blocks), kept for the transcript and never part of `content`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reasoning: String,
}

impl ChatResponse {
    /// Move leading think blocks out of `content` into `reasoning` (after `field`, a
    /// reasoning field the server sent), and count the thought's tokens when the server
    /// did not.
    pub(crate) fn separate_reasoning(mut self, field: &str) -> Self {
        let (answer, split) = super::reasoning::split_think(&self.content);
        self.content = answer;
        self.reasoning = super::reasoning::join(field, &split);
        if self.usage.reasoning_tokens == 0 && !self.reasoning.is_empty() {
            self.usage.reasoning_tokens =
                super::http::estimate_tokens(self.reasoning.chars().count());
        }
        self
    }
}
