//! The plan tree in the hypothesis loop (PrimeScientist §3.2–3.3), on when `[plan]
//! budget_tokens` > 0: Coding & Validation of a sub-hypothesis is a tree search. Each attempt
//! executes one plan node of its sub-hypothesis, chosen by the configured policy with α from
//! the remaining budget; an evaluated leaf is expanded by the reflector role; the reward of
//! the gate backpropagates; the plan's own calls are charged from the ledger. The search goes
//! on after the first pass while the budget (and `after_pass`) allows, and its result is the
//! best passing node's measured result; an exhausted budget ends the loop.

use std::collections::BTreeMap;
use std::path::Path;

use crate::config::PlanSettings;
use crate::plan::code_snapshot::CodeSnapshot;
use crate::plan::node_code::{COMMIT_KEY, CodeError, ObjectId, Repo, node_commit, node_hypothesis};
use crate::plan::{
    Action, Budget, Draft, NodeId, Packet, PlanTree, Prior, parse_expansion, save_budget,
    save_selection,
};
use crate::rundir::events::Event;

use super::ctx::StageCtx;
use super::error::StageError;
pub(super) use super::plan_open::expansion_schema;
use super::plan_open::{choose, err, open};
pub use super::search_end::{After, AttemptRecord, Note, after_attempt};
use super::search_end::{limit_reached, search_field};

/// The node an attempt executes and the plan text it hands to the executor.
#[derive(Debug, Clone)]
pub struct Step {
    pub node: NodeId,
    pub plan: String,
}

