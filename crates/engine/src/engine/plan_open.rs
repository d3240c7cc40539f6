//! The run's plan tree opened for the hypothesis loop, and one descent restricted to a
//! sub-hypothesis's subtree. Both the search's next step (`plan_search.rs`) and the decision
//! whether a passed search goes on (`search_end.rs`) start here, so neither imports the other.
//! Also what the search asks and charges around a node: the reflector's reply schema and the
//! tokens that drafted a sub-hypothesis's root plan.

use std::path::Path;

use crate::config::PlanSettings;
use crate::plan::{Budget, NodeId, PlanTree, Plans, XorShift64, load, select};

use super::error::StageError;

/// A plan-store error as the stage's: the run cannot go on without its tree.
pub(super) fn err(what: &str) -> impl Fn(crate::plan::PlanError) -> StageError + '_ {
    move |e| StageError::MustStop(format!("plan tree: {what}: {e}"))
}

/// The run's tree under the configured rules (`[plan] tree_rules`; Q recomputed and saved
/// when they changed) and budget (a fresh budget from the settings the first time).
pub fn open(run: &Path, s: &PlanSettings) -> Result<(PlanTree, Budget), StageError> {
    let mut loaded = load(run, Plans::Read).map_err(err("load"))?;
    let restated = loaded.tree.set_rules(s.tree_rules, s.max_children);
    if !restated.is_empty() {
        loaded.tree.save(run, &restated).map_err(err("save"))?;
    }
    let budget = loaded.budget.unwrap_or_else(|| {
        let mut b = Budget::tokens(s.budget_tokens);
        b.time_budget_secs = s.budget_secs;
        b.alpha_max = s.alpha_max;
        b.policy = s.policy;
        b
    });
    Ok((loaded.tree, budget))
}

/// Tokens of the call(s) that drafted `h`'s root plan: the design brief is the root plan,
/// written by the executor at Experiment Design, so its last recorded attempt there
/// (`transcripts/`, the same counts the ledger has). 0 when none is recorded (a transcript
/// that does not read is skipped: nothing is charged for it).
pub(crate) fn root_draft_tokens(run: &Path, h: &str) -> u64 {
    let dir = run.join("transcripts");
    let needle = format!("-experiment_design-executor-{h}-");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return 0;
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.contains(&needle) && n.ends_with(".json"))
        .collect();
    names.sort();
    let calls: Vec<crate::llm::transcript::Exchange> = names
        .iter()
        .filter_map(|n| {
            let text = crate::fsutil::read_run_text(dir.join(n)).ok()?;
            serde_json::from_str::<crate::llm::transcript::Exchange>(&text).ok()
        })
        .filter(|x| x.key.hypothesis.as_deref() == Some(h) && x.key.stage == "experiment_design")
        .collect();
    let Some(last) = calls.last() else { return 0 };
    let (round, attempt) = (last.key.round, last.key.attempt);
    calls
        .iter()
        .filter(|x| (x.key.round, x.key.attempt) == (round, attempt))
        .filter_map(|x| x.response.as_ref())
        .map(|r| r.usage.input_tokens.saturating_add(r.usage.output_tokens))
        .sum()
}

/// Selection restricted to `id`'s subtree (other sub-hypotheses' roots are vetoed in a copy),
/// or the researcher's forced node.
pub(super) fn choose(
    tree: &PlanTree,
    budget: &Budget,
    s: &PlanSettings,
    id: &str,
) -> Result<crate::plan::Selection, StageError> {
    if let Some(forced) = budget
        .extra
        .get("forced")
        .and_then(|v| v.as_str())
        .and_then(|f| NodeId::new(f).ok())
        .filter(|f| tree.get(f).is_some())
    {
        return crate::plan::force(tree, budget, s.reexpand_limit, &forced).map_err(err("force"));
    }
    let mut mine = tree.clone();
    let others: Vec<NodeId> = tree
        .roots()
        .filter(|r| r.hypothesis_id.as_deref() != Some(id))
        .map(|r| r.id.clone())
        .collect();
    for o in &others {
        mine.set_vetoed(o, true).map_err(err("restrict"))?;
    }
    let mut rng = XorShift64::new(s.seed ^ (tree.len() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut selection = select(&mine, budget, s.reexpand_limit, &mut rng);
    // The copy's vetoes are the engine's restriction, not the researcher's: say so, or the
    // Plan pane would name a veto nobody made.
    for c in selection
        .levels
        .iter_mut()
        .flat_map(|l| l.candidates.iter_mut())
        .filter(|c| others.contains(&c.id) && !tree.get(&c.id).is_some_and(|n| n.vetoed))
    {
        let of = tree
            .get(&c.id)
            .and_then(|n| n.hypothesis_id.clone())
            .unwrap_or_else(|| "another sub-hypothesis".into());
        c.why = format!("{of}'s plan: this attempt searches {id}'s subtree");
    }
    Ok(selection)
}

/// The reflector's expansion, asked here where the engine asks it (the plan's rules parse
/// the reply, `plan::parse_expansion`): at most `m` children, each a plan and its prior.
pub(super) fn expansion_schema(m: usize) -> crate::llm::ReplySchema {
    use crate::llm::schema as js;
    let prior = js::object_with(
        &[("estimate", js::number(0.0, 1.0))],
        &[
            ("hypothesis", js::string()),
            ("rationale", js::string()),
            ("changes", js::array(js::string(), 0, None)),
            ("risks", js::array(js::string(), 0, None)),
        ],
    );
    let child = js::object(&[("plan", js::text()), ("prior", prior)]);
    crate::llm::ReplySchema::new(
        "plan_expansion",
        js::object(&[("children", js::array(child, 1, Some(m)))]),
    )
}
