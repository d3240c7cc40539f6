//! Checking a verb's target: first its shape (no run needed), then against the run's VSA.

use super::error::SteerError;
use super::routing::RoutingAction;
use super::verb::{TargetKind, Verb};
use crate::stage::Stage;
use crate::vsa::Vsa;

/// A target whose shape fits its verb; hypothesis ids are still unchecked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Arg {
    None,
    Hypothesis(String),
    MaybeHypothesis(Option<String>),
    HypothesisOrStage(String),
    PlanNode(String),
    Action(RoutingAction),
    Stage(Stage),
}

/// Plan nodes become folder names (`plan/nodes/<id>/`), so ids stay short and plain.
const MAX_NODE_LEN: usize = 64;

pub(super) fn shape(verb: Verb, target: Option<&str>, off: bool) -> Result<Arg, SteerError> {
    if off && verb != Verb::Breakpoint {
        return Err(SteerError::OffWithoutBreakpoint { verb });
    }
    let target = target.map(str::trim).filter(|t| !t.is_empty());
    let need = || {
        target
            .map(str::to_string)
            .ok_or(SteerError::MissingTarget { verb })
    };
    Ok(match verb.target_kind() {
        TargetKind::None => match target {
            Some(t) => {
                return Err(SteerError::UnexpectedTarget {
                    verb,
                    target: t.to_string(),
                });
            }
            None => Arg::None,
        },
        TargetKind::Hypothesis => Arg::Hypothesis(need()?),
        TargetKind::OptionalHypothesis => Arg::MaybeHypothesis(target.map(str::to_string)),
        TargetKind::HypothesisOrStage => Arg::HypothesisOrStage(need()?),
        TargetKind::PlanNode => Arg::PlanNode(plan_node(&need()?)?),
        TargetKind::Action => Arg::Action(need()?.parse()?),
        TargetKind::Stage => {
            let t = need()?;
            Arg::Stage(Stage::parse(&t).ok_or(SteerError::UnknownStage { target: t })?)
        }
    })
}

/// Any id, as long as it is safe as a single path component.
fn plan_node(raw: &str) -> Result<String, SteerError> {
    let bad = |why| SteerError::BadPlanNode {
        node: raw.to_string(),
        why,
    };
    if raw.len() > MAX_NODE_LEN {
        return Err(bad("longer than 64 characters"));
    }
    if raw.starts_with('.') {
        return Err(bad("it may not start with a dot"));
    }
    if !raw
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(bad("use only letters, digits, `-`, `_` and `.`"));
    }
    Ok(raw.to_string())
}

/// The id as the run spells it: exact, else the one id equal ignoring case.
pub(super) fn hypothesis(vsa: &Vsa, id: &str) -> Result<String, SteerError> {
    find_hypothesis(vsa, id).ok_or_else(|| SteerError::UnknownHypothesis {
        id: id.to_string(),
        known: known(vsa),
    })
}

fn find_hypothesis(vsa: &Vsa, id: &str) -> Option<String> {
    if vsa.hypothesis(id).is_some() {
        return Some(id.to_string());
    }
    let mut folded = vsa
        .sub_hypotheses
        .iter()
        .filter(|h| h.id.eq_ignore_ascii_case(id));
    match (folded.next(), folded.next()) {
        (Some(h), None) => Some(h.id.clone()),
        _ => None,
    }
}

/// A skip names a sub-hypothesis (its id) or a stage (its YouRA label); ids win.
pub(super) fn skip_target(vsa: &Vsa, raw: &str) -> Result<String, SteerError> {
    if let Some(id) = find_hypothesis(vsa, raw) {
        return Ok(id);
    }
    Stage::parse(raw)
        .map(|s| s.label().to_string())
        .ok_or_else(|| SteerError::UnknownSkipTarget {
            target: raw.to_string(),
            known: known(vsa),
        })
}

fn known(vsa: &Vsa) -> Vec<String> {
    vsa.sub_hypotheses.iter().map(|h| h.id.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_checked_before_the_run_is_read() {
        assert_eq!(shape(Verb::Pause, None, false).unwrap(), Arg::None);
        assert_eq!(shape(Verb::Pause, Some("  "), false).unwrap(), Arg::None);
        assert!(matches!(
            shape(Verb::Pause, Some("h-m1"), false),
            Err(SteerError::UnexpectedTarget { .. })
        ));
        assert!(matches!(
            shape(Verb::Retry, None, false),
            Err(SteerError::MissingTarget { verb: Verb::Retry })
        ));
        assert_eq!(
            shape(Verb::Breakpoint, Some("coding & validation"), true).unwrap(),
            Arg::Stage(Stage::CodingValidation)
        );
        assert!(matches!(
            shape(Verb::Pause, None, true),
            Err(SteerError::OffWithoutBreakpoint { .. })
        ));
        assert_eq!(
            shape(Verb::Override, Some("local_refine"), false).unwrap(),
            Arg::Action(RoutingAction::LocalRefine)
        );
        let e = shape(Verb::Breakpoint, Some("Phase 9"), false).unwrap_err();
        assert!(e.is_usage() && e.to_string().contains("Phase 4.5"), "{e}");
    }

    #[test]
    fn plan_nodes_must_be_path_safe() {
        assert_eq!(plan_node("n-3.b_2").unwrap(), "n-3.b_2");
        for bad in ["../etc", "a/b", ".hidden", "a b", &"x".repeat(65)] {
            let e = plan_node(bad).unwrap_err();
            assert!(matches!(e, SteerError::BadPlanNode { .. }), "{bad}");
        }
    }
}
