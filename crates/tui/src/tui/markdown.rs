//! Markdown as formatted terminal lines, through pulldown-cmark (CommonMark + GFM tables):
//! headings, paragraphs, bullet and numbered lists (nested), block quotes, code, rules, and
//! tables boxed with column widths taken from their cells; line breaks inside a paragraph are
//! kept. Every style is a theme role, so NO_COLOR and the 256-colour fallback apply. HTML
//! comments (`<!-- youra-key -->`) are dropped; front matter shows dimmed. No input panics.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::md_table;
use crate::tui::theme::{Role, Theme};

/// `md` as lines at most `width` columns where the renderer decides (tables, rules);
/// paragraphs are left for the caller's wrap.
pub fn render(md: &str, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS;
    let mut w = Writer::new(theme, width.max(8));
    for event in Parser::new_ext(md, options) {
        w.event(event);
    }
    w.flush();
    while w.out.last().is_some_and(|l| l.width() == 0) {
        w.out.pop();
    }
    w.out
}

/// One list level: `None` for bullets, else the next item's number.
type ListLevel = Option<u64>;

struct Writer<'t> {
    theme: &'t Theme,
    width: usize,
    out: Vec<Line<'static>>,
    /// The line being built, and the indent its continuation lines get.
    line: Vec<Span<'static>>,
    indent: String,
    /// Inline styles in effect (strong inside emphasis patches both).
    styles: Vec<Style>,
    lists: Vec<ListLevel>,
    quote: usize,
    code_block: bool,
    metadata: bool,
    table: Option<md_table::TableBuf>,
    /// The last block was a heading: what follows sits right under it.
    after_heading: bool,
}

impl<'t> Writer<'t> {
    fn new(theme: &'t Theme, width: usize) -> Self {
        Writer {
            theme,
            width,
            out: Vec::new(),
            line: Vec::new(),
            indent: String::new(),
            styles: vec![theme.style(Role::Text)],
            lists: Vec::new(),
            quote: 0,
            code_block: false,
            metadata: false,
            table: None,
            after_heading: false,
        }
    }

