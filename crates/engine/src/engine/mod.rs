//! The engine: moves a run through YouRA's lifecycle. It reads everything it decides from
//! the run directory, writes the VSA only through the store, talks to models only through
//! roles, and leaves a trail in `events.jsonl`, `youra.log`, `transcripts/` and `ledger.tsv`.
//!
//! `run.rs` is the loop, `progress.rs` where a run stands, `intake.rs` the researcher's
//! directives, `controller.rs` the Independent Controller, `stages/` one module per stage.

mod breakpoints;
mod check;
mod controller;
pub mod criteria;
mod ctx;
pub mod data_fetch;
mod ends;
mod error;
pub(crate) mod escalation;
pub mod fabrication;
pub mod gates;
pub mod init;
mod intake;
pub mod lessons;
pub mod literature;
pub mod lock;
mod memory_block;
mod next_choice;
pub mod outage;
mod parallel;
mod plan_open;
mod plan_root;
mod plan_search;
pub mod progress;
pub mod prompts;
mod recovery;
pub mod replay_copy;
mod reply;
pub(crate) mod reroute;
mod route_choice;
mod run;
mod run_steer;
#[cfg(test)]
mod schema_tests;
mod search_end;
pub mod signals;
mod stage_end;
pub(crate) use run::stop_mutation as run_stop_mutation;
mod stages;
mod summary;
mod yamlout;
pub mod youra_bench;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

pub use check::{Check, section_body, sections};
pub use controller::{Decision, parse_decision};
pub use error::{EngineError, StageError};
pub use stages::{Produced, StageRunner};

use crate::config::RunConfig;
use crate::llm::Roles;
use crate::rundir::events::{Event, EventLog};
use crate::stage::Stage;
use crate::vsa::store::Store;
use lock::EngineLock;
use prompts::Prompts;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunEnd {
    Completed,
    Stopped(String),
    /// Paused or awaiting approval, with `exit_when_paused` set.
    Paused,
    Cancelled,
}

#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Return instead of waiting when the run pauses (tests, `youra run --until-pause`).
    pub exit_when_paused: bool,
    /// Set from another thread (the TUI quitting) to stop at the next boundary.
    pub cancel: Arc<AtomicBool>,
}

/// One completed step's cost (`cargo bench --bench engine`).
#[derive(Debug, Clone, Copy)]
pub struct StepTiming {
    /// From its attempt's start until its completion was written.
    pub wall: Duration,
    /// The store's file I/O in it: reading and comparing the file under the lock, and
    /// writing the journal, the file and its copies.
    pub io: Duration,
    /// The store's copies of the whole text, one per write (the bytes the write writes).
    pub copy: Duration,
}

pub struct Engine {
    run: PathBuf,
    store: Store,
    roles: Roles,
    prompts: Prompts,
    /// Shared: a Slurm job's watcher thread reports where the job landed (`experiment_placed`).
    events: std::sync::Arc<EventLog>,
    config: RunConfig,
    topic: String,
    options: Options,
    backend: Arc<dyn crate::exec::Backend>,
    /// The run's MCP servers, started with the engine and stopped with it (`None` when
    /// youra.toml configures none).
    tools: Option<crate::tools::ToolRegistry>,
    lock: EngineLock,
    /// The step (stage and sub-hypothesis) a resume or step released from its breakpoint,
    /// until that step starts: a breakpoint on Coding & Validation stops before each
    /// sub-hypothesis's, and again before a refined attempt. In memory: after a restart
    /// the run is still paused on disk and waits for the next resume.
    released: Option<progress::Step>,
    at_breakpoint: Option<Stage>,
    /// `events.jsonl` read up to the last step boundary: what the next step writes is what
    /// the conditional breakpoints look at (`breakpoints.rs`).
    event_tail: crate::rundir::events::EventTail,
    /// The escalation an `escalation` breakpoint holds for the researcher (its id).
    held_escalation: Option<String>,
    /// Wall time of each stage attempt (benchmarks).
    pub timings: Vec<Duration>,
    /// Per completed step, what it cost (benchmarks).
    pub step_timings: Vec<StepTiming>,
    /// How many experiments may run at once (`[exec] max_parallel`).
    max_parallel: usize,
    /// Coding & Validation steps whose experiments run now (`parallel.rs`).
    flying: Vec<parallel::Flying>,
}

/// Start the configured MCP servers and write their health where the TUI looks
/// (`.youra/tools_health.json`). A server that fails to start is reported there, not fatal.
fn start_tools(
    run: &Path,
    config: &RunConfig,
) -> Result<Option<crate::tools::ToolRegistry>, EngineError> {
    if config.tools.servers.is_empty() {
        return Ok(None);
    }
    let registry = crate::tools::ToolRegistry::start(&config.tools)
        .map_err(|e| EngineError::Io(format!("cannot start the MCP servers of youra.toml: {e}")))?;
    let health: Vec<serde_json::Value> = registry
        .health()
        .iter()
        .map(|h| serde_json::json!({"name": h.name, "state": if h.error.is_some() { "down" } else { "up" }, "tools": h.tools.len(), "error": h.error}))
        .collect();
    let dir = run.join(".youra");
    let _ = std::fs::create_dir_all(&dir);
    let text = serde_json::to_string_pretty(&health).unwrap_or_else(|_| "[]".into());
    let _ = crate::fsutil::write_atomic(&dir.join("tools_health.json"), text.as_bytes());
    Ok(Some(registry))
}

