//! `youra audit`: does a research output's reported result come from real data, generated
//! data, or nowhere? Python (and notebooks' code cells) is parsed (`python`), each reported
//! metric followed to its roots (`flow`), and the rules (`rules/`) weigh what they find into
//! a verdict (`verdict`). The same analyzer guards youra's own runs
//! (`engine::fabrication`). It reads only inside the folder, follows no link and caps every
//! file (`walk`). Decision 0037.

use std::collections::BTreeMap;
use std::path::Path;

pub mod bench;
pub mod classify;
pub mod ctx;
pub mod flow;
pub mod ir;
pub mod python;
pub mod record;
pub mod rules;
pub mod verdict;
pub mod walk;

use ctx::{Ctx, TextFile, Traced};
use flow::{Flow, Program, RootKind};
use ir::{Expr, Module};
use verdict::{Report, Skipped};

/// What the caller adds to the folder: the paper, the datasets it should use, the metrics
/// it reports.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub paper: Option<TextFile>,
    pub datasets: Vec<String>,
    pub metrics: Vec<String>,
}

/// Everything the analyzer reads, already in memory.
#[derive(Debug, Clone, Default)]
pub struct Input {
    pub code: Vec<TextFile>,
    pub notebooks: Vec<TextFile>,
    pub results: Vec<TextFile>,
    pub logs: Vec<TextFile>,
    pub data_files: Vec<String>,
    pub records: Vec<BTreeMap<String, f64>>,
    pub skipped: Vec<Skipped>,
    pub options: Options,
}

/// Audit the folder `root`.
pub fn audit_folder(root: &Path, options: Options) -> std::io::Result<Report> {
    let found = walk::walk(root, walk::Limits::default())?;
    Ok(analyze(Input {
        code: found.code,
        notebooks: found.notebooks,
        results: found.results,
        logs: found.logs,
        data_files: found.data_files,
        records: vec![],
        skipped: found.skipped,
        options,
    }))
}

fn is_test(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    path.split('/').any(|p| p == "tests" || p == "test")
        || name.starts_with("test_")
        || name.ends_with("_test.py")
        || name == "conftest.py"
}

/// The verdict on code, results and logs already read.
pub fn analyze(mut input: Input) -> Report {
    input
        .results
        .retain(|r| rules::execution::is_result_file(&r.path));
    let mut skipped = input.skipped;
    let mut notes = Vec::new();
    let mut modules = Vec::new();
    for f in &input.code {
        match python::parse(&f.path, &f.text) {
            Ok(m) => modules.push(m),
            Err(e) => skipped.push(Skipped {
                path: f.path.clone(),
                why: e.0,
            }),
        }
    }
    for f in &input.notebooks {
        match python::notebook_code(&f.text)
            .and_then(|(code, map)| python::parse(&f.path, &code).map(|m| (m, map)))
        {
            Ok((mut m, map)) => {
                m.line_map = Some(map);
                modules.push(m);
            }
            Err(e) => skipped.push(Skipped {
                path: f.path.clone(),
                why: e.0,
            }),
        }
    }
    for m in &mut modules {
        m.is_test = is_test(&m.file);
        if let Some(l) = m.too_deep {
            notes.push(format!(
                "{}:{}: nesting deeper than {} levels; that part was not analysed",
                m.file,
                l,
                python::MAX_DEPTH
            ));
        }
        if m.syntax_errors {
            notes.push(format!(
                "{}: syntax errors; analysed as far as it parses",
                m.file
            ));
        }
    }
    let mut program = Program::new(modules);
    program.taken = taken_branches(&program.modules, &input.logs);
    let executed = executed(&program, &input.logs);
    let imported = imported(&program);
    let mut wanted = input.options.metrics.clone();
    for r in &input.results {
        wanted.extend(
            rules::execution::numbers(r)
                .into_keys()
                .filter(|k| ctx::is_metric_key(k, None, &[])),
        );
    }
    wanted.sort();
    wanted.dedup();
    let flow = Flow::new(&program);
    let traced = trace(&program, &flow, &executed, &imported, &wanted);
    if flow.exhausted() {
        notes.push("the value-following budget ran out; some metrics' sources are unknown".into());
    }
    drop(flow);
    let mut datasets = input.options.datasets.clone();
    datasets.retain(|d| !d.trim().is_empty());
    let ctx = Ctx {
        files: program.modules.len(),
        program,
        executed,
        imported,
        results: input.results,
        logs: input.logs,
        data_files: input.data_files,
        paper: input.options.paper,
        datasets,
        records: input.records,
        traced,
    };
    let evidence = rules::all(&ctx);
    let (verdict, confidence) = verdict::decide(&evidence);
    let mut metrics: Vec<verdict::MetricOrigin> = Vec::new();
    for t in &ctx.traced {
        if metrics
            .iter()
            .any(|x| x.metric == t.metric && x.origin == t.origin)
        {
            continue;
        }
        let m = ctx.module(t.module);
        metrics.push(verdict::MetricOrigin {
            metric: t.metric.clone(),
            file: m.file.clone(),
            line: m.file_line(t.line),
            origin: t.origin,
            sources: t
                .roots
                .iter()
                .filter(|r| match r.kind {
                    RootKind::Literal => t.origin == verdict::Origin::Literal,
                    RootKind::Param | RootKind::Unresolved | RootKind::Constant => false,
                    _ => true,
                })
                .take(4)
                .map(|r| ctx.describe(r))
                .collect(),
        });
    }
    if ctx.program.modules.is_empty() {
        notes.push("no Python code or notebook found".into());
    }
    Report {
        verdict,
        confidence,
        evidence,
        metrics,
        files_analysed: ctx.files,
        skipped,
        notes,
    }
}

