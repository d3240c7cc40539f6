//! Issue 31's friction inside overlays, driven through `update` without a terminal: `y` copies
//! the focused item (OSC 52, an effect the runtime writes) and the footer says what; `?` lists
//! the keys of whichever overlay is open and goes back to it; the override dialog offers every
//! routing level; a save refused because the VSA is unreadable says so and names the repair;
//! Markdown files read as formatted text in the viewer.

use crate::common;

use std::path::Path;

use common::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use youra::steer::{RoutingAction, Verb};
use youra::tui::app::{App, PaneId};
use youra::tui::dialogs::overlay::{CardTab, Overlay};
use youra::tui::draw::draw;
use youra::tui::effect::{AppEvent, Effect};
use youra::tui::keymap::{Keymap, Mode};
use youra::tui::run_view::read_run;
use youra::tui::theme::{ColorDepth, Theme};
use youra::tui::update::update;
use youra::vsa::Store;

fn app_at(dir: &Path) -> App {
    let run = youra::rundir::discover(dir).unwrap();
    let store = Store::new(&run.vsa);
    let mut app = App::new(
        run.clone(),
        Keymap::load(&[]).unwrap(),
        Theme::builtin("dark", ColorDepth::TrueColor).unwrap(),
    );
    update(&mut app, AppEvent::Loaded(Box::new(read_run(&run, &store))));
    app
}

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    update(app, AppEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn keys(app: &mut App, s: &str) -> Vec<Effect> {
    let mut last = Vec::new();
    for c in s.chars() {
        last = press(
            app,
            match c {
                '\n' => KeyCode::Enter,
                '\t' => KeyCode::Tab,
                '\x1b' => KeyCode::Esc,
                c => KeyCode::Char(c),
            },
        );
    }
    last
}

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| draw(app, f)).unwrap();
    term.backend().to_string()
}

/// The text of the one copy `effects` asks for.
fn copied(effects: Vec<Effect>) -> String {
    match effects.as_slice() {
        [Effect::Copy(text)] => text.clone(),
        other => panic!("one copy: {other:?}"),
    }
}

fn toast(app: &App) -> String {
    app.toast.clone().map(|(m, _)| m).unwrap_or_default()
}

/// The viewer as the runtime opens a file: read on a worker, then an `Opened` event.
fn open_file(app: &mut App, path: &Path) {
    let lines = youra::tui::dialogs::viewer::read(path, &app.theme);
    // Relative to the checkout, so the snapshots hold on any machine.
    let title = path
        .strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(path)
        .display()
        .to_string();
    update(app, AppEvent::Opened { title, lines });
}

#[test]
fn y_copies_the_focused_item_and_the_footer_says_what() {
    let mut a = app_at(&example_run());
    // Gates (the default focus): the selected sub-hypothesis's id.
    assert_eq!(keys(&mut a, "y"), vec![Effect::Copy("h-e1".into())]);
    assert_eq!(toast(&a), "copied h-e1");
    let footer = screen(&a, 100, 30).lines().last().unwrap().to_string();
    insta::assert_snapshot!("copied_footer_100x30", footer);
    keys(&mut a, "j");
    let second = copied(keys(&mut a, "y"));
    assert_eq!(
        (second.as_str(), toast(&a).as_str()),
        ("h-m1", "copied h-m1")
    );
    // Lifecycle: the run's path.
    let root = a.run.root.display().to_string();
    assert_eq!(keys(&mut a, "1y"), vec![Effect::Copy(root.clone())]);
    assert_eq!(toast(&a), format!("copied {root}"));
    // The card: the escalation's summary with the command that answers it.
    let summary = copied(keys(&mut a, "Ey"));
    assert!(
        summary.starts_with("escalation ") && summary.contains("h-m1 proposes Pivot"),
        "{summary}"
    );
    assert!(summary.contains("answer: youra steer "), "{summary}");
    assert_eq!(toast(&a), "copied the escalation summary");
    assert!(
        matches!(a.overlay, Some(Overlay::Escalation(_))),
        "the card stays"
    );
    // A log in the viewer: the lines on screen, from where it is scrolled.
    keys(&mut a, "\x1b");
    open_file(&mut a, &example_run().join("h-e1/04_validation.md"));
    let Some(Overlay::Viewer(v)) = &a.overlay else {
        panic!("viewer")
    };
    let (second_line, n) = (v.lines[1].to_string(), v.lines.len());
    let lines = copied(keys(&mut a, "jy"));
    assert_eq!(lines.split('\n').next(), Some(second_line.as_str()));
    assert_eq!(lines.split('\n').count(), (n - 1).min(20), "{lines:?}");
    let label = format!(
        "copied {} of assets/example-run/h-e1/04_validation.md",
        if n == 2 {
            "1 line".into()
        } else {
            format!("{} lines", (n - 1).min(20))
        }
    );
    assert_eq!(toast(&a), label);
}

