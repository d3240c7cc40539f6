//! SAGE's deterministic routing π(category, severity), the Verdict Clamp, the pivot budget
//! and YouRA's SHOULD_WORK rule, each a pure function. The actions are
//! [`RoutingAction`], the enum the TUI and the CLI already use for `override`.
//!
//! π with the default [`Thresholds`] (a row's range includes its lower edge):
//!
//! | severity s | Method | Design |
//! |---|---|---|
//! | s < 0.15 | Proceed | Proceed |
//! | 0.15 ≤ s < 0.45 | Local-Refine | Design-Refine |
//! | 0.45 ≤ s < 0.5 | Local-Refine | Pivot |
//! | 0.5 ≤ s < 0.8 | Method-Refine | Pivot |
//! | 0.8 ≤ s < 0.85 | Method-Refine | Design-Pivot |
//! | s ≥ 0.85 | Pivot | Design-Pivot |
//!
//! Why: below 0.15 the critic believes no candidate; refining on noise is the localized
//! trial-and-error SAGE warns of, so the result stands as a valid-but-weak finding. A Method
//! cause is fixable under the same hypothesis until it is near-certain that the method
//! itself cannot work (0.85), so Method pivots late. A Design cause means the experiment
//! cannot answer the question: a mild one is fixed by designing again, a serious one (0.45)
//! means the hypothesis as framed is untestable (Pivot), and a near-certain one (0.8) means
//! the evidence contradicts the problem framing itself (Design-Pivot, YouRA's reset).

use crate::reflect::attribution::Category;
use crate::stage::Stage;
pub use crate::vocab::RoutingAction;
use crate::vsa::enums::GateType;
use serde::{Deserialize, Serialize};

/// youra.toml `[recovery]`. Severity edges are lower bounds of the higher action.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Thresholds {
    /// Below this, either category → Proceed.
    pub proceed_below: f64,
    /// Method: from here Method-Refine (below: Local-Refine).
    pub method_refine_from: f64,
    /// Method: from here Pivot.
    pub method_pivot_from: f64,
    /// Design: from here Pivot (below: Design-Refine).
    pub design_pivot_from: f64,
    /// Design: from here Design-Pivot.
    pub design_reset_from: f64,
    /// The Verdict Clamp's minimum judge confidence κ.
    pub kappa_min: f64,
    /// Hypothesis-discarding actions allowed per run before MUST_STOP.
    pub max_pivots: u32,
    /// Who chooses the recovery level: the Independent Controller (bounded by these rules,
    /// the table its fallback) or the table alone (YouRA's "w/o Independent Controller").
    pub router: Router,
    /// How often a failed SHOULD_WORK gate is retried from Experiment Design before it is
    /// recorded as a limitation (YouRA Algorithm 1, lines 6–13). 0: never retried.
    pub should_work_retries: u32,
    /// How often recovery may send one sub-hypothesis's failed gate back to Local-,
    /// Method- or Design-Refine; the next refine escalates to the researcher (INTERACTIVE)
    /// or stops the run with the reason (`reflect::refine_cap`). Default 3: YouRA's own
    /// `phase5_retry_limit.max_retries` (then it stops the pipeline).
    pub max_refines: u32,
    /// YouRA's ablation: show the controller the table's choice ("SAGE's table would
    /// choose: …"). Off by default, so the controller's level is its own and agreement
    /// between the two routers says something.
    pub show_table_choice: bool,
}

/// `[recovery] router`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Router {
    /// The controller chooses the level and the next stage; the rules veto, the table is
    /// the fallback when its endpoint fails.
    #[default]
    Controller,
    /// SAGE's table π alone, no model asked.
    Table,
}

impl Router {
    pub fn as_str(self) -> &'static str {
        match self {
            Router::Controller => "controller",
            Router::Table => "table",
        }
    }
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            proceed_below: 0.15,
            method_refine_from: 0.5,
            method_pivot_from: 0.85,
            design_pivot_from: 0.45,
            design_reset_from: 0.8,
            kappa_min: 0.6,
            max_pivots: 2,
            router: Router::Controller,
            should_work_retries: 1,
            max_refines: 3,
            show_table_choice: false,
        }
    }
}

