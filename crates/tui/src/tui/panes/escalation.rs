//! The escalation card: `workflow.pending_escalation` as one screen — the gate's failed
//! criteria, the trajectory features, the ranked attributions with their evidence side by
//! side, the proposed route and the clamp's verdict — and the keys that decide it. Reading
//! the card is a pure function of the parsed VSA; deciding goes through the steering dialogs.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Borders, Cell, Clear, Paragraph, Row, Table};

use crate::tui::app::App;
use crate::tui::dialogs::overlay::CardTab;
use crate::tui::escalation_view::{Card, card, clamp_words, feature_text, wrap};
use crate::tui::gates_view::{interval_card, interval_line};
use crate::tui::keymap::{Command, Mode};
use crate::tui::panes::gates::verdict_role;
use crate::tui::theme::Role;
use crate::vsa::enums::GateResult;

/// "a approve · r reject · o override" from the keymap of `mode`.
pub(crate) fn decide_keys(app: &App, mode: Mode) -> String {
    let key = |c| {
        app.keymap
            .key_for(mode, c)
            .map(|k| k.to_string())
            .unwrap_or_default()
    };
    format!(
        "{} approve · {} reject · {} override",
        key(Command::Approve),
        key(Command::Reject),
        key(Command::Override)
    )
}

/// What each answer does, in the run's terms: the action it applies, what it archives, the
/// stage it returns to, and the pivot budget it uses.
pub(crate) fn consequences(app: &App, c: &Card) -> Vec<(Command, String)> {
    use crate::reflect::routing::{RoutingAction as A, is_discarding, refinement_equivalent};
    let Ok(proposed) = c.proposed_action.parse::<A>() else {
        return Vec::new();
    };
    let used = app
        .data
        .vsa
        .as_ref()
        .and_then(|s| {
            s.doc
                .root
                .as_ref()?
                .get("recovery")?
                .get("pivots")?
                .as_scalar()?
                .as_i64()
        })
        .unwrap_or(0)
        .max(0);
    let max = app.data.recovery.max_pivots;
    let h = &c.hypothesis;
    let does = |a: A| -> String {
        match a {
            A::Proceed => format!("Proceed: {h}'s failure stands as a finding; the loop goes on"),
            A::LocalRefine | A::MethodRefine => format!(
                "{}: Coding & Validation of {h} again under the top cause's fix; nothing archived",
                a.as_str()
            ),
            A::DesignRefine => format!(
                "Design-Refine: back to Experiment Design of {h} with the failure as a constraint"
            ),
            A::Pivot => format!(
                "Pivot: archive the work from Hypothesis Debate on (h-* folders, paper) and debate again — pivot {} of {max}",
                used + 1
            ),
            A::DesignPivot => format!(
                "Design-Pivot: archive everything from Problem Scoping on and start over — pivot {} of {max}",
                used + 1
            ),
        }
    };
    let mut out = vec![(Command::Approve, does(proposed))];
    let kept = refinement_equivalent(proposed);
    out.push((
        Command::Reject,
        if is_discarding(proposed) {
            format!("keeps {h}: {}", does(kept))
        } else {
            format!(
                "keeps {h}: {} is applied anyway (it discards nothing)",
                kept.as_str()
            )
        },
    ));
    out.push((
        Command::Override,
        "choose another action (Proceed, Local-, Method-, Design-Refine, Pivot, Design-Pivot)"
            .into(),
    ));
    out
}

