//! The repeats of one experiment (issue 40): which seeds youra asks for (`YOURA_SEEDS`),
//! what it accepts back (`evidence::Repeats`, checked against the seeds it asked for and the
//! gate's metrics), and the seeds of a top-up when a gate is INCONCLUSIVE.
//!
//! The experiment never decides how many repeats count: youra asks for `min_repeats` seeds,
//! then for more in the rule's looks, and merges the rows of one code's runs.

use std::collections::BTreeSet;

use crate::engine::criteria::Criterion;
use crate::evidence::{Repeats, Rule};

/// The variable that tells an experiment which seeds to run: `0,1,2,3,4`.
pub(crate) const SEEDS_VAR: &str = "YOURA_SEEDS";

/// What the experiment writes, as the coding prompt and a coding agent are told: one row per
/// repeat where the plan asks for repeats, else the final metrics.
pub(crate) fn schema_text(rule: &Rule) -> String {
    if rule.min_repeats <= 1 {
        return "Write the final metrics to `$YOURA_RESULTS_DIR/experiment_results.json` as                 {\"metrics\": {...}}."
            .into();
    }
    format!(
        "Each gate is decided on {} or more repeats: run every seed listed in the environment          variable {SEEDS_VAR} (comma-separated, e.g. `0,1,2,3,4`; seed every random choice with          it) and, for cross-validation, every fold, and write one row per repeat to          `$YOURA_RESULTS_DIR/experiment_results.json`: {{\"repeats\": [{{\"seed\": 0, \"fold\": 0,          \"<metric>\": 0.91, \"<baseline metric>\": 0.44}}, ...]}}. Every gated metric and every          baseline the brief names goes on every row, measured on that row's seed and fold. Do          not average or summarise: youra computes the means and intervals itself.",
        rule.min_repeats
    )
}

/// The seeds of a first run: `base .. base + min_repeats` (`base` is 0 for a pre-registered
/// claim, fresh for a post-hoc one: `post_hoc::seed_base`).
pub(crate) fn first_seeds(rule: &Rule, base: i64) -> Vec<i64> {
    (base..base + rule.min_repeats.max(1) as i64).collect()
}

