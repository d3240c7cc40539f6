//! The verification state (`verification_state.yaml`): its typed model, its invariants and the store, the one way youra writes it.
//!
//! One crate of the workspace (docs/ARCHITECTURE.md, decision 0043): its modules keep their
//! `crate::…` paths, and the modules of the crates below it are named at its root.

pub mod vsa;

#[allow(unused_imports)]
use youra_base::{fsutil, ids, stage, term, vocab, yaml};
#[cfg(test)]
#[allow(unused_imports)]
use youra_evidence::evidence;
