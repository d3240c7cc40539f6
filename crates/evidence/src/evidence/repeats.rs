//! The results schema's `repeats`: one row per repeat, read from `experiment_results.json`
//! (through the collection records, `exec::collected`) and checked before any number in it
//! is summarised.
//!
//! ```json
//! {"repeats": [
//!   {"seed": 0, "fold": 0, "accuracy": 0.93, "accuracy_majority": 0.44},
//!   {"seed": 0, "fold": 1, "accuracy": 0.95, "accuracy_majority": 0.43}
//! ]}
//! ```
//!
//! `seed` and `fold` (integers) say which repeat a row is; every other numeric field is a
//! metric measured on that repeat, so two metrics of one row are paired (a gain over a
//! baseline is their difference, row by row). Text fields are ignored. What is refused, with
//! the row: a row that is not an object, a repeated (seed, fold), a seed youra did not ask
//! for, a seed whose folds differ from another's, a gated metric missing from a row, a
//! non-finite value.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::stats::Cv;

/// More rows than this is not a study's repeats but a log: refused, not summarised.
pub(crate) const MAX_ROWS: usize = 100_000;

/// One repeat's measurements.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub seed: Option<i64>,
    pub fold: Option<i64>,
    pub values: BTreeMap<String, f64>,
}

impl Row {
    fn label(&self) -> String {
        match (self.seed, self.fold) {
            (Some(s), Some(f)) => format!("seed {s}, fold {f}"),
            (Some(s), None) => format!("seed {s}"),
            (None, Some(f)) => format!("fold {f}"),
            (None, None) => "a row without seed or fold".into(),
        }
    }
}

/// Every repeat of one experiment, in (seed, fold) order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Repeats {
    pub rows: Vec<Row>,
}

/// One metric's values over the repeats (or a gain's paired differences), and how they were
/// taken: what `Summary::of` needs beside them.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub values: Vec<f64>,
    /// The arm's and the baseline's own values, for a gain.
    pub arms: Option<(Vec<f64>, Vec<f64>)>,
    pub cv: Option<Cv>,
}

impl Repeats {
    /// The `repeats` list of a results document; `Ok(None)` when it has none (an experiment
    /// that reported one value per metric).
    pub fn from_results(results: &Value) -> Result<Option<Repeats>, String> {
        let Some(list) = results.get("repeats") else {
            return Ok(None);
        };
        let list = list.as_array().ok_or(
            "`repeats` in experiment_results.json is not a list: write one object per repeat, \
             e.g. {\"seed\": 0, \"fold\": 1, \"accuracy\": 0.93}",
        )?;
        if list.len() > MAX_ROWS {
            return Err(format!(
                "`repeats` has {} rows, more than {MAX_ROWS}: report one row per repeat, not per step",
                list.len()
            ));
        }
        let mut rows = Vec::with_capacity(list.len());
        for (i, item) in list.iter().enumerate() {
            let obj = item
                .as_object()
                .ok_or_else(|| format!("`repeats[{i}]` is not an object"))?;
            let id = |k: &str| -> Result<Option<i64>, String> {
                match obj.get(k) {
                    None | Some(Value::Null) => Ok(None),
                    Some(v) => v
                        .as_i64()
                        .map(Some)
                        .ok_or_else(|| format!("`repeats[{i}].{k}` is not an integer: {v}")),
                }
            };
            let (seed, fold) = (id("seed")?, id("fold")?);
            let mut values = BTreeMap::new();
            for (k, v) in obj {
                if k == "seed" || k == "fold" {
                    continue;
                }
                if let Value::Number(n) = v {
                    let x = n
                        .as_f64()
                        .filter(|x| x.is_finite())
                        .ok_or_else(|| format!("`repeats[{i}].{k}` is not a finite number"))?;
                    values.insert(k.clone(), x);
                }
            }
            rows.push(Row { seed, fold, values });
        }
        let r = Repeats { rows };
        r.check()?;
        Ok(Some(r.sorted()))
    }

    fn sorted(mut self) -> Repeats {
        self.rows.sort_by_key(|r| (r.seed, r.fold));
        self
    }

