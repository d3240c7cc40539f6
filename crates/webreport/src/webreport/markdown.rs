//! The paper's Markdown as HTML, built from pulldown-cmark's events by hand (the crate's
//! `html` feature would pass raw HTML through): every text is escaped, raw HTML is shown as
//! text, a link keeps its target only when it is a web or mail address, and an image that
//! names one of the run's figures becomes that figure's inline SVG (any other image is its
//! caption: a single file cannot carry a path). Citations (`[@key]`) become the cited
//! works' short form first ([`cite_short`]), from the records the run's search retrieved.

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use super::Chart;
use super::escape::{href, text};

/// `md` as HTML; an image whose path is a chart's (`figures/gates.svg`) shows that chart.
/// Headings move down `shift` levels (the page has its own).
pub(crate) fn to_html(md: &str, figures: &[Chart], shift: u8) -> String {
    let mut out = String::with_capacity(md.len() * 2);
    // The open links (whether each got an <a>) and the image being read (target, alt text).
    let mut links: Vec<bool> = Vec::new();
    let mut image: Option<(String, String)> = None;
    // Cells of the header row are `th`.
    let mut head = false;
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    for event in Parser::new_ext(md, options) {
        if let Some((_, alt)) = image.as_mut() {
            match event {
                Event::End(TagEnd::Image) => {
                    let (dest, alt) = image.take().unwrap_or_default();
                    out.push_str(&figure(&dest, &alt, figures));
                }
                Event::Text(t) | Event::Code(t) | Event::InlineHtml(t) => alt.push_str(&t),
                _ => {}
            }
            continue;
        }
        match event {
            Event::Start(tag) => match tag {
                Tag::Image { dest_url, .. } => image = Some((dest_url.to_string(), String::new())),
                Tag::Link { dest_url, .. } => {
                    let target = href(&dest_url);
                    if let Some(h) = &target {
                        out.push_str(&format!("<a href=\"{h}\" rel=\"noreferrer\">"));
                    }
                    links.push(target.is_some());
                }
                Tag::TableCell if head => out.push_str("<th>"),
                other => {
                    head |= matches!(other, Tag::TableHead);
                    out.push_str(&open(&other, shift));
                }
            },
            Event::End(TagEnd::Link) => {
                if links.pop() == Some(true) {
                    out.push_str("</a>");
                }
            }
            Event::End(TagEnd::TableCell) if head => out.push_str("</th>"),
            Event::End(end) => {
                head &= end != TagEnd::TableHead;
                out.push_str(&close(end, shift));
            }
            Event::Text(t) => out.push_str(&text(&t)),
            Event::Code(t) => out.push_str(&format!("<code>{}</code>", text(&t))),
            // Raw HTML from a model is shown, never interpreted.
            Event::Html(t) | Event::InlineHtml(t) => out.push_str(&text(&t)),
            Event::InlineMath(t) | Event::DisplayMath(t) => {
                out.push_str(&format!("<code>{}</code>", text(&t)))
            }
            Event::SoftBreak => out.push('\n'),
            Event::HardBreak => out.push_str("<br>\n"),
            Event::Rule => out.push_str("<hr>\n"),
            Event::FootnoteReference(t) => out.push_str(&format!("[{}]", text(&t))),
            Event::TaskListMarker(done) => out.push_str(if done { "[x] " } else { "[ ] " }),
        }
    }
    out
}

fn level(l: HeadingLevel, shift: u8) -> u8 {
    (l as u8 + shift).min(6)
}

fn open(tag: &Tag<'_>, shift: u8) -> String {
    match tag {
        Tag::Paragraph => "<p>".into(),
        Tag::Heading { level: l, .. } => format!("<h{}>", level(*l, shift)),
        Tag::BlockQuote(_) => "<blockquote>".into(),
        Tag::CodeBlock(_) => "<pre><code>".into(),
        Tag::List(Some(start)) => format!("<ol start=\"{start}\">"),
        Tag::List(None) => "<ul>".into(),
        Tag::Item => "<li>".into(),
        Tag::Table(_) => "<table>".into(),
        Tag::TableHead => "<thead><tr>".into(),
        Tag::TableRow => "<tr>".into(),
        Tag::TableCell => "<td>".into(),
        Tag::Emphasis => "<em>".into(),
        Tag::Strong => "<strong>".into(),
        Tag::Strikethrough => "<del>".into(),
        _ => String::new(),
    }
}

