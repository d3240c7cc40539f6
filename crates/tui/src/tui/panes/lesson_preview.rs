//! The selected memory record in the Reflection pane: what it is (kind, hypothesis, failure
//! category, run, provenance when imported), its parsed root causes and lessons first, the
//! keys of its links (archive, attempt log), then the whole record as formatted Markdown.
//! Search matches are marked in every line.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::tui::app::App;
use crate::tui::keymap::{Command, Mode};
use crate::tui::lessons::{Entry, find_folded};
use crate::tui::markdown;
use crate::tui::theme::{Role, Theme};

pub fn lines(app: &App, e: &Entry, width: usize) -> Vec<Line<'static>> {
    let t = &app.theme;
    let r = e.record;
    let o = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    let mut out = Vec::new();
    let title = match e.run {
        Some(run) => format!("{run}: {}", r.id),
        None => r.id.clone(),
    };
    out.push(Line::styled(title, t.style(Role::Title)));
    let run_no = r.run.map_or("-".into(), |n| format!("run {n}"));
    out.push(Line::styled(
        format!(
            "{} · {} · {} · {} · {} · {}",
            r.kind,
            o(&r.hypothesis),
            o(&r.category),
            o(&r.final_status),
            run_no,
            o(&r.date)
        ),
        t.style(Role::Muted),
    ));
    if let Some(p) = &r.provenance {
        out.push(Line::styled(
            format!(
                "imported from {} ({}) as {} at {}",
                p.source_name, p.source_run, p.original_id, p.imported_at
            ),
            t.style(Role::Muted),
        ));
    }
    out.push(links_line(app, e));
    // The parsed items, through the same renderer as the body (their `**` are markup).
    let mut parsed = String::new();
    for (name, items) in [("Root causes", &r.root_causes), ("Lessons", &r.lessons)] {
        if items.is_empty() {
            continue;
        }
        parsed.push_str(&format!("### {name}\n\n"));
        for (i, item) in items.iter().enumerate() {
            parsed.push_str(&format!("{}. {}\n", i + 1, item.replace('\n', " ")));
        }
        parsed.push('\n');
    }
    if !parsed.is_empty() {
        out.push(Line::default());
        out.extend(markdown::render(&parsed, t, width));
    }
    out.push(Line::styled(
        "─".repeat(width.min(40)),
        t.style(Role::MdRule),
    ));
    out.extend(markdown::render(&r.body, t, width));
    let q = &app.lessons.search.query;
    out.into_iter().map(|l| mark(l, q, t)).collect()
}

/// `A archive · l log`, each key shown only when its link exists.
fn links_line(app: &App, e: &Entry) -> Line<'static> {
    let t = &app.theme;
    let key = |c: Command| {
        app.keymap
            .key_for(Mode::Reflection, c)
            .map(|k| k.to_string())
            .unwrap_or_else(|| "?".into())
    };
    let name = |p: &Option<std::path::PathBuf>| {
        p.as_ref()
            .map(|p| p.strip_prefix(e.root).unwrap_or(p).display().to_string())
    };
    let links = e.links.cloned().unwrap_or_default();
    let mut spans = Vec::new();
    for (cmd, label, path) in [
        (Command::OpenArchive, "archive", name(&links.archive)),
        (Command::OpenLog, "log", name(&links.log)),
    ] {
        if !spans.is_empty() {
            spans.push(Span::styled(" · ", t.style(Role::Muted)));
        }
        match path {
            Some(p) => {
                spans.push(Span::styled(key(cmd), t.style(Role::Key)));
                spans.push(Span::styled(format!(" {label} {p}"), t.style(Role::Text)));
            }
            None => spans.push(Span::styled(format!("no {label}"), t.style(Role::Muted))),
        }
    }
    Line::from(spans)
}

/// `line` with every occurrence of `query` (case folded) in the search-match style.
pub fn mark(line: Line<'static>, query: &str, theme: &Theme) -> Line<'static> {
    if query.is_empty() {
        return line;
    }
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    let hits = find_folded(&text, query);
    if hits.is_empty() {
        return line;
    }
    let hit = theme.style(Role::SearchMatch);
    // Split every span at the hits' character positions, restyling the parts inside one.
    let mut out: Vec<Span<'static>> = Vec::new();
    let mut pos = 0usize;
    for span in &line.spans {
        let mut part = String::new();
        let mut part_in = None;
        for c in span.content.chars() {
            let inside = hits.iter().any(|(a, b)| (*a..*b).contains(&pos));
            if part_in.is_some_and(|p| p != inside) {
                out.push(piece(std::mem::take(&mut part), span.style, part_in, hit));
            }
            part_in = Some(inside);
            part.push(c);
            pos += 1;
        }
        if !part.is_empty() {
            out.push(piece(part, span.style, part_in, hit));
        }
    }
    Line::from(out).style(line.style)
}

fn piece(text: String, style: Style, inside: Option<bool>, hit: Style) -> Span<'static> {
    if inside == Some(true) {
        Span::styled(text, style.patch(hit))
    } else {
        Span::styled(text, style)
    }
}
