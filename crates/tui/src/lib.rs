//! The terminal UI: panes, dialogs, keys, and the runtime that watches the run directory.
//!
//! One crate of the workspace (docs/ARCHITECTURE.md, decision 0043): its modules keep their
//! `crate::…` paths, and the modules of the crates below it are named at its root.

pub mod tui;

#[allow(unused_imports)]
use youra_audit::audit;
#[allow(unused_imports)]
use youra_base::{fsutil, stage, term, yaml};
#[allow(unused_imports)]
use youra_config::{config, config_review};
#[allow(unused_imports)]
use youra_exec::exec;
#[allow(unused_imports)]
use youra_llm::llm;
#[allow(unused_imports)]
use youra_paper::paper;
#[allow(unused_imports)]
use youra_plan::plan;
#[allow(unused_imports)]
use youra_reflect::{compare, notice, reflect, steer};
#[allow(unused_imports)]
use youra_report::report;
#[allow(unused_imports)]
use youra_rundir::rundir;
#[allow(unused_imports)]
use youra_vsa::vsa;
