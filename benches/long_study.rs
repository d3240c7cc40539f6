//! Long studies (issue 30): the example run grown to 1M events and 1M metric rows, against
//! the example run as it is. Prints, for both and as a ratio large/small: the real binary's
//! spawn to first frame with data and its peak RSS (in a pseudo-terminal, 160×48), its CPU
//! while 10 events/s are appended, and write→screen in process (watcher → the reader's
//! follower → a frame showing the new event; a whole read keeps what no changed path
//! touches, as the reader does). A third run adds 500 sub-hypotheses and a
//! plan tree of 5,000 nodes (the table) to the large one. Run: `cargo bench --bench
//! long_study` (`LONG_STUDY_EVENTS`, `LONG_STUDY_ROWS`, `LONG_STUDY_HYPOTHESES`,
//! `LONG_STUDY_PLAN_NODES` change the sizes).

#[path = "common/plan_tree.rs"]
mod plan_tree;

use std::io::{BufWriter, Read, Write};
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use youra::tui::app::App;
use youra::tui::effect::AppEvent;
use youra::tui::follow::Follower;
use youra::tui::keymap::Keymap;
use youra::tui::run_view::{read_run_since, read_run_with};
use youra::tui::theme::{ColorDepth, Theme};
use youra::tui::update::update;
use youra::vsa::Store;

fn size(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), &dst).unwrap();
        }
    }
}

/// The example run with `events` more events (older than its own) and `rows` more metric
/// rows for h-e1 (after its own steps).
fn grow(dir: &Path, events: usize, rows: usize) {
    copy_dir(
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/example-run")),
        dir,
    );
    let append =
        |path: &Path| BufWriter::new(std::fs::OpenOptions::new().append(true).open(path).unwrap());
    let mut f = append(&dir.join("events.jsonl"));
    let kinds = [
        "llm_call",
        "tool_call",
        "stage_start",
        "experiment_start",
        "experiment_exit",
    ];
    for i in 0..events {
        let (s, ms) = (i / 1000, i % 1000);
        writeln!(
            f,
            "{{\"time\":\"2026-11-20T{:02}:{:02}:{:02}.{ms:03}Z\",\"kind\":\"{}\",\"hypothesis\":\"h-e{}\",\"actor\":\"engine\",\"message\":\"grown event {i}\"}}",
            s / 3600 % 24,
            s / 60 % 60,
            s % 60,
            kinds[i % kinds.len()],
            1 + i % 12,
        )
        .unwrap();
    }
    f.flush().unwrap();
    let mut m = append(&dir.join("h-e1/results/metrics.jsonl"));
    for i in 0..rows {
        let spike = if i % 100_003 == 7 { 0.5 } else { 0.0 };
        writeln!(
            m,
            "{{\"step\": {}, \"test_accuracy\": {:.4}}}",
            12_000 + i,
            0.99 + (i % 7) as f64 / 1000.0 - spike
        )
        .unwrap();
    }
    m.flush().unwrap();
}

/// `hypotheses` more sub-hypotheses (`h-g1` …, READY, none with events) and the plan tree
/// replaced by a 3-ary tree of `nodes` nodes, each with its prior, stats and packet files.
fn grow_more(dir: &Path, hypotheses: usize, nodes: usize) {
    use std::fmt::Write as _;
    let vsa = dir.join("verification_state.yaml");
    let mut more = String::new();
    for i in 1..=hypotheses {
        let _ = write!(
            more,
            "  h-g{i}:\n    type: MECHANISM\n    statement: 'Grown sub-hypothesis {i}'\n    status: NOT_STARTED\n    gate:\n      type: SHOULD_WORK\n      satisfied: null\n      failed_checks: []\n    prerequisites: []\n"
        );
    }
    let text = std::fs::read_to_string(&vsa).unwrap();
    let text = text.replacen("gate_violations:", &format!("{more}gate_violations:"), 1);
    std::fs::write(&vsa, text).unwrap();
    plan_tree::write_ternary(dir, nodes, 4, Some("h-e1"));
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn append_event(dir: &Path, message: &str) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("events.jsonl"))
        .unwrap();
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    writeln!(
        f,
        "{{\"time\":\"{now}\",\"kind\":\"note\",\"actor\":\"engine\",\"message\":\"{message}\"}}"
    )
    .unwrap();
}

