//! The researcher's plan directives applied to the tree and the budget (pure). The engine
//! takes them from `workflow.steering` (verbs `pin`, `veto`, `force`, and the budget and
//! α_max changes), applies them here, saves what changed, and records the returned note as
//! the directive's `applied` note, or the refusal as its `rejected` note.
//!
//! Rules: the latest word wins (pinning a vetoed node lifts the veto and vice versa); a
//! node that can never be entered again (pruned, failed) cannot be pinned: force it to
//! expand it instead; forcing a vetoed node lifts the veto, since forcing says "run this".

use super::budget::Budget;
use super::error::PlanError;
use super::files::{NodeStatus, Prior};
use super::id::NodeId;
use super::select::force;
use super::tree::PlanTree;
use super::values::REEXPAND_LIMIT;

/// The largest α_max accepted: 0.95^100 ≈ 0.006, sharp enough to be greedy in effect.
pub const ALPHA_MAX_LIMIT: f64 = 100.0;

#[derive(Debug, Clone, PartialEq)]
pub enum PlanDirective {
    Pin(NodeId),
    Unpin(NodeId),
    Veto(NodeId),
    Unveto(NodeId),
    /// Run (untested) or expand (evaluated) this node next.
    Force(NodeId),
    /// Replace an untested plan, and its prior when given.
    Edit {
        node: NodeId,
        plan: String,
        prior: Option<Prior>,
    },
    /// New totals; `None` keeps the current one.
    Budget {
        total_tokens: Option<u64>,
        time_budget_secs: Option<f64>,
    },
    AlphaMax(f64),
}

