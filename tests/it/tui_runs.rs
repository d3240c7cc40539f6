//! The runs view (`youra tui <folder>`): three real run folders — one waiting on an
//! escalation, one complete, one MUST_STOP — drawn on ratatui's TestBackend, waiting first;
//! Enter opens a run, Esc comes back; the live rows in a real pseudo-terminal, with nothing
//! written while nothing changes.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::pty::*;
use common::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use youra::rundir::RunDir;
use youra::rundir::summary::{self, RunStatus};
use youra::tui::app::{App, PaneId};
use youra::tui::draw::draw;
use youra::tui::effect::{AppEvent, Effect};
use youra::tui::keymap::{Keymap, Mode};
use youra::tui::runs_view;
use youra::tui::theme::{ColorDepth, Theme};
use youra::tui::update::update;

/// The example run's escalation block: removed from the runs that no longer wait on it.
const ESCALATION_START: &str = "  pending_escalation:\n";

fn edit_vsa(run: &Path, name: &str, status: &str, extra: &[(&str, &str)]) {
    let path = run.join("verification_state.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut text = text.replace("Grokking under weight decay", name).replace(
        "  status: AWAITING_APPROVAL # youra: an escalation waits for the researcher",
        &format!("  status: {status}"),
    );
    if status != "AWAITING_APPROVAL" {
        let start = text.find(ESCALATION_START).expect("the escalation block");
        let end = text[start..].find("\nsub_hypotheses:").unwrap() + start + 1;
        text.replace_range(start..end, "");
    }
    for (from, to) in extra {
        assert!(text.contains(from), "{from}");
        text = text.replace(from, to);
    }
    std::fs::write(&path, text).unwrap();
}

/// A folder of three runs, named so that the folders' order is not the view's.
fn three_runs() -> (tempfile::TempDir, PathBuf) {
    let (dir, first) = temp_run(&example_run());
    let folder = dir.path().join("runs");
    std::fs::create_dir_all(&folder).unwrap();
    for name in ["a-complete", "b-stopped", "c-waiting"] {
        copy(&first, &folder.join(name));
    }
    std::fs::remove_dir_all(&first).unwrap();
    edit_vsa(
        &folder.join("a-complete"),
        "Modular addition baseline",
        "COMPLETED",
        &[("  current_phase: Phase 4", "  current_phase: Refine")],
    );
    edit_vsa(
        &folder.join("b-stopped"),
        "Sparse parity probe",
        "MUST_STOP",
        &[(
            "  stop_reason: null",
            "  stop_reason: the data set is missing",
        )],
    );
    edit_vsa(
        &folder.join("c-waiting"),
        "Grokking under weight decay",
        "AWAITING_APPROVAL",
        &[],
    );
    (dir, folder)
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dst = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy(&entry.path(), &dst);
        } else {
            std::fs::copy(entry.path(), &dst).unwrap();
        }
    }
}

fn runs_app(folder: &Path) -> (App, Vec<RunDir>) {
    let (app, runs, _) = runs_app_first(folder);
    (app, runs)
}

/// The app in the runs view after its first read, and the effects of that read.
fn runs_app_first(folder: &Path) -> (App, Vec<RunDir>, Vec<Effect>) {
    let runs = youra::rundir::discover_all(folder).expect("runs");
    let mut app = App::new(
        runs[0].clone(),
        Keymap::load(&[]).unwrap(),
        Theme::builtin("dark", ColorDepth::TrueColor).unwrap(),
    );
    runs_view::start(&mut app, runs.clone());
    let rows = runs
        .iter()
        .enumerate()
        .map(|(i, r)| (i, summary::read(r)))
        .collect();
    let effects = update(&mut app, AppEvent::RunsRead(rows));
    (app, runs, effects)
}

