//! Data the output makes itself: a file its own code writes from generated content (random
//! draws, or an LLM's replies in a module that prompts one) and then reads back as its data
//! set (`01_generate_dataset.py` writes `benchmark.csv` from gpt-4o-mini's answers;
//! `02_run_baselines.py` scores models on `pd.read_csv("benchmark.csv")`). The loader is
//! real; the data behind it is generated. A file written from loaded data (a preprocessing
//! step) stays real, and re-reading results is no data at all.

use std::collections::HashMap;

use crate::audit::classify::{self, CallKind};
use crate::audit::ctx::Ctx;
use crate::audit::flow::{Flow, RootKind};
use crate::audit::ir::{Expr, Module};
use crate::audit::verdict::{Evidence, Weight};

pub(crate) const RULE: &str = "self-made-data";

const WRITERS: [&str; 10] = [
    "to_csv",
    "to_json",
    "to_parquet",
    "to_pickle",
    "dump",
    "save",
    "savez",
    "savetxt",
    "write_text",
    "save_to_disk",
];

/// An LLM's completion: what it returns is text the model made up.
fn llm_call(callee: &str) -> bool {
    ["completions.create", "messages.create", "generate_content"]
        .iter()
        .any(|c| callee.ends_with(c))
}

pub fn check(ctx: &Ctx) -> Vec<Evidence> {
    let flow = Flow::new(&ctx.program);
    // File name -> (module, line, what made its content).
    let mut made: HashMap<String, (usize, usize, String)> = HashMap::new();
    for (m, module) in ctx.program.modules.iter().enumerate() {
        if !ctx.executed[m] || module.is_test {
            continue;
        }
        let prompts = module.calls.iter().any(|(_, c)| llm_call(&c.callee));
        for (scope, c) in &module.calls {
            let last = c.callee.rsplit('.').next().unwrap_or("");
            if !WRITERS.contains(&last) || flow.rereads_results(m, c.line) {
                continue;
            }
            // The value written: the object a method is called on, and the arguments.
            let mut parts: Vec<Expr> = c.args.clone();
            parts.extend(c.recv.clone());
            if let Some((base, _)) = c.callee.rsplit_once('.')
                && !base.is_empty()
            {
                parts.push(Expr::Name(base.to_string()));
            }
            let roots = flow.value(m, *scope, &Expr::Group(parts), c.line);
            let loaded = roots
                .iter()
                .any(|r| r.kind == RootKind::Loader && r.what != "open");
            let drawn = roots.iter().find(|r| r.kind == RootKind::Generator);
            let what = match (loaded, drawn, prompts) {
                (true, _, _) => continue,
                (false, Some(g), _) => format!("`{}`", g.what),
                (false, None, true) => "an LLM's replies".to_string(),
                (false, None, false) => continue,
            };
            for name in file_names(module, c.line, &c.args) {
                made.entry(name).or_insert((m, c.line, what.clone()));
            }
        }
    }
    if made.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (m, module) in ctx.program.modules.iter().enumerate() {
        if !ctx.executed[m] || module.is_test {
            continue;
        }
        for (_, c) in &module.calls {
            if c.callee == "open"
                || classify::kind(&c.callee) != CallKind::Loader
                || flow.rereads_results(m, c.line)
            {
                continue;
            }
            let Some((name, (wm, wl, what))) = file_names(module, c.line, &c.args)
                .into_iter()
                .find_map(|n| made.get(&n).map(|w| (n, w)))
            else {
                continue;
            };
            let writer = ctx.module(*wm);
            out.push(ctx.at(
                m,
                c.line,
                RULE,
                Weight::Synthetic,
                0.75,
                format!(
                    "reads `{name}`, which the output's own code writes from {what} ({}:{}): the data set is generated",
                    writer.file,
                    writer.file_line(*wl)
                ),
            ));
        }
    }
    out
}

/// The file names a call names: string literals on its line, and those of the module-level
/// constants it passes (`INPUT_FILE = "benchmark.csv"`). Base names with an extension.
fn file_names(module: &Module, line: usize, args: &[Expr]) -> Vec<String> {
    let mut lines = vec![line];
    for a in args {
        if let Expr::Name(n) = a {
            lines.extend(
                module.scopes[0]
                    .assigns
                    .iter()
                    .filter(|x| &x.target == n)
                    .map(|x| x.line),
            );
        }
    }
    module
        .strings
        .iter()
        .filter(|(l, _)| lines.contains(l))
        .filter_map(|(_, s)| {
            let base = s.rsplit('/').next()?.trim();
            let (stem, ext) = base.rsplit_once('.')?;
            (stem.len() >= 2
                && (1..=8).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && !base.contains('\u{1f}'))
            .then(|| base.to_string())
        })
        .collect()
}
