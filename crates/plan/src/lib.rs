//! The executable plan tree (PrimeScientist): nodes, budget-adaptive selection, per-node code and the allocation benchmark.
//!
//! One crate of the workspace (docs/ARCHITECTURE.md, decision 0043): its modules keep their
//! `crate::…` paths, and the modules of the crates below it are named at its root.

pub mod plan;

#[allow(unused_imports)]
use youra_base::{fsutil, ids, redact, rng, term, vocab};
#[allow(unused_imports)]
use youra_exec::exec;
#[cfg(test)]
#[allow(unused_imports)]
use youra_llm::llm;
