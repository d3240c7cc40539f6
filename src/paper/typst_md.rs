//! The checked Markdown paper as Typst markup, through pulldown-cmark's events. Every piece
//! of text is escaped so that nothing a model wrote can become Typst code: `#`, `$`, `*`,
//! `_`, `@`, `<`, `[`, `-` and the rest are backslashed (so a sanitized `---` stays three
//! hyphens, not an em dash). A citation becomes `#cite(<key>)` only for a key the
//! bibliography holds; any other `@` is text.

use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// Typst markup for literal text.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\\' | '#' | '*' | '_' | '`' | '$' | '<' | '>' | '@' | '[' | ']' | '~' | '/' | '='
            | '-' | '+' | '"' | '\'' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() && c != '\n' => {}
            c => out.push(c),
        }
    }
    out
}

/// A Typst string literal's contents.
pub fn string(text: &str) -> String {
    text.chars()
        .flat_map(|c| match c {
            '\\' => vec!['\\', '\\'],
            '"' => vec!['\\', '"'],
            '\n' => vec!['\\', 'n'],
            c if c.is_control() => vec![],
            c => vec![c],
        })
        .collect()
}

fn key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.')
}

/// Text with citations: `[@a; @b]` and bare `@a` for known keys become `#cite(<a>)`.
fn text_with_citations(text: &str, keys: &[String]) -> String {
    let mut out = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let key_at = |j: usize| -> Option<(String, usize)> {
        let k: String = chars[j..].iter().take_while(|c| key_char(**c)).collect();
        let k = k.trim_end_matches(['.', ':', '-']).to_string();
        keys.contains(&k).then(|| {
            let n = k.chars().count();
            (k, j + n)
        })
    };
    while i < chars.len() {
        let c = chars[i];
        // A bracketed group whose every item is a known citation.
        if c == '['
            && chars.get(i + 1) == Some(&'@')
            && let Some(close) = chars[i..].iter().position(|c| *c == ']')
        {
            let inner: String = chars[i + 1..i + close].iter().collect();
            let items: Vec<&str> = inner.split(';').map(str::trim).collect();
            let cites: Vec<&str> = items
                .iter()
                .filter_map(|it| it.strip_prefix('@'))
                .filter(|k| keys.iter().any(|key| key == k))
                .collect();
            if !cites.is_empty() && cites.len() == items.len() {
                for k in cites {
                    out.push_str(&format!("#cite(<{k}>)"));
                }
                i += close + 1;
                continue;
            }
        }
        let after_boundary = i == 0 || !chars[i - 1].is_alphanumeric();
        if c == '@'
            && after_boundary
            && let Some((k, end)) = key_at(i + 1)
        {
            out.push_str(&format!("#cite(<{k}>)"));
            i = end;
            continue;
        }
        out.push_str(&escape(&c.to_string()));
        i += 1;
    }
    out
}

