//! Events joined to sub-hypotheses by their exact id, once (issue 30): `h-e10`'s events are
//! never `h-e1`'s, in the experiment queue, the Experiments pane (state and event count)
//! and `youra status`.

use std::path::Path;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use youra::rundir::jobs::{ExperimentIndex, queue};
use youra::tui::app::App;
use youra::tui::effect::AppEvent;
use youra::tui::experiments::RunState;
use youra::tui::keymap::Keymap;
use youra::tui::theme::{ColorDepth, Theme};
use youra::tui::update::update;
use youra::vsa::Store;

/// h-e1 ran and exited 0; h-e10 exited 3, then started again on a GPU and still runs.
/// h-e10's events are the newest, so a substring match would call h-e1 running.
fn run_with_e1_and_e10(dir: &Path) {
    std::fs::write(
        dir.join("verification_state.yaml"),
        "revision: 1\nmetadata:\n  project_name: Ten\n  schema_version: '3.5'\nworkflow:\n  status: ACTIVE\n  current_phase: Phase 4\nsub_hypotheses:\n  h-e1:\n    status: READY\n    prerequisites: []\n  h-e10:\n    status: READY\n    prerequisites: []\n",
    )
    .unwrap();
    let line = |t: &str, kind: &str, h: &str, extra: &str| {
        format!(
            "{{\"time\":\"2026-01-01T00:00:{t}Z\",\"kind\":\"{kind}\",\"hypothesis\":\"{h}\"{extra}}}\n"
        )
    };
    let events = [
        line("00.000", "experiment_start", "h-e1", ",\"action\":\"cpu\""),
        line("01.000", "llm_call", "h-e10", ""),
        line("02.500", "experiment_exit", "h-e1", ",\"result\":\"0\""),
        line("03.000", "experiment_start", "h-e10", ",\"action\":\"cpu\""),
        line("04.000", "experiment_exit", "h-e10", ",\"result\":\"3\""),
        line(
            "05.000",
            "experiment_start",
            "h-e10",
            ",\"action\":\"GPU 0\"",
        ),
    ];
    std::fs::write(dir.join("events.jsonl"), events.concat()).unwrap();
}

#[test]
fn h_e1_and_h_e10_in_one_run_each_ones_experiments_and_state_are_its_own() {
    let dir = tempfile::tempdir().unwrap();
    run_with_e1_and_e10(dir.path());

    // The index and the queue.
    let index = ExperimentIndex::read(&dir.path().join("events.jsonl"));
    let kinds = |h: &str| -> Vec<String> { index.of(h).iter().map(|e| e.kind.clone()).collect() };
    assert_eq!(kinds("h-e1"), ["experiment_start", "experiment_exit"]);
    assert_eq!(
        kinds("h-e10"),
        ["experiment_exit", "experiment_start"],
        "the llm_call is not an experiment event; a new start keeps the exit before it, \
         not the older start (the index stays bounded)"
    );
    let run = youra::rundir::discover(dir.path()).unwrap();
    let snap = Store::new(&run.vsa).load().unwrap();
    let now = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:09Z").unwrap();
    let rows: Vec<(String, String)> = queue(&index, &snap.vsa, now)
        .into_iter()
        .map(|r| (r.hypothesis.clone(), r.label()))
        .collect();
    assert_eq!(
        rows,
        [
            ("h-e1".to_string(), "done 2.5s".to_string()),
            ("h-e10".to_string(), "running GPU 0 4.0s".to_string()),
        ]
    );

    // The Experiments pane: its data and its rows on screen.
    let mut app = App::new(
        run.clone(),
        Keymap::load(&[]).unwrap(),
        Theme::builtin("dark", ColorDepth::TrueColor).unwrap(),
    );
    let read = youra::tui::run_view::read_run(&run, &Store::new(&run.vsa));
    update(&mut app, AppEvent::Loaded(Box::new(read)));
    let states: Vec<(String, RunState)> = app
        .data
        .experiments
        .iter()
        .map(|e| (e.hypothesis.clone(), e.state.clone()))
        .collect();
    assert_eq!(
        states,
        [
            ("h-e1".to_string(), RunState::Finished(None)),
            ("h-e10".to_string(), RunState::Running),
        ]
    );
    for c in "5z".chars() {
        update(
            &mut app,
            AppEvent::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
        );
    }
    let mut term = Terminal::new(TestBackend::new(120, 30)).unwrap();
    term.draw(|f| youra::tui::draw::draw(&app, f)).unwrap();
    let screen = term.backend().to_string();
    let row = |h: &str| {
        screen
            .lines()
            .find(|l| l.contains(&format!("{h} ")))
            .unwrap_or_else(|| panic!("no row for {h} in\n{screen}"))
            .to_string()
    };
    assert!(row("h-e1").contains("done 2.5s"), "{}", row("h-e1"));
    assert!(row("h-e10").contains("running GPU 0"), "{}", row("h-e10"));
    // Each one's count of events in the log, its own: h-e10's llm_call is not h-e1's.
    assert!(row("h-e1").contains(" 2 ev "), "{}", row("h-e1"));
    assert!(row("h-e10").contains(" 4 ev "), "{}", row("h-e10"));

    // `youra status --json`: no engine holds the run, so h-e10 is stopped, h-e1 is done.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["status", "--json"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pick = |key: &str| -> Vec<(String, String)> {
        v[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let detail = r.get("exit").or(r.get("placement")).cloned();
                (
                    format!(
                        "{} {}",
                        r["hypothesis"].as_str().unwrap(),
                        r["state"].as_str().unwrap()
                    ),
                    detail
                        .and_then(|d| d.as_str().map(str::to_string))
                        .unwrap_or_default(),
                )
            })
            .collect()
    };
    assert_eq!(
        pick("experiments"),
        [("h-e1 finished".to_string(), "0".to_string())]
    );
    assert_eq!(
        pick("stopped_experiments"),
        [("h-e10 running".to_string(), "GPU 0".to_string())]
    );
}
