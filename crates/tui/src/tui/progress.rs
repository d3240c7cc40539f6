//! YouRA's recorded progress, as the engine writes it while `youra tui --run` watches:
//! `phases.<stage_key>.status` for the lifecycle stages and each sub-hypothesis's
//! `experiment_design` / `implementation_planning` / `validation` status for the loop.
//! Read off the UI thread with the rest of the run. (`engine::progress` reads the same
//! fields to decide what runs next; the TUI and the engine never import each other, so the
//! few lines of reading are repeated here.)

use crate::stage::Stage;
use crate::vsa::enums::PhaseStatus;
use crate::yaml::{Document, Node};

/// The loop stages and the per-hypothesis field each records its status in, with the short
/// name the Lifecycle pane shows.
pub const LOOP: [(Stage, &str, &str); 3] = [
    (Stage::ExperimentDesign, "experiment_design", "design"),
    (
        Stage::ImplementationPlanning,
        "implementation_planning",
        "plan",
    ),
    (Stage::CodingValidation, "validation", "run"),
];

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Progress {
    /// Stages with a recorded `phases.<key>.status`, in lifecycle order.
    pub phases: Vec<(Stage, String)>,
    /// Sub-hypotheses with any loop status recorded: the id and one status per [`LOOP`] stage.
    pub loops: Vec<(String, [Option<String>; 3])>,
}

/// A recorded status that means the stage is behind the run.
pub fn is_done(status: &str) -> bool {
    PhaseStatus::read(status).is_done()
}

pub(crate) fn is_skipped(status: &str) -> bool {
    PhaseStatus::read(status) == PhaseStatus::Skipped
}

pub(crate) fn is_running(status: &str) -> bool {
    PhaseStatus::read(status) == PhaseStatus::InProgress
}

pub(crate) fn is_failed(status: &str) -> bool {
    PhaseStatus::read(status) == PhaseStatus::Failed
}

fn status_at(node: Option<&Node>) -> Option<String> {
    node?.get("status")?.as_str().map(str::to_string)
}

pub fn read(doc: &Document) -> Progress {
    let Some(root) = doc.root.as_ref() else {
        return Progress::default();
    };
    let phases = root.get("phases");
    let phases = Stage::ALL
        .iter()
        .filter_map(|s| Some((*s, status_at(phases?.get(s.key()))?)))
        .collect();
    let mut loops = Vec::new();
    if let Some(crate::yaml::NodeKind::Map(hyps)) = root.get("sub_hypotheses").map(|n| &n.kind) {
        for (id, h) in hyps {
            let statuses = LOOP.map(|(_, field, _)| status_at(h.get(field)));
            if let Some(id) = id.as_str().filter(|_| statuses.iter().any(Option::is_some)) {
                loops.push((id.to_string(), statuses));
            }
        }
    }
    Progress { phases, loops }
}

impl Progress {
    pub fn phase(&self, stage: Stage) -> Option<&str> {
        self.phases
            .iter()
            .find(|(s, _)| *s == stage)
            .map(|(_, st)| st.as_str())
    }

    /// A loop stage is behind the run when every hypothesis that records the loop has it done.
    pub(crate) fn loop_done(&self, stage: Stage) -> bool {
        let Some(i) = LOOP.iter().position(|(s, _, _)| *s == stage) else {
            return false;
        };
        !self.loops.is_empty()
            && self
                .loops
                .iter()
                .all(|(_, st)| st[i].as_deref().is_some_and(is_done))
    }

    pub fn is_empty(&self) -> bool {
        self.phases.is_empty() && self.loops.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_and_loop_statuses_are_read() {
        let doc = crate::yaml::parse(
            b"phases:\n  problem_scoping: {status: COMPLETED}\n  literature_grounding: {status: SKIPPED}\n  \
              hypothesis_debate: {status: NOT_STARTED}\nsub_hypotheses:\n  h-e1:\n    \
              experiment_design: {status: COMPLETED}\n    implementation_planning: {status: COMPLETED}\n  \
              h-m1:\n    status: READY\n",
        )
        .unwrap();
        let p = read(&doc);
        assert_eq!(p.phase(Stage::LiteratureGrounding), Some("SKIPPED"));
        assert_eq!(p.phase(Stage::EvidenceCheck), None);
        assert_eq!(p.loops.len(), 1, "h-m1 records no loop status");
        assert!(p.loop_done(Stage::ImplementationPlanning));
        assert!(!p.loop_done(Stage::CodingValidation));
        assert!(is_done("completed") && !is_done("NOT_STARTED"));
    }
}
