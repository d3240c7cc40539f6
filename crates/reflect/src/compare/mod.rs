//! `youra compare`: where two runs' gate results and recovery routes diverge, stage by
//! stage and, in the hypothesis loop, per sub-hypothesis and attempt. `read.rs` builds a
//! run's [`Trail`] from its VSA, `diff.rs` aligns two trails (pure, table-tested),
//! `table.rs` prints the aligned table. The TUI's Lifecycle pane shows the same
//! [`Comparison`] for a replay copy beside the run it replays (`metadata.replayed_from`).

pub mod diff;
pub mod read;
pub mod table;
pub mod trail;

use std::path::Path;

pub use diff::{Aspect, Comparison, Row, compare};
pub use trail::{Outcome, StepKey, Trail};

/// A run's trail, read through the run discovery and the store like every reader.
pub fn load(dir: &Path) -> Result<Trail, String> {
    let run = crate::rundir::discover(dir).map_err(|e| e.to_string())?;
    let snap = crate::vsa::Store::new(&run.vsa)
        .load()
        .map_err(|e| format!("{}: {e}", run.vsa.display()))?;
    Ok(read::trail(&snap))
}

/// A replay copy compared with the run it replays: `a` is the recorded run, `b` this one.
/// `None` when the run replays none; the error says why the recorded run cannot be read.
pub fn with_recorded(
    run_root: &Path,
    snap: &crate::vsa::Snapshot,
) -> Option<Result<Comparison, String>> {
    let from = snap.vsa.replayed_from.as_deref()?;
    let recorded = run_root.join(from);
    Some(load(&recorded).map(|a| compare(&a, &read::trail(snap))))
}
