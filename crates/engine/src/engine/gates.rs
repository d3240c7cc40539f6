//! Gate evaluation (YouRA §3.4): the brief's criteria applied to the measured metrics, by
//! rule. PASS when every criterion holds, FAIL when none does, PARTIAL in between; a metric
//! the experiment did not measure fails its criterion with "not measured".
//!
//! With repeats (issue 40, decision 0033) each criterion is decided on its interval
//! (`evidence::judge_sample`): held when the interval clears the threshold, failed when it
//! misses it, and INCONCLUSIVE when it straddles it. A gate with no failed criterion and an
//! inconclusive one is INCONCLUSIVE, never a pass; what it asks next (more repeats, or the
//! researcher) is `GateOutcome::next`.

use std::collections::BTreeMap;

use serde_json::Value;

use super::criteria::{Criterion, Op};
use crate::evidence::{JudgedSample, Next, Repeats, Rule};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Partial,
    Fail,
    /// No criterion failed and one cannot be decided yet: more repeats, or the researcher.
    Inconclusive,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Partial => "PARTIAL",
            Verdict::Fail => "FAIL",
            Verdict::Inconclusive => "INCONCLUSIVE",
        }
    }
}

/// One criterion's interval judgement, for the VSA, the card and the paper.
#[derive(Debug, Clone, PartialEq)]
pub struct CriterionEvidence {
    pub criterion: Criterion,
    pub judged: JudgedSample,
}

impl CriterionEvidence {
    /// "0.936 ± 0.008, n 5, 95% CI 0.928–0.944 vs ≥ 0.92".
    pub fn card(&self) -> String {
        self.judged
            .summary
            .card(self.criterion.op, self.criterion.value)
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
    /// The measured value of each criterion's metric (for the VSA and the paper registry):
    /// with repeats, youra's mean over them.
    pub measured: BTreeMap<String, f64>,
    /// Each criterion's interval judgement, when the experiment reported repeats.
    pub evidence: Vec<CriterionEvidence>,
    /// The criteria that could not be decided, with why (INCONCLUSIVE's reasons).
    pub undecided: Vec<FailedCheck>,
    /// What an INCONCLUSIVE gate asks next (`Next::Done` otherwise).
    pub next: Next,
}

impl GateOutcome {
    /// A gate read back from a record (the VSA's fields, a failure record): no intervals.
    pub fn recorded(
        verdict: Verdict,
        failed_checks: Vec<FailedCheck>,
        measured: BTreeMap<String, f64>,
    ) -> GateOutcome {
        GateOutcome {
            verdict,
            failed_checks,
            measured,
            evidence: Vec::new(),
            undecided: Vec::new(),
            next: Next::Done,
        }
    }
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
        evidence: Vec::new(),
        undecided: Vec::new(),
        next: Next::Done,
    }
}

/// The gate from the results' repeats: every criterion decided on its interval under `rule`.
/// A criterion whose values cannot be summarised (a missing metric, too few repeats) is
/// undecided with the reason, and asks the researcher: more of the same cannot mend it.
pub(crate) fn evaluate_repeats(
    criteria: &[Criterion],
    repeats: &Repeats,
    rule: &Rule,
) -> GateOutcome {
    let mut failed = Vec::new();
    let mut undecided = Vec::new();
    let mut evidence = Vec::new();
    let mut next = Next::Done;
    let means = repeats.means();
    let mut measured = BTreeMap::new();
    for c in criteria {
        let required = format!("{} {}", c.op, c.value);
        let check = |actual: String, reason: String| FailedCheck {
            criterion: c.quantity(),
            required: required.clone(),
            actual,
            reason,
        };
        let judged = repeats
            .sample(&c.metric, c.baseline.as_deref())
            .map_err(|e| e.to_string())
            .and_then(|s| {
                crate::evidence::judge_sample(c.op, c.value, &s, None, rule)
                    .map_err(|e| e.to_string())
            });
        let j = match judged {
            Ok(j) => j,
            Err(why) => {
                undecided.push(check("not decided".into(), why));
                next = worst(next, Next::Researcher);
                continue;
            }
        };
        for m in std::iter::once(&c.metric).chain(c.baseline.as_ref()) {
            if let Some(v) = means.get(m) {
                measured.insert(m.clone(), *v);
            }
        }
        let s = j.summary;
        let actual = s.card(c.op, c.value);
        let why = j.decision.why(&s, c.op, c.value);
        match j.decision.verdict {
            crate::evidence::Verdict::Pass => {}
            crate::evidence::Verdict::Fail => failed.push(check(actual, why)),
            crate::evidence::Verdict::Inconclusive => {
                next = worst(next, j.decision.next);
                undecided.push(check(actual, why));
            }
        }
        evidence.push(CriterionEvidence {
            criterion: c.clone(),
            judged: j,
        });
    }
    let verdict = match (failed.len(), undecided.len()) {
        (0, 0) => Verdict::Pass,
        (0, _) => Verdict::Inconclusive,
        (n, _) if n == criteria.len() => Verdict::Fail,
        _ => Verdict::Partial,
    };
    if verdict != Verdict::Inconclusive {
        next = Next::Done;
    }
    GateOutcome {
        verdict,
        failed_checks: failed,
        measured,
        evidence,
        undecided,
        next,
    }
}

