//! Where the run stands, read from the VSA alone (so a restarted engine resumes where the
//! last one stopped): YouRA's `phases.<key>.status` for the lifecycle stages, and each
//! sub-hypothesis's `experiment_design` / `implementation_planning` / `validation` status
//! for the hypothesis loop. Pure functions of the parsed file.

use crate::stage::Stage;
use crate::vsa::enums::PhaseStatus;
use crate::vsa::model::Vsa;
use crate::yaml::{Document, Node};

pub(crate) const BEFORE_LOOP: [Stage; 4] = [
    Stage::ProblemScoping,
    Stage::LiteratureGrounding,
    Stage::HypothesisDebate,
    Stage::VerificationPlanning,
];
pub const LOOP: [Stage; 3] = [
    Stage::ExperimentDesign,
    Stage::ImplementationPlanning,
    Stage::CodingValidation,
];
pub(crate) const AFTER_LOOP: [Stage; 4] = [
    Stage::EvidenceCheck,
    Stage::ManuscriptDrafting,
    Stage::FactReview,
    Stage::ManuscriptRefinement,
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Stage(Stage),
    Hypothesis(Stage, String),
    Done,
}

impl Step {
    pub fn stage(&self) -> Option<Stage> {
        match self {
            Step::Stage(s) | Step::Hypothesis(s, _) => Some(*s),
            Step::Done => None,
        }
    }

    pub fn hypothesis(&self) -> Option<&str> {
        match self {
            Step::Hypothesis(_, h) => Some(h),
            _ => None,
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Step::Stage(s) => format!("{} ({})", s.name(), s.label()),
            Step::Hypothesis(s, h) => format!("{} ({}) for {h}", s.name(), s.label()),
            Step::Done => "the end of the lifecycle".into(),
        }
    }
}

/// The per-hypothesis field YouRA records a loop stage's status in.
pub(crate) fn loop_field(stage: Stage) -> &'static str {
    match stage {
        Stage::ExperimentDesign => "experiment_design",
        Stage::ImplementationPlanning => "implementation_planning",
        _ => "validation",
    }
}

fn done(status: Option<&str>) -> bool {
    status.is_some_and(|s| PhaseStatus::read(s).is_done())
}

fn at<'a>(doc: &'a Document, path: &[&str]) -> Option<&'a Node> {
    path.iter().try_fold(doc.root.as_ref()?, |n, k| n.get(k))
}

pub(crate) fn phase_status(doc: &Document, stage: Stage) -> Option<String> {
    at(doc, &["phases", stage.key(), "status"])
        .and_then(Node::as_str)
        .map(str::to_string)
}

pub fn loop_status(doc: &Document, hypothesis: &str, stage: Stage) -> Option<String> {
    at(
        doc,
        &["sub_hypotheses", hypothesis, loop_field(stage), "status"],
    )
    .and_then(Node::as_str)
    .map(str::to_string)
}

fn round_at(doc: &Document, path: &[&str]) -> u32 {
    at(doc, path)
        .and_then(|n| n.as_scalar()?.as_i64())
        .map_or(0, |n| n.clamp(0, 999) as u32)
}

/// A step's status entry at `path` (`phases.<key>` or `sub_hypotheses.<h>.<field>`):
/// going back to NOT_STARTED counts one more `round`, so the re-run's recorded exchanges are
/// not confused with the earlier pass's (see [`round`]).
pub(crate) fn status_entry(
    doc: &Document,
    path: &str,
    status: PhaseStatus,
) -> crate::yaml::NewNode {
    use crate::yaml::NewNode;
    let keys: Vec<&str> = path.split('.').collect();
    let round = at(doc, &keys)
        .and_then(|n| n.get("round")?.as_scalar()?.as_i64())
        .unwrap_or(0)
        .max(0);
    let round = if status == PhaseStatus::NotStarted {
        round + 1
    } else {
        round
    };
    let at_now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    NewNode::Map(vec![
        ("status".into(), NewNode::Scalar(status.as_str().into())),
        ("round".into(), NewNode::Scalar(round.to_string())),
        (
            "at".into(),
            NewNode::Scalar(crate::yaml::format_scalar(
                &at_now,
                crate::yaml::Style::SingleQuoted,
            )),
        ),
    ])
}