/// The card's upper half at `width` columns: the route and clamp, the trajectory, each
/// criterion, and what each answer does (wrapped under its key, never cut).
fn head_lines(app: &App, c: &Card, width: u16) -> Vec<Line<'static>> {
    let t = &app.theme;
    let label = |s: &str| Span::styled(format!("{s:<11}"), t.style(Role::Muted));
    let clamp = format!("   {}", clamp_words(c, app.data.recovery.kappa_min));
    let mut lines = vec![
        Line::from(vec![
            label("route"),
            Span::styled(
                format!("{} for {}", c.proposed_action, c.hypothesis),
                t.style(Role::Emphasis),
            ),
            Span::raw(clamp),
        ]),
        Line::from(vec![
            label("trajectory"),
            Span::raw(
                c.trajectory
                    .iter()
                    .map(|(k, v)| format!("{k} {}", feature_text(v)))
                    .collect::<Vec<_>>()
                    .join(" · "),
            ),
        ]),
    ];
    if let Some(h) = app
        .data
        .vsa
        .as_ref()
        .and_then(|s| s.vsa.hypothesis(&c.hypothesis))
    {
        // Every criterion, required beside measured; the failed ones in the failure colour.
        for rule in &h.gate.rules {
            let measured = h
                .gate
                .measured
                .iter()
                .find(|(k, _)| *k == rule.metric)
                .map(|(_, v)| crate::vsa::model::shown_value(v));
            let failed = h
                .gate
                .failed_checks
                .iter()
                .any(|f| f.criterion.as_deref() == Some(rule.metric.as_str()));
            // Decided on repeats, the interval's verdict is the criterion's (issue 40): an
            // undecided one is never marked met.
            let evidence = h.gate.evidence_for(rule);
            let undecided = h.gate.undecided.iter().any(|f| {
                evidence.is_some_and(|e| f.criterion.as_deref() == Some(e.quantity().as_str()))
                    || f.criterion.as_deref() == Some(rule.metric.as_str())
            });
            let (mark, role) = match evidence.and_then(|e| e.verdict.as_ref()) {
                Some(GateResult::Pass) => ("✓ met", Role::GatePassed),
                Some(GateResult::Fail) => ("✗ missed", Role::GateFailed),
                Some(GateResult::Inconclusive) => ("? undecided", Role::GateInconclusive),
                _ if failed => ("✗ missed", Role::GateFailed),
                _ if undecided => ("? undecided", Role::GateInconclusive),
                _ if measured.is_some() => ("✓ met", Role::GatePassed),
                _ => ("· not measured", Role::Muted),
            };
            lines.push(Line::from(vec![
                label("criterion"),
                Span::styled(
                    crate::term::escape(&format!(
                        "{:<22} required {} {:<8} measured {:<8} {mark}",
                        rule.metric,
                        rule.op,
                        rule.value,
                        measured.as_deref().unwrap_or("-"),
                    ))
                    .into_owned(),
                    t.style(role),
                ),
            ]));
            if let Some(e) = evidence {
                lines.push(Line::from(vec![
                    label("interval"),
                    Span::styled(interval_card(e), t.style(role)),
                ]));
            }
        }
        // Intervals no criterion claims (the criteria edited since, an outside writer's).
        for e in h.gate.unmatched_evidence() {
            lines.push(Line::from(vec![
                label("interval"),
                Span::styled(interval_line(e), t.style(verdict_role(e.verdict.as_ref()))),
            ]));
        }
        if h.gate.rules.is_empty() {
            for fc in &h.gate.failed_checks {
                let o = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
                let line = match &fc.text {
                    Some(text) => text.clone(),
                    None => format!(
                        "{}: required {}, measured {} — {}",
                        o(&fc.criterion),
                        o(&fc.required),
                        o(&fc.actual),
                        o(&fc.reason)
                    ),
                };
                lines.push(Line::from(vec![
                    label("gate"),
                    Span::styled(line, t.style(Role::GateFailed)),
                ]));
            }
            for u in &h.gate.undecided {
                let o = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
                let line = u
                    .text
                    .clone()
                    .unwrap_or_else(|| format!("{}: {}", o(&u.criterion), o(&u.reason)));
                lines.push(Line::from(vec![
                    label("undecided"),
                    Span::styled(
                        crate::term::escape(&line).into_owned(),
                        t.style(Role::GateInconclusive),
                    ),
                ]));
            }
        }
    }
    if c.decision.is_none() {
        for (cmd, what) in consequences(app, c) {
            let k = app
                .keymap
                .key_for(Mode::Escalation, cmd)
                .map(|k| k.to_string())
                .unwrap_or_default();
            let mut rows = wrap(&what, usize::from(width).saturating_sub(12).max(20));
            let first = rows.remove(0);
            lines.push(Line::from(vec![
                Span::styled(format!("{k:>2} "), t.style(Role::Key)),
                Span::styled(format!("{:<9}", cmd.name()), t.style(Role::Muted)),
                Span::raw(first),
            ]));
            lines.extend(rows.into_iter().map(|r| Line::raw(format!("{:12}{r}", ""))));
        }
    }
    lines
}

