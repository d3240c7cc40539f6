//! The labelled synthetic corpus of `youra bench routing`: failed experiments whose true
//! cause, and so the YouRA level recovery should land on, is known. Pure and seeded: case i
//! of seed s is a function of (s, i) alone, so every router sees the same cases.
//!
//! A case has a cause (five kinds, one per recovery level), a gate-metric trajectory drawn
//! from a shape that cause tends to produce — with noise, and with shapes that are not the
//! cause's usual one, so the observed signature is sometimes misleading — and a short run
//! log: routine lines, the cause's hint line (usually), and sometimes a decoy line that hints
//! at another cause.

use crate::plan::sim::{mix, normal};
use crate::plan::{Draw, XorShift64};
use crate::reflect::attribution::Category;
use crate::reflect::trajectory::{Signature, Trajectory};

/// Why the experiment failed, and so where recovery should go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cause {
    /// An implementation bug: repair the code.
    Bug,
    /// A method issue (unscaled features, a bad learning rate): Local-/Method-Refine.
    MethodIssue,
    /// A design flaw (a tiny or leaky split, a blind metric): Design-Refine.
    DesignFlaw,
    /// The hypothesis is wrong: Pivot.
    WrongHypothesis,
    /// The question is wrong: Design-Pivot.
    WrongQuestion,
}

/// The corpus mix: share of each cause. The largest share (method issues, 30 %) is what the
/// best single fixed verdict can reach.
pub(crate) const MIX: [(Cause, f64); 5] = [
    (Cause::Bug, 0.20),
    (Cause::MethodIssue, 0.30),
    (Cause::DesignFlaw, 0.20),
    (Cause::WrongHypothesis, 0.15),
    (Cause::WrongQuestion, 0.15),
];

impl Cause {
    pub const ALL: [Cause; 5] = [
        Cause::Bug,
        Cause::MethodIssue,
        Cause::DesignFlaw,
        Cause::WrongHypothesis,
        Cause::WrongQuestion,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Cause::Bug => "bug",
            Cause::MethodIssue => "method",
            Cause::DesignFlaw => "design",
            Cause::WrongHypothesis => "hypothesis",
            Cause::WrongQuestion => "question",
        }
    }

    /// Whether the hypothesis itself survives this failure (what an honest judge would say).
    pub(crate) fn hypothesis_fine(self) -> bool {
        matches!(self, Cause::Bug | Cause::MethodIssue | Cause::DesignFlaw)
    }

    /// Shapes this cause produces, with their probabilities (each row sums to 1).
    fn shapes(self) -> &'static [(Shape, f64)] {
        use Shape::*;
        match self {
            Cause::Bug => &[(Crash, 0.75), (Flat, 0.15), (Noisy, 0.10)],
            Cause::MethodIssue => &[
                (Saturating, 0.45),
                (Noisy, 0.20),
                (Rising, 0.15),
                (Flat, 0.15),
                (Crash, 0.05),
            ],
            Cause::DesignFlaw => &[
                (Flat, 0.45),
                (Noisy, 0.20),
                (Saturating, 0.20),
                (Falling, 0.10),
                (Crash, 0.05),
            ],
            Cause::WrongHypothesis => &[(Saturating, 0.40), (Flat, 0.35), (Falling, 0.25)],
            Cause::WrongQuestion => &[(Flat, 0.40), (Saturating, 0.30), (Falling, 0.30)],
        }
    }

    /// Log lines that point at this cause; a case uses one.
    fn hints(self) -> &'static [&'static str] {
        match self {
            Cause::Bug => &[
                "Traceback (most recent call last): KeyError: 'label'",
                "RuntimeError: shape mismatch: got [64, 10], expected [64]",
                "IndexError: index 512 is out of bounds for axis 0 with size 512",
            ],
            Cause::MethodIssue => &[
                "feature 'income' spans 0 to 2.1e6 and was not standardised",
                "learning rate 0.5 without warmup; gradient norm reached 4.1e3",
                "early stopping after 5 epochs (patience=2)",
            ],
            Cause::DesignFlaw => &[
                "validation split has 37 examples; accuracy moves in steps of 2.7%",
                "train and test share 41% of users (split by row, not by user)",
                "macro-F1 ignores the minority class the hypothesis is about",
            ],
            Cause::WrongHypothesis => &[
                "ablation without the proposed module scores within 0.3% of the full model",
                "treatment and control curves overlap at every epoch",
            ],
            Cause::WrongQuestion => &[
                "the baseline already reaches 98% of the oracle; there is no gap to close",
                "labels are fully determined by the lookup column 'region_code'",
            ],
        }
    }
}