const FALLBACK_WORDS: [&str; 10] = [
    "fall back",
    "falling back",
    "fallback",
    "synthetic",
    "simulat",
    "dummy",
    "mock",
    "random data",
    "unavailable",
    "could not load",
];

/// Branches whose printed message a log holds: the fallback ran. An `except` handler is
/// a fallback by its place; an `if` branch only when its message says so ("falling back to
/// synthetic data"). All messages are searched for in one pass over each log.
fn taken_branches(
    modules: &[Module],
    logs: &[TextFile],
) -> std::collections::HashSet<(usize, usize)> {
    let mut wanted: Vec<(usize, usize)> = Vec::new();
    let mut fragments: Vec<&str> = Vec::new();
    for (m, module) in modules.iter().enumerate() {
        for (b, branch) in module.branches.iter().enumerate() {
            for msg in &branch.messages {
                let fragment = msg
                    .split('\u{1f}')
                    .max_by_key(|f| f.len())
                    .unwrap_or("")
                    .trim();
                let lower = msg.to_ascii_lowercase();
                let says = FALLBACK_WORDS.iter().any(|w| lower.contains(w));
                if (branch.handler || says) && fragment.len() >= 12 {
                    wanted.push((m, b));
                    fragments.push(fragment);
                }
            }
        }
    }
    let mut out = std::collections::HashSet::new();
    let Ok(search) = aho_corasick::AhoCorasick::new(&fragments) else {
        return out;
    };
    for log in logs {
        for hit in search.find_overlapping_iter(&log.text) {
            out.insert(wanted[hit.pattern().as_usize()]);
        }
    }
    out
}

/// Which modules run: the scripts a log names (`python train.py`) and what they import,
/// or, when no log names one, every module outside the tests. Where a log names some, a
/// module whose own message the log prints ran too (`logger.info("Generating mock
/// results")` in a script no command line shows), with what it imports.
fn executed(program: &Program, logs: &[TextFile]) -> Vec<bool> {
    let n = program.modules.len();
    let commands: Vec<&str> = logs
        .iter()
        .flat_map(|l| l.text.lines().filter(|line| line.contains("python")))
        .collect();
    let named = |file: &str| {
        let base = file.rsplit('/').next().unwrap_or(file);
        base.ends_with(".py") && commands.iter().any(|line| line.contains(base))
    };
    let mut run: Vec<bool> = program
        .modules
        .iter()
        .map(|m| !m.is_test && named(&m.file))
        .collect();
    if !run.iter().any(|x| *x) {
        return program.modules.iter().map(|m| !m.is_test).collect();
    }
    for m in printed(program, logs) {
        run[m] = true;
    }
    let mut stack: Vec<usize> = (0..n).filter(|i| run[*i]).collect();
    while let Some(i) = stack.pop() {
        for imp in &program.modules[i].imports {
            let target = import_target(program, i, imp);
            if let Some(t) = target.filter(|t| !run[*t] && !program.modules[*t].is_test) {
                run[t] = true;
                stack.push(t);
            }
        }
    }
    run
}