/// Figures of one run folder.
struct Figures {
    first_frame_ms: f64,
    rss_mb: f64,
    /// CPU of the binary while 10 events/s are appended, in cores.
    cores: f64,
    write_to_screen_ms: f64,
    /// With a plan tree: a whole read after one node's file is written and named, and the
    /// same read when every node is read again (ms, medians).
    node_read_ms: Option<(f64, f64)>,
}

fn proc_field(pid: u32, key: &str) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0)
}

fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let f: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let get = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    get(11) + get(12)
}

/// The real binary: spawn to the first frame with the Experiments row, peak RSS, and its
/// CPU over 5 s of 10 appended events a second.
fn binary(dir: &Path) -> (f64, f64, f64) {
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
    let pid = child.process_id().unwrap();
    let mut reader = pty.master.try_clone_reader().unwrap();
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || {
        let mut buf = [0u8; 65536];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    let first = loop {
        match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(b) => seen.extend_from_slice(&b),
            Err(_) => break f64::NAN,
        }
        if seen.windows(13).any(|w| w == b"test_accuracy") {
            break ms(start.elapsed());
        }
    };
    // Settle (the watcher's first read), then 10 events a second for 5 s.
    std::thread::sleep(Duration::from_secs(3));
    let c0 = cpu_ticks(pid);
    let t0 = Instant::now();
    for i in 0..50 {
        append_event(dir, &format!("binary probe {i}"));
        std::thread::sleep(Duration::from_millis(100));
        while rx.try_recv().is_ok() {}
    }
    let cores = (cpu_ticks(pid) - c0) as f64 / 100.0 / t0.elapsed().as_secs_f64();
    let rss = proc_field(pid, "VmHWM:") / 1024.0;
    let _ = child.kill();
    let _ = child.wait();
    (first, rss, cores)
}

/// In process, as the runtime does it: an appended event → the watcher (naming what
/// changed) → the reader's refresh of the followed parts (a whole read when anything else
/// changed) → a frame that shows it. The median of 15.
fn write_to_screen(dir: &Path) -> f64 {
    use youra::tui::refresh::{base_of, refresh};
    let run = youra::rundir::discover(dir).unwrap();
    let store = Store::new(&run.vsa);
    let mut follower = Follower::new(&run.root);
    let mut app = App::new(
        run.clone(),
        Keymap::load(&[]).unwrap(),
        Theme::builtin("dark", ColorDepth::TrueColor).unwrap(),
    );
    let mut read = read_run_with(&run, &store, &mut follower);
    let mut base = base_of(&mut read);
    update(&mut app, AppEvent::Loaded(Box::new(read)));
    let (tx, rx) = mpsc::channel();
    let changes = youra::tui::watch::ChangeSet::default();
    let _w = youra::tui::watch::watch_naming(&[dir.to_path_buf()], tx, changes.clone()).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let mut term = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let mut lat = Vec::new();
    for i in 0..15 {
        while rx.try_recv().is_ok() {}
        changes.take();
        let probe = format!("screen probe {i}");
        append_event(dir, &probe);
        let t = Instant::now();
        loop {
            let Ok(AppEvent::Changed) = rx.recv_timeout(Duration::from_secs(10)) else {
                panic!("no change seen")
            };
            let changed = changes.take();
            let mut read = refresh(&base, &run, &mut follower, &changed).unwrap_or_else(|| {
                read_run_since(&run, &store, &mut follower, Some(&base), &changed)
            });
            base = base_of(&mut read);
            update(&mut app, AppEvent::Loaded(Box::new(read)));
            term.draw(|f| youra::tui::draw::draw(&app, f)).unwrap();
            if term.backend().to_string().contains(&probe) {
                break;
            }
        }
        lat.push(ms(t.elapsed()));
        std::thread::sleep(Duration::from_millis(100));
    }
    lat.sort_by(f64::total_cmp);
    lat[lat.len() / 2]
}

