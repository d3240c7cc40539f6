//! The steering verbs: their names, what target each takes, a one-line description for
//! help and completion, and whether a run's layout lets them work at all.

use std::fmt;
use std::str::FromStr;

use crate::rundir::Layout;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verb {
    Pause,
    Resume,
    Step,
    Retry,
    Redesign,
    Reset,
    Skip,
    Pin,
    Unpin,
    Veto,
    Unveto,
    Force,
    Edit,
    Budget,
    AlphaMax,
    Approve,
    Reject,
    Override,
    Breakpoint,
    Review,
}

/// What a verb acts on, so the CLI and the TUI's `:` line can check and complete it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetKind {
    /// No target (`pause`).
    None,
    /// A sub-hypothesis id of this run (`retry h-m1`).
    Hypothesis,
    /// A sub-hypothesis id, or nothing for the whole run (`reset`).
    OptionalHypothesis,
    /// A sub-hypothesis id or a stage (`skip h-m2`, `skip "Phase 6.5"`).
    HypothesisOrStage,
    /// A plan-tree node id (`pin n-3`).
    PlanNode,
    /// A plan-tree node id and a new plan text (`edit n-3 --plan-file p.md`).
    PlanNodeWithPlan,
    /// New plan-search budget totals (`budget tokens=1.5M,time=7200`).
    Budget,
    /// A number in (0, 100] (`alpha-max 3`).
    AlphaMax,
    /// A routing action (`override Design-Refine`).
    Action,
    /// A stage or a condition (`breakpoint "Phase 4"`, `break "once gate FAIL"`).
    Stage,
    /// The answer to an experiment waiting for review (`review approve`, `review edit main.py`).
    Review,
}

/// Why every verb is refused on a folder YouRA wrote itself.
pub const YOURA_FOLDER_REASON: &str = "this is a YouRA research folder: no youra engine runs it, \
     so steering directives would never be applied; VSA field edits (`youra vsa set`) still work";

impl Verb {
    pub const ALL: [Verb; 20] = [
        Verb::Pause,
        Verb::Resume,
        Verb::Step,
        Verb::Retry,
        Verb::Redesign,
        Verb::Reset,
        Verb::Skip,
        Verb::Pin,
        Verb::Unpin,
        Verb::Veto,
        Verb::Unveto,
        Verb::Force,
        Verb::Edit,
        Verb::Budget,
        Verb::AlphaMax,
        Verb::Approve,
        Verb::Reject,
        Verb::Override,
        Verb::Breakpoint,
        Verb::Review,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Verb::Pause => "pause",
            Verb::Resume => "resume",
            Verb::Step => "step",
            Verb::Retry => "retry",
            Verb::Redesign => "redesign",
            Verb::Reset => "reset",
            Verb::Skip => "skip",
            Verb::Pin => "pin",
            Verb::Unpin => "unpin",
            Verb::Veto => "veto",
            Verb::Unveto => "unveto",
            Verb::Force => "force",
            Verb::Edit => "edit",
            Verb::Budget => "budget",
            Verb::AlphaMax => "alpha-max",
            Verb::Approve => "approve",
            Verb::Reject => "reject",
            Verb::Override => "override",
            Verb::Breakpoint => "breakpoint",
            Verb::Review => "review",
        }
    }

    pub(crate) fn target_kind(self) -> TargetKind {
        match self {
            Verb::Pause | Verb::Resume | Verb::Step | Verb::Approve | Verb::Reject => {
                TargetKind::None
            }
            Verb::Retry | Verb::Redesign => TargetKind::Hypothesis,
            Verb::Reset => TargetKind::OptionalHypothesis,
            Verb::Skip => TargetKind::HypothesisOrStage,
            Verb::Pin | Verb::Unpin | Verb::Veto | Verb::Unveto | Verb::Force => {
                TargetKind::PlanNode
            }
            Verb::Edit => TargetKind::PlanNodeWithPlan,
            Verb::Budget => TargetKind::Budget,
            Verb::AlphaMax => TargetKind::AlphaMax,
            Verb::Override => TargetKind::Action,
            Verb::Breakpoint => TargetKind::Stage,
            Verb::Review => TargetKind::Review,
        }
    }

    /// The verb with its target, as typed: `retry <hypothesis>`.
    pub fn usage(self) -> String {
        let arg = match self.target_kind() {
            TargetKind::None => "",
            TargetKind::Hypothesis => " <hypothesis>",
            TargetKind::OptionalHypothesis => " [<hypothesis>]",
            TargetKind::HypothesisOrStage => " <hypothesis-or-stage>",
            TargetKind::PlanNode => " <plan-node>",
            TargetKind::PlanNodeWithPlan => " <plan-node> --plan-file <path>",
            TargetKind::Budget => " tokens=<n>[,time=<secs>]",
            TargetKind::AlphaMax => " <a>",
            TargetKind::Action => " <action>",
            TargetKind::Stage => " <stage-or-condition> [--off]",
            TargetKind::Review => " approve|reject|branch|edit <path> [--file <f>]",
        };
        format!("{}{arg}", self.name())
    }

    /// One line for help screens and completion.
    pub fn describe(self) -> &'static str {
        match self {
            Verb::Pause => "stop the engine at the next safe point",
            Verb::Resume => "continue a paused run, or a stopped one once its cause is fixed",
            Verb::Step => "run one stage, then pause again",
            Verb::Retry => "run a sub-hypothesis's experiment again",
            Verb::Redesign => "send a sub-hypothesis back to Hypothesis Debate (Phase 2A)",
            Verb::Reset => "restart from Problem Scoping (Phase 0), for the run or one hypothesis",
            Verb::Skip => "leave a sub-hypothesis or a stage out",
            Verb::Pin => "keep a plan-tree node from being pruned",
            Verb::Unpin => "remove a plan-tree node's pin",
            Verb::Veto => "never select a plan-tree node",
            Verb::Unveto => "lift a plan-tree node's veto",
            Verb::Force => "select a plan-tree node next",
            Verb::Edit => "replace an untested plan-tree node's plan with a file's text",
            Verb::Budget => "set the plan search's token (and time) budget; k/M suffixes",
            Verb::AlphaMax => "set α_max, the cap on selection greed, in (0, 100]",
            Verb::Approve => "accept the action the waiting escalation proposes",
            Verb::Reject => "refuse the action the waiting escalation proposes",
            Verb::Override => "answer the waiting escalation with another routing action",
            Verb::Breakpoint => {
                "pause before a stage, or on a condition: `after gate FAIL|INCONCLUSIVE|any`, \
                 `budget 50%`, `new branch`, `escalation`, `sandbox violation`; `once …` is used \
                 up by its stop; --off removes it (also `break`)"
            }
            Verb::Review => {
                "answer the experiment waiting for review: run it, reject it (pruned), run the \
                 rest of its branch unasked, or run your edit of a file (--file)"
            }
        }
    }

    /// Verbs the engine applies to the plan tree and its budget (`plan_search::steer`).
    pub fn is_plan(self) -> bool {
        matches!(
            self,
            Verb::Pin
                | Verb::Unpin
                | Verb::Veto
                | Verb::Unveto
                | Verb::Force
                | Verb::Edit
                | Verb::Budget
                | Verb::AlphaMax
        )
    }

    /// Verbs that answer `workflow.pending_escalation` rather than add a directive.
    pub fn is_decision(self) -> bool {
        matches!(self, Verb::Approve | Verb::Reject | Verb::Override)
    }
}

