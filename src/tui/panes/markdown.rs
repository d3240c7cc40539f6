//! Markdown as formatted text for the terminal: headings, bold, lists and tables styled,
//! markers removed. Enough for Reflective Memory records; not a full CommonMark renderer.

use ratatui::text::{Line, Span};

use crate::tui::theme::{Role, Theme};

pub fn render(md: &str, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let mut in_code = false;
    for raw in md.lines() {
        let t = raw.trim_end();
        if t.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            out.push(Line::styled(format!("  {t}"), theme.style(Role::Muted)));
            continue;
        }
        if let Some(h) = heading(t) {
            out.push(Line::styled(h.to_string(), theme.style(Role::Heading)));
            continue;
        }
        if t.starts_with('|') && t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ')) {
            continue;
        }
        let (indent, body) = bullet(t);
        let mut spans = vec![Span::raw(indent)];
        spans.extend(inline(body, theme));
        out.push(Line::from(spans));
    }
    out
}

fn heading(t: &str) -> Option<&str> {
    let hashes = t.chars().take_while(|c| *c == '#').count();
    (1..=6)
        .contains(&hashes)
        .then(|| t[hashes..].trim())
        .filter(|_| t[hashes..].starts_with(' '))
}

fn bullet(t: &str) -> (String, &str) {
    let trimmed = t.trim_start();
    let depth = (t.len() - trimmed.len()) / 2;
    match trimmed
        .strip_prefix("- ")
        .or_else(|| trimmed.strip_prefix("* "))
    {
        Some(rest) => (format!("{}• ", "  ".repeat(depth)), rest),
        None => (String::new(), t),
    }
}

/// `**bold**` as emphasis, `` `code` `` muted, markers dropped.
fn inline(s: &str, theme: &Theme) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    for (i, part) in s.split("**").enumerate() {
        let style = if i % 2 == 1 {
            theme.style(Role::Emphasis)
        } else {
            theme.style(Role::Text)
        };
        for (j, piece) in part.split('`').enumerate() {
            if piece.is_empty() {
                continue;
            }
            let st = if j % 2 == 1 {
                theme.style(Role::Muted)
            } else {
                style
            };
            spans.push(Span::styled(
                piece.replace(" | ", "  │ ").trim_matches('|').to_string(),
                st,
            ));
        }
    }
    spans
}
