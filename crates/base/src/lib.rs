//! The base pieces every layer stands on: words shared by several layers (`vocab`), a YAML document that keeps source positions (`yaml`), run-folder file access (`fsutil`), safe ids (`ids`), terminal text (`term`), secret redaction (`redact`), seeded draws (`rng`), the lifecycle's stages (`stage`) and diagnostics (`logging`).
//!
//! One crate of the workspace (docs/ARCHITECTURE.md, decision 0043): its modules keep their
//! `crate::…` paths, and the modules of the crates below it are named at its root.

pub mod fsutil;
pub mod ids;
pub mod logging;
pub mod redact;
pub mod rng;
pub mod stage;
pub mod term;
pub mod vocab;
pub mod yaml;
