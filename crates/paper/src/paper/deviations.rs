//! The paper's "Deviations from the plan" section (issue 40 item 5): the criteria fixed at
//! Verification Planning are the run's pre-registration, and this section lists every
//! departure from them that the VSA recorded (`vsa::deviation`): decisions on escalations,
//! redesigns, resets, overrides, criterion changes and edits, each with who, why and when.
//! With none, it says so: a reader learns that nothing was changed, not that nothing was
//! said.
//!
//! The section is Markdown in the checked text, so `paper.typ`, `paper.tex` and the PDF get
//! it through their one emitter each. What people typed enters it as data: a name as
//! Markdown text with every mark escaped, what changed and why as code spans, which no
//! Markdown, Typst or TeX reading interprets and which the number checks skip (a reason's
//! "0.5 s" is the decider's words, not a measurement the paper claims).

use crate::vsa::actor::is_plain;
use crate::vsa::deviation::Deviation;

pub const HEADING: &str = "Deviations from the plan";

/// What the section says when the run recorded no departure.
pub const NONE_NOTE: &str = "No deviation from the plan was recorded: the criteria fixed at Verification Planning were kept, and no decision, redesign, reset, override or edit changed them.";

/// `s` as Markdown text that reads back as `s`: every ASCII mark that could start
/// emphasis, a link, an image, raw HTML, an entity, a table cell or a code span is
/// backslash-escaped, and line breaks become spaces.
pub(crate) fn md_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '!' | '&' | '|' | '~' | '#' | '$'
            | '{' | '}' | '"' | '\'' | '(' | ')' | '^' | '=' | '+' | '-' | '.' | ':' | '@'
            | '%' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' | '\t' => out.push(' '),
            c if !is_plain(c) => {}
            c => out.push(c),
        }
    }
    out
}

/// `s` as a Markdown code span: fenced by more backticks than any run inside it, padded
/// when it starts or ends with one, on one line, control characters dropped.
pub(crate) fn md_code(s: &str) -> String {
    let flat: String = s
        .chars()
        .map(|c| {
            if matches!(c, '\n' | '\r' | '\t') {
                ' '
            } else {
                c
            }
        })
        .filter(|c| is_plain(*c))
        .collect();
    let flat = flat.trim();
    if flat.is_empty() {
        return "`-`".into();
    }
    let longest = flat.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if flat.starts_with('`') || flat.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{flat}{pad}{fence}")
}

/// One list item: `- **override**, `2026-12-05 16:36Z`, by Ana: `what` (why: `…`)`.
fn item(d: &Deviation) -> String {
    let when = d.when.as_ref().map_or_else(
        || "time not recorded".to_string(),
        |t| {
            t.at.with_timezone(&chrono::Utc)
                .format("%Y-%m-%d %H:%MZ")
                .to_string()
        },
    );
    let why = if d.why.trim().is_empty() {
        "no reason given".to_string()
    } else {
        format!("why: {}", md_code(&d.why))
    };
    format!(
        "- **{}**, {}, by {}: {}; {why}.",
        md_text(&d.kind),
        md_code(&when),
        md_text(&d.who),
        md_code(&d.what)
    )
}

/// The section, heading included.
pub fn section(deviations: &[Deviation]) -> String {
    let mut out = format!("## {HEADING}\n\n");
    if deviations.is_empty() {
        out.push_str(NONE_NOTE);
        out.push('\n');
        return out;
    }
    // No count: a number in prose is checked against the measurements, and this is none.
    out.push_str(
        "The run recorded these departures from the plan fixed at Verification Planning, oldest first, each with who decided and why.\n\n",
    );
    for d in deviations {
        out.push_str(&item(d));
        out.push('\n');
    }
    out
}

fn is_heading(line: &str) -> Option<(usize, &str)> {
    let level = line.chars().take_while(|c| *c == '#').count();
    (level > 0 && line[level..].starts_with(' ')).then(|| (level, line[level..].trim()))
}

