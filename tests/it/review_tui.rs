//! The review card in the TUI (issue 42 item 1, decision 0040): on a run where an experiment
//! waits for review (the record as the engine writes it), the status line calls with ⚑ and
//! names the key, the card shows claim, node, criteria, command, cost and the highlighted diff
//! whole at 100×30 and 160×48, and each key reaches the same `steer` request as `youra steer
//! RUN review …`: approve and reject through the reason dialog land in the VSA with the name,
//! `e` asks the runtime for the editor on the node's file, and the edited scratch file becomes
//! the answer's `--file`.

use crate::common;

use std::path::Path;

use common::tui::app_for;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use youra::steer::Verb;
use youra::tui::app::App;
use youra::tui::dialogs::overlay::Overlay;
use youra::tui::effect::{AppEvent, Effect};
use youra::tui::update::update;
use youra::vsa::Store;
use youra::vsa::mutation::{Change, Mutation};
use youra::yaml::NewNode;

const DIFF: &str = "diff --git a/code/train.py b/code/train.py\n--- a/code/train.py\n+++ b/code/train.py\n@@ -1,6 +1,8 @@\n import csv\n-def centroid(rows):\n-    return mean(rows)\n+def centroid(rows, scale=True):\n+    # z-scores fitted on the training fold only\n+    rows = standardize(rows) if scale else rows\n+    return mean(rows)\n \n print(\"accuracy\", evaluate(centroid))\n";

/// The example run with an experiment waiting for review, as `review_gate.rs` leaves it.
fn waiting_run() -> (tempfile::TempDir, std::path::PathBuf) {
    let (g, run) = common::temp_run(&common::example_run());
    let record = serde_json::json!({
        "id": "rv-31", "hypothesis": "h-e1",
        "statement": "A nearest-centroid classifier on standardized bill length and depth reaches accuracy >= 0.9.",
        "node": "n-0004", "parent": "n-0002",
        "criteria": ["accuracy >= 0.9", "macro_f1 >= 0.85"],
        "command": ["python3", "train.py", "--folds", "5"],
        "diff": DIFF,
        "cost": {"tokens": 18400, "wall_s": 41.5, "limit_s": 900.0, "basis": "from 3 nodes of h-e1 and 3 experiments of h-e1"},
    });
    std::fs::create_dir_all(run.join("reviews")).unwrap();
    std::fs::write(run.join("reviews/rv-31.json"), record.to_string()).unwrap();
    std::fs::create_dir_all(run.join("h-e1/code")).unwrap();
    std::fs::write(run.join("h-e1/code/train.py"), "import csv\n").unwrap();
    let t = |s: &str| NewNode::Scalar(youra::yaml::format_scalar(s, youra::yaml::Style::Plain));
    let value = NewNode::Map(vec![
        ("id".into(), t("rv-31")),
        ("raised_at".into(), t("2026-12-05T10:00:00Z")),
        ("hypothesis".into(), t("h-e1")),
        ("node".into(), t("n-0004")),
        ("record".into(), t("reviews/rv-31.json")),
        ("command".into(), t("python3 train.py --folds 5")),
        ("decision".into(), NewNode::Scalar("null".into())),
    ]);
    Store::new(run.join("verification_state.yaml"))
        .mutate(&Mutation::new(
            Change::Put {
                path: "workflow.pending_review".into(),
                value,
            },
            "review",
            "engine",
            "h-e1's experiment waits for review",
        ))
        .unwrap();
    (g, run)
}

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| youra::tui::draw::draw(app, f)).unwrap();
    term.backend().to_string()
}

