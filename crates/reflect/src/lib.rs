//! Recovery and steering: failure attribution and routing (`reflect`), the researcher's verbs (`steer`), notifications (`notice`) and two runs side by side (`compare`).
//!
//! One crate of the workspace (docs/ARCHITECTURE.md, decision 0043): its modules keep their
//! `crate::…` paths, and the modules of the crates below it are named at its root.

pub mod compare;
pub mod notice;
pub mod reflect;
pub mod steer;

#[allow(unused_imports)]
use youra_base::{fsutil, stage, term, vocab, yaml};
#[allow(unused_imports)]
use youra_llm::llm;
#[allow(unused_imports)]
use youra_plan::plan;
#[allow(unused_imports)]
use youra_rundir::rundir;
#[allow(unused_imports)]
use youra_vsa::vsa;
