//! The Independent Controller's next step at a stage end (YouRA §3.3, Algorithm 1): with
//! PHASE_COMPLETE it names the stage that follows and, when a hypothesis loop ends or
//! Verification Planning opens it, the sub-hypothesis to take next. The lifecycle's order
//! and the gates bound the choice: [`legal`] lists the steps the completed one allows (read
//! from the VSA as the completion leaves it), [`bound`] takes a named step among them or
//! vetoes it with its reason, and the rule's own step is taken instead.
//!
//! | the controller names | outcome |
//! |---|---|
//! | nothing | the rule's step (file order) |
//! | a legal step | taken; a sub-hypothesis choice is written as `workflow.next_hypothesis` |
//! | a stage the order or the gates do not allow (a skip, a step back, a loop left mid-way) | vetoed: the rule's step |
//! | a sub-hypothesis that is not ready (prerequisites, finished, in flight) | vetoed: the rule's step |
//! | no stage at all (`Phase 9`) | vetoed: the rule's step |
//!
//! A step back is recovery's business (redesign, reset), decided after a failed gate with
//! the pivot budget and SAGE's clamp; a completed stage never reopens one.

use super::progress::{self, Step};
use crate::stage::Stage;
use crate::vsa::model::Vsa;
use crate::yaml::Document;

/// What the controller named with PHASE_COMPLETE, as it wrote it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Named {
    pub stage: Option<String>,
    pub hypothesis: Option<String>,
}

impl Named {
    pub fn is_empty(&self) -> bool {
        self.stage.is_none() && self.hypothesis.is_none()
    }
}

/// Whether completing `done` hands the loop to a sub-hypothesis of the controller's choice:
/// Verification Planning opens the loop, Coding & Validation ends one hypothesis's turn.
/// Mid-loop, the hypothesis's own next stage is the only step.
pub(crate) fn opens_loop(done: &Step) -> bool {
    matches!(
        done,
        Step::Stage(Stage::VerificationPlanning) | Step::Hypothesis(Stage::CodingValidation, _)
    )
}

/// The steps completing `done` allows, the rule's own first; `after` is the VSA as the
/// completion leaves it, `busy` the sub-hypotheses with experiments in flight.
pub fn legal(after_doc: &Document, after: &Vsa, done: &Step, busy: &[&str]) -> Vec<Step> {
    let rule = progress::next_besides(after_doc, after, busy);
    let mut out = vec![rule.clone()];
    if opens_loop(done) && matches!(rule, Step::Hypothesis(..)) {
        for h in progress::candidates(after, busy) {
            let s = Step::Hypothesis(progress::open_loop_stage(after_doc, h), h.to_string());
            if !out.contains(&s) {
                out.push(s);
            }
        }
    }
    out
}

/// The options as the controller's prompt lists them, one a line.
pub fn options(legal: &[Step]) -> String {
    legal
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (stage, h) = match s {
                Step::Stage(st) => (st.name().to_string(), String::new()),
                Step::Hypothesis(st, h) => (
                    st.name().to_string(),
                    format!(", \"next_hypothesis\": \"{h}\""),
                ),
                Step::Done => ("END".to_string(), String::new()),
            };
            let rule = if i == 0 {
                " (the lifecycle's order)"
            } else {
                ""
            };
            format!(
                "- {{\"next_stage\": \"{stage}\"{h}}}: {}{rule}",
                s.describe()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn stage_of(raw: &str) -> Option<Option<Stage>> {
    let t = raw.trim();
    let lower = t.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "end" | "done" | "none" | "the end of the lifecycle"
    ) {
        return Some(None);
    }
    Stage::ALL
        .into_iter()
        .find(|s| s.key() == lower)
        .or_else(|| Stage::parse(t))
        .map(Some)
}

/// The step taken, and the veto's reason when the named one was refused.
pub fn bound(named: &Named, legal: &[Step]) -> (Step, Option<String>) {
    let rule = legal.first().cloned().unwrap_or(Step::Done);
    let raw_stage = named
        .stage
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let raw_h = named
        .hypothesis
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let Some(raw_stage) = raw_stage else {
        // A sub-hypothesis alone names the loop's step for it.
        return match raw_h {
            None => (rule, None),
            Some(h) => match legal.iter().find(|s| s.hypothesis() == Some(h)) {
                Some(s) => (s.clone(), None),
                None => (
                    rule.clone(),
                    Some(refused(&format!("sub-hypothesis `{h}`"), &rule, legal)),
                ),
            },
        };
    };
    let Some(stage) = stage_of(raw_stage) else {
        return (
            rule.clone(),
            Some(format!(
                "next stage `{raw_stage}` names no stage of the lifecycle; the run goes on with {}",
                rule.describe()
            )),
        );
    };
    let fits: Vec<&Step> = legal.iter().filter(|s| s.stage() == stage).collect();
    let pick = match raw_h {
        Some(h) => fits.iter().find(|s| s.hypothesis() == Some(h)).copied(),
        None => fits.iter().find(|s| **s == &rule).or(fits.first()).copied(),
    };
    match pick {
        Some(s) => (s.clone(), None),
        None => {
            let what = match (stage, raw_h) {
                (Some(st), Some(h)) => format!("{} for `{h}`", st.name()),
                (Some(st), None) => st.name().to_string(),
                (None, _) => "the end of the lifecycle".to_string(),
            };
            (rule.clone(), Some(refused(&what, &rule, legal)))
        }
    }
}

fn refused(what: &str, rule: &Step, legal: &[Step]) -> String {
    let others: Vec<String> = legal.iter().skip(1).map(Step::describe).collect();
    let also = if others.is_empty() {
        String::new()
    } else {
        format!(" (or {})", others.join(", "))
    };
    format!(
        "the controller named {what} next, which the lifecycle's order and the gates do not allow after this stage; the run goes on with {}{also}",
        rule.describe()
    )
}

#[cfg(test)]
#[path = "next_choice_tests.rs"]
mod tests;
