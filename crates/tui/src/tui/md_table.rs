//! A Markdown table, read cell by cell from pulldown-cmark's events and drawn in a box:
//! each column as wide as its widest cell, the widest columns giving way first when the
//! table is wider than the pane (their cells end in `…`), alignment from the delimiter row.

use pulldown_cmark::Alignment;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::tui::theme::{Role, Theme};

/// The cells read so far; the first row is the header.
pub(crate) struct TableBuf {
    align: Vec<Alignment>,
    rows: Vec<Vec<Vec<Span<'static>>>>,
}

impl TableBuf {
    pub fn new(align: Vec<Alignment>) -> Self {
        TableBuf {
            align,
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self) {
        self.rows.push(Vec::new());
    }

    pub fn cell(&mut self) {
        if self.rows.is_empty() {
            self.row();
        }
        if let Some(r) = self.rows.last_mut() {
            r.push(Vec::new());
        }
    }

    /// Text inside the current cell (text outside any cell starts one).
    pub fn push(&mut self, span: Span<'static>) {
        if self.rows.last().is_none_or(|r| r.is_empty()) {
            self.cell();
        }
        if let Some(c) = self.rows.last_mut().and_then(|r| r.last_mut()) {
            c.push(span);
        }
    }

    pub fn render(self, width: usize, theme: &Theme) -> Vec<Line<'static>> {
        let cols = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        if cols == 0 {
            return Vec::new();
        }
        let len = |c: &[Span]| c.iter().map(|s| s.content.width()).sum::<usize>();
        let mut widths: Vec<usize> = (0..cols)
            .map(|i| {
                self.rows
                    .iter()
                    .filter_map(|r| r.get(i))
                    .map(|c| len(c))
                    .max()
                    .unwrap_or(0)
                    .max(1)
            })
            .collect();
        fit(&mut widths, width);
        let rule = theme.style(Role::MdRule);
        let border = |l: &str, m: &str, r: &str| {
            let parts: Vec<String> = widths.iter().map(|w| "─".repeat(w + 2)).collect();
            Line::styled(format!("{l}{}{r}", parts.join(m)), rule)
        };
        let mut out = vec![border("┌", "┬", "┐")];
        for (n, row) in self.rows.iter().enumerate() {
            let mut spans = vec![Span::styled("│", rule)];
            for (i, w) in widths.iter().enumerate() {
                let cell = row.get(i).map(Vec::as_slice).unwrap_or(&[]);
                let cell = clip(cell, *w);
                let text: String = cell.iter().map(|s| s.content.as_ref()).collect();
                let align = self.align.get(i).copied().unwrap_or(Alignment::None);
                let (before, after) = pad(&text, *w, align);
                spans.push(Span::raw(" ".repeat(before + 1)));
                for s in cell {
                    // The header row reads as a header in every theme.
                    let style = if n == 0 {
                        s.style.patch(theme.style(Role::MdStrong))
                    } else {
                        s.style
                    };
                    spans.push(Span::styled(s.content, style));
                }
                spans.push(Span::raw(" ".repeat(after + 1)));
                spans.push(Span::styled("│", rule));
            }
            out.push(Line::from(spans));
            if n == 0 && self.rows.len() > 1 {
                out.push(border("├", "┼", "┤"));
            }
        }
        out.push(border("└", "┴", "┘"));
        out
    }
}

/// Narrow the widest column, one column at a time, until the box fits `width` (borders and
/// padding take 3 per column + 1), keeping every column at least 3 wide.
fn fit(widths: &mut [usize], width: usize) {
    let total = |w: &[usize]| w.iter().sum::<usize>() + 3 * w.len() + 1;
    while total(widths) > width {
        let Some((i, &w)) = widths.iter().enumerate().max_by_key(|(_, w)| **w) else {
            return;
        };
        if w <= 3 {
            return;
        }
        widths[i] -= 1;
    }
}

/// The cell's spans cut to `w` columns, the last one ending in `…` when cut.
fn clip(cell: &[Span<'static>], w: usize) -> Vec<Span<'static>> {
    let total: usize = cell.iter().map(|s| s.content.width()).sum();
    if total <= w {
        return cell.to_vec();
    }
    let mut left = w.saturating_sub(1);
    let mut out = Vec::new();
    for s in cell {
        let mut piece = String::new();
        for c in s.content.chars() {
            let cw = c.width().unwrap_or(0);
            if cw > left {
                left = 0;
                break;
            }
            left -= cw;
            piece.push(c);
        }
        out.push(Span::styled(piece, s.style));
        if left == 0 {
            break;
        }
    }
    let style = cell.last().map(|s| s.style).unwrap_or_default();
    out.push(Span::styled("…", style));
    out
}

/// Spaces before and after `text` to align it in `w` columns (`text` already fits).
fn pad(text: &str, w: usize, align: Alignment) -> (usize, usize) {
    let n = unicode_width::UnicodeWidthStr::width(text);
    let room = w.saturating_sub(n);
    match align {
        Alignment::Right => (room, 0),
        Alignment::Center => (room / 2, room - room / 2),
        _ => (0, room),
    }
}
