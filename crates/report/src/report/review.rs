//! `paper/review/sanitizer_report.md`: every replacement the sanitizer made and every
//! unverified prose number, for the reviewer who reads the sanitized paper.

use super::registry::{Origin, Registry};
use super::sanitize::SanitizeReport;

/// A table cell's text with pipes escaped, on one line.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Render the report; pure.
pub fn sanitizer_report(
    paper: &str,
    s: &SanitizeReport,
    registry: &Registry,
    tolerance: f64,
) -> String {
    let origin = match &registry.origin {
        Origin::Measured { files } if files.is_empty() => "no measured results".to_string(),
        Origin::Measured { files } => format!("measured results ({})", files.join(", ")),
        Origin::Loaded { file } => format!("loaded from {file}"),
    };
    let mut out = format!(
        "# Sanitizer report\n\nPaper: `{paper}` · tolerance {}% relative · registry: {} values, {origin}\n\n\
         {} table numbers checked, {} replaced with `---`; {} prose numbers checked, {} unverified; \
         {} state the claim their context names, {} name no claim (verified against any measured value, weaker), \
         {} state values the run declared (thresholds, seeds, config, dataset sizes).\n",
        (tolerance * 1000.0).round() / 10.0,
        registry.len(),
        s.table_numbers,
        s.replacements.len(),
        s.prose_numbers,
        s.unverified_prose.len(),
        s.bound.len(),
        s.unbound.len(),
        s.declared_numbers,
    );
    out.push_str(&format!("\n## Replacements ({})\n\n", s.replacements.len()));
    if !s.replacements.is_empty() {
        out.push_str("| line:col | original | cell | replaced | reason |\n|---|---|---|---|---|\n");
    }
    for r in &s.replacements {
        out.push_str(&format!(
            "| {}:{} | {} | {} | {} | {} |\n",
            r.line,
            r.column,
            cell(&r.original),
            cell(&r.cell),
            if r.whole_cell { "cell" } else { "number" },
            cell(&r.reason)
        ));
    }
    out.push_str(&format!(
        "\n## Unverified prose numbers ({}), not replaced\n\n",
        s.unverified_prose.len()
    ));
    for u in &s.unverified_prose {
        let near = u.nearest.as_ref().map_or(String::new(), |n| {
            format!(
                " (nearest {} = {})",
                n.key,
                super::registry::format_value(n.value)
            )
        });
        let wrong = u.wrong_claim.as_ref().map_or(String::new(), |wc| {
            format!(" — {}", super::sanitize::wrong_claim_reason(wc))
        });
        out.push_str(&format!(
            "- {}:{} `{}` in “{}”{near}{wrong}\n",
            u.line, u.column, u.number, u.context
        ));
    }
    out.push_str(&format!(
        "\n## Numbers that name no claim ({}), verified against any measured value\n\n",
        s.unbound.len()
    ));
    for n in &s.unbound {
        out.push_str(&format!(
            "- {}:{} `{}` matches {}\n",
            n.line, n.column, n.number, n.key
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::registry::Entry;
    use crate::report::sanitize::sanitize;

    #[test]
    fn lists_every_replacement_and_prose_number() {
        let registry = Registry {
            entries: vec![Entry::new("acc".into(), 0.91)],
            ..Registry::empty()
        };
        let md = "See 0.5 here.\n\n| m | acc |\n|---|---|\n| a | 0.7 |\n| b | 0.91 ± 0.4 |\n";
        let s = sanitize(md, &registry, 0.01);
        let text = sanitizer_report("paper/06_paper.md", &s, &registry, 0.01);
        assert!(text.contains("tolerance 1% relative"), "{text}");
        assert!(text.contains("## Replacements (2)"), "{text}");
        assert!(text.contains("| 5:7 | 0.7 | 0.7 | cell |"), "{text}");
        assert!(
            text.contains("| 6:14 | 0.4 | 0.91 ± 0.4 | number |"),
            "{text}"
        );
        assert!(
            text.contains("- 1:5 `0.5` in “See 0.5 here.” (nearest acc = 0.91)"),
            "{text}"
        );
    }
}
