//! Running a steering verb from the TUI through the shared `steer` module.

use crate::rundir::Layout;
use crate::vsa::Store;

pub fn apply(
    _store: &Store,
    _layout: Layout,
    verb: &str,
    _target: Option<&str>,
    _reason: &str,
) -> Result<String, String> {
    Err(format!("`{verb}`: the steering verbs are being wired in"))
}
