//! Plan tree: PrimeScientist's plan nodes (`plan/`): status, Q, visits, P, the last
//! selection's weight and probability per candidate and why, pinned / vetoed / pruned marks,
//! the budget gauge with the remaining share r and α and, below it, what the budget was
//! spent on (planning, execution, diagnosis), and ★ on each sub-hypothesis's best
//! node (the search's result), whose line below says why it was chosen.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Gauge, Paragraph, Wrap};

use super::{block, clip, scroll_for};
use crate::tui::app::{App, PaneId};
use crate::tui::plan_view::{PlanRow, PlanView};
use crate::tui::theme::Role;

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let outer = block(app, PaneId::Plan);
    let inner = outer.inner(area);
    frame.render_widget(outer, area);
    let t = &app.theme;
    let Some(view) = app.data.plan.as_ref() else {
        frame.render_widget(
            Paragraph::new(Line::styled(absent(app), t.style(Role::Muted)))
                .wrap(Wrap { trim: true }),
            inner,
        );
        return;
    };
    let [gauge_area, split_area, list_area, why_area] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(if inner.height > 6 { 1 } else { 0 }),
        Constraint::Min(1),
        Constraint::Length(if inner.height > 10 { 3 } else { 1 }),
    ])
    .areas(inner);
    gauge(app, view, frame, gauge_area);
    if let Some(b) = view.budget.as_ref().filter(|_| split_area.height > 0) {
        let unsplit = b.used_tokens.saturating_sub(b.split.total());
        let text = match (b.split.is_empty(), unsplit) {
            (true, _) => format!(
                "spent: {} (not split by kind: charged before youra kept the split)",
                crate::plan::compact(b.used_tokens)
            ),
            (false, 0) => format!("spent: {}", b.split.text(b.used_tokens)),
            (false, n) => format!(
                "spent: {} · unsplit {}",
                b.split.text(b.used_tokens),
                crate::plan::compact(n)
            ),
        };
        let line = Line::styled(clip(&text, split_area.width as usize), t.style(Role::Muted));
        frame.render_widget(Paragraph::new(line), split_area);
    }
    let sel = app
        .selected(PaneId::Plan)
        .min(view.rows.len().saturating_sub(1));
    // Unfocused, the pane follows the search (the running node, else the last selection's),
    // so the node at work is never below the fold; focused, the cursor is what is followed.
    let focused = app.focus == PaneId::Plan;
    let anchor = if focused {
        sel
    } else {
        view.current().unwrap_or(sel)
    };
    let first = scroll_for(anchor, list_area.height as usize);
    let width = list_area.width as usize;
    let mut lines: Vec<Line> = view
        .problems
        .iter()
        .map(|p| {
            // While the node files are read, the one line says so: news, not an error.
            let role = if view.loading {
                Role::Muted
            } else {
                Role::Error
            };
            Line::styled(clip(p, width), t.style(role))
        })
        .collect();
    lines.extend(
        view.rows
            .iter()
            .enumerate()
            .skip(first)
            .take(list_area.height as usize)
            .map(|(i, r)| row(app, r, i == sel && app.focus == PaneId::Plan, width)),
    );
    frame.render_widget(Paragraph::new(lines), list_area);
    let why = view
        .rows
        .get(anchor)
        .and_then(|r| match (&r.best, &r.why) {
            (Some(b), Some(w)) => Some(format!("{b} · {w}")),
            (b, w) => b.clone().or_else(|| w.clone()),
        })
        .or_else(|| view.action())
        .unwrap_or_default();
    frame.render_widget(
        Paragraph::new(Line::styled(why, t.style(Role::Muted))).wrap(Wrap { trim: true }),
        why_area,
    );
}

/// Why the pane has no tree: the run's `[plan]` is off, or the tree has not started yet.
fn absent(app: &App) -> String {
    if app.data.plan_on {
        "the plan tree has not started yet: it begins with the first Coding & Validation \
         attempt (plan/tree.json)"
            .into()
    } else {
        "no plan tree in this run: [plan] is off (budget_tokens = 0 in youra.toml)".into()
    }
}

