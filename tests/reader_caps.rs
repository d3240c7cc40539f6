//! Readers of experiment output and of youra's own logs under hostile or torn input (issue
//! 32): a 4 MB `metrics.jsonl` of two million malformed lines stays within a few MB of
//! youra's memory (measured here with a counting allocator, printed), and a torn final
//! character in `events.jsonl` or `ledger.tsv` costs one line, never the file.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts live heap bytes and their peak, so a test can measure what a reader holds.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// One measurement at a time (tests run on threads of one process).
static MEASURE: Mutex<()> = Mutex::new(());

// SAFETY: defers to the system allocator; only adds bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is passed on unchanged.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Peak heap growth (bytes) while `f` runs, and its result.
fn peak_during<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let _one = MEASURE.lock().unwrap_or_else(|p| p.into_inner());
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let out = f();
    (PEAK.load(Ordering::Relaxed).saturating_sub(base), out)
}

#[test]
fn two_million_malformed_metric_lines_cost_little_memory_and_are_counted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let results = dir.path().join("results");
    std::fs::create_dir_all(&results).expect("mkdir");
    let path = results.join("metrics.jsonl");
    let mut text = "{\"step\": 1, \"accuracy\": 0.8}\n".to_string();
    text.push_str(&"x\n".repeat(2_000_000));
    std::fs::write(&path, &text).expect("write");
    let size = text.len();
    drop(text);
    let (peak, batch) = peak_during(|| youra::exec::read_metrics(&path));
    println!(
        "metrics.jsonl of {:.1} MB, 2,000,001 lines: peak heap while reading {:.1} MB, {} warnings kept, {} lines skipped",
        size as f64 / 1e6,
        peak as f64 / 1e6,
        batch.warnings.len(),
        batch.skipped
    );
    assert_eq!(batch.records.len(), 1);
    // The line cap (1,000,000) stops the read; the warnings are a bounded list.
    assert_eq!(batch.skipped, youra::exec::metrics::MAX_LINES - 1);
    assert!(batch.warnings.len() <= youra::exec::metrics::MAX_WARNINGS + 2);
    assert!(
        batch
            .warnings
            .iter()
            .any(|w| w.contains("stopped reading after 1000000 lines")),
        "{:?}",
        batch.warnings.last()
    );
    // The file itself (4 MB) is read once; nothing per bad line is kept.
    assert!(peak < 3 * size, "peak {peak} bytes for a {size}-byte file");
}

#[test]
fn a_torn_character_at_the_end_of_events_or_the_ledger_costs_one_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = youra::rundir::events::EventLog::new(dir.path());
    for kind in ["experiment_start", "experiment_exit", "experiment_start"] {
        log.emit(youra::rundir::events::Event::new(kind).hypothesis("h-e1"))
            .expect("emit");
    }
    let events = dir.path().join("events.jsonl");
    let mut bytes = std::fs::read(&events).expect("read");
    bytes.extend_from_slice(b"{\"kind\":\"experiment_exit\",\"message\":\"\xe2\x82");
    std::fs::write(&events, &bytes).expect("write");
    let (read, skipped) = youra::rundir::events::read_counted(&events);
    assert_eq!((read.len(), skipped), (3, 1), "three experiments, not zero");
    // The resumed engine's next record is whole; the torn one stays one bad line.
    log.emit(youra::rundir::events::Event::new("experiment_exit"))
        .expect("emit");
    let (read, skipped) = youra::rundir::events::read_counted(&events);
    assert_eq!((read.len(), skipped), (4, 1));

    let ledger = dir.path().join("ledger.tsv");
    std::fs::write(
        &ledger,
        b"time\trole\tstage\tmodel\tin\tout\tcost\tnode\treasoning\nt\texecutor\ts\tm\t10\t5\t0.5\t-\t0\nt\tjudge\tcaf\xc3",
    )
    .expect("write");
    let t = youra::llm::ledger::read_totals(&ledger).expect("totals");
    assert_eq!((t.calls, t.input_tokens), (1, 10));
}
