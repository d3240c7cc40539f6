//! Which measured values a number may state, given the claim its context names
//! ([`Mentions`]). Narrowing goes one dimension at a time, each only when it leaves
//! something:
//!
//! 1. hypotheses named → the values of those hypotheses (and their versions), and the
//!    values no hypothesis owns (YouRA's registry keeps most results outside any `h_*`
//!    section: they may be any hypothesis's);
//! 2. metrics named (a vocabulary metric such as accuracy, or the registry's own metric
//!    name such as `gain`) → the values of a named metric, and of those the summary named
//!    ([`Summary`]: `gain` → the gain itself, “lowest gain” or a range's first end →
//!    `gain_min`); a summary no named metric has leaves the metric's values as they are;
//! 3. conditions named (`female`, `baseline`) → the values naming the most of them.
//!
//! A dimension that would leave nothing is skipped: the context names something the
//! registry does not hold together (“h-e1's F1” when h-e1 measured no F1), and a binding
//! too narrow would flag a number for the reader's choice of words. A number whose context
//! narrows nothing is unbound: like before claim-level grounding, it may state any
//! measured value, and it is counted as such (weaker) so a reader can see it.

use super::claim::{ClaimKey, Summary, names_hypothesis};
use super::mentions::{ClaimIndex, Mentions};
use super::registry::Registry;
use super::runs::{Fit, RunWords};

/// The values a number may state.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    /// The claim as its context names it (`h-e1 · accuracy`); `None` when unbound.
    pub claim: Option<String>,
    /// Indices into `Registry::entries`, measured values only.
    pub candidates: Vec<usize>,
    /// The context named whose value it is (a hypothesis or a condition), not only a
    /// metric: only then can a number be another claim's value. A metric alone is shared
    /// by every hypothesis and condition that measured it, and the registry's names for
    /// conditions (`onset_decay_0_3`) need not be words the paper uses.
    pub names_owner: bool,
    /// The context named the metric too (`ground`'s fail-closed rule needs it).
    pub names_metric: bool,
    /// The sub-hypotheses the context named and the registry holds values of.
    pub hypotheses: Vec<String>,
    /// Values of the named sub-hypothesis and metric measured in a run the context's words
    /// rule out (`runs`): stating one is a wrong claim however near it lies.
    pub excluded: Vec<usize>,
}

impl Binding {
    pub(crate) fn is_bound(&self) -> bool {
        self.claim.is_some()
    }
}

fn names_metric(k: &ClaimKey, m: &Mentions) -> bool {
    k.family.is_some_and(|f| m.families.contains(&f))
        || k.metric.as_ref().is_some_and(|n| m.metrics.contains(n))
}

fn named_conditions(k: &ClaimKey, m: &Mentions) -> usize {
    k.conditions
        .iter()
        .filter(|c| m.conditions.contains(c))
        .count()
}

/// Narrow the measured values to what `m` names (see the module rules).
pub fn bind(index: &ClaimIndex, registry: &Registry, m: &Mentions) -> Binding {
    let mut set: Vec<usize> = (0..registry.entries.len())
        .filter(|&i| !registry.entries[i].declared)
        .collect();
    let mut label: Vec<String> = Vec::new();
    let key = |i: usize| &index.keys[i];

    let named_h = |i: usize| {
        key(i)
            .hypothesis
            .as_ref()
            .is_some_and(|h| m.hypotheses.iter().any(|n| names_hypothesis(n, h)))
    };
    let by_h: Vec<usize> = set
        .iter()
        .copied()
        .filter(|&i| named_h(i) || key(i).hypothesis.is_none())
        .collect();
    let mut names_owner = false;
    let mut hypotheses = Vec::new();
    if set.iter().any(|&i| named_h(i)) {
        set = by_h;
        hypotheses = m.hypotheses.clone();
        label.push(m.hypotheses.join("/"));
        names_owner = true;
    }

    let mut by_metric: Vec<usize> = set
        .iter()
        .copied()
        .filter(|&i| names_metric(key(i), m))
        .collect();
    // Within a named sub-hypothesis, a metric named by its own name narrows past its
    // family: "h-e1 … accuracy" is the rule's accuracy, not the `accuracy_lda` or
    // `accuracy_majority` baselines measured beside it on the same rows.
    let exact: Vec<usize> = by_metric
        .iter()
        .copied()
        .filter(|&i| {
            key(i)
                .metric
                .as_ref()
                .is_some_and(|n| m.metrics.contains(n))
        })
        .collect();
    if names_owner && m.summaries.is_empty() && !exact.is_empty() && exact.len() < by_metric.len() {
        by_metric = exact;
    }
    let names_metric = !by_metric.is_empty();
    if names_metric {
        set = by_metric;
        let wanted = if m.summaries.is_empty() {
            vec![Summary::Value]
        } else {
            m.summaries.clone()
        };
        let by_summary: Vec<usize> = set
            .iter()
            .copied()
            .filter(|&i| wanted.contains(&key(i).summary()))
            .collect();
        // A summary none of the named metrics has (“mean gain” where only `gain_min` and
        // `gain_max` were kept) narrows nothing: the reader's word, not a wrong claim.
        let narrowed = !by_summary.is_empty();
        if narrowed {
            set = by_summary;
        }
        let summaries: Vec<Summary> = set.iter().map(|&i| key(i).summary()).collect();
        let mut names: Vec<String> = m.families.iter().map(|f| f.to_string()).collect();
        for n in &m.metrics {
            let of_kept = summaries.contains(&Summary::of_metric(n));
            if of_kept && !names.iter().any(|x| x.eq_ignore_ascii_case(n)) {
                names.push(n.clone());
            }
        }
        let mut metric = names.join("/");
        let unnamed: Vec<&str> = summaries
            .iter()
            .filter(|&&s| !names.iter().any(|n| Summary::of_metric(n) == s))
            .filter_map(|s| s.label())
            .collect();
        if narrowed && !unnamed.is_empty() {
            metric = format!("{metric} ({})", unnamed.join("/"));
        }
        label.push(metric);
    }

    let mut excluded = Vec::new();
    if !hypotheses.is_empty() && !m.runs.is_empty() {
        let (kept, out, label_run) = by_run(index, &set, &m.runs);
        if !out.is_empty() && kept.iter().any(|&i| index.entry_runs[i].is_some()) {
            set = kept;
            excluded = out;
            label.push(label_run);
            names_owner = true;
        }
    }

    let most = set
        .iter()
        .map(|&i| named_conditions(key(i), m))
        .max()
        .unwrap_or(0);
    if most > 0 {
        set.retain(|&i| named_conditions(key(i), m) == most);
        label.push(m.conditions.join("/"));
        names_owner = true;
    }

    Binding {
        claim: (!label.is_empty()).then(|| label.join(" · ")),
        candidates: set,
        names_owner,
        names_metric,
        hypotheses,
        excluded,
    }
}

