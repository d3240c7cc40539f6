//! Gates: sub-hypotheses as a DAG (indented under their prerequisites), with type, gate,
//! status and result coloured by outcome; the selected one's failed checks and artifacts.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Row, Table};

use super::{block, clip, scroll_for};
use crate::tui::app::{App, PaneId};
use crate::tui::gates_view::{dag_rows, interval_line};
use crate::tui::theme::{Role, Theme};
use crate::vsa::SubHypothesis;
use crate::vsa::enums::{GateResult, HypothesisStatus};

/// The gate's result, or what `satisfied` says when no result was written (`met` / `unmet`).
fn result_text(h: &SubHypothesis) -> String {
    match (&h.gate.result, h.gate.satisfied) {
        (Some(r), _) => r.to_string(),
        (None, Some(true)) => "met".into(),
        (None, Some(false)) => "unmet".into(),
        (None, None) => "-".into(),
    }
}

pub(crate) fn status_role(h: &SubHypothesis) -> Role {
    match (&h.status, &h.gate.result) {
        (_, Some(GateResult::Fail))
        | (HypothesisStatus::Failed | HypothesisStatus::CascadeFailed, _) => Role::GateFailed,
        (_, Some(GateResult::Partial)) => Role::GatePartial,
        // Before VALIDATED: an undecided gate is never drawn like a pass.
        (_, Some(GateResult::Inconclusive)) => Role::GateInconclusive,
        (HypothesisStatus::Validated | HypothesisStatus::Completed, _)
        | (_, Some(GateResult::Pass)) => Role::GatePassed,
        _ => Role::GatePending,
    }
}

/// How an interval's verdict is drawn: PASS, FAIL, INCONCLUSIVE each their own.
pub(crate) fn verdict_role(v: Option<&GateResult>) -> Role {
    match v {
        Some(GateResult::Pass) => Role::GatePassed,
        Some(GateResult::Fail) => Role::GateFailed,
        Some(GateResult::Partial) => Role::GatePartial,
        Some(GateResult::Inconclusive) => Role::GateInconclusive,
        _ => Role::GatePending,
    }
}

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let Some(snap) = app.data.vsa.as_ref() else {
        frame.render_widget(
            Paragraph::new(super::lifecycle::loading(app)).block(block(app, PaneId::Gates)),
            area,
        );
        return;
    };
    let outer = block(app, PaneId::Gates);
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    let rows = dag_rows(&snap.vsa);
    let detail_h = if inner.height > 12 { 6 } else { 3 };
    let audit = audit_line(app, inner.width as usize);
    let [audit_area, table_area, detail_area] = Layout::vertical([
        Constraint::Length(u16::from(audit.is_some())),
        Constraint::Min(2),
        Constraint::Length(detail_h),
    ])
    .areas(inner);
    if let Some(line) = audit {
        frame.render_widget(Paragraph::new(line), audit_area);
    }
    let sel = app
        .selected(PaneId::Gates)
        .min(rows.len().saturating_sub(1));
    let first = scroll_for(sel, table_area.height.saturating_sub(1) as usize);
    let t = &app.theme;
    let body = rows
        .iter()
        .enumerate()
        .skip(first)
        .take(table_area.height as usize)
        .map(|(i, (depth, h))| {
            let id = format!(
                "{}{}{}",
                "  ".repeat(*depth),
                if *depth > 0 { "└" } else { "" },
                h.id
            );
            let mut style = t.style(status_role(h));
            // Only the focused pane shows a selection: two highlighted rows would compete.
            if i == sel && app.focus == PaneId::Gates {
                style = style.patch(t.style(Role::Selected));
            }
            Row::new(vec![
                id,
                h.kind.as_ref().map_or("-".into(), |k| short(k.as_str())),
                h.gate
                    .gate_type
                    .as_ref()
                    .map_or("-".into(), ToString::to_string),
                h.status.to_string(),
                result_text(h),
            ])
            .style(style)
        });
    // INCONCLUSIVE is wider than the other results: the column grows for it, not for all.
    let result_w = rows
        .iter()
        .map(|(_, h)| result_text(h).chars().count())
        .max()
        .unwrap_or(0)
        .clamp(7, 12) as u16;
    let widths = [
        Constraint::Min(10),
        Constraint::Length(5),
        Constraint::Length(12),
        Constraint::Length(12),
        Constraint::Length(result_w),
    ];
    let header = Row::new(["ID", "TYPE", "GATE", "STATUS", "RESULT"]).style(t.style(Role::Muted));
    frame.render_widget(
        Table::new(body, widths).header(header).column_spacing(1),
        table_area,
    );
    if let Some((_, h)) = rows.get(sel) {
        frame.render_widget(
            Paragraph::new(detail(app, h, t, detail_area.width as usize))
                .wrap(ratatui::widgets::Wrap { trim: true }),
            detail_area,
        );
    }
}

