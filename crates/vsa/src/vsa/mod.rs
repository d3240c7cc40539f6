//! The Verification State Architecture file (`verification_state.yaml`): its typed model,
//! the tolerant reader, path-addressed lossless edits, invariants, and the store that
//! serialises writers.

pub mod enums;
pub mod escalation;
pub mod model;
pub mod mutation;
mod read;
mod read_gate;
mod read_history;
pub mod timestamp;

pub use model::{FailedCheck, Gate, HistoryEntry, SubHypothesis, Vsa};
pub use read::{Warning, read};
pub mod actor;
pub mod breakpoint;
mod crash;
pub mod deviation;
pub mod diff;
pub mod edit;
pub mod edit_list;
pub mod history;
pub mod invariants;
pub mod journal;
mod lock;
pub mod merge;
mod outside;
pub mod path;
pub mod pause;
pub mod repair;
pub mod review;
pub mod schema;
pub mod stale;
pub mod store;
mod store_core;
pub mod transition;

pub use store::{Applied, Base, SetRequest, Snapshot, Store, StoreError};
mod graft;
mod history_list;
pub use history_list::History;
mod identity;
mod preview;
mod read_back;
mod skeleton;
