//! Running a steering verb from the TUI: the same `steer` code as `youra steer`.

use crate::rundir::Layout;
use crate::steer::{self, Request, Verb};
use crate::vsa::Store;

/// `verb` as the TUI names it (`breakpoint-off` removes a breakpoint; `edit <node>
/// --plan-file <path>` reads the new plan from the file); the outcome's summary, or why it
/// was refused.
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
    // `edit n-3 --plan-file p.md` on the `:` line: the file's text travels with the request.
    let (target, plan) = match (verb, target) {
        (Verb::Edit, Some(t)) => {
            let (node, file) = steer::split_plan_file(t);
            let plan = file
                .map(|f| steer::read_plan_file(std::path::Path::new(&f)))
                .transpose()
                .map_err(|e| e.to_string())?;
            (Some(node), plan)
        }
        (_, t) => (t.map(str::to_string), None),
    };
    let mut req = Request::new(verb, target.as_deref(), reason);
    req.off = off;
    req.plan = plan;
    steer::apply(store, &req, layout)
        .map(|s| s.summary())
        .map_err(|e| e.to_string())
}