pub(crate) fn seeds_text(seeds: &[i64]) -> String {
    seeds
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// The seeds that bring `have` (the merged rows' seeds) up to `want` repeats: the next unused
/// numbers after the largest seed so far.
pub(crate) fn top_up(have: &Repeats, want: usize) -> Vec<i64> {
    let seeds = have.seeds();
    let next = seeds.iter().next_back().map_or(0, |s| s + 1);
    let missing = want.saturating_sub(seeds.len().max(1)) as i64;
    (next..next + missing).collect()
}

/// The rows of a run merged into those of the same code's earlier runs (a top-up).
pub fn merge(prior: Option<&Repeats>, new: Repeats) -> Repeats {
    match prior {
        None => new,
        Some(p) => {
            let mut rows = p.rows.clone();
            rows.extend(new.rows);
            rows.sort_by_key(|r| (r.seed, r.fold));
            Repeats { rows }
        }
    }
}

/// What a finished experiment's `repeats` are worth: `Ok(None)` where the plan asks for one
/// measurement (`min_repeats = 1`) and none were reported; otherwise checked rows, or what to
/// repair (the message goes to the executor).
pub fn accept(
    results: Option<&serde_json::Value>,
    asked: &[i64],
    criteria: &[Criterion],
    baselines: &[String],
    rule: &Rule,
) -> Result<Option<Repeats>, String> {
    let parsed = match results {
        Some(r) => {
            Repeats::from_results(r).map_err(|e| format!("results/experiment_results.json: {e}"))?
        }
        None => None,
    };
    let Some(rows) = parsed else {
        if rule.min_repeats > 1 {
            return Err(format!(
                "the plan asks for {} repeats, and results/experiment_results.json has no \
                 `repeats` list. Run every seed in ${SEEDS_VAR} (now {}) and write one row per \
                 repeat: {{\"repeats\": [{{\"seed\": 0, \"fold\": 0, \"<metric>\": 0.93}}, ...]}} \
                 (add \"fold\" for cross-validation; give every gated metric, and every \
                 baseline, on every row). youra computes the means and intervals itself.",
                rule.min_repeats,
                seeds_text(asked)
            ));
        }
        return Ok(None);
    };
    let asked: BTreeSet<i64> = asked.iter().copied().collect();
    if rule.min_repeats > 1 && rows.rows.iter().any(|r| r.seed.is_none()) {
        return Err(format!(
            "a row of `repeats` names no `seed`: youra counts repeats by the seeds it asked              for (${SEEDS_VAR} = {}), so every row says which seed it ran",
            seeds_text(&asked.iter().copied().collect::<Vec<_>>())
        ));
    }
    rows.only_seeds(&asked)?;
    let missing: Vec<i64> = asked.difference(&rows.seeds()).copied().collect();
    if !missing.is_empty() {
        return Err(format!(
            "the experiment did not report seed(s) {} of ${SEEDS_VAR}: a seed that was asked \
             for and not reported is a repeat left out; report every one",
            seeds_text(&missing)
        ));
    }
    for c in criteria {
        rows.sample(&c.metric, c.baseline.as_deref())?;
    }
    for b in baselines {
        rows.sample(b, None)
            .map_err(|e| format!("{e} (a baseline the brief names)"))?;
    }
    Ok(Some(rows))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::Op;
    use serde_json::json;

    fn rows(seeds: &[i64]) -> serde_json::Value {
        json!({"repeats": seeds.iter().map(|s| json!({"seed": s, "accuracy": 0.9, "base": 0.4})).collect::<Vec<_>>()})
    }

    #[test]
    fn what_is_accepted_and_what_is_sent_back_to_repair() {
        let rule = Rule::default();
        let acc = [Criterion::new("accuracy", Op::Ge, 0.9)];
        let asked = first_seeds(&rule, 0);
        assert_eq!(first_seeds(&rule, 20_000)[0], 20_000);
        assert_eq!(asked, vec![0, 1, 2, 3, 4]);
        assert_eq!(
            accept(Some(&rows(&[0, 1, 2, 3, 4])), &asked, &acc, &[], &rule)
                .unwrap()
                .unwrap()
                .seeds()
                .len(),
            5
        );
        let cases: &[(Option<serde_json::Value>, &str)] = &[
            (
                Some(json!({"metrics": {"accuracy": 0.99}})),
                "no `repeats` list",
            ),
            (None, "YOURA_SEEDS (now 0,1,2,3,4)"),
            (Some(rows(&[0, 1, 2, 3])), "did not report seed(s) 4"),
            (
                Some(rows(&[0, 1, 2, 3, 4, 9])),
                "seed 9, which youra did not ask for",
            ),
            (
                Some(
                    json!({"repeats": [{"fold": 0, "accuracy": 0.9}, {"fold": 1, "accuracy": 0.9}]}),
                ),
                "names no `seed`",
            ),
        ];
        for (doc, want) in cases {
            let err = accept(doc.as_ref(), &asked, &acc, &[], &rule).unwrap_err();
            assert!(err.contains(want), "{doc:?}: {err}");
        }
        let gain = [Criterion {
            baseline: Some("lda".into()),
            ..Criterion::new("accuracy", Op::Ge, 0.0)
        }];
        let err = accept(Some(&rows(&[0, 1, 2, 3, 4])), &asked, &gain, &[], &rule).unwrap_err();
        assert!(err.contains("`lda`"), "{err}");
        let named = ["accuracy_majority".to_string()];
        let err = accept(Some(&rows(&[0, 1, 2, 3, 4])), &asked, &acc, &named, &rule).unwrap_err();
        assert!(
            err.contains("`accuracy_majority`") && err.contains("baseline"),
            "{err}"
        );
        // One measurement is still accepted where the plan asks for one.
        let one = Rule {
            min_repeats: 1,
            ..rule
        };
        let doc = json!({"metrics": {"accuracy": 0.9}});
        assert_eq!(accept(Some(&doc), &[0], &acc, &[], &one).unwrap(), None);
    }

    #[test]
    fn a_top_up_asks_for_new_seeds_and_merges_their_rows() {
        let first = Repeats::from_results(&rows(&[0, 1, 2, 3, 4]))
            .unwrap()
            .unwrap();
        assert_eq!(top_up(&first, 10), vec![5, 6, 7, 8, 9]);
        let more = Repeats::from_results(&rows(&[5, 6, 7, 8, 9]))
            .unwrap()
            .unwrap();
        let all = merge(Some(&first), more);
        assert_eq!(all.seeds().len(), 10);
        assert_eq!(top_up(&all, 15), vec![10, 11, 12, 13, 14]);
        assert_eq!(top_up(&all, 10), Vec::<i64>::new());
    }
}
