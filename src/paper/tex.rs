//! `paper/paper.tex`: the checked Markdown as LaTeX, for researchers who submit to a venue
//! template. Text is escaped (`\`, `{`, `}`, `$`, `&`, `#`, `%`, `_`, `~`, `^`), a sanitized
//! `---` stays three hyphens (`-{}-{}-`, not an em dash), citations of retrieved keys become
//! `\cite{key}`, figures `\includegraphics` of their SVG (with the `svg` package).

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// LaTeX for literal text.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '{' | '}' | '$' | '&' | '#' | '%' | '_' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '<' => out.push_str("\\textless{}"),
            '>' => out.push_str("\\textgreater{}"),
            // `--` and `---` are ligatures in TeX: keep each hyphen a hyphen.
            '-' => out.push_str("-{}"),
            c if c.is_control() && c != '\n' => {}
            c => out.push(c),
        }
    }
    out
}

fn with_citations(text: &str, keys: &[String]) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('@') {
        let (before, after) = rest.split_at(at);
        let key: String = after[1..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.'))
            .collect();
        let key = key.trim_end_matches(['.', ':', '-']);
        let boundary = !before.ends_with(|c: char| c.is_alphanumeric());
        if boundary && keys.iter().any(|k| k == key) {
            let before = before.strip_suffix('[').unwrap_or(before);
            out.push_str(&escape(before));
            out.push_str(&format!("\\cite{{{key}}}"));
            rest = &after[1 + key.len()..];
            rest = rest.strip_prefix(']').unwrap_or(rest);
            if let Some(r) = rest.strip_prefix(';') {
                rest = r.trim_start();
            }
        } else {
            out.push_str(&escape(before));
            out.push('@');
            rest = &after[1..];
        }
    }
    out.push_str(&escape(rest));
    out
}

/// The whole LaTeX document.
pub fn document(md: &str, keys: &[String]) -> String {
    let mut out = String::from(
        "\\documentclass[11pt]{article}\n\\usepackage[utf8]{inputenc}\n\\usepackage{graphicx}\n\\usepackage{svg}\n\\usepackage{booktabs}\n\\usepackage{hyperref}\n\\begin{document}\n",
    );
    let mut text = String::new();
    let mut image: Option<(String, String)> = None;
    let mut row: Vec<String> = Vec::new();
    let mut cell = String::new();
    let mut in_cell = false;
    let mut head = false;
    let mut title_done = false;
    for event in Parser::new_ext(md, Options::ENABLE_TABLES) {
        if let Event::Text(t) = &event {
            match image.as_mut() {
                Some((cap, _)) => cap.push_str(t),
                None => text.push_str(t),
            }
            continue;
        }
        let converted = with_citations(&std::mem::take(&mut text), keys);
        if in_cell {
            cell.push_str(&converted)
        } else {
            out.push_str(&converted)
        }
        match event {
            Event::Start(Tag::Heading { level, .. }) => out.push_str(match level {
                HeadingLevel::H1 if !title_done => "\\title{",
                HeadingLevel::H1 | HeadingLevel::H2 => "\\section*{",
                HeadingLevel::H3 => "\\subsection*{",
                _ => "\\paragraph{",
            }),
            Event::End(TagEnd::Heading(level)) => {
                if level == HeadingLevel::H1 && !title_done {
                    title_done = true;
                    out.push_str("}\n\\date{}\n\\maketitle\n\n");
                } else {
                    out.push_str("}\n\n");
                }
            }
            Event::End(TagEnd::Paragraph) => out.push_str("\n\n"),
            Event::Start(Tag::Emphasis) => out.push_str("\\emph{"),
            Event::Start(Tag::Strong) => out.push_str("\\textbf{"),
            Event::End(TagEnd::Emphasis) | Event::End(TagEnd::Strong) => out.push('}'),
            Event::Code(c) => {
                let t = format!("\\texttt{{{}}}", escape(&c));
                if in_cell {
                    cell.push_str(&t)
                } else {
                    out.push_str(&t)
                }
            }
            Event::Start(Tag::List(_)) => out.push_str("\\begin{itemize}\n"),
            Event::End(TagEnd::List(_)) => out.push_str("\\end{itemize}\n\n"),
            Event::Start(Tag::Item) => out.push_str("\\item "),
            Event::End(TagEnd::Item) => out.push('\n'),
            Event::Start(Tag::Table(aligns)) => {
                let spec: String = aligns.iter().map(|_| 'l').collect();
                out.push_str(&format!(
                    "\\begin{{table}}[h]\n\\centering\n\\begin{{tabular}}{{{spec}}}\n\\toprule\n"
                ));
            }
            Event::Start(Tag::TableHead) => head = true,
            Event::End(TagEnd::TableHead) | Event::End(TagEnd::TableRow) => {
                out.push_str(&row.join(" & "));
                out.push_str(" \\\\\n");
                if head {
                    out.push_str("\\midrule\n");
                    head = false;
                }
                row.clear();
            }
            Event::Start(Tag::TableCell) => in_cell = true,
            Event::End(TagEnd::TableCell) => {
                in_cell = false;
                row.push(std::mem::take(&mut cell));
            }
            Event::End(TagEnd::Table) => {
                out.push_str("\\bottomrule\n\\end{tabular}\n\\end{table}\n\n")
            }
            Event::Start(Tag::Image { dest_url, .. }) => {
                image = Some((String::new(), dest_url.to_string()))
            }
            Event::End(TagEnd::Image) => {
                if let Some((cap, target)) = image.take() {
                    out.push_str(&format!(
                        "\\begin{{figure}}[h]\n\\centering\n\\includesvg[width=0.85\\linewidth]{{{}}}\n\\caption{{{}}}\n\\end{{figure}}\n\n",
                        target.trim_end_matches(".svg").replace(['{', '}', '\\', '%'], ""),
                        with_citations(&cap, keys)
                    ));
                }
            }
            Event::SoftBreak => out.push(' '),
            Event::HardBreak => out.push_str("\\\\\n"),
            Event::Html(h) | Event::InlineHtml(h) => out.push_str(&escape(&h)),
            _ => {}
        }
    }
    out.push_str(&with_citations(&text, keys));
    if !keys.is_empty() {
        out.push_str("\n\\nocite{*}\n\\bibliographystyle{plain}\n\\bibliography{references}\n");
    }
    out.push_str("\\end{document}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_dashes_stay() {
        let cases = [
            ("50% & $5 #1 a_b", "50\\% \\& \\$5 \\#1 a\\_b"),
            ("---", "-{}-{}-{}"),
            ("\\input{x}", "\\textbackslash{}input\\{x\\}"),
        ];
        for (raw, want) in cases {
            assert_eq!(escape(raw), want, "{raw}");
        }
    }

    #[test]
    fn a_paper_becomes_latex() {
        let md = "# T\n\nAs [@g2014] and me@x.org.\n\n| A | B |\n|---|---|\n| h-e1 | --- |\n\n![Cap](figures/gates.svg)\n";
        let tex = document(md, &["g2014".into()]);
        assert!(tex.contains("\\title{T}"), "{tex}");
        assert!(tex.contains("As \\cite{g2014} and me@x.org."), "{tex}");
        assert!(tex.contains("h-{}e1 & -{}-{}-{} \\\\"), "{tex}");
        assert!(
            tex.contains("\\includesvg[width=0.85\\linewidth]{figures/gates}"),
            "{tex}"
        );
        assert!(tex.contains("\\bibliography{references}"));
    }
}
