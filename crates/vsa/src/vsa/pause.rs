//! Why a run is paused: a breakpoint before a stage, a `step` that ran its one stage, or a
//! `pause` the researcher asked for. The engine writes each pause with the reason
//! [`PauseCause::reason`] words, and readers (the Lifecycle pane, `youra status`) get the
//! cause back from the history entry of that write with [`PauseCause::of`]: the wording has
//! one owner, so a reader never guesses from free text it did not write.

use super::Vsa;
use super::enums::WorkflowStatus;
use crate::stage::Stage;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PauseCause {
    /// Before this stage, which `workflow.breakpoints` marks.
    Breakpoint(Stage),
    /// A conditional breakpoint (`after gate FAIL`, `budget 50%` …): what tripped it, as
    /// the engine wrote it ("after a gate's FAIL: h-e1 0.8832 does not satisfy …").
    Condition(String),
    /// A `step` ran its stage (or its stage's recovery) and paused after it; `after` is the
    /// step as the engine describes it ("Coding & Validation (Phase 4) for h-e1").
    Stepped { after: String },
    /// An applied `pause` directive; the history entry's reason names it.
    Requested(String),
    /// Another write set PAUSED (a hand edit, an older youra): its reason as written.
    Other(Option<String>),
}

const BREAKPOINT: &str = "breakpoint before ";
const CONDITION: &str = "breakpoint: ";
const STEPPED: &str = "step: paused after ";
/// The history event of a directive's effect (`engine::intake::mutation`).
const DIRECTIVE_EVENT: &str = "steer_applied";

impl PauseCause {
    /// The history reason the engine writes with the pause.
    pub fn reason(&self) -> String {
        match self {
            PauseCause::Breakpoint(s) => format!("{BREAKPOINT}{} ({})", s.name(), s.label()),
            PauseCause::Condition(what) => format!("{CONDITION}{what}"),
            PauseCause::Stepped { after } => format!("{STEPPED}{after}"),
            PauseCause::Requested(r) => r.clone(),
            PauseCause::Other(r) => r.clone().unwrap_or_default(),
        }
    }

    /// One line for a reader: why the engine stopped and what releases it.
    pub fn describe(&self) -> String {
        match self {
            PauseCause::Breakpoint(s) => format!("breakpoint before {}", s.name()),
            PauseCause::Condition(what) => format!("breakpoint {what}"),
            PauseCause::Stepped { after } => format!("stepping: paused after {after}"),
            PauseCause::Requested(_) => "paused by a pause directive".into(),
            PauseCause::Other(Some(r)) => format!("paused: {r}"),
            PauseCause::Other(None) => "paused".into(),
        }
    }

    /// The cause of the pause the run is in: the newest history entry that set
    /// `workflow.status` to PAUSED. `None` when the run is not paused.
    pub fn of(vsa: &Vsa) -> Option<PauseCause> {
        if vsa.workflow.status != Some(WorkflowStatus::Paused) {
            return None;
        }
        let entry = vsa.history.iter().rev().find(|h| {
            h.path.as_deref() == Some("workflow.status")
                && h.new
                    .as_deref()
                    .is_some_and(|n| WorkflowStatus::read(n) == WorkflowStatus::Paused)
        });
        let Some(entry) = entry else {
            return Some(PauseCause::Other(None));
        };
        Some(Self::parse(entry.event.as_deref(), entry.reason.as_deref()))
    }

    /// The cause a pause's history entry (its `event` and `reason`) records.
    pub fn parse(event: Option<&str>, reason: Option<&str>) -> PauseCause {
        let r = reason.unwrap_or_default();
        if let Some(rest) = r.strip_prefix(BREAKPOINT) {
            let name = rest.split(" (").next().unwrap_or(rest);
            if let Some(stage) = Stage::parse(name) {
                return PauseCause::Breakpoint(stage);
            }
        }
        // The engine's own words for a conditional stop (a directive's reason names its
        // directive, so this prefix is the engine's).
        if let Some(what) = r
            .strip_prefix(CONDITION)
            .filter(|_| event == Some("engine"))
        {
            return PauseCause::Condition(what.to_string());
        }
        if let Some(after) = r.strip_prefix(STEPPED) {
            return PauseCause::Stepped {
                after: after.to_string(),
            };
        }
        if event == Some(DIRECTIVE_EVENT) {
            return PauseCause::Requested(r.to_string());
        }
        PauseCause::Other(reason.map(str::to_string))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_the_engine_writes_reads_back_as_its_cause() {
        for cause in [
            PauseCause::Breakpoint(Stage::CodingValidation),
            PauseCause::Breakpoint(Stage::ProblemScoping),
            PauseCause::Stepped {
                after: "Coding & Validation (Phase 4) for h-e1".into(),
            },
        ] {
            assert_eq!(
                PauseCause::parse(Some("engine"), Some(&cause.reason())),
                cause
            );
        }
    }

    #[test]
    fn causes_from_history_entries() {
        let table: [(Option<&str>, Option<&str>, PauseCause); 7] = [
            (
                Some("engine"),
                Some("breakpoint: after a gate's FAIL: h-e1 FAIL: 0.88 misses"),
                PauseCause::Condition("after a gate's FAIL: h-e1 FAIL: 0.88 misses".into()),
            ),
            // The same words from a hand edit are not the engine's stop.
            (
                Some("field_edit"),
                Some("breakpoint: after lunch"),
                PauseCause::Other(Some("breakpoint: after lunch".into())),
            ),
            (
                Some("engine"),
                Some("breakpoint before Coding & Validation (Phase 4)"),
                PauseCause::Breakpoint(Stage::CodingValidation),
            ),
            (
                Some("steer_applied"),
                Some("directive d-3 (pause): paused at the next stage boundary"),
                PauseCause::Requested(
                    "directive d-3 (pause): paused at the next stage boundary".into(),
                ),
            ),
            (
                Some("field_edit"),
                Some("lunch"),
                PauseCause::Other(Some("lunch".into())),
            ),
            (None, None, PauseCause::Other(None)),
            // A breakpoint reason naming no stage is not a breakpoint.
            (
                Some("engine"),
                Some("breakpoint before lunch"),
                PauseCause::Other(Some("breakpoint before lunch".into())),
            ),
        ];
        for (event, reason, want) in table {
            assert_eq!(PauseCause::parse(event, reason), want, "{reason:?}");
        }
        assert_eq!(
            PauseCause::Breakpoint(Stage::CodingValidation).describe(),
            "breakpoint before Coding & Validation"
        );
    }

    #[test]
    fn only_a_paused_run_has_a_cause_and_the_newest_pause_counts() {
        let doc = crate::yaml::parse(
            b"workflow:\n  status: PAUSED\nhistory:\n- event: engine\n  path: workflow.status\n  new: PAUSED\n  reason: breakpoint before Problem Scoping (Phase 0)\n- event: engine\n  path: workflow.status\n  new: PAUSED\n  reason: 'step: paused after Literature Grounding (Phase 1)'\n- event: engine\n  path: workflow.current_phase\n  new: Phase 2A\n",
        )
        .unwrap();
        let (vsa, _) = crate::vsa::read(&doc);
        assert_eq!(
            PauseCause::of(&vsa),
            Some(PauseCause::Stepped {
                after: "Literature Grounding (Phase 1)".into()
            })
        );
        let doc = crate::yaml::parse(b"workflow:\n  status: ACTIVE\n").unwrap();
        assert_eq!(PauseCause::of(&crate::vsa::read(&doc).0), None);
    }
}
