//! Gates: sub-hypotheses as a DAG (indented under their prerequisites), with type, gate,
//! status and result coloured by outcome; the selected one's failed checks and artifacts.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Row, Table};

use super::{block, clip, scroll_for};
use crate::tui::app::{App, PaneId};
use crate::tui::theme::{Role, Theme};
use crate::vsa::enums::{GateResult, HypothesisStatus};
use crate::vsa::{SubHypothesis, Vsa};

/// Hypotheses in DAG order with their depth: each appears after all its prerequisites,
/// under the last of them; cycles and unknown prerequisites fall back to file order.
pub fn dag_rows(vsa: &Vsa) -> Vec<(usize, &SubHypothesis)> {
    let hs = &vsa.sub_hypotheses;
    let mut placed: Vec<bool> = vec![false; hs.len()];
    let mut out: Vec<(usize, &SubHypothesis)> = Vec::new();
    let known = |p: &String| hs.iter().any(|h| &h.id == p);
    fn visit<'a>(
        hs: &'a [SubHypothesis],
        i: usize,
        depth: usize,
        placed: &mut Vec<bool>,
        out: &mut Vec<(usize, &'a SubHypothesis)>,
    ) {
        placed[i] = true;
        out.push((depth, &hs[i]));
        let id = &hs[i].id;
        for j in 0..hs.len() {
            let ready = !placed[j]
                && hs[j].prerequisites.last() == Some(id)
                && hs[j]
                    .prerequisites
                    .iter()
                    .all(|p| hs.iter().position(|h| &h.id == p).is_none_or(|k| placed[k]));
            if ready {
                visit(hs, j, depth + 1, placed, out);
            }
        }
    }
    for i in 0..hs.len() {
        if !placed[i] && hs[i].prerequisites.iter().all(|p| !known(p)) {
            visit(hs, i, 0, &mut placed, &mut out);
        }
    }
    for i in 0..hs.len() {
        if !placed[i] {
            visit(hs, i, 0, &mut placed, &mut out);
        }
    }
    out
}

pub fn status_role(h: &SubHypothesis) -> Role {
    match (&h.status, &h.gate.result) {
        (_, Some(GateResult::Fail))
        | (HypothesisStatus::Failed | HypothesisStatus::CascadeFailed, _) => Role::GateFailed,
        (_, Some(GateResult::Partial)) => Role::GatePartial,
        (HypothesisStatus::Validated | HypothesisStatus::Completed, _)
        | (_, Some(GateResult::Pass)) => Role::GatePassed,
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
    let [table_area, detail_area] =
        Layout::vertical([Constraint::Min(2), Constraint::Length(detail_h)]).areas(inner);
    let sel = app
        .selected(PaneId::Gates)
        .min(rows.len().saturating_sub(1));
    let first = scroll_for(sel, table_area.height.saturating_sub(1) as usize);
    let t = &app.theme;
    let body = rows.iter().enumerate().skip(first).map(|(i, (depth, h))| {
        let id = format!(
            "{}{}{}",
            "  ".repeat(*depth),
            if *depth > 0 { "└" } else { "" },
            h.id
        );
        let mut style = t.style(status_role(h));
        if i == sel {
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
            h.gate
                .result
                .as_ref()
                .map_or("-".into(), ToString::to_string),
        ])
        .style(style)
    });
    let widths = [
        Constraint::Min(10),
        Constraint::Length(5),
        Constraint::Length(12),
        Constraint::Length(12),
        Constraint::Length(7),
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

fn short(kind: &str) -> String {
    kind.chars().take(4).collect()
}

fn detail(app: &App, h: &SubHypothesis, t: &Theme, width: usize) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled(
        h.statement
            .clone()
            .unwrap_or_else(|| "(no statement)".into()),
        t.style(Role::Text),
    )];
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
