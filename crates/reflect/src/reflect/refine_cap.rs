//! The cap on refines (issue 41; ARCHITECTURE's invariant: every loop has a bound). Recovery
//! may send one sub-hypothesis's failed gate back to Local-, Method- or Design-Refine at
//! most `[recovery] max_refines` times; with the plan tree off nothing else bounds that loop.
//! The refine past the cap is not taken, whoever chose it (controller or table):
//!
//! | gate | execution mode | outcome |
//! |---|---|---|
//! | SHOULD_WORK | any | a limitation: no same-hypothesis improvement path is left (YouRA Algorithm 1, line 11) |
//! | MUST_WORK | INTERACTIVE, a person answered the gate's last escalation | an escalation proposing a redesign: repair is bounded, and YouRA Table 8 redesigns "after repair"; rejecting it refines once more, by the researcher's word |
//! | MUST_WORK | UNATTENDED, or the waiting policy decided the gate's last escalation | MUST_STOP with the reason: nobody is there to decide (a policy that rejects would refine forever) |
//!
//! Pure: the engine reads the count (`sub_hypotheses.<h>.refines`, written by each refine it
//! applies) and the mode, and applies the outcome (`engine::route_choice`).

use crate::reflect::routing::RoutingAction;
use crate::reflect::veto::Route;
use crate::vsa::enums::GateType;

/// What the cap does to a route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Capped {
    /// Within the cap, or not a refine: the route stands.
    Within,
    /// SHOULD_WORK: recorded as a limitation instead.
    Limitation { reason: String },
    /// INTERACTIVE: the researcher is asked, with `proposed` on the card.
    Escalate {
        proposed: RoutingAction,
        reason: String,
    },
    /// UNATTENDED: the run stops with the reason.
    Stop { reason: String },
}

/// The actions that send the run back into the same sub-hypothesis's loop.
pub(crate) fn is_refine(route: Route) -> bool {
    matches!(
        route,
        Route::Act(
            RoutingAction::LocalRefine | RoutingAction::MethodRefine | RoutingAction::DesignRefine
        )
    )
}

/// The cap's rule: `refines` already applied to `hypothesis`'s gate, `max` allowed;
/// `interactive` when a person is there to answer an escalation.
pub fn cap(
    hypothesis: &str,
    route: Route,
    gate: &GateType,
    refines: u32,
    max: u32,
    interactive: bool,
) -> Capped {
    if !is_refine(route) || refines < max {
        return Capped::Within;
    }
    let reached = format!(
        "{hypothesis}: {} would be refine {} of this gate, but [recovery] max_refines = {max}",
        route.as_str(),
        refines.saturating_add(1)
    );
    if *gate == GateType::ShouldWork {
        return Capped::Limitation {
            reason: format!(
                "{reached}: no improvement path is left, so the SHOULD_WORK failure is recorded as a limitation"
            ),
        };
    }
    if interactive {
        return Capped::Escalate {
            proposed: RoutingAction::Pivot,
            reason: format!(
                "{reached}: repair is bounded (YouRA Table 8 redesigns after repair), so a redesign is proposed to the researcher; reject it to refine once more"
            ),
        };
    }
    Capped::Stop {
        reason: format!(
            "{reached}: the run stops for the researcher (nobody is there to decide: UNATTENDED, or the waiting policy decided the last escalation): `youra steer <run> retry|redesign|skip {hypothesis}` then resume, or raise max_refines"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use RoutingAction::*;

    #[test]
    fn the_cap() {
        let must = GateType::MustWork;
        let should = GateType::ShouldWork;
        // (route, gate, refines, max, interactive, outcome kind, reason contains)
        let cases: Vec<(Route, &GateType, u32, u32, bool, &str, &str)> = vec![
            (Route::Act(MethodRefine), &must, 0, 3, false, "within", ""),
            (Route::Act(MethodRefine), &must, 2, 3, false, "within", ""),
            (
                Route::Act(MethodRefine),
                &must,
                3,
                3,
                false,
                "stop",
                "Method-Refine would be refine 4 of this gate, but [recovery] max_refines = 3",
            ),
            (
                Route::Act(LocalRefine),
                &must,
                3,
                3,
                true,
                "escalate",
                "a redesign is proposed to the researcher",
            ),
            (
                Route::Act(DesignRefine),
                &must,
                5,
                3,
                true,
                "escalate",
                "refine 6",
            ),
            (
                Route::Act(DesignRefine),
                &should,
                3,
                3,
                true,
                "limitation",
                "recorded as a limitation",
            ),
            (
                Route::Act(MethodRefine),
                &must,
                0,
                0,
                false,
                "stop",
                "max_refines = 0",
            ),
            // Only refines are capped: redesign, reset, proceed and a limitation pass.
            (Route::Act(Pivot), &must, 9, 3, false, "within", ""),
            (Route::Act(DesignPivot), &must, 9, 3, false, "within", ""),
            (Route::Act(Proceed), &must, 9, 3, false, "within", ""),
            (Route::Limitation, &should, 9, 3, false, "within", ""),
            // A count at u32::MAX does not wrap into "within".
            (
                Route::Act(MethodRefine),
                &must,
                u32::MAX,
                3,
                false,
                "stop",
                "",
            ),
        ];
        for (route, gate, refines, max, interactive, kind, says) in cases {
            let got = cap("h-e1", route, gate, refines, max, interactive);
            let (k, reason) = match &got {
                Capped::Within => ("within", ""),
                Capped::Limitation { reason } => ("limitation", reason.as_str()),
                Capped::Escalate { proposed, reason } => {
                    assert_eq!(*proposed, Pivot, "{got:?}");
                    ("escalate", reason.as_str())
                }
                Capped::Stop { reason } => ("stop", reason.as_str()),
            };
            assert_eq!(k, kind, "{route:?} {refines}/{max}: {got:?}");
            assert!(reason.contains(says), "{reason}");
            if k != "within" {
                assert!(reason.starts_with("h-e1: "), "names the gate: {reason}");
            }
        }
    }
}
