//! The Slurm back end: each [`Job`](crate::exec::Job) becomes one batch job that runs the
//! same sandboxed command as a local job (bubblewrap inside the job, the same limits,
//! environment and results layout), submitted with `sbatch`, followed with `squeue` and
//! `scontrol`, and cancelled with `scancel`. The submitting machine and the compute nodes
//! share the run's filesystem and have the same bubblewrap and toolchain (as a lab's
//! cluster does). See `docs/ARCHITECTURE.md`, "Executor".
//!
//! - `script.rs`: the batch script and the `sbatch` flags (pure).
//! - `state.rs`: Slurm's states → youra's exit kinds (pure).
//! - `cli.rs`: the four client commands.
//! - `watchdog.rs`: the script's end: waiting, and the process limit on the node.
//! - `watch.rs`: the thread that follows one job to its outcome.
//! - `backend.rs`: [`SlurmBackend`], which prepares, submits and re-attaches.

mod backend;
mod cli;
pub mod script;
mod shell;
pub mod state;
mod watch;
pub mod watchdog;

pub use backend::SlurmBackend;
pub use watch::SlurmJob;