/// How often recovery re-entered this step (`round` beside its status). A loop step also
/// counts the redesigns and resets before it (Verification Planning's round, × 1000): a
/// regenerated `h-e1` is not the old one, and its recordings must not be confused with it.
pub fn round(doc: &Document, step: &Step) -> u32 {
    match step {
        Step::Stage(s) => round_at(doc, &["phases", s.key(), "round"]),
        Step::Hypothesis(s, h) => {
            let epoch = round_at(doc, &["phases", Stage::VerificationPlanning.key(), "round"]);
            epoch * 1000 + round_at(doc, &["sub_hypotheses", h, loop_field(*s), "round"])
        }
        Step::Done => 0,
    }
}

/// The sub-hypothesis the loop works on next: the first in file order that is not finished
/// and whose prerequisites are all validated.
pub fn next_hypothesis(vsa: &Vsa) -> Option<&str> {
    next_hypothesis_besides(vsa, &[])
}

/// Every sub-hypothesis the loop could work on now ([`Vsa::ready_hypotheses`]).
pub fn ready_hypotheses(vsa: &Vsa) -> Vec<&str> {
    vsa.ready_hypotheses()
}

/// As [`next_hypothesis`], passing over those in `busy` (whose experiments run now).
pub(crate) fn next_hypothesis_besides<'a>(vsa: &'a Vsa, busy: &[&str]) -> Option<&'a str> {
    candidates(vsa, busy).into_iter().next()
}

/// Every sub-hypothesis the loop may take now, in file order: not finished, not in `busy`,
/// its prerequisites far enough along to let dependants start.
pub fn candidates<'a>(vsa: &'a Vsa, busy: &[&str]) -> Vec<&'a str> {
    use crate::vsa::enums::HypothesisStatus as S;
    vsa.sub_hypotheses
        .iter()
        .filter(|h| matches!(h.status, S::Ready | S::InProgress | S::NotStarted))
        .filter(|h| !busy.contains(&h.id.as_str()))
        .filter(|h| {
            h.prerequisites
                .iter()
                .all(|p| vsa.hypothesis(p).is_some_and(|x| x.lets_dependants_start()))
        })
        .map(|h| h.id.as_str())
        .collect()
}

/// The sub-hypothesis the Independent Controller chose to take next
/// (`workflow.next_hypothesis`, written with the completion that ended the previous loop),
/// while it is still one the loop may take; otherwise the file order decides.
fn chosen<'a>(doc: &Document, vsa: &'a Vsa, busy: &[&str]) -> Option<&'a str> {
    let want = at(doc, &["workflow", "next_hypothesis"])?.as_str()?;
    candidates(vsa, busy).into_iter().find(|h| *h == want)
}

/// The first loop stage `hypothesis` has not done (Coding & Validation once all are).
pub(crate) fn open_loop_stage(doc: &Document, hypothesis: &str) -> Stage {
    LOOP.iter()
        .find(|s| !done(loop_status(doc, hypothesis, **s).as_deref()))
        .copied()
        .unwrap_or(Stage::CodingValidation)
}

pub fn next(doc: &Document, vsa: &Vsa) -> Step {
    next_besides(doc, vsa, &[])
}

