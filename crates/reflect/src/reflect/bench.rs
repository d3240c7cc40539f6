//! `youra bench routing`: how often recovery lands on the right YouRA level, on the labelled
//! synthetic corpus of `corpus.rs`. Three routers see the same cases:
//!
//! 1. **deterministic**: `trajectory::analyse`'s no-metric rule, then π given the TRUE
//!    category and a severity drawn inside the true level's band of the table. Its misses
//!    are exactly the cases where the no-metric rule is wrong (a bug that still logged a
//!    curve, a run that diverged before logging), so it measures the table and that rule.
//! 2. **pipeline**: the same rule, then a simulated generator/critic (K ∈ [3,5] candidates,
//!    the true cause among them; the critic may rank a decoy first or re-categorise the true
//!    cause, more often when the log lacks the hint, carries a decoy line, or the signature
//!    is unusual for the cause), then the real `attribution::best` and `routing::route` with
//!    a simulated judge for the Verdict Clamp.
//! 3. **single verdict**: one fixed action for every failure, one row per action.

use crate::plan::sim::{mix, normal};
use crate::plan::{Draw, XorShift64};
use crate::reflect::attribution::{self, Attribution, Category};
use crate::reflect::corpus::{self, Case, Cause};
use crate::reflect::routing::{self, Decision, Level, RoutingAction, Thresholds, Verdict};
use crate::reflect::trajectory::{self, Signature, Trajectory};
use crate::vsa::enums::GateType;

/// Where a failure is sent: implementation repair (no metric), or a YouRA level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Repair,
    Level(Level),
}

/// The levels a failure truly belongs to, in table order (Continue is never right).
pub const TARGETS: [Target; 5] = [
    Target::Repair,
    Target::Level(Level::Retry),
    Target::Level(Level::RedoDesign),
    Target::Level(Level::Redesign),
    Target::Level(Level::Reset),
];

impl Target {
    pub fn as_str(self) -> &'static str {
        match self {
            Target::Repair => "repair",
            Target::Level(Level::Continue) => "continue",
            Target::Level(Level::Retry) => "retry",
            Target::Level(Level::RedoDesign) => "design",
            Target::Level(Level::Redesign) => "redesign",
            Target::Level(Level::Reset) => "reset",
        }
    }

    /// The level a cause should be routed to.
    pub fn of(cause: Cause) -> Target {
        match cause {
            Cause::Bug => Target::Repair,
            Cause::MethodIssue => Target::Level(Level::Retry),
            Cause::DesignFlaw => Target::Level(Level::RedoDesign),
            Cause::WrongHypothesis => Target::Level(Level::Redesign),
            Cause::WrongQuestion => Target::Level(Level::Reset),
        }
    }
}

/// The severity band [lo, hi) of π (under `t`) that lands a cause on its true level. A bug
/// has no row in π (repair is decided before it); its band is Local-Refine's, the nearest.
pub fn band(cause: Cause, category: Category, t: &Thresholds) -> (f64, f64) {
    match (cause, category) {
        (Cause::Bug, _) => (t.proceed_below, t.method_refine_from),
        (Cause::MethodIssue, _) => (t.proceed_below, t.method_pivot_from),
        (Cause::DesignFlaw, _) => (t.proceed_below, t.design_pivot_from),
        (Cause::WrongHypothesis, Category::Method) => (t.method_pivot_from, 1.0),
        (Cause::WrongHypothesis, Category::Design) => (t.design_pivot_from, t.design_reset_from),
        (Cause::WrongQuestion, _) => (t.design_reset_from, 1.0),
    }
}

/// Where π's decision lands. `route` cannot stop at pivot 0 with MaxPivots ≥ 1 nor record a
/// limitation for MUST_WORK; should it, the case counts as a miss (None).
fn landing(decision: Decision) -> Option<Target> {
    match decision {
        Decision::Act { action, .. } => Some(Target::Level(routing::youra_level(action))),
        Decision::RecordLimitation | Decision::MustStop(_) => None,
    }
}

/// Router 1: the no-metric rule, then π(true category, severity in the true band).
pub fn deterministic(case: &Case, traj: &Trajectory, t: &Thresholds) -> Option<Target> {
    if matches!(traj, Trajectory::Insufficient { .. }) {
        return Some(Target::Repair);
    }
    let (lo, hi) = band(case.cause, case.category, t);
    let mut rng = XorShift64::new(mix(case.key ^ SALT_SEVERITY));
    let s = lo + rng.draw() * (hi - lo);
    landing(routing::route(
        &GateType::MustWork,
        case.category,
        s,
        None,
        0,
        t,
    ))
}

const SALT_SEVERITY: u64 = 0x5E7E;
const SALT_CRITIC: u64 = 0xC417;