/// The modules (outside the tests) whose own message a log prints: a fragment of one of
/// its string literals of at least 20 characters and three words, outside any `{…}`, not a
/// path. Shorter ones ("Epoch", "Loss: ") are printed by every script alike.
fn printed(program: &Program, logs: &[TextFile]) -> Vec<usize> {
    let mut owner: Vec<usize> = Vec::new();
    let mut fragments: Vec<&str> = Vec::new();
    for (m, module) in program.modules.iter().enumerate() {
        if module.is_test {
            continue;
        }
        for (_, s) in &module.strings {
            for f in s.split('\u{1f}').map(str::trim) {
                if f.len() >= 20 && f.split_whitespace().count() >= 3 && !f.contains('/') {
                    owner.push(m);
                    fragments.push(f);
                }
            }
        }
    }
    let Ok(search) = aho_corasick::AhoCorasick::new(&fragments) else {
        return vec![];
    };
    let mut out: Vec<usize> = logs
        .iter()
        .flat_map(|log| search.find_overlapping_iter(&log.text))
        .map(|hit| owner[hit.pattern().as_usize()])
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Dict literals that weigh metrics rather than report them: three or more entries, every
/// value a number, summing to 1 (`{"Accuracy": 0.2, "Robustness": 0.4, "Fairness": 0.4}`).
/// As the dicts' offsets. A results dict of three typed-in rates that happen to sum to 1
/// is missed here (its file is still read by the execution rules).
fn weight_rows(module: &Module) -> std::collections::HashSet<usize> {
    let mut rows: std::collections::HashMap<usize, Vec<Option<f64>>> =
        std::collections::HashMap::new();
    for s in &module.sites {
        let Some(dict) = s.dict else { continue };
        let v = match &s.value {
            Expr::Num(x) => x.parse::<f64>().ok(),
            _ => None,
        };
        rows.entry(dict).or_default().push(v);
    }
    rows.into_iter()
        .filter(|(_, vs)| {
            vs.len() >= 3
                && vs.iter().all(Option::is_some)
                && (vs.iter().flatten().sum::<f64>() - 1.0).abs() < 1e-6
        })
        .map(|(k, _)| k)
        .collect()
}

fn is_one(lit: &str) -> bool {
    lit.parse::<f64>().is_ok_and(|x| x == 1.0)
}

/// The module of the output that an import names, if any.
fn import_target(program: &Program, from: usize, imp: &ir::Import) -> Option<usize> {
    program.module_named(from, &imp.module).or_else(|| {
        imp.name.as_ref().and_then(|name| {
            program.module_named(
                from,
                &format!("{}.{name}", imp.module.trim_start_matches('.')),
            )
        })
    })
}

/// Per module: another module of the output imports it. Such a module is a library of the
/// run; its `if __name__ == "__main__":` block is its self-test (sample numbers to draw a
/// plot with), not the run.
fn imported(program: &Program) -> Vec<bool> {
    let mut out = vec![false; program.modules.len()];
    for (i, m) in program.modules.iter().enumerate() {
        for imp in &m.imports {
            if let Some(t) = import_target(program, i, imp).filter(|t| *t != i) {
                out[t] = true;
            }
        }
    }
    out
}

/// Every reported metric the executed code builds, followed to its roots.
fn trace(
    program: &Program,
    flow: &Flow,
    executed: &[bool],
    imported: &[bool],
    wanted: &[String],
) -> Vec<Traced> {
    let mut out = Vec::new();
    for (m, module) in program.modules.iter().enumerate() {
        if !executed[m] {
            continue;
        }
        let self_test = |line: usize| imported[m] && module.in_main_block(line);
        // A variable named as a metric: its final value in its scope (every assignment that
        // may be the last), not each assignment (`best = n_steps` then `best = step`).
        let mut named: Vec<(String, Expr, usize, usize)> = Vec::new();
        for (s, sc) in module.scopes.iter().enumerate() {
            for a in sc
                .assigns
                .iter()
                .filter(|a| wanted.iter().any(|w| w == &a.target) && !self_test(a.line))
            {
                match named
                    .iter_mut()
                    .find(|(t, _, _, ns)| *ns == s && t == &a.target)
                {
                    Some(entry) => entry.2 = entry.2.max(a.line),
                    None => named.push((a.target.clone(), Expr::Name(a.target.clone()), a.line, s)),
                }
            }
        }
        let named = named.into_iter().map(|(t, v, l, s)| (t, v, l, l + 1, s));
        let weights = weight_rows(module);
        let sites = module
            .sites
            .iter()
            .filter(|s| !s.dict.is_some_and(|d| weights.contains(&d)) && !self_test(s.line))
            .filter(|s| ctx::is_metric_key(&s.key, s.holder.as_deref(), wanted))
            // A perfect score in a branch is the convention for a degenerate case (no gold
            // errors and none detected: precision 1), not a result typed in.
            .filter(|s| !(s.guarded && matches!(&s.value, Expr::Num(x) if is_one(x))))
            .map(|s| (s.key.clone(), s.value.clone(), s.line, s.line, s.scope));
        for (metric, value, line, lookup, scope) in sites.chain(named) {
            if out.len() >= 2_000 {
                return out;
            }
            let literal = match &value {
                Expr::Num(x) if ctx::is_init(x) => continue,
                Expr::Num(x) => Some(x.clone()),
                Expr::Str | Expr::Const => continue,
                _ => None,
            };
            let mut roots = flow.value(m, scope, &value, lookup);
            roots.retain(|r| {
                !(matches!(r.kind, RootKind::Literal | RootKind::Constant) && ctx::is_init(&r.what))
            });
            let origin = ctx::origin(&roots);
            out.push(Traced {
                metric,
                module: m,
                line,
                literal,
                roots,
                origin,
            });
        }
    }
    out
}

#[cfg(test)]
#[path = "audit_tests.rs"]
mod tests;