    fn role(&self, role: Role) -> Style {
        self.theme.style(role)
    }

    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, role: Role) {
        let s = self.style().patch(self.role(role));
        self.styles.push(s);
    }

    fn pop_style(&mut self) {
        if self.styles.len() > 1 {
            self.styles.pop();
        }
    }

    /// Text into the current line (or the table cell being read).
    fn text(&mut self, text: String, style: Style) {
        if let Some(t) = &mut self.table {
            t.push(Span::styled(text, style));
            return;
        }
        if self.line.is_empty() {
            let quote = "│ ".repeat(self.quote);
            if !quote.is_empty() {
                self.line.push(Span::styled(quote, self.role(Role::Muted)));
            }
            if !self.indent.is_empty() {
                self.line.push(Span::raw(self.indent.clone()));
            }
        }
        self.line.push(Span::styled(text, style));
    }

    fn flush(&mut self) {
        if !self.line.is_empty() {
            self.out.push(Line::from(std::mem::take(&mut self.line)));
        }
    }

    /// A blank line between blocks, never two, never first, never inside a tight list.
    fn gap(&mut self) {
        self.flush();
        let under_heading = std::mem::take(&mut self.after_heading);
        if !under_heading && self.lists.is_empty() && self.out.last().is_some_and(|l| l.width() > 0)
        {
            self.out.push(Line::default());
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) if self.code_block => {
                let style = self.role(Role::MdCode);
                for l in t.lines() {
                    self.text(format!("  {l}"), style);
                    self.flush();
                }
            }
            Event::Text(t) if self.metadata => {
                let style = self.role(Role::Muted);
                for l in t.lines() {
                    self.text(l.to_string(), style);
                    self.flush();
                }
            }
            Event::Text(t) => self.text(t.into_string(), self.style()),
            Event::Code(t) => {
                let style = self.style().patch(self.role(Role::MdCode));
                self.text(t.into_string(), style);
            }
            // Records put one field or thought per line (`**Date:** …` then `**Run:** …`), so
            // a line break is kept, as GitHub does in comments, not joined into one line.
            Event::SoftBreak | Event::HardBreak => self.flush(),
            Event::Rule => {
                self.gap();
                let n = self.width.min(40);
                self.out
                    .push(Line::styled("─".repeat(n), self.role(Role::MdRule)));
            }
            Event::TaskListMarker(done) => {
                let mark = if done { "[x] " } else { "[ ] " };
                self.text(mark.into(), self.role(Role::Muted));
            }
            // Comments carry machine keys (`youra-key`); other HTML is shown as written.
            Event::Html(h) | Event::InlineHtml(h) if h.trim_start().starts_with("<!--") => {}
            Event::Html(h) | Event::InlineHtml(h) => {
                let style = self.role(Role::Muted);
                self.text(h.trim_end().to_string(), style);
            }
            Event::FootnoteReference(r) => self.text(format!("[{r}]"), self.role(Role::Muted)),
            Event::InlineMath(m) | Event::DisplayMath(m) => {
                self.text(m.into_string(), self.role(Role::MdCode))
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => {
                // The first paragraph of an item continues the item's marker line.
                if self.line.is_empty() {
                    self.gap();
                }
            }
            Tag::Heading { level, .. } => {
                self.gap();
                self.push_style(Role::Heading);
                if level >= HeadingLevel::H3 {
                    self.text("▸ ".into(), self.style());
                }
            }
            Tag::BlockQuote(_) => {
                self.gap();
                self.quote += 1;
            }
            Tag::CodeBlock(kind) => {
                self.gap();
                self.code_block = true;
                if let CodeBlockKind::Fenced(lang) = kind
                    && !lang.is_empty()
                {
                    self.text(format!("  {lang}"), self.role(Role::Muted));
                    self.flush();
                }
            }
            Tag::List(first) => {
                if self.lists.is_empty() {
                    self.gap();
                } else {
                    self.flush();
                }
                self.lists.push(first);
            }
            Tag::Item => {
                self.flush();
                let depth = self.lists.len().saturating_sub(1);
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        *n += 1;
                        format!("{}. ", *n - 1)
                    }
                    _ => "• ".to_string(),
                };
                let pad = "  ".repeat(depth);
                self.indent = pad.clone();
                self.text(marker.clone(), self.role(Role::Muted));
                // Wrapped text and later paragraphs line up after the marker.
                self.indent = format!("{pad}{}", " ".repeat(marker.chars().count()));
            }
            Tag::Emphasis => self.push_style(Role::MdEmphasis),
            Tag::Strong => self.push_style(Role::MdStrong),
            Tag::Strikethrough => self.push_style(Role::Muted),
            Tag::Link { .. } => self.push_style(Role::Emphasis),
            Tag::Table(align) => {
                self.gap();
                self.table = Some(md_table::TableBuf::new(align));
            }
            Tag::TableHead | Tag::TableRow => {
                if let Some(t) = &mut self.table {
                    t.row();
                }
            }
            Tag::TableCell => {
                if let Some(t) = &mut self.table {
                    t.cell();
                }
            }
            Tag::MetadataBlock(_) => self.metadata = true,
            Tag::HtmlBlock
            | Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::Superscript
            | Tag::Subscript
            | Tag::Image { .. } => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => self.flush(),
            TagEnd::Heading(_) => {
                self.pop_style();
                self.flush();
                self.after_heading = true;
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.quote = self.quote.saturating_sub(1);
            }
            TagEnd::CodeBlock => {
                self.flush();
                self.code_block = false;
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                let depth = self.lists.len();
                // Back to the enclosing item's continuation indent (none at top level).
                self.indent = if depth == 0 {
                    String::new()
                } else {
                    "  ".repeat(depth)
                };
            }
            TagEnd::Item => self.flush(),
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough | TagEnd::Link => {
                self.pop_style()
            }
            TagEnd::Table => {
                if let Some(t) = self.table.take() {
                    let lines = t.render(self.width, self.theme);
                    self.out.extend(lines);
                }
            }
            TagEnd::MetadataBlock(_) => {
                self.flush();
                self.metadata = false;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::theme::ColorDepth;

    fn plain(md: &str, width: usize) -> Vec<String> {
        let t = Theme::builtin("mono", ColorDepth::None).unwrap();
        render(md, &t, width)
            .iter()
            .map(|l| l.to_string())
            .collect()
    }

    #[test]
    fn tables_are_aligned_from_their_cells() {
        let md = "| Check | Actual | Passed |\n|---|---:|---|\n| accuracy | 0.8832 | ❌ |\n| a | 1 | ✅ |\n";
        assert_eq!(
            plain(md, 80),
            [
                "┌──────────┬────────┬────────┐",
                "│ Check    │ Actual │ Passed │",
                "├──────────┼────────┼────────┤",
                "│ accuracy │ 0.8832 │ ❌     │",
                "│ a        │      1 │ ✅     │",
                "└──────────┴────────┴────────┘",
            ]
        );
        // Too wide: the widest column gives way, its cells end in an ellipsis.
        let narrow = plain(
            "| a | long long long text |\n|-|-|\n| x | yyyyyyyyyyyyyyyyyy |\n",
            20,
        );
        assert!(
            narrow.iter().all(|l| l.chars().count() <= 20),
            "{narrow:#?}"
        );
        assert!(narrow[3].contains('…'), "{narrow:#?}");
    }

    #[test]
    fn lists_emphasis_headings_and_comments() {
        let md = "# Title\n\n**Date:** today\n\n1. **Plateau**: stops\n2. `few` points\n   - nested *a*\n\n- b\n\n<!-- youra-key: 0 -->\n";
        assert_eq!(
            plain(md, 80),
            [
                "Title",
                "Date: today",
                "",
                "1. Plateau: stops",
                "2. few points",
                "  • nested a",
                "",
                "• b",
            ]
        );
        let t = Theme::builtin("dark", ColorDepth::TrueColor).unwrap();
        let lines = render("a **b** `c`", &t, 80);
        let styled = |s: &str| {
            lines[0]
                .spans
                .iter()
                .find(|x| x.content == s)
                .unwrap()
                .style
        };
        assert_eq!(
            styled("b"),
            t.style(Role::Text).patch(t.style(Role::MdStrong))
        );
        assert_eq!(
            styled("c"),
            t.style(Role::Text).patch(t.style(Role::MdCode))
        );
    }

    #[test]
    fn code_quotes_rules_and_front_matter() {
        let md = "---\nimported_run: a\n---\n\n> said\n\n```py\nx = 1\n```\n\n---\n";
        let got = plain(md, 10);
        assert_eq!(
            got,
            [
                "imported_run: a",
                "",
                "│ said",
                "",
                "  py",
                "  x = 1",
                "",
                "──────────"
            ]
        );
        assert!(plain("", 80).is_empty());
        assert_eq!(plain("| unclosed |\n|-|\n| `a", 3).len(), 5);
    }
}
