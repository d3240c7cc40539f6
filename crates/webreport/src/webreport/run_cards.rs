//! The report's "Run cards" section (issue 40, item 6): one collapsible per attempt with
//! what reproduces it — the facts the paper's appendix lists (`paper::appendix_card::facts`),
//! the data files with their sha256 (a link named with its target, never followed) and the
//! package list. Every string is the experiment's or the machine's and goes through
//! [`text`].

use super::escape::text;
use crate::paper::appendix_card::{AttemptCard, DataKind, data_line, facts};

/// The section's body.
pub fn section(cards: &[AttemptCard]) -> String {
    if cards.is_empty() {
        return "<p class=\"muted\">No attempt has a run card (the run's experiments ran before youra recorded them, or none ran).</p>\n".into();
    }
    let mut out = String::from(
        "<p class=\"muted\">What reproduces each attempt, as youra recorded it when the job ended; \
         a card youra did not collect is not shown.</p>\n",
    );
    for a in cards {
        let title = match a.record {
            Some(n) => format!("{}, attempt {n}", a.hypothesis),
            None => a.hypothesis.clone(),
        };
        let c = match &a.card {
            Ok(c) => c,
            Err(why) => {
                out.push_str(&format!(
                    "<details><summary>{} <span class=\"missing\">no card shown</span></summary>\n<p>{}</p>\n</details>\n",
                    text(&title),
                    text(why)
                ));
                continue;
            }
        };
        out.push_str(&format!(
            "<details><summary>{} — <code>{}</code></summary>\n<dl class=\"kv\">\n",
            text(&title),
            text(&crate::paper::appendix_card::command_line(&c.argv))
        ));
        for (k, v) in facts(c) {
            out.push_str(&format!("<dt>{}</dt><dd>{}</dd>\n", text(k), text(&v)));
        }
        out.push_str(&format!(
            "<dt>Card</dt><dd><code>{}</code>, sha256 <code>{}</code></dd>\n</dl>\n",
            text(&a.file),
            text(a.sha256.as_deref().unwrap_or("?"))
        ));
        if c.data.is_empty() {
            out.push_str("<p class=\"muted\">No data folder.</p>\n");
        } else {
            out.push_str("<h4>Data</h4>\n<ul>\n");
            for d in &c.data {
                let class = if d.kind == DataKind::Link {
                    " class=\"missing\""
                } else {
                    ""
                };
                out.push_str(&format!(
                    "<li{class}><code>{}</code></li>\n",
                    text(&data_line(d))
                ));
            }
            out.push_str("</ul>\n");
        }
        let p = &c.interpreter.packages;
        out.push_str(&format!(
            "<details><summary>{} packages</summary>\n<pre>{}</pre>\n</details>\n</details>\n",
            p.len(),
            text(&p.join("\n"))
        ));
    }
    out
}