fn screen(app: &App, w: u16, h: u16, tmp: &Path) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| draw(app, f)).unwrap();
    term.backend()
        .to_string()
        .replace(&tmp.display().to_string(), "<tmp>")
}

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    update(app, AppEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn name_of(app: &App, run: &Path) -> String {
    let view = app.runs.as_ref().unwrap();
    let (_, row) = view.rows.iter().find(|(_, r)| r.root == run).unwrap();
    row.name.clone()
}

#[test]
fn three_runs_waiting_first() {
    let (tmp, folder) = three_runs();
    let (app, runs) = runs_app(&folder);
    assert_eq!(runs.len(), 3);
    let view = app.runs.as_ref().unwrap();
    let order: Vec<(RunStatus, &str)> = view
        .rows
        .iter()
        .map(|(_, r)| (r.status, r.name.as_str()))
        .collect();
    assert_eq!(
        order,
        [
            (RunStatus::Waiting, "Grokking under weight decay"),
            (RunStatus::MustStop, "Sparse parity probe"),
            (RunStatus::Complete, "Modular addition baseline"),
        ]
    );
    assert_eq!(app.mode(), Mode::Runs);
    let shown = screen(&app, 100, 30, tmp.path());
    assert!(shown.contains("escalation: Pivot for h-m1"), "{shown}");
    assert!(shown.contains("the data set is missing"), "{shown}");
    insta::assert_snapshot!("runs_view_100x30", shown);
    insta::assert_snapshot!("runs_view_80x24", screen(&app, 80, 24, tmp.path()));
}

#[test]
fn enter_opens_the_selected_run_and_esc_comes_back() {
    let (_tmp, folder) = three_runs();
    let (mut app, runs) = runs_app(&folder);
    let waiting = folder.join("c-waiting");
    // The selection starts on the first row: the run that waits.
    let effects = press(&mut app, KeyCode::Enter);
    let [Effect::OpenRun { run, others }] = effects.as_slice() else {
        panic!("one run opened: {effects:?}")
    };
    assert_eq!(run.root, waiting);
    assert_eq!(others.len(), 2, "the others' lessons beside its own");
    assert!(others.iter().all(|o| o.root != waiting));
    assert_eq!(app.run.root, waiting);
    assert!(
        !app.loaded,
        "nothing of another run is shown before its read"
    );
    assert_eq!(app.mode(), Mode::Gates);
    // The footer names the way back, next to `?`.
    let shown = screen(&app, 100, 30, _tmp.path());
    assert!(shown.contains(" ? help esc back to runs "), "{shown}");
    // Esc returns to the view (the title says what waits again), the selection still on
    // the run just left.
    let effects = press(&mut app, KeyCode::Esc);
    assert_eq!(effects[0], Effect::CloseRun);
    assert!(
        matches!(&effects[1], Effect::Attention { waiting, ring: false } if waiting.title == "youra: ⚑ 2 of 3 runs wait"),
        "{effects:?}"
    );
    assert_eq!(app.mode(), Mode::Runs);
    assert_eq!(app.runs.as_ref().unwrap().selected, 2);
    // j moves to the next row (MUST_STOP), Enter opens that one.
    assert!(press(&mut app, KeyCode::Char('j')).is_empty());
    let effects = press(&mut app, KeyCode::Enter);
    assert!(
        matches!(effects.as_slice(), [Effect::OpenRun { run, .. }] if run.root == folder.join("b-stopped")),
        "{effects:?}"
    );
    assert_eq!(name_of(&app, &app.run.root), "Sparse parity probe");
    assert_eq!(runs.len(), 3);
}

#[test]
fn esc_in_the_reflection_pane_clears_a_search_first() {
    let (_tmp, folder) = three_runs();
    let (mut app, _) = runs_app(&folder);
    press(&mut app, KeyCode::Enter);
    app.focus = PaneId::Reflection;
    press(&mut app, KeyCode::Char('/'));
    assert_eq!(app.mode(), Mode::Search);
    // Typing a query, Esc clears it and stays in the run.
    press(&mut app, KeyCode::Char('x'));
    assert!(press(&mut app, KeyCode::Esc).is_empty());
    assert_eq!(app.mode(), Mode::Reflection);
    // With no search kept, Esc goes back.
    assert_eq!(press(&mut app, KeyCode::Esc)[0], Effect::CloseRun);
    assert_eq!(app.mode(), Mode::Runs);
}

#[test]
fn esc_without_a_runs_view_does_nothing() {
    let run = youra::rundir::discover(&example_run()).unwrap();
    let mut app = App::new(
        run,
        Keymap::load(&[]).unwrap(),
        Theme::builtin("dark", ColorDepth::TrueColor).unwrap(),
    );
    assert!(press(&mut app, KeyCode::Esc).is_empty());
    assert!(app.runs.is_none() && app.toast.is_none());
}

#[test]
fn a_change_reads_its_row_and_reloads_the_open_run() {
    let (_tmp, folder) = three_runs();
    let (mut app, _) = runs_app(&folder);
    // In the view: only rows are read again.
    let effects = update(&mut app, AppEvent::RunsChanged(vec![2]));
    assert_eq!(effects, vec![Effect::ReadRuns(vec![2])]);
    press(&mut app, KeyCode::Enter);
    let effects = update(&mut app, AppEvent::RunsChanged(vec![0, 2]));
    assert_eq!(effects, vec![Effect::Reload, Effect::ReadRuns(vec![0, 2])]);
    let effects = update(&mut app, AppEvent::RunsChanged(vec![1]));
    assert_eq!(effects, vec![Effect::ReadRuns(vec![1])]);
}

#[test]
fn the_title_says_how_many_runs_wait_and_a_new_wait_rings_once() {
    let (_tmp, folder) = three_runs();
    let (mut app, _, first) = runs_app_first(&folder);
    // The first read titles the terminal without ringing: the researcher is looking.
    let [Effect::Attention { waiting, ring }] = first.as_slice() else {
        panic!("{first:?}")
    };
    assert_eq!(waiting.title, "youra: ⚑ 2 of 3 runs wait");
    assert!(!ring);
    // The complete run (index 0) comes to wait: one ring, its name and what waits.
    let view = app.runs.as_ref().unwrap();
    let (_, mut row) = view.rows.iter().find(|(i, _)| *i == 0).cloned().unwrap();
    row.status = RunStatus::Waiting;
    row.waits = Some("breakpoint before Evidence Check".into());
    let effects = update(&mut app, AppEvent::RunsRead(vec![(0, row.clone())]));
    let [Effect::Attention { waiting, ring }] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert!(ring);
    assert_eq!(waiting.title, "youra: ⚑ 3 of 3 runs wait");
    assert_eq!(
        waiting.body,
        "Modular addition baseline: breakpoint before Evidence Check"
    );
    // Read again with the same waits: nothing to say.
    row.revision += 1;
    assert!(update(&mut app, AppEvent::RunsRead(vec![(0, row)])).is_empty());
}

/// How many bytes the terminal received in `wait`.
fn written_during(screen: &Screen, wait: Duration) -> usize {
    let before = screen.raw.lock().unwrap().len();
    std::thread::sleep(wait);
    screen.raw.lock().unwrap().len() - before
}

#[test]
fn live_rows_in_a_terminal_and_nothing_written_while_nothing_changes() {
    let (tmp, folder) = three_runs();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let Session {
        mut child,
        mut writer,
        screen,
        bin,
        _master,
    } = spawn_youra(&["tui", folder.to_str().unwrap()], &home);
    let mut send = |bytes: &[u8]| {
        writer.write_all(bytes).unwrap();
        writer.flush().unwrap();
        std::thread::sleep(Duration::from_millis(150));
    };
    screen.wait_for("Runs (waiting first)");
    screen.wait_for("the data set is missing");
    // Let the watcher settle (its first full read sends nothing new), then: silence.
    std::thread::sleep(Duration::from_millis(800));
    assert_eq!(written_during(&screen, Duration::from_millis(1500)), 0);
    // A file that changes no row: read, compared, nothing drawn.
    std::fs::write(folder.join("a-complete/notes.txt"), "a note").unwrap();
    assert_eq!(written_during(&screen, Duration::from_millis(1000)), 0);
    // A change to a row shows without a key.
    let out = std::process::Command::new(&bin)
        .args([
            "vsa",
            "set",
            folder.join("b-stopped").to_str().unwrap(),
            "workflow.stop_reason",
            "the GPU node is gone",
            "--reason",
            "e2e",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    screen.wait_for("the GPU node is gone");
    // Enter opens the waiting run in the panes; Esc comes back.
    send(b"\r");
    screen.wait_for("2 Gates");
    screen.wait_for("h-m2");
    send(b"\x1b");
    screen.wait_for("Runs (waiting first)");
    send(b"q");
    let status = wait_exit(&mut child, "youra did not quit");
    assert!(status.success());
}

/// YouRA's own task folders, given together: a row each, read from their VSAs as written.
#[test]
fn youra_task_folders_given_together() {
    let Some(corpus) = shared_fixtures() else {
        return;
    };
    let runs: Vec<RunDir> = [DATA_PROBLEMS, DL4C, BI_ALIGN_RUN]
        .iter()
        .flat_map(|d| youra::rundir::discover_all(&corpus.join(d)).unwrap())
        .collect();
    let rows: Vec<_> = runs
        .iter()
        .map(summary::read)
        .map(|r| (r.name, r.status, r.stage))
        .collect();
    use youra::stage::Stage::FactReview;
    assert_eq!(
        rows,
        [
            (
                "Data Quality Metrics and FM Benchmark Performance".to_string(),
                RunStatus::Stopped,
                Some(FactReview)
            ),
            (
                "EVAF Code Generation Alignment".to_string(),
                RunStatus::Stopped,
                Some(FactReview)
            ),
            (
                "Bidirectional Alignment via Conversational Style Transfer in RLHF".to_string(),
                RunStatus::Complete,
                Some(FactReview)
            ),
        ]
    );
    // In the view: the finished run last, every stage named in full at 100 columns.
    let mut app = App::new(
        runs[0].clone(),
        Keymap::load(&[]).unwrap(),
        Theme::builtin("dark", ColorDepth::TrueColor).unwrap(),
    );
    runs_view::start(&mut app, runs.clone());
    let read = runs.iter().enumerate().map(|(i, r)| (i, summary::read(r)));
    update(&mut app, AppEvent::RunsRead(read.collect()));
    let order: Vec<usize> = app
        .runs
        .as_ref()
        .unwrap()
        .rows
        .iter()
        .map(|(i, _)| *i)
        .collect();
    assert_eq!(order, [0, 1, 2]);
    let shown = screen(&app, 100, 30, &corpus);
    assert_eq!(
        shown.matches("Adversarial Fact Review").count(),
        3,
        "{shown}"
    );
}

/// Issue 43: two runs of the same topic (the researcher ran the study twice) read as two
/// rows that differ: each shows its folder before the name, a run with a name of its own
/// does not.
#[test]
fn runs_of_one_topic_show_their_folders() {
    let (tmp, folder) = three_runs();
    copy(&folder.join("c-waiting"), &folder.join("d-again"));
    edit_vsa(
        &folder.join("d-again"),
        "Grokking under weight decay",
        "COMPLETED",
        &[("  status: AWAITING_APPROVAL\n", "  status: COMPLETED\n")],
    );
    let (app, runs) = runs_app(&folder);
    assert_eq!(runs.len(), 4);
    let shown = screen(&app, 100, 30, tmp.path());
    assert!(
        shown.contains(" c-waiting · Grokking under weight decay"),
        "{shown}"
    );
    assert!(
        shown.contains(" d-again · Grokking under weight decay"),
        "{shown}"
    );
    assert!(shown.contains(" Sparse parity probe "), "{shown}");
    assert!(!shown.contains("b-stopped ·"), "{shown}");
    insta::assert_snapshot!("runs_view_same_topic_100x30", shown);
}
