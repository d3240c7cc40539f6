//! The paper view: the manuscript with each checked number marked (measured or unverified), a
//! number cursor, and the selected number's source on demand. The checking happened on a
//! worker ([`crate::tui::paper::read_paper`]); this is state, keys and drawing only.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use super::outcome::Outcome;
use crate::tui::keymap::Command;
use crate::tui::paper::{Paper, describe};
use crate::tui::theme::{Role, Theme};

pub struct PaperView {
    pub paper: Paper,
    pub scroll: usize,
    /// Index into `paper.numbers` of the number under the cursor.
    pub selected: Option<usize>,
    pub show_source: bool,
    /// Rows of a page (PageDown's step), as last drawn.
    pub height: usize,
    /// The text's inner width and height as last drawn: `j` and End stop where the last
    /// line is at the bottom, not past it. Recorded by `draw`, the way ratatui's stateful
    /// widgets record their offset; (0, 0) before the first frame.
    pub viewport: std::cell::Cell<(u16, u16)>,
}

impl PaperView {
    /// Opens on the first unverified number: it is what the reader came for.
    pub fn new(paper: Paper) -> PaperView {
        let mut v = PaperView {
            selected: None,
            scroll: 0,
            show_source: false,
            height: 20,
            viewport: Default::default(),
            paper,
        };
        v.select(v.find(0, true));
        v
    }

    pub(crate) fn on_key(&mut self, cmd: Option<Command>) -> Outcome {
        let max = self.last_scroll();
        let page = match self.viewport.get().1 {
            0 => self.height,
            h => usize::from(h).saturating_sub(1).max(1),
        };
        let n = self.paper.numbers.len();
        match cmd {
            Some(Command::Close | Command::Cancel) if self.show_source => self.show_source = false,
            Some(Command::Close | Command::Cancel) => return Outcome::Close,
            Some(Command::Down) => self.scroll = (self.scroll + 1).min(max),
            Some(Command::Up) => self.scroll = self.scroll.saturating_sub(1),
            Some(Command::PageDown) => self.scroll = (self.scroll + page).min(max),
            Some(Command::PageUp) => self.scroll = self.scroll.saturating_sub(page),
            Some(Command::Top) => self.scroll = 0,
            Some(Command::Bottom) => self.scroll = max,
            Some(Command::NextNumber) if n > 0 => {
                self.select(Some(self.selected.map_or(0, |i| (i + 1) % n)))
            }
            Some(Command::PrevNumber) if n > 0 => {
                self.select(Some(self.selected.map_or(n - 1, |i| (i + n - 1) % n)))
            }
            Some(Command::NextUnverified) => {
                let from = self.selected.map_or(0, |i| i + 1);
                self.select(self.find(from, true));
            }
            Some(Command::ShowSource) if self.selected.is_some() => {
                self.show_source = !self.show_source
            }
            _ => {}
        }
        Outcome::Stay
    }

    /// The scroll that puts the paper's last line at the bottom of the view: the lines from
    /// there fill it (each as many rows as it wraps to). Before the first frame, the last line.
    fn last_scroll(&self) -> usize {
        let (width, height) = self.viewport.get();
        let lines = &self.paper.lines;
        if height == 0 {
            return lines.len().saturating_sub(1);
        }
        let mut rows = 0;
        for i in (0..lines.len()).rev() {
            // The gutter's two columns, then the line word-wrapped as the Paragraph does.
            let text = format!("  {}", lines[i]);
            rows += crate::tui::escalation_view::wrap(&text, usize::from(width.max(1))).len();
            if rows > usize::from(height) {
                return i + 1;
            }
        }
        0
    }

    /// The first number from `from` on (wrapping) that is unverified, or any when not `only_unverified`.
    fn find(&self, from: usize, only_unverified: bool) -> Option<usize> {
        let n = self.paper.numbers.len();
        (from..n)
            .chain(0..from.min(n))
            .find(|&i| !only_unverified || self.paper.numbers[i].unverified())
    }

    /// Select a number and scroll so that its line is in view.
    fn select(&mut self, i: Option<usize>) {
        let Some(i) = i else { return };
        self.selected = Some(i);
        let line = self.paper.numbers[i].line;
        if line < self.scroll || line >= self.scroll + self.height.saturating_sub(2) {
            self.scroll = line.saturating_sub(3);
        }
    }
}

/// One line of the paper with its numbers styled by what the registry says.
fn styled_line(view: &PaperView, index: usize, theme: &Theme) -> Line<'static> {
    let text = &view.paper.lines[index];
    let base = if text.starts_with('#') {
        theme.style(Role::Heading)
    } else {
        theme.style(Role::Text)
    };
    let chars: Vec<char> = text.chars().collect();
    // A gutter mark, so a line with an unverified number is found without colour too.
    let flagged = view
        .paper
        .numbers
        .iter()
        .any(|n| n.line == index && n.unverified());
    let mut spans = vec![if flagged {
        Span::styled("✗ ", theme.style(Role::Unverified))
    } else {
        Span::raw("  ")
    }];
    let mut at = 0;
    for (i, n) in view.paper.numbers.iter().enumerate() {
        if n.line != index || n.start < at || n.end > chars.len() {
            continue;
        }
        spans.push(Span::styled(
            chars[at..n.start].iter().collect::<String>(),
            base,
        ));
        let mut style: Style = theme.style(if n.unverified() {
            Role::Unverified
        } else {
            Role::Verified
        });
        if view.selected == Some(i) {
            style = style.patch(theme.style(Role::Selected));
        }
        spans.push(Span::styled(
            chars[n.start..n.end].iter().collect::<String>(),
            style,
        ));
        at = n.end;
    }
    spans.push(Span::styled(chars[at..].iter().collect::<String>(), base));
    Line::from(spans)
}

pub fn draw(view: &PaperView, theme: &Theme, frame: &mut Frame, area: Rect) {
    frame.render_widget(Clear, area);
    let p = &view.paper;
    let title = format!(
        " {} · {} numbers, {} unverified · checked against {} ",
        p.file,
        p.numbers.len(),
        p.unverified_count(),
        p.registry_note
    );
    let block = Block::default()
        .borders(Borders::ALL)
        .title(title)
        .border_style(theme.style(Role::BorderFocus));
    let inner = block.inner(area);
    view.viewport.set((inner.width, inner.height));
    let text: Vec<Line> = (view.scroll.min(view.last_scroll())..p.lines.len())
        .take(area.height as usize)
        .map(|i| styled_line(view, i, theme))
        .collect();
    frame.render_widget(
        Paragraph::new(text).wrap(Wrap { trim: false }).block(block),
        area,
    );
    let Some(n) = view
        .selected
        .filter(|_| view.show_source)
        .and_then(|i| p.numbers.get(i))
    else {
        return;
    };
    let lines: Vec<Line> = describe(n)
        .into_iter()
        .map(|l| Line::styled(l, theme.style(Role::Text)))
        .collect();
    let h = (lines.len() as u16 + 2).min(area.height);
    let popup = Rect {
        x: area.x + 2,
        y: area.y + area.height.saturating_sub(h + 1),
        width: area.width.saturating_sub(4),
        height: h,
    };
    frame.render_widget(Clear, popup);
    let role = if n.unverified() {
        Role::Unverified
    } else {
        Role::Ok
    };
    frame.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: true }).block(
            Block::default()
                .borders(Borders::ALL)
                .title(Span::styled(" source (esc closes) ", theme.style(role)))
                .border_style(theme.style(Role::BorderFocus)),
        ),
        popup,
    );
}
