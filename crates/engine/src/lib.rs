//! The engine: the YouRA lifecycle, gates, the Independent Controller, recovery and the plan search.
//!
//! One crate of the workspace (docs/ARCHITECTURE.md, decision 0043): its modules keep their
//! `crate::…` paths, and the modules of the crates below it are named at its root.

pub mod engine;

#[allow(unused_imports)]
use youra_audit::audit;
#[allow(unused_imports)]
use youra_base::{fsutil, redact, stage, term, yaml};
#[cfg(test)]
#[allow(unused_imports)]
use youra_base::{logging, vocab};
#[allow(unused_imports)]
use youra_config::{config, config_evidence, config_review};
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
use youra_reflect::{notice, reflect, steer};
#[allow(unused_imports)]
use youra_report::report;
#[allow(unused_imports)]
use youra_rundir::rundir;
#[allow(unused_imports)]
use youra_tools::tools;
#[allow(unused_imports)]
use youra_vsa::vsa;
