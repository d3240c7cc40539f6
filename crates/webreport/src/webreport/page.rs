//! The page: a [`Report`] as one HTML document. The head carries the style inline and a
//! Content-Security-Policy that lets the file load nothing and run nothing — a second
//! guard behind the escaping, should a string ever slip through unescaped.

use super::Report;
use super::escape::text;
use super::sections;

/// The sections, in page order: (anchor, heading).
pub(crate) const SECTIONS: [(&str, &str); 10] = [
    ("summary", "Summary"),
    ("lifecycle", "Lifecycle"),
    ("gates", "Gates"),
    ("cards", "Run cards"),
    ("plan", "Plan tree"),
    ("escalations", "Escalations"),
    ("deviations", "Deviations from the plan"),
    ("charts", "Metric charts"),
    ("memory", "Memory records"),
    ("paper", "Paper"),
];

const STYLE: &str = "
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1em 2em;color:#1b1b1b}
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:2px solid #ddd;padding-top:.6em}
nav a{margin-right:1em}table{border-collapse:collapse;margin:.5em 0;width:100%}
td,th{border:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f4f4f4}.pass{color:#176f2c;font-weight:600}.fail{color:#b3261e;font-weight:600}
.muted{color:#666}.wait{background:#fff4ce;border:1px solid #e0b000;padding:.5em}
.inconclusive{color:#7a3e9d;font-weight:600;font-style:italic}.missing{color:#b3261e}figure{margin:1em 0}svg{max-width:100%;height:auto}
pre{background:#f6f6f6;padding:.5em;overflow-x:auto}.paper{border-left:4px solid #ddd;padding-left:1em}
dl.kv{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}dl.kv dt{font-weight:600}
.two{display:grid;grid-template-columns:1fr 1fr;gap:1em}h4{margin:.3em 0}
";

/// The document.
pub fn render(r: &Report) -> String {
    let title = r
        .summary
        .project
        .as_deref()
        .map(|p| format!("youra report: {p}"))
        .unwrap_or_else(|| "youra report".into());
    let mut out = String::with_capacity(64 * 1024);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; img-src data:\">\n",
    );
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str(&format!("<title>{}</title>\n", text(&title)));
    out.push_str(&format!("<style>{STYLE}</style>\n</head>\n<body>\n"));
    out.push_str(&format!("<h1>{}</h1>\n", text(&title)));
    out.push_str(&format!(
        "<p class=\"muted\">Run <code>{}</code>, report written {}. Every value below is read \
         from the run's files; the page loads nothing from elsewhere.</p>\n",
        text(&r.run),
        text(&r.generated_at)
    ));
    out.push_str("<nav>");
    for (anchor, heading) in SECTIONS {
        out.push_str(&format!("<a href=\"#{anchor}\">{heading}</a>"));
    }
    out.push_str("</nav>\n");
    for (anchor, heading) in SECTIONS {
        out.push_str(&format!("<section id=\"{anchor}\">\n<h2>{heading}</h2>\n"));
        out.push_str(&match anchor {
            "summary" => sections::summary(r),
            "lifecycle" => sections::lifecycle(&r.lifecycle, r.lifecycle_from_history),
            "gates" => sections::gates(&r.gates),
            "cards" => super::run_cards::section(&r.run_cards),
            "plan" => sections::plan(&r.plan),
            "escalations" => sections::escalations(&r.escalations),
            "deviations" => super::deviations::section(&r.deviations),
            "charts" => sections::charts(&r.charts),
            "memory" => sections::memory(&r.memory),
            _ => sections::paper(r.paper.as_ref(), &r.charts),
        });
        out.push_str("</section>\n");
    }
    if !r.warnings.is_empty() {
        out.push_str("<section id=\"warnings\">\n<h2>Read with warnings</h2>\n<ul>\n");
        for w in &r.warnings {
            out.push_str(&format!("<li>{}</li>\n", text(w)));
        }
        out.push_str("</ul>\n</section>\n");
    }
    out.push_str("</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::webreport::{
        CriterionRow, EscalationRow, GateRow, MemoryRow, Paper, PlanRow, StageRow, Summary,
    };

    const EVIL: &str = "<script>alert(1)</script>\"'&\u{202e}\u{1b}]52;c;x\u{7}";

    /// A report whose every run-derived string is hostile.
    fn hostile() -> Report {
        let e = || EVIL.to_string();
        Report {
            run: e(),
            generated_at: e(),
            summary: Summary {
                project: Some(e()),
                topic: Some(e()),
                hypothesis: Some(e()),
                stop_reason: Some(e()),
                ..Summary::default()
            },
            lifecycle: vec![StageRow {
                stage: e(),
                hypothesis: Some(e()),
                started: e(),
                ended: None,
                seconds: None,
                waited: None,
                outcome: e(),
                detail: Some(e()),
            }],
            lifecycle_from_history: false,
            gates: vec![GateRow {
                id: e(),
                statement: Some(e()),
                status: e(),
                result: Some(e()),
                criteria: vec![CriterionRow {
                    metric: e(),
                    required: e(),
                    measured: Some(e()),
                    met: Some(false),
                }],
                failed_checks: vec![e()],
                ..GateRow::default()
            }],
            plan: vec![PlanRow {
                id: e(),
                status: e(),
                summary: e(),
                ..PlanRow::default()
            }],
            escalations: vec![EscalationRow {
                id: e(),
                reason: Some(e()),
                grounds: vec![e()],
                waiting: true,
                ..EscalationRow::default()
            }],
            charts: Vec::new(),
            memory: vec![MemoryRow {
                id: e(),
                kind: e(),
                title: Some(e()),
                lessons: vec![e()],
                ..MemoryRow::default()
            }],
            paper: Some(Paper {
                file: e(),
                title: Some(e()),
                markdown: format!("# {EVIL}\n\n{EVIL}\n\n[x](javascript:alert(1))\n"),
                ground_truth: e(),
                findings: Vec::new(),
            }),
            deviations: vec![crate::vsa::deviation::Deviation {
                kind: e(),
                what: e(),
                who: e(),
                why: e(),
                when: None,
            }],
            run_cards: vec![crate::paper::appendix_card::AttemptCard {
                hypothesis: e(),
                file: e(),
                record: Some(1),
                sha256: None,
                card: Err(e()),
            }],
            warnings: vec![e()],
        }
    }

    #[test]
    fn nothing_from_the_run_becomes_markup() {
        let html = render(&hostile());
        assert!(!html.contains("<script"), "a script element");
        assert!(!html.contains('\u{202e}') && !html.contains('\u{1b}') && !html.contains('\u{7}'));
        assert!(html.contains("<p>x</p>") && !html.contains("href=\"javascript"));
        // Every hostile string arrived, escaped: the summary, 5 table cells, the paper…
        let escaped = "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;]52;c;x";
        assert!(
            html.matches(escaped).count() >= 20,
            "{}",
            html.matches(escaped).count()
        );
        assert!(html.contains("content=\"default-src 'none'; style-src 'unsafe-inline'"));
    }

    #[test]
    fn every_section_is_on_the_page_with_its_anchor() {
        let html = render(&Report::default());
        for (anchor, heading) in SECTIONS {
            assert!(html.contains(&format!("<section id=\"{anchor}\">\n<h2>{heading}</h2>")));
            assert!(html.contains(&format!("<a href=\"#{anchor}\">")));
        }
        assert!(
            html.contains("No paper yet"),
            "an empty run says what is missing"
        );
        assert!(html.contains("No escalation was raised."));
    }
}
