//! What every part of a node's code store shares: where it lives and how it fails. Below
//! the repository (`node_code.rs`), git (`git_run.rs`), the tree walk (`code_tree.rs`) and
//! the snapshot (`code_snapshot.rs`), so none of them imports the one that composes them.

use std::io;
use std::path::PathBuf;

/// Under the run: one bare repository per sub-hypothesis, `<h>.git`.
pub const CODE_REPOS: &str = ".youra/code";
/// What youra commits of a workspace.
pub const CODE_DIR: &str = "code";
pub const RESULTS_DIR: &str = "results";
/// How to install git, named when it is missing.
pub(crate) const INSTALL_GIT: &str = "apt-get install -y git";

#[derive(Debug, thiserror::Error)]
pub enum CodeError {
    #[error(
        "git was not found on PATH: youra keeps each plan node's code in a git repository per sub-hypothesis ({CODE_REPOS}/<h>.git); install it (`{}`) and resume the run",
        INSTALL_GIT
    )]
    GitMissing,
    #[error("git {what} failed in {}: {stderr}", .repo.display())]
    Git {
        what: String,
        repo: PathBuf,
        stderr: String,
    },
    #[error("{}: {source}", .path.display())]
    Io { path: PathBuf, source: io::Error },
    /// A request youra refuses (an unsafe id, a node without code, a non-empty folder, a
    /// packet whose commit is not an object id).
    #[error("{0}")]
    Refused(String),
}
