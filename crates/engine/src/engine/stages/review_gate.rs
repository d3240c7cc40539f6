//! Experiment review (issue 42 item 1, decision 0040): after the code is written and its
//! compliance tests passed, and before the sandboxed job starts, `[review] before_experiment`
//! may hold the experiment for the researcher. The engine writes what waits — sub-hypothesis,
//! plan node, criteria, command, the code's diff from the parent node and the estimated cost —
//! to `reviews/<id>.json` and `workflow.pending_review`, calls the researcher (the `review`
//! event: `[notify]`, the TUI's bell and ⚑) and waits, like an escalation, for an answer or the
//! run's waiting policy (`approval_timeout_s`, `approval_default`). Approve runs it; `branch`
//! runs it and the rest of the sub-hypothesis unasked; `edit` runs the researcher's version of a
//! file (recorded as theirs on the node, ✎, and in the VSA's history); reject prunes the node
//! (a root's code is written again instead) and its reason reaches the reflector's next
//! expansion (`rejections_note`). Who answered comes from the answer (`vsa::actor`).

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::json;

use super::coding_state::Progress;
use super::review_cost::{self, Estimate};
use super::review_marks::{REJECT_KEY, unified};
use crate::config_review::{BeforeExperiment, Upcoming};
use crate::engine::ctx::StageCtx;
use crate::engine::error::StageError;
use crate::engine::yamlout::{now, text};
use crate::plan::code_snapshot::CodeSnapshot;
use crate::plan::{NodeId, NodeStatus, PlanTree};
use crate::rundir::events::Event;
use crate::vsa::mutation::{Change, Mutation};
use crate::vsa::review::{self as rv, Answer, PendingReview, ReviewDecision};
use crate::yaml::NewNode;

/// The most characters of diff a review record holds (the card scrolls; the node's commit
/// keeps everything).
const DIFF_CHARS: usize = 60_000;
/// What the review decided about the experiment.
pub(super) enum Reviewed {
    /// Run this code: youra's, or with the researcher's edit.
    Run(CodeSnapshot),
    Rejected(Rejection),
}

/// A rejection: who, why, at which review.
pub(super) struct Rejection {
    pub review: String,
    pub by: String,
    pub reason: String,
}

impl Rejection {
    /// What the coder hears when there is no node to prune (no plan tree, or a root).
    pub(super) fn prompt(&self) -> String {
        format!(
            "The researcher ({}) rejected this code at review {} before it ran: {}\nWrite the experiment again so that it answers this objection.",
            self.by, self.review, self.reason
        )
    }
}

/// The review before `p`'s experiment, when `[review]` asks for one; else the code as is.
pub(super) fn before_experiment(
    ctx: &StageCtx<'_>,
    p: &Progress,
    argv: &[String],
    code: CodeSnapshot,
) -> Result<Reviewed, StageError> {
    if ctx.review.before_experiment == BeforeExperiment::Never {
        return Ok(Reviewed::Run(code));
    }
    let snap = ctx.vsa()?;
    let id = p.id.as_str();
    let node = p.step.as_ref().map(|s| s.node.to_string());
    // Raised for this very experiment (same node, same code) before a restart: wait on it
    // again. Other code written since is reviewed anew: nobody saw it.
    let sha = code_sha(&code);
    let same = |r: &PendingReview| {
        r.hypothesis.as_deref() == Some(id)
            && r.node == node
            && r.code_sha.as_deref() == Some(sha.as_str())
    };
    let review = match snap.vsa.workflow.review.clone().filter(same) {
        // Called again: the engine that raised it may have died before its call went out.
        Some(r) if r.waits() => {
            ctx.emit(
                Event::new("review")
                    .hypothesis(id)
                    .action(node.as_deref().unwrap_or("-"))
                    .message(format!(
                        "{} still waits (the engine started again)",
                        r.id.as_deref().unwrap_or("?")
                    )),
            );
            r
        }
        Some(r) => r,
        None => {
            let tree = match &node {
                Some(_) => Some(crate::engine::plan_open::open(ctx.run, ctx.plan)?.0),
                None => None,
            };
            let est = review_cost::estimate(
                ctx.run,
                tree.as_ref(),
                id,
                ctx.settings.experiment_time_limit_s,
            );
            let up = Upcoming {
                new_branch: new_branch(&snap, p, tree.as_ref()),
                branch_approved: rv::approved_branches(&snap.doc).iter().any(|b| b == id),
                tokens: est.tokens,
                wall_s: Some(est.wall_or_limit()),
            };
            if !ctx.review.applies(&up) {
                return Ok(Reviewed::Run(code));
            }
            raise(ctx, &snap, p, tree.as_ref(), argv, &code, &est)?
        }
    };
    let decision = wait(ctx, &review)?;
    resolve(ctx, p, &review, &decision, code)
}

