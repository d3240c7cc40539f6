//! A run's configuration: typed settings (`config_model`), their layers and sources, checks and trust.
//!
//! One crate of the workspace (docs/ARCHITECTURE.md, decision 0043): its modules keep their
//! `crate::…` paths, and the modules of the crates below it are named at its root.

pub mod config;
pub mod config_check;
pub mod config_evidence;
pub mod config_model;
pub mod config_plan;
pub mod config_review;
pub mod config_sources;
pub mod config_trust;
pub mod config_words;

#[allow(unused_imports)]
use youra_base::fsutil;
#[allow(unused_imports)]
use youra_evidence::evidence;
#[allow(unused_imports)]
use youra_exec::exec;
#[allow(unused_imports)]
use youra_llm::llm;
#[allow(unused_imports)]
use youra_paper::paper;
#[allow(unused_imports)]
use youra_plan::plan;
#[allow(unused_imports)]
use youra_reflect::{notice, reflect};
#[allow(unused_imports)]
use youra_tools::tools;
#[allow(unused_imports)]
use youra_vsa::vsa;
