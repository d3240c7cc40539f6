//! How many claims the run tested, and the correction across them (issue 40 item 5): a
//! sentence the paper's Method carries, built from the VSA's gates. With intervals, Holm's
//! correction of the claims' one-sided p-values (`evidence::holm`) says whether each PASS
//! holds at a family-wise 1 − confidence; with one measurement per gate there is no p-value
//! to correct, and the paper says so.

use crate::evidence::holm;
use crate::vsa::store::Snapshot;
use crate::yaml::Node;

/// One decided criterion as the VSA's `gate.evidence` holds it.
#[derive(Debug, Clone, PartialEq)]
struct Claim {
    label: String,
    verdict: String,
    p: Option<f64>,
}

fn num(n: &Node, k: &str) -> Option<f64> {
    n.get(k)?.as_scalar()?.as_f64()
}

fn text(n: &Node, k: &str) -> Option<String> {
    n.get(k)?.as_scalar().map(|s| s.text.clone())
}

/// The claims behind the run's judged gates, in plan order: `(hypothesis, evidence entries)`.
fn claims(snap: &Snapshot) -> (usize, Vec<Claim>) {
    let mut judged = 0;
    let mut out = Vec::new();
    let root = snap.doc.root.as_ref();
    for h in &snap.vsa.sub_hypotheses {
        if h.gate.result.is_none() {
            continue;
        }
        judged += 1;
        let list = root
            .and_then(|r| {
                r.get("sub_hypotheses")?
                    .get(&h.id)?
                    .get("gate")?
                    .get("evidence")
            })
            .and_then(Node::as_seq)
            .unwrap_or_default();
        for e in list {
            let metric = text(e, "metric").unwrap_or_default();
            let op = text(e, "op").and_then(|o| o.parse::<crate::plan::Op>().ok());
            let p = match (
                op,
                num(e, "threshold"),
                num(e, "mean"),
                num(e, "lo"),
                num(e, "hi"),
            ) {
                (Some(op), Some(t), Some(m), Some(lo), Some(hi)) => holm::p_value(
                    op,
                    t,
                    m,
                    lo,
                    hi,
                    num(e, "n").map_or(0, |n| n.max(0.0) as usize),
                    num(e, "confidence").unwrap_or(0.95),
                ),
                _ => None,
            };
            out.push(Claim {
                label: format!("{} ({metric})", h.id),
                verdict: text(e, "verdict").unwrap_or_default(),
                p,
            });
        }
    }
    (judged, out)
}

/// A count as a reader writes it: words up to twelve (a bare digit in prose reads as a
/// measurement to `report check`).
fn count(n: usize) -> String {
    const WORDS: [&str; 13] = [
        "no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve",
    ];
    WORDS
        .get(n)
        .map_or_else(|| n.to_string(), |w| w.to_string())
}

/// The Method's sentence on multiple claims; `None` for fewer than two judged gates. It
/// carries no number of its own: which PASS holds under Holm's correction is the finding,
/// and the p-values behind it are computed from the intervals the paper reports.
pub fn note(snap: &Snapshot, confidence: f64) -> Option<String> {
    let (judged, claims) = claims(snap);
    if judged < 2 {
        return None;
    }
    let alpha = 1.0 - confidence;
    let tested: Vec<&Claim> = claims.iter().filter(|c| c.p.is_some()).collect();
    if tested.len() < 2 {
        return Some(format!(
            "Multiple claims: {} gates were judged, each on one measurement without an \
             interval, so no correction for testing several claims could be made; some of \
             them may hold by chance.",
            count(judged)
        ));
    }
    let ps: Vec<f64> = tested.iter().filter_map(|c| c.p).collect();
    let adj = holm::holm(&ps);
    let each: Vec<String> = tested
        .iter()
        .zip(&adj)
        .map(|(c, a)| {
            let holds = match (c.verdict.as_str(), *a <= alpha) {
                ("PASS", true) => "holds",
                ("PASS", false) => "does not hold after the correction",
                _ => "was not a pass",
            };
            format!("{} {holds}", c.label)
        })
        .collect();
    Some(format!(
        "Multiple claims: {} claims were tested, each decided on its own confidence interval; \
         with Holm's step-down correction of their one-sided p-values the family-wise error \
         stays at one minus the run's confidence: {}.",
        count(tested.len()),
        each.join("; ")
    ))
}
