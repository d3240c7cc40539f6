//! Reflective Memory condensed for prompts: this run's records (negative knowledge the run
//! found itself) apart from the lessons imported from earlier runs (`youra memory import`),
//! each with its source run. Markup is stripped here, so prompts carry the lessons' words,
//! not their `**`. Pure: the stages load the records and put both texts in their templates.

use crate::rundir::memory::MemoryRecord;
use crate::rundir::plain::plain_text;

/// The two digests a stage template can show; `(none)` when empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest {
    /// Records this run wrote.
    pub this_run: String,
    /// Records imported into the run's prior, one per line with their source run.
    pub earlier_runs: String,
}

/// A record's kind, hypothesis and lessons (else root causes), three at most, plain text.
fn line(r: &MemoryRecord) -> (&'static str, &str, String) {
    let items = if r.lessons.is_empty() {
        &r.root_causes
    } else {
        &r.lessons
    };
    let said: Vec<String> = items
        .iter()
        .take(3)
        .map(|l| plain_text(l).replace('\n', " "))
        .collect();
    (
        r.kind.as_str(),
        r.hypothesis.as_deref().unwrap_or("-"),
        said.join("; "),
    )
}

/// Both digests of `records`.
pub fn digest(records: &[MemoryRecord]) -> Digest {
    let mut this_run = Vec::new();
    let mut earlier = Vec::new();
    for r in records {
        let (kind, h, said) = line(r);
        match &r.provenance {
            None => this_run.push(format!("- {kind} {h}: {said}")),
            Some(p) => {
                let run = if p.source_name.is_empty() {
                    &p.source_run
                } else {
                    &p.source_name
                };
                earlier.push(format!(
                    "- from run {run} ({}), {kind} {h}: {said}",
                    p.original_id
                ))
            }
        }
    }
    let text = |v: Vec<String>| {
        if v.is_empty() {
            "(none)".to_string()
        } else {
            v.join("\n")
        }
    };
    Digest {
        this_run: text(this_run),
        earlier_runs: text(earlier),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rundir::memory::parse_record;
    use std::path::Path;

    #[test]
    fn imported_records_are_apart_with_their_run_and_without_markup() {
        let own = parse_record(
            "failure_h-e1_run1",
            Path::new("x"),
            "**Hypothesis:** h-e1\n## Lessons Learned\n1. **Scale** the features\n",
        );
        let imported = parse_record(
            "prior/from-old/failure_h-e1_run1",
            Path::new("x"),
            "---\nimported_from: \"/runs/old\"\nimported_run: \"old\"\noriginal_id: \"failure_h-e1_run1\"\n---\n**Hypothesis:** h-e1\n## Root Cause Analysis\n1. **Unscaled** distance: `bill` wins\n",
        );
        let d = digest(&[own, imported]);
        assert_eq!(d.this_run, "- failure h-e1: Scale the features");
        assert_eq!(
            d.earlier_runs,
            "- from run old (failure_h-e1_run1), failure h-e1: Unscaled distance: bill wins"
        );
        assert_eq!(digest(&[]).earlier_runs, "(none)");
    }
}
