//! The run as one HTML page.
//!
//! One crate of the workspace (docs/ARCHITECTURE.md, decision 0043): its modules keep their
//! `crate::…` paths, and the modules of the crates below it are named at its root.

pub mod webreport;

#[allow(unused_imports)]
use youra_base::term;
#[allow(unused_imports)]
use youra_llm::llm;
#[allow(unused_imports)]
use youra_paper::paper;
#[allow(unused_imports)]
use youra_plan::plan;
#[allow(unused_imports)]
use youra_report::report;
#[allow(unused_imports)]
use youra_rundir::rundir;
#[allow(unused_imports)]
use youra_vsa::vsa;
