//! What a run has spent, as `youra status` says it: the model calls and their cost (the
//! ledger), and the plan-tree budget by kind and per sub-hypothesis (`plan/budget.json`).

use std::path::Path;

use serde::Serialize;

#[derive(Serialize)]
pub(super) struct Usage {
    pub(super) calls: u64,
    pub(super) input_tokens: u64,
    pub(super) output_tokens: u64,
    pub(super) reasoning_tokens: u64,
    /// The priced calls' dollars; `unpriced_calls` had no price, so the total is unknown.
    pub(super) cost_usd: f64,
    pub(super) unpriced_calls: u64,
    /// `$0.0123`, `$0.0123 + unknown` or `cost unknown`.
    pub(super) cost: String,
}

pub(super) fn usage(root: &Path) -> Option<Usage> {
    let t = crate::llm::ledger::read_totals(&root.join("ledger.tsv"))?;
    (t.calls > 0).then(|| Usage {
        calls: t.calls,
        input_tokens: t.input_tokens,
        output_tokens: t.output_tokens,
        reasoning_tokens: t.reasoning_tokens,
        cost_usd: t.cost_usd,
        unpriced_calls: t.unpriced_calls,
        cost: t.cost_text(),
    })
}

/// The plan's budget: every call made while a sub-hypothesis is searched, by kind.
#[derive(Serialize)]
pub(super) struct PlanSpend {
    total_tokens: u64,
    used_tokens: u64,
    planning: u64,
    execution: u64,
    diagnosis: u64,
    /// Charged before the split was kept (a run from an older youra).
    unsplit: u64,
    /// What each sub-hypothesis's search spent of its own `total_tokens` (issue 41); empty
    /// for a budget charged before the split (one budget for the run).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    by_hypothesis: std::collections::BTreeMap<String, u64>,
}

/// `plan/budget.json` with the ledger's rows since its last charge (`plan::spent_now`).
pub(super) fn plan_spend(root: &Path) -> Option<PlanSpend> {
    let saved = crate::plan::load(root, crate::plan::Plans::Skip)
        .ok()?
        .budget?;
    let b = crate::plan::spent_now(root, &saved).unwrap_or(saved);
    Some(PlanSpend {
        total_tokens: b.total_tokens,
        used_tokens: b.used_tokens,
        planning: b.split.planning,
        execution: b.split.execution,
        diagnosis: b.split.diagnosis,
        unsplit: b.used_tokens.saturating_sub(b.split.total()),
        by_hypothesis: b.hypothesis_tokens.clone(),
    })
}

/// `Plan:  12.3k of 40.0k tokens spent — planning 2.0k (16%) · execution … · diagnosis …`.
pub(super) fn plan_line(p: &PlanSpend) -> String {
    use crate::plan::compact;
    let split = crate::plan::Split {
        planning: p.planning,
        execution: p.execution,
        diagnosis: p.diagnosis,
    };
    let unsplit = match p.unsplit {
        0 => String::new(),
        n => format!(" · unsplit {}", compact(n)),
    };
    if p.by_hypothesis.is_empty() {
        return format!(
            "{} of {} tokens spent — {}{unsplit}",
            compact(p.used_tokens),
            compact(p.total_tokens),
            split.text(p.used_tokens)
        );
    }
    // Each sub-hypothesis has its own budget (issue 41): the total is per sub-hypothesis.
    let each: Vec<String> = p
        .by_hypothesis
        .iter()
        .map(|(h, n)| format!("{h} {}", compact(*n)))
        .collect();
    format!(
        "{} tokens spent ({} of {} each) — {}{unsplit}",
        compact(p.used_tokens),
        each.join(" · "),
        compact(p.total_tokens),
        split.text(p.used_tokens)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_line_shows_the_split() {
        let p = PlanSpend {
            total_tokens: 40_000,
            used_tokens: 10_000,
            planning: 2_500,
            execution: 6_000,
            diagnosis: 1_000,
            unsplit: 500,
            by_hypothesis: Default::default(),
        };
        assert_eq!(
            plan_line(&p),
            "10.0k of 40.0k tokens spent — planning 2.5k (25%) · execution 6.0k (60%) · diagnosis 1.0k (10%) · unsplit 500"
        );
        // A budget per sub-hypothesis: each one's spend against its own total.
        let p = PlanSpend {
            by_hypothesis: [("h-e1".to_string(), 7_000), ("h-m1".to_string(), 3_000)].into(),
            unsplit: 0,
            planning: 3_000,
            ..p
        };
        assert_eq!(
            plan_line(&p),
            "10.0k tokens spent (h-e1 7.0k · h-m1 3.0k of 40.0k each) — planning 3.0k (30%) · execution 6.0k (60%) · diagnosis 1.0k (10%)"
        );
    }
}
