//! The Gates pane's order: sub-hypotheses as a DAG, each after its prerequisites with its
//! depth. Pure, no drawing: the pane (`panes::gates`), the commands that act on the selected
//! sub-hypothesis and the clipboard's `y` read the same rows, so the selection means the same
//! sub-hypothesis everywhere and no command calls a renderer.

use std::collections::HashMap;

use crate::vsa::model::GateEvidence;
use crate::vsa::{SubHypothesis, Vsa};

/// The verdict word an interval judgement shows: PASS, FAIL, INCONCLUSIVE, or `?` when the
/// VSA holds none of them.
pub fn verdict_word(e: &GateEvidence) -> &str {
    e.verdict.as_ref().map_or("?", |v| v.as_str())
}

/// One criterion's interval as the Gates pane and the escalation card show it, safe for the
/// terminal (`term::escape`: the metric name and the card are the VSA's, anyone's text).
/// The verdict leads, so a narrow pane that clips the line still shows it:
/// `INCONCLUSIVE accuracy: 0.936 ± 0.008, n 5, 95% CI 0.928–0.944 vs ≥ 0.92`.
pub(crate) fn interval_line(e: &GateEvidence) -> String {
    safe(&format!(
        "{} {}: {}",
        verdict_word(e),
        e.quantity(),
        e.card_line()
    ))
}

/// The verdict and the card alone, for a line under the criterion it judges.
pub(crate) fn interval_card(e: &GateEvidence) -> String {
    safe(&format!("{} {}", verdict_word(e), e.card_line()))
}

fn safe(line: &str) -> String {
    crate::term::escape(&line.replace(['\n', '\r'], " ")).into_owned()
}

/// Hypotheses in DAG order with their depth: each appears after all its prerequisites,
/// under the last of them; cycles and unknown prerequisites fall back to file order.
pub(crate) fn dag_rows(vsa: &Vsa) -> Vec<(usize, &SubHypothesis)> {
    let hs = &vsa.sub_hypotheses;
    let index: HashMap<&str, usize> = hs
        .iter()
        .enumerate()
        .map(|(i, h)| (h.id.as_str(), i))
        .collect();
    let prereqs: Vec<Vec<usize>> = hs
        .iter()
        .map(|h| {
            h.prerequisites
                .iter()
                .filter_map(|p| index.get(p.as_str()).copied())
                .collect()
        })
        .collect();
    // A node hangs under the last of its known prerequisites.
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); hs.len()];
    for (i, ps) in prereqs.iter().enumerate() {
        if let Some(&last) = ps.last() {
            children[last].push(i);
        }
    }
    let mut placed = vec![false; hs.len()];
    let mut out = Vec::with_capacity(hs.len());
    let roots = (0..hs.len())
        .filter(|&i| prereqs[i].is_empty())
        .chain(0..hs.len());
    for root in roots {
        if placed[root] {
            continue;
        }
        // Depth-first, iteratively: a long chain of prerequisites must not exhaust the stack.
        let mut stack = vec![(root, 0usize)];
        while let Some((i, depth)) = stack.pop() {
            if placed[i] {
                continue;
            }
            placed[i] = true;
            out.push((depth, &hs[i]));
            for &c in children[i].iter().rev() {
                if !placed[c] && prereqs[c].iter().all(|&p| placed[p]) {
                    stack.push((c, depth + 1));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vsa::enums::HypothesisStatus;
    use crate::vsa::model::Gate;

    fn h(id: &str, pre: &[&str]) -> SubHypothesis {
        SubHypothesis {
            id: id.into(),
            kind: None,
            statement: None,
            status: HypothesisStatus::NotStarted,
            gate: Gate::default(),
            prerequisites: pre.iter().map(|s| s.to_string()).collect(),
            post_hoc: false,
            confirmation_seeds: None,
            line: 1,
        }
    }

    #[test]
    fn an_interval_line_names_its_quantity_card_and_verdict_as_text() {
        use crate::vsa::enums::GateResult;
        let e = |metric: &str, baseline: Option<&str>, card: &str, v: Option<GateResult>| {
            GateEvidence {
                metric: Some(metric.into()),
                baseline: baseline.map(str::to_string),
                card: Some(card.into()),
                verdict: v,
                ..GateEvidence::default()
            }
        };
        let table = [
            (
                e(
                    "accuracy",
                    None,
                    "0.936 ± 0.008, n 5, 95% CI 0.928–0.944 vs ≥ 0.92",
                    Some(GateResult::Inconclusive),
                ),
                "INCONCLUSIVE accuracy: 0.936 ± 0.008, n 5, 95% CI 0.928–0.944 vs ≥ 0.92",
            ),
            (
                e(
                    "accuracy",
                    Some("accuracy_lda"),
                    "0.021 ± 0.005, n 5",
                    Some(GateResult::Pass),
                ),
                "PASS accuracy - accuracy_lda: 0.021 ± 0.005, n 5",
            ),
            (
                e(
                    "acc\u{1b}[2J{x}\u{202e}",
                    None,
                    "0.5\nforged line\u{7}",
                    None,
                ),
                "? acc\\u001b[2J{x}\\u202e: 0.5 forged line\\u0007",
            ),
        ];
        for (ev, want) in table {
            assert_eq!(interval_line(&ev), want);
        }
        let ev = e("a", None, "0.5\u{1b}]52;c;x\u{7}", Some(GateResult::Fail));
        assert_eq!(interval_card(&ev), "FAIL 0.5\\u001b]52;c;x\\u0007");
    }

    #[test]
    fn rows_follow_the_dag_and_survive_cycles_and_long_chains() {
        let vsa = Vsa {
            sub_hypotheses: vec![
                h("c", &["a", "b"]),
                h("a", &[]),
                h("b", &["a"]),
                h("x", &["y"]),
                h("y", &["x"]),
                h("z", &["gone"]),
            ],
            ..Vsa::default()
        };
        let rows: Vec<(usize, &str)> = dag_rows(&vsa)
            .into_iter()
            .map(|(d, h)| (d, h.id.as_str()))
            .collect();
        assert_eq!(
            rows,
            [(0, "a"), (1, "b"), (2, "c"), (0, "z"), (0, "x"), (1, "y")]
        );
        let chain: Vec<SubHypothesis> = (0..5000)
            .map(|i| {
                if i == 0 {
                    h("n0", &[])
                } else {
                    h(&format!("n{i}"), &[&format!("n{}", i - 1)])
                }
            })
            .collect();
        let vsa = Vsa {
            sub_hypotheses: chain,
            ..Vsa::default()
        };
        assert_eq!(dag_rows(&vsa).last().map(|(d, _)| *d), Some(4999));
    }
}
