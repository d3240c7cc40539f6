//! Reflection: the pending escalation as a card (first, it waits for the researcher), then
//! Reflective Memory records with a formatted preview of the selected one.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{block, clip, escalation, scroll_for};
use crate::rundir::memory::MemoryRecord;
use crate::tui::app::{App, PaneId};
use crate::tui::filters::group;
use crate::tui::keymap::{Command, Mode};
use crate::tui::theme::Role;

/// The escalation card, compact for the pane: what waits and the keys that decide it first,
/// then the route, the trajectory and the top attributions (the full card is an overlay).
pub fn escalation_lines(app: &App, width: usize) -> Vec<Line<'static>> {
    let t = &app.theme;
    let Some(c) = app.data.vsa.as_ref().and_then(|s| escalation::card(&s.vsa)) else {
        return Vec::new();
    };
    let mut lines = vec![Line::styled(
        clip(
            &format!(
                "ESCALATION {} · {} proposes {}",
                c.id, c.hypothesis, c.proposed_action
            ),
            width,
        ),
        t.style(Role::Attention),
    )];
    // The decision (or the keys that make it) is what the researcher needs first.
    lines.push(match &c.decision {
        Some((verdict, by, reason)) => Line::styled(
            clip(&format!("decided: {verdict} by {by} — {reason}"), width),
            t.style(Role::Ok),
        ),
        None => {
            let card_key = app
                .keymap
                .key_for(Mode::Reflection, Command::OpenEscalation)
                .map(|k| format!(" · {k} card"))
                .unwrap_or_default();
            Line::styled(
                clip(
                    &format!(
                        "{}{card_key}",
                        escalation::decide_keys(app, Mode::Reflection)
                    ),
                    width,
                ),
                t.style(Role::Key),
            )
        }
    });
    let kappa = c
        .clamp_kappa
        .map(|k| format!(" (κ {k})"))
        .unwrap_or_default();
    lines.push(Line::from(vec![
        Span::styled("clamp ", t.style(Role::Muted)),
        Span::raw(format!("{}{kappa}", c.clamp_verdict)),
    ]));
    if !c.trajectory.is_empty() {
        let text: Vec<String> = c
            .trajectory
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        lines.push(Line::from(vec![
            Span::styled("trajectory ", t.style(Role::Muted)),
            Span::raw(clip(&text.join(" · "), width.saturating_sub(11))),
        ]));
    }
    for (i, a) in c.attributions.iter().enumerate().take(5) {
        let role = if i == 0 { Role::Emphasis } else { Role::Text };
        let head = format!(
            "{}. {} {} — {}",
            i + 1,
            a.severity,
            a.category,
            a.description
        );
        lines.push(Line::styled(clip(&head, width), t.style(role)));
        lines.push(Line::styled(
            clip(&format!("   evidence: {}", a.evidence), width),
            t.style(Role::Muted),
        ));
    }
    lines
}

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let outer = block(app, PaneId::Reflection);
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    let t = &app.theme;
    let width = inner.width as usize;
    let card = escalation_lines(app, width);
    let card_h = card.len().min(inner.height as usize / 2) as u16;
    let [card_area, list_area, preview_area] = Layout::vertical([
        Constraint::Length(card_h),
        Constraint::Percentage(45),
        Constraint::Min(0),
    ])
    .areas(inner);
    frame.render_widget(Paragraph::new(card), card_area);
    let sel = app.selected(PaneId::Reflection);
    let records = app.filters.memory(&app.data.memory);
    if records.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::styled(
                if app.data.memory.is_empty() {
                    "no Reflective Memory records"
                } else {
                    "no record matches the filter (f kind, h hypothesis)"
                },
                t.style(Role::Muted),
            )),
            list_area,
        );
        return;
    }
    let rows = grouped_rows(app, &records, sel, width);
    // Scroll over the drawn rows (group headings included) to keep the selection in view.
    let sel_row = rows.iter().position(|(i, _)| *i == Some(sel)).unwrap_or(0);
    let first = scroll_for(sel_row, list_area.height as usize);
    let rows: Vec<Line> = rows
        .into_iter()
        .skip(first)
        .take(list_area.height as usize)
        .map(|(_, l)| l)
        .collect();
    frame.render_widget(Paragraph::new(rows), list_area);
    if let Some(rec) = records.get(sel) {
        let preview = super::markdown::render(&rec.body, t);
        frame.render_widget(
            Paragraph::new(preview).wrap(Wrap { trim: false }),
            preview_area,
        );
    }
}

/// The record list with a heading line per hypothesis; each row says which record it is.
fn grouped_rows(
    app: &App,
    records: &[&MemoryRecord],
    sel: usize,
    width: usize,
) -> Vec<(Option<usize>, Line<'static>)> {
    let t = &app.theme;
    let mut out = Vec::new();
    let mut last: Option<Option<&str>> = None;
    for (i, r) in records.iter().enumerate() {
        let g = group(r);
        if last != Some(g) {
            let n = records.iter().filter(|x| group(x) == g).count();
            let name = g.unwrap_or("run-wide");
            out.push((
                None,
                Line::styled(
                    clip(&format!("▾ {name} ({n})"), width),
                    t.style(Role::Heading),
                ),
            ));
            last = Some(g);
        }
        let o = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
        let text = clip(
            &format!(
                "  {:<10} {:<8} {}",
                r.kind.as_str(),
                o(&r.final_status),
                r.id
            ),
            width,
        );
        let style = t.style(if i == sel { Role::Selected } else { Role::Text });
        out.push((Some(i), Line::styled(text, style)));
    }
    out
}
