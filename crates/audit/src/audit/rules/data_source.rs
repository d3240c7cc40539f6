//! Data sources by use, not presence: a dataset that is loaded and then overwritten, only
//! counted (`len`, `.shape`), or left unused reaches no metric and speaks for nothing; a
//! fallback to generated data that the logs show taken makes the results synthetic.

use crate::audit::classify::{self, CallKind};
use crate::audit::ctx::Ctx;
use crate::audit::flow::{Flow, RootKind};
use crate::audit::ir::How;
use crate::audit::verdict::{Evidence, Origin, Weight};

pub(crate) const RULE: &str = "data-by-use";
pub(crate) const FALLBACK: &str = "fallback-taken";

pub fn check(ctx: &Ctx) -> Vec<Evidence> {
    let mut out = Vec::new();
    let measured = ctx.traced.iter().any(|t| t.origin != Origin::Unknown);
    let generated = ctx.traced.iter().any(|t| t.origin == Origin::Generator);
    let flow = Flow::new(&ctx.program);
    // One note per line (`json.load(open(p))` is two loader calls).
    let mut noted = std::collections::HashSet::new();
    for (m, module) in ctx.program.modules.iter().enumerate() {
        if !ctx.executed[m] {
            continue;
        }
        for (scope, call) in &module.calls {
            if classify::kind(&call.callee) != CallKind::Loader
                || flow.definition(m, *scope, &call.callee).is_some()
                || flow.rereads_results(m, call.line)
                || !noted.insert((m, call.line))
            {
                continue;
            }
            let reaches = ctx.traced.iter().any(|t| {
                t.roots
                    .iter()
                    .any(|r| r.kind == RootKind::Loader && r.module == m && r.line == call.line)
            });
            if reaches || !measured {
                continue;
            }
            let assigns = &module.scopes[*scope].assigns;
            let Some(target) = assigns
                .iter()
                .find(|a| a.line == call.line && a.how == How::Set)
                .map(|a| a.target.clone())
            else {
                continue;
            };
            let overwritten = assigns.iter().find(|a| {
                a.target == target && a.line > call.line && a.how == How::Set && !a.conditional
            });
            let later: Vec<_> = module
                .uses
                .iter()
                .filter(|u| u.name == target && u.line > call.line)
                .collect();
            let detail = if let Some(o) = overwritten {
                format!(
                    "`{target}` is loaded here, then overwritten at line {} before any reported metric uses it",
                    module.file_line(o.line)
                )
            } else if !later.is_empty() && later.iter().all(|u| u.counted) {
                format!(
                    "`{target}` is loaded here but only counted (len/shape); no reported metric uses its values"
                )
            } else {
                format!("`{target}` is loaded here but its data reaches no reported metric")
            };
            let (weight, strength) = if generated {
                (Weight::Synthetic, 0.8)
            } else {
                (Weight::Note, 0.0)
            };
            out.push(ctx.at(m, call.line, RULE, weight, strength, detail));
        }
        for (b, branch) in module.branches.iter().enumerate() {
            if !ctx.program.taken.contains(&(m, b)) {
                continue;
            }
            let generates = module.scopes.iter().enumerate().any(|(s, sc)| {
                sc.assigns.iter().any(|a| {
                    a.branch == Some(b) && a.how == How::Set && {
                        // Generated, and not read from anywhere.
                        let roots = flow.value(m, s, &a.value, a.line);
                        roots.iter().any(|r| r.kind == RootKind::Generator)
                            && !roots.iter().any(|r| r.kind == RootKind::Loader)
                    }
                })
            });
            if generates {
                let msg = branch
                    .messages
                    .first()
                    .map(|s| s.replace('\u{1f}', "…"))
                    .unwrap_or_default();
                out.push(ctx.at(
                    m,
                    branch.line,
                    FALLBACK,
                    Weight::Synthetic,
                    0.85,
                    format!("a log shows this fallback to generated data was taken (\"{msg}\")"),
                ));
            }
        }
    }
    out
}
