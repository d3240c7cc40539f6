//! TUI speed (issue: steering TUI). Prints: one frame of a generated stress run, start to
//! the first frame with data, write-to-screen latency (p50/p99), and idle behaviour of the
//! real binary in a pseudo-terminal. Run: `cargo bench --bench tui`.

#[path = "common/plan_tree.rs"]
mod plan_tree;

use std::fmt::Write as _;
use std::io::Read;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use youra::tui::app::App;
use youra::tui::effect::AppEvent;
use youra::tui::keymap::Keymap;
use youra::tui::run_view::read_run;
use youra::tui::theme::{ColorDepth, Theme};
use youra::tui::update::update;
use youra::vsa::{SetRequest, Store};

const HYPOTHESES: usize = 2_000;
const HISTORY: usize = 100_000;
const RECORDS: usize = 5_000;
const PLAN_NODES: usize = 10_000;

/// A 3-ary plan tree of `PLAN_NODES` nodes, written directly (no fsync: a fixture, not a run).
fn stress_plan(dir: &Path) {
    plan_tree::write_ternary(dir, PLAN_NODES, 5, None);
    let plan = dir.join("plan");
    std::fs::write(
        plan.join("budget.json"),
        "{\"total_tokens\": 1000000, \"used_tokens\": 400000}",
    )
    .unwrap();
}

/// A run of the sizes the issue names.
fn stress_run(dir: &Path) {
    let mut v = String::from(
        "revision: 1\nmetadata:\n  project_name: Stress run\n  schema_version: '3.5'\nworkflow:\n  status: ACTIVE\n  current_phase: Phase 4\n  next_action: keep going\nsub_hypotheses:\n",
    );
    for i in 0..HYPOTHESES {
        let pre = if i % 10 == 0 {
            "[]".to_string()
        } else {
            format!("[h-{}]", i - 1)
        };
        let status = ["VALIDATED", "FAILED", "NOT_STARTED", "IN_PROGRESS"][i % 4];
        let _ = write!(
            v,
            "  h-{i}:\n    type: MECHANISM\n    statement: 'Sub-hypothesis {i} of the stress run'\n    status: {status}\n    gate:\n      type: MUST_WORK\n      satisfied: null\n      failed_checks: []\n    prerequisites: {pre}\n"
        );
    }
    v.push_str("history:\n");
    for i in 0..HISTORY {
        let _ = write!(
            v,
            "- event: Gate evaluation\n  timestamp: '2026-03-{:02}T{:02}:{:02}:00Z'\n  actor: engine\n  phase: Phase 4\n  details: entry {i}\n",
            1 + i % 28,
            i % 24,
            i % 60
        );
    }
    std::fs::write(dir.join("verification_state.yaml"), v).unwrap();
    std::fs::write(dir.join("youra.toml"), "[run]\nname = \"stress\"\n").unwrap();
    let mem = dir.join("memory");
    std::fs::create_dir_all(&mem).unwrap();
    for i in 0..RECORDS {
        let body = format!(
            "# Phase 4 Failure Record: h-{i} (Run 1)\n\n**Date:** 2026-03-17T04:00:00Z\n**Hypothesis:** h-{i}\n**Final Status:** FAIL\n\n## Root Cause Analysis\n\n1. **Cause**: something\n\n## Lessons Learned\n\n1. Lesson one\n"
        );
        std::fs::write(mem.join(format!("failure_h-{i}_run1.md")), body).unwrap();
    }
    stress_plan(dir);
}

fn app_for(dir: &Path) -> (App, Store) {
    let run = youra::rundir::discover(dir).unwrap();
    let store = Store::new(&run.vsa);
    (
        App::new(
            run,
            Keymap::load(&[]).unwrap(),
            Theme::builtin("dark", ColorDepth::TrueColor).unwrap(),
        ),
        store,
    )
}

