//! Evidence Check's rule (YouRA Appendix A: "for each prediction, whether the executed result
//! supports it (supported, partially_supported, refuted, or inconclusive)"), pure: each
//! prediction of the main hypothesis rests on the sub-hypotheses Verification Planning linked
//! to it (`sub_hypotheses.<h>.predictions`), and their gates decide which verdicts the
//! evidence allows. The model words the verdict; one outside [`allowed`] is refused, as
//! `engine/gates.rs` refuses a gate the metrics do not bear out.

use crate::vsa::enums::{GateResult, GateType, HypothesisStatus};
use crate::vsa::model::SubHypothesis;
use crate::yaml::Node;

/// A prediction's verdict (YouRA's four words).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    Supported,
    PartiallySupported,
    Refuted,
    Inconclusive,
}

impl Verdict {
    pub const ALL: [Verdict; 4] = [
        Verdict::Supported,
        Verdict::PartiallySupported,
        Verdict::Refuted,
        Verdict::Inconclusive,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Supported => "supported",
            Verdict::PartiallySupported => "partially_supported",
            Verdict::Refuted => "refuted",
            Verdict::Inconclusive => "inconclusive",
        }
    }

    /// The word as written, case and separators aside (`Partially supported`); `partial`
    /// is YouRA's short form. Anything else is no verdict.
    pub fn parse(s: &str) -> Option<Verdict> {
        let w = s.trim().to_ascii_lowercase().replace([' ', '-'], "_");
        match w.as_str() {
            "partial" => Some(Verdict::PartiallySupported),
            _ => Verdict::ALL.into_iter().find(|v| v.as_str() == w),
        }
    }
}

/// What one sub-hypothesis showed, read off its gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Passed,
    PartlyPassed,
    /// The gate failed on measured metrics.
    Failed,
    /// No measured result: not run, skipped, blocked, superseded, or failed before anything
    /// was measured.
    NotMeasured,
}

impl Outcome {
    pub fn of(status: &HypothesisStatus, result: Option<&GateResult>) -> Outcome {
        use HypothesisStatus as S;
        if matches!(status, S::Superseded | S::CascadeSuperseded) {
            return Outcome::NotMeasured;
        }
        match result {
            Some(GateResult::Pass) => Outcome::Passed,
            Some(GateResult::Partial) => Outcome::PartlyPassed,
            Some(GateResult::Fail) if matches!(status, S::Failed | S::Partial) => Outcome::Failed,
            _ => Outcome::NotMeasured,
        }
    }
}

/// One sub-hypothesis a prediction rests on, with its measured values.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Basis {
    pub id: String,
    pub must_work: bool,
    pub outcome: Outcome,
    /// `metric = value` as the gate recorded them.
    pub measured: Vec<String>,
}

impl Basis {
    pub fn of(h: &SubHypothesis) -> Basis {
        let mut measured: Vec<String> = h
            .gate
            .measured
            .iter()
            .map(|(m, v)| format!("{m} = {}", crate::vsa::model::shown_value(v)))
            .collect();
        if measured.is_empty() {
            measured = h
                .gate
                .failed_checks
                .iter()
                .filter_map(|c| {
                    Some(format!(
                        "{} = {}",
                        c.criterion.as_deref()?,
                        c.actual.as_deref()?
                    ))
                })
                .collect();
        }
        Basis {
            id: h.id.clone(),
            // A gate of unknown type counts as MUST_WORK, as it blocks like one.
            must_work: !matches!(h.gate.gate_type, Some(GateType::ShouldWork)),
            outcome: Outcome::of(&h.status, h.gate.result.as_ref()),
            measured,
        }
    }

    /// `h-e1 (MUST_WORK PASS: accuracy = 0.9356)`.
    pub fn describe(&self) -> String {
        let gate = if self.must_work {
            "MUST_WORK"
        } else {
            "SHOULD_WORK"
        };
        let result = match self.outcome {
            Outcome::Passed => "PASS",
            Outcome::PartlyPassed => "PARTIAL",
            Outcome::Failed => "FAIL",
            Outcome::NotMeasured => "not measured",
        };
        if self.measured.is_empty() {
            format!("{} ({gate} {result})", self.id)
        } else {
            format!(
                "{} ({gate} {result}: {})",
                self.id,
                self.measured.join(", ")
            )
        }
    }
}

/// A prediction of the main hypothesis and what it rests on.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    pub id: String,
    pub statement: String,
    pub rests_on: Vec<Basis>,
}