/// Whether `verb` can work on a run of this layout; the error is the reason to show.
/// Every verb needs a youra engine to read its directive; YouRA's own folders have none.
/// The verb is asked for so that callers need not change when a verb gains conditions of
/// its own (plan-tree verbs once the plan tree exists).
pub fn availability(_verb: Verb, layout: Layout) -> Result<(), String> {
    match layout {
        Layout::Native => Ok(()),
        Layout::YouraResearch => Err(YOURA_FOLDER_REASON.to_string()),
    }
}

/// Every verb with its usage and description, one per line (help text, the TUI's `:` line).
pub fn verbs_help() -> String {
    let width = Verb::ALL.iter().map(|v| v.usage().len()).max().unwrap_or(0);
    Verb::ALL
        .iter()
        .map(|v| format!("  {:<width$}  {}", v.usage(), v.describe()))
        .collect::<Vec<_>>()
        .join("\n")
}

impl fmt::Display for Verb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown verb `{0}`; the verbs are: {names}", names = Verb::ALL.map(Verb::name).join(", "))]
pub struct UnknownVerb(pub String);

impl FromStr for Verb {
    type Err = UnknownVerb;

    fn from_str(s: &str) -> Result<Verb, UnknownVerb> {
        let t = s.trim().to_ascii_lowercase().replace('_', "-");
        // `break` is the breakpoint verb's short name (`youra steer RUN break "gate FAIL"`).
        if t == "break" {
            return Ok(Verb::Breakpoint);
        }
        Verb::ALL
            .into_iter()
            .find(|v| v.name() == t)
            .ok_or_else(|| UnknownVerb(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_lists_all() {
        for v in Verb::ALL {
            assert_eq!(v.name().parse::<Verb>(), Ok(v));
        }
        assert_eq!("PAUSE".parse::<Verb>(), Ok(Verb::Pause));
        assert_eq!("alpha_max".parse::<Verb>(), Ok(Verb::AlphaMax));
        let e = "halt".parse::<Verb>().unwrap_err().to_string();
        assert!(
            e.contains("unknown verb `halt`") && e.contains("breakpoint"),
            "{e}"
        );
    }

    #[test]
    fn youra_folders_refuse_every_verb() {
        for v in Verb::ALL {
            assert_eq!(availability(v, Layout::Native), Ok(()));
            let why = availability(v, Layout::YouraResearch).unwrap_err();
            assert!(why.contains("no youra engine runs it"), "{why}");
        }
    }

    #[test]
    fn help_lists_every_verb_once() {
        let help = verbs_help();
        assert_eq!(help.lines().count(), Verb::ALL.len());
        assert!(help.contains("retry <hypothesis>"));
        assert!(help.contains("breakpoint <stage-or-condition> [--off]"));
        assert_eq!("break".parse::<Verb>(), Ok(Verb::Breakpoint));
        assert!(help.contains("edit <plan-node> --plan-file <path>"));
        assert!(help.contains("budget tokens=<n>[,time=<secs>]"));
        assert!(help.contains("alpha-max <a>"));
    }
}
