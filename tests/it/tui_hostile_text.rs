//! Control and bidi characters in a hypothesis statement reach neither the terminal nor a
//! notification (issue 31). A run's VSA gets a statement carrying a right-to-left override,
//! a bidi isolate, `ESC [2J`, BEL and a C1 CSI; the TUI draws it on TestBackend in every place
//! a statement shows (the Gates pane, zoomed, the card, the viewer over the VSA file, `?`),
//! and the notifications youra sends when something waits (the terminal's title and OSC 9 /
//! 777 from `tui::attention`, `[notify]`'s text from `notice`) are built from it.

use crate::common;

use std::path::Path;

use common::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use youra::rundir::events::Event;
use youra::tui::app::App;
use youra::tui::draw::draw;
use youra::tui::effect::AppEvent;
use youra::tui::keymap::Keymap;
use youra::tui::run_view::read_run;
use youra::tui::theme::{ColorDepth, Theme};
use youra::tui::update::update;
use youra::vsa::Store;

/// U+202E, U+2066, ESC [2J, BEL and C1 0x9B, between plain words.
const HOSTILE: &str = "Groks \u{202e}early\u{2066} \u{1b}[2J\u{7} fast \u{9b}31m end";

fn forbidden(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{61c}' | '\u{200e}'
        | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

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

fn keys(app: &mut App, s: &str) {
    for c in s.chars() {
        let code = match c {
            '\n' => KeyCode::Enter,
            '\x1b' => KeyCode::Esc,
            c => KeyCode::Char(c),
        };
        update(app, AppEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }
}

/// Every cell's symbol of the frame, in order: what the terminal would be sent.
fn cells(app: &App, w: u16, h: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| draw(app, f)).unwrap();
    term.backend()
        .buffer()
        .content()
        .iter()
        .map(|c| c.symbol())
        .collect()
}

fn assert_clean(what: &str, text: &str) {
    let bad: Vec<String> = text
        .chars()
        .filter(|&c| forbidden(c))
        .map(|c| format!("U+{:04X}", u32::from(c)))
        .collect();
    assert!(bad.is_empty(), "{what}: {bad:?} in {text:?}");
}

#[test]
fn a_hostile_statement_reaches_neither_the_screen_nor_a_notification() {
    let (_g, dir) = temp_run(&example_run());
    let store = Store::new(dir.join("verification_state.yaml"));
    set_field(&store, "sub_hypotheses.h-e1.statement", HOSTILE);
    set_field(&store, "sub_hypotheses.h-m1.statement", HOSTILE);
    let mut a = app_at(&dir);
    let v = &a.data.vsa.as_ref().unwrap().vsa;
    assert_eq!(
        v.hypothesis("h-e1").map(|h| h.statement.clone()),
        Some(Some(HOSTILE.to_string())),
        "the statement is in the VSA as planted"
    );

    // The panes, the Gates pane zoomed on h-e1 and on h-m1 (the failed one), the card.
    let mut seen = Vec::new();
    for (keys_pressed, w, h) in [
        ("", 160, 48),
        ("", 100, 30),
        ("2z", 100, 30),
        ("j", 100, 30),
        ("zE", 100, 30),
        ("\x1b?", 80, 24),
    ] {
        keys(&mut a, keys_pressed);
        let screen = cells(&a, w, h);
        assert_clean(&format!("after {keys_pressed:?} at {w}x{h}"), &screen);
        seen.push(screen);
    }
    // The statement was on screen (its plain words), not dropped whole.
    assert!(
        seen.iter()
            .any(|s| s.contains("early") && s.contains("fast")),
        "the statement is shown"
    );
    // The VSA file itself in the viewer, as `enter` on the run's artifacts opens it.
    keys(&mut a, "\x1b");
    let lines = youra::tui::dialogs::viewer::read(&a.run.vsa, &a.theme);
    update(
        &mut a,
        AppEvent::Opened {
            title: "verification_state.yaml".into(),
            lines,
        },
    );
    let viewer = cells(&a, 100, 30);
    assert_clean("the VSA in the viewer", &viewer);

    // The terminal's title and desktop notification for what waits now.
    let waiting = youra::tui::attention::of(&a.data).expect("the escalation waits");
    for text in [&waiting.title, &waiting.body] {
        assert_clean("attention", text);
    }
    let bytes = String::from_utf8(youra::tui::attention::bytes(&waiting, true, false)).unwrap();
    assert_eq!(
        bytes.matches('\u{7}').count(),
        1,
        "one BEL, the bell itself"
    );
    assert!(!bytes.contains('\u{202e}') && !bytes.contains('\u{9b}'));

    // [notify]'s text for events that carry the statement (as a message, a stop reason).
    for kind in ["escalation", "stop", "breakpoint"] {
        let ev = Event::new(kind)
            .hypothesis("h-m1")
            .action("Pivot")
            .stage(HOSTILE)
            .message(HOSTILE);
        let n = youra::notice::notice_for(&ev, &dir).expect(kind);
        assert_clean(kind, &n.text());
        assert!(
            n.text().contains("early") || kind == "breakpoint",
            "{kind}: the words stay: {}",
            n.text()
        );
    }
}
