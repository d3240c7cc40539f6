//! Lifecycle: the eleven stages with YouRA labels and where the run stands, time in stage,
//! routing events from `_archive/`, workflow status and next action.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::{block, clip, lifecycle_compare};
use crate::stage::Stage;
use crate::tui::app::{App, PaneId};
use crate::tui::progress::{self, Progress};
use crate::tui::theme::Role;
use crate::vsa::Vsa;
use crate::vsa::enums::WorkflowStatus;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Done,
    Current,
    Failed,
    Pending,
    /// Skipped by an applied `skip` directive.
    Skipped,
}

/// Each stage's mark: before the current one done, the current one current (failed when the
/// workflow stopped or failed), the rest pending. A finished workflow marks all done.
pub fn marks(vsa: &Vsa, skipped: &[Stage]) -> Vec<(Stage, Mark)> {
    let current = vsa.workflow.current_phase.as_deref().and_then(Stage::parse);
    let finished = matches!(vsa.workflow.status, Some(WorkflowStatus::Completed))
        || vsa
            .workflow
            .current_phase
            .as_deref()
            .is_some_and(|p| p.contains("COMPLETED"));
    let failed = matches!(
        vsa.workflow.status,
        Some(WorkflowStatus::Failed | WorkflowStatus::Stopped)
    );
    Stage::ALL
        .iter()
        .map(|&s| {
            let m = match current {
                _ if skipped.contains(&s) => Mark::Skipped,
                Some(c) if s < c => Mark::Done,
                Some(c) if s == c && finished => Mark::Done,
                Some(c) if s == c && failed => Mark::Failed,
                Some(c) if s == c => Mark::Current,
                _ => Mark::Pending,
            };
            (s, m)
        })
        .collect()
}

/// The marks corrected by what the engine recorded (YouRA's `phases.<key>.status` and the
/// per-hypothesis loop statuses): a stage recorded COMPLETED is done and one recorded
/// SKIPPED is skipped, whatever `current_phase` implies; a failure stays visible. When the
/// VSA names no `current_phase` (a run the engine just started), the first stage not behind
/// the run is the current one.
pub fn with_progress(
    mut marks: Vec<(Stage, Mark)>,
    p: &Progress,
    no_current_phase: bool,
) -> Vec<(Stage, Mark)> {
    if p.is_empty() {
        return marks;
    }
    for (stage, mark) in marks.iter_mut() {
        if *mark == Mark::Failed {
            continue;
        }
        match p.phase(*stage) {
            Some(st) if progress::is_skipped(st) => *mark = Mark::Skipped,
            Some(st) if progress::is_done(st) => *mark = Mark::Done,
            _ if p.loop_done(*stage) => *mark = Mark::Done,
            _ => {}
        }
    }
    let has_current = marks
        .iter()
        .any(|(_, m)| matches!(m, Mark::Current | Mark::Failed));
    let all_pending_after = |i: usize| marks[i..].iter().all(|(_, m)| *m == Mark::Pending);
    if no_current_phase
        && !has_current
        && let Some(i) = marks.iter().position(|(_, m)| *m == Mark::Pending)
        && all_pending_after(i)
    {
        marks[i].1 = Mark::Current;
    }
    marks
}

/// One line per sub-hypothesis with recorded loop statuses: "h-e1 design ✓ plan ▶ run ·".
pub(crate) fn loop_lines(p: &Progress, width: usize) -> Vec<String> {
    p.loops
        .iter()
        .map(|(id, st)| {
            let parts: Vec<String> = progress::LOOP
                .iter()
                .zip(st)
                .map(|((_, _, short), s)| {
                    let sym = match s.as_deref() {
                        Some(x) if progress::is_skipped(x) => "↷",
                        Some(x) if progress::is_done(x) => "✓",
                        Some(x) if progress::is_running(x) => "▶",
                        Some(x) if progress::is_failed(x) => "✗",
                        _ => "·",
                    };
                    format!("{short} {sym}")
                })
                .collect();
            clip(&format!("{id}: {}", parts.join(" ")), width)
        })
        .collect()
}

/// When the current stage began (`rundir::summary::stage_since`, the runs view's too), as
/// the status line shows it.
pub fn since(vsa: &Vsa) -> Option<String> {
    crate::rundir::summary::stage_since(vsa).map(|t| t.at.format("%m-%d %H:%M").to_string())
}

