//! Grounded reporting: what a paper may claim, checked against the run's measurements and provenance.
//!
//! One crate of the workspace (docs/ARCHITECTURE.md, decision 0043): its modules keep their
//! `crate::…` paths, and the modules of the crates below it are named at its root.

pub mod report;

#[allow(unused_imports)]
use youra_base::{fsutil, yaml};
#[allow(unused_imports)]
use youra_evidence::evidence;
#[allow(unused_imports)]
use youra_exec::exec;
