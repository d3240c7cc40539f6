//! Keys → commands → state and effects, without a terminal.

use crate::common;

use common::*;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use youra::steer::Verb;
use youra::tui::app::{App, PaneId};
use youra::tui::dialogs::overlay::Overlay;
use youra::tui::effect::{AppEvent, Effect};
use youra::tui::keymap::{Command, Key, Keymap, Mode};
use youra::tui::run_view::read_run;
use youra::tui::theme::{ColorDepth, Theme};
use youra::tui::update::update;
use youra::vsa::Store;
use youra::vsa::mutation::Change;

fn app() -> App {
    app_at(&example_run())
}

/// An App over the run in `dir`, after its first read.
fn app_at(dir: &std::path::Path) -> App {
    let run = youra::rundir::discover(dir).unwrap();
    let store = Store::new(&run.vsa);
    let mut app = App::new(
        run.clone(),
        Keymap::load(&[]).unwrap(),
        Theme::builtin("mono", ColorDepth::None).unwrap(),
    );
    update(&mut app, AppEvent::Loaded(Box::new(read_run(&run, &store))));
    app
}

fn press(app: &mut App, code: KeyCode, mods: KeyModifiers) -> Vec<Effect> {
    update(app, AppEvent::Key(KeyEvent::new(code, mods)))
}

/// The one steering request `effects` carries: verb, target, reason, `--off`.
fn steered(effects: &[Effect]) -> (Verb, Option<String>, String, bool) {
    let [Effect::Steer { request: r, .. }] = effects else {
        panic!("one steering request: {effects:?}")
    };
    (r.verb, r.target.clone(), r.reason.clone(), r.off)
}

fn type_str(app: &mut App, s: &str) {
    for c in s.chars() {
        press(app, KeyCode::Char(c), KeyModifiers::NONE);
    }
}

#[test]
fn every_default_binding_resolves_to_its_command() {
    let km = Keymap::load(&[]).unwrap();
    let all = km.all();
    assert!(all.len() >= 60, "{} bindings", all.len());
    for (mode, key, cmd) in &all {
        assert_eq!(km.resolve(*mode, *key), Some(*cmd), "{mode} {key}");
    }
    // Pane tables fall back to global; dialogs and the viewer do not.
    assert_eq!(
        km.resolve(Mode::Gates, Key::parse("q").unwrap()),
        Some(Command::Quit)
    );
    assert_eq!(km.resolve(Mode::Dialog, Key::parse("q").unwrap()), None);
    assert_eq!(
        km.resolve(Mode::Reflection, Key::parse("a").unwrap()),
        Some(Command::Approve)
    );
    assert_eq!(km.resolve(Mode::Gates, Key::parse("a").unwrap()), None);
}

#[test]
fn user_overrides_rebind_and_unbind() {
    let km = Keymap::load(&["[global]\n\"x\" = \"quit\"\n\"q\" = \"none\"\n"]).unwrap();
    assert_eq!(
        km.resolve(Mode::Gates, Key::parse("x").unwrap()),
        Some(Command::Quit)
    );
    assert_eq!(km.resolve(Mode::Gates, Key::parse("q").unwrap()), None);
    assert!(
        Keymap::load(&["[global]\n\"x\" = \"fly\"\n"])
            .unwrap_err()
            .contains("unknown command `fly`")
    );
    assert!(
        Keymap::load(&["[global]\n\"meta-x\" = \"quit\"\n"])
            .unwrap_err()
            .contains("unknown key")
    );
    // A misspelt table is an error naming it, not a table that silently binds nothing.
    let err = Keymap::load(&["[gate]\n\"x\" = \"quit\"\n"]).unwrap_err();
    assert!(err.contains("unknown table [gate]"), "{err}");
    assert!(err.contains("[gates]"), "{err}");
}

#[test]
fn navigation_keys_move_focus_selection_and_zoom() {
    let mut a = app();
    assert_eq!(a.focus, PaneId::Gates);
    type_str(&mut a, "j");
    assert_eq!(a.selected(PaneId::Gates), 1);
    type_str(&mut a, "jjjj");
    assert_eq!(a.selected(PaneId::Gates), 2, "clamped to the last row");
    type_str(&mut a, "k");
    assert_eq!(a.selected(PaneId::Gates), 1);
    press(&mut a, KeyCode::Tab, KeyModifiers::NONE);
    assert_eq!(a.focus, PaneId::Reflection);
    press(&mut a, KeyCode::BackTab, KeyModifiers::SHIFT);
    assert_eq!(a.focus, PaneId::Gates);
    for (k, p) in [
        ('1', PaneId::Lifecycle),
        ('3', PaneId::Reflection),
        ('4', PaneId::Events),
        ('5', PaneId::Experiments),
        ('6', PaneId::Plan),
        ('2', PaneId::Gates),
    ] {
        type_str(&mut a, &k.to_string());
        assert_eq!(a.focus, p);
    }
    type_str(&mut a, "z");
    assert!(a.zoomed);
    type_str(&mut a, "?");
    assert!(matches!(a.overlay, Some(Overlay::Help(_))));
    press(&mut a, KeyCode::Esc, KeyModifiers::NONE);
    assert!(a.overlay.is_none());
    assert_eq!(type_and_effects(&mut a, "q"), vec![Effect::Quit]);
}

fn type_and_effects(app: &mut App, s: &str) -> Vec<Effect> {
    s.chars()
        .flat_map(|c| press(app, KeyCode::Char(c), KeyModifiers::NONE))
        .collect()
}