/// The ranked causes as a table, and each row's height in lines.
fn table(app: &App, c: &Card, width: u16) -> (Table<'static>, Vec<u16>) {
    let t = &app.theme;
    let mut heights = Vec::new();
    // rank, category, severity fixed; the three texts share the rest.
    let text_w = (width.saturating_sub(2 + 9 + 5 + 6) / 3).max(8) as usize;
    let rows: Vec<Row> = c
        .attributions
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let cols = [&a.description, &a.evidence, &a.fix].map(|s| wrap(s, text_w));
            let h = cols.iter().map(Vec::len).max().unwrap_or(1) as u16;
            heights.push(h);
            let role = if i == 0 { Role::Emphasis } else { Role::Text };
            let mut cells = vec![
                Cell::from(format!("{}", i + 1)),
                Cell::from(a.category.clone()),
                Cell::from(a.severity.clone()),
            ];
            cells.extend(
                cols.into_iter()
                    .map(|l| Cell::from(Text::from(l.join("\n")))),
            );
            Row::new(cells).height(h).style(t.style(role))
        })
        .collect();
    let header = Row::new(["#", "category", "sev", "description", "evidence", "fix"])
        .style(t.style(Role::Heading));
    let table = Table::new(
        rows,
        [
            Constraint::Length(2),
            Constraint::Length(9),
            Constraint::Length(5),
            Constraint::Fill(1),
            Constraint::Fill(1),
            Constraint::Fill(1),
        ],
    )
    .header(header)
    .column_spacing(1);
    (table, heights)
}

/// The causes in `area`, scrolled to keep the selected one (`app.card_cause`, j/k) in sight,
/// marked once the researcher has moved; and, where some do not fit, which are shown.
fn causes(app: &App, c: &Card, frame: &mut Frame, area: Rect) -> Option<String> {
    let (table, heights) = table(app, c, area.width);
    let n = heights.len();
    let selected = app.card_cause.min(n.saturating_sub(1));
    let mut state = ratatui::widgets::TableState::default().with_selected(Some(selected));
    let table = if selected > 0 {
        table.row_highlight_style(app.theme.style(Role::Selected))
    } else {
        table
    };
    frame.render_stateful_widget(table, area, &mut state);
    // The rows ratatui drew: from its offset, as many whole rows as the body holds.
    let room = usize::from(area.height.saturating_sub(1));
    let first = state.offset().min(n);
    let mut used = 0;
    let shown = heights[first..]
        .iter()
        .take_while(|h| {
            used += usize::from(**h);
            used <= room
        })
        .count();
    if first == 0 && shown >= n {
        return None;
    }
    let last = first + shown.max(1);
    Some(format!("causes {}–{} of {n}", first + 1, last.min(n)))
}