/// The next step when the sub-hypotheses in `busy` have experiments in flight: the loop
/// goes on with the next ready one in file order; past the loop only when none is busy
/// (the caller lands the flying ones first).
pub(crate) fn next_besides(doc: &Document, vsa: &Vsa, busy: &[&str]) -> Step {
    if let Some(s) = BEFORE_LOOP
        .iter()
        .find(|s| !done(phase_status(doc, **s).as_deref()))
    {
        return Step::Stage(*s);
    }
    if let Some(h) = chosen(doc, vsa, busy).or_else(|| next_hypothesis_besides(vsa, busy)) {
        return Step::Hypothesis(open_loop_stage(doc, h), h.to_string());
    }
    AFTER_LOOP
        .iter()
        .find(|s| !done(phase_status(doc, **s).as_deref()))
        .map_or(Step::Done, |s| Step::Stage(*s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(text: &str) -> Step {
        let doc = crate::yaml::parse(text.as_bytes()).unwrap();
        let vsa = crate::vsa::read(&doc).0;
        next(&doc, &vsa)
    }

    #[test]
    fn rounds_are_read_beside_the_status() {
        let doc = crate::yaml::parse(b"phases:\n  hypothesis_debate:\n    status: NOT_STARTED\n    round: 1\n  verification_planning: {status: NOT_STARTED, round: 2}\nsub_hypotheses:\n  h-e1:\n    validation: {status: NOT_STARTED, round: 3}\n").unwrap();
        assert_eq!(round(&doc, &Step::Stage(Stage::HypothesisDebate)), 1);
        assert_eq!(
            round(
                &doc,
                &Step::Hypothesis(Stage::CodingValidation, "h-e1".into())
            ),
            2003
        );
        assert_eq!(round(&doc, &Step::Stage(Stage::ProblemScoping)), 0);
    }

    #[test]
    fn stages_in_order_then_the_loop_then_the_paper() {
        assert_eq!(step("revision: 0\n"), Step::Stage(Stage::ProblemScoping));
        let before = "phases:\n  problem_scoping: {status: COMPLETED}\n  literature_grounding: {status: SKIPPED}\n";
        assert_eq!(step(before), Step::Stage(Stage::HypothesisDebate));
        let planned = "phases:\n  problem_scoping: {status: COMPLETED}\n  literature_grounding: {status: COMPLETED}\n  hypothesis_debate: {status: COMPLETED}\n  verification_planning: {status: COMPLETED}\n";
        let loop_ = format!(
            "{planned}sub_hypotheses:\n  h-e1:\n    status: VALIDATED\n    prerequisites: []\n  h-m1:\n    status: READY\n    prerequisites: [h-e1]\n    experiment_design: {{status: COMPLETED}}\n  h-m2:\n    status: NOT_STARTED\n    prerequisites: [h-m1]\n"
        );
        assert_eq!(
            step(&loop_),
            Step::Hypothesis(Stage::ImplementationPlanning, "h-m1".into())
        );
        let doc = crate::yaml::parse(loop_.as_bytes()).unwrap();
        let vsa = crate::vsa::read(&doc).0;
        assert_eq!(
            next_besides(&doc, &vsa, &["h-m1"]),
            Step::Stage(Stage::EvidenceCheck),
            "h-m2 waits for h-m1: nothing else is ready"
        );
        let chose = format!("{loop_}workflow:\n  next_hypothesis: h-m2\n");
        assert_eq!(
            step(&chose),
            Step::Hypothesis(Stage::ImplementationPlanning, "h-m1".into()),
            "h-m2 waits for h-m1: the controller's choice of it does not open it"
        );
        let both = loop_.replace("prerequisites: [h-m1]", "prerequisites: [h-e1]");
        let chose = format!("{both}workflow:\n  next_hypothesis: h-m2\n");
        assert_eq!(
            step(&chose),
            Step::Hypothesis(Stage::ExperimentDesign, "h-m2".into()),
            "both are ready: the controller's choice goes first"
        );
        let failed = loop_.replace("status: READY", "status: FAILED");
        assert_eq!(step(&failed), Step::Stage(Stage::EvidenceCheck));
        let all = format!(
            "{planned}  evidence_check: {{status: COMPLETED}}\n  manuscript_drafting: {{status: COMPLETED}}\n  fact_review: {{status: COMPLETED}}\n  manuscript_refinement: {{status: COMPLETED}}\n"
        );
        assert_eq!(step(&all), Step::Done);
    }
}
