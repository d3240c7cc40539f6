//! Reflection: the pending escalation as a card (first, it waits for the researcher), then
//! Reflective Memory records with a formatted preview of the selected one.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{block, clip, scroll_for};
use crate::tui::app::{App, PaneId};
use crate::tui::theme::Role;
use crate::yaml::Node;

/// The escalation card's lines, read from `workflow.pending_escalation`.
pub fn escalation_lines(app: &App, width: usize) -> Vec<Line<'static>> {
    let t = &app.theme;
    let Some(snap) = app.data.vsa.as_ref() else {
        return Vec::new();
    };
    let Some(esc) = snap
        .doc
        .root
        .as_ref()
        .and_then(|r| r.get("workflow"))
        .and_then(|w| w.get("pending_escalation"))
        .filter(|n| !n.is_null())
    else {
        return Vec::new();
    };
    let f = |k: &str| esc.get(k).and_then(Node::as_str).unwrap_or("-").to_string();
    let mut lines = vec![Line::styled(
        clip(
            &format!(
                "ESCALATION {} · {} proposes {}",
                f("id"),
                f("hypothesis"),
                f("proposed_action")
            ),
            width,
        ),
        t.style(Role::Attention),
    )];
    let kappa = esc
        .get("clamp_kappa")
        .and_then(|n| n.as_scalar())
        .map(|s| format!(" (κ {})", s.text))
        .unwrap_or_default();
    lines.push(Line::from(vec![
        Span::styled("clamp ", t.style(Role::Muted)),
        Span::raw(format!("{}{kappa}", f("clamp_verdict"))),
    ]));
    if let Some(tr) = esc.get("trajectory").filter(|n| !n.is_null()) {
        let g = |k: &str| {
            tr.get(k)
                .and_then(|n| n.as_scalar())
                .map_or("-".to_string(), |s| s.text.clone())
        };
        let text = format!(
            "{} · D {} · S {} · vol {}",
            g("signature"),
            g("decay"),
            g("slope"),
            g("volatility")
        );
        lines.push(Line::from(vec![
            Span::styled("trajectory ", t.style(Role::Muted)),
            Span::raw(clip(&text, width.saturating_sub(11))),
        ]));
    }
    if let Some(items) = esc.get("attributions").and_then(Node::as_seq) {
        for (i, a) in items.iter().enumerate().take(5) {
            let g = |k: &str| {
                a.get(k)
                    .and_then(|n| n.as_scalar())
                    .map(|s| s.text.clone())
                    .unwrap_or_default()
            };
            let role = if i == 0 { Role::Emphasis } else { Role::Text };
            lines.push(Line::styled(
                clip(
                    &format!(
                        "{}. {} {} — {}",
                        i + 1,
                        g("severity"),
                        g("category"),
                        g("description")
                    ),
                    width,
                ),
                t.style(role),
            ));
            lines.push(Line::styled(
                clip(&format!("   evidence: {}", g("evidence")), width),
                t.style(Role::Muted),
            ));
        }
    }
    match esc.get("decision").filter(|d| !d.is_null()) {
        Some(d) => {
            let g = |k: &str| d.get(k).and_then(Node::as_str).unwrap_or("-").to_string();
            lines.push(Line::styled(
                clip(
                    &format!("decided: {} by {} — {}", g("verdict"), g("by"), g("reason")),
                    width,
                ),
                t.style(Role::Ok),
            ));
        }
        None => {
            let key = |c| {
                app.keymap
                    .key_for("reflection", c)
                    .map(|k| k.to_string())
                    .unwrap_or_default()
            };
            use crate::tui::keymap::Command::{Approve, Override, Reject};
            lines.push(Line::styled(
                format!(
                    "{} approve · {} reject · {} override",
                    key(Approve),
                    key(Reject),
                    key(Override)
                ),
                t.style(Role::Key),
            ));
        }
    }
    // The decision (or the keys that make it) is what the researcher needs first.
    if let Some(last) = lines.pop() {
        lines.insert(1, last);
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
    let first = scroll_for(sel, list_area.height as usize);
    let rows: Vec<Line> = records
        .iter()
        .enumerate()
        .skip(first)
        .take(list_area.height as usize)
        .map(|(i, r)| {
            let o = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
            let text = clip(
                &format!(
                    "{:<10} {:<8} {:<8} {}",
                    r.kind.as_str(),
                    o(&r.hypothesis),
                    o(&r.final_status),
                    r.id
                ),
                width,
            );
            let style = if i == sel {
                t.style(Role::Selected)
            } else {
                t.style(Role::Text)
            };
            Line::styled(text, style)
        })
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
