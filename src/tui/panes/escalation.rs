//! The escalation card: `workflow.pending_escalation` as one screen — the gate's failed
//! criteria, the trajectory features, the ranked attributions with their evidence side by
//! side, the proposed route and the clamp's verdict — and the keys that decide it. Reading
//! the card is a pure function of the parsed VSA; deciding goes through the steering dialogs.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Borders, Cell, Clear, Paragraph, Row, Table};

use crate::tui::app::App;
use crate::tui::keymap::{Command, Mode};
use crate::tui::theme::Role;
use crate::vsa::escalation::Escalation;
use crate::vsa::model::Vsa;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Attribution {
    pub category: String,
    pub severity: String,
    pub description: String,
    pub evidence: String,
    pub fix: String,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Card {
    pub id: String,
    pub raised_at: String,
    pub hypothesis: String,
    pub proposed_action: String,
    pub clamp_verdict: String,
    pub clamp_kappa: Option<String>,
    /// `(feature, value)`: the signature first, then the features in the file's order.
    pub trajectory: Vec<(String, String)>,
    /// Ranked by the critic's severity, highest first.
    pub attributions: Vec<Attribution>,
    /// `(verdict, by, reason)` once decided.
    pub decision: Option<(String, String, String)>,
}

/// The card of the pending escalation, if one waits (or was just decided and still sits in
/// the file): a view of the VSA's typed [`Escalation`], which ranks the attributions as the
/// engine chose h*; missing fields read `-`.
pub fn card(vsa: &Vsa) -> Option<Card> {
    let e: &Escalation = vsa.workflow.escalation.as_ref()?;
    let o = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".to_string());
    let mut trajectory = e.trajectory.clone();
    // The signature names the failure's shape; the features are its evidence.
    trajectory.sort_by_key(|(k, _)| k != "signature");
    let attributions = e
        .attributions
        .iter()
        .map(|a| {
            let or_dash = |s: &str| {
                if s.is_empty() {
                    "-".into()
                } else {
                    s.to_string()
                }
            };
            Attribution {
                category: or_dash(&a.category),
                severity: a.severity.map_or_else(|| "-".into(), |s| s.to_string()),
                description: or_dash(&a.description),
                evidence: or_dash(&a.evidence),
                fix: or_dash(&a.fix),
            }
        })
        .collect();
    Some(Card {
        id: o(&e.id),
        raised_at: o(&e.raised_at),
        hypothesis: o(&e.hypothesis),
        proposed_action: o(&e.proposed_action),
        clamp_verdict: o(&e.clamp_verdict),
        clamp_kappa: e.clamp_kappa.clone(),
        trajectory,
        attributions,
        decision: e
            .decision
            .as_ref()
            .map(|d| (o(&d.verdict_text), o(&d.by), o(&d.reason))),
    })
}

/// "a approve · r reject · o override" from the keymap of `mode`.
pub fn decide_keys(app: &App, mode: Mode) -> String {
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

/// Words of `s` in lines of at most `width` characters (long words are cut).
pub fn wrap(s: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in s.split_whitespace() {
        let w: String = word.chars().take(width).collect();
        if !cur.is_empty() && cur.chars().count() + 1 + w.chars().count() > width {
            out.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(&w);
    }
    if !cur.is_empty() || out.is_empty() {
        out.push(cur);
    }
    out
}

fn head_lines(app: &App, c: &Card) -> Vec<Line<'static>> {
    let t = &app.theme;
    let label = |s: &str| Span::styled(format!("{s:<11}"), t.style(Role::Muted));
    let kappa = c
        .clamp_kappa
        .as_ref()
        .map(|k| format!(", κ {k}"))
        .unwrap_or_default();
    let mut lines = vec![
        Line::from(vec![
            label("route"),
            Span::styled(
                format!("{} for {}", c.proposed_action, c.hypothesis),
                t.style(Role::Emphasis),
            ),
            Span::raw(format!("   clamp: {}{kappa}", c.clamp_verdict)),
        ]),
        Line::from(vec![
            label("trajectory"),
            Span::raw(
                c.trajectory
                    .iter()
                    .map(|(k, v)| format!("{k} {v}"))
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
    }
    lines
}

fn table(app: &App, c: &Card, width: u16) -> Table<'static> {
    let t = &app.theme;
    // rank, category, severity fixed; the three texts share the rest.
    let text_w = (width.saturating_sub(2 + 9 + 5 + 6) / 3).max(8) as usize;
    let rows: Vec<Row> = c
        .attributions
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let cols = [&a.description, &a.evidence, &a.fix].map(|s| wrap(s, text_w));
            let h = cols.iter().map(Vec::len).max().unwrap_or(1) as u16;
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
    Table::new(
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
    .column_spacing(1)
}

/// The card as an overlay over the panes.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
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
    let head = head_lines(app, &c);
    let [top, body, foot] = Layout::vertical([
        Constraint::Length(head.len() as u16 + 1),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(inner);
    frame.render_widget(Paragraph::new(head), top);
    frame.render_widget(table(app, &c, body.width), body);
    let foot_line = match &c.decision {
        Some((verdict, by, reason)) => Line::styled(
            format!("decided: {verdict} by {by} — {reason}"),
            t.style(Role::Ok),
        ),
        None => {
            let log = app
                .keymap
                .key_for(Mode::Escalation, Command::OpenLog)
                .map(|k| format!(" · {k} results and logs of {}", c.hypothesis))
                .unwrap_or_default();
            Line::styled(
                format!("{}{log}", decide_keys(app, Mode::Escalation)),
                t.style(Role::Key),
            )
        }
    };
    frame.render_widget(Paragraph::new(foot_line), foot);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributions_are_ranked_as_the_engine_ranks_them() {
        let doc = crate::yaml::parse(
            b"workflow:\n  pending_escalation:\n    id: e1\n    hypothesis: h-m1\n    \
              proposed_action: Pivot\n    trajectory: {decay: 0.1, signature: saturation}\n    \
              attributions:\n    - {category: Method, severity: 0.3, description: a}\n    \
              - {category: Design, severity: 0.8, description: b}\n    \
              - {category: Method, severity: 0.8, description: c}\n",
        )
        .unwrap();
        let vsa = |d: &crate::yaml::Document| crate::vsa::read(d).0;
        let c = card(&vsa(&doc)).expect("a card");
        let ranked: Vec<&str> = c
            .attributions
            .iter()
            .map(|a| a.description.as_str())
            .collect();
        // A tie goes to Design, as h* does (reflect::attribution::rank).
        assert_eq!(ranked, ["b", "c", "a"]);
        assert_eq!(c.trajectory[0], ("signature".into(), "saturation".into()));
        assert_eq!((c.clamp_verdict.as_str(), c.decision), ("-", None));
        let none = crate::yaml::parse(b"workflow:\n  pending_escalation: null\n").unwrap();
        assert_eq!(card(&vsa(&none)), None);
        assert_eq!(wrap("one two three", 7), ["one two", "three"]);
    }
}