#[test]
fn e_on_a_gate_criterion_edits_its_threshold() {
    let mut a = app();
    type_str(&mut a, "2j]");
    assert_eq!(a.criterion, Some(0), "h-m1 has one criterion");
    type_str(&mut a, "e");
    let Some(Overlay::Edit(d)) = &a.overlay else {
        panic!("edit dialog")
    };
    assert_eq!(d.text(0), "sub_hypotheses.h-m1.gate.criteria[0].value");
    assert_eq!(d.text(1), "-0.8", "prefilled with the current threshold");
    press(&mut a, KeyCode::Esc, KeyModifiers::NONE);
    // `]` past the last criterion comes back to the sub-hypothesis: `e` edits its statement.
    type_str(&mut a, "]e");
    let Some(Overlay::Edit(d)) = &a.overlay else {
        panic!("edit dialog")
    };
    assert_eq!(d.text(0), "sub_hypotheses.h-m1.statement");
    press(&mut a, KeyCode::Esc, KeyModifiers::NONE);
    // Moving to another sub-hypothesis forgets the criterion.
    type_str(&mut a, "[j");
    assert_eq!(a.criterion, None);
}

#[test]
fn editing_a_gate_type_produces_one_typed_mutation() {
    let mut a = app();
    type_str(&mut a, "jjt");
    let Some(Overlay::Edit(d)) = &a.overlay else {
        panic!("edit dialog")
    };
    assert_eq!(d.text(0), "sub_hypotheses.h-m2.gate.type");
    assert_eq!(d.text(1), "SHOULD_WORK");
    press(&mut a, KeyCode::Char('n'), KeyModifiers::CONTROL);
    press(&mut a, KeyCode::Enter, KeyModifiers::NONE);
    let Some(Overlay::Edit(d)) = &a.overlay else {
        panic!("still open")
    };
    assert!(d.error.as_deref().unwrap().contains("a reason is required"));
    assert_eq!(d.focus, 2, "the reason field takes the cursor");
    type_str(&mut a, "carries the claim");
    let effects = press(&mut a, KeyCode::Enter, KeyModifiers::NONE);
    let [Effect::Mutate(m)] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert_eq!(
        m.edits[0].change,
        Change::Set {
            path: "sub_hypotheses.h-m2.gate.type".into(),
            value: "DETERMINES_SUCCESS".into()
        }
    );
    assert_eq!(
        (m.actor.as_str(), m.edits[0].reason.as_str(), m.force),
        (
            youra::vsa::actor::current().as_str(),
            "carries the claim",
            false
        )
    );
    assert_eq!(m.base.as_ref().map(|b| b.revision), Some(7));
    // The store's refusal shows in the dialog; ctrl-f twice forces.
    update(
        &mut a,
        AppEvent::Written(Err("refused: [must-work-gate] …".into())),
    );
    press(&mut a, KeyCode::Char('f'), KeyModifiers::CONTROL);
    let effects = press(&mut a, KeyCode::Char('f'), KeyModifiers::CONTROL);
    let [Effect::Mutate(m)] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert!(m.force);
    update(&mut a, AppEvent::Written(Ok("written".into())));
    assert!(a.overlay.is_none());
    assert_eq!(a.toast, Some(("written".into(), false)));
}