/// The sha256 of the code's paths, bytes and modes, in path order.
fn code_sha(code: &CodeSnapshot) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for (path, bytes, exec) in code.files() {
        h.update((path.len() as u64).to_le_bytes());
        h.update(path.as_bytes());
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
        h.update([u8::from(exec)]);
    }
    format!("{:x}", h.finalize())
}

/// The first experiment of its sub-hypothesis: no gate verdict, no earlier attempt, and no
/// node of it has run.
fn new_branch(snap: &crate::vsa::Snapshot, p: &Progress, tree: Option<&PlanTree>) -> bool {
    let untried = snap
        .vsa
        .sub_hypotheses
        .iter()
        .find(|s| s.id == p.id)
        .is_some_and(|s| s.gate.result.is_none() && s.gate.satisfied.is_none());
    let ran = tree.is_some_and(|t| {
        t.nodes().iter().any(|n| {
            n.packet.is_some()
                && crate::plan::node_code::node_hypothesis(t, &n.id).as_deref() == Some(&p.id)
        })
    });
    untried && !ran && p.attempt == 1 && p.history.is_empty()
}

/// Record what waits and call the researcher.
fn raise(
    ctx: &StageCtx<'_>,
    snap: &crate::vsa::Snapshot,
    p: &Progress,
    tree: Option<&PlanTree>,
    argv: &[String],
    code: &CodeSnapshot,
    est: &Estimate,
) -> Result<PendingReview, StageError> {
    let rid = format!("rv-{}", snap.vsa.revision + 1);
    let id = p.id.as_str();
    let node = p.step.as_ref().map(|s| s.node.clone());
    let statement = snap
        .vsa
        .sub_hypotheses
        .iter()
        .find(|s| s.id == id)
        .and_then(|s| s.statement.clone())
        .unwrap_or_default();
    let parent = node.as_ref().and_then(|n| tree?.get(n)?.parent.clone());
    let diff = diff_from_parent(ctx, tree, id, parent.as_ref(), code);
    let command = argv.join(" ");
    let record_path = format!("{}/{rid}.json", rv::RECORDS_DIR);
    let record = json!({
        "id": rid,
        "hypothesis": id,
        "statement": statement,
        "node": node.as_ref().map(|n| n.to_string()),
        "parent": parent.as_ref().map(|n| n.to_string()),
        "plan": p.step.as_ref().map(|s| s.plan.clone()),
        "criteria": p.criteria.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
        "command": argv,
        "diff": crate::plan::node_code::bounded(&diff, DIFF_CHARS),
        "cost": est,
    });
    write_record(ctx, &record_path, &record)?;
    // The forecast stays on the node, to be checked against what it really cost.
    if let Some(n) = &node {
        let (mut tree, _) = crate::engine::plan_open::open(ctx.run, ctx.plan)?;
        if let Some(pn) = tree.nodes_mut().iter_mut().find(|x| &x.id == n) {
            pn.extra.insert(
                rv::NODE_FORECAST_KEY.into(),
                json!({"tokens": est.tokens, "wall_s": est.wall_s, "review": rid}),
            );
        }
        tree.save(ctx.run, std::slice::from_ref(n))
            .map_err(|e| StageError::MustStop(format!("plan tree: save: {e}")))?;
    }
    let why = format!(
        "{id}'s experiment{} waits for review ({rid}): {}",
        node.as_ref().map(|n| format!(" ({n})")).unwrap_or_default(),
        est.line()
    );
    let opt = |v: Option<String>| v.map_or_else(|| NewNode::Scalar("null".into()), |v| text(&v));
    let value = NewNode::Map(vec![
        ("id".into(), text(&rid)),
        ("raised_at".into(), now()),
        ("hypothesis".into(), text(id)),
        ("node".into(), opt(node.as_ref().map(|n| n.to_string()))),
        ("record".into(), text(&record_path)),
        ("command".into(), text(&command)),
        ("code_sha".into(), text(&code_sha(code))),
        ("tokens".into(), opt(est.tokens.map(|t| t.to_string()))),
        ("wall_s".into(), opt(est.wall_s.map(|w| format!("{w:.1}")))),
        ("decision".into(), NewNode::Scalar("null".into())),
    ]);
    let next = format!(
        "Review {id}'s experiment ({rid}): youra steer <run> review approve|reject|branch|edit <file>"
    );
    let m = Mutation::by("engine")
        .with(
            Change::Put {
                path: rv::PATH.into(),
                value,
            },
            rv::EVENT,
            &why,
        )
        .with(
            Change::Put {
                path: "workflow.next_action".into(),
                value: text(&next),
            },
            rv::EVENT,
            &why,
        );
    ctx.store.mutate(&m)?;
    ctx.emit(
        Event::new("review")
            .hypothesis(id)
            .action(node.as_ref().map_or("-", |n| n.as_str()))
            .message(format!("{rid} waits: {}", est.line())),
    );
    ctx.vsa()?.vsa.workflow.review.clone().ok_or_else(|| {
        StageError::MustStop(format!("review {rid} was written but does not read back"))
    })
}

