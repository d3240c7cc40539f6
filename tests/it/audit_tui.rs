//! The Gates pane says in one line when the run's recorded data audit (`audit.json`,
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
        std::fs::write(run.join(FILE), serde_json::to_string(&r).unwrap()).unwrap();
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
