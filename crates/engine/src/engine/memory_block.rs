//! The Reflective Memory records the Independent Controller is shown, both when it judges a
//! stage (`controller.rs`) and when it chooses a recovery level (`route_choice.rs`): which
//! records are relevant to a sub-hypothesis and how a prompt lists them. Below both, so the
//! controller and the recovery choice do not import each other.

use super::ctx::StageCtx;
use crate::rundir::memory::MemoryRecord;

/// Records shown to the controller at most (the newest relevant ones).
const MAX_RECORDS: usize = 8;

/// The run's own records about `h` (every failure record where no hypothesis is at hand:
/// a lifecycle stage's end), its pivots and limitations, and the imported lessons: the
/// newest [`MAX_RECORDS`].
pub(crate) fn relevant_records(ctx: &StageCtx<'_>, h: Option<&str>) -> Vec<MemoryRecord> {
    let (records, _) = crate::rundir::memory::load_dir(&ctx.run.join("memory"));
    let mut chosen: Vec<MemoryRecord> = records
        .into_iter()
        .filter(|r| {
            h.is_none_or(|h| r.hypothesis.as_deref() == Some(h))
                || r.provenance.is_some()
                || matches!(r.kind.as_str(), "pivot" | "superseded" | "limitation")
        })
        .collect();
    chosen.sort_by(|a, b| b.date.cmp(&a.date).then(a.id.cmp(&b.id)));
    chosen.truncate(MAX_RECORDS);
    chosen
}

/// The records as the controller's prompts list them, one a line (`(none)` when empty).
pub(crate) fn records_block(records: &[MemoryRecord]) -> String {
    if records.is_empty() {
        return "(none)".to_string();
    }
    records
        .iter()
        .map(record_line)
        .collect::<Vec<_>>()
        .join("\n")
}

fn record_line(r: &MemoryRecord) -> String {
    let said = r
        .lessons
        .first()
        .or(r.root_causes.first())
        .map(|l| crate::rundir::plain::plain_text(l).replace('\n', " "))
        .unwrap_or_default();
    format!(
        "- {} [{}, {}]: {}",
        r.id,
        r.kind.as_str(),
        r.hypothesis.as_deref().unwrap_or("-"),
        said.chars().take(300).collect::<String>()
    )
}
