//! The reflector drafts a search's root plan (`[plan] root_plan = "reflector"`, decision
//! 0041; PrimeScientist's reflector initialises a task from its instruction and the insights
//! of other tasks). The root is added with the design brief as its plan (so the tree is never
//! without it), then replaced by the reflector's draft before it runs; the draft's prior is
//! marked (`plan::DRAFTED_BY`), and a kill before that save drafts it again. The call's rows
//! are the search's planning (`expand:<root>`), charged to the sub-hypothesis's budget.

use crate::config::PlanSettings;
use crate::plan::{DRAFTED_BY, NodeId, NodeStatus, PlanTree, RootPlan};
use crate::rundir::events::Event;

use super::ctx::StageCtx;
use super::error::StageError;
use super::plan_open::err;

/// `id`'s root when it still waits for the reflector's draft: untested, never run, unmarked,
/// and still the design brief as it was added (`design_root`): a root a researcher edited
/// before it ran (`youra steer … edit`) keeps their plan.
fn due(tree: &PlanTree, id: &str, design_root: &str) -> Option<NodeId> {
    tree.roots()
        .find(|r| {
            r.hypothesis_id.as_deref() == Some(id)
                && r.status == NodeStatus::Untested
                && r.packet.is_none()
                && r.failed_attempts().is_empty()
                && !r.prior.extra.contains_key(DRAFTED_BY)
                && r.plan.as_deref().map(str::trim) == Some(design_root.trim())
        })
        .map(|r| r.id.clone())
}

/// Whether the design brief stands as `id`'s root (no reflector draft, or none due).
pub(crate) fn drafted_by_design(s: &PlanSettings) -> bool {
    s.root_plan == RootPlan::Design
}

/// Draft `id`'s root with the reflector when the setting asks and the root waits for it
/// (`design_root`: the plan it was added with); the tree is saved with the draft.
pub(crate) fn draft_if_due(
    ctx: &StageCtx<'_>,
    s: &PlanSettings,
    tree: &mut PlanTree,
    id: &str,
    design_root: &str,
) -> Result<(), StageError> {
    if drafted_by_design(s) {
        return Ok(());
    }
    let Some(root) = due(tree, id, design_root) else {
        return Ok(());
    };
    let brief = ctx
        .read(&format!("{id}/{}", super::stages::artifacts::DESIGN_BRIEF))
        .unwrap_or_default();
    let statement = super::stages::fields::snapshot_field(ctx, id, "statement")
        .unwrap_or_else(|| "(no statement recorded)".into());
    // The other searches' findings are the plans' and models' text: masked as the
    // expansion's evidence is, and pasted in one pass.
    let insights =
        crate::redact::redact(&crate::plan::insights(tree, id), &[]).replace("```", "'''");
    let prompt = crate::plan::root_prompt(id, &statement, &brief, &insights);
    let system = ctx.prompts.render("system/executor", &Default::default())?;
    ctx.roles
        .ledger()
        .set_plan_node(Some(format!("{}{root}", crate::plan::EXPAND_PREFIX)));
    let reply = ctx.ask_structured(
        "reflector",
        vec![
            crate::llm::Message::system(system),
            crate::llm::Message::user(prompt),
        ],
        &root_schema(),
    );
    ctx.roles.ledger().set_plan_node(None);
    let (draft, notes) = crate::plan::parse_root(&reply?.to_string(), id)
        .map_err(|e| StageError::Output(e.to_string()))?;
    tree.edit(&root, draft.plan, Some(draft.prior))
        .map_err(err("draft the root"))?;
    tree.save(ctx.run, std::slice::from_ref(&root))
        .map_err(err("save"))?;
    let mut message = format!("{root}: the reflector drafted {id}'s first plan");
    if !notes.is_empty() {
        message.push_str(&format!(" ({})", notes.join("; ")));
    }
    ctx.emit(
        Event::new("plan")
            .hypothesis(id)
            .action("draft")
            .message(message),
    );
    Ok(())
}

/// The root's reply: one plan and its prior.
fn root_schema() -> crate::llm::ReplySchema {
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
    crate::llm::ReplySchema::new(
        "plan_root",
        js::object(&[("plan", js::text()), ("prior", prior)]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Draft, Prior};

    fn tree_with_root(plan: &str, prior: Prior) -> PlanTree {
        let mut t = PlanTree::new();
        t.add_root(
            Draft {
                plan: plan.into(),
                prior,
                hypothesis_id: Some("h-e1".into()),
            },
            "t",
        );
        t
    }

    #[test]
    fn only_an_untouched_design_root_waits_for_the_reflector() {
        let brief = "# Plan for h-e1\n\nthe brief";
        let marked = Prior {
            extra: [(DRAFTED_BY.to_string(), "reflector".into())]
                .into_iter()
                .collect(),
            ..Prior::default()
        };
        // (root plan, prior, asked for, due)
        let table = [
            (brief, Prior::default(), "h-e1", true),
            (brief, Prior::default(), "h-m1", false),
            (brief, marked, "h-e1", false),
            ("# A researcher's edit", Prior::default(), "h-e1", false),
        ];
        for (plan, prior, h, want) in table {
            let t = tree_with_root(plan, prior);
            assert_eq!(due(&t, h, brief).is_some(), want, "{plan} {h}");
        }
        // Once run, never drafted.
        let mut t = tree_with_root(brief, Prior::default());
        let root = t.roots().next().unwrap().id.clone();
        t.record_outcome(&root, crate::plan::Packet::default(), 0.05)
            .unwrap();
        assert!(due(&t, "h-e1", brief).is_none());
    }
}
