//! Drawing the dialogs (their state lives beside them).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use super::edit::{EditDialog, LABELS};
use super::reason::ReasonDialog;
use crate::tui::app::App;
use crate::tui::theme::Role;

fn frame_block(app: &App, title: &str) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .title(format!(" {title} "))
        .border_style(app.theme.style(Role::BorderFocus))
}

pub fn edit(app: &App, d: &EditDialog, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    frame.render_widget(Clear, area);
    let block = frame_block(
        app,
        "edit a VSA field (enter saves, tab next field, esc cancels)",
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    for (i, label) in LABELS.iter().enumerate() {
        let y = inner.y + i as u16 * 2;
        if y >= inner.y + inner.height {
            break;
        }
        let style = if d.focus == i {
            t.style(Role::Key)
        } else {
            t.style(Role::Muted)
        };
        frame.render_widget(
            Paragraph::new(Span::styled(format!("{label:>7} "), style)),
            Rect {
                x: inner.x,
                y,
                width: 8,
                height: 1,
            },
        );
        let field = Rect {
            x: inner.x + 8,
            y,
            width: inner.width.saturating_sub(8),
            height: 1,
        };
        let text = d.text(i);
        let shown = if d.focus == i {
            format!("{text}▏")
        } else {
            text
        };
        frame.render_widget(
            Paragraph::new(Span::styled(shown, t.style(Role::Text))),
            field,
        );
    }
    let mut extra = Vec::new();
    if !d.choices.is_empty() {
        extra.push(Line::from(vec![
            Span::styled("one of: ", t.style(Role::Muted)),
            Span::raw(d.choices.join(" | ")),
            Span::styled("  (ctrl-n cycles)", t.style(Role::Muted)),
        ]));
    }
    if let Some(e) = &d.error {
        let role = if e == "writing…" {
            Role::Muted
        } else {
            Role::Error
        };
        extra.push(Line::styled(e.clone(), t.style(role)));
        if d.refused_invariant && !d.force_armed {
            extra.push(Line::styled(
                "ctrl-f forces past the invariant (asks once more)",
                t.style(Role::Key),
            ));
        }
    }
    let y = inner.y + 6;
    if y < inner.y + inner.height {
        let r = Rect {
            x: inner.x,
            y,
            width: inner.width,
            height: inner.height.saturating_sub(6),
        };
        frame.render_widget(Paragraph::new(extra).wrap(Wrap { trim: true }), r);
    }
}

/// The reason dialog's width: 72 columns, wider when its choices need it, so every action
/// an override offers (Design-Pivot last) sits on one line.
pub(crate) fn reason_width(d: &ReasonDialog) -> u16 {
    let choices: usize = d.choices.iter().map(|c| c.chars().count() + 2).sum();
    (choices + 2).max(72) as u16
}

pub fn reason(app: &App, d: &ReasonDialog, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    frame.render_widget(Clear, area);
    let title = if d.command_line {
        ":".to_string()
    } else {
        format!(
            "{} (enter confirms, esc cancels)",
            d.verb.map(|v| v.name()).unwrap_or(":")
        )
    };
    let block = frame_block(app, &title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let input = d.input.lines().join(" ");
    let mut lines = vec![Line::styled(d.about.clone(), t.style(Role::Text))];
    if !d.choices.is_empty() {
        let spans: Vec<Span> = d
            .choices
            .iter()
            .enumerate()
            .map(|(i, c)| {
                Span::styled(
                    format!(" {c} "),
                    if i == d.choice {
                        t.style(Role::Selected)
                    } else {
                        t.style(Role::Muted)
                    },
                )
            })
            .collect();
        lines.push(Line::from(spans));
    }
    let label = if d.command_line { ":" } else { "reason: " };
    lines.push(Line::from(vec![
        Span::styled(label, t.style(Role::Key)),
        Span::raw(format!("{input}▏")),
    ]));
    if d.command_line {
        lines.push(Line::styled(
            d.completions().join("  "),
            t.style(Role::Muted),
        ));
    }
    if let Some(e) = &d.error {
        lines.push(Line::styled(
            e.clone(),
            t.style(if e == "writing…" {
                Role::Muted
            } else {
                Role::Error
            }),
        ));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), inner);
}
