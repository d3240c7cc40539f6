//! Running generated experiment code under limits and a sandbox, locally or on Slurm, and collecting what it measured.
//!
//! One crate of the workspace (docs/ARCHITECTURE.md, decision 0043): its modules keep their
//! `crate::…` paths, and the modules of the crates below it are named at its root.

pub mod exec;

#[allow(unused_imports)]
use youra_base::{fsutil, redact};
#[allow(unused_imports)]
use youra_llm::llm;
