//! Running a steering verb from the TUI: the same `steer` code as `youra steer`.

use crate::rundir::Layout;
use crate::steer::{self, Request, Verb};
use crate::vsa::Store;

/// `verb` as the TUI names it (`breakpoint-off` removes a breakpoint); the outcome's summary,
/// or why it was refused.
pub fn apply(
    store: &Store,
    layout: Layout,
    verb: &str,
    target: Option<&str>,
    reason: &str,
) -> Result<String, String> {
    let (name, off) = match verb {
        "breakpoint-off" => ("breakpoint", true),
        v => (v, false),
    };
    let verb: Verb = name.parse().map_err(|e| format!("{e}"))?;
    let mut req = Request::new(verb, target, reason);
    req.off = off;
    steer::apply(store, &req, layout)
        .map(|s| s.summary())
        .map_err(|e| e.to_string())
}
