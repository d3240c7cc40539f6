//! Reflection: the pending escalation as a card (first, it waits for the researcher), then
//! the lessons browser: Reflective Memory records of every run given, grouped by hypothesis
//! or failure category, searchable with `/` (`tui::lessons` owns the entries), and the
//! selected record's parsed lessons, root causes, links and formatted text.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{block, clip, escalation, scroll_for};
use crate::tui::app::{App, PaneId};
use crate::tui::keymap::{Command, Mode};
use crate::tui::lessons;
use crate::tui::theme::Role;

/// The escalation card, compact for the pane: what waits and the keys that decide it first,
/// then the route, the trajectory and the top attributions (the full card is an overlay).
pub(crate) fn escalation_lines(app: &App, width: usize) -> Vec<Line<'static>> {
    let t = &app.theme;
    let Some(c) = app
        .data
        .vsa
        .as_ref()
        .and_then(|s| crate::tui::escalation_view::card(&s.vsa))
    else {
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
    // The card's own phrase (its verdict first, so a narrow pane keeps it).
    let clamp = crate::tui::escalation_view::clamp_words(&c, app.data.recovery.kappa_min);
    lines.push(Line::raw(clip(&clamp, width)));
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
    // While searching the lessons, the card keeps its first lines (what waits, the keys).
    let searching = app.lessons.search.typing || !app.lessons.search.query.is_empty();
    let card_max = if searching {
        2
    } else {
        inner.height as usize / 2
    };
    let card_h = card.len().min(card_max) as u16;
    let [card_area, bar_area, rest] = Layout::vertical([
        Constraint::Length(card_h),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(inner);
    // Wide enough: the list beside the record, else the list above it.
    let [list_area, preview_area] = if rest.width >= SIDE_BY_SIDE {
        Layout::horizontal([Constraint::Percentage(42), Constraint::Min(0)])
            .spacing(1)
            .areas(rest)
    } else {
        Layout::vertical([Constraint::Percentage(40), Constraint::Min(0)]).areas(rest)
    };
    frame.render_widget(Paragraph::new(card), card_area);
    let entries = lessons::entries(app);
    frame.render_widget(Paragraph::new(bar(app, entries.len(), width)), bar_area);
    let sel = app.selected(PaneId::Reflection);
    if entries.is_empty() {
        let why = if lessons::all_records(app).next().is_none() {
            "no Reflective Memory records".to_string()
        } else if !app.lessons.search.query.is_empty() {
            format!(
                "no record matches “{}” (esc clears the search)",
                app.lessons.search.query
            )
        } else {
            "no record matches the filter (f kind, h hypothesis)".to_string()
        };
        frame.render_widget(
            Paragraph::new(Line::styled(why, t.style(Role::Muted))),
            list_area,
        );
        return;
    }
    let rows = grouped_rows(app, &entries, sel, list_area.width as usize);
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
    if let Some(e) = entries.get(sel) {
        let preview = super::lesson_preview::lines(app, e, preview_area.width as usize);
        frame.render_widget(
            Paragraph::new(preview).wrap(Wrap { trim: false }),
            preview_area,
        );
    }
}

/// The pane width from which the record shows beside the list.
const SIDE_BY_SIDE: u16 = 110;

/// The grouping and the search: the query as it is typed (with a cursor), or kept.
fn bar(app: &App, shown: usize, width: usize) -> Line<'static> {
    let t = &app.theme;
    let s = &app.lessons.search;
    let key = |c: Command| {
        app.keymap
            .key_for(Mode::Reflection, c)
            .map(|k| k.to_string())
            .unwrap_or_default()
    };
    let mut spans = vec![Span::styled(
        format!("by {} ", app.lessons.grouping.name()),
        t.style(Role::Heading),
    )];
    if s.typing || !s.query.is_empty() {
        let cursor = if s.typing { "▏" } else { "" };
        spans.push(Span::styled(
            format!("/{}{cursor}", s.query),
            t.style(Role::SearchMatch),
        ));
        spans.push(Span::styled(
            clip(&format!(" {shown} matching"), width / 2),
            t.style(Role::Muted),
        ));
    } else {
        let hint = format!(
            "· {} regroup · {} search",
            key(Command::ToggleGrouping),
            key(Command::Search)
        );
        spans.push(Span::styled(hint, t.style(Role::Muted)));
    }
    Line::from(spans)
}

/// The record list with a heading line per group (with its count); each row says which
/// record it is, and which run when several are shown. Search matches are marked.
fn grouped_rows(
    app: &App,
    entries: &[lessons::Entry],
    sel: usize,
    width: usize,
) -> Vec<(Option<usize>, Line<'static>)> {
    let t = &app.theme;
    let mut out = Vec::new();
    let mut last: Option<Option<&str>> = None;
    let none = app.lessons.grouping.none_name();
    for (i, e) in entries.iter().enumerate() {
        if last != Some(e.group) {
            // `entries` come grouped (`lessons::entries` sorts by group first), so a group's
            // count is its run from here: one pass over the list, not one per heading.
            let n = entries[i..]
                .iter()
                .take_while(|x| x.group == e.group)
                .count();
            let name = e.group.unwrap_or(none);
            out.push((
                None,
                Line::styled(
                    clip(&format!("▾ {name} ({n})"), width),
                    t.style(Role::Heading),
                ),
            ));
            last = Some(e.group);
        }
        let r = e.record;
        let o = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
        let other = match app.lessons.grouping {
            crate::tui::lessons_state::Grouping::Hypothesis => o(&r.category),
            crate::tui::lessons_state::Grouping::Category => o(&r.hypothesis),
        };
        let run = e.run.map(|n| format!("{n}: ")).unwrap_or_default();
        let text = clip(
            &format!(
                "  {:<10} {:<8} {run}{} · {other}",
                r.kind.as_str(),
                o(&r.final_status),
                r.id
            ),
            width,
        );
        let style = t.style(if i == sel && app.focus == PaneId::Reflection {
            Role::Selected
        } else {
            Role::Text
        });
        let line = Line::styled(text, style);
        out.push((
            Some(i),
            super::lesson_preview::mark(line, &app.lessons.search.query, t),
        ));
    }
    out
}
