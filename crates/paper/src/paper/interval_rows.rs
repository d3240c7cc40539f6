//! Intervals for every measured value the paper states, not only the gates' (issue 40
//! item 7): each trusted results file that reported repeats (the run the gate read, and each
//! attempt kept under `results/attempts/<n>/`) is summarised by youra the way a gate would
//! summarise it, metric by metric, so an earlier attempt's value and a baseline's carry their
//! own interval in Results. The gate's own evidence always wins where both fit a number.

use crate::report::registry::{Registry, RepeatsFile};
use crate::vsa::model::GateEvidence;

/// One summarised metric of one results file.
#[derive(Debug, Clone, PartialEq)]
pub struct Stated {
    pub hypothesis: String,
    /// Whether it is the run the gate read (`results/`), not a kept attempt.
    pub current: bool,
    pub evidence: GateEvidence,
}

/// Every metric of every results file with repeats in `registry`, at `confidence`.
pub fn stated(registry: &Registry, confidence: f64) -> Vec<Stated> {
    registry
        .repeats
        .iter()
        .flat_map(|f| of_file(f, confidence))
        .collect()
}

fn of_file(f: &RepeatsFile, confidence: f64) -> Vec<Stated> {
    let rule = crate::evidence::Rule {
        confidence,
        // Any n the file has is summarised; whether it was enough was the gate's question.
        min_repeats: 1,
        ..crate::evidence::Rule::default()
    };
    let mut metrics: Vec<&String> = f.rows.rows.iter().flat_map(|r| r.values.keys()).collect();
    metrics.sort();
    metrics.dedup();
    metrics
        .into_iter()
        .filter_map(|m| {
            let sample = f.rows.sample(m, None).ok()?;
            let s = crate::evidence::summarise(&sample, &rule).ok()?;
            Some(Stated {
                hypothesis: f.hypothesis.clone(),
                current: f.label == f.hypothesis,
                evidence: GateEvidence {
                    metric: Some(m.clone()),
                    n: Some(s.n as u64),
                    repeats: Some(s.repeats as u64),
                    mean: Some(s.mean),
                    sd: Some(s.sd),
                    lo: Some(s.lo),
                    hi: Some(s.hi),
                    confidence: Some(s.confidence),
                    method: Some(s.method.as_str().to_string()),
                    ..GateEvidence::default()
                },
            })
        })
        .collect()
}

/// The baselines a gate named (`gate.baselines`), summarised on the run its gate read.
pub fn baselines<'a>(stated: &'a [Stated], h: &str, names: &[String]) -> Vec<&'a Stated> {
    names
        .iter()
        .filter_map(|b| {
            stated.iter().find(|s| {
                s.current && s.hypothesis == h && s.evidence.metric.as_deref() == Some(b.as_str())
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::Repeats;
    use serde_json::json;

    fn file(label: &str) -> RepeatsFile {
        let rows: Vec<serde_json::Value> = (0..5)
            .flat_map(|s| {
                (0..5).map(move |f| {
                    json!({"seed": s, "fold": f, "accuracy": 0.9 + 0.01 * f as f64,
                           "accuracy_majority": 0.44})
                })
            })
            .collect();
        RepeatsFile {
            hypothesis: "h-e1".into(),
            label: label.into(),
            rows: Repeats::from_results(&json!({ "repeats": rows }))
                .unwrap()
                .unwrap(),
        }
    }

    #[test]
    fn every_metric_of_every_file_is_summarised_as_a_gate_would() {
        let mut r = Registry::empty();
        r.repeats = vec![file("h-e1"), file("h-e1.attempt1")];
        let s = stated(&r, 0.95);
        assert_eq!(s.len(), 4);
        let acc = &s[0].evidence;
        assert_eq!(acc.metric.as_deref(), Some("accuracy"));
        assert!((acc.mean.unwrap() - 0.92).abs() < 1e-12);
        assert_eq!(
            acc.method.as_deref(),
            Some("corrected t"),
            "folds pooled over seeds"
        );
        assert!(acc.lo.unwrap() < 0.92 && acc.hi.unwrap() > 0.92);
        assert!(s[0].current && !s[2].current);
        let b = baselines(&s, "h-e1", &["accuracy_majority".into(), "absent".into()]);
        assert_eq!(b.len(), 1);
        assert!(b[0].current);
        assert!(baselines(&s, "h-m1", &["accuracy_majority".into()]).is_empty());
    }
}
