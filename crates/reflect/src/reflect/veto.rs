//! The rules that bound the Independent Controller's recovery choice (YouRA §3.3 with SAGE's
//! guards). The controller chooses a level, the cause it acts on and the memory records it
//! relied on; these pure rules take the choice, correct it, or refuse it. A refused choice
//! falls back to SAGE's table: the controller may be wrong, never unbounded. Every veto
//! carries its reason, which the engine writes to events and history.
//!
//! | rule | when | outcome |
//! |---|---|---|
//! | unknown cause | `cause` is not 1..=K | refused: the table decides |
//! | unknown record | a record it was not given is cited | refused: the table decides |
//! | gate type | MUST_WORK as a limitation; SHOULD_WORK as anything but Design-Refine or a limitation | refused |
//! | no path left | SHOULD_WORK Design-Refine with no improvement path left | corrected to a limitation |
//! | cause category | a level the acted-on cause's category cannot justify ([`justifies`]) | refused |
//! | unbelieved cause | redesign or reset on a cause the critic scored below `proceed_below` | refused |
//! | Verdict Clamp | redesign or reset while the judge finds the hypothesis plausible (κ ≥ κ_min) | corrected to δ(A) |
//! | pivot budget | redesign or reset past `max_pivots` | MUST_STOP |
//!
//! The stage the run re-enters follows from the level alone ([`Route::stage`]); the reply
//! names no stage (a `next_stage` in an older recording is read and ignored).

use crate::reflect::attribution::Category;
use crate::reflect::routing::{
    MustStop, RoutingAction, Thresholds, Verdict, budget, clamp, is_discarding,
};
use crate::stage::Stage;
use crate::vsa::enums::GateType;

/// Where a failed gate goes: an action of SAGE's vocabulary, or YouRA's limitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    Act(RoutingAction),
    /// SHOULD_WORK only: the failure is recorded and the loop goes on.
    Limitation,
}

impl Route {
    pub fn as_str(self) -> &'static str {
        match self {
            Route::Act(a) => a.as_str(),
            Route::Limitation => "Limitation",
        }
    }

    /// As the controller writes it: an action name, `Limitation`, or YouRA's level words
    /// (`repair`, `redesign`, `reset`, `proceed`).
    pub fn parse(raw: &str) -> Option<Route> {
        let k = raw.trim().to_ascii_lowercase().replace(['_', ' '], "-");
        Some(match k.as_str() {
            "limitation" | "record-limitation" => Route::Limitation,
            "repair" => Route::Act(RoutingAction::MethodRefine),
            "redesign" => Route::Act(RoutingAction::Pivot),
            "reset" => Route::Act(RoutingAction::DesignPivot),
            "design-retry" | "retry-design" => Route::Act(RoutingAction::DesignRefine),
            _ => Route::Act(raw.trim().parse().ok()?),
        })
    }

    /// The stage the run re-enters on this route; `None` when the loop simply goes on.
    pub fn stage(self) -> Option<Stage> {
        match self {
            Route::Limitation | Route::Act(RoutingAction::Proceed) => None,
            Route::Act(RoutingAction::LocalRefine | RoutingAction::MethodRefine) => {
                Some(Stage::CodingValidation)
            }
            Route::Act(RoutingAction::DesignRefine) => Some(Stage::ExperimentDesign),
            Route::Act(RoutingAction::Pivot) => Some(Stage::HypothesisDebate),
            Route::Act(RoutingAction::DesignPivot) => Some(Stage::ProblemScoping),
        }
    }
}

/// The controller's choice, as parsed from its reply.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub route: Route,
    /// 1-based index into the ranked causes it was shown.
    pub cause: usize,
    /// Memory record ids it relied on.
    pub records: Vec<String>,
    pub reason: String,
}

/// What the rules know when they bound a choice.
#[derive(Debug, Clone)]
pub struct Bounds<'a> {
    pub gate: &'a GateType,
    /// The ranked causes shown to the controller: category and critic severity.
    pub causes: &'a [(Category, f64)],
    /// The memory record ids it was given.
    pub offered: &'a [String],
    pub pivots: u32,
    pub judge: Option<(Verdict, f64)>,
    /// SHOULD_WORK: a retry from Experiment Design is still allowed.
    pub improvement_path: bool,
    pub thresholds: &'a Thresholds,
}

/// The rules' answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Bounded {
    /// Taken, possibly corrected; each correction's reason in `vetoes`.
    Take { route: Route, vetoes: Vec<String> },
    /// Refused as illegal or unjustified: the table decides instead.
    Refuse { veto: String },
    /// The pivot budget is spent.
    Stop(MustStop),
}

fn refuse(veto: String) -> Bounded {
    Bounded::Refuse { veto }
}

