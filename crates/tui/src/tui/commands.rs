//! What each pane command does to the state, and which effects it asks for.

use super::app::{App, PaneId};
use super::dialogs::edit::EditDialog;
use super::dialogs::overlay::Overlay;
use super::dialogs::picker::Picker;
use super::dialogs::reason::ReasonDialog;
use super::dialogs::viewer::Viewer;
use super::effect::Effect;
use super::filters::{cycle, distinct};
use super::keymap::Command;
use super::lessons;
use super::nav::{cycle_focus, focus, move_selection, open_edit};
use crate::stage::Stage;
use crate::steer::{RoutingAction, Verb, availability};
use crate::vsa::Base;
use crate::vsa::breakpoint::{When, read_all};
use crate::vsa::enums::{GateType, HypothesisStatus};

/// Verbs the `:` line offers: the same as `youra steer`.
pub fn verbs() -> Vec<&'static str> {
    Verb::ALL.iter().map(|v| v.name()).collect()
}

/// Actions an escalation can be overridden with (SAGE's routing actions).
pub fn actions() -> Vec<String> {
    RoutingAction::ALL
        .iter()
        .map(|a| a.as_str().to_string())
        .collect()
}

pub fn run(app: &mut App, cmd: Command) -> Vec<Effect> {
    match cmd {
        Command::Quit => {
            app.quit = true;
            return vec![Effect::Quit];
        }
        Command::Help => app.overlay = Some(Overlay::Help(0)),
        Command::FocusNext => cycle_focus(app, true),
        Command::FocusPrev => cycle_focus(app, false),
        Command::FocusLifecycle => focus(app, PaneId::Lifecycle),
        Command::FocusGates => focus(app, PaneId::Gates),
        Command::FocusReflection => focus(app, PaneId::Reflection),
        Command::FocusEvents => focus(app, PaneId::Events),
        Command::FocusExperiments => focus(app, PaneId::Experiments),
        Command::FocusPlan => focus(app, PaneId::Plan),
        Command::Zoom => app.zoomed = !app.zoomed,
        Command::Redraw => return vec![Effect::Redraw],
        Command::Copy => return super::clipboard::copy(app),
        Command::Down => move_selection(app, 1),
        Command::Up => move_selection(app, -1),
        Command::PageDown => move_selection(app, 10),
        Command::PageUp => move_selection(app, -10),
        Command::Top => move_selection(app, -(isize::MAX / 2)),
        Command::Bottom => move_selection(app, isize::MAX / 2),
        Command::EditField => edit_field(app),
        Command::EditGateType => edit_hypothesis(app, "gate.type", GateType::NAMES),
        Command::EditStatus => edit_hypothesis(app, "status", HypothesisStatus::NAMES),
        Command::NextCriterion => step_criterion(app, true),
        Command::PrevCriterion => step_criterion(app, false),
        Command::OpenRecord => open_record(app),
        Command::OpenArtifacts => open_artifacts(app),
        Command::FilterKind => {
            let kinds = distinct(lessons::all_records(app).map(|r| r.kind));
            app.filters.kind = cycle(&app.filters.kind, &kinds);
            app.selected_mut(PaneId::Reflection, 0);
        }
        Command::FilterHypothesis => {
            let hyps = distinct(lessons::all_records(app).filter_map(|r| r.hypothesis.clone()));
            app.filters.hypothesis = cycle(&app.filters.hypothesis, &hyps);
            app.selected_mut(PaneId::Reflection, 0);
        }
        Command::FilterActor => {
            let actors = distinct(app.data.events.iter().map(|e| e.actor.clone()));
            app.filters.actor = cycle(&app.filters.actor, &actors);
            app.selected_mut(PaneId::Events, 0);
        }
        Command::FilterStage => {
            let stages = distinct(app.data.events.iter().filter_map(|e| e.stage.clone()));
            app.filters.stage = cycle(&app.filters.stage, &stages);
            app.selected_mut(PaneId::Events, 0);
        }
        Command::OpenLog if app.focus == PaneId::Reflection => {
            return lessons::open_link(app, lessons::Link::Log);
        }
        Command::OpenLog => open_log(app),
        Command::FilterAll => {
            app.filters.all_events = !app.filters.all_events;
            app.selected_mut(PaneId::Events, 0);
        }
        Command::ExpandEvent => {
            let rows = super::event_pages::visible(app);
            if let Some(e) = rows.get(app.selected(PaneId::Events)) {
                let when = e.at.map_or("--".to_string(), |t| {
                    t.at.format("%Y-%m-%d %H:%M:%S%.3f").to_string()
                });
                let mut lines = vec![ratatui::text::Line::raw(format!("{when} · {}", e.actor))];
                lines.extend(
                    super::escalation_view::wrap(&e.text, 90)
                        .into_iter()
                        .map(ratatui::text::Line::raw),
                );
                app.overlay = Some(Overlay::Viewer(Box::new(
                    super::dialogs::viewer::Viewer::new("event".into(), lines),
                )));
            }
        }
        Command::OpenArchive => return lessons::open_link(app, lessons::Link::Archive),
        Command::ToggleGrouping => lessons::toggle_grouping(app),
        Command::Search => lessons::start_search(app),
        Command::SearchNext => lessons::step_match(app, true),
        Command::SearchPrev => lessons::step_match(app, false),
        Command::Cancel => lessons::clear_search(app),
        Command::OpenPaper => return vec![Effect::OpenPaper],
        Command::ShowDiff => {
            let node = app
                .data
                .plan
                .as_ref()
                .and_then(|p| p.rows.get(app.selected(PaneId::Plan)))
                .map(|r| r.id.clone());
            match node {
                Some(node) => return vec![Effect::OpenDiff(node)],
                None => app.toast = Some(("no plan node selected (plan/tree.json)".into(), true)),
            }
        }
        Command::OpenReview
        | Command::ReviewApprove
        | Command::ReviewReject
        | Command::ReviewBranch
        | Command::ReviewEdit => return super::review_card::command(app, cmd),
        Command::OpenEscalation => {
            if app
                .data
                .vsa
                .as_ref()
                .and_then(|s| super::escalation_view::card(&s.vsa))
                .is_some()
            {
                app.overlay = Some(Overlay::Escalation(Default::default()));
                app.card_cause = 0;
            } else {
                app.toast = Some(("no escalation waits".into(), false));
            }
        }
        Command::ToggleRecorded => toggle_recorded(app),
        Command::CommandLine => {
            app.overlay = Some(Overlay::CommandLine(Box::new(ReasonDialog::command_line(
                verbs(),
            ))))
        }
        c => return steer(app, c),
    }
    Vec::new()
}