/// The card as an overlay over the panes; `tab` chooses its lower half.
pub fn draw(app: &App, tab: CardTab, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    frame.render_widget(Clear, area);
    let Some(c) = app.data.vsa.as_ref().and_then(|s| card(&s.vsa)) else {
        let p = Paragraph::new(Line::styled(
            "no escalation waits (workflow.pending_escalation is empty)",
            t.style(Role::Muted),
        ));
        frame.render_widget(p.block(Block::default().borders(Borders::ALL)), area);
        return;
    };
    let title = format!(
        " escalation {} · {} · raised {} ",
        c.id, c.hypothesis, c.raised_at
    );
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(title, t.style(Role::Attention)))
        .border_style(t.style(Role::BorderFocus));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let head = head_lines(app, &c, inner.width);
    // The answers' lines matter more than the causes' table: it gives way first.
    let [top, tabs, body, foot] = Layout::vertical([
        Constraint::Length((head.len() as u16).min(inner.height.saturating_sub(6))),
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(inner);
    frame.render_widget(Paragraph::new(head), top);
    let key = |cmd| {
        app.keymap
            .key_for(Mode::Escalation, cmd)
            .map(|k| k.to_string())
            .unwrap_or_default()
    };
    let tab_span = |name: &str, k: String, on: bool| {
        Span::styled(
            format!(" {k} {name} "),
            t.style(if on { Role::Selected } else { Role::Muted }),
        )
    };
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            tab_span("causes", key(Command::Close), tab == CardTab::Causes),
            tab_span("chart", key(Command::OpenChart), tab == CardTab::Chart),
            tab_span("log", key(Command::OpenLog), tab == CardTab::Log),
            tab_span("files", key(Command::OpenFiles), false),
        ])),
        tabs,
    );
    let ex = app
        .data
        .experiments
        .iter()
        .find(|e| e.hypothesis == c.hypothesis);
    match tab {
        CardTab::Causes => {
            if let Some(which) = causes(app, &c, frame, body) {
                let keys = |a, b| format!("{}/{}", key(a), key(b));
                let hint = format!("{which} · {} a cause ", keys(Command::Down, Command::Up));
                let w = hint.chars().count() as u16;
                let at = Rect {
                    x: tabs.right().saturating_sub(w),
                    width: w.min(tabs.width),
                    ..tabs
                };
                frame.render_widget(Paragraph::new(Span::styled(hint, t.style(Role::Muted))), at);
            }
        }
        CardTab::Chart => match ex.and_then(|e| e.metrics.as_ref()) {
            Some(m) => super::experiments::chart(app, m, frame, body),
            None => frame.render_widget(
                Paragraph::new(Line::styled(
                    format!("{} streamed no metrics", c.hypothesis),
                    t.style(Role::Muted),
                )),
                body,
            ),
        },
        CardTab::Log => {
            let tail = ex.map(|e| e.tail.clone()).unwrap_or_default();
            let skip = tail.len().saturating_sub(body.height as usize);
            let lines: Vec<Line> = if tail.is_empty() {
                vec![Line::styled(
                    format!("no log for {}", c.hypothesis),
                    t.style(Role::Muted),
                )]
            } else {
                tail.iter()
                    .skip(skip)
                    .map(|l| Line::styled(super::clip(l, body.width as usize), t.style(Role::Text)))
                    .collect()
            };
            frame.render_widget(Paragraph::new(lines), body);
        }
    }
    let foot_line = match &c.decision {
        Some((verdict, by, reason)) => Line::styled(
            format!("decided: {verdict} by {by} — {reason}"),
            t.style(Role::Ok),
        ),
        // A first answer waits for a second researcher: say whose, before the keys.
        None if !c.approvals.is_empty() => Line::styled(
            format!(
                "{} — waits for a second researcher · {}",
                c.approvals.join("; "),
                decide_keys(app, Mode::Escalation)
            ),
            t.style(Role::Key),
        ),
        None => Line::styled(
            format!(
                "{} · each asks for a one-line reason",
                decide_keys(app, Mode::Escalation)
            ),
            t.style(Role::Key),
        ),
    };
    frame.render_widget(Paragraph::new(foot_line), foot);
}