#[test]
fn steering_keys_ask_for_a_reason_then_steer() {
    let mut a = app();
    type_str(&mut a, "3o");
    let Some(Overlay::Reason(d)) = &a.overlay else {
        panic!("reason dialog")
    };
    assert_eq!(d.choices.len(), 6);
    press(&mut a, KeyCode::Right, KeyModifiers::NONE);
    type_str(&mut a, "plateau is real");
    let effects = press(&mut a, KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(
        steered(&effects),
        (
            Verb::Override,
            Some("Local-Refine".into()),
            "plateau is real".into(),
            false
        )
    );
    for (keys, verb) in [
        ("3a", "approve"),
        ("3r", "reject"),
        // While the escalation waits its keys work from any pane (here Gates, Plan).
        ("2a", "approve"),
        ("6r", "reject"),
        ("2D", "redesign"),
        ("2X", "reset"),
        ("6jjP", "pin"),
        ("6jjV", "veto"),
        ("6jjF", "force"),
    ] {
        let mut a = app();
        type_str(&mut a, keys);
        type_str(&mut a, "why");
        let effects = press(&mut a, KeyCode::Enter, KeyModifiers::NONE);
        assert_eq!(steered(&effects).0.name(), verb, "{keys}");
    }
    // Pause, resume and one stage act at once: no dialog, the history names the key.
    for (key, verb) in [('p', Verb::Pause), ('c', Verb::Resume), ('n', Verb::Step)] {
        let mut a = app();
        let effects = press(&mut a, KeyCode::Char(key), KeyModifiers::NONE);
        let (v, target, reason, _) = steered(&effects);
        assert_eq!((v, target), (verb, None), "{key}");
        assert_eq!(reason, format!("{verb} (key in the TUI; no reason given)"));
        assert!(a.overlay.is_none(), "{key}: no dialog");
    }
    let mut a = app();
    // The cursor starts on the current stage (the example run's Phase 4), where the pane's
    // highlight is: up one and back down lands on it again.
    type_str(&mut a, "1kjb");
    type_str(&mut a, "stop here");
    let effects = press(&mut a, KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(
        steered(&effects),
        (
            Verb::Breakpoint,
            Some("Phase 4".into()),
            "stop here".into(),
            false
        )
    );
}

#[test]
fn the_command_line_completes_and_steers() {
    let mut a = app();
    type_str(&mut a, ":rede");
    press(&mut a, KeyCode::Tab, KeyModifiers::NONE);
    type_str(&mut a, "h-m1");
    press(&mut a, KeyCode::Enter, KeyModifiers::NONE);
    type_str(&mut a, "mechanism refuted");
    let effects = press(&mut a, KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(
        steered(&effects),
        (
            Verb::Redesign,
            Some("h-m1".into()),
            "mechanism refuted".into(),
            false
        )
    );
}

#[test]
fn a_youra_folder_disables_steering_with_the_reason() {
    let Some(root) = shared_fixtures() else {
        return;
    };
    let mut a = app_at(&root.join(DATA_PROBLEMS));
    type_str(&mut a, "1p");
    assert!(a.overlay.is_none());
    assert!(
        a.toast
            .as_ref()
            .unwrap()
            .0
            .contains("YouRA research folder")
    );
    type_str(&mut a, "2t");
    assert!(
        matches!(a.overlay, Some(Overlay::Edit(_))),
        "VSA edits still work"
    );
}

#[test]
fn a_failed_read_keeps_the_last_good_state() {
    let mut a = app();
    let run = a.run.clone();
    let mut read = read_run(&run, &Store::new(&run.vsa));
    read.vsa = Err("verification_state.yaml:4:1: tabs".into());
    update(&mut a, AppEvent::Loaded(Box::new(read)));
    assert_eq!(
        a.banner.as_deref(),
        Some("verification_state.yaml:4:1: tabs")
    );
    assert_eq!(a.data.vsa.as_ref().unwrap().vsa.revision, 7);
    assert_eq!(update(&mut a, AppEvent::Changed), vec![Effect::Reload]);
}

#[test]
fn filters_cycle_through_what_the_run_holds() {
    let Some(root) = shared_fixtures() else {
        return;
    };
    let mut a = app_at(&root.join(DATA_PROBLEMS));
    assert_eq!(a.rows(PaneId::Reflection), 13);
    type_str(&mut a, "3f");
    assert_eq!(a.filters.kind.map(|k| k.as_str()), Some("failure"));
    assert_eq!(a.rows(PaneId::Reflection), 5);
    type_str(&mut a, "h");
    assert_eq!(a.filters.hypothesis.as_deref(), Some("h-e1"));
    assert_eq!(a.rows(PaneId::Reflection), 3);
    type_str(&mut a, "4f");
    let actor = a.filters.actor.clone().unwrap();
    assert!(a.rows(PaneId::Events) > 0);
    assert!(
        a.filters
            .events(&a.data.events)
            .iter()
            .all(|e| e.actor == actor)
    );
    type_str(&mut a, "s");
    assert!(a.filters.stage.is_some());
}

/// What pressing a key must visibly do, per command: every binding of the default keymap is
/// pressed in its own mode and checked.
/// The paper as the runtime hands it over: read and checked on a worker, then an event.
fn open_paper(a: &mut App) {
    let paper = youra::tui::paper::read_paper(&a.run.root).map(Box::new);
    update(a, AppEvent::PaperRead(paper));
}

fn paper_selection(a: &App) -> Option<usize> {
    match &a.overlay {
        Some(Overlay::Paper(v)) => v.selected,
        _ => None,
    }
}

/// A review record as the engine writes it (`engine/stages/review_gate.rs`).
fn review_record() -> serde_json::Value {
    serde_json::json!({
        "id": "rv-7", "hypothesis": "h-e1", "statement": "bills separate species",
        "node": "n-0002", "parent": "n-0001", "criteria": ["accuracy >= 0.9"],
        "command": ["python3", "centroid.py"],
        "diff": "diff --git a/code/centroid.py b/code/centroid.py\n--- a/code/centroid.py\n+++ b/code/centroid.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n",
        "cost": {"tokens": 1200, "wall_s": 4.0, "limit_s": 900.0, "basis": "from 1 nodes of h-e1"}
    })
}

#[test]
fn every_binding_does_what_its_command_says() {
    let km = Keymap::load(&[]).unwrap();
    let mid = common::mid_run::mid_run();
    for (mode, key, cmd) in km.all() {
        let mut a = if mode == Mode::Paper {
            app_at(mid.path())
        } else {
            app()
        };
        let pane = PaneId::ALL.iter().copied().find(|p| p.mode() == mode);
        match mode {
            Mode::Paper => open_paper(&mut a),
            Mode::Escalation => type_str(&mut a, "E"),
            // The review card as the runtime hands it over (`review_card::read`), on a record.
            Mode::Review => {
                let card = youra::tui::review_card::card_of(&review_record(), &a.theme);
                a.overlay = Some(Overlay::Review(Box::new(card)));
            }
            Mode::Help => type_str(&mut a, "?"),
            Mode::Dialog => type_str(&mut a, "2t"),
            Mode::Viewer => {
                type_str(&mut a, "3");
                press(&mut a, KeyCode::Enter, KeyModifiers::NONE);
            }
            Mode::Search => type_str(&mut a, "3/"),
            Mode::Runs => {
                let runs = vec![a.run.clone()];
                youra::tui::runs_view::start(&mut a, runs)
            }
            Mode::Picker => {
                type_str(&mut a, "2");
                press(&mut a, KeyCode::Enter, KeyModifiers::NONE);
            }
            _ => {}
        }
        if let Some(p) = pane {
            a.focus = p;
        }
        let before_focus = a.focus;
        let before_number = paper_selection(&a);
        let before_sel = (a.selected(a.focus), a.zoomed);
        let ev = KeyEvent::new(
            key.code,
            if key.ctrl {
                KeyModifiers::CONTROL
            } else {
                KeyModifiers::NONE
            },
        );
        let effects = update(&mut a, AppEvent::Key(ev));
        let what = format!("{mode} {key} -> {cmd}");
        use Command as C;
        match cmd {
            C::Quit => assert_eq!(effects, vec![Effect::Quit], "{what}"),
            // Over an overlay, `?` lists that overlay's keys and keeps it beneath.
            C::Help if !mode.is_pane() && mode != Mode::Runs => assert!(
                matches!(&a.overlay, Some(Overlay::HelpOver(_, under)) if under.mode() == mode),
                "{what}"
            ),
            C::Help => assert!(matches!(a.overlay, Some(Overlay::Help(_))), "{what}"),
            // Gates: the selected sub-hypothesis; the card: its summary; the viewer: its lines.
            // The paper: its PDF's path; the example run compiled none, and says so.
            C::Copy if mode == Mode::Paper => {
                let (msg, err) = a.toast.clone().unwrap_or_default();
                assert!(
                    effects.is_empty() && err && msg.starts_with("no PDF yet"),
                    "{what}: {effects:?} {msg}"
                );
            }
            C::Copy => {
                let [Effect::Copy(text)] = effects.as_slice() else {
                    panic!("{what}: {effects:?}")
                };
                let (msg, err) = a.toast.clone().unwrap_or_default();
                assert!(!err && msg.starts_with("copied "), "{what}: {msg}");
                match mode {
                    Mode::Escalation => assert!(text.contains("proposes Pivot"), "{what}: {text}"),
                    Mode::Viewer => assert!(msg.contains(" of failure_h-m1_run1"), "{what}: {msg}"),
                    _ => assert_eq!((text.as_str(), msg.as_str()), ("h-e1", "copied h-e1")),
                }
            }
            C::FocusNext | C::FocusPrev => assert_ne!(a.focus, before_focus, "{what}"),
            C::FocusLifecycle
            | C::FocusGates
            | C::FocusReflection
            | C::FocusEvents
            | C::FocusExperiments
            | C::FocusPlan => {
                assert_eq!(
                    a.focus
                        .title()
                        .to_lowercase()
                        .replace(' ', "_")
                        .split('_')
                        .next(),
                    cmd.name()
                        .strip_prefix("focus_")
                        .map(|n| n.split('_').next().unwrap_or(n)),
                    "{what}"
                );
            }
            C::Zoom => assert_ne!(a.zoomed, before_sel.1, "{what}"),
            C::CommandLine => assert!(matches!(a.overlay, Some(Overlay::CommandLine(_))), "{what}"),
            // The Events pane's first lines are read from the file on disk.
            C::Top if mode == Mode::Events => assert!(
                matches!(effects.as_slice(), [Effect::ReadEvents(r)] if r.from == 1),
                "{what}: {effects:?}"
            ),
            C::Down
            | C::Up
            | C::PageDown
            | C::PageUp
            | C::Top
            | C::Bottom
            | C::SearchNext
            | C::SearchPrev => {
                assert!(effects.is_empty(), "{what}")
            }
            C::Redraw => assert_eq!(effects, vec![Effect::Redraw], "{what}"),
            C::EditField | C::EditGateType | C::EditStatus => {
                assert!(matches!(a.overlay, Some(Overlay::Edit(_))), "{what}")
            }
            // In the card the log opens inside it; elsewhere a picker of results and logs.
            C::OpenLog if mode == Mode::Escalation => assert!(
                matches!(
                    a.overlay,
                    Some(Overlay::Escalation(
                        youra::tui::dialogs::overlay::CardTab::Log
                    ))
                ),
                "{what}"
            ),
            // The example run keeps no log of h-m1's attempt: the pane says so.
            C::OpenLog if mode == Mode::Reflection => assert!(
                effects.is_empty()
                    && a.toast
                        .as_ref()
                        .is_some_and(|(m, _)| m.contains("no experiment log of h-m1")),
                "{what}: {:?}",
                a.toast
            ),
            C::OpenArtifacts | C::OpenLog => {
                assert!(matches!(a.overlay, Some(Overlay::Picker(_))), "{what}")
            }
            C::OpenArchive => assert_eq!(
                effects,
                vec![Effect::OpenFile(a.run.root.join(
                    "_archive/20261128T091500_routing_recovery/_ARCHIVED.md"
                ))],
                "{what}"
            ),
            C::ToggleGrouping => assert_eq!(
                a.lessons.grouping,
                youra::tui::lessons_state::Grouping::Category,
                "{what}"
            ),
            C::OpenRecord => assert!(matches!(a.overlay, Some(Overlay::Viewer(_))), "{what}"),
            // No dialog: the verb goes to the store at once, the history names the key.
            C::Pause | C::Resume | C::Step => {
                let [Effect::Steer { request, .. }] = effects.as_slice() else {
                    panic!("{what}: {effects:?}")
                };
                assert!(request.reason.contains("no reason given"), "{what}");
                assert!(a.overlay.is_none(), "{what}");
            }
            // The example run has no breakpoint to clear: it says so and opens nothing.
            C::ClearBreakpoint => {
                assert!(a.overlay.is_none(), "{what}");
                let (toast, _) = a.toast.clone().expect("a message");
                assert!(toast.contains("no breakpoints set"), "{what}: {toast}");
            }
            C::ToggleBreakpoint
            | C::Redesign
            | C::Reset
            | C::Approve
            | C::Reject
            | C::Override
            | C::Pin
            | C::Veto
            | C::ForceNode => {
                assert!(matches!(a.overlay, Some(Overlay::Reason(_))), "{what}")
            }
            C::ShowDiff => assert!(
                matches!(effects.as_slice(), [Effect::OpenDiff(_)]),
                "{what}"
            ),
            C::NextCriterion => assert_eq!(a.criterion, Some(0), "{what}"),
            C::PrevCriterion => assert_eq!(a.criterion, Some(0), "{what}: one criterion"),
            C::FilterKind => assert!(a.filters.kind.is_some(), "{what}"),
            C::FilterHypothesis => assert!(a.filters.hypothesis.is_some(), "{what}"),
            C::FilterActor => assert!(a.filters.actor.is_some(), "{what}"),
            C::FilterStage => assert!(a.filters.stage.is_some(), "{what}"),
            C::Close | C::Cancel => assert!(
                a.overlay.is_none() && a.lessons.search == Default::default(),
                "{what}"
            ),
            C::Search if mode == Mode::Reflection => assert!(a.lessons.search.typing, "{what}"),
            C::Search if mode == Mode::Events => {
                assert!(a.events.search.typing && a.mode() == Mode::Search, "{what}")
            }
            C::Search => assert!(
                matches!(&a.overlay, Some(Overlay::Viewer(v)) if v.query.is_some()),
                "{what}"
            ),
            C::Confirm if mode == Mode::Search => assert!(!a.lessons.search.typing, "{what}"),
            C::Confirm => assert!(!effects.is_empty() || a.overlay.is_some(), "{what}"),
            C::NextField | C::PrevField => {
                assert!(matches!(a.overlay, Some(Overlay::Edit(_))), "{what}")
            }
            C::OpenPaper => assert_eq!(effects, vec![Effect::OpenPaper], "{what}"),
            // The example run replays none: the toggle says so (tests/it/tui_compare.rs has one).
            C::ToggleRecorded => assert!(a.toast.is_some() && !a.show_recorded, "{what}"),
            C::OpenEscalation => {
                assert!(matches!(a.overlay, Some(Overlay::Escalation(_))), "{what}")
            }
            C::OpenChart => assert!(
                matches!(
                    a.overlay,
                    Some(Overlay::Escalation(
                        youra::tui::dialogs::overlay::CardTab::Chart
                    ))
                ),
                "{what}"
            ),
            C::OpenFiles => assert!(matches!(a.overlay, Some(Overlay::Picker(_))), "{what}"),
            // The example run has no review waiting: the global key says so.
            C::OpenReview => assert!(
                effects.is_empty()
                    && a.toast
                        .as_ref()
                        .is_some_and(|t| t.0 == "no experiment waits for review"),
                "{what}"
            ),
            C::ReviewApprove | C::ReviewReject | C::ReviewBranch => assert!(
                matches!(&a.overlay, Some(Overlay::Reason(d))
                    if d.verb == Some(youra::steer::Verb::Review)
                        && d.target.as_deref() == cmd.name().strip_prefix("review_")),
                "{what}"
            ),
            C::ReviewEdit => assert_eq!(
                effects,
                vec![Effect::EditReview {
                    source: "h-e1/code/centroid.py".into(),
                    file: "centroid.py".into()
                }],
                "{what}"
            ),
            C::FilterAll => assert!(a.filters.all_events, "{what}"),
            C::ExpandEvent => assert!(matches!(a.overlay, Some(Overlay::Viewer(_))), "{what}"),
            C::NextNumber | C::PrevNumber | C::NextUnverified => {
                let after = paper_selection(&a);
                assert!(after.is_some() && after != before_number, "{what}")
            }
            // The runs view opens its selected run; Esc without one to go back to does nothing.
            C::OpenRun => assert!(
                matches!(effects.as_slice(), [Effect::OpenRun { .. }])
                    && a.runs.as_ref().is_some_and(|r| !r.showing),
                "{what}"
            ),
            C::BackToRuns => assert!(effects.is_empty() && a.runs.is_none(), "{what}"),
            C::ShowSource => assert!(
                matches!(&a.overlay, Some(Overlay::Paper(v)) if v.show_source),
                "{what}"
            ),
        }
    }
}

#[test]
fn events_since_the_last_session_are_marked() {
    let (_guard, dir) = temp_run(&example_run());
    std::fs::create_dir_all(dir.join(".youra")).unwrap();
    std::fs::write(dir.join(".youra/tui_seen"), "2026-11-28T09:00:00+00:00\n").unwrap();
    let a = app_at(&dir);
    let run = a.run.clone();
    assert_eq!(
        youra::tui::panes::events::new_count(&a),
        4,
        "two gate events at 09:50, two escalation events at 10:05"
    );
    youra::tui::run_view::remember_seen(&run, &a.data.events).unwrap();
    let seen = std::fs::read_to_string(dir.join(".youra/tui_seen")).unwrap();
    assert!(seen.starts_with("2026-11-28T10:05:00"), "{seen}");
}

#[test]
fn redesigns_resets_and_skips_appear_on_the_lifecycle() {
    let (_guard, dir) = temp_run(&example_run());
    let run = youra::rundir::discover(&dir).unwrap();
    let store = Store::new(&run.vsa);
    let req = youra::steer::Request::new(
        youra::steer::Verb::Redesign,
        Some("h-m1"),
        "mechanism refuted",
    );
    youra::steer::apply(&store, &req, run.layout).unwrap();
    // An engine that applied a skip of Evidence Check (written here by hand).
    let text = std::fs::read_to_string(&run.vsa).unwrap().replace(
        "  steering:\n",
        "  steering:\n    - {id: d-0, verb: skip, target: Phase 4.5, reason: r, actor: engine, state: applied}\n",
    );
    std::fs::write(&run.vsa, text).unwrap();
    let read = read_run(&run, &store);
    assert_eq!(
        read.routing,
        ["⤴ skip Phase 4.5 (applied)", "⤴ redesign h-m1 (pending)"]
    );
    assert_eq!(read.skipped_stages, [youra::stage::Stage::EvidenceCheck]);
    let snap = read.vsa.as_ref().unwrap();
    let marks = youra::tui::panes::lifecycle::marks(&snap.vsa, &read.skipped_stages);
    assert_eq!(marks[7].1, youra::tui::panes::lifecycle::Mark::Skipped);
    assert_eq!(marks[6].1, youra::tui::panes::lifecycle::Mark::Current);
}

#[test]
fn the_paper_view_walks_numbers_and_names_their_source() {
    let mid = common::mid_run::mid_run();
    let mut a = app_at(mid.path());
    assert_eq!(type_and_effects(&mut a, "m"), vec![Effect::OpenPaper]);
    open_paper(&mut a);
    let text = |a: &App| match &a.overlay {
        Some(Overlay::Paper(v)) => v.selected.map(|i| v.paper.numbers[i].text.clone()),
        _ => None,
    };
    // It opens on the first unverified number; u walks the unverified ones, wrapping.
    assert_eq!(text(&a).as_deref(), Some("9,000"));
    let mut seen = Vec::new();
    for _ in 0..3 {
        type_str(&mut a, "u");
        seen.push(text(&a).unwrap_or_default());
    }
    assert_eq!(seen, ["20%", "0.97", "9,000"]);
    type_str(&mut a, "n");
    assert_eq!(text(&a).as_deref(), Some("3.0"));
    type_str(&mut a, "s");
    let Some(Overlay::Paper(v)) = &a.overlay else {
        panic!("paper view")
    };
    assert!(v.show_source);
    let source = youra::tui::paper::describe(&v.paper.numbers[v.selected.unwrap()]);
    assert_eq!(source[1], "key: h-m1.config.weight_decay_max");
    // esc closes the source first, then the view.
    press(&mut a, KeyCode::Esc, KeyModifiers::NONE);
    assert!(matches!(&a.overlay, Some(Overlay::Paper(v)) if !v.show_source));
    press(&mut a, KeyCode::Esc, KeyModifiers::NONE);
    assert!(a.overlay.is_none());
    // A run without a paper says so instead of opening an empty view.
    let mut b = app();
    open_paper(&mut b);
    assert!(b.overlay.is_none());
    assert!(
        b.toast
            .as_ref()
            .is_some_and(|(m, err)| *err && m.contains("no paper yet"))
    );
}

#[test]
fn the_escalation_card_decides_through_the_steering_dialogs() {
    let mut a = app();
    type_str(&mut a, "E");
    assert!(matches!(a.overlay, Some(Overlay::Escalation(_))));
    assert_eq!(a.mode(), Mode::Escalation);
    type_str(&mut a, "a");
    let Some(Overlay::Reason(d)) = &a.overlay else {
        panic!("the approve dialog")
    };
    assert_eq!(d.verb, Some(Verb::Approve));
    type_str(&mut a, "plateau confirmed");
    let effects = press(&mut a, KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(
        steered(&effects),
        (Verb::Approve, None, "plateau confirmed".into(), false)
    );
    // Inside the card: the log and the chart are tabs, esc returns to the causes, then closes.
    let mut a = app();
    type_str(&mut a, "El");
    assert!(matches!(
        a.overlay,
        Some(Overlay::Escalation(
            youra::tui::dialogs::overlay::CardTab::Log
        ))
    ));
    type_str(&mut a, "g");
    assert!(matches!(
        a.overlay,
        Some(Overlay::Escalation(
            youra::tui::dialogs::overlay::CardTab::Chart
        ))
    ));
    press(&mut a, KeyCode::Esc, KeyModifiers::NONE);
    assert!(matches!(
        a.overlay,
        Some(Overlay::Escalation(
            youra::tui::dialogs::overlay::CardTab::Causes
        ))
    ));
    press(&mut a, KeyCode::Esc, KeyModifiers::NONE);
    assert!(a.overlay.is_none());
    let mut a = app();
    type_str(&mut a, "Ef");
    let Some(Overlay::Picker(p)) = &a.overlay else {
        panic!("the failed attempt's results")
    };
    assert!(p.title.contains("h-m1"), "{}", p.title);
    // No escalation waiting: the key says so and opens nothing.
    let mid = common::mid_run::mid_run();
    let mut b = app_at(mid.path());
    type_str(&mut b, "E");
    assert!(b.overlay.is_none());
}

#[test]
fn youra_phase_statuses_mark_the_lifecycle() {
    use youra::stage::Stage;
    use youra::tui::panes::lifecycle::{Mark, marks, with_progress};
    let mid = common::mid_run::mid_run();
    let a = app_at(mid.path());
    let snap = a.data.vsa.as_ref().unwrap();
    let derived = marks(&snap.vsa, &a.data.skipped_stages);
    let got = with_progress(derived.clone(), &a.data.progress, false);
    let mark = |m: &[(Stage, Mark)], s: Stage| m.iter().find(|(x, _)| *x == s).unwrap().1;
    // current_phase alone says Literature Grounding is done; the engine recorded a skip.
    assert_eq!(mark(&derived, Stage::LiteratureGrounding), Mark::Done);
    assert_eq!(mark(&got, Stage::LiteratureGrounding), Mark::Skipped);
    assert_eq!(mark(&got, Stage::ExperimentDesign), Mark::Current);
    assert_eq!(
        mark(&got, Stage::EvidenceCheck),
        Mark::Pending,
        "NOT_STARTED"
    );
    // Without a current_phase, the first stage not behind the run is the current one.
    let none: Vec<(Stage, Mark)> = Stage::ALL.iter().map(|s| (*s, Mark::Pending)).collect();
    let started = with_progress(none, &a.data.progress, true);
    assert_eq!(mark(&started, Stage::VerificationPlanning), Mark::Done);
    assert_eq!(mark(&started, Stage::ExperimentDesign), Mark::Current);
}

/// The example run with `n` more events (older than its own: "grown event 1" … "n").
fn grown_app(n: usize) -> (tempfile::TempDir, App) {
    let (dir, path) = temp_run(&example_run());
    let text: String = (1..=n)
        .map(|i| {
            format!(
                "{{\"time\":\"2026-11-20T00:00:00Z\",\"kind\":\"note\",\"message\":\"grown event {i}.\"}}\n"
            )
        })
        .collect();
    let old = std::fs::read_to_string(path.join("events.jsonl")).unwrap();
    std::fs::write(path.join("events.jsonl"), text + &old).unwrap();
    let app = app_at(&path);
    (dir, app)
}

/// The one page request `effects` carries, run as the runtime runs it, and fed back.
fn page_in(app: &mut App, effects: Vec<Effect>) -> youra::tui::event_pages_state::PageRequest {
    let [Effect::ReadEvents(req)] = effects.as_slice() else {
        panic!("one page request: {effects:?}")
    };
    let page = youra::tui::event_pages::run(req.clone());
    update(app, AppEvent::EventsPage(page));
    req.clone()
}

fn selected_event(app: &App) -> youra::tui::rows::EventRow {
    youra::tui::event_pages::visible(app)[app.selected(PaneId::Events)].clone()
}

#[test]
fn g_pageup_pagedown_and_search_page_through_the_event_log_on_disk() {
    use youra::tui::event_pages_state::{PAGE, Select};
    use youra::tui::follow::WINDOW;
    let n = WINDOW + 1000;
    let (_dir, mut a) = grown_app(n);
    assert!(
        a.data.events.len() < WINDOW + 50,
        "a window, not the whole log"
    );
    let first = a.data.events_file.first_line;
    assert!(first > 1000, "the window starts near the end: line {first}");
    type_str(&mut a, "4");

    // g: the file's first lines, the oldest selected.
    let req = {
        let e = type_and_effects(&mut a, "g");
        page_in(&mut a, e)
    };
    assert_eq!((req.from, req.to, req.select), (1, PAGE, Select::Oldest));
    assert_eq!(selected_event(&a).line, 1);
    assert!(selected_event(&a).text.contains("grown event 1."));

    // PageUp at the page's newest row reads the page after it.
    a.selected_mut(PaneId::Events, 0);
    let req = {
        let e = press(&mut a, KeyCode::PageUp, KeyModifiers::NONE);
        page_in(&mut a, e)
    };
    assert_eq!((req.from, req.to), (PAGE + 1, 2 * PAGE));
    assert_eq!(selected_event(&a).line, PAGE + 1);

    // G: back to the newest events, live.
    assert!(type_and_effects(&mut a, "G").is_empty());
    assert!(a.events.page.is_none());
    assert_eq!(a.selected(PaneId::Events), 0);

    // PageDown moves within the window, then past its oldest row reads the page before it.
    assert!(press(&mut a, KeyCode::PageDown, KeyModifiers::NONE).is_empty());
    assert_eq!(a.selected(PaneId::Events), 10);
    let last = a.rows(PaneId::Events) - 1;
    a.selected_mut(PaneId::Events, last);
    let req = {
        let e = press(&mut a, KeyCode::PageDown, KeyModifiers::NONE);
        page_in(&mut a, e)
    };
    assert_eq!((req.from, req.to), (first - PAGE, first - 1));
    assert_eq!(selected_event(&a).line, first - 1);

    // / searches the file on disk: a hit far outside the window is shown and selected.
    let effects = type_and_effects(&mut a, "/grown event 7.");
    assert!(effects.is_empty() && a.mode() == Mode::Search);
    let req = {
        let e = press(&mut a, KeyCode::Enter, KeyModifiers::NONE);
        page_in(&mut a, e)
    };
    assert!(req.search.is_some());
    assert_eq!(selected_event(&a).line, 7);
    // n: the next older hit (none before line 7).
    let effects = type_and_effects(&mut a, "n");
    let [Effect::ReadEvents(r)] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert_eq!(r.search, Some(("grown event 7.".into(), 7, true)));
    update(
        &mut a,
        AppEvent::EventsPage(youra::tui::event_pages::run(r.clone())),
    );
    assert!(
        a.toast
            .as_ref()
            .is_some_and(|(t, _)| t.contains("no older event"))
    );
    assert_eq!(selected_event(&a).line, 7, "the hit stays selected");
}

#[test]
fn a_key_in_the_events_pane_costs_the_window_not_the_log() {
    use youra::tui::follow::WINDOW;
    let (_dir, mut a) = grown_app(3 * WINDOW);
    type_str(&mut a, "4");
    let shown = a.rows(PaneId::Events);
    assert!(shown <= WINDOW + 50, "{shown} rows listed");
    assert_eq!(
        a.data.events_file.counts.events as usize,
        3 * WINDOW + 5,
        "every line counted"
    );
    type_str(&mut a, "j");
    assert_eq!(a.selected(PaneId::Events), 1);
}

/// `b` acts on the highlighted Lifecycle row (issue 42): focusing the pane puts its cursor on
/// the current stage, which the pane highlighted, not on Phase 0; j/k move it from there; on
/// a row whose stage has a breakpoint (however it is spelt, one-shot too) `b` removes it.
#[test]
fn b_toggles_the_breakpoint_of_the_highlighted_lifecycle_row() {
    use youra::stage::Stage;
    let mid = common::mid_run::mid_run();
    let mut a = app_at(mid.path());
    assert_ne!(a.focus, PaneId::Lifecycle);
    let row = youra::tui::panes::lifecycle::highlighted(&a).expect("a current stage");
    assert_eq!(Stage::ALL[row], Stage::ExperimentDesign, "the ▶ row");
    type_str(&mut a, "1b");
    type_str(&mut a, "here");
    let effects = press(&mut a, KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(
        steered(&effects),
        (
            Verb::Breakpoint,
            Some("Phase 2C".into()),
            "here".into(),
            false
        ),
        "not Phase 0, where the invisible cursor used to start"
    );
    // The chooser: → moves from this stage to its one-shot, then to the conditions.
    let mut a = app_at(mid.path());
    type_str(&mut a, "1b");
    let Some(Overlay::Reason(d)) = &a.overlay else {
        panic!("the chooser")
    };
    assert_eq!(
        d.choices[..3],
        ["Phase 2C", "once Phase 2C", "after gate FAIL"]
    );
    for (rights, want) in [
        (1, "once Phase 2C"),
        (2, "after gate FAIL"),
        (6, "new branch"),
    ] {
        let mut a = app_at(mid.path());
        type_str(&mut a, "1b");
        for _ in 0..rights {
            press(&mut a, KeyCode::Right, KeyModifiers::NONE);
        }
        type_str(&mut a, "why");
        let effects = press(&mut a, KeyCode::Enter, KeyModifiers::NONE);
        assert_eq!(steered(&effects).1.as_deref(), Some(want), "{rights} →");
    }
    // Focused, the cursor starts on that highlight and moves with j/k.
    let mut a = app_at(mid.path());
    type_str(&mut a, "1");
    assert_eq!(
        a.selected(PaneId::Lifecycle),
        row,
        "the cursor is the highlight"
    );
    type_str(&mut a, "jjb");
    type_str(&mut a, "there");
    let effects = press(&mut a, KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(
        steered(&effects).1.as_deref(),
        Some(Stage::ALL[row + 2].label())
    );
    // A one-shot breakpoint on the highlighted stage, spelt by name: `b` removes it.
    let store = Store::new(mid.path().join("verification_state.yaml"));
    store
        .mutate(&youra::vsa::mutation::Mutation::new(
            Change::Append {
                list: "workflow.breakpoints".into(),
                item: youra::yaml::NewNode::Scalar("once Experiment Design".into()),
            },
            "test",
            "test",
            "test",
        ))
        .unwrap();
    let mut a = app_at(mid.path());
    type_str(&mut a, "1b");
    type_str(&mut a, "done");
    let effects = press(&mut a, KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(
        steered(&effects),
        (
            Verb::Breakpoint,
            Some("Phase 2C".into()),
            "done".into(),
            true
        )
    );
    // B lists the run's breakpoints as written and removes the one chosen.
    store
        .mutate(&youra::vsa::mutation::Mutation::new(
            Change::Append {
                list: "workflow.breakpoints".into(),
                item: youra::yaml::NewNode::Scalar("after gate FAIL".into()),
            },
            "test",
            "test",
            "test",
        ))
        .unwrap();
    let mut a = app_at(mid.path());
    type_str(&mut a, "1B");
    let Some(Overlay::Reason(d)) = &a.overlay else {
        panic!("the list")
    };
    assert_eq!(d.choices, ["once Experiment Design", "after gate FAIL"]);
    press(&mut a, KeyCode::Right, KeyModifiers::NONE);
    type_str(&mut a, "seen enough");
    let effects = press(&mut a, KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(
        steered(&effects),
        (
            Verb::Breakpoint,
            Some("after gate FAIL".into()),
            "seen enough".into(),
            true
        )
    );
}

/// The conditional breakpoints from the TUI: the `:` line takes the steer verb (`break`, its
/// short name) with a condition of several words, `--off` removing it.
#[test]
fn the_command_line_sets_and_clears_a_conditional_breakpoint() {
    for (line, off) in [
        (":break once gate FAIL", false),
        (":break once gate FAIL --off", true),
    ] {
        let mut a = app();
        type_str(&mut a, line);
        press(&mut a, KeyCode::Enter, KeyModifiers::NONE);
        type_str(&mut a, "see the miss");
        let effects = press(&mut a, KeyCode::Enter, KeyModifiers::NONE);
        assert_eq!(
            steered(&effects),
            (
                Verb::Breakpoint,
                Some("once gate FAIL".into()),
                "see the miss".into(),
                off
            ),
            "{line}"
        );
    }
}
