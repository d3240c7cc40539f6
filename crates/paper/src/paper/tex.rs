//! `paper/paper.tex`: the checked Markdown as LaTeX, for researchers who submit to a venue
//! template. [`text`] is the one door for the paper's text into TeX: every character TeX
//! reads as markup (`\`, `{`, `}`, `$`, `&`, `#`, `%`, `_`, `~`, `^`, `<`, `>`) is written
//! as a fixed escape (and `[`, `]` as `{[}`, `{]}`, so text after `\item` or `\\` is
//! never their optional argument), a sanitized `---` stays three hyphens (`-{}-{}-{}`), control
//! characters are dropped; so no control sequence the text holds survives and its braces
//! cannot close a group youra opened. Citations of retrieved keys become `\cite{key}`;
//! figures are the PDFs youra made from its own SVGs (`\includegraphics`, no `svg`
//! package, so building the paper never needs `-shell-escape`), and only for a figure in
//! the manifest.

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use super::emit::{Emitted, Inputs, Piece, pieces};

/// The control sequences [`text`] writes (each followed by `{}` when it is a word).
pub const TEXT_ESCAPES: &[&str] = &[
    "\\textbackslash{}",
    "\\textasciitilde{}",
    "\\textasciicircum{}",
    "\\textless{}",
    "\\textgreater{}",
    "\\{",
    "\\}",
    "\\$",
    "\\&",
    "\\#",
    "\\%",
    "\\_",
    "{[}",
    "{]}",
];

/// LaTeX for literal text.
pub fn text(t: &str) -> String {
    let mut out = String::with_capacity(t.len() + 8);
    for c in t.chars() {
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
            // A bracket after `\item`, `\\` or `\toprule` would be their optional argument.
            '[' => out.push_str("{[}"),
            ']' => out.push_str("{]}"),
            // `--` and `---` are ligatures in TeX: keep each hyphen a hyphen.
            '-' => out.push_str("-{}"),
            c if c.is_control() && c != '\n' => {}
            c => out.push(c),
        }
    }
    out
}

fn with_citations(t: &str, inputs: &Inputs) -> String {
    let mut out = String::new();
    for piece in pieces(t, inputs.keys) {
        match piece {
            Piece::Text(s) => out.push_str(&text(&s)),
            Piece::Cite(keys) => {
                let keys: Vec<&str> = keys.iter().map(|k| k.as_str()).collect();
                out.push_str(&format!("\\cite{{{}}}", keys.join(",")));
            }
        }
    }
    out
}

/// The PDF youra makes of a drawn figure (`figures/gates.svg` → `figures/gates.pdf`), when
/// its path is plain enough to name in TeX as it is (it always is for youra's own names).
pub fn figure_pdf(svg: &str) -> Option<String> {
    let stem = svg.strip_suffix(".svg")?;
    let plain = !stem.is_empty()
        && !stem
            .split('/')
            .any(|s| s.is_empty() || s == "." || s == "..")
        && stem
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '/'));
    plain.then(|| format!("{stem}.pdf"))
}

/// The whole LaTeX document.
pub fn document(md: &str, inputs: &Inputs) -> Emitted {
    let mut out = String::from(
        "\\documentclass[11pt]{article}\n\\usepackage[utf8]{inputenc}\n\\usepackage{graphicx}\n\\usepackage{booktabs}\n\\usepackage{hyperref}\n\\begin{document}\n",
    );
    let mut dropped = Vec::new();
    let mut buf = String::new();
    let mut image: Option<(String, String)> = None;
    let mut row: Vec<String> = Vec::new();
    let mut cell = String::new();
    let mut in_cell = false;
    let mut head = false;
    let mut title_done = false;
    for event in Parser::new_ext(md, Options::ENABLE_TABLES) {
        if let Some((cap, target)) = image.as_mut() {
            match event {
                Event::Text(t) | Event::Code(t) => cap.push_str(&t),
                Event::End(TagEnd::Image) => {
                    let (cap, target) = (std::mem::take(cap), std::mem::take(target));
                    image = None;
                    let pdf = inputs.figure(&target).and_then(figure_pdf);
                    let made = match pdf {
                        Some(pdf) => format!(
                            "\\begin{{figure}}[h]\n\\centering\n\\includegraphics[width=0.85\\linewidth]{{{pdf}}}\n\\caption{{{}}}\n\\end{{figure}}\n\n",
                            with_citations(&cap, inputs)
                        ),
                        None => {
                            dropped.push(Inputs::dropped_image(&target));
                            format!("\\emph{{{}}}", text(&format!("(figure missing: {cap})")))
                        }
                    };
                    if in_cell {
                        cell.push_str(&made)
                    } else {
                        out.push_str(&made)
                    }
                }
                _ => {}
            }
            continue;
        }
        if let Event::Text(t) = &event {
            buf.push_str(t);
            continue;
        }
        let sink: &mut String = if in_cell { &mut cell } else { &mut out };
        sink.push_str(&with_citations(&std::mem::take(&mut buf), inputs));
        match event {
            Event::Start(Tag::Heading { level, .. }) => sink.push_str(match level {
                HeadingLevel::H1 if !title_done => "\\title{",
                HeadingLevel::H1 | HeadingLevel::H2 => "\\section*{",
                HeadingLevel::H3 => "\\subsection*{",
                _ => "\\paragraph{",
            }),
            Event::End(TagEnd::Heading(level)) => {
                if level == HeadingLevel::H1 && !title_done {
                    title_done = true;
                    sink.push_str("}\n\\date{}\n\\maketitle\n\n");
                } else {
                    sink.push_str("}\n\n");
                }
            }
            Event::End(TagEnd::Paragraph) => sink.push_str("\n\n"),
            Event::Start(Tag::Emphasis) => sink.push_str("\\emph{"),
            Event::Start(Tag::Strong) => sink.push_str("\\textbf{"),
            Event::End(TagEnd::Emphasis) | Event::End(TagEnd::Strong) => sink.push('}'),
            Event::Code(c) => sink.push_str(&format!("\\texttt{{{}}}", text(&c))),
            Event::Start(Tag::List(_)) => sink.push_str("\\begin{itemize}\n"),
            Event::End(TagEnd::List(_)) => sink.push_str("\\end{itemize}\n\n"),
            Event::Start(Tag::Item) => sink.push_str("\\item "),
            Event::End(TagEnd::Item) => sink.push('\n'),
            Event::Start(Tag::Table(aligns)) => {
                let spec: String = aligns.iter().map(|_| 'l').collect();
                sink.push_str(&format!(
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
                sink.push_str("\\bottomrule\n\\end{tabular}\n\\end{table}\n\n")
            }
            Event::Start(Tag::Image { dest_url, .. }) => {
                image = Some((String::new(), dest_url.to_string()))
            }
            Event::SoftBreak => sink.push(' '),
            Event::HardBreak => sink.push_str("\\newline{}\n"),
            Event::Html(h) | Event::InlineHtml(h) => sink.push_str(&text(&h)),
            Event::InlineMath(m) | Event::DisplayMath(m) => sink.push_str(&text(&m)),
            Event::FootnoteReference(f) => sink.push_str(&text(&format!("[^{f}]"))),
            _ => {}
        }
    }
    out.push_str(&with_citations(&buf, inputs));
    if !inputs.keys.is_empty() {
        out.push_str("\n\\nocite{*}\n\\bibliographystyle{plain}\n\\bibliography{references}\n");
    }
    out.push_str("\\end{document}\n");
    Emitted { text: out, dropped }
}

#[cfg(test)]
#[path = "tex_tests.rs"]
mod tests;
