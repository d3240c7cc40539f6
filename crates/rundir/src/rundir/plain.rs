//! Markdown as plain text, for prompts and one-line listings: the same parser the TUI renders
//! with (pulldown-cmark), so `**Plateau**: stops` reads `Plateau: stops` everywhere and no
//! markup reaches a model as if it were content.

use pulldown_cmark::{Event, Options, Parser, TagEnd};

/// The text of `md` without markup: inline breaks become spaces, blocks end a line, list
/// items keep a `- `, HTML comments are dropped; trimmed, one line per block.
pub fn plain_text(md: &str) -> String {
    let mut out = String::new();
    for event in Parser::new_ext(md, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH) {
        match event {
            Event::Text(t) | Event::Code(t) => out.push_str(&t),
            Event::SoftBreak | Event::HardBreak => out.push(' '),
            Event::Start(pulldown_cmark::Tag::Item) => out.push_str("- "),
            Event::End(
                TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::Item | TagEnd::TableRow,
            ) => out.push('\n'),
            Event::End(TagEnd::TableCell) => out.push_str(" | "),
            _ => {}
        }
    }
    let lines: Vec<&str> = out
        .lines()
        .map(|l| l.trim().trim_end_matches(" |").trim_end())
        .filter(|l| !l.is_empty())
        .collect();
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::plain_text;

    #[test]
    fn markup_goes_text_stays() {
        assert_eq!(
            plain_text("**Plateau above decay 1.0**: onset stops falling at `x`"),
            "Plateau above decay 1.0: onset stops falling at x"
        );
        assert_eq!(plain_text("a *b*\nc"), "a b c");
        assert_eq!(plain_text("- one\n- **two**\n"), "- one\n- two");
        assert_eq!(
            plain_text("KL > 2.0 (n=5000-10000)"),
            "KL > 2.0 (n=5000-10000)"
        );
        assert_eq!(plain_text("x <!-- youra-key: 0 -->"), "x");
        assert_eq!(plain_text(""), "");
    }
}