    /// The layout's rules: seeds and folds on every row or on none, no (seed, fold) twice,
    /// every seed with the same folds.
    fn check(&self) -> Result<(), String> {
        let Some(first) = self.rows.first() else {
            return Err("`repeats` is empty: report one row per repeat".into());
        };
        let (has_seed, has_fold) = (first.seed.is_some(), first.fold.is_some());
        let mut seen = BTreeSet::new();
        let mut folds_of: BTreeMap<Option<i64>, BTreeSet<i64>> = BTreeMap::new();
        for (i, r) in self.rows.iter().enumerate() {
            if r.seed.is_some() != has_seed || r.fold.is_some() != has_fold {
                return Err(format!(
                    "`repeats[{i}]` ({}) names its seed/fold unlike `repeats[0]` ({}): give \
                     `seed` (and `fold`) on every row or on none",
                    r.label(),
                    first.label()
                ));
            }
            if (has_seed || has_fold) && !seen.insert((r.seed, r.fold)) {
                return Err(format!(
                    "`repeats[{i}]` repeats {}: each repeat is reported once",
                    r.label()
                ));
            }
            if let Some(f) = r.fold {
                folds_of.entry(r.seed).or_default().insert(f);
            }
        }
        let mut sets = folds_of.iter();
        if let Some((s0, f0)) = sets.next() {
            for (s, f) in sets {
                if f != f0 {
                    return Err(format!(
                        "seed {} reported folds {f:?} but seed {} folds {f0:?}: every seed runs \
                         the same folds",
                        s.unwrap_or_default(),
                        s0.unwrap_or_default()
                    ));
                }
            }
        }
        Ok(())
    }

    /// The distinct seeds reported.
    pub fn seeds(&self) -> BTreeSet<i64> {
        self.rows.iter().filter_map(|r| r.seed).collect()
    }

    /// Refuse a seed youra did not ask for: a repeat the experiment chose itself is a choice
    /// of evidence, not a repeat.
    pub fn only_seeds(&self, asked: &BTreeSet<i64>) -> Result<(), String> {
        match self.seeds().difference(asked).next() {
            Some(s) => Err(format!(
                "the experiment reported seed {s}, which youra did not ask for (YOURA_SEEDS: {}): \
                 run exactly the seeds in YOURA_SEEDS",
                asked
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(",")
            )),
            None => Ok(()),
        }
    }

    /// The folds per seed (k of a k-fold cross-validation) and the seeds, when rows name
    /// folds.
    pub fn cv(&self) -> Option<Cv> {
        let folds: BTreeSet<i64> = self.rows.iter().filter_map(|r| r.fold).collect();
        (folds.len() >= 2).then(|| Cv {
            folds: folds.len(),
            seeds: self.seeds().len().max(1),
        })
    }

    /// `metric` on every row, or `metric − baseline` row by row with both arms kept.
    pub fn sample(&self, metric: &str, baseline: Option<&str>) -> Result<Sample, String> {
        let get = |r: &Row, m: &str| {
            r.values.get(m).copied().ok_or_else(|| {
                format!(
                    "the repeat ({}) has no `{m}`: every repeat reports every gated metric",
                    r.label()
                )
            })
        };
        let arm: Vec<f64> = self
            .rows
            .iter()
            .map(|r| get(r, metric))
            .collect::<Result<_, _>>()?;
        let cv = self.cv();
        match baseline {
            None => Ok(Sample {
                values: arm,
                arms: None,
                cv,
            }),
            Some(b) => {
                let base: Vec<f64> = self
                    .rows
                    .iter()
                    .map(|r| get(r, b))
                    .collect::<Result<_, _>>()?;
                Ok(Sample {
                    values: arm.iter().zip(&base).map(|(a, b)| a - b).collect(),
                    arms: Some((arm, base)),
                    cv,
                })
            }
        }
    }

    /// The mean of each metric over the rows: the single value a table shows beside its
    /// interval, computed by youra.
    pub fn means(&self) -> BTreeMap<String, f64> {
        let mut sums: BTreeMap<String, (f64, usize)> = BTreeMap::new();
        for r in &self.rows {
            for (k, v) in &r.values {
                let e = sums.entry(k.clone()).or_default();
                e.0 += v;
                e.1 += 1;
            }
        }
        sums.into_iter()
            .map(|(k, (s, n))| (k, s / n as f64))
            .collect()
    }
}

#[cfg(test)]
#[path = "repeats_tests.rs"]
mod tests;
