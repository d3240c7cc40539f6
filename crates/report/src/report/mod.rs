//! Grounded reporting, the rule-based core (SAGE and YouRA Phase 4.5–6.5): a manuscript must
//! not claim what the run did not measure. No model is called here; drafting and fact
//! review call these functions.
//!
//! - [`registry`] / [`registry_build`] / [`registry_yaml`]: the ground-truth registry, built
//!   from measured results only, written to and read from `paper/065_ground_truth.yaml`.
//! - [`numbers`]: numbers in text, with byte spans, values and written precision.
//! - [`verify`]: whether a written number states a registry value (tolerance, rounding,
//!   percent/fraction).
//! - [`claim`]: the claim (hypothesis, metric, conditions) each registry value states;
//!   [`mentions`]: what a text names of them; [`context`]: a number's clause or table row and column;
//!   [`binding`]: the values its context allows; [`ground`]: the verdict on one number
//!   (bound, unbound, declared, wrong claim, unverified).
//! - [`markdown`]: prose, pipe tables and their cells, code.
//! - [`runs`]: which run of a sub-hypothesis (attempt, flags, items, counts from its own
//!   results file) measured a value, and which runs a text names.
//! - [`sanitize`]: unverified table numbers become `---`; unverified prose numbers are listed.
//! - [`provenance`] / [`corpus`] / [`vocab`]: datasets, models, metrics, statistical tests and
//!   hyperparameters named in the prose must appear in the run's code, configs or logs.
//! - [`findings`]: the severities a reviewer acts on; [`review`]: the sanitizer report.
//!
//! See "Grounded reporting" in `docs/ARCHITECTURE.md`.

pub mod binding;
pub mod claim;
pub mod context;
pub mod corpus;
pub mod error;
pub mod findings;
pub mod ground;
pub mod markdown;
pub mod mentions;
pub mod numbers;
mod numbers_lex;
pub mod provenance;
mod provenance_match;
pub mod registry;
pub mod registry_build;
pub mod registry_data;
pub mod registry_yaml;
pub mod review;
pub mod runs;
mod runs_read;
pub mod sanitize;
pub mod verify;
pub mod vocab;

pub use corpus::Corpus;
pub use error::ReportError;
pub use findings::{Finding, FindingKind, Severity};
pub use provenance::{Claim, ProvenanceReport};
pub use registry::{Entry, Origin, Registry};
pub use sanitize::{SanitizeReport, sanitize};
pub use verify::DEFAULT_TOLERANCE;