fn key(app: &mut App, c: char) -> Vec<Effect> {
    let code = match c {
        '\n' => KeyCode::Enter,
        '\x1b' => KeyCode::Esc,
        c => KeyCode::Char(c),
    };
    update(app, AppEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

/// `W`, and the effect performed as the runtime performs it.
fn open_card(app: &mut App, run: &Path) {
    assert_eq!(key(app, 'W'), vec![Effect::OpenReview]);
    let review = app
        .data
        .vsa
        .as_ref()
        .unwrap()
        .vsa
        .workflow
        .review
        .clone()
        .unwrap();
    let card = youra::tui::review_card::read(run, &review, &app.theme).map(Box::new);
    update(app, AppEvent::ReviewRead(card));
    assert!(matches!(app.overlay, Some(Overlay::Review(_))));
}

#[test]
fn the_card_shows_what_waits_whole_at_both_sizes() {
    let (_g, run) = waiting_run();
    let mut app = app_for(&run);
    let status = screen(&app, 160, 48);
    assert!(
        status.contains("⚑ h-e1's experiment (n-0004) waits for review: W"),
        "{status}"
    );
    open_card(&mut app, &run);
    for (w, h) in [(100, 30), (160, 48)] {
        let s = screen(&app, w, h);
        for want in [
            "Review rv-31",
            "n-0004 (child of n-0002)",
            "accuracy >= 0.9 · macro_f1 >= 0.85",
            "python3 train.py --folds 5",
            "~18400 tokens · ~42 s (limit 900 s)",
            "+++ b/code/train.py",
            "+def centroid(rows, scale=True):",
            "-    return mean(rows)",
            "print(\"accuracy\", evaluate(centroid))",
            "a approve",
            "e edit",
        ] {
            assert!(s.contains(want), "{w}x{h} lacks {want:?}:\n{s}");
        }
        insta::assert_snapshot!(format!("review_card_{w}x{h}"), s);
    }
    // j scrolls the diff; esc closes.
    key(&mut app, 'j');
    let Some(Overlay::Review(c)) = &app.overlay else {
        panic!()
    };
    assert_eq!(c.scroll, 1);
    key(&mut app, '\x1b');
    assert!(app.overlay.is_none());
}

#[test]
fn each_key_reaches_the_review_answer_with_the_name() {
    let (_g, run) = waiting_run();
    let store = Store::new(run.join("verification_state.yaml"));
    let layout = youra::rundir::discover(&run).unwrap().layout;
    // (key, the answer the dialog carries)
    for (k, answer) in [('a', "approve"), ('b', "branch"), ('r', "reject")] {
        let mut app = app_for(&run);
        open_card(&mut app, &run);
        key(&mut app, k);
        let Some(Overlay::Reason(d)) = &app.overlay else {
            panic!("{k}: {:?}", app.overlay.is_some())
        };
        assert_eq!(
            (d.verb, d.target.as_deref()),
            (Some(Verb::Review), Some(answer))
        );
        // An empty reason is refused; a reason sends the request.
        assert!(key(&mut app, '\n').is_empty());
        for c in "looks right".chars() {
            key(&mut app, c);
        }
        let effects = key(&mut app, '\n');
        let [Effect::Steer { request, plan_file }] = effects.as_slice() else {
            panic!("{k}: {effects:?}")
        };
        assert_eq!(
            (
                request.verb,
                request.target.as_deref(),
                plan_file.as_deref()
            ),
            (Verb::Review, Some(answer), None)
        );
        if k == 'r' {
            // Performed as the runtime does: the answer lands, with who gave it.
            let mut r = request.clone();
            r.actor = "ana".into();
            youra::steer::apply(&store, &r, layout).unwrap();
            let v = store.load().unwrap();
            let d = v
                .vsa
                .workflow
                .review
                .as_ref()
                .unwrap()
                .decision
                .clone()
                .unwrap();
            assert_eq!(
                (d.answer(), d.by.as_deref(), d.reason.as_deref()),
                (
                    Some(youra::vsa::review::Answer::Reject),
                    Some("ana"),
                    Some("looks right")
                )
            );
        }
    }
}

#[test]
fn e_edits_the_nodes_file_and_the_saved_file_becomes_the_answer() {
    let (g, run) = waiting_run();
    let mut app = app_for(&run);
    open_card(&mut app, &run);
    let effects = key(&mut app, 'e');
    assert_eq!(
        effects,
        vec![Effect::EditReview {
            source: "h-e1/code/train.py".into(),
            file: "train.py".into()
        }]
    );
    // The runtime's part with a scripted editor: it appends a line to the scratch copy.
    let editor = g.path().join("editor.sh");
    std::fs::write(&editor, "#!/bin/sh\nprintf 'scale = True\\n' >> \"$1\"\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    // SAFETY: this test's own variable, read by the function it calls next.
    unsafe { std::env::set_var("VISUAL", &editor) };
    let scratch = youra::tui::review_card::run_editor(&run, Path::new("h-e1/code/train.py"));
    unsafe { std::env::remove_var("VISUAL") };
    let scratch = scratch.unwrap();
    assert_eq!(
        std::fs::read_to_string(&scratch).unwrap(),
        "import csv\nscale = True\n"
    );
    assert_eq!(
        std::fs::read_to_string(run.join("h-e1/code/train.py")).unwrap(),
        "import csv\n",
        "the node's file itself is untouched until the engine applies the answer"
    );
    update(
        &mut app,
        AppEvent::ReviewEdited {
            file: "train.py".into(),
            scratch: Ok(scratch.clone()),
        },
    );
    for c in "fit on the fold".chars() {
        key(&mut app, c);
    }
    let effects = key(&mut app, '\n');
    let [Effect::Steer { request, plan_file }] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert_eq!(request.target.as_deref(), Some("edit train.py"));
    assert_eq!(plan_file.as_deref(), Some(scratch.to_str().unwrap()));
    // Through the TUI's steering (the runtime's thread): the edit file is saved for the engine.
    let store = Store::new(run.join("verification_state.yaml"));
    let mut r = request.clone();
    r.actor = "ana".into();
    let layout = youra::rundir::discover(&run).unwrap().layout;
    youra::tui::steering::apply(&store, layout, r, plan_file.clone()).unwrap();
    assert_eq!(
        std::fs::read_to_string(run.join("reviews/rv-31.edit")).unwrap(),
        "import csv\nscale = True\n"
    );
    let d = store
        .load()
        .unwrap()
        .vsa
        .workflow
        .review
        .clone()
        .unwrap()
        .decision
        .unwrap();
    assert_eq!(
        (d.path.as_deref(), d.file.as_deref()),
        (Some("train.py"), Some("reviews/rv-31.edit"))
    );
}

/// End to end in a pseudo-terminal: a headless engine waits for review; `youra tui` on the
/// run shows ⚑, `W` opens the card, `e` runs a scripted `$VISUAL` on the node's file, the
/// reason is typed, and the engine runs the edited code as the node's committed code.
#[test]
fn an_edit_made_in_the_tuis_editor_is_what_the_experiment_runs() {
    use common::script::{CENTROID_PY, replay_run, with_data};
    use std::io::Write;
    let s = crate::experiment_review::passing();
    let (g, run) = replay_run(
        &s,
        "experiment_time_limit_s = 60\n\n[review]\nbefore_experiment = \"always\"\n\n[plan]\nbudget_tokens = 1000000\npolicy = \"greedy\"\nafter_pass = 0\n",
    );
    with_data(&run);
    let editor = g.path().join("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nprintf '\\nopen(__import__(\"os\").path.join(__import__(\"os\").environ[\"YOURA_RESULTS_DIR\"], \"tui.txt\"), \"w\").write(\"edited in the tui\")\\n' >> \"$1\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    let r = run.clone();
    let engine = std::thread::spawn(move || common::script::run_engine(&r, false));
    let start = std::time::Instant::now();
    while Store::new(run.join("verification_state.yaml"))
        .load()
        .ok()
        .and_then(|s| s.vsa.workflow.review.clone())
        .is_none()
    {
        assert!(!engine.is_finished() && start.elapsed().as_secs() < 60);
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let home = g.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let common::pty::Session {
        mut child,
        mut writer,
        screen,
        _master,
        ..
    } = common::pty::spawn_youra_env(
        &["tui", run.to_str().unwrap()],
        &home,
        &[("VISUAL", editor.to_str().unwrap()), ("YOURA_NAME", "ana")],
    );
    let mut send = |bytes: &[u8]| {
        writer.write_all(bytes).unwrap();
        writer.flush().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(150));
    };
    screen.wait_for("waits for review: W");
    send(b"W");
    screen.wait_for("Review rv-");
    send(b"e");
    screen.wait_for("run your version of code/centroid.py");
    send(b"leave a mark from the tui");
    send(b"\r");
    let end = engine.join().unwrap();
    send(b"q");
    common::pty::wait_exit(&mut child, "the TUI quits");
    let t = youra::plan::load(&run, youra::plan::Plans::Read)
        .unwrap()
        .tree;
    let n = t
        .nodes()
        .iter()
        .find(|n| n.packet.is_some())
        .expect("a node ran");
    assert_eq!(n.extra["review_edit"]["by"], "ana", "{end:?}");
    let (repo, commit) = youra::plan::node_code::locate(&run, &t, &n.id).unwrap();
    let files: std::collections::BTreeMap<String, Vec<u8>> =
        repo.files(&commit).unwrap().into_iter().collect();
    let code = String::from_utf8(files["code/centroid.py"].clone()).unwrap();
    assert!(
        code.starts_with(CENTROID_PY) && code.contains("tui.txt"),
        "{code}"
    );
    assert_eq!(
        files.get("results/tui.txt").map(Vec::as_slice),
        Some(b"edited in the tui".as_slice()),
        "the edited code is what ran"
    );
}