/// Of two criteria's asks, the one the gate acts on: more repeats when any criterion wants
/// them (the most wanted), the researcher only when no repeat can help.
fn worst(a: Next, b: Next) -> Next {
    match (a, b) {
        (Next::MoreRepeats { have, want }, Next::MoreRepeats { want: w2, .. }) => {
            Next::MoreRepeats {
                have,
                want: want.max(w2),
            }
        }
        (m @ Next::MoreRepeats { .. }, _) | (_, m @ Next::MoreRepeats { .. }) => m,
        (Next::Researcher, _) | (_, Next::Researcher) => Next::Researcher,
        _ => Next::Done,
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
        Criterion::new(metric, op, value)
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

    /// Five seeds of one metric (and a baseline), spread 0.01 around `mean`.
    fn seeds(mean: f64, base: f64) -> Repeats {
        let rows: Vec<_> = [-0.02, -0.01, 0.0, 0.01, 0.02]
            .iter()
            .enumerate()
            .map(|(i, d)| serde_json::json!({"seed": i, "accuracy": mean + d, "lda": base + d / 2.0}))
            .collect();
        Repeats::from_results(&serde_json::json!({ "repeats": rows }))
            .unwrap()
            .unwrap()
    }

    #[test]
    fn the_interval_gate_table() {
        let rule = Rule::default();
        let ge = |v| c("accuracy", Op::Ge, v);
        let gain = |v| Criterion {
            baseline: Some("lda".into()),
            ..c("accuracy", Op::Ge, v)
        };
        // (criteria, mean, baseline mean, verdict, failed, undecided)
        type Case = (Vec<Criterion>, f64, f64, Verdict, usize, usize);
        let cases: Vec<Case> = vec![
            // sd 0.0158, t(4) 2.776: half-width 0.0196.
            (vec![ge(0.90)], 0.93, 0.5, Verdict::Pass, 0, 0),
            (vec![ge(0.92)], 0.93, 0.5, Verdict::Inconclusive, 0, 1),
            (vec![ge(0.96)], 0.93, 0.5, Verdict::Fail, 1, 0),
            (vec![ge(0.90), ge(0.96)], 0.93, 0.5, Verdict::Partial, 1, 0),
            (vec![ge(0.96), ge(0.92)], 0.93, 0.5, Verdict::Partial, 1, 1),
            // The paired gain has half the spread: 0.93 − 0.90 = 0.03 ± 0.0098.
            (vec![gain(0.01)], 0.93, 0.90, Verdict::Pass, 0, 0),
            (vec![gain(0.03)], 0.93, 0.90, Verdict::Inconclusive, 0, 1),
            (vec![gain(0.05)], 0.93, 0.90, Verdict::Fail, 1, 0),
            (
                vec![c("missing", Op::Ge, 0.1)],
                0.93,
                0.90,
                Verdict::Inconclusive,
                0,
                1,
            ),
        ];
        for (crit, mean, base, verdict, failed, undecided) in cases {
            let g = evaluate_repeats(&crit, &seeds(mean, base), &rule);
            let label = format!("{crit:?} at {mean}");
            assert_eq!(g.verdict, verdict, "{label}");
            assert_eq!(g.failed_checks.len(), failed, "{label}");
            assert_eq!(g.undecided.len(), undecided, "{label}");
            assert_eq!(
                g.next == Next::Done,
                verdict != Verdict::Inconclusive,
                "{label}"
            );
        }
        // A straddle at five repeats asks for five more; a metric the rows lack asks the
        // researcher (no repeat can add it).
        let g = evaluate_repeats(&[ge(0.92)], &seeds(0.93, 0.5), &rule);
        assert_eq!(g.next, Next::MoreRepeats { have: 5, want: 10 });
        assert!((g.measured["accuracy"] - 0.93).abs() < 1e-12);
        assert!(
            g.evidence[0]
                .card()
                .starts_with("0.930 ± 0.020, n 5, 95% CI")
        );
        let g = evaluate_repeats(&[c("missing", Op::Ge, 0.1)], &seeds(0.93, 0.5), &rule);
        assert_eq!(g.next, Next::Researcher);
        assert!(g.undecided[0].reason.contains("`missing`"));
        // At the cap a straddle goes to the researcher, never to a pass.
        let capped = Rule {
            max_repeats: 5,
            ..rule
        };
        let g = evaluate_repeats(&[ge(0.92)], &seeds(0.93, 0.5), &capped);
        assert_eq!(
            (g.verdict, g.next),
            (Verdict::Inconclusive, Next::Researcher)
        );
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
