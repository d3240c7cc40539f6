//! What the researcher sees: every pane and dialog at 80×24 and 160×48, on the example run
//! and on two real YouRA runs, drawn on ratatui's TestBackend.

use crate::common;

use common::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use youra::tui::app::App;
use youra::tui::draw::draw;
use youra::tui::effect::AppEvent;
use youra::tui::run_view::read_run;
use youra::tui::update::update;
use youra::vsa::Store;

use crate::common::tui::app_for;

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

/// The paper as the runtime delivers it: read and checked off the UI thread, then an event.
fn open_paper(app: &mut App) {
    let paper = youra::tui::paper::read_paper(&app.run.root).map(Box::new);
    update(app, AppEvent::PaperRead(paper));
}

#[test]
fn mid_run_lifecycle_tools_and_events() {
    let run = common::mid_run::mid_run();
    let app = app_for(run.path());
    both("mid_default", &app);
    for (key, name) in [('1', "lifecycle"), ('4', "events"), ('3', "reflection")] {
        let mut app = app_for(run.path());
        keys(&mut app, &format!("{key}z"));
        both(&format!("mid_zoom_{name}"), &app);
    }
}

#[test]
fn tool_call_rows_have_their_own_style() {
    let run = common::mid_run::mid_run();
    let mut app = app_for(run.path());
    keys(&mut app, "4z");
    let mut term = Terminal::new(TestBackend::new(100, 20)).unwrap();
    term.draw(|f| draw(&app, f)).unwrap();
    let buf = term.backend().buffer().clone();
    let row = (0..20)
        .find(|&y| {
            (0..100)
                .map(|x| buf[(x, y)].symbol())
                .collect::<String>()
                .contains("⇄")
        })
        .expect("a tool call row");
    let line: String = (0..100).map(|x| buf[(x, row)].symbol()).collect();
    let x = line.chars().position(|c| c == '⇄').unwrap() as u16;
    let want = app.theme.style(youra::tui::theme::Role::ToolCall).fg;
    assert!(want.is_some());
    assert_eq!(buf[(x + 2, row)].fg, want.unwrap(), "{line}");
    assert!(
        line.contains("tool_call search_papers scholar: 12 results"),
        "{line}"
    );
}

#[test]
fn paper_view_marks_numbers_and_shows_their_source() {
    let run = common::mid_run::mid_run();
    let mut app = app_for(run.path());
    open_paper(&mut app);
    both("paper_view", &app);
    // The marks are styles: 9,000 (unverified, selected) and 0.991 (measured) differ in role.
    let mut term = Terminal::new(TestBackend::new(100, 24)).unwrap();
    term.draw(|f| draw(&app, f)).unwrap();
    let buf = term.backend().buffer().clone();
    let find = |needle: &str| {
        (0..24u16).find_map(|y| {
            let line: String = (0..100).map(|x| buf[(x, y)].symbol()).collect();
            line.find(needle)
                .map(|b| (line[..b].chars().count() as u16, y))
        })
    };
    use youra::tui::theme::Role;
    let (x, y) = find("0.991").expect("0.991 on screen");
    assert_eq!(buf[(x, y)].fg, app.theme.style(Role::Verified).fg.unwrap());
    let (x, y) = find("0.97 ").expect("0.97 on screen");
    assert_eq!(
        buf[(x, y)].bg,
        app.theme.style(Role::Unverified).bg.unwrap()
    );
    keys(&mut app, "\n");
    both("paper_source_unverified", &app);
    keys(&mut app, "NN");
    both("paper_source_measured", &app);
}

#[test]
fn escalation_card() {
    let mut app = app_for(&example_run());
    keys(&mut app, "E");
    both("example_escalation_card", &app);
}

/// The Experiments pane follows `metrics.jsonl` as it grows: the reader's next read (what the
/// watcher triggers) carries the new points, and the chart is drawn from them.
#[test]
fn metric_chart_grows_with_metrics_jsonl() {
    let (_guard, dir) = temp_run(&example_run());
    let mut app = app_for(&dir);
    keys(&mut app, "5z");
    both("live_chart_before", &app);
    let before = app.data.metrics[0].series[0].1.len();
    let path = dir.join("h-e1/results/metrics.jsonl");
    let mut text = std::fs::read_to_string(&path).unwrap();
    for (step, acc) in [(14000, 0.993), (17000, 0.995), (20000, 0.996)] {
        text.push_str(&format!("{{\"step\": {step}, \"test_accuracy\": {acc}}}\n"));
    }
    std::fs::write(&path, text).unwrap();
    let run = app.run.clone();
    let read = read_run(&run, &Store::new(&run.vsa));
    update(&mut app, AppEvent::Loaded(Box::new(read)));
    assert_eq!(app.data.metrics[0].series[0].1.len(), before + 3);
    assert_eq!(
        app.data.metrics[0].series[0].1.last(),
        Some(&(20000.0, 0.996))
    );
    both("live_chart_after", &app);
}

