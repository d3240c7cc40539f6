//! The report's "Deviations from the plan": the list the paper's section gives
//! (`vsa::deviation`, rendered for Markdown by `paper::deviations`), as a table. Names and
//! reasons are typed by people, so every cell goes through [`text`], the page's one door.

use super::escape::text;
use crate::vsa::deviation::Deviation;

/// The section's body: a table oldest first, or the paper's sentence for an empty record.
pub fn section(rows: &[Deviation]) -> String {
    if rows.is_empty() {
        return format!(
            "<p class=\"muted\">{}</p>\n",
            text(crate::paper::deviations::NONE_NOTE)
        );
    }
    let mut out = String::from(
        "<table>\n<tr><th>When</th><th>Kind</th><th>Who</th><th>What changed</th><th>Why</th></tr>\n",
    );
    for d in rows {
        let when = d.when.as_ref().map_or_else(
            || "not recorded".to_string(),
            |t| {
                t.at.with_timezone(&chrono::Utc)
                    .format("%Y-%m-%d %H:%M UTC")
                    .to_string()
            },
        );
        let why = if d.why.trim().is_empty() {
            "(no reason given)"
        } else {
            d.why.as_str()
        };
        out.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            text(&when),
            text(&d.kind),
            text(&d.who),
            text(&d.what),
            text(why)
        ));
    }
    out.push_str("</table>\n");
    out
}

/// Who has answered a waiting escalation when a second name is required: `approved: 1 of 2,
/// by ana — waits for a second researcher`; `None` when nobody has.
pub(super) fn first_answers(e: &crate::vsa::escalation::Escalation) -> Option<String> {
    let given: Vec<String> = e
        .approvals
        .iter()
        .map(|a| {
            let answer = match &a.action {
                Some(act) => format!("override with {act}"),
                None => a.verdict_text.clone().unwrap_or_else(|| "an answer".into()),
            };
            format!(
                "{answer}: 1 of 2, by {}",
                a.by.as_deref().unwrap_or("someone")
            )
        })
        .collect();
    (!given.is_empty()).then(|| format!("{} — waits for a second researcher", given.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_reasons_are_text_and_an_empty_record_says_so() {
        let evil = "<script>x</script>\"'&\u{202e}\u{1b}[2J";
        let html = section(&[Deviation {
            kind: "override".into(),
            what: evil.into(),
            who: evil.into(),
            why: evil.into(),
            when: None,
        }]);
        assert!(!html.contains("<script") && !html.contains('\u{1b}'));
        assert!(!html.contains('\u{202e}'));
        assert_eq!(html.matches("&lt;script&gt;x&lt;/script&gt;").count(), 3);
        assert!(section(&[]).contains("No deviation from the plan was recorded"));
    }
}