/// The simulated critic's error rates. A decoy is ranked first with probability
/// `misrank + no_hint·[no hint line] + decoy·[a decoy line] + atypical·[unusual signature]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CriticSpec {
    pub misrank: f64,
    pub no_hint: f64,
    pub decoy: f64,
    pub atypical: f64,
    /// Probability the critic flips the true cause's category.
    pub miscategorise: f64,
    /// Standard deviation of the true cause's severity around its band's centre.
    pub severity_sd: f64,
}

impl Default for CriticSpec {
    fn default() -> CriticSpec {
        CriticSpec {
            misrank: 0.08,
            no_hint: 0.15,
            decoy: 0.15,
            atypical: 0.10,
            miscategorise: 0.10,
            severity_sd: 0.08,
        }
    }
}

/// Signatures a cause usually leaves; another one makes the critic less sure.
fn typical(cause: Cause, sig: Signature) -> bool {
    use Signature::*;
    match cause {
        Cause::Bug => sig == Instability,
        Cause::MethodIssue => matches!(sig, Saturation | Instability | Improving),
        Cause::DesignFlaw => matches!(sig, Stagnation | Instability),
        Cause::WrongHypothesis => matches!(sig, Saturation | Stagnation | Decline),
        Cause::WrongQuestion => matches!(sig, Stagnation | Decline),
    }
}

/// Router 2: the no-metric rule, a replayed generator/critic, `attribution::best`, and
/// `routing::route` with a simulated judge.
pub fn pipeline(
    case: &Case,
    traj: &Trajectory,
    t: &Thresholds,
    spec: &CriticSpec,
) -> Option<Target> {
    let Trajectory::Features(f) = traj else {
        return Some(Target::Repair);
    };
    let mut rng = XorShift64::new(mix(case.key ^ SALT_CRITIC));
    let candidates = critique(case, f.signature, t, spec, &mut rng);
    let h = attribution::best(&candidates)?;
    landing(routing::route(
        &GateType::MustWork,
        h.category,
        h.severity.unwrap_or(0.0),
        Some(judge(case.cause, &mut rng)),
        0,
        t,
    ))
}

/// The generator's K candidates as the critic scored them.
fn critique(
    case: &Case,
    sig: Signature,
    t: &Thresholds,
    spec: &CriticSpec,
    rng: &mut XorShift64,
) -> Vec<Attribution> {
    let k = attribution::K_MIN
        + ((rng.draw() * (attribution::K_MAX - attribution::K_MIN + 1) as f64) as usize)
            .min(attribution::K_MAX - attribution::K_MIN);
    let (lo, hi) = band(case.cause, case.category, t);
    let mut s_true = ((lo + hi) / 2.0 + spec.severity_sd * normal(rng)).clamp(0.0, 1.0);
    let mut category = case.category;
    if rng.draw() < spec.miscategorise {
        category = flip(category);
    }
    // Distractors: other causes, the decoy's first when the log has one.
    let mut others: Vec<Cause> = Cause::ALL
        .into_iter()
        .filter(|&c| c != case.cause)
        .collect();
    if let Some((d, _)) = case.decoy {
        others.retain(|&c| c != d);
        others.insert(0, d);
    }
    others.truncate(k - 1);
    let p = spec.misrank
        + spec.no_hint * case.hint.is_none() as u8 as f64
        + spec.decoy * case.decoy.is_some() as u8 as f64
        + spec.atypical * (!typical(case.cause, sig)) as u8 as f64;
    // A misranked decoy outscores the true cause; every other distractor scores below it.
    let top = (rng.draw() < p).then(|| {
        let s = 0.15 + 0.85 * rng.draw();
        s_true = s_true.min(s * (0.5 + 0.45 * rng.draw()));
        s
    });
    let mut list = Vec::with_capacity(k);
    for (i, &c) in others.iter().enumerate() {
        let cat = distractor_category(c, rng);
        let s = match top {
            Some(s) if i == 0 => s,
            _ => s_true * (0.3 + 0.65 * rng.draw()),
        };
        list.push(candidate(case, c, cat, s, sig));
    }
    let at = ((rng.draw() * k as f64) as usize).min(list.len());
    list.insert(at, candidate(case, case.cause, category, s_true, sig));
    list
}

fn flip(c: Category) -> Category {
    match c {
        Category::Method => Category::Design,
        Category::Design => Category::Method,
    }
}

fn distractor_category(c: Cause, rng: &mut XorShift64) -> Category {
    match c {
        Cause::Bug | Cause::MethodIssue => Category::Method,
        Cause::DesignFlaw | Cause::WrongQuestion => Category::Design,
        Cause::WrongHypothesis if rng.draw() < 0.5 => Category::Method,
        Cause::WrongHypothesis => Category::Design,
    }
}