fn write_record(
    ctx: &StageCtx<'_>,
    rel: &str,
    value: &serde_json::Value,
) -> Result<(), StageError> {
    let path = ctx.run.join(rel);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| StageError::io("create", dir, e))?;
    }
    let bytes = serde_json::to_vec_pretty(value).unwrap_or_default();
    crate::fsutil::write_atomic(&path, &bytes).map_err(|e| StageError::io("write", &path, e))
}

/// `code`'s files against the parent node's committed code (a root, or a run without a plan
/// tree: against nothing), as unified diffs.
fn diff_from_parent(
    ctx: &StageCtx<'_>,
    tree: Option<&PlanTree>,
    h: &str,
    parent: Option<&NodeId>,
    code: &CodeSnapshot,
) -> String {
    let mut before: Vec<(String, Vec<u8>)> = Vec::new();
    if let (Some(tree), Some(parent)) = (tree, parent)
        && let Ok(repo) = crate::plan::node_code::Repo::open(ctx.run, h)
        && let Ok(Some(commit)) = crate::plan::node_code::node_commit(&repo, tree, parent)
        && let Ok(files) = repo.files(&commit)
    {
        before = files
            .into_iter()
            .filter_map(|(p, b)| Some((p.strip_prefix("code/")?.to_string(), b)))
            .collect();
    }
    let after: Vec<(String, Vec<u8>)> = code
        .files()
        .map(|(p, b, _)| (p.to_string(), b.to_vec()))
        .collect();
    unified(&before, &after)
}

/// Poll the VSA until the review is answered, the waiting policy decides, or the engine is
/// stopped. Bounded by the researcher's answer, `approval_timeout_s` when set, or the cancel.
fn wait(ctx: &StageCtx<'_>, review: &PendingReview) -> Result<ReviewDecision, StageError> {
    let rid = review.id.clone().unwrap_or_default();
    let poll = Duration::from_secs_f64(ctx.settings.wait_poll_s.clamp(0.01, 5.0));
    loop {
        let snap = ctx.vsa()?;
        match snap.vsa.workflow.review.as_ref() {
            Some(r) if r.id == review.id => {
                if let Some(d) = &r.decision {
                    return Ok(d.clone());
                }
            }
            _ => {
                return Err(StageError::Rerouted(format!(
                    "review {rid} left workflow.pending_review unanswered; the step starts again"
                )));
            }
        }
        if ctx.cancel.load(Ordering::Relaxed) {
            return Err(StageError::Rerouted(format!(
                "the engine was stopped while {rid} waited for review"
            )));
        }
        let e = ctx.settings;
        if let Some(verdict) = crate::engine::escalation::overdue(
            review.raised_at.as_deref(),
            e.approval_timeout_s,
            e.approval_default.as_str(),
            chrono::Utc::now(),
        ) {
            let why = format!("no answer to {rid} within {} s", e.approval_timeout_s);
            if verdict == "stop" {
                return Err(StageError::MustStop(format!(
                    "{why} (approval_default = stop)"
                )));
            }
            let value = NewNode::Map(vec![
                ("verdict".into(), text(&verdict)),
                ("by".into(), text("policy")),
                ("at".into(), now()),
                ("reason".into(), text(&why)),
            ]);
            ctx.store.mutate(&Mutation::new(
                Change::Put {
                    path: rv::DECISION_PATH.into(),
                    value,
                },
                rv::EVENT,
                "engine",
                &format!("waiting policy: {verdict}"),
            ))?;
            continue;
        }
        std::thread::sleep(poll);
    }
}

