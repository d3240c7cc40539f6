//! Tools over MCP offered to the roles.
//!
//! One crate of the workspace (docs/ARCHITECTURE.md, decision 0043): its modules keep their
//! `crate::…` paths, and the modules of the crates below it are named at its root.

pub mod tools;

#[cfg(test)]
#[allow(unused_imports)]
use youra_base::stage;
#[allow(unused_imports)]
use youra_exec::exec;
#[allow(unused_imports)]
use youra_llm::llm;
