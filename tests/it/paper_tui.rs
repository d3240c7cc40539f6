//! The demo's paper in the TUI's paper view, drawn on TestBackend (issue 28, item 5): after
//! the manuscript, the view lists what the paper ships with — the PDF's path, each figure
//! with its caption, each reference the run retrieved with its DOI or arXiv id. The run is
//! the real demo (`youra demo --headless --fast`); its folder is a temporary one, so its
//! path is shown as `<run>` in the snapshot.

use std::path::Path;
use std::process::Command;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use youra::tui::app::App;
use youra::tui::draw::draw;
use youra::tui::effect::AppEvent;
use youra::tui::keymap::Keymap;
use youra::tui::run_view::read_run;
use youra::tui::theme::{ColorDepth, Theme};
use youra::tui::update::update;
use youra::vsa::Store;

fn demo(dir: &Path) {
    let out = Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["demo", "--headless", "--fast", "--dir"])
        .arg(dir)
        .env("YOURA_CONFIG_DIR", dir.with_file_name("no-config"))
        .output()
        .expect("run the demo");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn app_for(dir: &Path) -> App {
    let run = youra::rundir::discover(dir).expect("run");
    let store = Store::new(&run.vsa);
    let mut app = App::new(
        run.clone(),
        Keymap::load(&[]).expect("default keymap"),
        Theme::builtin("dark", ColorDepth::TrueColor).expect("dark theme"),
    );
    update(&mut app, AppEvent::Loaded(Box::new(read_run(&run, &store))));
    app
}

fn key(app: &mut App, code: KeyCode) {
    update(app, AppEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

/// The screen as text below the status line (its clock is the run's moment), the run's
/// folder as `<run>`, each row padded back to the terminal's width inside its border (the
/// folder's name is as long as the temporary directory makes it).
fn screen(app: &App, root: &Path, w: u16, h: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    term.draw(|f| draw(app, f)).expect("draw");
    let text = term.backend().to_string();
    let root = root.display().to_string();
    text.lines()
        .skip(1)
        .map(|l| {
            let l = l.trim_matches('"');
            let mut out = l.replace(&root, "<run>");
            let short = l.chars().count() - out.chars().count();
            if short > 0 && out.ends_with('│') {
                out.pop();
                out.push_str(&" ".repeat(short));
                out.push('│');
            }
            out
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `2026-12-05 18:01Z` (a deviation's time) as `####-##-## ##:##Z`: widths stay.
fn mask_stamps(text: &str) -> String {
    let shape = "dddd-dd-dd dd:ddZ";
    let chars: Vec<char> = text.chars().collect();
    let mut out = chars.clone();
    let n = shape.chars().count();
    for i in 0..chars.len().saturating_sub(n - 1) {
        let fits = shape.chars().zip(&chars[i..i + n]).all(|(s, c)| match s {
            'd' => c.is_ascii_digit(),
            s => s == *c,
        });
        if fits {
            for c in &mut out[i..i + n] {
                if c.is_ascii_digit() {
                    *c = '#';
                }
            }
        }
    }
    out.into_iter().collect()
}

#[test]
fn the_paper_view_lists_the_demos_figures_references_and_pdf() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("demo");
    demo(&dir);
    let pdf = dir.join("paper/paper.pdf");
    assert!(
        std::fs::metadata(&pdf).is_ok_and(|m| m.len() > 10_000),
        "the demo compiled no PDF"
    );

    // As the runtime delivers it: read and checked off the UI thread, then an event.
    let paper = youra::tui::paper::read_paper(&dir).expect("the demo's paper");
    assert_eq!(paper.outputs.pdf.as_deref(), Some(pdf.as_path()));
    assert_eq!(
        paper.outputs.figures.len(),
        4,
        "{:?}",
        paper.outputs.figures
    );
    let keys: Vec<&str> = paper
        .outputs
        .references
        .iter()
        .filter_map(|r| r.split(']').next())
        .collect();
    assert_eq!(
        keys,
        [
            "[@gorman2014ecological",
            "[@horst2020palmerpenguins",
            "[@fisher1936use",
            "[@tibshirani2002diagnosis"
        ]
    );
    assert_eq!(
        paper.unverified_count(),
        0,
        "the demo's paper is checked clean"
    );
    let mut app = app_for(&dir);
    update(&mut app, AppEvent::PaperRead(Ok(Box::new(paper))));

    // End shows the last page: the list of what the paper ships with follows the manuscript.
    let (w, h) = (140, 30);
    let first = screen(&app, &dir, w, h);
    key(&mut app, KeyCode::End);
    let text = screen(&app, &dir, w, h);
    assert_ne!(text, first, "End moved the view");
    // Issue 43: j at the end scrolls no further (the last line stays at the bottom) …
    for _ in 0..5 {
        key(&mut app, KeyCode::Char('j'));
    }
    assert_eq!(screen(&app, &dir, w, h), text, "j scrolled past the end");
    // … k moves up at once, and Home is the top again.
    key(&mut app, KeyCode::Char('k'));
    assert_ne!(
        screen(&app, &dir, w, h),
        text,
        "k after j at the end moved nothing"
    );
    key(&mut app, KeyCode::Home);
    let top = screen(&app, &dir, w, h);
    let Some(youra::tui::dialogs::overlay::Overlay::Paper(v)) = &app.overlay else {
        panic!("the paper view is open");
    };
    assert_eq!(v.scroll, 0, "Home goes to the first line");
    assert!(top.contains(v.paper.lines[0].trim()), "{top}");
    key(&mut app, KeyCode::End);
    assert_eq!(screen(&app, &dir, w, h), text, "End is the same last page");
    for want in [
        "What the paper ships with",
        "PDF: <run>/paper/paper.pdf",
        "Figures (4):",
        "paper/figures/h-e1_metric.svg — Measured accuracy of h-e1 across its attempts",
        "paper/figures/gates.svg — Gate summary",
        "References (4, retrieved by the run's literature search):",
        "[@fisher1936use]",
    ] {
        assert!(text.contains(want), "{want}:\n{text}");
    }
    // The last page holds the deviations' record, stamped with the run's moment.
    insta::assert_snapshot!("demo_paper_outputs_140x30", mask_stamps(&text));

    // Over SSH the PDF opens on the researcher's machine: `y` hands its path to their
    // clipboard (OSC 52), and the footer says what was copied.
    let effects = update(
        &mut app,
        AppEvent::Key(KeyEvent::new(KeyCode::Char('y'), KeyModifiers::NONE)),
    );
    assert_eq!(
        effects,
        vec![youra::tui::effect::Effect::Copy(pdf.display().to_string())]
    );
    assert_eq!(
        app.toast.clone().map(|(m, _)| m).as_deref(),
        Some("copied the PDF's path")
    );
}
