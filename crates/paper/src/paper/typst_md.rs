//! The checked Markdown paper as Typst markup, through pulldown-cmark's events. Text is data,
//! never code: every piece of text from the paper enters the markup through [`text`], which
//! writes it as a string literal (`#"…";`) built by [`typst_str`], the one door into Typst.
//! Inside a string literal only `\` and `"` mean anything, and both are escaped; the `;`
//! after every expression youra emits (`#raw("…");`, `#cite(label("k"));`, `#emph[…];`)
//! ends it, so nothing after it can continue it as a method call, a field or an argument
//! (`` `acc`.at(…) `` stays text). Citations become `#cite` only for a key the bibliography
//! holds; images only for a figure youra drew (the manifest); anything else is text or is
//! left out with a warning.

use pulldown_cmark::{Alignment, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use super::emit::{Emitted, Inputs, Piece, pieces};

/// A Typst string literal holding `text` exactly (control characters but newline and tab
/// dropped): the one way text youra did not write enters Typst.
pub fn typst_str(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `text` as markup that shows it literally: an embedded string, ended by `;`.
pub fn text(text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    format!("#{};", typst_str(text))
}

/// Text with citations of known keys as `#cite(label("key"));`.
fn with_citations(t: &str, inputs: &Inputs) -> String {
    let mut out = String::new();
    for piece in pieces(t, inputs.keys) {
        match piece {
            Piece::Text(s) => out.push_str(&text(&s)),
            Piece::Cite(keys) => {
                for k in keys {
                    out.push_str(&format!("#cite(label({}));", typst_str(k.as_str())));
                }
            }
        }
    }
    out
}

/// A link target youra will make clickable: web addresses only (anything else, e.g.
/// `javascript:` or a file path, stays the link's text).
fn web_link(url: &str) -> bool {
    let u = url.trim().to_ascii_lowercase();
    (u.starts_with("https://") || u.starts_with("http://")) && !u.contains(char::is_whitespace)
}

/// The preamble every paper starts with (no hyphenation: the PDF's words read back as
/// the checked text's words).
const PREAMBLE: &str = "#set page(paper: \"a4\", margin: 2.2cm, numbering: \"1\")\n\
     #set text(size: 10.5pt, hyphenate: false)\n\
     #set par(justify: true)\n\
     #show figure: set block(breakable: true)\n\n";

/// `text` alone as a complete document, pages unnumbered (the property test's page: its
/// PDF's text is `t`'s and nothing else).
pub fn text_document(t: &str) -> String {
    format!("{PREAMBLE}#set page(numbering: none)\n{}\n", text(t))
}

/// The paper as a complete Typst document: title, sections, tables, the drawn figures
/// (paths relative to `paper/`), and `#bibliography("references.bib")` when there are keys.
pub fn document(md: &str, inputs: &Inputs) -> Emitted {
    let mut out = String::from(PREAMBLE);
    let mut dropped = Vec::new();
    let mut text_buf = String::new();
    // (in an image: its caption so far, and its target)
    let mut image: Option<(String, String)> = None;
    let mut table: Vec<Vec<String>> = Vec::new();
    let mut cell = String::new();
    let mut in_cell = false;
    let mut aligns: Vec<Alignment> = Vec::new();
    let mut list_depth: Vec<bool> = Vec::new();
    let mut code: Option<String> = None;
    let mut links: Vec<bool> = Vec::new();
    let mut title_seen = false;
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    for event in Parser::new_ext(md, options) {
        // An image's caption is its text only; code's text is code.
        if let Some((cap, target)) = image.as_mut() {
            match event {
                Event::Text(t) | Event::Code(t) => cap.push_str(&t),
                Event::End(TagEnd::Image) => {
                    let (cap, target) = (std::mem::take(cap), std::mem::take(target));
                    image = None;
                    let sink = if in_cell { &mut cell } else { &mut out };
                    match inputs.figure(&target) {
                        Some(file) => sink.push_str(&format!(
                            "\n#figure(image({}, width: 88%), caption: [{}]);\n\n",
                            typst_str(file),
                            with_citations(&cap, inputs)
                        )),
                        None => {
                            dropped.push(Inputs::dropped_image(&target));
                            sink.push_str(&format!(
                                "#emph[{}];",
                                text(&format!("(figure missing: {cap})"))
                            ));
                        }
                    }
                }
                _ => {}
            }
            continue;
        }
        if let Event::Text(t) = &event {
            match code.as_mut() {
                Some(c) => c.push_str(t),
                None => text_buf.push_str(t),
            }
            continue;
        }
        let sink: &mut String = if in_cell { &mut cell } else { &mut out };
        if !text_buf.is_empty() {
            sink.push_str(&with_citations(&std::mem::take(&mut text_buf), inputs));
        }
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
                    sink.push_str("]];\n#v(0.8em);\n\n");
                } else {
                    sink.push_str("\n\n");
                }
            }
            Event::End(TagEnd::Paragraph) => {
                sink.push_str(if list_depth.is_empty() { "\n\n" } else { "" })
            }
            Event::Start(Tag::Emphasis) => sink.push_str("#emph["),
            Event::Start(Tag::Strong) => sink.push_str("#strong["),
            Event::Start(Tag::Strikethrough) => sink.push_str("#strike["),
            Event::End(TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough) => {
                sink.push_str("];")
            }
            Event::Code(c) => sink.push_str(&format!("#raw({});", typst_str(&c))),
            Event::Start(Tag::CodeBlock(_)) => code = Some(String::new()),
            Event::End(TagEnd::CodeBlock) => {
                let c = code.take().unwrap_or_default();
                sink.push_str(&format!("#raw(block: true, {});\n\n", typst_str(&c)));
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
            Event::Start(Tag::Link { dest_url, .. }) => {
                let web = web_link(&dest_url);
                if web {
                    sink.push_str(&format!("#link({})[", typst_str(dest_url.trim())));
                }
                links.push(web);
            }
            Event::End(TagEnd::Link) => {
                let web = links.pop() == Some(true);
                if web {
                    sink.push_str("];");
                }
            }
            Event::Start(Tag::BlockQuote(_)) => sink.push_str("#quote(block: true)["),
            Event::End(TagEnd::BlockQuote(_)) => sink.push_str("];\n\n"),
            Event::SoftBreak => sink.push(' '),
            Event::HardBreak => sink.push_str("#linebreak();"),
            Event::Rule => sink.push_str("#line(length: 100%);\n\n"),
            Event::Html(h) | Event::InlineHtml(h) => sink.push_str(&text(&h)),
            Event::InlineMath(m) | Event::DisplayMath(m) => sink.push_str(&text(&m)),
            Event::FootnoteReference(f) => sink.push_str(&text(&format!("[^{f}]"))),
            Event::TaskListMarker(done) => sink.push_str(&text(if done { "[x] " } else { "[ ] " })),
            _ => {}
        }
    }
    if !text_buf.is_empty() {
        out.push_str(&with_citations(&text_buf, inputs));
    }
    if !inputs.keys.is_empty() {
        out.push_str("\n#bibliography(\"references.bib\", title: \"References\", full: true);\n");
    }
    Emitted { text: out, dropped }
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
                    format!("[#strong[{c}];]")
                } else {
                    format!("[{c}]")
                }
            })
            .collect();
        out.push_str("  ");
        out.push_str(&cells.join(", "));
        out.push_str(",\n");
    }
    out.push_str("), kind: table);\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper::citekey::CiteKey;

    #[test]
    fn text_is_a_string_and_every_expression_ends() {
        let cases = [
            ("#import \"x\": *", "#\"#import \\\"x\\\": *\";"),
            ("a\\b\nc\u{7}", "#\"a\\\\b\\nc\";"),
            ("", ""),
        ];
        for (raw, want) in cases {
            assert_eq!(text(raw), want, "{raw}");
        }
    }

    #[test]
    fn a_paper_becomes_a_document() {
        let md = "# Title *x*\n\n## Results\n\nAs [@gorman2014ecological]; @nobody said, `acc`.at(1, default: calc.pow(7, 7)) #tags.\n\n| A | B |\n|---|---:|\n| h-e1 | --- |\n\n![Gate summary](figures/gates.svg)\n\n![x][r]\n\n[r]: <../../etc/x\";.svg>\n";
        let keys: Vec<CiteKey> = CiteKey::parse("gorman2014ecological").into_iter().collect();
        let figures = vec!["figures/gates.svg".to_string()];
        let e = document(
            md,
            &Inputs {
                keys: &keys,
                figures: &figures,
            },
        );
        let doc = &e.text;
        assert!(
            doc.contains(
                "#align(center)[#text(17pt, weight: \"bold\")[#\"Title \";#emph[#\"x\";];]];"
            ),
            "{doc}"
        );
        assert!(doc.contains("= #\"Results\";"), "{doc}");
        assert!(
            doc.contains("#\"As \";#cite(label(\"gorman2014ecological\"));#\"; @nobody said, \";#raw(\"acc\");#\".at(1, default: calc.pow(7, 7)) #tags.\";"),
            "{doc}"
        );
        assert!(doc.contains("[#strong[#\"A\";];]"), "{doc}");
        assert!(doc.contains("[#\"h-e1\";], [#\"---\";],"), "{doc}");
        assert!(
            doc.contains(
                "#figure(image(\"figures/gates.svg\", width: 88%), caption: [#\"Gate summary\";]);"
            ),
            "{doc}"
        );
        assert!(
            !doc.contains("etc/x"),
            "a reference-style image is dropped: {doc}"
        );
        assert_eq!(e.dropped.len(), 1, "{:?}", e.dropped);
        assert!(e.dropped[0].contains("etc/x"), "{:?}", e.dropped);
        assert!(
            doc.ends_with(
                "#bibliography(\"references.bib\", title: \"References\", full: true);\n"
            )
        );
        let none = Inputs {
            keys: &[],
            figures: &[],
        };
        assert!(!document("# T\n", &none).text.contains("bibliography"));
    }

    #[test]
    fn only_web_links_are_clickable() {
        let none = Inputs {
            keys: &[],
            figures: &[],
        };
        let doc = document("[a](https://x.org) [b](javascript:alert(1))\n", &none).text;
        assert!(doc.contains("#link(\"https://x.org\")[#\"a\";];"), "{doc}");
        assert!(!doc.contains("javascript"), "{doc}");
    }
}
