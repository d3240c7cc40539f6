//! The audit's answer: Real, Synthetic, Fabricated or Unknown, with a confidence, the
//! evidence (`file:line — rule — excerpt`) and, per reported metric, where its value comes
//! from. [`decide`] is the one rule that turns weighted evidence into a verdict.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Real,
    Synthetic,
    Fabricated,
    Unknown,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Real => "Real",
            Verdict::Synthetic => "Synthetic",
            Verdict::Fabricated => "Fabricated",
            Verdict::Unknown => "Unknown",
        }
    }

    /// `youra audit`'s exit status: 0 real, 1 not real, 3 unknown (2 is a usage error).
    pub fn exit_code(self) -> i32 {
        match self {
            Verdict::Real => 0,
            Verdict::Synthetic | Verdict::Fabricated => 1,
            Verdict::Unknown => 3,
        }
    }
}

/// Where a reported metric's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    Loader,
    Generator,
    Literal,
    Mock,
    Unknown,
}

/// Which verdict a piece of evidence speaks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Weight {
    Real,
    Synthetic,
    Fabricated,
    /// Speaks against any certainty (results no present code writes, a named dataset
    /// nowhere loaded with no generator either).
    Doubt,
    Note,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evidence {
    pub file: String,
    pub line: usize,
    pub rule: &'static str,
    pub excerpt: String,
    pub detail: String,
    pub weight: Weight,
    /// How strongly it speaks, in [0, 1].
    pub strength: f64,
}

impl std::fmt::Display for Evidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{} — {} — {}",
            self.file, self.line, self.rule, self.excerpt
        )?;
        if !self.detail.is_empty() {
            write!(f, " ({})", self.detail)?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricOrigin {
    pub metric: String,
    pub file: String,
    pub line: usize,
    pub origin: Origin,
    /// Each source as `file:line what`.
    pub sources: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    pub path: String,
    pub why: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub verdict: Verdict,
    pub confidence: f64,
    pub evidence: Vec<Evidence>,
    pub metrics: Vec<MetricOrigin>,
    pub files_analysed: usize,
    pub skipped: Vec<Skipped>,
    pub notes: Vec<String>,
}

/// The verdict the evidence supports: fabricated when any strong sign of invented values
/// exists (one is enough: real data elsewhere does not excuse a typed-in metric), else
/// synthetic when generated data is what the metrics measure, else real when loaded data
/// reaches them and nothing strong doubts it, else unknown. Confidence is the deciding
/// evidence's strength (real: lowered by doubt).
pub fn decide(evidence: &[Evidence]) -> (Verdict, f64) {
    let max = |w: Weight| {
        evidence
            .iter()
            .filter(|e| e.weight == w)
            .map(|e| e.strength)
            .fold(0.0_f64, f64::max)
    };
    let (fab, syn, real, doubt) = (
        max(Weight::Fabricated),
        max(Weight::Synthetic),
        max(Weight::Real),
        max(Weight::Doubt),
    );
    let round = |x: f64| (x * 100.0).round() / 100.0;
    if fab >= 0.5 {
        (Verdict::Fabricated, round(fab))
    } else if syn >= 0.5 {
        (Verdict::Synthetic, round(syn))
    } else if real >= 0.5 && doubt < 0.8 {
        (Verdict::Real, round(real * (1.0 - doubt / 2.0)))
    } else {
        (Verdict::Unknown, round(0.5_f64.max(doubt)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(weight: Weight, strength: f64) -> Evidence {
        Evidence {
            file: "a.py".into(),
            line: 1,
            rule: "r",
            excerpt: String::new(),
            detail: String::new(),
            weight,
            strength,
        }
    }

    #[test]
    fn the_strongest_sign_decides_in_order_fabricated_synthetic_real() {
        use Weight::*;
        for (evidence, want) in [
            (vec![], (Verdict::Unknown, 0.5)),
            (vec![ev(Real, 0.8)], (Verdict::Real, 0.8)),
            (vec![ev(Real, 0.8), ev(Doubt, 0.5)], (Verdict::Real, 0.6)),
            (vec![ev(Real, 0.8), ev(Doubt, 0.8)], (Verdict::Unknown, 0.8)),
            (
                vec![ev(Real, 0.9), ev(Synthetic, 0.75)],
                (Verdict::Synthetic, 0.75),
            ),
            (
                vec![ev(Real, 0.9), ev(Fabricated, 0.9), ev(Synthetic, 0.8)],
                (Verdict::Fabricated, 0.9),
            ),
            (
                vec![ev(Fabricated, 0.4), ev(Real, 0.8)],
                (Verdict::Real, 0.8),
            ),
            (vec![ev(Note, 1.0)], (Verdict::Unknown, 0.5)),
        ] {
            assert_eq!(decide(&evidence), want, "{evidence:?}");
        }
    }

    #[test]
    fn exit_codes_tell_real_not_real_and_unknown_apart() {
        assert_eq!(
            [
                Verdict::Real,
                Verdict::Synthetic,
                Verdict::Fabricated,
                Verdict::Unknown
            ]
            .map(Verdict::exit_code),
            [0, 1, 1, 3]
        );
    }
}
