//! What can go wrong with the plan tree: errors a caller decides on by kind, and warnings
//! about files that were read around (a reader shows them; the tree still loads).

use std::fmt;
use std::path::{Path, PathBuf};

use super::NodeStatus;
use super::id::NodeId;

#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// `tree.json` is the commit point of the whole tree: if it does not parse (or names
    /// an unsafe node id) nothing is guessed and nothing is written over it.
    #[error("{}:{line}:{col}: {message}", path.display())]
    Parse {
        path: PathBuf,
        line: usize,
        col: usize,
        message: String,
    },
    #[error("cannot encode {}: {message}", path.display())]
    Encode { path: PathBuf, message: String },
    #[error("no plan node `{id}` in the tree")]
    UnknownNode { id: NodeId },
    #[error("plan node `{id}` already exists")]
    DuplicateNode { id: NodeId },
    #[error("plan node `{id}` is {}: only an untested or running node can record an outcome", status.name())]
    NotRunnable { id: NodeId, status: NodeStatus },
    #[error("plan node `{id}` is {}: a plan can be edited only before it runs", status.name())]
    NotEditable { id: NodeId, status: NodeStatus },
    #[error("plan node `{id}` is {}: only a node with an outcome can be expanded", status.name())]
    NotExpandable { id: NodeId, status: NodeStatus },
    #[error("plan node `{id}` is running: it cannot be forced")]
    Running { id: NodeId },
    #[error(
        "{} is {len} bytes, shorter than the {offset} bytes already charged (it was replaced or truncated); nothing was charged. To charge it from the start, set ledger_offset to 0 in plan/budget.json (used_tokens keeps what was charged)",
        path.display()
    )]
    LedgerShrank {
        path: PathBuf,
        len: u64,
        offset: u64,
    },
    #[error("{given} children proposed for `{parent}`; at most {max} per expansion")]
    TooManyChildren {
        parent: NodeId,
        given: usize,
        max: usize,
    },
}

pub(crate) fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> PlanError {
    let path = path.to_path_buf();
    move |source| PlanError::Io {
        action,
        path,
        source,
    }
}

/// A file that was read around: which one, where in it (JSON errors), and what was done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanWarning {
    pub path: PathBuf,
    /// 1-based line and column, for JSON that did not parse.
    pub at: Option<(usize, usize)>,
    pub message: String,
}

impl PlanWarning {
    pub fn new(path: &Path, message: impl Into<String>) -> PlanWarning {
        PlanWarning {
            path: path.to_path_buf(),
            at: None,
            message: message.into(),
        }
    }

    /// A JSON error with its position, and what the loader did instead.
    pub fn json(path: &Path, err: &serde_json::Error, instead: &str) -> PlanWarning {
        PlanWarning {
            path: path.to_path_buf(),
            at: Some((err.line(), err.column())),
            message: format!("{}; {instead}", json_message(err)),
        }
    }
}

/// serde_json's message without its own " at line L column C" (the position is shown once).
pub(crate) fn json_message(err: &serde_json::Error) -> String {
    let text = err.to_string();
    match text.rfind(" at line ") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

impl fmt::Display for PlanWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Some((line, col)) => {
                write!(f, "{}:{line}:{col}: {}", self.path.display(), self.message)
            }
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}
