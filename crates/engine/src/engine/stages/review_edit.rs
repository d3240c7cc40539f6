//! A review answered with `edit`: the researcher's version of one file of the node's code
//! (`reviews/<id>.edit`, saved by `youra steer … review edit <path> --file F` or the TUI's
//! editor) is written into the workspace's `code/`, the code is taken again, and that is what
//! the experiment runs and the node's commit records. The change is recorded as theirs: on the
//! plan node (`review_edit`: who, why, which file — the tree's ✎), in the review's record with
//! its diff, and in the VSA's history and `workflow.review_log` (the paper's deviations).

use serde_json::json;

use super::coding_state::Progress;
use super::review_marks::{EDIT_KEY, unified};
use crate::engine::ctx::StageCtx;
use crate::engine::error::StageError;
use crate::plan::code_snapshot::CodeSnapshot;
use crate::vsa::review::ReviewDecision;

/// Write the researcher's file into `code/` and take the code again; `Err` (the run stops,
/// saying what to fix) when the answer names no usable file.
pub(super) fn apply(
    ctx: &StageCtx<'_>,
    p: &Progress,
    rid: &str,
    d: &ReviewDecision,
    before: &CodeSnapshot,
) -> Result<CodeSnapshot, StageError> {
    let stop = |why: String| StageError::MustStop(format!("review {rid}: {why}"));
    let path = crate::steer::review::code_path(d.path.as_deref().unwrap_or(""))
        .map_err(|e| stop(e.to_string()))?;
    // Only the file `youra steer` saved for this review: a hand-written answer cannot point
    // the engine at another file of the run.
    let expected = crate::steer::review::edit_file(rid);
    if d.file.as_deref() != Some(expected.as_str()) {
        return Err(stop(format!(
            "the edit names `{}`, not {expected}: answer with `youra steer <run> review edit {path} --file <yours>`",
            d.file.as_deref().unwrap_or("")
        )));
    }
    // Beneath the run: a `reviews` folder planted as a link in a handed run reads nothing
    // outside it into the code.
    let bytes = crate::fsutil::read_beneath(
        ctx.run,
        std::path::Path::new(&expected),
        crate::steer::review::MAX_EDIT_BYTES,
    )
    .map_err(|e| stop(format!("cannot read {expected}: {e}")))?;
    let workspace = ctx.run.join(&p.id);
    crate::exec::write_confined(&workspace.join("code"), &path, &bytes)
        .map_err(|e| stop(format!("cannot write code/{path}: {e}")))?;
    let after = CodeSnapshot::take(&workspace).map_err(stop)?;
    let files = |c: &CodeSnapshot| -> Vec<(String, Vec<u8>)> {
        c.files()
            .map(|(p, b, _)| (p.to_string(), b.to_vec()))
            .collect()
    };
    let diff = unified(&files(before), &files(&after));
    let by = d.by.clone().unwrap_or_else(|| "someone".into());
    let reason = d.reason.clone().unwrap_or_default();
    let mark = json!({"review": rid, "by": by, "reason": reason, "path": path});
    // The review's record keeps the researcher's diff beside the model's.
    let rec = ctx
        .run
        .join(format!("{}/{rid}.json", crate::vsa::review::RECORDS_DIR));
    if let Ok(bytes) = crate::fsutil::read_capped(&rec, 16 * 1024 * 1024)
        && let Ok(mut v) = serde_json::from_slice::<serde_json::Value>(&bytes)
        && let Some(o) = v.as_object_mut()
    {
        let mut edit = mark.clone();
        edit["diff"] = diff.clone().into();
        o.insert("edit".into(), edit);
        let _ =
            crate::fsutil::write_atomic(&rec, &serde_json::to_vec_pretty(&v).unwrap_or_default());
    }
    if let Some(step) = &p.step {
        let (mut tree, _) = crate::engine::plan_open::open(ctx.run, ctx.plan)?;
        if let Some(n) = tree.nodes_mut().iter_mut().find(|n| n.id == step.node) {
            n.extra.insert(EDIT_KEY.into(), mark);
        }
        tree.save(ctx.run, std::slice::from_ref(&step.node))
            .map_err(|e| stop(format!("plan tree: save: {e}")))?;
    }
    ctx.emit(
        crate::rundir::events::Event::new("review")
            .hypothesis(&p.id)
            .action("edit")
            .actor(&by)
            .message(format!("{rid}: code/{path} is {by}'s version ({reason})")),
    );
    Ok(after)
}
