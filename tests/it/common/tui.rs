//! The TUI as the snapshot and key tests see it: an `App` on a run folder, loaded once.
#![allow(dead_code)]

use std::path::Path;

use youra::tui::app::App;
use youra::tui::effect::AppEvent;
use youra::tui::keymap::Keymap;
use youra::tui::run_view::read_run;
use youra::tui::theme::{ColorDepth, Theme};
use youra::tui::update::update;
use youra::vsa::Store;

/// The app on `dir` with the default keymap and the dark theme, after its first read.
pub fn app_for(dir: &Path) -> App {
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
