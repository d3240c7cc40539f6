//! What the VSA says of a sub-hypothesis now, as the hypothesis loop's stages and the
//! plan search read it: a text field (`refinement`, `design_constraint`, `search.*`) and the
//! gate criteria in force. Read at the moment of asking, never cached; below every stage file
//! so that none imports another to read the VSA.

use crate::engine::criteria;
use crate::engine::ctx::StageCtx;
use crate::engine::error::StageError;

/// The gate criteria in force for `id`: the VSA's, else the brief's.
pub(in crate::engine) fn criteria_now(
    ctx: &StageCtx<'_>,
    id: &str,
    brief: &str,
) -> Result<criteria::Criteria, StageError> {
    criteria::current(&*ctx.vsa()?, id, brief).map_err(|e| StageError::MustStop(format!("{id}: the gate criteria cannot be read ({e}); set sub_hypotheses.{id}.gate.criteria or fix {id}/02c_experiment_brief.md, and retry")))
}

/// A text field of the sub-hypothesis in the VSA (`refinement`, `design_constraint`).
pub(crate) fn snapshot_field(ctx: &StageCtx<'_>, id: &str, key: &str) -> Option<String> {
    hypothesis_text(ctx, id, &[key])
}

/// The trimmed, non-empty scalar at `sub_hypotheses.<id>.<path…>` as the VSA has it now
/// (`["search", "after_pass"]`).
pub(crate) fn hypothesis_text(ctx: &StageCtx<'_>, id: &str, path: &[&str]) -> Option<String> {
    let snap = ctx.vsa().ok()?;
    let v = hypothesis_node(&snap, id, path)?
        .as_str()?
        .trim()
        .to_string();
    (!v.is_empty()).then_some(v)
}

/// The node at `sub_hypotheses.<id>.<path…>` of a snapshot, as the file has it.
pub(crate) fn hypothesis_node<'a>(
    snap: &'a crate::vsa::store::Snapshot,
    id: &str,
    path: &[&str],
) -> Option<&'a crate::yaml::Node> {
    let at = snap.doc.root.as_ref()?.get("sub_hypotheses")?.get(id)?;
    path.iter().try_fold(at, |n, k| n.get(k))
}
