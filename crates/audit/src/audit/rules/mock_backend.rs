//! Mock or simulated back-ends on the executed path: a `Mock*`/`Fake*`/`Simulated*` class
//! or module used by code that runs, and the notes such code leaves ("no API key",
//! "simulated response") — strongest when a log shows the note was printed.

use crate::audit::classify;
use crate::audit::ctx::Ctx;
use crate::audit::flow::Flow;
use crate::audit::ir::ScopeKind;
use crate::audit::verdict::{Evidence, Weight};

pub(crate) const RULE: &str = "mock-backend";

const NOTES: [&str; 24] = [
    "no api key",
    "api key not",
    "without an api key",
    "api_key not",
    "no openai_api_key",
    "simulated response",
    "simulating",
    "simulation mode",
    "mock response",
    "mock mode",
    "using mock",
    "using a mock",
    "using simulated",
    "simulated llm",
    "simulated api",
    "fake response",
    "placeholder result",
    // Results (not a back-end) that stand in for a run: "Generating mock results",
    // "Starting … mock experiments".
    "mock result",
    "mock experiment",
    "simulated result",
    "simulated experiment",
    "dummy result",
    "fake result",
    "fabricated result",
];

fn note_in(text: &str) -> Option<&'static str> {
    let lower = text.to_ascii_lowercase();
    NOTES.iter().copied().find(|n| lower.contains(n))
}

/// A log line that reports a failure ("ERROR … api_key not configured", a traceback's
/// last line): the run stopped there, it did not go on with a stand-in.
fn reports_failure(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    ["error", "exception", "traceback"]
        .iter()
        .any(|w| lower.contains(w))
}

pub fn check(ctx: &Ctx) -> Vec<Evidence> {
    let mut out = Vec::new();
    let flow = Flow::new(&ctx.program);
    for (m, module) in ctx.program.modules.iter().enumerate() {
        if !ctx.executed[m] {
            continue;
        }
        for (scope, call) in &module.calls {
            let Some((tm, ts)) = flow.definition(m, *scope, &call.callee) else {
                continue;
            };
            let class = &ctx.module(tm).scopes[ts];
            if class.kind == ScopeKind::Function
                && classify::mock_result_name(&class.name)
                && ctx.executed[tm]
            {
                out.push(ctx.at(
                    m,
                    call.line,
                    RULE,
                    Weight::Fabricated,
                    0.6,
                    format!(
                        "`{}` ({}:{}) stands in for measured results, and code that runs calls it",
                        class.name,
                        ctx.module(tm).file,
                        class.line
                    ),
                ));
            }
            if class.kind == ScopeKind::Class
                && classify::mock_name(&class.name)
                && ctx.executed[tm]
            {
                out.push(ctx.at(
                    m,
                    call.line,
                    RULE,
                    Weight::Fabricated,
                    0.6,
                    format!(
                        "the mock back-end `{}` ({}:{}) is used by code that runs",
                        class.name,
                        ctx.module(tm).file,
                        class.line
                    ),
                ));
            }
        }
        for imp in &module.imports {
            let named = imp.name.as_deref().unwrap_or(&imp.module);
            if classify::mock_name(&imp.module)
                || classify::mock_name(named)
                    && named.chars().next().is_some_and(char::is_uppercase)
            {
                out.push(ctx.at(
                    m,
                    imp.line,
                    RULE,
                    Weight::Fabricated,
                    0.6,
                    format!("imports the mock back-end `{named}`"),
                ));
            }
        }
        for (line, s) in &module.strings {
            let Some(note) = note_in(s) else { continue };
            let fragment = s
                .split('\u{1f}')
                .max_by_key(|f| f.len())
                .unwrap_or("")
                .trim();
            let shown = ctx
                .logs
                .iter()
                .find(|l| fragment.len() >= 8 && l.text.contains(fragment));
            let (weight, strength, detail) = match shown {
                Some(log) => (
                    Weight::Fabricated,
                    0.85,
                    format!("a \"{note}\" note, and {} shows it was printed", log.path),
                ),
                None => (
                    Weight::Note,
                    0.0,
                    format!("a \"{note}\" note in code that runs (no log shows it)"),
                ),
            };
            out.push(ctx.at(m, *line, RULE, weight, strength, detail));
        }
    }
    for log in &ctx.logs {
        if let Some((i, l, note)) = log
            .text
            .lines()
            .enumerate()
            .filter(|(_, l)| !reports_failure(l))
            .find_map(|(i, l)| note_in(l).map(|n| (i, l, n)))
        {
            out.push(Evidence {
                file: log.path.clone(),
                line: i + 1,
                rule: RULE,
                excerpt: l.trim().chars().take(100).collect(),
                detail: format!("the log says the run used a stand-in (\"{note}\")"),
                weight: Weight::Fabricated,
                strength: 0.7,
            });
        }
    }
    out
}