/// The verdicts the evidence allows, strongest claim first:
/// - nothing rests on it, or nothing it rests on was measured: inconclusive only;
/// - a MUST_WORK gate it rests on failed: refuted or inconclusive (a failure may be the
///   method's, YouRA's stress-tester warns), never any support;
/// - only SHOULD_WORK gates failed: refuted or inconclusive, and partially supported when
///   another gate it rests on passed;
/// - every gate passed: supported or partially supported (a claim may be weaker than the
///   evidence, never "inconclusive" when everything was measured and passed);
/// - measured, none failed, some PARTIAL: partially supported;
/// - some passed, others not measured: partially supported or inconclusive.
pub fn allowed(rests_on: &[Basis]) -> Vec<Verdict> {
    use Verdict::*;
    let any = |o: Outcome| rests_on.iter().any(|b| b.outcome == o);
    let must_failed = rests_on
        .iter()
        .any(|b| b.must_work && b.outcome == Outcome::Failed);
    let support = any(Outcome::Passed) || any(Outcome::PartlyPassed);
    if rests_on.is_empty() || rests_on.iter().all(|b| b.outcome == Outcome::NotMeasured) {
        vec![Inconclusive]
    } else if must_failed {
        vec![Refuted, Inconclusive]
    } else if any(Outcome::Failed) {
        if support {
            vec![PartiallySupported, Refuted, Inconclusive]
        } else {
            vec![Refuted, Inconclusive]
        }
    } else if any(Outcome::NotMeasured) {
        vec![PartiallySupported, Inconclusive]
    } else if any(Outcome::PartlyPassed) {
        vec![PartiallySupported]
    } else {
        vec![Supported, PartiallySupported]
    }
}

/// A prediction judged: the verdict the model claimed within what the evidence allows, and
/// its explanation.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    pub prediction: Prediction,
    pub allowed: Vec<Verdict>,
    pub verdict: Verdict,
    pub explanation: String,
}

/// Bind the model's claims (prediction id, verdict word, explanation) to the evidence:
/// every prediction needs one claim, and its verdict must be allowed. Every problem is
/// listed, so one resume can fix them all.
pub fn bind(
    predictions: &[Prediction],
    claims: &[(String, String, String)],
) -> Result<Vec<Judged>, Vec<String>> {
    let mut problems = Vec::new();
    let mut out = Vec::new();
    for (id, _, _) in claims {
        if !predictions.iter().any(|p| p.id.eq_ignore_ascii_case(id)) {
            problems.push(format!(
                "{id} is not a prediction of the main hypothesis (they are {})",
                ids(predictions)
            ));
        }
    }
    for p in predictions {
        let allowed = allowed(&p.rests_on);
        let Some((_, word, explanation)) = claims
            .iter()
            .find(|(id, ..)| id.eq_ignore_ascii_case(&p.id))
        else {
            problems.push(format!("{} has no verdict", p.id));
            continue;
        };
        let Some(verdict) = Verdict::parse(word) else {
            problems.push(format!("{}: \"{word}\" is not a verdict", p.id));
            continue;
        };
        if !allowed.contains(&verdict) {
            problems.push(format!(
                "{}: {} is not what the evidence allows ({}); rests on {}",
                p.id,
                verdict.as_str(),
                words(&allowed),
                rests_on_text(&p.rests_on)
            ));
            continue;
        }
        out.push(Judged {
            prediction: p.clone(),
            allowed,
            verdict,
            explanation: explanation.trim().to_string(),
        });
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

fn ids(predictions: &[Prediction]) -> String {
    predictions
        .iter()
        .map(|p| p.id.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `supported or partially_supported`.
pub fn words(verdicts: &[Verdict]) -> String {
    verdicts
        .iter()
        .map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join(" or ")
}

/// What a prediction rests on, in words (`no sub-hypothesis tests it` when nothing).
pub(crate) fn rests_on_text(rests_on: &[Basis]) -> String {
    if rests_on.is_empty() {
        return "no sub-hypothesis (none was planned to test it)".into();
    }
    rests_on
        .iter()
        .map(Basis::describe)
        .collect::<Vec<_>>()
        .join("; ")
}

/// The main hypothesis's predictions as the VSA holds them (`main_hypothesis.predictions`:
/// items `{id, statement}`, or plain strings numbered P1…), with their sub-hypotheses.
pub fn read(root: Option<&Node>, subs: &[SubHypothesis]) -> Vec<Prediction> {
    let Some(items) = root
        .and_then(|r| r.get("main_hypothesis"))
        .and_then(|m| m.get("predictions"))
        .and_then(Node::as_seq)
    else {
        return Vec::new();
    };
    let listed: Vec<(String, String)> = items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| match item.as_str() {
            Some(s) => Some((format!("P{}", i + 1), s.trim().to_string())),
            None => Some((
                item.get("id")
                    .and_then(Node::as_str)
                    .map_or(format!("P{}", i + 1), |s| s.trim().to_string()),
                item.get("statement")
                    .and_then(Node::as_str)?
                    .trim()
                    .to_string(),
            )),
        })
        .collect();
    with_links(&listed, root, subs)
}

/// Predictions (id, statement) with the sub-hypotheses whose `predictions` list names them.
pub fn with_links(
    listed: &[(String, String)],
    root: Option<&Node>,
    subs: &[SubHypothesis],
) -> Vec<Prediction> {
    let links = |h: &str| -> Vec<String> {
        root.and_then(|r| r.get("sub_hypotheses"))
            .and_then(|s| s.get(h))
            .and_then(|n| n.get("predictions"))
            .and_then(Node::as_seq)
            .map(|s| {
                s.iter()
                    .filter_map(Node::as_str)
                    .map(|p| p.trim().to_ascii_uppercase())
                    .collect()
            })
            .unwrap_or_default()
    };
    listed
        .iter()
        .map(|(id, statement)| Prediction {
            id: id.clone(),
            statement: statement.clone(),
            rests_on: subs
                .iter()
                .filter(|h| links(&h.id).contains(&id.to_ascii_uppercase()))
                .map(Basis::of)
                .collect(),
        })
        .collect()
}
