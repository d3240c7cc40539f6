//! Why a stage or the engine could not go on, by kind: the engine decides per kind whether
//! to resume the stage (bad output), stop the run (a provider that will not answer), or
//! wait (a VSA that does not parse).

use std::path::Path;

use crate::llm::LlmError;
use crate::vsa::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum StageError {
    /// The model's output was unusable; worth a resume prompt that says why.
    #[error("unusable output: {0}")]
    Output(String),
    #[error(
        "the reply to {key} was cut off at its cap of {cap} tokens, continued once and cut off again; raise the cap under [llm.caps] in youra.toml (`\"<role>.<stage>\" = N`)"
    )]
    Truncated { key: String, cap: u32 },
    /// A structured reply broke its schema twice: the endpoint does not constrain decoding
    /// in the configured dialect. Not resumable: asking again gets the same.
    #[error(
        "the reply to {key} breaks the `{schema}` schema after one re-ask ({violation}); the endpoint ignores the schema in the `{dialect}` dialect: run `youra doctor <run>` or set `structured` for this role in youra.toml"
    )]
    Schema {
        key: String,
        schema: String,
        dialect: &'static str,
        violation: String,
    },
    #[error("LLM call {key} failed: {source}")]
    Llm { key: String, source: LlmError },
    #[error(transparent)]
    Template(#[from] super::prompts::TemplateError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot {action} {path}: {detail}")]
    Io {
        action: &'static str,
        path: String,
        detail: String,
    },
    /// The stage's rules say the run cannot go on (a MUST_WORK gate failed after its
    /// repairs); the evidence is in the message and in the VSA.
    #[error("{0}")]
    MustStop(String),
    /// Recovery moved the run (a retry, a redesign, an escalation raised): the step is
    /// neither complete nor failed; the loop re-reads the VSA.
    #[error("{0}")]
    Rerouted(String),
    /// A part of the lifecycle this build does not run yet; stops with the reason.
    #[error("{0}")]
    NotAvailable(String),
}

impl StageError {
    pub fn io(action: &'static str, path: &Path, e: std::io::Error) -> StageError {
        StageError::Io {
            action,
            path: path.display().to_string(),
            detail: e.to_string(),
        }
    }

    /// Whether a model endpoint stayed down past its retries and outage window
    /// (`llm::retry`): the infrastructure's failure, not the study's.
    pub fn is_outage(&self) -> bool {
        matches!(self, StageError::Llm { source, .. } if source.is_outage())
    }

    /// Whether a resume prompt can fix it (the model's fault, not the world's).
    pub(crate) fn resumable(&self) -> bool {
        matches!(
            self,
            StageError::Output(_)
                | StageError::Truncated { .. }
                | StageError::Store(StoreError::Invariant { .. })
        )
    }
}

impl From<LlmError> for StageError {
    fn from(source: LlmError) -> Self {
        StageError::Llm {
            key: "(role lookup)".into(),
            source,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("another engine runs this run: {0}")]
    Locked(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error(transparent)]
    Llm(#[from] LlmError),
    #[error("{0}")]
    Io(String),
}
