//! Applying a routing action to the run (YouRA's recovery levels): retry the same
//! sub-hypothesis, redo its Experiment Design, redesign (back to Hypothesis Debate) or reset
//! (back to Problem Scoping), with the archive snapshot and the memory records YouRA keeps.
//! Every change is a store mutation with its reason; files move only through `reflect::archive`.

use chrono::Utc;

use super::ctx::StageCtx;
use super::error::StageError;
use super::progress::{AFTER_LOOP, BEFORE_LOOP};
use super::yamlout::{now, text};
use crate::reflect::archive::{ArchiveKind, archive};
use crate::reflect::memory_writer::{
    PivotInput, RoutingNote, SupersededInput, render_pivot, render_superseded, write_record,
};
use crate::reflect::routing::RoutingAction as A;
use crate::rundir::events::Event;
use crate::stage::Stage;
use crate::vsa::mutation::{Change, Mutation};
use crate::yaml::NewNode;

fn put(ctx: &StageCtx<'_>, path: String, value: NewNode, reason: &str) -> Result<(), StageError> {
    let change = match value {
        NewNode::Scalar(v) => Change::Set { path, value: v },
        v => Change::Put { path, value: v },
    };
    let mut m = Mutation::new(change, "routing", "engine", reason);
    m.create = true;
    ctx.store.mutate(&m)?;
    Ok(())
}

/// A step sent back to NOT_STARTED, its `round` one higher (see `progress::round`).
fn reopened(ctx: &StageCtx<'_>, path: &str) -> Result<NewNode, StageError> {
    Ok(super::progress::status_entry(
        &ctx.vsa()?.doc,
        path,
        "NOT_STARTED",
    ))
}

/// Apply `action` for the failed sub-hypothesis `h`; `fix` is h*'s proposed fix (the
/// constraint the retry works under). Returns what was done, for the event and the log.
pub fn apply(
    ctx: &StageCtx<'_>,
    h: &str,
    action: A,
    fix: &str,
    note: &RoutingNote,
) -> Result<String, StageError> {
    let why = format!("{h}: {} ({})", action.as_str(), fix);
    let done = match action {
        A::Proceed => {
            put(
                ctx,
                format!("sub_hypotheses.{h}.recovery"),
                text("Proceed: the failure stands; the loop goes on"),
                &why,
            )?;
            format!("{h}: Proceed, the failure is recorded and the loop goes on")
        }
        A::LocalRefine | A::MethodRefine => {
            put(
                ctx,
                format!("sub_hypotheses.{h}.refinement"),
                text(fix),
                &why,
            )?;
            let path = format!("sub_hypotheses.{h}.validation");
            put(ctx, path.clone(), reopened(ctx, &path)?, &why)?;
            reopen(ctx, h, &why)?;
            format!(
                "{h}: {} — Coding & Validation again under the fix: {fix}",
                action.as_str()
            )
        }
        A::DesignRefine => {
            put(
                ctx,
                format!("sub_hypotheses.{h}.design_constraint"),
                text(fix),
                &why,
            )?;
            for field in ["experiment_design", "implementation_planning", "validation"] {
                let path = format!("sub_hypotheses.{h}.{field}");
                put(ctx, path.clone(), reopened(ctx, &path)?, &why)?;
            }
            reopen(ctx, h, &why)?;
            format!("{h}: Design-Refine — Experiment Design again with the failure as a constraint")
        }
        A::Pivot => restart(
            ctx,
            h,
            ArchiveKind::Redesign,
            Stage::HypothesisDebate,
            note,
            &why,
        )?,
        A::DesignPivot => restart(
            ctx,
            h,
            ArchiveKind::Reset,
            Stage::ProblemScoping,
            note,
            &why,
        )?,
    };
    ctx.emit(
        Event::new("routing")
            .hypothesis(h)
            .action(action.as_str())
            .message(done.clone()),
    );
    Ok(done)
}

/// The sub-hypothesis is worked on again; dependants blocked by its failure wait again.
fn reopen(ctx: &StageCtx<'_>, h: &str, why: &str) -> Result<(), StageError> {
    put(
        ctx,
        format!("sub_hypotheses.{h}.status"),
        NewNode::Scalar("READY".into()),
        why,
    )?;
    let snap = ctx.vsa()?;
    let blocked: Vec<String> = snap
        .vsa
        .sub_hypotheses
        .iter()
        .filter(|d| {
            d.status == crate::vsa::enums::HypothesisStatus::Blocked
                && d.prerequisites.iter().any(|p| p == h)
        })
        .map(|d| d.id.clone())
        .collect();
    for d in blocked {
        put(
            ctx,
            format!("sub_hypotheses.{d}.status"),
            NewNode::Scalar("NOT_STARTED".into()),
            why,
        )?;
    }
    Ok(())
}

