//! The paper's verdict words against the VSA: a table row that names a sub-hypothesis and
//! says its gate was met (`met`, `passed`, `supported`, `confirmed`, `validated`, `✓`) when
//! the VSA's gate for it is not a PASS — a FAIL, PARTIAL or INCONCLUSIVE (a post-hoc claim
//! measured once, repeats that could not decide), or never judged. The model writes the
//! table; the gate is youra's judgement, so the word is checked against it, never taken.
//!
//! Only the claiming direction is checked: a row that says `missed` for a gate that
//! finally passed describes an earlier attempt (the demo's "h-e1 (unscaled, first run)"),
//! and understating a result misleads no reader into believing it.

use crate::report::markdown;
use crate::vsa::enums::GateResult;
use crate::vsa::model::Vsa;

/// Words a whole table cell may be that claim the gate was met (compared lowercase, with
/// emphasis and a trailing full stop removed).
const MET: [&str; 10] = [
    "met",
    "pass",
    "passed",
    "supported",
    "confirmed",
    "validated",
    "holds",
    "held",
    "yes",
    "✓",
];

/// One row that claims more than the gate gives.
#[derive(Debug, Clone, PartialEq)]
pub struct Overclaim {
    /// 1-based line and column of the verdict cell.
    pub line: usize,
    pub column: usize,
    pub hypothesis: String,
    pub word: String,
    /// What the VSA says: the gate's result, else the hypothesis's status.
    pub gate: String,
}

impl Overclaim {
    pub fn message(&self) -> String {
        format!(
            "the table says “{}” for {}, whose gate is {} in the VSA: state what the gate \
             says (inconclusive, missed, partly met), not a pass",
            self.word, self.hypothesis, self.gate
        )
    }
}

/// The rows of `md`'s tables that say a gate was met where the VSA says it was not.
pub(crate) fn overclaims(vsa: &Vsa, md: &str) -> Vec<Overclaim> {
    let mut out = Vec::new();
    let mut offset = 0;
    for (i, line) in md.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += line.len();
        let row = line.trim_end_matches(['\n', '\r']);
        if !row.trim_start().starts_with('|') || markdown::is_delimiter_row(row) {
            continue;
        }
        let cells = markdown::cells(row, 0);
        let Some(first) = cells.first() else { continue };
        let Some(h) = named(vsa, &row[first.start..first.end]) else {
            continue;
        };
        let gate = match (&h.gate.result, h.gate.satisfied) {
            (Some(GateResult::Pass), _) | (None, Some(true)) => continue,
            (Some(r), _) => r.as_str().to_string(),
            (None, _) => format!("not judged (status {})", h.status.as_str()),
        };
        for c in &cells[1..] {
            let text = &row[c.start..c.end];
            let word = text
                .trim()
                .trim_matches(['*', '_', '`'])
                .trim_end_matches('.')
                .trim()
                .to_lowercase();
            if MET.contains(&word.as_str()) {
                out.push(Overclaim {
                    line: i + 1,
                    column: markdown::column(
                        md,
                        start,
                        start + c.start + (text.len() - text.trim_start().len()),
                    ),
                    hypothesis: h.id.clone(),
                    word: text.trim().to_string(),
                    gate: gate.clone(),
                });
            }
        }
    }
    out
}

/// The sub-hypothesis a row's first cell names: its first word (up to a space or `(`),
/// emphasis removed, is an id of the VSA.
fn named<'v>(vsa: &'v Vsa, cell: &str) -> Option<&'v crate::vsa::model::SubHypothesis> {
    let t = cell.trim().trim_start_matches(['*', '_', '`']);
    let id: String = t
        .chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, '(' | '*' | '_' | '`' | ':' | ','))
        .collect();
    vsa.sub_hypotheses.iter().find(|h| h.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vsa::enums::HypothesisStatus;
    use crate::vsa::model::{Gate, SubHypothesis};

    fn vsa(gates: &[(&str, Option<GateResult>)]) -> Vsa {
        Vsa {
            sub_hypotheses: gates
                .iter()
                .map(|(id, result)| SubHypothesis {
                    id: id.to_string(),
                    kind: None,
                    statement: None,
                    status: HypothesisStatus::InProgress,
                    gate: Gate {
                        result: result.clone(),
                        ..Gate::default()
                    },
                    prerequisites: Vec::new(),
                    post_hoc: false,
                    confirmation_seeds: None,
                    line: 1,
                })
                .collect(),
            ..Vsa::default()
        }
    }

    #[test]
    fn a_met_word_for_a_gate_that_is_not_a_pass_is_found() {
        let v = vsa(&[
            ("h-e1", Some(GateResult::Pass)),
            ("h-m1", Some(GateResult::Fail)),
            ("h-m2", Some(GateResult::Inconclusive)),
            ("h-c1", None),
        ]);
        let md = "# P\n\n| Sub-hypothesis | Metric | Value | Gate |\n|---|---|---|---|\n\
                  | h-e1 (unscaled, first run) | accuracy | 0.8832 | missed |\n\
                  | h-e1 | accuracy | 0.9356 | met |\n\
                  | h-m1 | gain | 0.0323 | missed |\n\
                  | h-m2 | gain | 0.0323 | **met** |\n\
                  | h-m2 (post hoc) | gain | 0.0323 | inconclusive (post hoc) |\n\
                  | h-c1 | lowest accuracy | 0.96 | Supported. |\n\
                  | h-m1 | note | the gate met its bar once | x |\n\
                  | h-x9 | accuracy | 0.5 | met |\n";
        let found = overclaims(&v, md);
        let got: Vec<(usize, &str, &str, &str)> = found
            .iter()
            .map(|o| {
                (
                    o.line,
                    o.hypothesis.as_str(),
                    o.word.as_str(),
                    o.gate.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (8, "h-m2", "**met**", "INCONCLUSIVE"),
                (10, "h-c1", "Supported.", "not judged (status IN_PROGRESS)"),
            ]
        );
        assert_eq!(found[0].column, 26, "the verdict word's column");
        assert!(found[0].message().contains("INCONCLUSIVE in the VSA"));
    }

    #[test]
    fn prose_and_tables_without_ids_are_left_alone() {
        let v = vsa(&[("h-m2", Some(GateResult::Fail))]);
        assert!(overclaims(&v, "h-m2 met its gate in prose.\n| a | met |\n").is_empty());
    }
}
