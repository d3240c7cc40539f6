//! Running a steering request from the TUI (the same `steer` code as `youra steer`) and
//! writing a field edit, with what the edit leaves stale.

use crate::rundir::Layout;
use crate::steer::{self, Request};
use crate::vsa::Store;

/// `request` as the TUI built it; `plan_file` (the `:` line's `edit <node> --plan-file
/// <path>`) is read here, off the update loop. The outcome's summary, or why it was refused.
pub fn apply(
    store: &Store,
    layout: Layout,
    mut request: Request,
    plan_file: Option<String>,
) -> Result<String, String> {
    if let Some(f) = plan_file {
        request.plan =
            Some(steer::read_plan_file(std::path::Path::new(&f)).map_err(|e| e.to_string())?);
    }
    // The researcher's name and the lab's two-name rule, as `youra steer` reads them.
    let run = crate::fsutil::parent(store.path());
    let settings = crate::config::load(run).map_err(|e| e.to_string())?.steer;
    let request = request
        .with_settings(&settings, None)
        .map_err(|e| e.to_string())?;
    steer::apply(store, &request, layout)
        .map(|s| s.summary())
        .map_err(|e| e.to_string())
}

/// A field edit written (the edit dialog's): `<path> written (revision N)`, and where a
/// threshold was edited and the statement still names the old number, that too.
pub fn write(store: &Store, m: &crate::vsa::mutation::Mutation) -> Result<String, String> {
    let stale = stale_statement(store, m);
    store
        .mutate(m)
        .map(|a| {
            let done = format!("{} written (revision {})", m.path(), a.revision);
            // The note first: the status line may be too narrow for both.
            stale.map_or_else(|| done.clone(), |n| format!("{n} · {done}"))
        })
        .map_err(|e| e.to_string())
}

/// What an edit of a criterion's threshold leaves stale: the sub-hypothesis's statement when
/// it still names the old number (`vsa::stale`), read before the write lands, with the key
/// that edits it. `None` for any other edit.
pub fn stale_statement(store: &Store, m: &crate::vsa::mutation::Mutation) -> Option<String> {
    let crate::vsa::mutation::Change::Set { path, value } = &m.edits.first()?.change else {
        return None;
    };
    let (id, _) = crate::vsa::stale::criterion_path(path)?;
    let before = store.load().ok()?;
    let old = crate::vsa::stale::criterion_value(&before.vsa, path)?;
    crate::vsa::stale::stale_statement(&before.vsa, path, old, value)
        .map(|note| format!("{note} (e on {id})"))
}