impl Thresholds {
    /// Every edge in [0,1] and each category's edges in increasing order, so π is monotone.
    pub fn validate(&self) -> Result<(), String> {
        let edges = [
            ("proceed_below", self.proceed_below),
            ("method_refine_from", self.method_refine_from),
            ("method_pivot_from", self.method_pivot_from),
            ("design_pivot_from", self.design_pivot_from),
            ("design_reset_from", self.design_reset_from),
            ("kappa_min", self.kappa_min),
        ];
        if let Some((name, v)) = edges.iter().find(|(_, v)| !(0.0..=1.0).contains(v)) {
            return Err(format!("[recovery] {name} = {v} must lie in [0, 1]"));
        }
        let ordered = |a: f64, b: f64, c: f64| a <= b && b <= c;
        if !ordered(
            self.proceed_below,
            self.method_refine_from,
            self.method_pivot_from,
        ) {
            return Err(
                "[recovery] needs proceed_below ≤ method_refine_from ≤ method_pivot_from".into(),
            );
        }
        if !ordered(
            self.proceed_below,
            self.design_pivot_from,
            self.design_reset_from,
        ) {
            return Err(
                "[recovery] needs proceed_below ≤ design_pivot_from ≤ design_reset_from".into(),
            );
        }
        Ok(())
    }
}

/// π(category, severity). Total: s is clamped to [0,1] and NaN reads as 0 (JSON cannot
/// carry NaN, so it can only come from a caller's bug, and 0 acts least).
pub fn pi(category: Category, severity: f64, t: &Thresholds) -> RoutingAction {
    let s = if severity.is_nan() {
        0.0
    } else {
        severity.clamp(0.0, 1.0)
    };
    use RoutingAction::*;
    if s < t.proceed_below {
        return Proceed;
    }
    match category {
        Category::Method if s >= t.method_pivot_from => Pivot,
        Category::Method if s >= t.method_refine_from => MethodRefine,
        Category::Method => LocalRefine,
        Category::Design if s >= t.design_reset_from => DesignPivot,
        Category::Design if s >= t.design_pivot_from => Pivot,
        Category::Design => DesignRefine,
    }
}

/// Actions that give up the current hypothesis (Pivot) or the problem framing (Design-Pivot).
pub fn is_discarding(action: RoutingAction) -> bool {
    matches!(action, RoutingAction::Pivot | RoutingAction::DesignPivot)
}

/// δ(A), the nearest action that keeps the hypothesis. Pivot → Method-Refine: the judge
/// found the experiment valid, so the design stands and only the method can change.
/// Design-Pivot → Design-Refine: one level down the hierarchy, the design is revisited
/// with the failure as a constraint instead of re-scoping the problem. Others map to
/// themselves.
pub fn refinement_equivalent(action: RoutingAction) -> RoutingAction {
    match action {
        RoutingAction::Pivot => RoutingAction::MethodRefine,
        RoutingAction::DesignPivot => RoutingAction::DesignRefine,
        other => other,
    }
}

/// An independent judge's verdict on the failed experiment, with its confidence κ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    Valid,
    NotValid,
}

/// The Verdict Clamp: a judge that says Valid with κ ≥ `kappa_min` turns a discarding
/// action into δ(A), and says why. Anything else (no judge, NotValid, low or NaN κ, a
/// non-discarding action) leaves the action alone.
pub fn clamp(
    action: RoutingAction,
    judge: Option<(Verdict, f64)>,
    kappa_min: f64,
) -> (RoutingAction, Option<String>) {
    match judge {
        Some((Verdict::Valid, kappa)) if kappa >= kappa_min && is_discarding(action) => {
            let to = refinement_equivalent(action);
            let why = format!(
                "Verdict Clamp: the judge found the experiment valid (κ = {kappa:.2} ≥ {kappa_min:.2}), so {action} was downgraded to {to}"
            );
            (to, Some(why))
        }
        _ => (action, None),
    }
}

/// The pivot budget was spent: the run must stop for the researcher.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("MUST_STOP: {reason}")]
pub struct MustStop {
    pub reason: String,
}

/// Allows a discarding action only while fewer than `max` have been taken in this run.
pub fn budget(
    action: RoutingAction,
    pivots_so_far: u32,
    max: u32,
) -> Result<RoutingAction, MustStop> {
    if is_discarding(action) && pivots_so_far >= max {
        return Err(MustStop {
            reason: format!(
                "{action} would be pivot {} but the run allows {max} (MaxPivots); raise [recovery] max_pivots or steer the run by hand",
                pivots_so_far + 1
            ),
        });
    }
    Ok(action)
}

