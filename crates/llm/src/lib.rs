//! Model clients (OpenAI-compatible, Anthropic, replay), structured replies, retries, the ledger and transcripts.
//!
//! One crate of the workspace (docs/ARCHITECTURE.md, decision 0043): its modules keep their
//! `crate::…` paths, and the modules of the crates below it are named at its root.

pub mod llm;

#[allow(unused_imports)]
use youra_base::{fsutil, redact, rng};
