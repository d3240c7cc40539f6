//! Gate evaluation (YouRA §3.4): the brief's criteria applied to the measured metrics, by
//! rule. PASS when every criterion holds, FAIL when none does, PARTIAL in between; a metric
//! the experiment did not measure fails its criterion with "not measured".

use std::collections::BTreeMap;

use serde_json::Value;

use super::criteria::{Criterion, Op};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Partial,
    Fail,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Partial => "PARTIAL",
            Verdict::Fail => "FAIL",
        }
    }
}

/// One unmet criterion, in YouRA's `failed_checks` shape.
#[derive(Debug, Clone, PartialEq)]
pub struct FailedCheck {
    pub criterion: String,
    pub required: String,
    pub actual: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GateOutcome {
    pub verdict: Verdict,
    pub failed_checks: Vec<FailedCheck>,
    /// The measured value of each criterion's metric (for the VSA and the paper registry).
    pub measured: BTreeMap<String, f64>,
}

pub fn holds(op: Op, actual: f64, required: f64) -> bool {
    match op {
        Op::Ge => actual >= required,
        Op::Gt => actual > required,
        Op::Le => actual <= required,
        Op::Lt => actual < required,
        // Equality of measured floats within a relative 1e-9, not bit for bit.
        Op::Eq => (actual - required).abs() <= 1e-9 * required.abs().max(1.0),
    }
}

pub fn evaluate(criteria: &[Criterion], measured: &BTreeMap<String, f64>) -> GateOutcome {
    let mut failed = Vec::new();
    let mut seen = BTreeMap::new();
    for c in criteria {
        let required = format!("{} {}", c.op, c.value);
        match measured.get(&c.metric) {
            None => failed.push(FailedCheck {
                criterion: c.metric.clone(),
                required,
                actual: "not measured".into(),
                reason: format!("the experiment reported no `{}`", c.metric),
            }),
            Some(a) if !a.is_finite() => failed.push(FailedCheck {
                criterion: c.metric.clone(),
                required,
                actual: a.to_string(),
                reason: "not a finite number".into(),
            }),
            Some(a) => {
                seen.insert(c.metric.clone(), *a);
                if !holds(c.op, *a, c.value) {
                    failed.push(FailedCheck {
                        criterion: c.metric.clone(),
                        required,
                        actual: a.to_string(),
                        reason: format!("{a} does not satisfy {c}"),
                    });
                }
            }
        }
    }
    let verdict = match failed.len() {
        0 => Verdict::Pass,
        n if n == criteria.len() => Verdict::Fail,
        _ => Verdict::Partial,
    };
    GateOutcome {
        verdict,
        failed_checks: failed,
        measured: seen,
    }
}

/// The measured values: numeric leaves of `experiment_results.json` (its `metrics` object
/// when it has one, else the top level), then, for names it lacks, the last value of each
/// metric in `metrics.jsonl` (a final value, not the best: a gate judges where training ended).
pub fn measured(
    results: Option<&Value>,
    records: &[BTreeMap<String, f64>],
) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    if let Some(r) = results {
        let obj = r.get("metrics").filter(|m| m.is_object()).unwrap_or(r);
        if let Some(map) = obj.as_object() {
            for (k, v) in map {
                if let Some(x) = v.as_f64() {
                    out.insert(k.clone(), x);
                }
            }
        }
    }
    for rec in records {
        for (k, v) in rec {
            if !results_has(results, k) {
                out.insert(k.clone(), *v);
            }
        }
    }
    out
}

fn results_has(results: Option<&Value>, key: &str) -> bool {
    results.is_some_and(|r| {
        r.get("metrics")
            .filter(|m| m.is_object())
            .unwrap_or(r)
            .get(key)
            .and_then(Value::as_f64)
            .is_some()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(metric: &str, op: Op, value: f64) -> Criterion {
        Criterion {
            metric: metric.into(),
            op,
            value,
        }
    }

    fn m(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn the_gate_table() {
        let crit = [c("accuracy", Op::Ge, 0.9), c("gap", Op::Lt, 0.05)];
        type Case<'a> = (&'a [(&'a str, f64)], Verdict, usize);
        let cases: &[Case] = &[
            (&[("accuracy", 0.93), ("gap", 0.01)], Verdict::Pass, 0),
            (&[("accuracy", 0.9), ("gap", 0.0499)], Verdict::Pass, 0),
            (&[("accuracy", 0.8999), ("gap", 0.01)], Verdict::Partial, 1),
            (&[("accuracy", 0.93), ("gap", 0.05)], Verdict::Partial, 1),
            (&[("accuracy", 0.5), ("gap", 0.2)], Verdict::Fail, 2),
            (&[("accuracy", 0.95)], Verdict::Partial, 1),
            (&[], Verdict::Fail, 2),
            (&[("accuracy", f64::NAN), ("gap", 0.0)], Verdict::Partial, 1),
        ];
        for (vals, verdict, n) in cases {
            let out = evaluate(&crit, &m(vals));
            assert_eq!(out.verdict, *verdict, "{vals:?}");
            assert_eq!(out.failed_checks.len(), *n, "{vals:?}");
        }
        let out = evaluate(&crit, &m(&[("accuracy", 0.7)]));
        assert_eq!(
            out.failed_checks[0],
            FailedCheck {
                criterion: "accuracy".into(),
                required: ">= 0.9".into(),
                actual: "0.7".into(),
                reason: "0.7 does not satisfy accuracy >= 0.9".into()
            }
        );
        assert_eq!(out.failed_checks[1].actual, "not measured");
    }

    #[test]
    fn comparisons_at_their_edges() {
        assert!(holds(Op::Ge, 1.0, 1.0) && !holds(Op::Gt, 1.0, 1.0));
        assert!(holds(Op::Le, 1.0, 1.0) && !holds(Op::Lt, 1.0, 1.0));
        assert!(holds(Op::Eq, 0.1 + 0.2, 0.3) && !holds(Op::Eq, 0.31, 0.3));
    }

    #[test]
    fn results_file_wins_and_the_log_fills_in_final_values() {
        let results = serde_json::json!({"metrics": {"accuracy": 0.91, "note": "x"}});
        let recs = vec![
            m(&[("accuracy", 0.5), ("loss", 0.9)]),
            m(&[("accuracy", 0.6), ("loss", 0.4)]),
        ];
        let got = measured(Some(&results), &recs);
        assert_eq!(got, m(&[("accuracy", 0.91), ("loss", 0.4)]));
        assert_eq!(
            measured(None, &recs),
            m(&[("accuracy", 0.6), ("loss", 0.4)])
        );
        assert_eq!(
            measured(Some(&serde_json::json!({"f1": 0.7})), &[]),
            m(&[("f1", 0.7)])
        );
    }
}