/// `run` made absolute against the current directory (links are kept as given).
fn absolute(run: &Path) -> Result<std::path::PathBuf, EngineError> {
    std::path::absolute(run)
        .map_err(|e| EngineError::Io(format!("cannot resolve {}: {e}", run.display())))
}

impl Engine {
    /// Open the run with the providers its configuration names.
    pub fn open(run: &Path, options: Options) -> Result<Engine, EngineError> {
        let run = &absolute(run)?;
        let config = crate::config::load(run)?;
        let roles = Roles::build(run, &config.llm.settings())?;
        Engine::with_roles(run, config, roles, options)
    }

    /// Open the run with ready-made roles (tests, benchmarks).
    pub fn with_roles(
        run: &Path,
        config: RunConfig,
        roles: Roles,
        options: Options,
    ) -> Result<Engine, EngineError> {
        // Every path the engine hands on (the sandbox's binds, the executor's workspace,
        // transcripts) is under the run: a relative one would be resolved against another
        // working directory (bwrap's `--chdir`) and fail as "Can't find source path".
        let run = &absolute(run)?;
        let lock = EngineLock::acquire(run)?;
        let tools = start_tools(run, &config)?;
        let store = Store::new(run.join("verification_state.yaml"));
        // The configured mode (youra.toml or YOURA_MODE) is written into the VSA, which the
        // engine then reads: one source of truth, and the change is in its history.
        if let Some(mode) = config.run.execution_mode.as_deref() {
            let mut m = crate::vsa::mutation::Mutation::new(
                crate::vsa::mutation::Change::Set {
                    path: "workflow.execution_mode".into(),
                    value: mode.to_ascii_uppercase(),
                },
                "engine",
                "engine",
                "execution mode from the run's configuration",
            );
            m.create = true;
            store.mutate(&m)?;
        }
        let snap = store.load()?;
        let topic = config
            .run
            .topic
            .clone()
            .or_else(|| {
                snap.doc
                    .root
                    .as_ref()?
                    .get("metadata")?
                    .get("research_topic")?
                    .as_str()
                    .map(str::to_string)
            })
            .unwrap_or_else(|| "(no topic: set [run] topic in youra.toml)".into());
        let gpus = crate::exec::GpuPool::detect();
        let max_parallel = config.exec.max_parallel(gpus.usable());
        // `[exec] backend`: local processes (with this machine's GPUs) or Slurm jobs.
        let backend = crate::exec::backend_for(&config.exec, gpus);
        let engine = Engine {
            run: run.to_path_buf(),
            store,
            roles,
            prompts: Prompts::new(run),
            events: std::sync::Arc::new(EventLog::new(run)),
            topic,
            options,
            max_parallel,
            backend,
            config,
            tools,
            lock,
            released: None,
            at_breakpoint: None,
            event_tail: {
                // What happened before this engine started stopped a run already, or not.
                let mut t = crate::rundir::events::EventTail::new(&run.join("events.jsonl"));
                let _ = t.read(|_| {});
                t
            },
            held_escalation: None,
            timings: Vec::new(),
            step_timings: Vec::new(),
            flying: Vec::new(),
        };
        // A model endpoint that does not answer is waited out; the wait is seen in events
        // and `youra status` (`outage`). A record left by a killed engine is stale now.
        outage::clear(run);
        engine
            .roles
            .outage_watch()
            .listen(outage::listener(run, engine.events.clone()));
        // `[notify]`: waiting events reach the researcher, attached or detached.
        if let Some(n) = crate::notice::Notifier::new(run, &engine.config.notify) {
            engine.events.tap(n.tap());
        }
        // Said where every view of the run reads it: a misspelt key and an unconfined run.
        for w in &engine.config.warnings {
            engine.emit(Event::new("config_warning").message(w));
        }
        if engine.config.exec.sandbox == crate::exec::SandboxMode::Off {
            engine.emit(Event::new("sandbox_off").message(crate::exec::sandbox::OFF_WARNING));
        }
        Ok(engine)
    }

    pub fn events(&self) -> &EventLog {
        &self.events
    }

    /// The configuration's warnings (keys no setting reads), for the command that started it.
    pub fn config_warnings(&self) -> &[String] {
        &self.config.warnings
    }

    fn emit(&self, e: Event) {
        if let Err(err) = self.events.emit(e) {
            self.log(&format!("cannot append to events.jsonl: {err}"));
        }
    }

    fn lock_note(&self) -> String {
        match &self.lock.stale {
            Some(prev) => {
                format!("engine started; took over the lock of a stopped engine ({prev})")
            }
            None => "engine started".into(),
        }
    }

    /// One line in `<run>/youra.log`; a log that cannot be written is not worth stopping for.
    /// A line of the engine's own account, to `youra.log` (through `crate::logging`).
    fn log(&self, line: &str) {
        tracing::info!(target: "youra::engine", "{}", crate::redact::redact(line, &[]));
    }
}