/// What the next attempt of a sub-hypothesis does.
#[derive(Debug, Clone)]
pub enum Next {
    /// Execute this node.
    Run(Step),
    /// The budget is spent and nothing of this sub-hypothesis passed.
    Spent,
    /// The budget is spent (or the subtree exhausted) after a pass: the best node is the
    /// result.
    Settle(Note),
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Which attempt a node's packet records (`packet.extra["attempt"]`): the sub-hypothesis, its
/// round and the stage attempt, as the VSA counts them. The tree is saved before the VSA
/// records the gate, so a kill between the two leaves a packet the VSA does not know of yet;
/// the resumed attempt finds it by this key, executes the same node again and does not count
/// its reward twice.
fn attempt_key(ctx: &StageCtx<'_>, id: &str) -> String {
    format!("{id}#{}#{}", ctx.round, ctx.attempt)
}

/// The node a killed run of this very attempt executed and recorded, if any: by its
/// packet, or by a failed execution left to retry (`PlanNode::failed_attempts`).
fn recorded_by_this_attempt(tree: &PlanTree, key: &str) -> Option<NodeId> {
    tree.nodes()
        .iter()
        .find(|n| {
            n.packet
                .as_ref()
                .and_then(|p| p.extra.get("attempt"))
                .and_then(|v| v.as_str())
                == Some(key)
                || n.failed_attempts()
                    .iter()
                    .any(|p| p.extra.get("attempt").and_then(|v| v.as_str()) == Some(key))
        })
        .map(|n| n.id.clone())
}

/// Choose what attempt `id` executes next: its root plan the first time, else the node the
/// policy selects (expanding an evaluated leaf through the reflector first); or the end of
/// the budget.
pub fn next(
    ctx: &StageCtx<'_>,
    s: &PlanSettings,
    id: &str,
    root_plan: &str,
) -> Result<Next, StageError> {
    let (mut tree, mut budget) = open(ctx.run, s)?;
    crate::plan::charge_from_ledger(ctx.run, &mut budget, None)
        .map_err(err("charge the ledger"))?;
    save_budget(ctx.run, &budget).map_err(err("save the budget"))?;
    // Each sub-hypothesis searches under its own budget (the paper's B per task): r and
    // exhaustion are its own spend's, the run's sum stays in `budget.json`.
    let mine = budget.for_hypothesis(id);
    if mine.exhausted() {
        ctx.emit(
            Event::new("plan")
                .hypothesis(id)
                .result("budget exhausted")
                .message(format!(
                    "{id}: {} of its {} tokens spent",
                    mine.used_tokens, mine.total_tokens
                )),
        );
        let why = format!(
            "the budget is spent ({id}: {} of its {} tokens)",
            mine.used_tokens, mine.total_tokens
        );
        return Ok(settled(ctx, &tree, id, why));
    }
    if !tree.roots().any(|r| r.hypothesis_id.as_deref() == Some(id)) {
        let draft = Draft {
            plan: root_plan.to_string(),
            prior: Prior {
                estimate: Some(0.5),
                hypothesis: format!("the plan of {id} as designed"),
                ..Prior::default()
            },
            hypothesis_id: Some(id.to_string()),
        };
        let node = tree.add_root(draft, &now());
        tree.save(ctx.run, std::slice::from_ref(&node))
            .map_err(err("save"))?;
    }
    // The reflector drafts the root when the run asks (its call is planning, charged from
    // the ledger); otherwise the design brief is the root, and the design's call is the
    // search's planning, charged once (after a kill between the tree's save and the
    // budget's, here again).
    super::plan_root::draft_if_due(ctx, s, &mut tree, id, root_plan)?;
    if super::plan_root::drafted_by_design(s)
        && !budget.root_tokens.contains_key(id)
        && budget.charge_root(id, super::plan_open::root_draft_tokens(ctx.run, id))
    {
        save_budget(ctx.run, &budget).map_err(err("save the budget"))?;
    }
    if let Some(why) = limit_reached(ctx, s, id) {
        // A researcher who lowers `search.after_pass` mid-search ends it here, before another
        // node is selected or expanded.
        return Ok(settled(ctx, &tree, id, why));
    }
    if let Some(node) = recorded_by_this_attempt(&tree, &attempt_key(ctx, id)) {
        let plan = tree
            .get(&node)
            .and_then(|n| n.plan.clone())
            .unwrap_or_default();
        start_code(ctx, &tree, id, &node)?;
        ctx.roles.ledger().set_plan_node(Some(node.to_string()));
        return Ok(Next::Run(Step { node, plan }));
    }
    for _ in 0..4 {
        let selection = choose(&tree, &budget.for_hypothesis(id), s, id)?;
        save_selection(ctx.run, &selection).map_err(err("save the selection"))?;
        match selection.action {
            Action::Execute { node } => {
                let plan = tree
                    .get(&node)
                    .and_then(|n| n.plan.clone())
                    .unwrap_or_default();
                ctx.emit(
                    Event::new("plan")
                        .hypothesis(id)
                        .action("execute")
                        .message(format!(
                            "{node} (policy {:?}, r = {:.2})",
                            selection.policy, selection.remaining_share
                        )),
                );
                clear_forced(ctx.run, &mut budget)?;
                start_code(ctx, &tree, id, &node)?;
                ctx.roles.ledger().set_plan_node(Some(node.to_string()));
                return Ok(Next::Run(Step { node, plan }));
            }
            Action::Expand { node } | Action::Widen { node } => {
                expand(ctx, s, &mut tree, id, &node)?
            }
            Action::Exhausted => {
                return Ok(settled(
                    ctx,
                    &tree,
                    id,
                    "nothing left in the subtree".into(),
                ));
            }
        }
    }
    Err(StageError::MustStop(format!(
        "plan tree: no executable plan for {id} after four expansions"
    )))
}

fn clear_forced(run: &Path, budget: &mut Budget) -> Result<(), StageError> {
    if budget.extra.remove("forced").is_some() {
        save_budget(run, budget).map_err(err("save the budget"))?;
    }
    Ok(())
}

/// The reflector proposes up to three substantively different children of `node`.
fn expand(
    ctx: &StageCtx<'_>,
    s: &PlanSettings,
    tree: &mut PlanTree,
    id: &str,
    node: &NodeId,
) -> Result<(), StageError> {
    let parent = tree
        .get(node)
        .ok_or_else(|| StageError::MustStop(format!("plan tree: {node} vanished")))?;
    let plan = parent.plan.clone().unwrap_or_default();
    // What the reflector sees (`plan::evidence`): result, log head and tail, diff, the
    // failure analysis while it is this node's, siblings and children, the whole search in
    // outline and its memory of earlier proposals; 1..room children asked for.
    // The diff: the node's code and command from its parent's (`plan::node_code`), bounded;
    // a node without code (run before code per node) leaves the slot saying so.
    let fix = super::stages::fields::snapshot_field(ctx, id, "refinement");
    let diff =
        crate::plan::node_code::diff_to_parent(ctx.run, tree, node, crate::plan::DIFF_CHARS).ok();
    let evidence = crate::plan::evidence(tree, parent, diff.as_deref(), fix.as_deref());
    let m = tree.room(node).map_err(err("room"))?.min(s.max_children);
    let existing: Vec<String> = parent
        .children
        .iter()
        .filter_map(|c| tree.get(c)?.plan.clone())
        .collect();
    // The researcher's rejections at review (decision 0040) reach the reflector here.
    let prompt = crate::plan::expansion_prompt(&evidence, m)
        + &super::stages::review_marks::rejections_note(tree, id);
    let system = ctx.prompts.render("system/executor", &Default::default())?;
    // The reflector's rows are the plan's planning: charged to the budget, not to the node.
    ctx.roles
        .ledger()
        .set_plan_node(Some(format!("{}{node}", crate::plan::EXPAND_PREFIX)));
    let reply = ctx.ask_structured(
        "reflector",
        vec![
            crate::llm::Message::system(system),
            crate::llm::Message::user(prompt),
        ],
        &expansion_schema(m),
    );
    ctx.roles.ledger().set_plan_node(None);
    let reply = reply?;
    let refs: Vec<&str> = existing.iter().map(String::as_str).collect();
    let expansion = parse_expansion(&reply.to_string(), &plan, &refs, m, Some(id))
        .map_err(|e| StageError::Output(e.to_string()))?;
    let ids = tree
        .expand(node, expansion.drafts, s.max_children, &now())
        .map_err(err("expand"))?;
    let mut changed = ids.clone();
    changed.push(node.clone());
    tree.save(ctx.run, &changed).map_err(err("save"))?;
    ctx.emit(Event::new("plan").hypothesis(id).action("expand").message(
        format!("{node} → {}", ids.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ")),
    ));
    Ok(())
}

/// A git failure of the node code, as the run's stop (git missing: the install hint).
fn code_err(e: CodeError) -> StageError {
    StageError::MustStop(format!("plan tree: node code: {e}"))
}

/// The workspace's `code/` before `node`'s coder writes: its plan parent's code (a root
/// starts from an empty folder), so a child is its parent's code plus its own change.
fn start_code(
    ctx: &StageCtx<'_>,
    tree: &PlanTree,
    id: &str,
    node: &NodeId,
) -> Result<(), StageError> {
    let repo = Repo::open(ctx.run, id).map_err(code_err)?;
    let parent = tree.get(node).and_then(|n| n.parent.clone());
    let commit = match &parent {
        Some(p) => Some(node_commit(&repo, tree, p).map_err(code_err)?.ok_or_else(|| {
            StageError::MustStop(format!(
                "plan tree: {node}'s parent {p} has no recorded code (no commit in its packet.json nor refs/nodes/{p} in {}): it ran before youra kept code per node; veto {node} or start the search again",
                repo.git_dir().display()
            ))
        })?),
        None => None,
    };
    repo.start_from(commit.as_ref()).map_err(code_err)
}

/// Commit `code` (the tree youra wrote before the run; `None`: `code/` as it is), the
/// workspace's results and the command that ran them as `node` (its parent's commit as
/// parent). What the commit left out of `results/` is a violation event.
fn commit_code(
    ctx: &StageCtx<'_>,
    tree: &PlanTree,
    node: &NodeId,
    code: Option<&CodeSnapshot>,
    command: Option<&[String]>,
) -> Result<ObjectId, StageError> {
    let h = node_hypothesis(tree, node).ok_or_else(|| {
        StageError::MustStop(format!("plan tree: {node} belongs to no sub-hypothesis"))
    })?;
    let repo = Repo::open(ctx.run, &h).map_err(code_err)?;
    let n = tree
        .get(node)
        .ok_or_else(|| StageError::MustStop(format!("plan tree: {node} vanished")))?;
    let parent = match &n.parent {
        Some(p) => node_commit(&repo, tree, p).map_err(code_err)?,
        None => None,
    };
    let done = repo
        .commit_node(
            node,
            parent.as_ref(),
            code,
            n.plan.as_deref().unwrap_or(""),
            command,
        )
        .map_err(code_err)?;
    if !done.left_out.is_empty() {
        ctx.emit(
            Event::new("sandbox_violation")
                .hypothesis(&h)
                .message(format!(
                    "{node}: left out of its commit: {}",
                    done.left_out.join("; ")
                )),
        );
    }
    Ok(done.commit)
}

/// The settled search's best node's code and results back in the workspace: what
/// `results/` holds and what the paper's method check reads.
pub(crate) fn restore_best(
    ctx: &StageCtx<'_>,
    s: &PlanSettings,
    id: &str,
    node: &NodeId,
) -> Result<(), StageError> {
    let (tree, _) = open(ctx.run, s)?;
    let repo = Repo::open(ctx.run, id).map_err(code_err)?;
    let commit = node_commit(&repo, &tree, node).map_err(code_err)?.ok_or_else(|| {
        StageError::MustStop(format!(
            "plan tree: the best node {node} of {id} has no recorded code (no commit in its packet.json nor refs/nodes/{node})"
        ))
    })?;
    // The attempt that ran last keeps its files (under results/attempts/<n>/): its values
    // were measured, and the paper and `report check` may name them.
    crate::exec::keep_last_attempt(&ctx.run.join(id)).map_err(|e| {
        StageError::MustStop(format!(
            "plan tree: {id}'s last attempt could not be kept before {node}'s results come back: {e}"
        ))
    })?;
    repo.restore(&commit).map_err(code_err)?;
    ctx.emit(
        Event::new("plan")
            .hypothesis(id)
            .action("restore")
            .message(format!(
                "{node}: its code and results are the workspace's ({commit:.12})"
            )),
    );
    Ok(())
}

/// The argv that ran `node`'s code, as its commit records it (`command.json`): what a
/// confirmation run of the selected node runs again.
pub(crate) fn best_command(
    ctx: &StageCtx<'_>,
    s: &PlanSettings,
    id: &str,
    node: &NodeId,
) -> Result<Option<Vec<String>>, StageError> {
    let (tree, _) = open(ctx.run, s)?;
    let repo = Repo::open(ctx.run, id).map_err(code_err)?;
    let Some(commit) = node_commit(&repo, &tree, node).map_err(code_err)? else {
        return Ok(None);
    };
    let files = repo.files(&commit).map_err(code_err)?;
    let Some((_, bytes)) = files
        .iter()
        .find(|(p, _)| p == crate::plan::node_code::COMMAND_FILE)
    else {
        return Ok(None);
    };
    let argv = serde_json::from_slice::<serde_json::Value>(bytes)
        .ok()
        .and_then(|v| {
            v.get("argv")?
                .as_array()?
                .iter()
                .map(|a| a.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
        })
        .filter(|a| !a.is_empty());
    Ok(argv)
}

/// What an attempt measured, for its node's packet: the metrics and whether the gate passed.
pub(crate) struct Scored<'a> {
    pub reward: f64,
    pub measured: &'a BTreeMap<String, f64>,
    pub passed: bool,
}

/// What ran for a node: the tree of `code/` youra wrote before the run (`None` when no
/// experiment started: `code/` is as youra left it) and the command.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Ran<'a> {
    pub code: Option<&'a CodeSnapshot>,
    pub command: Option<&'a [String]>,
}

/// Record the attempt's reward (`None`: it produced no usable result) and backpropagate.
/// True when the node's run failed and the tree left it unrun to be selected again
/// (`[plan] max_node_retries`): the step goes on to another attempt rather than ending.
pub fn record(
    ctx: &StageCtx<'_>,
    s: &PlanSettings,
    node: &NodeId,
    scored: Option<Scored<'_>>,
    logs: Vec<String>,
    ran: Ran<'_>,
) -> Result<bool, StageError> {
    let reward = scored.as_ref().map(|x| x.reward);
    let (mut tree, mut budget) = open(ctx.run, s)?;
    crate::plan::charge_from_ledger(ctx.run, &mut budget, None)
        .map_err(err("charge the ledger"))?;
    let key = attempt_key(ctx, node_hypothesis(&tree, node).as_deref().unwrap_or("-"));
    if recorded_by_this_attempt(&tree, &key).as_ref() == Some(node) {
        // Recorded before a kill, by this same attempt: backpropagating again would count
        // one experiment twice.
        save_budget(ctx.run, &budget).map_err(err("save the budget"))?;
        ctx.roles.ledger().set_plan_node(None);
        let left = tree
            .get(node)
            .is_some_and(|n| n.status == crate::plan::NodeStatus::Untested);
        return Ok(reward.is_none() && left);
    }
    // The commit first: a kill before the tree's save leaves a ref the resumed attempt's
    // identical commit (fixed dates, same code) points at again.
    let commit = commit_code(ctx, &tree, node, ran.code, ran.command)?;
    let mut extra = serde_json::Map::new();
    extra.insert("attempt".into(), serde_json::Value::String(key));
    extra.insert(
        COMMIT_KEY.into(),
        serde_json::Value::String(commit.as_str().to_string()),
    );
    // The log brief for the reflector (`plan::evidence`: the reference's 100 head and 500
    // tail lines, within its cap): the log moves to `results/attempts/` at the next
    // attempt; `brief_lines` masks secrets.
    if let Some(log) = logs.first() {
        let b = crate::exec::brief_lines(
            &ctx.run.join(log),
            crate::plan::LOG_HEAD_LINES,
            crate::plan::LOG_TAIL_LINES,
        );
        crate::plan::keep_log_brief(&mut extra, &b.head, &b.tail, b.omitted);
    }
    if let Some(x) = &scored {
        extra.insert(crate::plan::PASSED_KEY.into(), x.passed.into());
        extra.insert(
            crate::plan::MEASURED_KEY.into(),
            serde_json::Value::Object(
                x.measured
                    .iter()
                    .filter_map(|(k, v)| {
                        Some((k.clone(), serde_json::Number::from_f64(*v)?.into()))
                    })
                    .collect(),
            ),
        );
    }
    let packet = Packet {
        reward: reward.unwrap_or(0.0),
        cost_tokens: budget.node_tokens.get(node.as_str()).copied().unwrap_or(0),
        logs,
        finished_at: now(),
        extra,
    };
    let (recorded, retry) = match reward {
        Some(_) => (tree.record_outcome(node, packet, s.delta), false),
        None => {
            // A failed execution leaves the node unrun while its retries last (the reference).
            match tree.record_failed_attempt(node, packet, s.max_node_retries) {
                Ok((r, retry)) => (Ok(r), retry),
                Err(e) => (Err(e), false),
            }
        }
    };
    let recorded = recorded.map_err(err("record"))?;
    tree.save(ctx.run, &recorded.changed).map_err(err("save"))?;
    save_budget(ctx.run, &budget).map_err(err("save the budget"))?;
    ctx.roles.ledger().set_plan_node(None);
    let pruned = if recorded.pruned {
        " (pruned: more than δ below its parent)"
    } else {
        ""
    };
    let message = if retry {
        let n = tree.get(node).map_or(0, |n| n.failed_attempts().len());
        format!(
            "{node}: failed without a reward; left unrun to be selected again ({n} of {} retries)",
            s.max_node_retries
        )
    } else {
        format!("{node}: reward {:.3}{pruned}", reward.unwrap_or(0.0))
    };
    ctx.emit(Event::new("plan").action("record").message(message));
    Ok(retry)
}

/// A researcher's plan directive (from `workflow.steering`: pin, unpin, veto, unveto,
/// force, edit, budget, alpha-max) applied to the tree and the budget on disk; `Err` says
/// why it cannot apply. A forced node is kept in the budget file until the attempt that
/// executes it. An `edit` reads its new plan from `plan_file`, the run-relative file that
/// `steer::apply` saved under `plan/edits/`.
pub fn steer(
    run: &Path,
    s: &PlanSettings,
    verb: &str,
    target: Option<&str>,
    plan_file: Option<&str>,
) -> Result<String, String> {
    if !run
        .join(crate::plan::PLAN_DIR)
        .join(crate::plan::TREE_FILE)
        .is_file()
    {
        return Err(
            "this run has no plan tree yet (set [plan] budget_tokens to search one)".into(),
        );
    }
    let (mut tree, mut budget) = open(run, s).map_err(|e| e.to_string())?;
    let directive = match verb {
        "edit" => edit_directive(run, target, plan_file)?,
        _ => crate::plan::parse_directive(verb, target).map_err(|e| e.to_string())?,
    };
    let applied = crate::plan::apply_directive(&mut tree, &mut budget, &directive)
        .map_err(|e| e.to_string())?;
    if let Some(f) = &applied.forced {
        budget
            .extra
            .insert("forced".into(), serde_json::Value::String(f.to_string()));
    }
    tree.save(run, &applied.changed)
        .map_err(|e| e.to_string())?;
    save_budget(run, &budget).map_err(|e| e.to_string())?;
    Ok(applied.note)
}

/// `edit <node>` with its plan text, read from `plan_file` (only a file under
/// `plan/edits/` of this run: the directive is outside data).
fn edit_directive(
    run: &Path,
    target: Option<&str>,
    plan_file: Option<&str>,
) -> Result<crate::plan::PlanDirective, String> {
    let node =
        NodeId::new(target.map(str::trim).unwrap_or_default()).map_err(|e| format!("edit: {e}"))?;
    let Some(rel) = plan_file.map(str::trim).filter(|p| !p.is_empty()) else {
        return Err("edit: the directive names no plan_file (`youra steer … edit <node> --plan-file <path>` writes one)".into());
    };
    let inside = Path::new(rel).starts_with(crate::steer::EDITS_DIR)
        && Path::new(rel)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
    if !inside {
        return Err(format!(
            "edit: plan_file `{rel}` is not a file under {}/ of this run",
            crate::steer::EDITS_DIR
        ));
    }
    let plan = crate::fsutil::read_run_text(run.join(rel))
        .map_err(|e| format!("edit: cannot read {rel}: {e}"))?;
    if plan.trim().is_empty() {
        return Err(format!("edit: {rel} is empty"));
    }
    Ok(crate::plan::PlanDirective::Edit {
        node,
        plan,
        prior: None,
    })
}

/// The end of `id`'s search without another attempt: its best node, or nothing passed.
fn settled(ctx: &StageCtx<'_>, tree: &PlanTree, id: &str, why: String) -> Next {
    match crate::plan::best_passing(tree, id) {
        Some(best) => Next::Settle(Note {
            best,
            why,
            after_pass_attempts: search_field(ctx, id, "after_pass_attempts")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0),
            confirmed_on: None,
            attempt: None,
        }),
        None => Next::Spent,
    }
}
