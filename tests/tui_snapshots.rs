//! What the researcher sees: every pane and dialog at 80×24 and 160×48, on the example run
//! and on two real YouRA runs, drawn on ratatui's TestBackend.

mod common;

use std::path::Path;

use common::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use youra::tui::app::{App, AppEvent, update};
use youra::tui::draw::draw;
use youra::tui::keymap::Keymap;
use youra::tui::run_view::read_run;
use youra::tui::theme::{ColorDepth, Theme};
use youra::vsa::Store;

fn app_for(dir: &Path) -> App {
    let run = youra::rundir::discover(dir).expect("run");
    let store = Store::new(&run.vsa);
    let mut app = App::new(
        run.clone(),
        Keymap::load(&[]).unwrap(),
        Theme::builtin("dark", ColorDepth::TrueColor).unwrap(),
    );
    update(&mut app, AppEvent::Loaded(Box::new(read_run(&run, &store))));
    app
}

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| draw(app, f)).unwrap();
    term.backend().to_string()
}

fn keys(app: &mut App, keys: &str) {
    for c in keys.chars() {
        let code = match c {
            '\n' => KeyCode::Enter,
            '\t' => KeyCode::Tab,
            '\x1b' => KeyCode::Esc,
            c => KeyCode::Char(c),
        };
        update(app, AppEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }
}

fn both(name: &str, app: &App) {
    insta::assert_snapshot!(format!("{name}_80x24"), screen(app, 80, 24));
    insta::assert_snapshot!(format!("{name}_160x48"), screen(app, 160, 48));
}

#[test]
fn example_run_default_layout() {
    both("example_default", &app_for(&example_run()));
}

#[test]
fn example_run_each_pane_zoomed() {
    for (key, name) in [
        ('1', "lifecycle"),
        ('2', "gates"),
        ('3', "reflection"),
        ('4', "events"),
        ('5', "experiments"),
        ('6', "plan"),
    ] {
        let mut app = app_for(&example_run());
        keys(&mut app, &format!("{key}z"));
        both(&format!("example_zoom_{name}"), &app);
    }
}

#[test]
fn example_run_dialogs() {
    let mut app = app_for(&example_run());
    keys(&mut app, "2jt");
    both("example_dialog_edit_gate_type", &app);
    let mut app = app_for(&example_run());
    keys(&mut app, "3o");
    both("example_dialog_override", &app);
    let mut app = app_for(&example_run());
    keys(&mut app, "?");
    both("example_help_gates", &app);
    let mut app = app_for(&example_run());
    keys(&mut app, ":re");
    both("example_command_line", &app);
    let mut app = app_for(&example_run());
    keys(&mut app, "3\n");
    both("example_viewer_record", &app);
    let mut app = app_for(&example_run());
    keys(&mut app, "2\n");
    both("example_picker_artifacts", &app);
}

#[test]
fn youra_runs_from_the_corpus() {
    let Some(root) = shared_fixtures() else {
        return;
    };
    both("data_problems_default", &app_for(&root.join(DATA_PROBLEMS)));
    both("bi_align_default", &app_for(&root.join(BI_ALIGN_RUN)));
    for (name, dir) in [
        ("data_problems", root.join(DATA_PROBLEMS)),
        ("bi_align", root.join(BI_ALIGN_RUN)),
    ] {
        for (key, pane) in [
            ('1', "lifecycle"),
            ('2', "gates"),
            ('3', "reflection"),
            ('4', "events"),
            ('5', "experiments"),
            ('6', "plan"),
        ] {
            let mut app = app_for(&dir);
            keys(&mut app, &format!("{key}z"));
            both(&format!("{name}_zoom_{pane}"), &app);
        }
        for (k, dialog) in [
            ("2t", "edit"),
            ("2?", "help"),
            (":", "command_line"),
            ("3\n", "viewer"),
            ("2\n", "picker"),
        ] {
            let mut app = app_for(&dir);
            keys(&mut app, k);
            both(&format!("{name}_dialog_{dialog}"), &app);
        }
    }
}
