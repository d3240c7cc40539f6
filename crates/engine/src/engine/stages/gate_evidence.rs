//! The gate's evidence as the VSA keeps it (issue 40): one map per criterion under
//! `sub_hypotheses.<h>.gate.evidence`, beside the criteria it judges, so the TUI, `youra
//! status`, the report and the paper read the interval youra computed, never the
//! experiment's own summary.
//!
//! ```yaml
//! evidence:
//!   - metric: accuracy
//!     op: '>='
//!     threshold: 0.92
//!     verdict: INCONCLUSIVE
//!     n: 25
//!     repeats: 5
//!     mean: 0.934
//!     sd: 0.0271
//!     lo: 0.9038
//!     hi: 0.9641
//!     confidence: 0.95
//!     method: corrected t
//!     card: 0.934 ± 0.030, n 25 (5 seeds), 95% CI 0.904–0.964 vs ≥ 0.92
//!     why: 'INCONCLUSIVE: the 95% interval 0.9038–0.9641 holds the threshold of ≥ 0.92; …'
//! ```
//!
//! A gain adds `baseline` and both arms' means and intervals (`arm_mean`, `arm_lo`, …).

use crate::engine::gates::{CriterionEvidence, GateOutcome};
use crate::engine::yamlout::text;
use crate::vsa::store::Snapshot;
use crate::yaml::{NewNode, Style, format_scalar};

fn num(x: f64) -> NewNode {
    NewNode::Scalar(format!("{}", (x * 1e6).round() / 1e6))
}

/// One criterion's evidence as a VSA map.
pub fn node(e: &CriterionEvidence) -> NewNode {
    let s = &e.judged.summary;
    let c = &e.criterion;
    let mut m: Vec<(String, NewNode)> = vec![("metric".into(), text(&c.metric))];
    if let Some(b) = &c.baseline {
        m.push(("baseline".into(), text(b)));
    }
    m.extend([
        (
            "op".into(),
            NewNode::Scalar(format_scalar(&c.op.to_string(), Style::SingleQuoted)),
        ),
        ("threshold".into(), num(c.value)),
        (
            "verdict".into(),
            NewNode::Scalar(e.judged.decision.verdict.to_string()),
        ),
        ("n".into(), NewNode::Scalar(s.n.to_string())),
        ("repeats".into(), NewNode::Scalar(s.repeats.to_string())),
        ("mean".into(), num(s.mean)),
        ("sd".into(), num(s.sd)),
        ("lo".into(), num(s.lo)),
        ("hi".into(), num(s.hi)),
        ("confidence".into(), num(s.confidence)),
        ("method".into(), text(s.method.as_str())),
        ("card".into(), text(&e.card())),
        ("why".into(), text(&e.judged.decision.why(s, c.op, c.value))),
    ]);
    if let Some((arm, base)) = &e.judged.arms {
        for (k, x) in [
            ("arm_mean", arm.mean),
            ("arm_lo", arm.lo),
            ("arm_hi", arm.hi),
            ("baseline_mean", base.mean),
            ("baseline_lo", base.lo),
            ("baseline_hi", base.hi),
        ] {
            m.push((k.into(), num(x)));
        }
    }
    NewNode::Map(m)
}

/// Whether the gate of `id` holds an earlier judgement's evidence (to be replaced, even by
/// none).
pub fn present(snap: &Snapshot, id: &str) -> bool {
    super::fields::hypothesis_node(snap, id, &["gate", "evidence"]).is_some()
}

/// The stop of a MUST_WORK gate repeats could not decide: what the intervals say, and what
/// the researcher can do.
pub fn stop_reason(id: &str, gate: &GateOutcome, rel: &str) -> String {
    let what = gate
        .undecided
        .iter()
        .map(|c| format!("{}: {}", c.criterion, c.actual))
        .collect::<Vec<_>>()
        .join("; ");
    format!(
        "{id}: MUST_WORK gate INCONCLUSIVE ({what}); more repeats cannot decide it within \
         [evidence] max_repeats. Never recorded as a pass: decide — raise [evidence] \
         max_repeats, change the design or the criterion (youra vsa set), or override the \
         gate — then `youra steer <run> resume`. See {rel}"
    )
}