/// Apply the answer: the record and the log first, then what it means for the experiment.
fn resolve(
    ctx: &StageCtx<'_>,
    p: &Progress,
    review: &PendingReview,
    d: &ReviewDecision,
    code: CodeSnapshot,
) -> Result<Reviewed, StageError> {
    let rid = review.id.clone().unwrap_or_default();
    let Some(answer) = d.answer() else {
        return Err(StageError::MustStop(format!(
            "review {rid}'s answer `{}` is none of approve, reject, branch, edit: answer with `youra steer <run> review …`",
            d.verdict_text.as_deref().unwrap_or("")
        )));
    };
    let by = d.by.clone().unwrap_or_else(|| "someone".into());
    let reason = d.reason.clone().unwrap_or_default();
    let code = match answer {
        Answer::Edit => super::review_edit::apply(ctx, p, &rid, d, &code)?,
        _ => code,
    };
    let why = format!("{rid} {} by {by}: {reason}", answer.as_str());
    let mut item = vec![
        ("id".to_string(), text(&rid)),
        ("hypothesis".into(), text(&p.id)),
        ("verdict".into(), text(answer.as_str())),
        ("by".into(), text(&by)),
        ("reason".into(), text(&reason)),
    ];
    if let Some(n) = &review.node {
        item.push(("node".into(), text(n)));
    }
    if let Some(path) = d.path.as_deref().filter(|_| answer == Answer::Edit) {
        item.push(("path".into(), text(path)));
    }
    let mut m = Mutation::by("engine")
        .with(
            Change::Append {
                list: "workflow.review_log".into(),
                item: NewNode::Map(item),
            },
            rv::EVENT,
            &why,
        )
        .with(
            Change::Put {
                path: rv::PATH.into(),
                value: NewNode::Scalar("null".into()),
            },
            rv::EVENT,
            &why,
        )
        .with(
            Change::Put {
                path: "workflow.next_action".into(),
                value: NewNode::Scalar("null".into()),
            },
            rv::EVENT,
            &why,
        );
    if answer == Answer::Branch {
        m.push(
            Change::Append {
                list: rv::BRANCHES_LIST.into(),
                item: text(&p.id),
            },
            rv::EVENT,
            &why,
        );
    }
    ctx.store.mutate(&m)?;
    ctx.emit(
        Event::new("review")
            .hypothesis(&p.id)
            .result(answer.as_str())
            .actor(&by)
            .message(why.clone()),
    );
    match answer {
        Answer::Reject => Ok(Reviewed::Rejected(Rejection {
            review: rid,
            by,
            reason,
        })),
        _ => Ok(Reviewed::Run(code)),
    }
}

/// After a rejection: the node is pruned (never selected, its reason kept on it for the
/// reflector) and the step starts again (`Some(note)`); `None` when there is no node to prune
/// (no plan tree, or the root: the sub-hypothesis's plan as designed), and the coder writes
/// the code again with the reason.
pub(super) fn after_rejection(
    ctx: &StageCtx<'_>,
    p: &Progress,
    r: &Rejection,
) -> Result<Option<String>, StageError> {
    let Some(step) = &p.step else {
        return Ok(None);
    };
    let (mut tree, _) = crate::engine::plan_open::open(ctx.run, ctx.plan)?;
    if tree.get(&step.node).is_none_or(|n| n.parent.is_none()) {
        return Ok(None);
    }
    if let Some(n) = tree.nodes_mut().iter_mut().find(|n| n.id == step.node) {
        n.status = NodeStatus::Pruned;
        n.extra.insert(
            REJECT_KEY.into(),
            json!({"review": r.review, "by": r.by, "reason": r.reason}),
        );
    }
    tree.save(ctx.run, std::slice::from_ref(&step.node))
        .map_err(|e| StageError::MustStop(format!("plan tree: save: {e}")))?;
    ctx.roles.ledger().set_plan_node(None);
    let note = format!(
        "{}: rejected at review {} by {} ({}); pruned, the search goes on without it",
        step.node, r.review, r.by, r.reason
    );
    ctx.emit(
        Event::new("plan")
            .hypothesis(&p.id)
            .action("prune")
            .message(note.clone()),
    );
    Ok(Some(note))
}

/// The wall time a reviewed node's experiment took, kept beside its forecast (the Plan pane
/// shows the error); a node that was not reviewed is left as it is.
pub(super) fn record_wall(ctx: &StageCtx<'_>, node: &NodeId, secs: f64) -> Result<(), StageError> {
    // No reviews, no forecasts: the tree is not read again for nothing.
    if ctx.review.before_experiment == BeforeExperiment::Never {
        return Ok(());
    }
    let (mut tree, _) = crate::engine::plan_open::open(ctx.run, ctx.plan)?;
    let Some(n) = tree.nodes_mut().iter_mut().find(|n| &n.id == node) else {
        return Ok(());
    };
    let Some(f) = n
        .extra
        .get_mut(rv::NODE_FORECAST_KEY)
        .and_then(|f| f.as_object_mut())
    else {
        return Ok(());
    };
    f.insert("actual_wall_s".into(), json!((secs * 10.0).round() / 10.0));
    tree.save(ctx.run, std::slice::from_ref(node))
        .map_err(|e| StageError::MustStop(format!("plan tree: save: {e}")))
}