#[test]
fn y_with_nothing_selected_says_so_and_copies_nothing() {
    let (_g, dir) = temp_run(&example_run());
    std::fs::remove_dir_all(dir.join("plan")).unwrap();
    let mut a = app_at(&dir);
    assert!(keys(&mut a, "6y").is_empty());
    let (msg, err) = a.toast.clone().unwrap();
    assert!(err && msg == "nothing selected in Plan tree", "{msg}");
}

#[test]
fn question_mark_in_every_overlay_lists_its_keys_and_returns_to_it() {
    let mut a = app_at(&example_run());
    // The card, showing its log: `?` lists the card's keys; esc comes back to the log.
    keys(&mut a, "El?");
    let Some(Overlay::HelpOver(_, under)) = &a.overlay else {
        panic!("help over the card")
    };
    assert_eq!(under.mode(), Mode::Escalation);
    assert_eq!(a.mode(), Mode::Help);
    let s = screen(&a, 100, 30);
    assert!(
        s.contains("keys: the escalation card") && s.contains("approve the escalation"),
        "{s}"
    );
    insta::assert_snapshot!("help_over_the_card_100x30", s);
    keys(&mut a, "\x1b");
    assert!(matches!(a.overlay, Some(Overlay::Escalation(CardTab::Log))));
    // A viewer (an artifact, an archive note, a diff: the same viewer), scrolled: kept.
    keys(&mut a, "\x1b\x1b");
    open_file(&mut a, &example_run().join("h-e1/04_validation.md"));
    keys(&mut a, "j?");
    assert!(screen(&a, 100, 30).contains("keys: the viewer"));
    keys(&mut a, "?");
    assert!(matches!(&a.overlay, Some(Overlay::Viewer(v)) if v.scroll == 1));
    // While a search is typed, `?` is part of the query.
    keys(&mut a, "/a?");
    assert!(matches!(&a.overlay, Some(Overlay::Viewer(v)) if v.query.as_deref() == Some("a?")));
    keys(&mut a, "\x1b\x1b");
    // The diff viewer: a plan node's diff opens as a viewer too.
    update(
        &mut a,
        AppEvent::Opened {
            title: youra::tui::diff_view::title("n-0002"),
            lines: Ok(vec![ratatui::text::Line::raw("+ a line")]),
        },
    );
    keys(&mut a, "?");
    assert!(matches!(&a.overlay, Some(Overlay::HelpOver(_, u)) if u.mode() == Mode::Viewer));
    keys(&mut a, "q");
    assert!(matches!(a.overlay, Some(Overlay::Viewer(_))));
    keys(&mut a, "q");
    // The file picker.
    keys(&mut a, "2\n?");
    assert!(matches!(&a.overlay, Some(Overlay::HelpOver(_, u)) if u.mode() == Mode::Picker));
    keys(&mut a, "\x1b\x1b");
    // A reason dialog: `?` on the empty reason is help; once a reason is typed it is text.
    keys(&mut a, "Ea?");
    assert!(screen(&a, 100, 30).contains("keys: the reason dialog"));
    keys(&mut a, "\x1b");
    let Some(Overlay::Reason(d)) = &a.overlay else {
        panic!("back to the reason dialog")
    };
    assert_eq!(d.verb, Some(Verb::Approve));
    keys(&mut a, "why?");
    let Some(Overlay::Reason(d)) = &a.overlay else {
        panic!("still the dialog")
    };
    assert_eq!(d.input.lines().concat(), "why?");
    keys(&mut a, "\x1b");
    // The field editor holds text from the start: F1 asks there, `?` is typed.
    a.overlay = None;
    keys(&mut a, "2e");
    press(&mut a, KeyCode::F(1));
    assert!(matches!(&a.overlay, Some(Overlay::HelpOver(_, u)) if u.mode() == Mode::Dialog));
    keys(&mut a, "\x1b?");
    let Some(Overlay::Edit(d)) = &a.overlay else {
        panic!("the editor")
    };
    assert!(d.text(1).ends_with('?'), "{}", d.text(1));
}

#[test]
fn question_mark_in_the_paper_view_lists_its_keys() {
    let mid = common::mid_run::mid_run();
    let mut a = app_at(mid.path());
    let paper = youra::tui::paper::read_paper(&a.run.root).map(Box::new);
    update(&mut a, AppEvent::PaperRead(paper));
    keys(&mut a, "n");
    let Some(Overlay::Paper(v)) = &a.overlay else {
        panic!("the paper")
    };
    let selected = v.selected;
    assert!(selected.is_some());
    keys(&mut a, "?");
    let Some(Overlay::HelpOver(_, under)) = &a.overlay else {
        panic!("help over the paper: {:?}", a.mode())
    };
    assert_eq!(under.mode(), Mode::Paper);
    assert!(screen(&a, 100, 30).contains("next unverified number"));
    keys(&mut a, "\x1b");
    assert!(matches!(&a.overlay, Some(Overlay::Paper(v)) if v.selected == selected));
}

