//! Applying a routing action to the run (YouRA's recovery levels): retry the same
//! sub-hypothesis, redo its Experiment Design, redesign (back to Hypothesis Debate) or reset
//! (back to Problem Scoping), with the archive snapshot and the memory records YouRA keeps.
//! Every change is a store mutation with its reason; files move only through `reflect::archive`.

use crate::vsa::enums::{HypothesisStatus, PhaseStatus};
use chrono::Utc;

use super::ctx::StageCtx;
use super::error::StageError;
use super::progress::{AFTER_LOOP, BEFORE_LOOP};
use super::yamlout::{now, text};
use crate::reflect::archive::{ArchiveKind, archive_named};
use crate::reflect::attribution::Category;
use crate::reflect::memory_writer::{
    PivotInput, RoutingNote, SupersededInput, render_pivot, render_superseded,
};
use crate::reflect::record_key::write_keyed;
use crate::reflect::routing::RoutingAction as A;
use crate::rundir::events::Event;
use crate::stage::Stage;
use crate::vsa::model::Transition;
use crate::vsa::mutation::{Change, Mutation};
use crate::vsa::store::Snapshot;
use crate::yaml::NewNode;

/// A step sent back to NOT_STARTED, its `round` one higher (see `progress::round`).
fn reopened(snap: &Snapshot, path: &str) -> NewNode {
    super::progress::status_entry(&snap.doc, path, PhaseStatus::NotStarted)
}

fn put(tx: &mut Mutation, why: &str, path: String, value: NewNode) {
    tx.push(Change::at(path, value), "routing", why);
}

/// Apply the decided transition `t` for its failed sub-hypothesis: files first (a
/// discarding action's archive and records, idempotent so a resumed try redoes them
/// harmlessly), then every VSA change of the action and the journal's end in one
/// transaction. Returns what was done, for the event and the log.
pub fn apply(ctx: &StageCtx<'_>, t: &Transition) -> Result<String, StageError> {
    let h = t.hypothesis.as_str();
    let action = t.action.unwrap_or(A::Proceed);
    let fix = t.fix.as_str();
    let note = RoutingNote {
        action,
        severity: t.severity,
        category: Category::parse(&t.category).unwrap_or(Category::Method),
        trajectory: t.trajectory.clone(),
        evidence: t.evidence.clone(),
        note: t.note.clone(),
        pending: false,
    };
    taken(ctx, t, &note)?;
    let snap = ctx.vsa()?;
    let why = format!("{h}: {} ({})", action.as_str(), fix);
    let mut tx = Mutation::by("engine");
    let done = match action {
        A::Proceed => {
            put(
                &mut tx,
                &why,
                format!("sub_hypotheses.{h}.recovery"),
                text("Proceed: the failure stands; the loop goes on"),
            );
            format!("{h}: Proceed, the failure is recorded and the loop goes on")
        }
        A::LocalRefine | A::MethodRefine => {
            count_refine(&mut tx, &snap, h, &why);
            put(
                &mut tx,
                &why,
                format!("sub_hypotheses.{h}.refinement"),
                text(fix),
            );
            let path = format!("sub_hypotheses.{h}.validation");
            put(&mut tx, &why, path.clone(), reopened(&snap, &path));
            reopen(&mut tx, &snap, h, &why);
            format!(
                "{h}: {} — Coding & Validation again under the fix: {fix}",
                action.as_str()
            )
        }
        A::DesignRefine => {
            count_refine(&mut tx, &snap, h, &why);
            put(
                &mut tx,
                &why,
                format!("sub_hypotheses.{h}.design_constraint"),
                text(fix),
            );
            for field in ["experiment_design", "implementation_planning", "validation"] {
                let path = format!("sub_hypotheses.{h}.{field}");
                put(&mut tx, &why, path.clone(), reopened(&snap, &path));
            }
            reopen(&mut tx, &snap, h, &why);
            format!("{h}: Design-Refine — Experiment Design again with the failure as a constraint")
        }
        A::Pivot => restart(
            ctx,
            &snap,
            &mut tx,
            t,
            ArchiveKind::Redesign,
            Stage::HypothesisDebate,
            &note,
            &why,
        )?,
        A::DesignPivot => restart(
            ctx,
            &snap,
            &mut tx,
            t,
            ArchiveKind::Reset,
            Stage::ProblemScoping,
            &note,
            &why,
        )?,
    };
    tx.push(
        Change::Put {
            path: "workflow.pending_transition".into(),
            value: NewNode::Scalar("null".into()),
        },
        "recovery_done",
        &done,
    );
    ctx.store.mutate(&tx)?;
    ctx.emit(
        Event::new("routing")
            .hypothesis(h)
            .action(action.as_str())
            .message(done.clone()),
    );
    Ok(done)
}