/// The shape a trajectory was drawn from (what the cause *tried* to look like; the analysed
/// signature may differ because of noise).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// No usable metric: nothing logged, one point, or only NaN.
    Crash,
    Flat,
    Saturating,
    Rising,
    Falling,
    /// Large step-to-step noise, sometimes a NaN mid-run.
    Noisy,
}

impl Shape {
    pub fn as_str(self) -> &'static str {
        match self {
            Shape::Crash => "crash",
            Shape::Flat => "flat",
            Shape::Saturating => "saturating",
            Shape::Rising => "rising",
            Shape::Falling => "falling",
            Shape::Noisy => "noisy",
        }
    }
}

/// Whether the analysed trajectory reads as the shape it was drawn from.
pub(crate) fn as_drawn(shape: Shape, traj: &Trajectory) -> bool {
    let sig = match traj {
        Trajectory::Insufficient { .. } => return shape == Shape::Crash,
        Trajectory::Features(f) => f.signature,
    };
    matches!(
        (shape, sig),
        (Shape::Flat, Signature::Stagnation)
            | (Shape::Saturating, Signature::Saturation)
            | (Shape::Rising, Signature::Improving)
            | (Shape::Falling, Signature::Decline)
            | (Shape::Noisy, Signature::Instability)
    )
}

/// One labelled failed experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// Seeds every later draw about this case (a router's simulated critic, say).
    pub key: u64,
    pub cause: Cause,
    /// The true cause's category: bugs and method issues are Method, design flaws and wrong
    /// questions Design; a wrong hypothesis is either (the method cannot work / the
    /// hypothesis as framed is untestable), drawn per case.
    pub category: Category,
    pub shape: Shape,
    /// The gate metric per step, in its own orientation.
    pub values: Vec<f64>,
    pub higher_is_better: bool,
    pub log: Vec<String>,
    /// 1-based log line of the true cause's hint, when the log has one.
    pub hint: Option<usize>,
    /// A line hinting at another cause, and its 1-based number.
    pub decoy: Option<(Cause, usize)>,
}

/// Share of cases whose log carries the true cause's hint, and share with a decoy line.
const HINT_RATE: f64 = 0.8;
const DECOY_RATE: f64 = 0.3;

/// `n` cases from `seed`.
pub fn generate(n: usize, seed: u64) -> Vec<Case> {
    (0..n).map(|i| case(mix(seed ^ mix(i as u64)))).collect()
}

/// The case with this key.
pub fn case(key: u64) -> Case {
    let mut rng = XorShift64::new(key);
    let cause = pick(&mut rng, &MIX);
    let category = match cause {
        Cause::Bug | Cause::MethodIssue => Category::Method,
        Cause::DesignFlaw | Cause::WrongQuestion => Category::Design,
        Cause::WrongHypothesis if rng.draw() < 0.5 => Category::Method,
        Cause::WrongHypothesis => Category::Design,
    };
    let shape = pick(&mut rng, cause.shapes());
    let higher_is_better = rng.draw() < 0.7;
    let good: Vec<f64> = trajectory(&mut rng, shape);
    // A lower-is-better metric is an error rate: 1 − the "up is good" value.
    let values = if higher_is_better {
        good
    } else {
        good.iter().map(|v| 1.0 - v).collect()
    };
    let (log, hint, decoy) = log(&mut rng, cause, &values);
    Case {
        key,
        cause,
        category,
        shape,
        values,
        higher_is_better,
        log,
        hint,
        decoy,
    }
}

/// One item of a weighted table (weights summing to 1; the last absorbs rounding).
fn pick<T: Copy>(rng: &mut XorShift64, table: &[(T, f64)]) -> T {
    let mut u = rng.draw();
    for &(item, w) in table {
        if u < w {
            return item;
        }
        u -= w;
    }
    table[table.len() - 1].0
}

fn uniform(rng: &mut XorShift64, lo: f64, hi: f64) -> f64 {
    lo + rng.draw() * (hi - lo)
}

