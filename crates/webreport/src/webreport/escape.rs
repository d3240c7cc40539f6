//! HTML escaping: the one function between a run's text and the report's markup.
//!
//! Statements, lessons, event messages, plan proposals and the paper come from model replies
//! and experiment output. Written raw, `<script>` would run in the reader's browser and a
//! quote would end an attribute early; a bidi override (U+202E) would make a line read
//! differently from what it says. [`text`] escapes the five markup characters and drops every
//! control and bidi character `crate::term::is_unsafe` names: in a page, unlike a terminal,
//! nothing needs to see them, and a reader cannot act on a `\u202e`.

/// `s` as HTML text or attribute value: `& < > " '` as entities, control and bidi
/// characters removed (newline and tab kept).
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if crate::term::is_unsafe(c) => {}
            c => out.push(c),
        }
    }
    out
}

/// A link target the report may carry, escaped for an `href`: only `https:`, `http:` and
/// `mailto:` (a reference's DOI or page, read when the reader clicks). Everything else —
/// `javascript:`, `data:`, a relative path that means nothing beside a single file — is
/// `None`, and the link is shown as its text.
pub fn href(url: &str) -> Option<String> {
    let url = url.trim();
    let lower = url.to_ascii_lowercase();
    let allowed = ["https://", "http://", "mailto:"]
        .iter()
        .any(|p| lower.starts_with(p));
    let clean = url
        .chars()
        .all(|c| !c.is_whitespace() && !crate::term::is_unsafe(c));
    (allowed && clean).then(|| text(url))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_escaped_and_control_and_bidi_characters_are_removed() {
        let table: &[(&str, &str)] = &[
            ("accuracy >= 0.92", "accuracy &gt;= 0.92"),
            (
                "<script>alert(1)</script>",
                "&lt;script&gt;alert(1)&lt;/script&gt;",
            ),
            ("\" onmouseover=\"x' y", "&quot; onmouseover=&quot;x&#39; y"),
            ("R&D &amp;", "R&amp;D &amp;amp;"),
            ("a\u{1b}[2Jb\u{7}c", "a[2Jbc"),
            ("safe\u{202e}gnp.exe", "safegnp.exe"),
            ("\u{2066}iso\u{2069} \u{200f}mark", "iso mark"),
            ("line\nnext\ttab\r", "line\nnext\ttab"),
            ("0.9356 ≥ 0.92 — ünïcode", "0.9356 ≥ 0.92 — ünïcode"),
            ("", ""),
        ];
        for (input, want) in table {
            assert_eq!(text(input), *want, "{input:?}");
        }
    }

    #[test]
    fn only_web_and_mail_links_are_kept() {
        let table: &[(&str, Option<&str>)] = &[
            (
                "https://doi.org/10.1/x?a=1&b=2",
                Some("https://doi.org/10.1/x?a=1&amp;b=2"),
            ),
            ("HTTP://example.org", Some("HTTP://example.org")),
            ("mailto:a@b.org", Some("mailto:a@b.org")),
            ("javascript:alert(1)", None),
            ("  JavaScript:alert(1)", None),
            ("data:text/html,<script>", None),
            ("figures/gates.svg", None),
            ("https://x.org/\u{202e}gpj", None),
            ("https://x.org/a b", None),
            (
                "https://x.org/\"onclick=\"",
                Some("https://x.org/&quot;onclick=&quot;"),
            ),
        ];
        for (input, want) in table {
            assert_eq!(href(input).as_deref(), *want, "{input:?}");
        }
    }
}