/// The row the pane highlights when it is not focused: the current stage (▶), or the
/// failed one (✗). The stage keys (`b`) act on it then (`commands::lifecycle_row`).
pub fn highlighted(app: &App) -> Option<usize> {
    let vsa = &app.data.vsa.as_ref()?.vsa;
    with_progress(
        marks(vsa, &app.data.skipped_stages),
        &app.data.progress,
        vsa.workflow.current_phase.is_none(),
    )
    .iter()
    .position(|(_, m)| matches!(m, Mark::Current | Mark::Failed))
}

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let mut lines = Vec::new();
    let Some(snap) = app.data.vsa.as_ref() else {
        frame.render_widget(
            Paragraph::new(loading(app)).block(block(app, PaneId::Lifecycle)),
            area,
        );
        return;
    };
    let vsa = &snap.vsa;
    let width = area.width.saturating_sub(4) as usize;
    let sel = app.selected(PaneId::Lifecycle);
    let mut tail = Vec::new();
    let status = vsa
        .workflow
        .status
        .as_ref()
        .map_or("-".to_string(), ToString::to_string);
    tail.push(Line::styled(clip(&status, width), t.style(Role::Emphasis)));
    if let Some(cause) = &app.data.pause {
        tail.push(Line::styled(
            clip(&format!("⏸ {}", cause.describe()), width),
            t.style(Role::Attention),
        ));
    }
    // The conditional breakpoints (a stage's shows as ● on its row): B clears one.
    for (_, b) in crate::vsa::breakpoint::read_all(&vsa.workflow.breakpoints)
        .iter()
        .filter(|(_, b)| !matches!(b.when, crate::vsa::breakpoint::When::BeforeStage(_)))
    {
        tail.push(Line::styled(
            clip(&format!("● {}", b.describe()), width),
            t.style(Role::Attention),
        ));
    }
    // Where the eleven stages leave two lines, `since` gives way (the status line says it).
    let height = area.height.saturating_sub(2) as usize;
    let all = Stage::ALL.len();
    let tight = height < all + 3;
    if let Some(since) = app.data.stage_since.as_ref().filter(|_| !tight) {
        tail.push(Line::styled(format!("since {since}"), t.style(Role::Muted)));
    }
    if let Some(next) = &vsa.workflow.next_action {
        tail.push(Line::styled(
            clip(&format!("next: {next}"), width),
            t.style(Role::Text),
        ));
    }
    for a in app.data.archives.iter().rev().take(3) {
        let when = a.archived_at.as_deref().unwrap_or(&a.dir_name);
        let route = a.route_target.as_deref().unwrap_or("?");
        let trig = a.trigger.as_deref().unwrap_or("");
        tail.push(Line::styled(
            clip(&format!("↺ {} → {route} {trig}", clip(when, 15)), width),
            t.style(Role::Muted),
        ));
    }
    for r in app.data.routing.iter().rev().take(3) {
        tail.push(Line::styled(clip(r, width), t.style(Role::Muted)));
    }
    for l in loop_lines(&app.data.progress, width) {
        tail.push(Line::styled(l, t.style(Role::Text)));
    }
    let marks = with_progress(
        marks(vsa, &app.data.skipped_stages),
        &app.data.progress,
        vsa.workflow.current_phase.is_none(),
    );
    // On a short screen the stages scroll to keep the current (or selected) one in view
    // above the status lines; the status lines give way first (down to two: the status and
    // what follows it), so all eleven stages show at 100×30.
    let keep = if tight { 2 } else { 3 };
    let room = height.saturating_sub(tail.len().min(keep)).max(3);
    let focus_row = if app.focus == PaneId::Lifecycle {
        sel
    } else {
        marks
            .iter()
            .position(|(_, m)| matches!(m, Mark::Current | Mark::Failed))
            .unwrap_or(0)
    };
    // Beside the recorded run (`R`): a verdict line, then each stage's steps under it.
    let recorded = app
        .show_recorded
        .then(|| app.data.comparison.as_ref()?.as_ref().ok())
        .flatten();
    let room = room.saturating_sub(usize::from(recorded.is_some())).max(1);
    let mut rows: Vec<(usize, Line)> = Vec::new();
    // Whole names before labels: where `Phase 2B  Verification Planning` does not fit,
    // the label loses its `Phase ` (`2B  Verification Planning`).
    let longest = Stage::ALL
        .iter()
        .map(|s| s.name().chars().count())
        .max()
        .unwrap_or(0);
    let short = 2 + 9 + 1 + longest > width;
    for (i, (stage, mark)) in marks.into_iter().enumerate() {
        let (sym, role) = match mark {
            Mark::Done => ("✓", Role::StageDone),
            Mark::Current => ("▶", Role::StageCurrent),
            Mark::Failed => ("✗", Role::StageFailed),
            Mark::Pending => ("·", Role::StagePending),
            Mark::Skipped => ("↷", Role::Muted),
        };
        let bp = if crate::vsa::breakpoint::read_all(&vsa.workflow.breakpoints)
            .iter()
            .any(|(_, b)| b.when == crate::vsa::breakpoint::When::BeforeStage(stage))
        {
            "●"
        } else {
            " "
        };
        let mut style = t.style(role);
        if app.focus == PaneId::Lifecycle && i == sel {
            style = style.patch(t.style(Role::Selected));
        }
        let vs = recorded.map_or("", |c| lifecycle_compare::stage_mark(c, stage));
        let label = if short {
            format!("{:<6}", stage.label().trim_start_matches("Phase "))
        } else {
            format!("{:<9}", stage.label())
        };
        let text = clip(&format!("{sym}{bp}{label} {}{vs}", stage.name()), width);
        rows.push((i, Line::styled(text, style)));
        if let Some(c) = recorded {
            rows.extend(
                lifecycle_compare::lines(c, stage, width, t)
                    .into_iter()
                    .map(|l| (i, l)),
            );
        }
    }
    let at = rows.iter().position(|(i, _)| *i == focus_row).unwrap_or(0);
    let first = at
        .saturating_sub(room / 2)
        .min(rows.len().saturating_sub(room));
    if let Some(c) = recorded {
        lines.push(lifecycle_compare::header(c, width, t));
    }
    lines.extend(rows.into_iter().skip(first).take(room).map(|(_, l)| l));
    lines.extend(tail);
    frame.render_widget(
        Paragraph::new(lines).block(block(app, PaneId::Lifecycle)),
        area,
    );
}

pub fn loading(app: &App) -> Line<'static> {
    let text = if app.loaded {
        "no readable verification state"
    } else {
        "reading the run…"
    };
    Line::styled(text, app.theme.style(Role::Muted))
}
