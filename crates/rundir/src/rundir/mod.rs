//! The run directory: where a run's files are, for youra-native runs and YouRA's layouts,
//! and the records in it (Reflective Memory, archive markers, stage artifacts).

pub mod archive;
pub mod artifacts;
pub mod discover;
pub mod engine_lock;
pub mod event_lines;
pub mod events;
pub mod jobs;
pub mod lessons;
mod markdown;
pub mod memory;
pub mod own;
pub mod plain;
pub mod prior;
mod provenance;
pub mod summary;
pub mod tail;

pub use discover::{Layout, RunDir, discover, discover_all};