fn gauge(app: &App, view: &PlanView, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let (Some(b), Some(r), Some(alpha)) =
        (view.searched_budget(), view.remaining_share(), view.alpha())
    else {
        frame.render_widget(
            Paragraph::new(Line::styled(
                "no budget (plan/budget.json)",
                t.style(Role::Muted),
            )),
            area,
        );
        return;
    };
    // r is the budget's share left (PrimeScientist's r): said in words where they fit.
    let (left, total) = (
        b.total_tokens.saturating_sub(b.used_tokens) / 1000,
        b.total_tokens / 1000,
    );
    let tokens = format!("{left}k of {total}k tokens");
    let label = [
        format!("budget share left r {r:.2} · α {alpha:.2} · {tokens} left"),
        format!("r {r:.2} left · α {alpha:.2} · {tokens} left"),
        format!("r {r:.2} left · α {alpha:.2} · {tokens}"),
        format!("r {r:.2} left · α {alpha:.2} · {left}k/{total}k tokens"),
        format!("r {r:.2} left · α {alpha:.2} · {left}k of {total}k"),
        format!("r {r:.2} · α {alpha:.2} · {left}k/{total}k tokens"),
    ]
    .into_iter()
    .find(|l| l.chars().count() <= usize::from(area.width))
    .unwrap_or_else(|| format!("r {r:.2} · α {alpha:.2}"));
    frame.render_widget(
        Gauge::default()
            .ratio(r.clamp(0.0, 1.0))
            .label(label)
            .gauge_style(t.style(Role::Chart)),
        area,
    );
}

fn row(app: &App, r: &PlanRow, selected: bool, width: usize) -> Line<'static> {
    let t = &app.theme;
    let marks = format!(
        "{}{}{}{}{}",
        if r.best.is_some() { "★ best" } else { "" },
        if r.pinned { "[pinned]" } else { "" },
        if r.vetoed { "[vetoed]" } else { "" },
        // Names are typed by people: escaped like any text from the run.
        r.edited_by
            .as_deref()
            .map(|b| format!("✎ {}", crate::term::escape(b)))
            .unwrap_or_default(),
        r.rejected_by
            .as_deref()
            .map(|b| format!("✗ rejected by {}", crate::term::escape(b)))
            .unwrap_or_default()
    );
    let chosen = if r.on_path { "→" } else { " " };
    let weights = match (r.weight, r.probability) {
        (Some(w), Some(p)) => format!(" w {w:.3} p {p:.2}"),
        (Some(w), None) => format!(" w {w:.3}"),
        _ => String::new(),
    };
    // Only on runs whose reviews forecast (issue 42 item 4): what the branch spent and
    // expects next, and each reviewed node's forecast against what it cost.
    let branch = r
        .branch
        .map(|(spent, next)| {
            let next = next.map_or_else(|| "next: no forecast".into(), |n| format!("next ~{n}"));
            format!(" · spent {spent} tokens, {next}")
        })
        .unwrap_or_default();
    let marks = match &r.forecast {
        Some(f) => format!("{marks}{branch} · {}", f.text()),
        None => format!("{marks}{branch}"),
    };
    let text = format!(
        "{chosen}{}{} {:<9} Q {:.2} n {} P {:.2}{weights} {marks}",
        "  ".repeat(r.depth),
        r.id,
        r.status,
        r.q,
        r.visits,
        r.p,
    );
    let role = match r.status {
        "pruned" | "failed" => Role::GateFailed,
        "evaluated" => Role::GatePassed,
        "running" => Role::Attention,
        _ if r.vetoed => Role::Muted,
        _ => Role::Text,
    };
    let style = if selected {
        t.style(role).patch(t.style(Role::Selected))
    } else {
        t.style(role)
    };
    Line::from(vec![Span::styled(clip(&text, width), style)])
}
