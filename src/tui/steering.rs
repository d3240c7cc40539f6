//! Running a steering request from the TUI: the same `steer` code as `youra steer`.

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
