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

pub mod audit;
pub mod cli;
pub mod compare;
pub mod config;
pub mod config_check;
pub mod config_evidence;
pub mod config_model;
pub mod config_plan;
pub mod config_review;
pub mod config_sources;
pub mod config_trust;
pub mod config_words;
pub mod engine;
pub mod evidence;
pub mod exec;
pub mod fsutil;
pub mod ids;
pub mod llm;
pub mod logging;
pub mod notice;
pub mod paper;
pub mod plan;
pub mod redact;
pub mod reflect;
pub mod report;
pub mod rng;
pub mod rundir;
pub mod stage;
pub mod steer;
pub mod term;
pub mod tools;
pub mod tui;
pub mod vocab;
pub mod vsa;
pub mod webreport;
pub mod yaml;
