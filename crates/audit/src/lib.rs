//! `youra audit`: whether a research output's results come from real data, generated data, or nowhere.
//!
//! One crate of the workspace (docs/ARCHITECTURE.md, decision 0043): its modules keep their
//! `crate::…` paths, and the modules of the crates below it are named at its root.

pub mod audit;

#[allow(unused_imports)]
use youra_base::fsutil;