/// Show or hide the recorded run beside the stages; a run that replays none says so.
fn toggle_recorded(app: &mut App) {
    match &app.data.comparison {
        Some(Ok(_)) => app.show_recorded = !app.show_recorded,
        Some(Err(e)) => app.toast = Some((format!("cannot read the recorded run: {e}"), true)),
        None => app.toast = Some((
            "this run replays no recorded run (`youra replay <run> <dir>` makes a copy that does)"
                .into(),
            false,
        )),
    }
}

/// The Lifecycle row the stage keys act on: the highlighted one. With the pane focused that
/// is its selection; otherwise the pane highlights the current stage (▶, or ✗ when it
/// failed), so that row.
pub(crate) fn lifecycle_row(app: &App) -> usize {
    if app.focus == PaneId::Lifecycle {
        return app.selected(PaneId::Lifecycle);
    }
    crate::tui::panes::lifecycle::highlighted(app).unwrap_or(0)
}

/// The conditions `b`'s chooser offers after this row's stage (`vsa/breakpoint.rs` reads
/// each; a budget share other than half is typed on the `:` line: `:break budget 80%`).
pub(crate) const CONDITIONS: [&str; 7] = [
    "after gate FAIL",
    "after gate INCONCLUSIVE",
    "after gate any",
    "budget 50%",
    "new branch",
    "escalation",
    "sandbox violation",
];

fn selected_hypothesis(app: &App) -> Option<String> {
    let snap = app.data.vsa.as_ref()?;
    let rows = super::gates_view::dag_rows(&snap.vsa);
    rows.get(app.selected(PaneId::Gates))
        .map(|(_, h)| h.id.clone())
}

fn base(app: &App, path: &str) -> Option<Base> {
    let snap = app.data.vsa.as_ref()?;
    let value = crate::vsa::path::VsaPath::parse(path).ok().and_then(|p| {
        match crate::vsa::path::resolve(snap.doc.root.as_ref()?, &p) {
            Ok(crate::vsa::path::Resolved::Found(n)) => n
                .as_scalar()
                .filter(|s| !s.is_null())
                .map(|s| s.text.clone()),
            _ => None,
        }
    });
    Some(Base {
        revision: snap.vsa.revision,
        old: value,
    })
}

fn open_path(app: &mut App, path: String, choices: &[&str]) {
    let base = base(app, &path);
    let value = base
        .as_ref()
        .and_then(|b| b.old.clone())
        .unwrap_or_default();
    open_edit(
        app,
        EditDialog::new(
            &path,
            &value,
            choices.iter().map(|c| c.to_string()).collect(),
            base,
        ),
    );
}

