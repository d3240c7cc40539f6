//! Evidence from repeated measurements: intervals, baselines and deviations that decide a gate.
//!
//! One crate of the workspace (docs/ARCHITECTURE.md, decision 0043): its modules keep their
//! `crate::…` paths, and the modules of the crates below it are named at its root.

pub mod evidence;

#[allow(unused_imports)]
use youra_base::{rng, vocab};