/// The run's recorded data audit, when it is not Real: one line saying what the results
/// rest on, with the deciding `file:line` (escaped: it names a file of the run's code).
pub(crate) fn audit_line(app: &App, width: usize) -> Option<Line<'static>> {
    use crate::audit::verdict::Verdict;
    let rec = app.data.audit.as_ref()?;
    let (what, role) = match rec.verdict {
        Verdict::Real => return None,
        Verdict::Synthetic => ("Synthetic (generated data)", Role::Attention),
        Verdict::Fabricated => ("Fabricated (values written in code)", Role::Error),
        Verdict::Unknown => ("Unknown (no data source found)", Role::Attention),
    };
    let at = rec
        .deciding
        .as_deref()
        .and_then(|d| d.split(" — ").next())
        .map(|at| format!(" · {at}"))
        .unwrap_or_default();
    let raw = format!("data audit: {what}{at}");
    let text = crate::term::escape(&raw);
    Some(Line::styled(clip(&text, width), app.theme.style(role)))
}

/// One line per machine-readable criterion: `metric op required · measured v ✓/✗`, or, for a
/// gate decided on repeats, its interval and verdict (`accuracy: 0.936 ± 0.008, n 5, 95% CI
/// 0.928–0.944 vs ≥ 0.92 · PASS`); the selected one (`]` / `[`, then `e` edits its value) is
/// marked. Evidence no criterion claims follows, so no interval is hidden.
fn criteria_lines(app: &App, h: &SubHypothesis, t: &Theme, width: usize) -> Vec<Line<'static>> {
    let mut lines: Vec<Line<'static>> = h
        .gate
        .rules
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let selected = app.criterion == Some(i);
            if let Some(e) = h.gate.evidence_for(c) {
                let text = format!("{} {}", if selected { "▸" } else { " " }, interval_line(e));
                let mut style = t.style(verdict_role(e.verdict.as_ref()));
                if selected && app.focus == PaneId::Gates {
                    style = style.patch(t.style(Role::Selected));
                }
                return Line::styled(clip(&text, width), style);
            }
            let measured = h
                .gate
                .measured
                .iter()
                .find(|(m, _)| *m == c.metric)
                .map(|(_, v)| crate::vsa::model::shown_value(v));
            let met = measured
                .as_deref()
                .and_then(|v| v.parse::<f64>().ok())
                .map(|v| crate::plan::met(c.op, c.value, v));
            // A criterion the interval left undecided is never ticked, whatever one value says.
            let quantity = c
                .baseline
                .as_ref()
                .map_or_else(|| c.metric.clone(), |b| format!("{} - {b}", c.metric));
            let undecided = h
                .gate
                .undecided
                .iter()
                .any(|u| u.criterion.as_deref() == Some(quantity.as_str()));
            let (mark, role) = match met {
                _ if undecided => ("?", Role::GateInconclusive),
                Some(true) => ("✓", Role::GatePassed),
                Some(false) => ("✗", Role::GateFailed),
                None => ("·", Role::GatePending),
            };
            let text = format!(
                "{} {} {} {} · measured {} {mark}",
                if selected { "▸" } else { " " },
                c.metric,
                c.op,
                c.value,
                measured.as_deref().unwrap_or("-"),
            );
            let mut style = t.style(role);
            if selected && app.focus == PaneId::Gates {
                style = style.patch(t.style(Role::Selected));
            }
            Line::styled(clip(&crate::term::escape(&text), width), style)
        })
        .collect();
    lines.extend(h.gate.unmatched_evidence().map(|e| {
        Line::styled(
            clip(&format!("  {}", interval_line(e)), width),
            t.style(verdict_role(e.verdict.as_ref())),
        )
    }));
    lines
}

fn short(kind: &str) -> String {
    kind.chars().take(4).collect()
}

fn detail(app: &App, h: &SubHypothesis, t: &Theme, width: usize) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled(
        // Folded YAML keeps line breaks inside prose; a span cannot show them.
        h.statement.as_deref().map_or_else(
            || "(no statement)".to_string(),
            |s| s.split_whitespace().collect::<Vec<_>>().join(" "),
        ),
        t.style(Role::Text),
    )];
    lines.extend(criteria_lines(app, h, t, width));
    for c in &h.gate.failed_checks {
        let text = c.text.clone().unwrap_or_else(|| {
            let o = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
            format!(
                "{}: need {}, got {}",
                o(&c.criterion),
                o(&c.required),
                o(&c.actual)
            )
        });
        lines.push(Line::styled(
            clip(&format!("✗ {text}"), width),
            t.style(Role::GateFailed),
        ));
    }
    // What the interval could not decide, and why (INCONCLUSIVE's reasons).
    for c in &h.gate.undecided {
        let text = c.text.clone().unwrap_or_else(|| {
            let o = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
            format!("{}: {}", o(&c.criterion), o(&c.reason))
        });
        lines.push(Line::styled(
            clip(&format!("? {}", crate::term::escape(&text)), width),
            t.style(Role::GateInconclusive),
        ));
    }
    if !h.prerequisites.is_empty() {
        lines.push(Line::from(vec![
            Span::styled("after ", t.style(Role::Muted)),
            Span::raw(h.prerequisites.join(", ")),
        ]));
    }
    if let Some(a) = app.data.artifacts.iter().find(|a| a.hypothesis == h.id) {
        let present = a.present();
        let text = if present.is_empty() {
            "no artifacts yet".to_string()
        } else {
            present.join(" · ")
        };
        lines.push(Line::from(vec![
            Span::styled("files ", t.style(Role::Muted)),
            Span::raw(clip(&text, width.saturating_sub(6))),
        ]));
    }
    lines
}
