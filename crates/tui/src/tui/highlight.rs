//! Syntax highlighting for the artifact viewer (syntect, pure-Rust regex), run on a worker
//! thread: loading the syntax set and highlighting a long file must not stall a frame.

use std::path::Path;
use std::sync::OnceLock;

use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use syntect::easy::HighlightLines;
use syntect::highlighting::ThemeSet;
use syntect::parsing::SyntaxSet;

use super::theme::{ColorDepth, to_256};

/// Files larger than this are shown in part: the viewer is for reading, not for logs of GBs.
pub const MAX_BYTES: usize = 2 * 1024 * 1024;

fn assets() -> &'static (SyntaxSet, ThemeSet) {
    static ASSETS: OnceLock<(SyntaxSet, ThemeSet)> = OnceLock::new();
    ASSETS.get_or_init(|| {
        (
            SyntaxSet::load_defaults_newlines(),
            ThemeSet::load_defaults(),
        )
    })
}

/// The file's lines, highlighted by its extension (yaml, md, py, json, toml, …; logs plain).
pub(crate) fn highlight_file(path: &Path, depth: ColorDepth) -> Result<Vec<Line<'static>>, String> {
    let bytes = crate::fsutil::read_run_file(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let truncated = bytes.len() > MAX_BYTES;
    let bytes = &bytes[..bytes.len().min(MAX_BYTES)];
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return Err(format!("{} looks binary: not shown", path.display()));
    }
    let text = String::from_utf8_lossy(bytes);
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    // A recorded exchange reads as a conversation: messages, tool calls and results, reply.
    let in_transcripts = path
        .parent()
        .and_then(|p| p.file_name())
        .is_some_and(|n| n == "transcripts");
    let mut lines =
        match super::transcript::as_markdown(&text).filter(|_| in_transcripts && ext == "json") {
            Some(md) => highlight(&md, "md", depth),
            None => highlight(&text, ext, depth),
        };
    if truncated {
        lines.push(Line::raw(format!(
            "… (only the first {} MB are shown)",
            MAX_BYTES / 1024 / 1024
        )));
    }
    Ok(lines)
}

pub fn highlight(text: &str, ext: &str, depth: ColorDepth) -> Vec<Line<'static>> {
    let (syntaxes, themes) = assets();
    let ext = match ext {
        "jsonl" => "json",
        "yml" => "yaml",
        e => e,
    };
    let syntax = syntaxes
        .find_syntax_by_extension(ext)
        .unwrap_or_else(|| syntaxes.find_syntax_plain_text());
    if depth == ColorDepth::None || syntax.name == "Plain Text" {
        return text.lines().map(|l| Line::raw(l.to_string())).collect();
    }
    let Some(theme) = themes.themes.get("base16-ocean.dark") else {
        return text.lines().map(|l| Line::raw(l.to_string())).collect();
    };
    let mut h = HighlightLines::new(syntax, theme);
    syntect::util::LinesWithEndings::from(text)
        .map(|line| match h.highlight_line(line, syntaxes) {
            Ok(ranges) => Line::from(
                ranges
                    .into_iter()
                    .map(|(st, s)| {
                        Span::styled(
                            s.trim_end_matches(['\n', '\r']).to_string(),
                            style(st, depth),
                        )
                    })
                    .collect::<Vec<_>>(),
            ),
            Err(_) => Line::raw(line.trim_end().to_string()),
        })
        .collect()
}

fn style(st: syntect::highlighting::Style, depth: ColorDepth) -> Style {
    let c = st.foreground;
    let fg = match depth {
        ColorDepth::TrueColor => Color::Rgb(c.r, c.g, c.b),
        _ => Color::Indexed(to_256(c.r, c.g, c.b)),
    };
    Style::default().fg(fg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_is_coloured_and_degrades_to_256_and_none() {
        let text = "key: value # c\nlist:\n  - 1\n";
        let tc = highlight(text, "yaml", ColorDepth::TrueColor);
        assert_eq!(tc.len(), 3);
        assert!(
            tc[0]
                .spans
                .iter()
                .any(|s| matches!(s.style.fg, Some(Color::Rgb(..))))
        );
        let c256 = highlight(text, "yaml", ColorDepth::Ansi256);
        assert!(
            c256[0]
                .spans
                .iter()
                .all(|s| !matches!(s.style.fg, Some(Color::Rgb(..))))
        );
        let none = highlight(text, "yaml", ColorDepth::None);
        assert!(
            none.iter()
                .all(|l| l.spans.iter().all(|s| s.style.fg.is_none()))
        );
        assert_eq!(none[0].to_string(), "key: value # c");
        for ext in ["md", "py", "json", "jsonl", "toml", "log", "unknown"] {
            assert!(
                !highlight("x = 1\n", ext, ColorDepth::TrueColor).is_empty(),
                "{ext}"
            );
        }
    }
}
