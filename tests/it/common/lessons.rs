//! The lessons browser's test runs: an App over a shown run with further runs' records
//! (as `youra tui run-a run-b` reads them), keys typed into it, and a demo run made by the
//! real binary.

use std::path::{Path, PathBuf};

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use youra::tui::app::App;
use youra::tui::effect::{AppEvent, Effect};
use youra::tui::keymap::Keymap;
use youra::tui::run_view::{read_lessons, read_run};
use youra::tui::theme::{ColorDepth, Theme};
use youra::tui::update::update;
use youra::vsa::Store;

/// youra's own old run with three records, an archive and an attempt log.
pub fn lessons_fixture() -> PathBuf {
    super::own_fixture("lessons_run")
}

/// An App over `shown` (focused on Reflection) listing the records of `others` too.
pub fn app_with(shown: &Path, others: &[&Path], theme: &str) -> App {
    let run = youra::rundir::discover(shown).expect("run");
    let store = Store::new(&run.vsa);
    let mut app = App::new(
        run.clone(),
        Keymap::load(&[]).unwrap(),
        Theme::builtin(theme, ColorDepth::TrueColor).unwrap(),
    );
    let mut read = read_run(&run, &store);
    read.lessons_from = others
        .iter()
        .map(|d| read_lessons(&youra::rundir::discover(d).expect("other run")))
        .collect();
    update(&mut app, AppEvent::Loaded(Box::new(read)));
    app.focus = youra::tui::app::PaneId::Reflection;
    app
}

/// Type `s` (`\n` Enter, `\x1b` Esc); the effects of every key.
pub fn type_keys(app: &mut App, s: &str) -> Vec<Effect> {
    let mut effects = Vec::new();
    for c in s.chars() {
        let code = match c {
            '\n' => KeyCode::Enter,
            '\x1b' => KeyCode::Esc,
            '\x08' => KeyCode::Backspace,
            c => KeyCode::Char(c),
        };
        effects.extend(update(
            app,
            AppEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)),
        ));
    }
    effects
}

/// A finished demo run in `dir/demo`, made by `youra demo --headless`.
pub fn demo_run(dir: &Path) -> PathBuf {
    let run = dir.join("demo");
    let out = super::youra(&["demo", "--headless", "--dir", run.to_str().unwrap()]);
    assert!(out.status.success(), "demo: {:?}", super::text(&out));
    assert!(run.join("memory/failure_h-e1_run1.md").is_file());
    run
}