#[test]
fn a_stale_save_conflict_shows_on_the_banner() {
    let (_d, run) = temp_run(&example_run());
    let vsa = run.join("verification_state.yaml");
    let store = Store::new(&vsa);
    let set = |path: &str, value: &str| set_field(&store, path, value);
    set("workflow.next_action", "first");
    let stale = std::fs::read_to_string(&vsa).unwrap();
    set("workflow.next_action", "youra's");
    // An editor saves its old buffer, with its own change to the same field.
    std::fs::write(
        &vsa,
        stale.replace("next_action: \"first\"", "next_action: mine"),
    )
    .unwrap();
    set("workflow.current_phase", "Phase 4");
    let screen = screen(&app_for(&run), 160, 48);
    let banner = screen.lines().nth(1).unwrap_or("");
    assert!(
        banner.contains("an outside write at revision 9 reverted 1 field(s) youra had set"),
        "{screen}"
    );
    assert!(
        !screen
            .lines()
            .nth(2)
            .unwrap_or("")
            .contains("outside write")
    );
}

/// Issue 43: a threshold edited in the TUI while h-e1's statement still says "20k": the
/// confirmation says so first (the status line at 100 columns holds it whole), and an edit
/// that leaves no number stale says only what was written.
#[test]
fn a_threshold_edit_names_the_stale_statement() {
    use youra::vsa::mutation::{Change, Mutation};
    let (_tmp, run) = temp_run(&example_run());
    let store = Store::new(run.join("verification_state.yaml"));
    let mut app = app_for(&run);
    let edit = |path: &str, value: &str| {
        let change = Change::Set {
            path: path.into(),
            value: value.into(),
        };
        Mutation::new(change, "field_edit", "ana", "tighter gate")
    };
    let path = "sub_hypotheses.h-e1.gate.criteria[0].value";
    let msg = youra::tui::steering::write(&store, &edit(path, "15000")).unwrap();
    assert!(
        msg.starts_with(
            "h-e1's statement still says 20k (the gate now requires 15000): edit the statement too (e on h-e1) · "
        ),
        "{msg}"
    );
    update(&mut app, AppEvent::Written(Ok(msg)));
    let shown = screen(&app, 100, 30);
    assert!(shown.contains("still says 20k"), "{shown}");
    insta::assert_snapshot!("threshold_edit_stale_statement_100x30", shown);
    let plain = youra::tui::steering::write(&store, &edit("workflow.next_action", "look")).unwrap();
    assert!(
        plain.starts_with("workflow.next_action written (revision"),
        "{plain}"
    );
    assert!(!plain.contains("statement"), "{plain}");
}

/// A run whose youra.toml does not parse (issue 43's newcomer list: the TUI opened it without
/// a word): the banner says so, with the file's line and column and what it means, the text
/// escaped; the run is still shown.
#[test]
fn a_broken_youra_toml_is_named_on_the_banner() {
    let (_g, dir) = temp_run(&example_run());
    std::fs::write(
        dir.join("youra.toml"),
        "[engine]\nmax_resumes = \"three\x1b[31m\"\n[broken\n",
    )
    .unwrap();
    let app = app_for(&dir);
    let shown = screen(&app, 100, 30);
    let banner = shown
        .lines()
        .nth(1)
        .unwrap_or_else(|| panic!("no banner: {shown}"));
    assert!(banner.contains("youra.toml"), "{banner}");
    let wide = screen(&app, 400, 30);
    assert!(
        wide.contains("youra.toml cannot be read: this view uses default settings"),
        "{wide}"
    );
    assert!(!shown.contains('\u{1b}'), "escaped: {shown}");
    assert!(shown.contains("h-e1"), "the run is still shown: {shown}");
    let masked = shown.replace(&dir.display().to_string(), "<run>");
    insta::assert_snapshot!("broken_youra_toml_100x30", masked);
}
