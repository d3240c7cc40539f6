//! The task properties `youra bench allocation --sweep` varies, one at a time: their names,
//! levels (the default among them) and how each reads and sets a `TaskSpec`.

use crate::plan::sim::{D1_STATED, ENGINE_DIAGNOSIS, JOINT_D1, TaskSpec};

/// A property of the tasks the sweep varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Knob {
    Drift,
    EarlyLongCorr,
    PriorCorr,
    Noise,
    /// The most refining the first plan can gain (`headroom`'s upper end): how much depth
    /// pays before choosing among alternatives matters.
    Headroom,
    /// The spread of long-run value among siblings (`direction_sd`): how much choosing a
    /// direction matters beside the immediate gain.
    Direction,
    /// A multiple of the jointly calibrated expansion cost (the root's draft unchanged).
    PlanningCost,
    /// B in millions of tokens (D.3 sweeps 0.25–1M; the attempt cap still holds).
    Budget,
    /// `reflect_gain`: how much better a reflector's child is than a blind edit.
    ReflectGain,
    /// Executions per tree node (2: FIRE's protocol in the reference code).
    ExecRuns,
    /// 0: the joint D.1 calibration (default); 1: D.1's stated 100–300k per expansion with
    /// the root's draft charged as one (the calibration before issue 27).
    Calibration,
    /// `max_node_retries`: how often a failed node runs again (the engine's 2; 0 the paper
    /// calibration's rule).
    Retries,
    /// A multiple of the engine's diagnosis shares (0: none, the paper's accounting).
    Diagnosis,
}

impl Knob {
    pub const ALL: [Knob; 13] = [
        Knob::Drift,
        Knob::EarlyLongCorr,
        Knob::PriorCorr,
        Knob::Noise,
        Knob::Headroom,
        Knob::Direction,
        Knob::PlanningCost,
        Knob::Budget,
        Knob::ReflectGain,
        Knob::ExecRuns,
        Knob::Calibration,
        Knob::Retries,
        Knob::Diagnosis,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Knob::Drift => "drift",
            Knob::EarlyLongCorr => "early~long",
            Knob::PriorCorr => "prior corr",
            Knob::Noise => "noise",
            Knob::Headroom => "headroom",
            Knob::Direction => "direction sd",
            Knob::PlanningCost => "plan cost×",
            Knob::Budget => "budget M",
            Knob::ReflectGain => "reflect gain",
            Knob::ExecRuns => "exec runs",
            Knob::Calibration => "D.1 stated",
            Knob::Retries => "retries",
            Knob::Diagnosis => "diagnosis×",
        }
    }

    /// The levels tried, the default among them.
    pub fn levels(self) -> &'static [f64] {
        match self {
            Knob::Drift => &[-0.02, 0.0, 0.02, 0.05],
            Knob::EarlyLongCorr => &[-0.6, -0.3, 0.0, 0.3, 0.6],
            Knob::PriorCorr => &[0.0, 0.3, 0.6, 0.9],
            Knob::Noise => &[0.02, 0.05, 0.1, 0.2],
            Knob::Headroom => &[0.0, 0.3, 0.6],
            Knob::Direction => &[0.03, 0.06, 0.12, 0.2],
            Knob::PlanningCost => &[0.5, 1.0, 2.0],
            Knob::Budget => &[0.5, 1.0, 1.5, 3.0, 6.0],
            Knob::ReflectGain => &[0.0, 0.02, 0.04, 0.08],
            Knob::ExecRuns => &[1.0, 2.0],
            Knob::Calibration => &[0.0, 1.0],
            Knob::Retries => &[0.0, 2.0, 5.0],
            Knob::Diagnosis => &[0.0, 1.0, 2.0],
        }
    }

    /// A level as printed: signed where a sign means something.
    pub fn show(self, value: f64) -> String {
        match self {
            Knob::Drift | Knob::EarlyLongCorr | Knob::ReflectGain => format!("{value:+.2}"),
            Knob::ExecRuns | Knob::Calibration | Knob::Retries => format!("{value:.0}"),
            _ => format!("{value:.2}"),
        }
    }

    pub fn get(self, spec: &TaskSpec) -> f64 {
        match self {
            Knob::Drift => spec.drift,
            Knob::EarlyLongCorr => spec.early_long_corr,
            Knob::PriorCorr => spec.prior_corr,
            Knob::Noise => spec.noise,
            Knob::Headroom => spec.headroom.1,
            Knob::Direction => spec.direction_sd,
            Knob::PlanningCost => spec.expand_cost.0 as f64 / JOINT_D1.0.0 as f64,
            Knob::Budget => spec.budget_tokens as f64 / 1e6,
            Knob::ReflectGain => spec.reflect_gain,
            Knob::ExecRuns => f64::from(spec.exec_runs),
            Knob::Calibration => {
                f64::from(u8::from((spec.expand_cost, spec.draft_cost) == D1_STATED))
            }
            Knob::Retries => f64::from(spec.max_node_retries),
            Knob::Diagnosis => spec.diagnosis.0 / ENGINE_DIAGNOSIS.0,
        }
    }

    pub fn set(self, mut spec: TaskSpec, value: f64) -> TaskSpec {
        match self {
            Knob::Drift => spec.drift = value,
            Knob::EarlyLongCorr => spec.early_long_corr = value,
            Knob::PriorCorr => spec.prior_corr = value,
            Knob::Noise => spec.noise = value,
            Knob::Headroom => spec.headroom.1 = value,
            Knob::Direction => spec.direction_sd = value,
            Knob::PlanningCost => {
                let scale = |t: u64| (t as f64 * value).round() as u64;
                spec.expand_cost = (scale(JOINT_D1.0.0), scale(JOINT_D1.0.1));
            }
            Knob::Budget => spec.budget_tokens = (value * 1e6).round() as u64,
            Knob::ReflectGain => spec.reflect_gain = value,
            Knob::ExecRuns => spec.exec_runs = value.round().max(1.0) as u32,
            Knob::Calibration => {
                (spec.expand_cost, spec.draft_cost) =
                    if value >= 0.5 { D1_STATED } else { JOINT_D1 };
            }
            Knob::Retries => spec.max_node_retries = value.round().max(0.0) as u32,
            Knob::Diagnosis => {
                spec.diagnosis = (ENGINE_DIAGNOSIS.0 * value, ENGINE_DIAGNOSIS.1 * value);
            }
        }
        spec
    }
}