/// The levels a cause category can justify on a MUST_WORK gate. SAGE's π is the floor:
/// every level π reaches for the category at some severity is allowed, so the controller
/// may pick another band than the critic's severity puts it in (a redesign on a Method
/// cause the table would refine). Beyond π, a reset on a Method cause is allowed only on an
/// evidence contradiction (YouRA Table 8: "evidence contradiction indicating that the
/// current hypothesis is unsupported"). `Err` says what the level needs.
///
/// | level | Method cause | Design cause |
/// |---|---|---|
/// | Proceed | yes | yes |
/// | Local-Refine, Method-Refine (repair) | yes | no: the fix changes the design, which Coding & Validation keeps |
/// | Design-Refine | no: the design is not what the critic blamed | yes |
/// | Pivot (redesign) | yes (π: s ≥ method_pivot_from) | yes |
/// | Design-Pivot (reset) | only on an evidence contradiction | yes |
pub(crate) fn justifies(
    category: Category,
    level: RoutingAction,
    contradiction: bool,
) -> Result<(), String> {
    use RoutingAction::*;
    match (category, level) {
        (_, Proceed | Pivot) => Ok(()),
        (Category::Method, LocalRefine | MethodRefine) => Ok(()),
        (Category::Design, DesignRefine | DesignPivot) => Ok(()),
        (Category::Method, DesignPivot) if contradiction => Ok(()),
        (Category::Method, DesignPivot) => Err(format!(
            "{level} (reset) needs a Design cause or an evidence contradiction (YouRA Table 8)"
        )),
        (Category::Method, DesignRefine) => Err(format!(
            "{level} redoes the experiment design, which needs a Design cause (SAGE's π never designs again for a Method cause)"
        )),
        (Category::Design, LocalRefine | MethodRefine) => Err(format!(
            "{level} (repair) keeps the design and reruns Coding & Validation, which cannot apply a Design cause's fix (π routes a Design cause to Design-Refine or above)"
        )),
    }
}

/// An evidence contradiction: the independent judge finds the hypothesis itself not
/// plausible, with at least the confidence the Verdict Clamp needs (κ ≥ κ_min).
pub fn contradiction(b: &Bounds<'_>) -> bool {
    matches!(b.judge, Some((Verdict::NotValid, k)) if k >= b.thresholds.kappa_min)
}

/// What the judge said, for a veto's reason.
fn judged(b: &Bounds<'_>) -> String {
    match b.judge {
        Some((Verdict::NotValid, k)) => format!(
            "the judge's NotValid is too unsure to count as a contradiction (κ = {k:.2} < κ_min {:.2})",
            b.thresholds.kappa_min
        ),
        Some((Verdict::Valid, k)) => {
            format!("the judge finds the hypothesis still plausible (Valid, κ = {k:.2})")
        }
        None => "no judge's verdict shows a contradiction".into(),
    }
}

/// Apply every rule of the module's table, in its order.
pub fn bound(c: &Choice, b: &Bounds<'_>) -> Bounded {
    let k = b.causes.len();
    if c.cause == 0 || c.cause > k {
        return refuse(format!(
            "the controller acted on cause {} but was shown {k}",
            c.cause
        ));
    }
    if let Some(r) = c.records.iter().find(|r| !b.offered.contains(r)) {
        return refuse(format!(
            "the controller cited memory record `{r}`, which it was not given"
        ));
    }
    let mut vetoes = Vec::new();
    let mut route = c.route;
    let should = *b.gate == GateType::ShouldWork;
    match route {
        Route::Limitation if !should => {
            return refuse(format!(
                "a {} failure cannot be recorded as a limitation (YouRA Algorithm 1: only SHOULD_WORK gates may)",
                b.gate.as_str()
            ));
        }
        Route::Act(RoutingAction::DesignRefine) if should && !b.improvement_path => {
            vetoes.push(format!(
                "no same-hypothesis improvement path remains ([recovery] should_work_retries = {} used), so the SHOULD_WORK failure is recorded as a limitation",
                b.thresholds.should_work_retries
            ));
            route = Route::Limitation;
        }
        Route::Act(a) if should && a != RoutingAction::DesignRefine => {
            return refuse(format!(
                "a SHOULD_WORK failure is retried from Experiment Design or recorded as a limitation (YouRA Algorithm 1), not {a}"
            ));
        }
        _ => {}
    }
    let (category, severity) = b.causes[c.cause - 1];
    if let Route::Act(a) = route
        && !should
        && let Err(why) = justifies(category, a, contradiction(b))
    {
        return refuse(format!(
            "{why}, but cause {} is a {} cause (s = {severity:.2}){}",
            c.cause,
            category.as_str(),
            if a == RoutingAction::DesignPivot {
                format!(" and {}", judged(b))
            } else {
                String::new()
            }
        ));
    }
    if let Route::Act(a) = route
        && is_discarding(a)
    {
        if severity < b.thresholds.proceed_below {
            return refuse(format!(
                "{a} needs a cause the critic believes, but cause {} scored {severity:.2} (< proceed_below {:.2})",
                c.cause, b.thresholds.proceed_below
            ));
        }
        let (clamped, why) = clamp(a, b.judge, b.thresholds.kappa_min);
        if let Some(why) = why {
            vetoes.push(why);
        }
        match budget(clamped, b.pivots, b.thresholds.max_pivots) {
            Ok(a) => route = Route::Act(a),
            Err(stop) => return Bounded::Stop(stop),
        }
    }
    Bounded::Take { route, vetoes }
}

#[cfg(test)]
#[path = "veto_tests.rs"]
mod tests;