/// The failure record states the route actually taken (YouRA's Reflective Memory is what
/// later stages learn from): rewritten in place before the VSA moves on, so a resumed apply
/// rewrites it the same way. A record that is gone (a reset archived it) is left alone.
fn taken(ctx: &StageCtx<'_>, t: &Transition, note: &RoutingNote) -> Result<(), StageError> {
    if t.record.is_empty() {
        return Ok(());
    }
    let path = ctx.run.join("memory").join(&t.record);
    let Ok(text) = crate::fsutil::read_run_text(&path) else {
        return Ok(());
    };
    let updated = crate::reflect::memory_writer::with_routing(&text, note);
    if updated != text {
        crate::fsutil::write_atomic(&path, updated.as_bytes())
            .map_err(|e| StageError::io("write", &path, e))?;
    }
    Ok(())
}

/// Refines applied to `h`'s gate so far (`sub_hypotheses.<h>.refines`), the count
/// `[recovery] max_refines` caps (`reflect::refine_cap`). A regenerated sub-hypothesis
/// starts again at 0: Verification Planning writes `sub_hypotheses` anew.
pub fn refines(snap: &Snapshot, h: &str) -> u32 {
    snap.doc
        .root
        .as_ref()
        .and_then(|r| {
            r.get("sub_hypotheses")?
                .get(h)?
                .get("refines")?
                .as_scalar()?
                .as_i64()
        })
        .map_or(0, |n| n.clamp(0, i64::from(u32::MAX)) as u32)
}

/// One more refine of `h`'s gate, in the same transaction as the refine itself, so a crash
/// cannot apply one without counting it (a resumed apply re-reads the count it left).
fn count_refine(tx: &mut Mutation, snap: &Snapshot, h: &str, why: &str) {
    let n = refines(snap, h).saturating_add(1);
    put(
        tx,
        why,
        format!("sub_hypotheses.{h}.refines"),
        NewNode::Scalar(n.to_string()),
    );
}

/// The sub-hypothesis is worked on again; dependants blocked by its failure wait again.
fn reopen(tx: &mut Mutation, snap: &Snapshot, h: &str, why: &str) {
    let set = |path: String, v: HypothesisStatus| Change::Set {
        path,
        value: v.as_str().into(),
    };
    tx.push(
        set(
            format!("sub_hypotheses.{h}.status"),
            HypothesisStatus::Ready,
        ),
        "routing",
        why,
    );
    for d in
        snap.vsa.sub_hypotheses.iter().filter(|d| {
            d.status == HypothesisStatus::Blocked && d.prerequisites.iter().any(|p| p == h)
        })
    {
        tx.push(
            set(
                format!("sub_hypotheses.{}.status", d.id),
                HypothesisStatus::NotStarted,
            ),
            "routing",
            why,
        );
    }
}

/// Redesign or reset: archive the files YouRA moves, record the pivot, count it, and set
/// the stages from `from` on back to NOT_STARTED.
#[allow(clippy::too_many_arguments)]
fn restart(
    ctx: &StageCtx<'_>,
    snap: &Snapshot,
    tx: &mut Mutation,
    t: &Transition,
    kind: ArchiveKind,
    from: Stage,
    note: &RoutingNote,
    why: &str,
) -> Result<String, StageError> {
    let h = t.hypothesis.as_str();
    let statement = snap
        .vsa
        .hypothesis(h)
        .and_then(|x| x.statement.clone())
        .unwrap_or_default();
    let main = snap.vsa.main_statement();
    let pivots = pivots(snap) + 1;
    let name = t
        .archive
        .clone()
        .unwrap_or_else(|| crate::reflect::archive::fresh_name(ctx.run, Utc::now()));
    let report = archive_named(ctx.run, kind, &name, h, why).map_err(|e| {
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
    let key = format!("{}-{}", t.round, pivots);
    if let Ok(r) = render_pivot(&pivot) {
        write_keyed(&memory, &r, &key)
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
        write_keyed(&memory, &r, &key).map_err(|e| {
            StageError::MustStop(format!("cannot write the superseded record: {e}"))
        })?;
    }
    tx.push(
        Change::Set {
            path: "recovery.pivots".into(),
            value: pivots.to_string(),
        },
        "routing",
        why,
    );
    let failed = NewNode::Map(vec![
        ("hypothesis".into(), text(h)),
        ("statement".into(), text(&statement)),
        ("main_hypothesis".into(), text(&main)),
        ("at".into(), now()),
    ]);
    tx.push(
        Change::Append {
            list: "recovery.failed_hypotheses".into(),
            item: failed,
        },
        "routing",
        why,
    );
    for s in BEFORE_LOOP
        .iter()
        .chain(AFTER_LOOP.iter())
        .filter(|s| **s >= from)
    {
        let path = format!("phases.{}", s.key());
        tx.push(
            Change::at(path.clone(), reopened(snap, &path)),
            "routing",
            why,
        );
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
pub fn pivots(snap: &Snapshot) -> u32 {
    snap.doc
        .root
        .as_ref()
        .and_then(|r| r.get("recovery")?.get("pivots")?.as_scalar()?.as_i64())
        .map_or(0, |n| n.max(0) as u32)
}

/// Statements of hypotheses discarded earlier (the distinctness gate's reference).
pub(crate) fn failed_statements(ctx: &StageCtx<'_>) -> Vec<String> {
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