/// What the engine does after a failed gate has been attributed.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// A SHOULD_WORK gate failed: record a limitation and continue (YouRA Algorithm 1).
    RecordLimitation,
    /// `action` after the clamp; `proposed` is π's, `clamp_reason` says why they differ.
    Act {
        action: RoutingAction,
        proposed: RoutingAction,
        clamp_reason: Option<String>,
    },
    MustStop(MustStop),
}

/// A failed SHOULD_WORK gate (YouRA Algorithm 1, lines 6–13): retried from Experiment
/// Design while a same-hypothesis improvement path remains, else a limitation.
pub fn route_should_work(improvement_path: bool) -> Decision {
    if improvement_path {
        Decision::Act {
            action: RoutingAction::DesignRefine,
            proposed: RoutingAction::DesignRefine,
            clamp_reason: None,
        }
    } else {
        Decision::RecordLimitation
    }
}

/// The whole rule: SHOULD_WORK never routes here (see [`route_should_work`]); otherwise π, then the clamp, then the budget.
/// MUST_WORK, DETERMINES_SUCCESS and unknown gate types all route: an unknown gate is
/// treated as blocking so a typo cannot silently skip recovery.
pub fn route(
    gate: &GateType,
    category: Category,
    severity: f64,
    judge: Option<(Verdict, f64)>,
    pivots_so_far: u32,
    t: &Thresholds,
) -> Decision {
    if *gate == GateType::ShouldWork {
        return Decision::RecordLimitation;
    }
    let proposed = pi(category, severity, t);
    let (action, clamp_reason) = clamp(proposed, judge, t.kappa_min);
    match budget(action, pivots_so_far, t.max_pivots) {
        Ok(action) => Decision::Act {
            action,
            proposed,
            clamp_reason,
        },
        Err(stop) => Decision::MustStop(stop),
    }
}

/// YouRA's recovery levels (Table 8, Algorithm 1) that an action lands on, ordered from
/// the least to the most work undone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// The result stands; the hypothesis loop continues.
    Continue,
    /// Same-hypothesis retry: new plan node(s) under the current hypothesis.
    Retry,
    /// Experiment Design again, with the failure as a constraint.
    RedoDesign,
    /// Back to Hypothesis Debate; archive-producing.
    Redesign,
    /// Back to Problem Scoping; archive-producing.
    Reset,
}

/// | action | YouRA level | re-enters |
/// |---|---|---|
/// | Proceed | continue | — (the loop goes on) |
/// | Local-Refine, Method-Refine | same-hypothesis retry | Implementation Planning (new plan nodes) |
/// | Design-Refine | design again | Experiment Design (Phase 2C) |
/// | Pivot | redesign | Hypothesis Debate (Phase 2A), archive |
/// | Design-Pivot | reset | Problem Scoping (Phase 0), archive |
pub fn youra_level(action: RoutingAction) -> Level {
    match action {
        RoutingAction::Proceed => Level::Continue,
        RoutingAction::LocalRefine | RoutingAction::MethodRefine => Level::Retry,
        RoutingAction::DesignRefine => Level::RedoDesign,
        RoutingAction::Pivot => Level::Redesign,
        RoutingAction::DesignPivot => Level::Reset,
    }
}

impl Level {
    /// The stage the run re-enters, if it leaves the current one.
    pub fn stage(self) -> Option<Stage> {
        match self {
            Level::Continue => None,
            Level::Retry => Some(Stage::ImplementationPlanning),
            Level::RedoDesign => Some(Stage::ExperimentDesign),
            Level::Redesign => Some(Stage::HypothesisDebate),
            Level::Reset => Some(Stage::ProblemScoping),
        }
    }

    /// Redesign and reset move the run's artifacts into `_archive/` first.
    pub fn archives(self) -> bool {
        matches!(self, Level::Redesign | Level::Reset)
    }

    /// The outcome token written to Reflective Memory, in YouRA's `ROUTED_TO_PHASE_…` style.
    pub fn outcome(self) -> &'static str {
        match self {
            Level::Continue => "PROCEED",
            Level::Retry => "SAME_HYPOTHESIS_RETRY",
            Level::RedoDesign => "ROUTED_TO_PHASE_2C",
            Level::Redesign => "ROUTED_TO_PHASE_2A",
            Level::Reset => "ROUTED_TO_PHASE_0",
        }
    }
}

#[cfg(test)]
#[path = "routing_tests.rs"]
mod tests;
