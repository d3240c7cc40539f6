//! A scrollable text view over an artifact or a memory record, with `/` search. Markdown
//! files (briefs, plans, archive notes) read as formatted text through the lessons browser's
//! renderer (`tui::markdown`); other files are highlighted by their extension.

use std::path::Path;

use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::Line;

use super::outcome::Outcome;
use crate::tui::highlight::{MAX_BYTES, highlight_file};
use crate::tui::keymap::Command;
use crate::tui::theme::Theme;

/// The viewer's lines for the file at `path` (run on a worker: reading and rendering a
/// large file must not hold up the screen): Markdown rendered, anything else highlighted.
/// Control and bidi characters in the file are shown escaped (`crate::term::escape`).
pub fn read(path: &Path, theme: &Theme) -> Result<Vec<Line<'static>>, String> {
    let markdown = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "md" | "markdown"));
    if !markdown {
        return highlight_file(path, theme.depth);
    }
    let bytes = crate::fsutil::read_run_file(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let cut = bytes.len() > MAX_BYTES;
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(MAX_BYTES)]);
    let mut lines = crate::tui::markdown::render(&crate::term::escape(&text), theme, usize::MAX);
    if cut {
        lines.push(Line::raw(format!(
            "… (only the first {} MB are shown)",
            MAX_BYTES / 1024 / 1024
        )));
    }
    Ok(lines)
}

pub struct Viewer {
    pub title: String,
    pub lines: Vec<Line<'static>>,
    pub scroll: usize,
    /// `Some` while typing a search.
    pub query: Option<String>,
    pub last_query: String,
    pub height: usize,
}

impl Viewer {
    pub fn new(title: String, lines: Vec<Line<'static>>) -> Viewer {
        Viewer {
            title,
            lines,
            scroll: 0,
            query: None,
            last_query: String::new(),
            height: 20,
        }
    }

    pub(crate) fn on_key(&mut self, cmd: Option<Command>, key: KeyEvent) -> Outcome {
        if let Some(q) = &mut self.query {
            match key.code {
                KeyCode::Enter => {
                    self.last_query = std::mem::take(q);
                    self.query = None;
                    self.find_next(self.scroll);
                }
                KeyCode::Esc => self.query = None,
                KeyCode::Backspace => {
                    q.pop();
                }
                KeyCode::Char(c) => q.push(c),
                _ => {}
            }
            return Outcome::Stay;
        }
        let max = self.lines.len().saturating_sub(1);
        match cmd {
            Some(Command::Close | Command::Cancel) => return Outcome::Close,
            Some(Command::Down) => self.scroll = (self.scroll + 1).min(max),
            Some(Command::Up) => self.scroll = self.scroll.saturating_sub(1),
            Some(Command::PageDown) => self.scroll = (self.scroll + self.height).min(max),
            Some(Command::PageUp) => self.scroll = self.scroll.saturating_sub(self.height),
            Some(Command::Search) => self.query = Some(String::new()),
            Some(Command::SearchNext) => self.find_next(self.scroll + 1),
            _ => {}
        }
        Outcome::Stay
    }

    fn find_next(&mut self, from: usize) {
        if self.last_query.is_empty() {
            return;
        }
        let q = self.last_query.to_lowercase();
        let hit = (from..self.lines.len())
            .chain(0..from)
            .find(|&i| self.lines[i].to_string().to_lowercase().contains(&q));
        if let Some(i) = hit {
            self.scroll = i;
        }
    }
}