/// The gate criteria of the selected sub-hypothesis, as the VSA holds them.
fn selected_criteria(app: &App) -> usize {
    let Some(snap) = app.data.vsa.as_ref() else {
        return 0;
    };
    selected_hypothesis(app)
        .and_then(|id| snap.vsa.hypothesis(&id).map(|h| h.gate.rules.len()))
        .unwrap_or(0)
}

/// Cycle through none → criterion 1 … n → none.
fn step_criterion(app: &mut App, forward: bool) {
    let n = selected_criteria(app);
    if n == 0 {
        app.criterion = None;
        app.toast = Some((
            "this gate has no machine-readable criteria (gate.criteria)".into(),
            true,
        ));
        return;
    }
    app.criterion = match (app.criterion, forward) {
        (None, true) => Some(0),
        (None, false) => Some(n - 1),
        (Some(i), true) if i + 1 < n => Some(i + 1),
        (Some(i), false) if i > 0 => Some(i - 1),
        _ => None,
    };
}

fn edit_field(app: &mut App) {
    match app.focus {
        PaneId::Gates => match (selected_hypothesis(app), app.criterion) {
            (Some(id), Some(i)) if i < selected_criteria(app) => {
                let index = app
                    .data
                    .vsa
                    .as_ref()
                    .and_then(|s| s.vsa.hypothesis(&id)?.gate.rules.get(i).map(|r| r.index))
                    .unwrap_or(i);
                open_path(
                    app,
                    format!("sub_hypotheses.{id}.gate.criteria[{index}].value"),
                    &[],
                )
            }
            (Some(id), _) => open_path(app, format!("sub_hypotheses.{id}.statement"), &[]),
            (None, _) => app.toast = Some(("no sub-hypothesis selected".into(), true)),
        },
        _ => open_path(app, "workflow.next_action".into(), &[]),
    }
}

fn edit_hypothesis(app: &mut App, field: &str, choices: &[&str]) {
    match selected_hypothesis(app) {
        Some(id) => open_path(app, format!("sub_hypotheses.{id}.{field}"), choices),
        None => app.toast = Some(("no sub-hypothesis selected".into(), true)),
    }
}

fn open_record(app: &mut App) {
    let Some(e) = lessons::selected(app) else {
        return;
    };
    let lines = super::markdown::render(&e.record.body, &app.theme, usize::MAX);
    let title = match e.run {
        Some(run) => format!("{run}: {}", e.record.id),
        None => e.record.id.clone(),
    };
    app.overlay = Some(Overlay::Viewer(Box::new(Viewer::new(title, lines))));
}

fn picker(app: &mut App, key: &str, title: String, keep: impl Fn(&std::path::Path) -> bool) {
    let root = if key == "run" {
        app.run.root.clone()
    } else {
        app.run.root.join(key)
    };
    let items: Vec<std::path::PathBuf> = app
        .data
        .files
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, f)| f.iter().filter(|p| keep(p)).cloned().collect())
        .unwrap_or_default();
    if items.is_empty() {
        app.toast = Some((format!("{title}: no files"), true));
        return;
    }
    app.overlay = Some(Overlay::Picker(Box::new(Picker {
        title,
        root,
        items,
        selected: 0,
    })));
}

fn open_artifacts(app: &mut App) {
    match (app.focus, selected_hypothesis(app)) {
        (PaneId::Gates, Some(id)) => {
            picker(app, &id.clone(), format!("artifacts of {id}"), |_| true)
        }
        _ => picker(app, "run", "run artifacts".into(), |_| true),
    }
}

fn open_log(app: &mut App) {
    let Some(ex) = app.data.experiments.get(app.selected(PaneId::Experiments)) else {
        return;
    };
    let id = ex.hypothesis.clone();
    results_and_logs(app, id);
}

/// From the escalation card: the failed attempt's metrics and logs, without hunting for them.
pub(crate) fn open_escalation_logs(app: &mut App) {
    let card = app
        .data
        .vsa
        .as_ref()
        .and_then(|s| super::escalation_view::card(&s.vsa));
    if let Some(c) = card {
        results_and_logs(app, c.hypothesis);
    }
}

fn results_and_logs(app: &mut App, id: String) {
    picker(app, &id.clone(), format!("results and logs of {id}"), |p| {
        p.components().any(|c| c.as_os_str() == "results")
            || p.extension().is_some_and(|e| e == "log")
    });
}

