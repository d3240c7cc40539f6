//! Checking a verb's target: first its shape (no run needed), then against the run's VSA.

use super::breakpoint::Breakpoint;
use super::error::SteerError;
use super::verb::{TargetKind, Verb};
use crate::plan::{NodeId, unsafe_reason};
use crate::stage::Stage;
use crate::vocab::RoutingAction;
use crate::vsa::Vsa;

/// A target whose shape fits its verb; hypothesis ids are still unchecked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Arg {
    None,
    Hypothesis(String),
    MaybeHypothesis(Option<String>),
    HypothesisOrStage(String),
    PlanNode(String),
    /// A checked budget or α_max value, as typed (trimmed).
    Value(String),
    Action(RoutingAction),
    Break(Breakpoint),
}

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
        TargetKind::PlanNode | TargetKind::PlanNodeWithPlan => Arg::PlanNode(plan_node(&need()?)?),
        TargetKind::Budget | TargetKind::AlphaMax => Arg::Value(plan_value(verb, &need()?)?),
        TargetKind::Action => Arg::Action(need()?.parse()?),
        // Checked with the run (`review::plan`), after the layout: a word or two.
        TargetKind::Review => Arg::Value(target.unwrap_or_default().to_string()),
        TargetKind::Stage => {
            let t = need()?;
            match Breakpoint::parse(&t) {
                Some(b) => Arg::Break(b),
                None => return Err(SteerError::UnknownBreakpoint { target: t }),
            }
        }
    })
}

/// Any id, as long as it is safe as a single path component (the plan tree's own rule).
fn plan_node(raw: &str) -> Result<String, SteerError> {
    match unsafe_reason(raw) {
        Some(why) => Err(SteerError::BadPlanNode {
            node: raw.to_string(),
            why,
        }),
        None => Ok(raw.to_string()),
    }
}

/// A `budget` or `alpha-max` value, checked by the rules the engine applies it with
/// (`plan::parse_directive`, then `plan::apply_directive` on a scratch tree and budget), so
/// a value the engine would reject is refused here, before it is recorded.
fn plan_value(verb: Verb, raw: &str) -> Result<String, SteerError> {
    let bad = |why: String| SteerError::BadValue {
        verb,
        value: raw.to_string(),
        why,
    };
    let d = crate::plan::parse_directive(verb.name(), Some(raw)).map_err(|e| bad(e.0))?;
    let mut scratch = crate::plan::Budget::tokens(1);
    crate::plan::apply_directive(&mut crate::plan::PlanTree::new(), &mut scratch, &d)
        .map_err(|e| bad(e.0))?;
    Ok(raw.to_string())
}

/// The plan node as the run's `plan/tree.json` spells it: exact, else the generated id with
/// the same number (`n-3` is `n-0003`). `ids` is `None` when the run has no tree yet.
pub(super) fn plan_node_in(ids: Option<&[NodeId]>, raw: &str) -> Result<String, SteerError> {
    let Some(ids) = ids else {
        return Err(SteerError::NoPlanTree {
            node: raw.to_string(),
        });
    };
    if let Some(id) = ids.iter().find(|id| id.as_str() == raw) {
        return Ok(id.to_string());
    }
    let number = NodeId::new(raw).ok().and_then(|id| id.number());
    if let Some(id) = ids
        .iter()
        .find(|id| number.is_some() && id.number() == number)
    {
        return Ok(id.to_string());
    }
    Err(SteerError::UnknownPlanNode {
        node: raw.to_string(),
        known: ids.iter().map(ToString::to_string).collect(),
    })
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
            Arg::Break(Breakpoint::persistent(
                crate::steer::breakpoint::When::BeforeStage(Stage::CodingValidation)
            ))
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
    fn budget_and_alpha_values_are_checked_as_the_engine_applies_them() {
        // (verb, value, Ok | Err(message fragment))
        let table: &[(Verb, &str, Result<(), &str>)] = &[
            (Verb::Budget, "tokens=1.5M", Ok(())),
            (Verb::Budget, "tokens=800k,time=7200", Ok(())),
            (Verb::Budget, "time=60", Ok(())),
            (Verb::Budget, "tokens=0", Err("a token budget of 0")),
            (Verb::Budget, "tokens=lots", Err("write tokens=<n>")),
            (Verb::Budget, "tokens=-5", Err("write tokens=<n>")),
            (Verb::Budget, "time=0", Err("not usable")),
            (Verb::Budget, "hours=2", Err("write tokens=<n>")),
            (Verb::AlphaMax, "3", Ok(())),
            (Verb::AlphaMax, "100", Ok(())),
            (Verb::AlphaMax, "0", Err("out of range")),
            (Verb::AlphaMax, "101", Err("out of range")),
            (Verb::AlphaMax, "NaN", Err("out of range")),
            (Verb::AlphaMax, "three", Err("is not a number")),
        ];
        for &(verb, raw, want) in table {
            match (shape(verb, Some(raw), false), want) {
                (Ok(arg), Ok(())) => assert_eq!(arg, Arg::Value(raw.into())),
                (Err(e), Err(w)) => {
                    assert!(matches!(e, SteerError::BadValue { .. }), "{raw}: {e}");
                    assert!(e.is_usage(), "{raw}: a bad value is a usage error");
                    assert!(e.to_string().contains(w), "{raw}: {e}");
                }
                (got, want) => panic!("{verb} {raw}: got {got:?}, want {want:?}"),
            }
        }
        assert!(matches!(
            shape(Verb::Budget, None, false),
            Err(SteerError::MissingTarget { .. })
        ));
    }

    #[test]
    fn plan_nodes_must_be_path_safe() {
        assert_eq!(plan_node("n-3.b_2").unwrap(), "n-3.b_2");
        for bad in ["../etc", "a/b", ".hidden", "a b", &"x".repeat(65)] {
            let e = plan_node(bad).unwrap_err();
            assert!(matches!(e, SteerError::BadPlanNode { .. }), "{bad}");
        }
    }

    #[test]
    fn plan_nodes_must_exist_in_the_tree() {
        let ids: Vec<NodeId> = ["n-0001", "n-0003", "root-b"]
            .iter()
            .map(|s| NodeId::new(s).unwrap())
            .collect();
        // (target, Ok(as the tree spells it) | Err(message fragment))
        let table: &[(&str, Result<&str, &str>)] = &[
            ("n-0001", Ok("n-0001")),
            ("n-3", Ok("n-0003")),
            ("n-00003", Ok("n-0003")),
            ("root-b", Ok("root-b")),
            (
                "n-2",
                Err("no plan node `n-2` in this run (nodes: n-0001, n-0003, root-b)"),
            ),
            ("root", Err("no plan node `root`")),
        ];
        for &(raw, want) in table {
            match (plan_node_in(Some(&ids), raw), want) {
                (Ok(got), Ok(w)) => assert_eq!(got, w),
                (Err(e), Err(w)) => {
                    assert!(e.to_string().contains(w), "{raw}: {e}");
                    assert!(!e.is_usage(), "it depends on the run: exit 1");
                }
                (got, want) => panic!("{raw}: got {got:?}, want {want:?}"),
            }
        }
        let e = plan_node_in(None, "n-1").unwrap_err();
        assert!(e.to_string().contains("plan/tree.json"), "{e}");
    }
}