/// The paper as a complete Typst document: title, sections, tables, figures (image paths
/// relative to `paper/`), and `#bibliography("references.bib")` when `keys` is not empty.
pub fn document(md: &str, keys: &[String]) -> String {
    let mut out = String::from(
        "#set page(paper: \"a4\", margin: 2.2cm, numbering: \"1\")\n\
         #set text(size: 10.5pt)\n\
         #set par(justify: true)\n\
         #show figure: set block(breakable: true)\n\n",
    );
    let mut text = String::new();
    // (in an image: its caption so far, and its target)
    let mut image: Option<(String, String)> = None;
    let mut table: Vec<Vec<String>> = Vec::new();
    let mut cell = String::new();
    let mut in_cell = false;
    let mut aligns: Vec<Alignment> = Vec::new();
    let mut list_depth: Vec<bool> = Vec::new();
    let mut code: Option<String> = None;
    let mut title_seen = false;
    let flush = |text: &mut String, sink: &mut String| {
        if !text.is_empty() {
            sink.push_str(&text_with_citations(text, keys));
            text.clear();
        }
    };
    for event in Parser::new_ext(md, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH) {
        if let Event::Text(t) = &event {
            if let Some((cap, _)) = image.as_mut() {
                cap.push_str(t);
            } else if let Some(c) = code.as_mut() {
                c.push_str(t);
            } else {
                text.push_str(t);
            }
            continue;
        }
        let sink: &mut String = if in_cell { &mut cell } else { &mut out };
        flush(&mut text, sink);
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                if level == HeadingLevel::H1 && !title_seen {
                    sink.push_str("#align(center)[#text(17pt, weight: \"bold\")[");
                } else {
                    let depth = (level as usize).saturating_sub(1).max(1);
                    sink.push_str(&"=".repeat(depth));
                    sink.push(' ');
                }
            }
            Event::End(TagEnd::Heading(level)) => {
                if level == HeadingLevel::H1 && !title_seen {
                    title_seen = true;
                    sink.push_str("]]\n#v(0.8em)\n\n");
                } else {
                    sink.push_str("\n\n");
                }
            }
            Event::Start(Tag::Paragraph) => {}
            Event::End(TagEnd::Paragraph) => {
                sink.push_str(if list_depth.is_empty() { "\n\n" } else { "" })
            }
            Event::Start(Tag::Emphasis) | Event::End(TagEnd::Emphasis) => sink.push('_'),
            Event::Start(Tag::Strong) | Event::End(TagEnd::Strong) => sink.push('*'),
            Event::Start(Tag::Strikethrough) => sink.push_str("#strike["),
            Event::End(TagEnd::Strikethrough) => sink.push(']'),
            Event::Code(c) => sink.push_str(&format!("#raw(\"{}\")", string(&c))),
            Event::Start(Tag::CodeBlock(kind)) => {
                let _ = matches!(kind, CodeBlockKind::Fenced(_));
                code = Some(String::new());
            }
            Event::End(TagEnd::CodeBlock) => {
                let c = code.take().unwrap_or_default();
                sink.push_str(&format!("#raw(block: true, \"{}\")\n\n", string(&c)));
            }
            Event::Start(Tag::List(first)) => {
                if !list_depth.is_empty() {
                    sink.push('\n');
                }
                list_depth.push(first.is_some());
            }
            Event::End(TagEnd::List(_)) => {
                list_depth.pop();
                if list_depth.is_empty() {
                    sink.push('\n');
                }
            }
            Event::Start(Tag::Item) => {
                let indent = "  ".repeat(list_depth.len().saturating_sub(1));
                let marker = if list_depth.last() == Some(&true) {
                    "+"
                } else {
                    "-"
                };
                sink.push_str(&format!("{indent}{marker} "));
            }
            Event::End(TagEnd::Item) => sink.push('\n'),
            Event::Start(Tag::Table(a)) => {
                aligns = a;
                table.clear();
            }
            Event::Start(Tag::TableHead) | Event::Start(Tag::TableRow) => table.push(Vec::new()),
            Event::Start(Tag::TableCell) => {
                in_cell = true;
                cell.clear();
            }
            Event::End(TagEnd::TableCell) => {
                in_cell = false;
                if let Some(row) = table.last_mut() {
                    row.push(std::mem::take(&mut cell));
                }
            }
            Event::End(TagEnd::Table) => out.push_str(&table_markup(&table, &aligns)),
            Event::Start(Tag::Image { dest_url, .. }) => {
                image = Some((String::new(), dest_url.to_string()))
            }
            Event::End(TagEnd::Image) => {
                if let Some((cap, target)) = image.take() {
                    sink.push_str(&format!(
                        "\n#figure(image(\"{}\", width: 88%), caption: [{}])\n\n",
                        string(&target),
                        text_with_citations(&cap, keys)
                    ));
                }
            }
            Event::Start(Tag::Link { dest_url, .. }) => {
                sink.push_str(&format!("#link(\"{}\")[", string(&dest_url)))
            }
            Event::End(TagEnd::Link) => sink.push(']'),
            Event::Start(Tag::BlockQuote(_)) => sink.push_str("#quote(block: true)["),
            Event::End(TagEnd::BlockQuote(_)) => sink.push_str("]\n\n"),
            Event::SoftBreak => sink.push(' '),
            Event::HardBreak => sink.push_str("\\\n"),
            Event::Rule => sink.push_str("#line(length: 100%)\n\n"),
            Event::Html(h) | Event::InlineHtml(h) => sink.push_str(&escape(&h)),
            Event::InlineMath(m) | Event::DisplayMath(m) => sink.push_str(&escape(&m)),
            _ => {}
        }
    }
    flush(&mut text, &mut out);
    if !keys.is_empty() {
        out.push_str("\n#bibliography(\"references.bib\", title: \"References\", full: true)\n");
    }
    out
}

fn table_markup(rows: &[Vec<String>], aligns: &[Alignment]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(1).max(1);
    let align: Vec<&str> = (0..columns)
        .map(|i| match aligns.get(i) {
            Some(Alignment::Right) => "right",
            Some(Alignment::Center) => "center",
            _ => "left",
        })
        .collect();
    let mut out = format!(
        "#figure(table(columns: {columns}, align: ({},), stroke: 0.5pt,\n",
        align.join(", ")
    );
    for (r, row) in rows.iter().enumerate() {
        let cells: Vec<String> = (0..columns)
            .map(|i| {
                let c = row.get(i).map(String::as_str).unwrap_or("");
                if r == 0 {
                    format!("[*{c}*]")
                } else {
                    format!("[{c}]")
                }
            })
            .collect();
        out.push_str("  ");
        out.push_str(&cells.join(", "));
        out.push_str(",\n");
    }
    out.push_str("), kind: table)\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specials_cannot_become_code() {
        let cases = [
            ("#import \"x\": *", "\\#import \\\"x\\\": \\*"),
            ("$x$ <l> @k [a]", "\\$x\\$ \\<l\\> \\@k \\[a\\]"),
            ("---", "\\-\\-\\-"),
            ("a // b", "a \\/\\/ b"),
        ];
        for (raw, want) in cases {
            assert_eq!(escape(raw), want, "{raw}");
        }
    }

    #[test]
    fn a_paper_becomes_a_document() {
        let md = "# Title *x*\n\n## Results\n\nAs [@gorman2014ecological] and @nobody said, 50% of #tags.\n\n| A | B |\n|---|---:|\n| h-e1 | --- |\n\n![Gate summary](figures/gates.svg)\n";
        let doc = document(md, &["gorman2014ecological".into()]);
        assert!(
            doc.contains("#align(center)[#text(17pt, weight: \"bold\")[Title _x_]]"),
            "{doc}"
        );
        assert!(doc.contains("= Results"), "{doc}");
        assert!(
            doc.contains("As #cite(<gorman2014ecological>) and \\@nobody said, 50% of \\#tags."),
            "{doc}"
        );
        assert!(doc.contains("[*A*], [*B*],"), "{doc}");
        assert!(doc.contains("[h\\-e1], [\\-\\-\\-],"), "{doc}");
        assert!(
            doc.contains(
                "#figure(image(\"figures/gates.svg\", width: 88%), caption: [Gate summary])"
            ),
            "{doc}"
        );
        assert!(
            doc.ends_with("#bibliography(\"references.bib\", title: \"References\", full: true)\n")
        );
        assert!(!document("# T\n", &[]).contains("bibliography"));
    }
}