fn median(mut t: Vec<Duration>) -> Duration {
    t.sort();
    t[t.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn frames(dir: &Path) {
    let run = youra::rundir::discover(dir).unwrap();
    let bytes = std::fs::read(&run.vsa).unwrap();
    let t = Instant::now();
    let doc = youra::yaml::parse(&bytes).unwrap();
    let parsed = t.elapsed();
    let _ = youra::vsa::read(&doc);
    println!(
        "  of which: YAML parse {}, typed model {}",
        ms(parsed),
        ms(t.elapsed() - parsed)
    );
    drop(doc);
    for _ in 0..2 {
        let t = Instant::now();
        let s2 = Store::new(&run.vsa).load().unwrap();
        println!("  of which: Store::load {}", ms(t.elapsed()));
        drop(s2);
    }
    let t = Instant::now();
    let snap = Store::new(&run.vsa).load().unwrap();
    println!(
        "  of which: VSA read + model {} ({} history entries)",
        ms(t.elapsed()),
        snap.vsa.history.len()
    );
    drop(snap);
    let t = Instant::now();
    let n: usize = run
        .memory_roots()
        .iter()
        .map(|r| youra::rundir::memory::load_dir(r).0.len())
        .sum();
    println!("  of which: {n} memory records {}", ms(t.elapsed()));
    // As the runtime does it: the quick read (no history) first, then the full read.
    let start = Instant::now();
    let (mut app, store) = app_for(dir);
    let run = app.run.clone();
    let quick =
        youra::tui::run_view::read_run_quick(&run).expect("a 12 MB VSA takes the quick path");
    update(&mut app, AppEvent::Loaded(Box::new(quick)));
    let mut term = Terminal::new(TestBackend::new(160, 48)).unwrap();
    term.draw(|f| youra::tui::draw::draw(&app, f)).unwrap();
    assert!(
        term.backend().to_string().contains("h-1"),
        "gates are on the first frame"
    );
    println!(
        "start to first frame with data (stress run, in process, excl. exec): {} (history still loading)",
        ms(start.elapsed())
    );
    update(&mut app, AppEvent::Loaded(Box::new(read_run(&run, &store))));
    term.draw(|f| youra::tui::draw::draw(&app, f)).unwrap();
    println!(
        "start to the frame with the full history: {}",
        ms(start.elapsed())
    );
    assert_eq!(
        app.data.vsa.as_ref().map(|s| s.vsa.history.len()),
        Some(HISTORY)
    );
    assert_eq!(
        app.data.plan.as_ref().map(|p| p.rows.len()),
        Some(PLAN_NODES),
        "the plan tree loaded"
    );
    app.focus = youra::tui::app::PaneId::Plan;
    for (w, h) in [(160u16, 48u16), (80, 24)] {
        let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
        let times = (0..30)
            .map(|i| {
                app.selected_mut(youra::tui::app::PaneId::Gates, i * 37 % HYPOTHESES);
                let t = Instant::now();
                term.draw(|f| youra::tui::draw::draw(&app, f)).unwrap();
                t.elapsed()
            })
            .collect();
        println!(
            "one frame of the stress run at {w}x{h}: median {} (target <= 8 ms)",
            ms(median(times))
        );
    }
}

/// Outside write → watcher → read → frame showing it, as the runtime does it.
fn latency() {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/example-run"));
    for e in std::fs::read_dir(src).unwrap().flatten() {
        if e.path().is_file() {
            std::fs::copy(e.path(), dir.path().join(e.file_name())).unwrap();
        }
    }
    let (mut app, store) = app_for(dir.path());
    let (tx, rx) = mpsc::channel();
    let _w = youra::tui::watch::watch(&[dir.path().to_path_buf()], tx).unwrap();
    let mut term = Terminal::new(TestBackend::new(100, 30)).unwrap();
    let writer = Store::new(dir.path().join("verification_state.yaml"));
    let mut lat = Vec::new();
    for i in 0..60 {
        let value = format!("latency probe {i}");
        std::thread::sleep(Duration::from_millis(60));
        while rx.try_recv().is_ok() {}
        writer
            .set(&SetRequest {
                path: "workflow.next_action",
                value: &value,
                reason: "bench",
                actor: "bench",
                force: false,
                create: false,
                base: None,
            })
            .unwrap();
        let t = Instant::now();
        loop {
            let Ok(AppEvent::Changed) = rx.recv_timeout(Duration::from_secs(2)) else {
                panic!("no change seen")
            };
            let run = app.run.clone();
            update(&mut app, AppEvent::Loaded(Box::new(read_run(&run, &store))));
            let mut shown = false;
            term.draw(|f| youra::tui::draw::draw(&app, f)).unwrap();
            if term.backend().to_string().contains(&value)
                && app
                    .data
                    .vsa
                    .as_ref()
                    .is_some_and(|s| s.vsa.workflow.next_action.as_deref() == Some(&value))
            {
                shown = true;
            }
            if shown {
                break;
            }
        }
        lat.push(t.elapsed());
    }
    lat.sort();
    println!(
        "write-to-screen latency (example run, {} writes): p50 {}, p99 {} (target p99 <= 100 ms)",
        lat.len(),
        ms(lat[lat.len() / 2]),
        ms(lat[lat.len() * 99 / 100])
    );
}

/// The real binary on the stress run: from spawning it to the first frame showing gates.
fn first_frame_binary(dir: &Path) {
    use portable_pty::{CommandBuilder, PtySize, native_pty_system};
    let cfg = tempfile::tempdir().unwrap();
    let pty = native_pty_system()
        .openpty(PtySize {
            rows: 48,
            cols: 160,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_youra"));
    cmd.args(["tui", dir.to_str().unwrap()]);
    cmd.env("TERM", "xterm-256color");
    cmd.env("XDG_CONFIG_HOME", cfg.path());
    let start = Instant::now();
    let mut child = pty.slave.spawn_command(cmd).unwrap();
    let mut reader = pty.master.try_clone_reader().unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 65536];
    let shown = loop {
        let Ok(n) = reader.read(&mut buf) else {
            break None;
        };
        if n == 0 {
            break None;
        }
        seen.extend_from_slice(&buf[..n]);
        if seen.windows(4).any(|w| w == b"h-10") {
            break Some(start.elapsed());
        }
    };
    let _ = child.kill();
    match shown {
        Some(t) => println!(
            "real binary, spawn to first frame with gates (stress run, pty): {} (target <= 300 ms)",
            ms(t)
        ),
        None => println!("real binary: the gates never appeared"),
    }
}

/// The real binary, idle for 10 s in a pseudo-terminal: bytes written and CPU used.
fn idle() {
    use portable_pty::{CommandBuilder, PtySize, native_pty_system};
    let dir = tempfile::tempdir().unwrap();
    let pty = native_pty_system()
        .openpty(PtySize {
            rows: 30,
            cols: 100,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_youra"));
    cmd.args([
        "tui",
        concat!(env!("CARGO_MANIFEST_DIR"), "/assets/example-run"),
    ]);
    cmd.env("TERM", "xterm-256color");
    cmd.env("XDG_CONFIG_HOME", dir.path());
    let mut child = pty.slave.spawn_command(cmd).unwrap();
    let pid = child.process_id().unwrap();
    let mut reader = pty.master.try_clone_reader().unwrap();
    let (btx, brx) = mpsc::channel::<usize>();
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 || btx.send(n).is_err() {
                break;
            }
        }
    });
    std::thread::sleep(Duration::from_secs(2));
    while brx.try_recv().is_ok() {}
    let cpu = |pid: u32| -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let fields: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        fields
            .get(11)
            .and_then(|u| u.parse::<u64>().ok())
            .unwrap_or(0)
            + fields
                .get(12)
                .and_then(|s| s.parse::<u64>().ok())
                .unwrap_or(0)
    };
    let c0 = cpu(pid);
    std::thread::sleep(Duration::from_secs(10));
    let c1 = cpu(pid);
    let bytes: usize = brx.try_iter().sum();
    let _ = child.kill();
    println!(
        "idle 10 s (real binary, pty): {bytes} bytes written to the terminal, {} CPU ticks (1 tick = 10 ms)",
        c1 - c0
    );
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    stress_run(dir.path());
    let size = std::fs::metadata(dir.path().join("verification_state.yaml"))
        .unwrap()
        .len();
    println!(
        "== youra TUI benchmark ({HYPOTHESES} sub-hypotheses, {HISTORY} history entries, {RECORDS} memory records, {PLAN_NODES} plan nodes; VSA {} MB) ==",
        size / 1_000_000
    );
    frames(dir.path());
    first_frame_binary(dir.path());
    latency();
    idle();
}
