//! The showcase demo as the researcher sees it, drawn on TestBackend: the whole screen at its
//! escalation (80×24, 100×30, 160×48), `?` at 100×30, the card with the failed attempt's chart and its log,
//! and the status line in each waiting state (an escalation, a breakpoint's pause, a
//! MUST_STOP). The runs are made by the real engine on the demo's bundle; times and durations
//! are masked, everything else (revisions, tokens, the plan tree's α and weights) is
//! deterministic.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use youra::cli::engine_cmd::{DemoOptions, demo_dir};
use youra::tui::app::App;
use youra::tui::draw::draw;
use youra::tui::effect::AppEvent;
use youra::tui::update::update;
use youra::vsa::Store;

use crate::common::tui::app_for;

fn keys(app: &mut App, keys: &str) {
    for c in keys.chars() {
        let code = match c {
            '\x1b' => KeyCode::Esc,
            c => KeyCode::Char(c),
        };
        update(app, AppEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }
}

/// Digits of clock times, dates and durations become `#`: widths stay, the run's moment goes.
fn mask(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = chars.clone();
    let timeish = |c: char| c.is_ascii_digit() || matches!(c, ':' | '.' | '-' | 'T' | 'Z' | '+');
    let mut i = 0;
    while i < chars.len() {
        // A digit inside a word (`h-e1`, `n-0003`) starts no time.
        if !chars[i].is_ascii_digit()
            || (i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '-'))
        {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < chars.len() && timeish(chars[j]) {
            j += 1;
        }
        let run: String = chars[i..j].iter().collect();
        let clock = run.contains(':');
        let duration = chars.get(j) == Some(&'s') && run.contains('.');
        let date = run.len() >= 5 && run.matches('-').count() >= 1 && chars.get(j) == Some(&' ');
        if clock || duration || date {
            for c in &mut out[i..j] {
                if c.is_ascii_digit() {
                    *c = '#';
                }
            }
        }
        i = j.max(i + 1);
    }
    out.into_iter().collect()
}

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| draw(app, f)).unwrap();
    mask(&term.backend().to_string())
}