/// One node's `prior.json` written, then a whole read that keeps the other nodes' files
/// (the watcher named the one) against one that reads every node again (it named the
/// nodes' folder). Medians of 7.
fn node_read(dir: &Path) -> (f64, f64) {
    use youra::tui::refresh::base_of;
    use youra::tui::watch::Changes;
    let run = youra::rundir::discover(dir).unwrap();
    let store = Store::new(&run.vsa);
    let mut follower = Follower::new(&run.root);
    let mut read = read_run_with(&run, &store, &mut follower);
    let mut base = base_of(&mut read);
    let prior = dir.join("plan/nodes/n-0001/prior.json");
    let (mut one, mut all) = (Vec::new(), Vec::new());
    for i in 0..7 {
        for (named, out) in [
            (
                Changes {
                    written: [prior.clone()].into(),
                    ..Changes::default()
                },
                &mut one,
            ),
            (
                Changes {
                    named: [dir.join("plan/nodes")].into(),
                    ..Changes::default()
                },
                &mut all,
            ),
        ] {
            std::fs::write(&prior, format!("{{\"estimate\": 0.{}}}", i + 1)).unwrap();
            let t = Instant::now();
            let mut read = read_run_since(&run, &store, &mut follower, Some(&base), &named);
            out.push(ms(t.elapsed()));
            base = base_of(&mut read);
        }
    }
    one.sort_by(f64::total_cmp);
    all.sort_by(f64::total_cmp);
    (one[one.len() / 2], all[all.len() / 2])
}

fn measure(events: usize, rows: usize, more: Option<(usize, usize)>) -> Figures {
    let dir = tempfile::tempdir().unwrap();
    grow(dir.path(), events, rows);
    if let Some((hypotheses, nodes)) = more {
        grow_more(dir.path(), hypotheses, nodes);
    }
    let (first_frame_ms, rss_mb, cores) = binary(dir.path());
    Figures {
        first_frame_ms,
        rss_mb,
        cores,
        write_to_screen_ms: write_to_screen(dir.path()),
        node_read_ms: more.map(|_| node_read(dir.path())),
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let events = size("LONG_STUDY_EVENTS", 1_000_000);
    let rows = size("LONG_STUDY_ROWS", 1_000_000);
    println!("== long study: the example run vs {events} events + {rows} metric rows ==");
    let hypotheses = size("LONG_STUDY_HYPOTHESES", 500);
    let nodes = size("LONG_STUDY_PLAN_NODES", 5_000);
    let small = measure(0, 0, None);
    let large = measure(events, rows, None);
    report(&small, &large);
    println!("== and with {hypotheses} more sub-hypotheses and a plan tree of {nodes} nodes ==");
    let all = measure(events, rows, Some((hypotheses, nodes)));
    report(&small, &all);
}

fn report(small: &Figures, large: &Figures) {
    let line = |name: &str, unit: &str, s: f64, l: f64, target: &str| {
        println!(
            "{name:<28} small {s:>9.2} {unit:<5} large {l:>9.2} {unit:<5} ratio {:>6.2}×  (target {target})",
            l / s
        );
    };
    line(
        "first frame (binary)",
        "ms",
        small.first_frame_ms,
        large.first_frame_ms,
        "≤ 250 ms, ≤ 2×",
    );
    line(
        "peak RSS (binary)",
        "MB",
        small.rss_mb,
        large.rss_mb,
        "≤ 120 MB, ≤ 2×",
    );
    line(
        "CPU at 10 events/s",
        "cores",
        small.cores,
        large.cores,
        "≤ 0.2, ≤ 2×",
    );
    line(
        "write→screen (in process)",
        "ms",
        small.write_to_screen_ms,
        large.write_to_screen_ms,
        "≤ 150 ms, ≤ 2×",
    );
    if let Some((one, all)) = large.node_read_ms {
        println!(
            "a plan node written → whole read: {one:.1} ms keeping the other nodes' files, {all:.1} ms reading every node ({:.1}× less)",
            all / one
        );
    }
}