/// `paper` with the section in place: any section of that name is replaced (a reviser may
/// have reworded it; the list comes from the run, not the model), inserted before the
/// Conclusion, else at the end.
pub fn with_section(paper: &str, deviations: &[Deviation]) -> String {
    let lines: Vec<&str> = paper.lines().collect();
    let mut kept: Vec<&str> = Vec::with_capacity(lines.len());
    let mut skipping: Option<usize> = None;
    for l in &lines {
        if let Some((level, title)) = is_heading(l) {
            if skipping.is_some_and(|s| level <= s) {
                skipping = None;
            }
            if title.eq_ignore_ascii_case(HEADING) {
                skipping = Some(level);
                continue;
            }
        }
        if skipping.is_none() {
            kept.push(l);
        }
    }
    while kept.last().is_some_and(|l| l.trim().is_empty()) {
        kept.pop();
    }
    let at = kept
        .iter()
        .position(|l| is_heading(l).is_some_and(|(_, t)| t.eq_ignore_ascii_case("conclusion")));
    let section = section(deviations);
    let mut out = match at {
        Some(i) => format!(
            "{}\n\n{section}\n{}",
            kept[..i].join("\n").trim_end(),
            kept[i..].join("\n")
        ),
        None => format!("{}\n\n{section}", kept.join("\n")),
    };
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(kind: &str, who: &str, what: &str, why: &str) -> Deviation {
        Deviation {
            kind: kind.into(),
            what: what.into(),
            who: who.into(),
            why: why.into(),
            when: crate::vsa::timestamp::Timestamp::parse("2026-12-05T16:36:55Z"),
        }
    }

    #[test]
    fn an_empty_record_says_so_and_the_section_sits_before_the_conclusion() {
        let paper = "# T\n\n## Results\n\nr\n\n## Conclusion\n\nc\n";
        let out = with_section(paper, &[]);
        assert_eq!(
            out,
            format!(
                "# T\n\n## Results\n\nr\n\n## {HEADING}\n\n{NONE_NOTE}\n\n## Conclusion\n\nc\n"
            )
        );
        // Applied again (the refinement does), it is replaced, not repeated.
        let d = [dev("override", "ana", "Pivot → Proceed", "the finding")];
        let again = with_section(&out, &d);
        assert_eq!(again.matches(HEADING).count(), 1, "{again}");
        assert!(!again.contains(NONE_NOTE));
        assert!(again.contains(
            "- **override**, `2026-12-05 16:36Z`, by ana: `Pivot → Proceed`; why: `the finding`."
        ));
        assert!(again.find(HEADING) < again.find("## Conclusion"));
        // No conclusion: at the end.
        let end = with_section("# T\n\ntext", &d);
        assert!(end.trim_end().ends_with("why: `the finding`."), "{end}");
    }

    #[test]
    fn typed_text_stays_text_in_markdown() {
        let evil = "*x* [l](http://e) ![i](a.png) <b>&amp; `c` # h | t \\ $m$ {#set}";
        let md = section(&[dev("reset", evil, evil, "``a`` b`")]);
        let parsed: String = pulldown_cmark::Parser::new(&md)
            .filter_map(|e| match e {
                pulldown_cmark::Event::Text(t) | pulldown_cmark::Event::Code(t) => {
                    Some(t.to_string())
                }
                _ => None,
            })
            .collect();
        // Every typed character reads back: as text (the name) and as code (what, why).
        assert!(parsed.contains(&format!("by {evil}: ")), "{parsed}");
        assert!(parsed.contains(evil), "{parsed}");
        assert!(parsed.contains("``a`` b`"), "{parsed}");
        let events: Vec<_> = pulldown_cmark::Parser::new(&md).collect();
        assert!(!events.iter().any(|e| matches!(
            e,
            pulldown_cmark::Event::Start(
                pulldown_cmark::Tag::Link { .. }
                    | pulldown_cmark::Tag::Image { .. }
                    | pulldown_cmark::Tag::Emphasis
            ) | pulldown_cmark::Event::Html(_)
                | pulldown_cmark::Event::InlineHtml(_)
        )));
        let headings = events.iter().filter(|e| {
            matches!(
                e,
                pulldown_cmark::Event::Start(pulldown_cmark::Tag::Heading { .. })
            )
        });
        assert_eq!(headings.count(), 1, "the section's own heading only");
        assert_eq!(md_code("\u{1b}[2Jx\ny"), "`[2Jx y`");
    }

    /// Text and code of `md`'s events, each kind joined.
    fn read_back(md: &str) -> (String, String) {
        let (mut text, mut code) = (String::new(), String::new());
        for e in pulldown_cmark::Parser::new(md) {
            match e {
                pulldown_cmark::Event::Text(t) => text.push_str(&t),
                pulldown_cmark::Event::Code(c) => code.push_str(&c),
                _ => {}
            }
        }
        (text, code)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// Any printable text reads back as written: a name as Markdown text, a reason as a
        /// code span; nothing of it becomes markup.
        #[test]
        fn any_text_reads_back_as_written(s in "\\PC{0,60}") {
            let (text, code) = read_back(&format!("by {}: {}", md_text(&s), md_code(&s)));
            proptest::prop_assert_eq!(text, format!("by {s}: "));
            let want = if s.trim().is_empty() { "-" } else { s.trim() };
            proptest::prop_assert_eq!(code, want);
        }
    }
}
