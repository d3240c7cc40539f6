//! Baselines (issue 40 item 4): where the plan asks for repeats, Experiment Design names, for
//! a MUST_WORK claim, at least one baseline measured on the same repeats — a trivial one and
//! the standard method the literature stage found — in a `## Baselines` section. youra keeps
//! their metric names in `sub_hypotheses.<h>.gate.baselines`, and Coding & Validation refuses
//! results whose rows lack one (`repeats::accept`), so the Results table can show each beside
//! the claim, and a "better than X" criterion (`baseline: X`) is decided on the paired
//! interval.

use crate::vsa::store::Snapshot;

/// The section Experiment Design adds where baselines are required.
pub(crate) const SECTION: &str = "Baselines";

/// What the design prompt asks for (`{{evidence}}`): nothing where one measurement decides.
pub(crate) fn prompt_text(repeats: usize, must_work: bool) -> String {
    if repeats <= 1 {
        return String::new();
    }
    let mut t = format!(
        "Each gate is decided on a confidence interval over {repeats} or more repeats (seeds, \
         and folds for cross-validation) that youra asks the experiment to run; say in the \
         Procedure what one repeat is."
    );
    if must_work {
        t.push_str(
            " Add a section `## Baselines` listing, one per line as `- <metric>: <what it is>`, \
             the baselines measured on the same repeats as the claim: at least a trivial one \
             (the majority class, a constant or random predictor, the untrained model) and the \
             standard method the related work names where there is one (e.g. \
             `- accuracy_majority: the majority class`, `- accuracy_lda: linear discriminant \
             analysis`). A claim to beat one is a criterion with `baseline: <its metric>`: the \
             gate then reads the paired difference.",
        );
    }
    t
}

/// The baseline metric names a `## Baselines` section lists: the first backticked word of a
/// `- ` line, else the text before its colon; a name that is not an identifier is skipped.
pub fn parse(section: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in section.lines() {
        let Some(item) = line
            .trim()
            .strip_prefix("- ")
            .or(line.trim().strip_prefix("* "))
        else {
            continue;
        };
        let name = match item.split('`').nth(1) {
            Some(inner) if item.starts_with('`') => inner,
            _ => item.split(':').next().unwrap_or(""),
        }
        .trim();
        let ok = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if ok && !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
    }
    out
}

/// The baselines Experiment Design recorded for `id`.
pub fn recorded(snap: &Snapshot, id: &str) -> Vec<String> {
    crate::vsa::model::gate_baselines(&snap.doc, id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_gives_metric_names_and_nothing_else() {
        let s = "Two baselines:\n- `accuracy_majority`: the majority class\n- accuracy_lda: LDA (Fisher 1936)\n\
                 * `accuracy_lda` again\n- the random forest: not a name\n- `rm -rf /`: hostile\n- x{y}: braces\n";
        assert_eq!(parse(s), vec!["accuracy_majority", "accuracy_lda"]);
        assert!(parse("no list here").is_empty());
        assert_eq!(prompt_text(1, true), "");
        assert!(prompt_text(5, true).contains("## Baselines"));
        assert!(!prompt_text(5, false).contains("## Baselines"));
    }
}