/// A candidate citing its hint's line when the log has one, else the signature.
fn candidate(case: &Case, c: Cause, category: Category, s: f64, sig: Signature) -> Attribution {
    let line = if c == case.cause {
        case.hint
    } else {
        case.decoy.filter(|d| d.0 == c).map(|d| d.1)
    };
    let evidence = match line {
        Some(n) => format!("line {n}"),
        None => format!("signature={}", sig.as_str()),
    };
    Attribution {
        description: format!("{} cause", c.as_str()),
        category,
        evidence,
        fix: format!("address the {} cause", c.as_str()),
        severity: Some(s),
    }
}

/// The independent judge: Valid with a high κ when the hypothesis is fine; for a wrong
/// hypothesis or question mostly NotValid, sometimes a hesitant Valid.
fn judge(cause: Cause, rng: &mut XorShift64) -> (Verdict, f64) {
    if cause.hypothesis_fine() {
        (Verdict::Valid, 0.5 + 0.45 * rng.draw())
    } else if rng.draw() < 0.7 {
        (Verdict::NotValid, 0.6 + 0.3 * rng.draw())
    } else {
        (Verdict::Valid, 0.3 + 0.4 * rng.draw())
    }
}

/// One row of the table.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Row {
    pub name: String,
    pub hits: usize,
    pub cases: usize,
    /// Recall per true level, in [`TARGETS`] order (None where no case has that level).
    pub recall: [Option<f64>; 5],
}

impl Row {
    pub fn accuracy(&self) -> f64 {
        self.hits as f64 / self.cases.max(1) as f64
    }
}

/// What the benchmark measured.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Report {
    pub cases: usize,
    pub seed: u64,
    pub per_cause: [usize; 5],
    /// Cases whose analysed signature differs from the shape they were drawn from.
    pub off_shape: usize,
    pub no_metric: usize,
    pub rows: Vec<Row>,
}

/// The fixed actions of the single-verdict baseline; "repair" is the no-metric verdict.
const FIXED: [(&str, Option<RoutingAction>); 5] = [
    ("always repair", None),
    ("always Method-Refine", Some(RoutingAction::MethodRefine)),
    ("always Design-Refine", Some(RoutingAction::DesignRefine)),
    ("always Pivot", Some(RoutingAction::Pivot)),
    ("always Design-Pivot", Some(RoutingAction::DesignPivot)),
];

/// The benchmark over `n` cases from `seed`, under the default thresholds.
pub fn run(n: usize, seed: u64) -> Report {
    let t = Thresholds::default();
    let spec = CriticSpec::default();
    let cases = corpus::generate(n, seed);
    let truth: Vec<Target> = cases.iter().map(|c| Target::of(c.cause)).collect();
    let trajs: Vec<Trajectory> = cases
        .iter()
        .map(|c| trajectory::analyse(&c.values, c.higher_is_better))
        .collect();
    let mut rows = vec![
        row("deterministic", &truth, |i| {
            deterministic(&cases[i], &trajs[i], &t)
        }),
        row("pipeline", &truth, |i| {
            pipeline(&cases[i], &trajs[i], &t, &spec)
        }),
    ];
    for (name, action) in FIXED {
        let fixed = action.map_or(Target::Repair, |a| Target::Level(routing::youra_level(a)));
        rows.push(row(name, &truth, |_| Some(fixed)));
    }
    let mut per_cause = [0; 5];
    for c in &cases {
        if let Some(i) = Cause::ALL.iter().position(|&x| x == c.cause) {
            per_cause[i] += 1;
        }
    }
    Report {
        cases: n,
        seed,
        per_cause,
        off_shape: cases
            .iter()
            .zip(&trajs)
            .filter(|(c, tr)| !corpus::as_drawn(c.shape, tr))
            .count(),
        no_metric: trajs
            .iter()
            .filter(|tr| matches!(tr, Trajectory::Insufficient { .. }))
            .count(),
        rows,
    }
}

fn row(name: &str, truth: &[Target], route: impl Fn(usize) -> Option<Target>) -> Row {
    let mut hits = [0usize; 5];
    let mut totals = [0usize; 5];
    for (i, want) in truth.iter().enumerate() {
        let Some(k) = TARGETS.iter().position(|x| x == want) else {
            continue;
        };
        totals[k] += 1;
        if route(i) == Some(*want) {
            hits[k] += 1;
        }
    }
    let recall =
        std::array::from_fn(|k| (totals[k] > 0).then(|| hits[k] as f64 / totals[k] as f64));
    Row {
        name: name.to_string(),
        hits: hits.iter().sum(),
        cases: truth.len(),
        recall,
    }
}

#[path = "bench_table.rs"]
mod table;
pub use table::{compare, render, wilson};

#[cfg(test)]
#[path = "bench_tests.rs"]
mod tests;
