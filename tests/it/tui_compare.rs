//! The Lifecycle pane of a replay copy: `R` sets the recorded run's gate results and routes
//! beside each stage (the comparison `youra compare` prints, read with the run), and the
//! pane says why the engine stopped. Drawn on ratatui's TestBackend.

use crate::common;

use std::path::Path;

use common::replay_copy::{recorded, s, steer, walk, youra_exits};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use youra::tui::app::{App, PaneId};
use youra::tui::effect::AppEvent;
use youra::tui::keymap::{Command, Key, Keymap, Mode};
use youra::tui::run_view::read_run;
use youra::tui::theme::{ColorDepth, Theme};
use youra::tui::update::update;
use youra::vsa::Store;

fn app_for(dir: &Path) -> App {
    let run = youra::rundir::discover(dir).expect("run");
    let store = Store::new(&run.vsa);
    let mut app = App::new(
        run.clone(),
        Keymap::load(&[]).unwrap(),
        Theme::builtin("mono", ColorDepth::TrueColor).unwrap(),
    );
    update(&mut app, AppEvent::Loaded(Box::new(read_run(&run, &store))));
    // "since" is a wall-clock time; the snapshot pins the rest.
    app.data.stage_since = None;
    app
}

fn press(app: &mut App, c: char) -> Vec<youra::tui::effect::Effect> {
    update(
        app,
        AppEvent::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
    )
}

/// The Lifecycle pane alone, so the snapshot pins this pane and nothing around it.
fn lifecycle(app: &App, w: u16, h: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| youra::tui::panes::lifecycle::draw(app, f, f.area()))
        .unwrap();
    term.backend().to_string()
}

#[test]
fn r_in_the_lifecycle_pane_toggles_the_recorded_run() {
    let km = Keymap::load(&[]).unwrap();
    assert_eq!(
        km.resolve(Mode::Lifecycle, Key::parse("R").unwrap()),
        Some(Command::ToggleRecorded)
    );
    assert_eq!(km.resolve(Mode::Gates, Key::parse("R").unwrap()), None);

    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = walk(tmp.path());
    let mut app = app_for(&b);
    press(&mut app, '1');
    assert_eq!(app.focus, PaneId::Lifecycle);
    assert!(
        press(&mut app, 'R').is_empty(),
        "no I/O: computed with the read"
    );
    assert!(app.show_recorded);
    let shown = lifecycle(&app, 100, 30);
    press(&mut app, 'R');
    assert!(!app.show_recorded);
    assert!(!lifecycle(&app, 100, 30).contains("vs recorded"));
    assert!(shown.contains("vs recorded"), "{shown}");

    // The recorded run itself replays none: the key says so and shows nothing.
    let mut recorded = app_for(&a);
    press(&mut recorded, '1');
    press(&mut recorded, 'R');
    assert!(!recorded.show_recorded);
    let (toast, error) = recorded.toast.clone().expect("a message");
    assert!(toast.contains("replays no recorded run"), "{toast}");
    assert!(!error);
}

#[test]
fn the_lifecycle_pane_sets_the_recorded_routes_beside_each_stage() {
    let tmp = tempfile::tempdir().unwrap();
    let (_a, b) = walk(tmp.path());
    let mut app = app_for(&b);
    press(&mut app, '1');
    press(&mut app, 'R');
    // The selection on Coding & Validation keeps its rows in view.
    for _ in 0..6 {
        press(&mut app, 'j');
    }
    let screen = lifecycle(&app, 100, 30);
    assert!(
        screen.contains("» h-c1 now FAIL min_group_accuracy 0.9557 (>= 0.99)"),
        "{screen}"
    );
    assert!(
        screen.contains("rec PASS min_group_accuracy 0.9557 (>= 0.9)"),
        "{screen}"
    );
    insta::assert_snapshot!("lifecycle_beside_recorded_100x30", screen);
}

#[test]
fn the_lifecycle_pane_says_why_the_engine_stopped() {
    let tmp = tempfile::tempdir().unwrap();
    let a = recorded(tmp.path());
    let b = tmp.path().join("b");
    youra_exits(&["replay", s(&a), s(&b)], 0);
    steer(&b, &["breakpoint", "Coding & Validation"]);
    youra_exits(&["run", s(&b), "--until-pause"], 3);
    let screen = lifecycle(&app_for(&b), 60, 24);
    assert!(
        screen.contains("⏸ breakpoint before Coding & Validation"),
        "{screen}"
    );
    youra_exits(&["run", s(&b), "--step", "--until-pause"], 3);
    let screen = lifecycle(&app_for(&b), 100, 24);
    assert!(
        screen.contains("⏸ stepping: paused after Coding & Validation (Phase 4) for h-e1"),
        "{screen}"
    );
}
