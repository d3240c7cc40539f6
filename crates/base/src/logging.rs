//! The diagnostic log, `<run>/youra.log`: `tracing` events from youra (engine, executor,
//! LLM layer, MCP client, store) and from its dependencies (rmcp's transport warnings,
//! reqwest's), through a non-blocking writer, never to the terminal the TUI draws on.
//!
//! Levels come from `RUST_LOG` (an `EnvFilter`; default `warn,youra=info`). Spans carry the
//! keys of what runs — `stage{stage=… hypothesis=… attempt=…}`, `llm_call{role=… stage=…
//! attempt=… ordinal=…}`, `experiment{hypothesis=… job=…}` — so one `grep` of the log follows
//! one call. The writer is flushed when the returned guard drops (the command's end) and on
//! a panic (the hook logs it first).
//!
//! The file is opened without following a planted symlink (`fsutil::open_nofollow`, as every
//! file youra appends to), in append mode: a detached engine's stdout goes there too.

use std::path::Path;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Keeps the writer's worker alive; dropping it flushes what is queued.
pub struct LogGuard {
    _worker: Option<tracing_appender::non_blocking::WorkerGuard>,
}

/// The filter when `RUST_LOG` is unset or unreadable.
pub(crate) const DEFAULT_FILTER: &str = "warn,youra=info";

/// Send this process's `tracing` output to `<run>/youra.log`. The first call in a process
/// wins (a subscriber is process-wide); later calls return a guard that holds nothing. An
/// unopenable log is reported on stderr and logging stays off: the run itself goes on.
pub fn init(run: &Path) -> LogGuard {
    let path = run.join("youra.log");
    let file = match crate::fsutil::open_append_nofollow(&path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!(
                "youra: no diagnostic log ({}: {e}); the run goes on without it",
                path.display()
            );
            return LogGuard { _worker: None };
        }
    };
    let (writer, worker) = tracing_appender::non_blocking(file);
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(writer)
        .with_ansi(false)
        .with_target(true);
    if tracing_subscriber::registry()
        .with(filter)
        .with(layer)
        .try_init()
        .is_err()
    {
        return LogGuard { _worker: None };
    }
    install_panic_log();
    LogGuard {
        _worker: Some(worker),
    }
}

/// On a panic: log it, then let the previous hook (color-eyre's report) run. The worker
/// thread writes the queued lines; the guard, dropped as the main thread unwinds or returns,
/// waits for them.
fn install_panic_log() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        tracing::error!(target: "youra::panic", at = %at, "panicked: {what}");
        previous(info);
    }));
}
