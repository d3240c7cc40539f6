//! youra: an autonomous research agent that runs the YouRA lifecycle, and the terminal UI
//! through which a researcher watches and steers it.
//!
//! The run directory is the single source of truth; this crate's layers read and mutate it:
//! [`yaml`] keeps source positions for lossless edits, [`vsa`] is the typed verification
//! state and its store, [`rundir`] discovers runs and parses Reflective Memory, [`steer`]
//! turns the researcher's verbs into store mutations, [`compare`] sets two runs' gates and routes side by side, [`plan`] holds the plan tree and the
//! budget-allocation rules, [`exec`] runs generated experiment code under limits and a
//! sandbox, [`tools`] connects MCP servers and offers their tools to the roles, and [`cli`] composes them into the `youra` command.
//! See `docs/ARCHITECTURE.md`.

pub mod cli;

// Every module of the workspace at the path it had in one crate (`youra::vsa::Store`),
// for the tests, the benches and the binary.
pub use youra_audit::audit;
pub use youra_base::{fsutil, ids, logging, redact, rng, stage, term, vocab, yaml};
pub use youra_config::{
    config, config_check, config_evidence, config_model, config_plan, config_review,
    config_sources, config_trust, config_words,
};
pub use youra_engine::engine;
pub use youra_evidence::evidence;
pub use youra_exec::exec;
pub use youra_llm::llm;
pub use youra_paper::paper;
pub use youra_plan::plan;
pub use youra_reflect::{compare, notice, reflect, steer};
pub use youra_report::report;
pub use youra_rundir::rundir;
pub use youra_tools::tools;
pub use youra_tui::tui;
pub use youra_vsa::vsa;
pub use youra_webreport::webreport;