#[test]
fn the_override_dialog_offers_every_routing_level_with_design_pivot() {
    let mut a = app_at(&example_run());
    keys(&mut a, "Eo");
    let Some(Overlay::Reason(d)) = &a.overlay else {
        panic!("the override dialog")
    };
    let all: Vec<String> = RoutingAction::ALL.iter().map(|r| r.to_string()).collect();
    assert_eq!(d.choices, all);
    assert!(d.choices.contains(&"Design-Pivot".to_string()));
    let s = screen(&a, 100, 30);
    // All six on one line of the dialog, Design-Pivot last.
    assert!(
        s.contains("Proceed  Local-Refine  Method-Refine  Design-Refine  Pivot  Design-Pivot"),
        "{s}"
    );
    insta::assert_snapshot!("override_dialog_100x30", s);
    // Left from the first choice wraps to the last: Design-Pivot.
    press(&mut a, KeyCode::Left);
    let effects = keys(&mut a, "the framing is wrong\n");
    let [Effect::Steer { request, .. }] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert_eq!(request.verb, Verb::Override);
    assert_eq!(request.target.as_deref(), Some("Design-Pivot"));
}

#[test]
fn a_save_refused_because_the_vsa_is_unreadable_says_so_and_names_the_repair() {
    let (_g, dir) = temp_run(&example_run());
    let mut a = app_at(&dir);
    let vsa = a.run.vsa.clone();
    let good = std::fs::read_to_string(&vsa).unwrap();
    let broken = format!("{good}\n  - stray: [unclosed\n");
    std::fs::write(&vsa, &broken).unwrap();
    let store = Store::new(&vsa);
    let read = read_run(&a.run, &store);
    update(&mut a, AppEvent::Loaded(Box::new(read)));
    assert!(a.banner.is_some(), "the reader saw the break");
    let banner = screen(&a, 160, 48);
    assert!(
        banner.contains("VSA unreadable (`youra vsa repair "),
        "{banner}"
    );
    // Edit h-e1's statement from the last good state, give a reason, save.
    a.focus = PaneId::Gates;
    keys(&mut a, "e (edited)\tbecause");
    // What the runtime does with the effect: the store's answer comes back as `Written`.
    let effects = keys(&mut a, "\n");
    let [Effect::Mutate(mutation)] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    let err = store.mutate(mutation).unwrap_err().to_string();
    update(&mut a, AppEvent::Written(Err(err)));
    let Some(Overlay::Edit(d)) = &a.overlay else {
        panic!("the editor stays open with the edit")
    };
    let msg = d.error.clone().unwrap_or_default();
    assert!(
        msg.starts_with("not saved: the VSA is unreadable. `youra vsa repair ")
            && msg.contains("enter saves again"),
        "{msg}"
    );
    assert!(d.text(1).ends_with("(edited)"), "the edit is kept");
    let s = screen(&a, 100, 30);
    assert!(s.contains("not saved: the VSA is unreadable"), "{s}");
    assert!(s.contains("youra vsa repair"), "{s}");
    assert_eq!(
        std::fs::read_to_string(&vsa).unwrap(),
        broken,
        "nothing written"
    );
}

#[test]
fn markdown_files_read_as_formatted_text_in_the_viewer() {
    let mut a = app_at(&example_run());
    open_file(&mut a, &example_run().join("h-e1/02c_experiment_brief.md"));
    let Some(Overlay::Viewer(v)) = &a.overlay else {
        panic!("viewer")
    };
    let text: Vec<String> = v.lines.iter().map(|l| l.to_string()).collect();
    assert!(
        !text.iter().any(|l| l.starts_with("# ") || l.contains('`')),
        "{text:?}"
    );
    assert!(text[0].contains("Experiment brief: h-e1"), "{text:?}");
    insta::assert_snapshot!("markdown_viewer_80x24", screen(&a, 80, 24));
    // Anything else is shown as it is (highlighted).
    open_file(&mut a, &example_run().join("youra.toml"));
    let Some(Overlay::Viewer(v)) = &a.overlay else {
        panic!("viewer")
    };
    assert!(v.lines.iter().any(|l| l.to_string().contains('[')));
}

#[test]
fn at_100_columns_the_status_line_and_the_news_are_whole() {
    let (_g, dir) = temp_run(&example_run());
    std::fs::create_dir_all(dir.join(".youra")).unwrap();
    std::fs::write(dir.join(".youra/tui_seen"), "2026-11-28T09:00:00+00:00\n").unwrap();
    let a = app_at(&dir);
    let s = screen(&a, 100, 30);
    let first = s
        .lines()
        .next()
        .unwrap_or_default()
        .trim_end_matches([' ', '"']);
    // Whole parts only: the budget, then nothing cut mid-word.
    assert!(first.ends_with("budget 42% left · rev 7"), "{first}");
    assert!(s.contains("• 4 new"), "{s}");
    insta::assert_snapshot!("news_and_status_100x30", s);
}
