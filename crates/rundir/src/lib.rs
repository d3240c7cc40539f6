//! Run directories: discovery, events, Reflective Memory records, jobs and summaries.
//!
//! One crate of the workspace (docs/ARCHITECTURE.md, decision 0043): its modules keep their
//! `crate::…` paths, and the modules of the crates below it are named at its root.

pub mod rundir;

#[cfg(test)]
#[allow(unused_imports)]
use youra_base::yaml;
#[allow(unused_imports)]
use youra_base::{fsutil, redact, stage};
#[allow(unused_imports)]
use youra_plan::plan;
#[allow(unused_imports)]
use youra_vsa::vsa;