fn close(end: TagEnd, shift: u8) -> String {
    match end {
        TagEnd::Paragraph => "</p>\n".into(),
        TagEnd::Heading(l) => format!("</h{}>\n", level(l, shift)),
        TagEnd::BlockQuote(_) => "</blockquote>\n".into(),
        TagEnd::CodeBlock => "</code></pre>\n".into(),
        TagEnd::List(true) => "</ol>\n".into(),
        TagEnd::List(false) => "</ul>\n".into(),
        TagEnd::Item => "</li>\n".into(),
        TagEnd::Table => "</table>\n".into(),
        TagEnd::TableHead => "</tr></thead>\n".into(),
        TagEnd::TableRow => "</tr>\n".into(),
        TagEnd::TableCell => "</td>".into(),
        TagEnd::Emphasis => "</em>".into(),
        TagEnd::Strong => "</strong>".into(),
        TagEnd::Strikethrough => "</del>".into(),
        _ => String::new(),
    }
}

/// A figure the paper links: its SVG with the caption, or the caption alone when the run
/// has no such figure.
fn figure(dest: &str, alt: &str, figures: &[Chart]) -> String {
    let dest = dest.trim_start_matches("./");
    match figures.iter().find(|c| c.path == dest) {
        Some(c) => format!(
            "<figure>{}<figcaption>{}</figcaption></figure>\n",
            c.svg,
            text(alt)
        ),
        None => format!(
            "<span class=\"missing\">[figure not in the run: {}]</span>",
            text(alt)
        ),
    }
}

/// The paper's title: its first level-1 heading, as plain text.
pub fn title(md: &str) -> Option<String> {
    let mut in_title = false;
    let mut out = String::new();
    for event in Parser::new(md) {
        match event {
            Event::Start(Tag::Heading {
                level: HeadingLevel::H1,
                ..
            }) => in_title = true,
            Event::End(TagEnd::Heading(HeadingLevel::H1)) => {
                return Some(out.trim().to_string()).filter(|t| !t.is_empty());
            }
            Event::Text(t) | Event::Code(t) if in_title => out.push_str(&t),
            _ => {}
        }
    }
    None
}

/// A work as the page names it where the paper cites it: `Fisher 1936`, `Gorman and
/// Williams 2014`, `Gorman et al. 2014` (the authors' last names; the title's first words
/// when the record names no author).
pub(crate) fn short_reference(r: &crate::paper::refs::Record) -> String {
    let last = |name: &str| -> String {
        match name.split_once(',') {
            Some((family, _)) => family.trim().to_string(),
            None => name.split_whitespace().last().unwrap_or(name).to_string(),
        }
    };
    let who = match r.authors.as_slice() {
        [] => r
            .title
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" "),
        [a] => last(a),
        [a, b] => format!("{} and {}", last(a), last(b)),
        [a, ..] => format!("{} et al.", last(a)),
    };
    match r.year {
        Some(y) => format!("{who} {y}"),
        None => who,
    }
}