/// What applying a directive did.
#[derive(Debug, Clone, PartialEq)]
pub struct DirectiveApplied {
    /// One line for the directive's `note` and the TUI.
    pub note: String,
    /// Nodes whose files must be saved (`PlanTree::save`); `tree.json` in every case.
    pub changed: Vec<NodeId>,
    /// `plan/budget.json` must be saved.
    pub budget_changed: bool,
    /// The next selection must be `plan::force(…, id)` instead of `plan::select`.
    pub forced: Option<NodeId>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DirectiveRefused(pub String);

fn refused(e: PlanError) -> DirectiveRefused {
    DirectiveRefused(e.to_string())
}

/// Apply one directive, or say why it cannot apply (nothing is changed then).
pub fn apply_directive(
    tree: &mut PlanTree,
    budget: &mut Budget,
    d: &PlanDirective,
) -> Result<DirectiveApplied, DirectiveRefused> {
    match d {
        PlanDirective::Pin(id) => pin(tree, id),
        PlanDirective::Unpin(id) => mark(tree, id, |t, id| t.set_pinned(id, false), "unpinned"),
        PlanDirective::Veto(id) => veto(tree, id),
        PlanDirective::Unveto(id) => mark(tree, id, |t, id| t.set_vetoed(id, false), "veto lifted"),
        PlanDirective::Force(id) => forced(tree, budget, id),
        PlanDirective::Edit { node, plan, prior } => {
            tree.edit(node, plan.clone(), prior.clone())
                .map_err(refused)?;
            Ok(nodes(format!("{node}: plan replaced"), node))
        }
        PlanDirective::Budget {
            total_tokens,
            time_budget_secs,
        } => change_budget(budget, *total_tokens, *time_budget_secs),
        PlanDirective::AlphaMax(a) => alpha_max(budget, *a),
    }
}

fn nodes(note: String, id: &NodeId) -> DirectiveApplied {
    DirectiveApplied {
        note,
        changed: vec![id.clone()],
        budget_changed: false,
        forced: None,
    }
}

fn mark(
    tree: &mut PlanTree,
    id: &NodeId,
    set: impl FnOnce(&mut PlanTree, &NodeId) -> Result<(), PlanError>,
    what: &str,
) -> Result<DirectiveApplied, DirectiveRefused> {
    set(tree, id).map_err(refused)?;
    Ok(nodes(format!("{id}: {what}"), id))
}

fn status(tree: &PlanTree, id: &NodeId) -> Result<(NodeStatus, bool, bool), DirectiveRefused> {
    tree.get(id)
        .map(|n| (n.status, n.pinned, n.vetoed))
        .ok_or_else(|| refused(PlanError::UnknownNode { id: id.clone() }))
}

fn pin(tree: &mut PlanTree, id: &NodeId) -> Result<DirectiveApplied, DirectiveRefused> {
    let (status, _, vetoed) = status(tree, id)?;
    if matches!(status, NodeStatus::Pruned | NodeStatus::Failed) {
        return Err(DirectiveRefused(format!(
            "plan node `{id}` is {}: selection never enters it, so a pin would do nothing; `force` it to expand it instead",
            status.name()
        )));
    }
    tree.set_pinned(id, true).map_err(refused)?;
    let lifted = if vetoed {
        tree.set_vetoed(id, false).map_err(refused)?;
        " (its veto lifted)"
    } else {
        ""
    };
    Ok(nodes(
        format!("{id}: pinned, selection takes it (or the way to it) first{lifted}"),
        id,
    ))
}

fn veto(tree: &mut PlanTree, id: &NodeId) -> Result<DirectiveApplied, DirectiveRefused> {
    let (status, pinned, _) = status(tree, id)?;
    tree.set_vetoed(id, true).map_err(refused)?;
    let mut note = format!("{id}: vetoed, selection never enters it or its subtree");
    if pinned {
        tree.set_pinned(id, false).map_err(refused)?;
        note.push_str(" (its pin removed)");
    }
    if status == NodeStatus::Running {
        note.push_str("; the attempt already running finishes and is recorded");
    }
    Ok(nodes(note, id))
}

fn forced(
    tree: &mut PlanTree,
    budget: &Budget,
    id: &NodeId,
) -> Result<DirectiveApplied, DirectiveRefused> {
    let (_, _, vetoed) = status(tree, id)?;
    let sel = force(tree, budget, REEXPAND_LIMIT, id).map_err(refused)?;
    let mut note = match sel.action {
        super::Action::Execute { .. } => format!("{id}: forced, it runs next"),
        _ => format!("{id}: forced, it is expanded next"),
    };
    if vetoed {
        tree.set_vetoed(id, false).map_err(refused)?;
        note.push_str(" (its veto lifted)");
    }
    Ok(DirectiveApplied {
        forced: Some(id.clone()),
        ..nodes(note, id)
    })
}

fn change_budget(
    budget: &mut Budget,
    total_tokens: Option<u64>,
    secs: Option<f64>,
) -> Result<DirectiveApplied, DirectiveRefused> {
    if total_tokens == Some(0) {
        return Err(DirectiveRefused(
            "a token budget of 0 would end the search at once; give a positive number".into(),
        ));
    }
    if let Some(s) = secs
        && !(s.is_finite() && s > 0.0)
    {
        return Err(DirectiveRefused(format!(
            "a time budget of {s} seconds is not usable; give a positive number of seconds"
        )));
    }
    if total_tokens.is_none() && secs.is_none() {
        return Err(DirectiveRefused(
            "the budget change names neither tokens nor time".into(),
        ));
    }
    let mut said = Vec::new();
    if let Some(t) = total_tokens {
        said.push(format!("tokens {} → {t}", budget.total_tokens));
        budget.total_tokens = t;
    }
    if let Some(s) = secs {
        let was = budget
            .time_budget_secs
            .map_or_else(|| "none".to_string(), |w| format!("{w}s"));
        said.push(format!("time {was} → {s}s"));
        budget.time_budget_secs = Some(s);
    }
    let mut note = format!(
        "budget: {}; r = {:.3}",
        said.join(", "),
        budget.remaining_share()
    );
    if budget.exhausted() {
        note.push_str(" (already spent: the run moves on to Evidence Check)");
    }
    Ok(budget_note(note))
}

fn budget_note(note: String) -> DirectiveApplied {
    DirectiveApplied {
        note,
        changed: Vec::new(),
        budget_changed: true,
        forced: None,
    }
}

fn alpha_max(budget: &mut Budget, a: f64) -> Result<DirectiveApplied, DirectiveRefused> {
    if !(a.is_finite() && a > 0.0 && a <= ALPHA_MAX_LIMIT) {
        return Err(DirectiveRefused(format!(
            "α_max {a} is out of range: give a number in (0, {ALPHA_MAX_LIMIT}] (the default is 10)"
        )));
    }
    let was = budget.alpha_max;
    budget.alpha_max = a;
    Ok(budget_note(format!("α_max {was} → {a}")))
}

/// A directive from a steering verb and its target as `workflow.steering` holds them:
/// `pin|unpin|veto|unveto|force <node>`, `budget tokens=<n>[,time=<secs>]` (k/M suffixes
/// allowed), `alpha_max <a>`. Edits carry a plan text and are built by the caller.
pub fn parse_directive(
    verb: &str,
    target: Option<&str>,
) -> Result<PlanDirective, DirectiveRefused> {
    let verb = verb.trim().to_ascii_lowercase();
    let target = target.map(str::trim).filter(|t| !t.is_empty());
    let need = || target.ok_or_else(|| DirectiveRefused(format!("`{verb}` needs a target")));
    let node = || {
        let raw = need()?;
        NodeId::new(raw).map_err(|e| DirectiveRefused(e.to_string()))
    };
    Ok(match verb.as_str() {
        "pin" => PlanDirective::Pin(node()?),
        "unpin" => PlanDirective::Unpin(node()?),
        "veto" => PlanDirective::Veto(node()?),
        "unveto" => PlanDirective::Unveto(node()?),
        "force" => PlanDirective::Force(node()?),
        "budget" => parse_budget(need()?)?,
        "alpha_max" | "alpha-max" => {
            let raw = need()?;
            PlanDirective::AlphaMax(
                raw.parse()
                    .map_err(|_| DirectiveRefused(format!("α_max `{raw}` is not a number")))?,
            )
        }
        other => {
            return Err(DirectiveRefused(format!(
                "`{other}` is not a plan directive (pin, unpin, veto, unveto, force, budget, alpha_max)"
            )));
        }
    })
}

fn parse_budget(raw: &str) -> Result<PlanDirective, DirectiveRefused> {
    let mut tokens = None;
    let mut secs = None;
    for part in raw.split([',', ' ']).filter(|p| !p.is_empty()) {
        let bad = || {
            DirectiveRefused(format!(
                "budget `{part}` not understood: write tokens=<n> and/or time=<seconds> (e.g. tokens=1.5M,time=7200)"
            ))
        };
        let (key, value) = part.split_once('=').ok_or_else(bad)?;
        let n = scaled(value).ok_or_else(bad)?;
        match key.trim() {
            "tokens" if n >= 0.0 => tokens = Some(n.round() as u64),
            "time" | "secs" => secs = Some(n),
            _ => return Err(bad()),
        }
    }
    Ok(PlanDirective::Budget {
        total_tokens: tokens,
        time_budget_secs: secs,
    })
}

/// `1500000`, `1.5M`, `800k`.
fn scaled(raw: &str) -> Option<f64> {
    let raw = raw.trim();
    let (num, mult) = match raw.chars().last()? {
        'k' | 'K' => (&raw[..raw.len() - 1], 1e3),
        'm' | 'M' => (&raw[..raw.len() - 1], 1e6),
        _ => (raw, 1.0),
    };
    num.parse::<f64>()
        .ok()
        .map(|n| n * mult)
        .filter(|n| n.is_finite())
}

#[cfg(test)]
#[path = "directives_tests.rs"]
mod tests;