/// Redesign or reset: archive the files YouRA moves, record the pivot, count it, and set
/// the stages from `from` on back to NOT_STARTED.
fn restart(
    ctx: &StageCtx<'_>,
    h: &str,
    kind: ArchiveKind,
    from: Stage,
    note: &RoutingNote,
    why: &str,
) -> Result<String, StageError> {
    let snap = ctx.vsa()?;
    let statement = snap
        .vsa
        .hypothesis(h)
        .and_then(|x| x.statement.clone())
        .unwrap_or_default();
    let main = snap
        .vsa
        .main_hypothesis
        .as_ref()
        .and_then(|m| m.statement.clone())
        .unwrap_or_default();
    let pivots = pivots(ctx)? + 1;
    let report = archive(ctx.run, kind, h, why, Utc::now()).map_err(|e| {
        StageError::MustStop(format!(
            "{h}: the archive before {} failed: {e}",
            from.name()
        ))
    })?;
    let pivot = PivotInput {
        from: h.to_string(),
        to: format!("{h}-v{}", pivots + 1),
        date: Utc::now(),
        gate_type: "MUST_WORK".into(),
        gate_result: "FAIL".into(),
        what_happened: vec![note.evidence.clone()],
        lessons: vec![format!("Do not regenerate: {statement}")],
        routing: note.clone(),
        summary: format!(
            "{} back to {} ({})",
            note.action.as_str(),
            from.name(),
            from.label()
        ),
    };
    let memory = ctx.run.join("memory");
    let _ = std::fs::create_dir_all(&memory);
    if let Ok(r) = render_pivot(&pivot) {
        write_record(&memory, &r)
            .map_err(|e| StageError::MustStop(format!("cannot write the pivot record: {e}")))?;
    }
    let superseded = SupersededInput {
        hypothesis: h.to_string(),
        superseded_by: pivot.to.clone(),
        date: Utc::now(),
        reason: why.to_string(),
        lessons: pivot.lessons.clone(),
    };
    if let Ok(r) = render_superseded(&superseded) {
        write_record(&memory, &r).map_err(|e| {
            StageError::MustStop(format!("cannot write the superseded record: {e}"))
        })?;
    }
    put(
        ctx,
        "recovery.pivots".into(),
        NewNode::Scalar(pivots.to_string()),
        why,
    )?;
    let failed = NewNode::Map(vec![
        ("hypothesis".into(), text(h)),
        ("statement".into(), text(&statement)),
        ("main_hypothesis".into(), text(&main)),
        ("at".into(), now()),
    ]);
    let mut m = Mutation::new(
        Change::Append {
            list: "recovery.failed_hypotheses".into(),
            item: failed,
        },
        "routing",
        "engine",
        why,
    );
    m.create = true;
    ctx.store.mutate(&m)?;
    for s in BEFORE_LOOP
        .iter()
        .chain(AFTER_LOOP.iter())
        .filter(|s| **s >= from)
    {
        let path = format!("phases.{}", s.key());
        put(ctx, path.clone(), reopened(ctx, &path)?, why)?;
    }
    Ok(format!(
        "{h}: {} — archived {} entries ({} files) to {}; back to {}",
        note.action.as_str(),
        report.moved.len(),
        report.files_moved,
        report.dir.display(),
        from.name()
    ))
}

/// Discarding actions taken so far in this run (`recovery.pivots`).
pub fn pivots(ctx: &StageCtx<'_>) -> Result<u32, StageError> {
    let snap = ctx.vsa()?;
    Ok(snap
        .doc
        .root
        .as_ref()
        .and_then(|r| r.get("recovery")?.get("pivots")?.as_scalar()?.as_i64())
        .map_or(0, |n| n.max(0) as u32))
}

/// Statements of hypotheses discarded earlier (the distinctness gate's reference).
pub fn failed_statements(ctx: &StageCtx<'_>) -> Vec<String> {
    let Ok(snap) = ctx.vsa() else {
        return Vec::new();
    };
    snap.doc
        .root
        .as_ref()
        .and_then(|r| {
            r.get("recovery")?
                .get("failed_hypotheses")?
                .as_seq()
                .map(<[_]>::to_vec)
        })
        .unwrap_or_default()
        .iter()
        .flat_map(|n| [n.get("main_hypothesis"), n.get("statement")])
        .flatten()
        .filter_map(|n| n.as_str().map(str::to_string))
        .filter(|s| !s.is_empty())
        .collect()
}
