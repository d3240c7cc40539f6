//! The lessons browser (UX moment 4): the Reflection pane over several runs, grouped by
//! hypothesis or failure category, `/` search, links to the archive and the attempt log.
//! Keys go through `update`; what the researcher sees is pinned by snapshots.

use crate::common;

use common::lessons::{app_with, demo_run, lessons_fixture, type_keys};
use common::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use youra::tui::app::{App, PaneId};
use youra::tui::dialogs::overlay::Overlay;
use youra::tui::effect::Effect;
use youra::tui::lessons::entries;
use youra::tui::lessons_state::Grouping;

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| youra::tui::draw::draw(app, f)).unwrap();
    term.backend().to_string()
}

/// (run, id) of every listed record, in order.
fn listed(app: &App) -> Vec<(String, String)> {
    entries(app)
        .iter()
        .map(|e| (e.run.unwrap_or("").to_string(), e.record.id.clone()))
        .collect()
}

fn two_runs() -> App {
    app_with(&example_run(), &[&lessons_fixture()], "mono")
}

#[test]
fn several_runs_list_every_records_with_their_run_shown_run_first() {
    let app = two_runs();
    assert_eq!(
        listed(&app),
        [
            ("lessons_run", "failure_h-d1_run1"),
            ("lessons_run", "pivot/h-d1_to_h-d2_scope"),
            ("lessons_run", "limitation_h-d2_run1"),
            ("example-run", "failure_h-m1_run1"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    assert_eq!(app.rows(PaneId::Reflection), 4);
    // One run alone: no run names.
    let alone = app_with(&example_run(), &[], "mono");
    assert_eq!(
        listed(&alone),
        [(String::new(), "failure_h-m1_run1".to_string())]
    );
}

#[test]
fn g_groups_by_failure_category_and_back() {
    let mut app = two_runs();
    type_keys(&mut app, "g");
    assert_eq!(app.lessons.grouping, Grouping::Category);
    let groups: Vec<Option<String>> = entries(&app)
        .iter()
        .map(|e| e.group.map(str::to_string))
        .collect();
    assert_eq!(
        groups,
        [
            Some("MUST_WORK_FAIL".into()),
            Some("MUST_WORK_FAIL".into()),
            Some("SHOULD_WORK_FAIL".into()),
            None,
        ]
    );
    type_keys(&mut app, "g");
    assert_eq!(app.lessons.grouping, Grouping::Hypothesis);
}

#[test]
fn slash_takes_letters_into_the_query_not_into_pane_commands() {
    let mut app = two_runs();
    // a approve, l log, o override, r reject, g regroup, h filter: all of them are the query's.
    let effects = type_keys(&mut app, "/scaling lesson");
    assert!(effects.is_empty(), "{effects:?}");
    assert!(app.overlay.is_none(), "a pane command ran while typing");
    assert_eq!(app.lessons.grouping, Grouping::Hypothesis);
    assert_eq!(app.filters.hypothesis, None);
    assert!(app.lessons.search.typing);
    assert_eq!(app.lessons.search.query, "scaling lesson");
    assert_eq!(
        listed(&app)[..],
        [("lessons_run".into(), "pivot/h-d1_to_h-d2_scope".into())]
    );
    // Backspace edits; Enter keeps the filter and gives the keys back to the pane.
    type_keys(
        &mut app,
        "\x08\x08\x08\x08\x08\x08\x08\x08\x08\x08\x08\x08\x08\x08\x08sca\n",
    );
    assert!(!app.lessons.search.typing);
    assert_eq!(app.lessons.search.query, "sca");
    assert_eq!(app.rows(PaneId::Reflection), 2, "{:?}", listed(&app));
    type_keys(&mut app, "g");
    assert_eq!(
        app.lessons.grouping,
        Grouping::Category,
        "keys act again after Enter"
    );
    // Esc drops the kept search.
    type_keys(&mut app, "\x1b");
    assert_eq!(app.lessons.search.query, "");
    assert_eq!(app.rows(PaneId::Reflection), 4);
    // Esc while typing clears too.
    type_keys(&mut app, "/xyz\x1b");
    assert_eq!(app.lessons.search, Default::default());
    assert_eq!(app.rows(PaneId::Reflection), 4);
}

#[test]
fn n_and_shift_n_step_through_the_matches_wrapping_around() {
    let mut app = two_runs();
    type_keys(&mut app, "/seed\n");
    let ids: Vec<String> = listed(&app).into_iter().map(|(_, id)| id).collect();
    assert_eq!(ids, ["failure_h-d1_run1", "failure_h-m1_run1"]);
    assert_eq!(app.selected(PaneId::Reflection), 0);
    type_keys(&mut app, "n");
    assert_eq!(app.selected(PaneId::Reflection), 1);
    type_keys(&mut app, "n");
    assert_eq!(
        app.selected(PaneId::Reflection),
        0,
        "wraps to the first match"
    );
    type_keys(&mut app, "N");
    assert_eq!(
        app.selected(PaneId::Reflection),
        1,
        "back wraps to the last"
    );
    // Without a search, n says how to start one.
    let mut plain = two_runs();
    type_keys(&mut plain, "n");
    assert!(
        plain
            .toast
            .as_ref()
            .is_some_and(|(m, _)| m.contains("/ searches"))
    );
}

#[test]
fn the_links_open_the_archive_and_the_attempt_log_in_the_viewer() {
    let mut app = two_runs();
    let old = lessons_fixture();
    assert_eq!(
        type_keys(&mut app, "A"),
        [Effect::OpenFile(old.join(
            "_archive/20261120T101500_routing_recovery/_ARCHIVED.md"
        ))]
    );
    assert_eq!(
        type_keys(&mut app, "l"),
        [Effect::OpenFile(old.join("h-d1/results/run1.log"))]
    );
    // The limitation names no archive: said, nothing opened.
    type_keys(&mut app, "jj");
    assert_eq!(listed(&app)[2].1, "limitation_h-d2_run1");
    assert!(type_keys(&mut app, "A").is_empty());
    assert!(
        app.toast
            .as_ref()
            .is_some_and(|(m, _)| m.contains("no archive names h-d2"))
    );
    // Enter opens the record itself, titled with its run.
    type_keys(&mut app, "k\n");
    let Some(Overlay::Viewer(v)) = &app.overlay else {
        panic!("the record opens in the viewer")
    };
    assert_eq!(v.title, "lessons_run: pivot/h-d1_to_h-d2_scope");
}

#[test]
fn a_demo_runs_failure_links_to_its_attempts_log() {
    let tmp = tempfile::tempdir().unwrap();
    let demo = demo_run(tmp.path());
    let mut app = app_with(&demo, &[], "mono");
    let first = listed(&app);
    assert_eq!(first[0].1, "failure_h-e1_run1", "{first:?}");
    assert_eq!(
        type_keys(&mut app, "l"),
        [Effect::OpenFile(demo.join("h-e1/results/run.log"))]
    );
    // The demo's Method-Refine archives nothing: the key says so instead of opening.
    assert!(type_keys(&mut app, "A").is_empty());
    assert!(app.toast.is_some());
}

#[test]
fn snapshots_of_the_lessons_browser() {
    let mut app = two_runs();
    type_keys(&mut app, "z");
    insta::assert_snapshot!("grouped_by_hypothesis_100x30", screen(&app, 100, 30));
    type_keys(&mut app, "g");
    insta::assert_snapshot!("grouped_by_category_100x30", screen(&app, 100, 30));
    type_keys(&mut app, "g/scale");
    insta::assert_snapshot!("search_typed_100x30", screen(&app, 100, 30));
    type_keys(&mut app, "\n");
    insta::assert_snapshot!("search_kept_160x48", screen(&app, 160, 48));
}

#[test]
fn search_matches_are_marked_in_the_list_and_the_record() {
    let mut app = app_with(&example_run(), &[&lessons_fixture()], "dark");
    type_keys(&mut app, "z/scale\n");
    let mut term = Terminal::new(TestBackend::new(100, 30)).unwrap();
    term.draw(|f| youra::tui::draw::draw(&app, f)).unwrap();
    let buf = term.backend().buffer().clone();
    let hit = app.theme.style(youra::tui::theme::Role::SearchMatch);
    // Inside the pane only: the status line above has its own colours.
    let marked: String = (1..29)
        .flat_map(|y| (0..100).map(move |x| (x, y)))
        .map(|(x, y)| &buf[(x, y)])
        .filter(|c| c.bg == hit.bg.unwrap() && c.fg == hit.fg.unwrap())
        .map(|c| c.symbol())
        .collect();
    // "Scale" in the lessons and "scale" in the body, at least, in the match style.
    assert!(
        marked.to_lowercase().matches("scale").count() >= 2,
        "{marked}"
    );
}
