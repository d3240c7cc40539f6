//! The rules that bound the Independent Controller's recovery choice (YouRA §3.3 with SAGE's
//! guards). The controller chooses a level, the stage it re-enters, the cause it acts on and
//! the memory records it relied on; these pure rules take the choice, correct it, or refuse
//! it. A refused choice falls back to SAGE's table: the controller may be wrong, never
//! unbounded. Every veto carries its reason, which the engine writes to events and history.
//!
//! | rule | when | outcome |
//! |---|---|---|
//! | unknown cause | `cause` is not 1..=K | refused: the table decides |
//! | unknown record | a record it was not given is cited | refused: the table decides |
//! | gate type | MUST_WORK as a limitation; SHOULD_WORK as anything but Design-Refine or a limitation | refused |
//! | no path left | SHOULD_WORK Design-Refine with no improvement path left | corrected to a limitation |
//! | unbelieved cause | redesign or reset on a cause the critic scored below `proceed_below` | refused |
//! | Verdict Clamp | redesign or reset while the judge finds the experiment valid (κ ≥ κ_min) | corrected to δ(A) |
//! | pivot budget | redesign or reset past `max_pivots` | MUST_STOP |
//! | next stage | a stage other than the level's | corrected to the level's stage |

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
    /// The stage key it names (`hypothesis_debate`), if any.
    pub next_stage: Option<String>,
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
    if let Route::Act(a) = route
        && is_discarding(a)
    {
        let (_, severity) = b.causes[c.cause - 1];
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
    let want = route.stage();
    let named = c
        .next_stage
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    if let Some(named) = named {
        let said = Stage::ALL
            .into_iter()
            .find(|s| s.key() == named)
            .or_else(|| Stage::parse(named));
        // A route that leaves the stage must name the one it re-enters; one that goes on
        // may name any step of the loop or Evidence Check, where the loop ends.
        let fits = match want {
            Some(w) => said == Some(w),
            None => said.is_some_and(|s| s >= Stage::ExperimentDesign && s <= Stage::EvidenceCheck),
        };
        if !fits {
            vetoes.push(format!(
                "next stage `{named}` does not follow from {}: the run {}",
                route.as_str(),
                want.map_or("goes on with the hypothesis loop".to_string(), |s| format!(
                    "re-enters {} ({})",
                    s.name(),
                    s.label()
                ))
            ));
        }
    }
    Bounded::Take { route, vetoes }
}

#[cfg(test)]
#[path = "veto_tests.rs"]
mod tests;