/// 8–16 points of an "up is good" metric in [0, 1] drawn from `shape`, with noise whose
/// size varies per case: large enough now and then to turn a flat run into instability or a
/// saturating one into stagnation.
fn trajectory(rng: &mut XorShift64, shape: Shape) -> Vec<f64> {
    let n = 8 + (rng.draw() * 9.0) as usize;
    let base = uniform(rng, 0.3, 0.6);
    let rise = uniform(rng, 0.06, 0.3);
    let tau = uniform(rng, 0.8, 2.5);
    let sd = base * uniform(rng, 0.002, 0.03);
    let last = (n - 1) as f64;
    let clean = |t: f64| match shape {
        Shape::Crash | Shape::Flat | Shape::Noisy => base,
        Shape::Saturating => base + rise * (1.0 - (-t / tau).exp()),
        Shape::Rising => base + rise * t / last,
        Shape::Falling => base - 0.6 * rise * t / last,
    };
    if shape == Shape::Crash {
        return match (rng.draw() * 3.0) as usize {
            0 => Vec::new(),
            1 => vec![base],
            _ => vec![f64::NAN; n],
        };
    }
    let sd = if shape == Shape::Noisy { 4.0 * sd } else { sd };
    let mut values: Vec<f64> = (0..n)
        .map(|t| (clean(t as f64) + sd * normal(rng)).clamp(0.0, 1.0))
        .collect();
    if shape == Shape::Noisy && rng.draw() < 0.4 {
        let at = 1 + (rng.draw() * (n - 1) as f64) as usize;
        values[at.min(n - 1)] = f64::NAN;
    }
    values
}

/// Routine lines, the metric per epoch, the hint (usually) and a decoy (sometimes), in a
/// drawn order. Returns the log and the 1-based lines of the hint and the decoy.
fn log(
    rng: &mut XorShift64,
    cause: Cause,
    values: &[f64],
) -> (Vec<String>, Option<usize>, Option<(Cause, usize)>) {
    let mut lines = vec![
        "loaded 12,480 training rows from data/train.parquet".to_string(),
        "using device cuda:0".to_string(),
    ];
    for (i, v) in values.iter().enumerate().step_by(3) {
        lines.push(format!("epoch {}: metric={v:.4}", i + 1));
    }
    lines.push("UserWarning: torch.load default for weights_only will change".to_string());
    let hint_text = (rng.draw() < HINT_RATE).then(|| choose(rng, cause.hints()));
    let decoy_cause = (rng.draw() < DECOY_RATE).then(|| {
        let others: Vec<Cause> = Cause::ALL.into_iter().filter(|&c| c != cause).collect();
        others[((rng.draw() * others.len() as f64) as usize).min(others.len() - 1)]
    });
    let mut hint = None;
    let mut decoy = None;
    if let Some(text) = hint_text {
        let at = insert_at(rng, &mut lines, text);
        hint = Some(at);
    }
    if let Some(c) = decoy_cause {
        let text = choose(rng, c.hints());
        let at = insert_at(rng, &mut lines, text);
        // The decoy may have pushed the hint down a line.
        hint = hint.map(|h| if h >= at { h + 1 } else { h });
        decoy = Some((c, at));
    }
    (lines, hint, decoy)
}

fn choose(rng: &mut XorShift64, texts: &[&str]) -> String {
    let i = ((rng.draw() * texts.len() as f64) as usize).min(texts.len() - 1);
    texts[i].to_string()
}

/// Inserts `text` at a drawn place after the first line; returns its 1-based line number.
fn insert_at(rng: &mut XorShift64, lines: &mut Vec<String>, text: String) -> usize {
    let at = 1 + ((rng.draw() * lines.len() as f64) as usize).min(lines.len() - 1);
    lines.insert(at, text);
    at + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_repeat_from_their_key_and_lines_point_at_their_text() {
        let a = generate(300, 9);
        let nan_eq = |x: &[f64], y: &[f64]| {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(p, q)| p == q || (p.is_nan() && q.is_nan()))
        };
        for (c, d) in a.iter().zip(generate(300, 9)) {
            assert_eq!((c.cause, c.shape, &c.log), (d.cause, d.shape, &d.log));
            assert!(nan_eq(&c.values, &d.values));
        }
        assert_ne!(a[0].key, generate(1, 10)[0].key);
        for c in &a {
            if let Some(h) = c.hint {
                assert!(c.cause.hints().contains(&c.log[h - 1].as_str()), "{c:?}");
            }
            if let Some((other, d)) = c.decoy {
                assert_ne!(other, c.cause);
                assert!(other.hints().contains(&c.log[d - 1].as_str()), "{c:?}");
            }
            assert!(
                c.values
                    .iter()
                    .all(|v| v.is_nan() || (0.0..=1.0).contains(v))
            );
        }
        // Every cause and shape occurs.
        for cause in Cause::ALL {
            assert!(a.iter().any(|c| c.cause == cause), "{cause:?}");
        }
        assert!(a.iter().any(|c| c.shape == Shape::Crash));
    }
}