/// Narrow `set` to the runs `words` names best and nothing rules out: the values kept, the
/// values of ruled-out (or less named) runs, and a label for the runs kept (`attempt 3`).
/// A value of the named sub-hypothesis with no run (a gate's, a config's) is neither kept
/// nor ruled out once a run is named: it cannot be told which run it is.
fn by_run(index: &ClaimIndex, set: &[usize], words: &RunWords) -> (Vec<usize>, Vec<usize>, String) {
    let fits: Vec<Option<Fit>> = set
        .iter()
        .map(|&i| index.entry_runs[i].map(|r| index.runs.fit(&index.runs.runs[r], words)))
        .collect();
    let best = fits
        .iter()
        .flatten()
        .filter(|f| !f.contradicted)
        .map(|f| f.named)
        .max();
    let Some(best) = best else {
        return (set.to_vec(), Vec::new(), String::new());
    };
    let mut kept = Vec::new();
    let mut out = Vec::new();
    let mut attempts: Vec<u32> = Vec::new();
    for (&i, fit) in set.iter().zip(&fits) {
        match fit {
            Some(f) if !f.contradicted && f.named == best => {
                kept.push(i);
                let run = index.entry_runs[i].map(|r| &index.runs.runs[r]);
                attempts.extend(run.and_then(|r| r.attempt));
            }
            Some(_) => out.push(i),
            // Values no hypothesis owns stay (see `bind`); a named one's run is unknown.
            None if index.keys[i].hypothesis.is_none() => kept.push(i),
            None => {}
        }
    }
    attempts.sort_unstable();
    attempts.dedup();
    let label = match attempts.as_slice() {
        [] => "the run named".to_string(),
        [a] => format!("attempt {a}"),
        many => format!(
            "attempts {}",
            many.iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    (kept, out, label)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::registry::Entry;

    fn registry(keys: &[&str]) -> Registry {
        Registry {
            entries: keys
                .iter()
                .map(|k| Entry::new((*k).to_string(), 1.0))
                .chain([Entry::new("h-e1.gate.criteria.0.value".into(), 0.9).declared()])
                .collect(),
            ..Registry::empty()
        }
    }

    #[test]
    fn an_exact_metric_name_narrows_past_its_family_within_a_named_hypothesis() {
        let reg = registry(&[
            "h-e1.results.repeats.mean.accuracy",           // 0
            "h-e1.results.repeats.mean.accuracy_lda",       // 1
            "h-e1.results.repeats.mean.accuracy_majority",  // 2
            "h-c1.results.repeats.mean.min_group_accuracy", // 3
            "h-c1.results.repeats.mean.accuracy",           // 4
        ]);
        let index = ClaimIndex::new(&reg);
        let cases: &[(&str, &[usize])] = &[
            ("h-e1 | accuracy |", &[0]),
            // The longer name mentions "accuracy" too: both stay (a baseline row names its
            // metric; the demo's Results leave baselines to youra's own interval table).
            ("h-e1 baseline | accuracy_majority |", &[0, 2]),
            // A summary named ("lowest") keeps the family's reading: its own narrowing decides.
            ("h-c1 | lowest accuracy within a sex |", &[3]),
            // No sub-hypothesis named: each sub-hypothesis's own accuracy.
            ("the accuracy", &[0, 4]),
        ];
        for (text, want) in cases {
            let b = bind(&index, &reg, &index.mentions(text));
            assert_eq!(b.candidates, *want, "{text}");
        }
    }

    #[test]
    fn values_no_hypothesis_owns_stay_under_a_named_one() {
        // YouRA's registry: most results sit in sections, not under `h_*`.
        let reg = registry(&[
            "gate_results.h_e1_v2.criteria_met.0.actual", // 0
            "registry.n_total_models",                    // 1
            "h-m1.results.metrics.gain",                  // 2
        ]);
        let index = ClaimIndex::new(&reg);
        let b = bind(
            &index,
            &reg,
            &index.mentions("h-e1-v2 assembled the registry"),
        );
        assert_eq!(b.claim.as_deref(), Some("h-e1-v2"));
        assert_eq!(b.candidates, [0, 1]);
    }

    /// A metric's summaries are its values only where named: “the gain” is not its minimum
    /// (the swap issue 28 found: h-m1's gain ↔ its own gain_min passed).
    #[test]
    fn a_metrics_summaries_bind_only_where_named() {
        let reg = registry(&[
            "h-m1.results.metrics.gain",                  // 0
            "h-m1.results.metrics.gain_min",              // 1
            "h-m1.results.metrics.gain_max",              // 2
            "h-c1.results.metrics.min_group_accuracy",    // 3
            "h-c1.results.metrics.group_accuracy.female", // 4
            "h-e1.results.metrics.accuracy_std",          // 5
        ]);
        let index = ClaimIndex::new(&reg);
        let with = |text: &str, s: Option<Summary>| {
            let mut m = index.mentions(text);
            m.summaries.extend(s);
            bind(&index, &reg, &m)
        };
        let cases: &[(&str, Option<Summary>, &str, &[usize])] = &[
            ("h-m1 gain", None, "h-m1 · gain", &[0]),
            ("the mean gain of h-m1", None, "h-m1 · gain", &[0]),
            ("the lowest gain of h-m1", None, "h-m1 · gain min", &[1]),
            (
                "h-m1's gain lies between",
                Some(Summary::Min),
                "h-m1 · gain min",
                &[1],
            ),
            ("h-m1's gain", Some(Summary::Max), "h-m1 · gain max", &[2]),
            (
                "h-c1's lowest accuracy",
                None,
                "h-c1 · accuracy (min)",
                &[3],
            ),
            ("h-c1 accuracy", None, "h-c1 · accuracy", &[4]),
            // A summary h-e1 did not measure narrows nothing: its only accuracy value stays.
            ("h-e1 accuracy", None, "h-e1 · accuracy/accuracy std", &[5]),
        ];
        for (text, s, claim, want) in cases {
            let b = with(text, *s);
            assert_eq!(b.claim.as_deref(), Some(*claim), "{text}");
            assert_eq!(b.candidates, *want, "{text}");
        }
    }

    #[test]
    fn bind_table() {
        let reg = registry(&[
            "h-e1.results.metrics.accuracy",              // 0
            "h-e1.attempt1.results.metrics.accuracy",     // 1
            "h-e1.results.metrics.f1",                    // 2
            "h-e2.results.metrics.accuracy",              // 3
            "h-e1-v2.results.metrics.accuracy",           // 4
            "h-c1.results.metrics.group_accuracy.female", // 5
            "h-c1.results.metrics.group_accuracy.male",   // 6
            "h-m1.results.metrics.gain",                  // 7
        ]);
        let index = ClaimIndex::new(&reg);
        let cases: &[(&str, Option<&str>, &[usize])] = &[
            ("h-e1 reaches", Some("h-e1/h-e1-v2"), &[0, 1, 2, 4]),
            ("h-e1 accuracy", Some("h-e1/h-e1-v2 · accuracy"), &[0, 1, 4]),
            ("h-e1-v2 accuracy", Some("h-e1-v2 · accuracy"), &[4]),
            ("the F1 of h-e2", Some("h-e2"), &[3]), // h-e2 has no F1: metric skipped
            ("accuracy", Some("accuracy"), &[0, 1, 3, 4, 5, 6]),
            ("female accuracy", Some("accuracy · female"), &[5]),
            ("h-m1 gains", Some("h-m1 · gain"), &[7]),
            ("body mass adds", None, &[0, 1, 2, 3, 4, 5, 6, 7]),
            ("h-x9 accuracy", Some("accuracy"), &[0, 1, 3, 4, 5, 6]), // unknown id
        ];
        for (text, claim, want) in cases {
            let b = bind(&index, &reg, &index.mentions(text));
            assert_eq!(b.claim.as_deref(), *claim, "{text}");
            assert_eq!(b.candidates, *want, "{text}");
        }
    }
}
