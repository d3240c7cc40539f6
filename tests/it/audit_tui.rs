//! The Gates pane says in one line when the run's recorded data audit (`paper/audit.json`,
//! written by the engine with the paper's data note) is not Real; a Real verdict, or none,
//! adds nothing; a hostile `file:line` in the record is drawn escaped.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use youra::audit::record::{FILE, Recorded};
use youra::audit::verdict::Verdict;
use youra::tui::app::App;
use youra::tui::draw::draw;

use crate::common::tui::app_for;
use crate::common::{example_run, temp_run};

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| draw(app, f)).unwrap();
    term.backend().to_string()
}

fn with_record(rec: Option<Recorded>) -> (tempfile::TempDir, String) {
    let (tmp, run) = temp_run(&example_run());
    if let Some(r) = rec {
        let path = run.join(FILE);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, serde_json::to_string(&r).unwrap()).unwrap();
    }
    let app = app_for(&run);
    (tmp, screen(&app, 100, 30))
}

#[test]
fn a_run_whose_data_audit_is_not_real_says_so_in_the_gates_pane() {
    let (_t, shown) = with_record(Some(Recorded {
        verdict: Verdict::Synthetic,
        confidence: 0.75,
        deciding: Some("experiment.py:12 — `accuracy` is computed from generated data".into()),
    }));
    assert!(
        shown.contains("data audit: Synthetic (generated data) · experiment.py:12"),
        "{shown}"
    );
    insta::assert_snapshot!("gates_audit_synthetic_100x30", shown);
    let (_t, fab) = with_record(Some(Recorded {
        verdict: Verdict::Fabricated,
        confidence: 0.9,
        deciding: Some("run.py:4 — literal".into()),
    }));
    assert!(
        fab.contains("data audit: Fabricated (values written in code) · run.py:4"),
        "{fab}"
    );
}

#[test]
fn a_real_verdict_or_none_adds_no_line_and_a_hostile_file_name_is_escaped() {
    for rec in [
        None,
        Some(Recorded {
            verdict: Verdict::Real,
            confidence: 0.8,
            deciding: None,
        }),
    ] {
        let (_t, shown) = with_record(rec);
        assert!(!shown.contains("data audit"), "{shown}");
    }
    let (_t, shown) = with_record(Some(Recorded {
        verdict: Verdict::Unknown,
        confidence: 0.5,
        deciding: Some("\u{1b}]52;c;aGk=\u{7}x.py:1 — e".into()),
    }));
    assert!(shown.contains("data audit: Unknown"), "{shown}");
    assert!(
        !shown.contains('\u{1b}') && !shown.contains('\u{7}'),
        "{shown:?}"
    );
}

/// The record the engine writes (`audit::record::write`, from a real audit of generated
/// data) is the one the pane reads: writer and reader agree on the file and its form.
#[test]
fn the_engines_record_of_a_synthetic_audit_reaches_the_gates_pane() {
    use youra::audit::ctx::TextFile;
    let (_tmp, run) = temp_run(&example_run());
    let report = youra::audit::analyze(youra::audit::Input {
        code: vec![TextFile {
            path: "exp.py".into(),
            text: "import json\nimport numpy as np\nX = np.random.randn(200, 3)\njson.dump({'mse': float((X ** 2).mean())}, open('results.json', 'w'))\n".into(),
        }],
        ..youra::audit::Input::default()
    });
    assert_eq!(report.verdict, Verdict::Synthetic);
    youra::audit::record::write(&run, &report).unwrap();
    let shown = screen(&app_for(&run), 100, 30);
    assert!(
        shown.contains("data audit: Synthetic (generated data) · exp.py:3"),
        "{shown}"
    );
}