/// The paper's citations as the references' short form, before the Markdown is rendered:
/// `[@a; @b]` becomes `(Gorman et al. 2014; Fisher 1936)` and a bare `@a` in running text
/// `Gorman et al. 2014`. A key no record has stays as written (the paper's check names it);
/// fenced and inline code are left alone, as `paper::cite` leaves them.
pub(crate) fn cite_short(md: &str, records: &[crate::paper::refs::Record]) -> String {
    let short = |key: &str| records.iter().find(|r| r.key == key).map(short_reference);
    let key_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.');
    let mut out = String::with_capacity(md.len());
    let mut fenced = false;
    for line in md.split_inclusive('\n') {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || line.trim_start().starts_with("```") {
            out.push_str(line);
            continue;
        }
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        let mut code = false;
        while i < chars.len() {
            let c = chars[i];
            if c == '`' {
                code = !code;
            }
            let prev = i.checked_sub(1).map(|p| chars[p]);
            // A bracket of keys only: `[@a; @b]`.
            if !code && c == '[' && chars.get(i + 1) == Some(&'@') {
                let end = chars[i..].iter().position(|&c| c == ']').map(|e| i + e);
                let inner: Option<Vec<String>> = end.and_then(|end| {
                    chars[i + 1..end]
                        .iter()
                        .collect::<String>()
                        .split(';')
                        .map(|k| short(k.trim().strip_prefix('@')?))
                        .collect()
                });
                match (end, inner) {
                    (Some(_), Some(names)) => out.push_str(&format!("({})", names.join("; "))),
                    // One key unknown: the bracket stays whole, as written.
                    (Some(end), None) => out.extend(&chars[i..=end]),
                    (None, _) => {
                        out.extend(&chars[i..]);
                        break;
                    }
                }
                i = end.map_or(chars.len(), |e| e + 1);
                continue;
            }
            if !code && c == '@' && prev.is_none_or(char::is_whitespace) {
                let key: String = chars[i + 1..]
                    .iter()
                    .take_while(|c| key_char(**c))
                    .collect();
                let key = key.trim_end_matches(['.', ':', '-']);
                if let Some(name) = short(key) {
                    out.push_str(&name);
                    i += 1 + key.chars().count();
                    continue;
                }
            }
            out.push(c);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 43: the HTML report showed `[@gorman2014ecological]`; the reader sees the work.
    #[test]
    fn citations_read_as_the_references_short_form() {
        use crate::paper::refs::Record;
        let rec = |key: &str, authors: &[&str], year: Option<u32>| Record {
            key: key.into(),
            title: "Diagnosis of multiple cancer types".into(),
            authors: authors.iter().map(|a| a.to_string()).collect(),
            year,
            ..Record::default()
        };
        let records = [
            rec(
                "gorman2014",
                &["Kristen B. Gorman", "Tony D. Williams", "W. Fraser"],
                Some(2014),
            ),
            rec("fisher1936", &["R. A. Fisher"], Some(1936)),
            rec("two", &["Hastie, Trevor", "Tibshirani, Robert"], Some(2009)),
            rec("anon", &[], None),
        ];
        let table = [
            ("measured [@gorman2014].", "measured (Gorman et al. 2014)."),
            (
                "[@fisher1936; @two]",
                "(Fisher 1936; Hastie and Tibshirani 2009)",
            ),
            ("as @fisher1936 showed", "as Fisher 1936 showed"),
            ("see [@anon]", "see (Diagnosis of multiple)"),
            // Unknown keys, code, e-mail addresses and fenced blocks stay as written.
            ("[@nobody; @fisher1936]", "[@nobody; @fisher1936]"),
            (
                "`[@fisher1936]` and a@fisher1936",
                "`[@fisher1936]` and a@fisher1936",
            ),
            (
                "```\n[@fisher1936]\n```\n[@fisher1936]",
                "```\n[@fisher1936]\n```\n(Fisher 1936)",
            ),
            ("[@fisher1936", "[@fisher1936"),
        ];
        for (md, want) in table {
            assert_eq!(cite_short(md, &records), want, "{md}");
        }
    }

    #[test]
    fn markdown_becomes_escaped_html() {
        let figs = vec![Chart {
            path: "figures/g.svg".into(),
            caption: "unused".into(),
            svg: "<svg id=\"g\"></svg>".into(),
        }];
        let table: &[(&str, &str)] = &[
            ("# Title\n", "<h3>Title</h3>\n"),
            (
                "a <script>x</script> b\n",
                "<p>a &lt;script&gt;x&lt;/script&gt; b</p>\n",
            ),
            (
                "<div onclick=\"x\">\n",
                "&lt;div onclick=&quot;x&quot;&gt;\n",
            ),
            (
                "[ok](https://doi.org/1)\n",
                "<p><a href=\"https://doi.org/1\" rel=\"noreferrer\">ok</a></p>\n",
            ),
            ("[bad](javascript:alert(1))\n", "<p>bad</p>\n"),
            (
                "![Cap <b>](figures/g.svg)\n",
                "<p><figure><svg id=\"g\"></svg><figcaption>Cap &lt;b&gt;</figcaption></figure>\n</p>\n",
            ),
            (
                "![x](https://evil.org/p.png)\n",
                "<p><span class=\"missing\">[figure not in the run: x]</span></p>\n",
            ),
            (
                "| a | b |\n|---|---|\n| 1 | 2 |\n",
                "<table><thead><tr><th>a</th><th>b</th></tr></thead>\n<tr><td>1</td><td>2</td></tr>\n</table>\n",
            ),
            (
                "`a<b` and *e*\n",
                "<p><code>a&lt;b</code> and <em>e</em></p>\n",
            ),
            ("bidi\u{202e}x\n", "<p>bidix</p>\n"),
        ];
        for (md, want) in table {
            assert_eq!(to_html(md, &figs, 2), *want, "{md:?}");
        }
    }

    #[test]
    fn the_title_is_the_first_level_one_heading() {
        let table: &[(&str, Option<&str>)] = &[
            (
                "# Bills alone; mass adds\n\ntext",
                Some("Bills alone; mass adds"),
            ),
            (
                "## Abstract\n\n# Late `code` title\n",
                Some("Late code title"),
            ),
            ("no heading", None),
            ("#\n", None),
        ];
        for (md, want) in table {
            assert_eq!(title(md).as_deref(), *want, "{md:?}");
        }
    }
}