/// A steering verb from a key: ask for the reason (and the action, for override). Pause,
/// resume and step act at once (UX.md's third moment is `n`, not `n`, typing, Enter): the
/// history records the verb and who pressed it; a reason can still be given on the `:` line.
fn steer(app: &mut App, cmd: Command) -> Vec<Effect> {
    if let Err(why) = availability(Verb::Pause, app.run.layout) {
        app.toast = Some((format!("{why} (e, t, s edit fields)"), true));
        return Vec::new();
    }
    let at_once = match cmd {
        Command::Pause => Some(Verb::Pause),
        Command::Resume => Some(Verb::Resume),
        Command::Step => Some(Verb::Step),
        _ => None,
    };
    if let Some(verb) = at_once {
        app.toast = Some((format!("{verb}: asking the engine…"), false));
        return vec![Effect::Steer {
            request: crate::steer::Request::new(
                verb,
                None,
                &format!("{verb} (key in the TUI; no reason given)"),
            ),
            plan_file: None,
        }];
    }
    let stage = Stage::ALL.get(lifecycle_row(app)).copied();
    let hyp = selected_hypothesis(app);
    let (verb, off, target, about, choices): (Verb, bool, Option<String>, String, Vec<String>) =
        match cmd {
            Command::ToggleBreakpoint => {
                let stage = stage.unwrap_or(Stage::CodingValidation);
                let label = stage.label();
                // Set as a stage, whatever its spelling (`Coding & Validation`, `once
                // Phase 4`): `b` on a marked row removes it.
                let on = app.data.vsa.as_ref().is_some_and(|s| {
                    read_all(&s.vsa.workflow.breakpoints)
                        .iter()
                        .any(|(_, b)| b.when == When::BeforeStage(stage))
                });
                // Not set: a chooser, this row's stage first (Enter alone keeps it), then
                // one-shot, then the conditions, which stop wherever they happen.
                let choices = if on {
                    vec![]
                } else {
                    std::iter::once(label.to_string())
                        .chain([format!("once {label}")])
                        .chain(CONDITIONS.iter().map(|c| c.to_string()))
                        .collect()
                };
                (
                    Verb::Breakpoint,
                    on,
                    Some(label.to_string()),
                    if on {
                        format!("remove the breakpoint before {label}")
                    } else {
                        format!("set a breakpoint (←/→ chooses; before {label} first)")
                    },
                    choices,
                )
            }
            Command::ClearBreakpoint => {
                let set = app
                    .data
                    .vsa
                    .as_ref()
                    .map(|s| s.vsa.workflow.breakpoints.clone())
                    .unwrap_or_default();
                if set.is_empty() {
                    app.toast = Some(("no breakpoints set (b sets one)".into(), false));
                    return Vec::new();
                }
                (
                    Verb::Breakpoint,
                    true,
                    None,
                    format!(
                        "remove one of the {} breakpoint(s) (←/→ chooses)",
                        set.len()
                    ),
                    set,
                )
            }
            Command::Redesign => (
                Verb::Redesign,
                false,
                hyp.clone(),
                format!(
                    "discard {} and return to Hypothesis Debate (archived first)",
                    hyp.as_deref().unwrap_or("?")
                ),
                vec![],
            ),
            Command::Reset => (
                Verb::Reset,
                false,
                hyp.clone(),
                "discard the research direction and return to Problem Scoping (archived first)"
                    .into(),
                vec![],
            ),
            Command::Approve => (
                Verb::Approve,
                false,
                None,
                "approve the proposed action".into(),
                vec![],
            ),
            Command::Reject => (
                Verb::Reject,
                false,
                None,
                "reject the proposed action: the engine keeps refining".into(),
                vec![],
            ),
            Command::Override => (
                Verb::Override,
                false,
                None,
                "replace the proposed action with:".into(),
                actions(),
            ),
            Command::Pin | Command::Veto | Command::ForceNode => {
                let node = app
                    .data
                    .plan
                    .as_ref()
                    .and_then(|p| p.rows.get(app.selected(PaneId::Plan)))
                    .map(|r| r.id.clone());
                let Some(node) = node else {
                    app.toast = Some(("no plan node selected (plan/tree.json)".into(), true));
                    return Vec::new();
                };
                let (verb, about) = match cmd {
                    Command::Pin => (
                        Verb::Pin,
                        format!("pin {node}: selection takes it (or the way to it) first"),
                    ),
                    Command::Veto => (
                        Verb::Veto,
                        format!("veto {node}: selection never enters it"),
                    ),
                    _ => (
                        Verb::Force,
                        format!("force {node}: the engine runs it next"),
                    ),
                };
                (verb, false, Some(node), about, vec![])
            }
            _ => return Vec::new(),
        };
    let mut dialog = ReasonDialog::new(Some(verb), target, about, choices);
    dialog.off = off;
    app.overlay = Some(Overlay::Reason(Box::new(dialog)));
    Vec::new()
}