fn status_line(app: &App) -> String {
    screen(app, 160, 10)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

/// A demo run driven by `youra run` until `done` says it has reached the state wanted.
fn drive(tmp: &Path, name: &str, o: DemoOptions, done: impl Fn(&Path) -> bool) -> PathBuf {
    let dir = tmp.join(name);
    demo_dir(Some(dir.clone()), o).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["run", dir.to_str().unwrap()])
        .env("YOURA_CONFIG_DIR", tmp.join("no-config"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !done(&dir) {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "{name} never got there"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Let the last write land, then stop the engine where it waits.
    std::thread::sleep(Duration::from_millis(300));
    let _ = child.kill();
    let _ = child.wait();
    dir
}

fn status(dir: &Path) -> Option<String> {
    Store::new(dir.join("verification_state.yaml"))
        .load()
        .ok()?
        .vsa
        .workflow
        .status
        .as_ref()
        .map(|s| s.as_str().to_string())
}

/// Issue 43: a fresh demo run (its `[plan]` on) before Coding & Validation has no tree yet:
/// the Plan pane says it has not started, not that the run has none.
#[test]
fn the_plan_pane_before_the_tree_starts() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("fresh");
    demo_dir(Some(dir.clone()), DemoOptions::default()).unwrap();
    assert!(!dir.join("plan/tree.json").exists());
    let mut app = app_for(&dir);
    keys(&mut app, "6");
    let shown = screen(&app, 100, 30);
    assert!(
        shown.contains("the plan tree has not started yet") && !shown.contains("no plan tree"),
        "{shown}"
    );
    insta::assert_snapshot!("demo_plan_not_started_100x30", shown);
}

#[test]
fn the_showcase_demo_at_its_escalation_and_the_status_line_in_each_waiting_state() {
    let tmp = tempfile::tempdir().unwrap();
    let waiting = drive(tmp.path(), "waiting", DemoOptions::default(), |d| {
        status(d).as_deref() == Some("AWAITING_APPROVAL")
    });
    let mut app = app_for(&waiting);
    let line = status_line(&app);
    assert!(line.contains("⚑ Pivot for h-m1 waits: E"), "{line}");
    assert!(line.contains("tokens") && line.contains("budget"), "{line}");
    insta::assert_snapshot!("status_escalation", line);
    for (w, h) in [(80, 24), (100, 30), (160, 48)] {
        let shown = screen(&app, w, h);
        // The pane says the clamp as the card does: never "clamp valid" beside "too unsure".
        assert!(
            shown.contains("no clamp: judge valid, κ") && !shown.contains("clamp valid"),
            "{shown}"
        );
        // Every stage, its name whole, from 100×30 up (issue 43: 10 of 11 at 100×30,
        // names cut at 160×48).
        if w >= 100 {
            for stage in youra::stage::Stage::ALL {
                assert!(
                    shown.contains(&format!(" {} ", stage.name())),
                    "{w}x{h}: {} {shown}",
                    stage.name()
                );
            }
        }
        insta::assert_snapshot!(format!("demo_escalation_{w}x{h}"), shown);
    }
    // At 100×30 the `?` list is as wide as its longest line: no help text is cut.
    keys(&mut app, "?");
    let help = screen(&app, 100, 30);
    assert!(
        help.contains("keys: Gates") && help.contains("(j/k scroll)"),
        "{help}"
    );
    insta::assert_snapshot!("demo_help_100x30", help);
    keys(&mut app, "\x1b");
    // The plan tree at 100 columns: the tab strip names it, `6` shows it.
    keys(&mut app, "6");
    let plan = screen(&app, 100, 30);
    assert!(
        plan.contains("6 Plan tree") && plan.contains("pruned"),
        "{plan}"
    );
    // The node at work in sight (issue 43): focusing the pane puts the cursor on the last
    // selection's node, below the first screenful of h-e1's tree; r is said in words.
    assert!(
        plan.contains("→n-0007") && plan.contains("r 0.90 left"),
        "{plan}"
    );
    insta::assert_snapshot!("demo_plan_tree_100x30", plan);
    // h-e1's root, which that selection set aside, says why in the search's terms.
    for _ in 0..10 {
        keys(&mut app, "k");
    }
    let root = screen(&app, 100, 30);
    assert!(
        root.contains("set aside: the last selection was for h-m1, so")
            && root.contains("only h-m1's nodes were candidates")
            && !root.contains("this attempt searches"),
        "{root}"
    );
    assert!(root.contains(" n-0001 evaluated"), "{root}");
    keys(&mut app, "E");
    let card = screen(&app, 100, 30);
    assert!(
        card.contains("no clamp: judge valid, κ 0.55 < κ_min 0.6 (too unsure)")
            && card.contains("required <= 0.01")
            && card.contains("measured 0.0369 "),
        "{card}"
    );
    // Every answer's line whole: wrapped under its key, not cut at the border.
    assert!(
        card.contains("again — pivot 1 of 2") && card.contains("Pivot, Design-Pivot)"),
        "{card}"
    );
    // Three causes do not fit at 100×30: the card says which are shown, and j brings the
    // third into sight whole (issue 43), Home back to the first.
    assert!(card.contains("causes 1–2 of 3 · j/k a cause"), "{card}");
    insta::assert_snapshot!("demo_card_100x30", card);
    keys(&mut app, "jj");
    let third = screen(&app, 100, 30);
    assert!(
        third.contains("3  Method") && third.contains("causes 2–3 of 3"),
        "{third}"
    );
    assert!(!third.contains("1  Design"), "{third}");
    insta::assert_snapshot!("demo_card_third_cause_100x30", third);
    keys(&mut app, "j");
    assert_eq!(app.card_cause, 2, "j stops at the last cause");
    update(
        &mut app,
        AppEvent::Key(KeyEvent::new(KeyCode::Home, KeyModifiers::NONE)),
    );
    assert_eq!(app.card_cause, 0);
    assert_eq!(
        screen(&app, 100, 30),
        card,
        "Home shows the card as it opened"
    );
    keys(&mut app, "g");
    insta::assert_snapshot!("demo_card_chart_100x30", screen(&app, 100, 30));
    keys(&mut app, "l");
    let log = screen(&app, 100, 30);
    assert!(log.contains("rows 25"), "the log tail at the error: {log}");
    insta::assert_snapshot!("demo_card_log_100x30", log);
    keys(&mut app, "\x1b");
    assert!(app.overlay.is_some(), "esc returns to the card");
    keys(&mut app, "\x1b");
    assert!(app.overlay.is_none(), "then closes it");

    let paused = drive(
        tmp.path(),
        "paused",
        DemoOptions {
            step: true,
            ..Default::default()
        },
        |d| status(d).as_deref() == Some("PAUSED"),
    );
    let line = status_line(&app_for(&paused));
    assert!(
        line.contains("⏸ PAUSED (breakpoint before Coding & Validation"),
        "{line}"
    );
    insta::assert_snapshot!("status_paused", line);

    // A bundle cut before h-e1's design: the engine stops, naming the missing recording.
    let stopped = drive(tmp.path(), "stopped", DemoOptions::default(), |d| {
        if !d.join(".cut").exists() {
            let bundle = d.join("replay/demo.jsonl");
            let text = std::fs::read_to_string(&bundle).unwrap();
            let kept: Vec<&str> = text
                .lines()
                .filter(|l| !l.contains("\"experiment_design\""))
                .collect();
            std::fs::write(&bundle, kept.join("\n") + "\n").unwrap();
            std::fs::write(d.join(".cut"), "").unwrap();
        }
        status(d).as_deref() == Some("STOPPED")
    });
    let line = status_line(&app_for(&stopped));
    assert!(
        line.contains("■ MUST_STOP:") && line.contains("c resumes"),
        "{line}"
    );
    insta::assert_snapshot!("status_must_stop", line);
}
