//! Recovery's deterministic core (SAGE × YouRA §3.4): what the engine asks once a gate has
//! failed with metrics. No model calls and no engine wiring live here; the engine calls
//! these functions between its generator, critic and judge roles.
//!
//! - [`trajectory`]: TrajPivot features of the gate metric (decay, slope, volatility, signature).
//! - [`attribution`]: the K ∈ [3,5] candidate causes, the critic's severities, h* = argmax s.
//! - [`routing`]: π(category, severity), the Verdict Clamp, the pivot budget, the SHOULD_WORK
//!   rule, and the YouRA level each action lands on.
//! - [`veto`]: the bounds on the controller's choice (by gate, cause category, belief, clamp,
//!   budget); [`refine_cap`]: the cap on refines of one gate.
//! - [`memory_writer`]: Reflective Memory records in YouRA's formats.
//! - [`archive`]: the `_archive/<stamp>_routing_recovery/` snapshot before redesign or reset.
//! - [`distinct`]: the distinctness gate between a regenerated hypothesis and failed ones.
//! - [`corpus`] and [`bench`]: `youra bench routing`, the routers on a labelled synthetic
//!   corpus of failed experiments.
//!
//! Order of use: `trajectory::analyse` → (generator) `attribution::parse_candidates` →
//! (critic) `attribution::apply_critique` → `attribution::best` → (judge) `routing::route` →
//! `memory_writer` + for redesign/reset `archive::archive` → after a pivot's debate,
//! `distinct::too_similar`. See "Recovery" in docs/ARCHITECTURE.md.

pub mod archive;
pub mod attribution;
pub mod bench;
pub mod corpus;
pub mod distinct;
pub mod memory_writer;
pub mod record_key;
pub mod refine_cap;
pub mod routing;
pub mod trajectory;
pub mod veto;
