//! The paper: figures, references, Typst and TeX, the PDF.
//!
//! One crate of the workspace (docs/ARCHITECTURE.md, decision 0043): its modules keep their
//! `crate::…` paths, and the modules of the crates below it are named at its root.

pub mod paper;

#[allow(unused_imports)]
use youra_base::fsutil;
#[cfg(test)]
#[allow(unused_imports)]
use youra_base::vocab;
#[allow(unused_imports)]
use youra_evidence::evidence;
#[allow(unused_imports)]
use youra_exec::exec;
#[allow(unused_imports)]
use youra_report::report;
#[allow(unused_imports)]
use youra_vsa::vsa;
