//! Every loop of the engine ends (issue 41, item 2; ARCHITECTURE's invariant: every loop has
//! a bound). A table names each loop of `src/engine/` — the `loop`/`while`/ranged `for` in the
//! code, and the loops the lifecycle makes through the VSA (recovery re-entry, pivots, the
//! SHOULD_WORK retry, the plan search, the outage wait) — with its bound. A new loop fails here
//! until it has a row; a setting that bounds one is refused when set absurdly high; the
//! recovery rules are run until they end. The lifecycle test of the refine cap itself is in
//! `recovery_bounds.rs`.

use std::path::Path;

/// How a loop of the engine is bounded.
enum Bound {
    /// A setting whose range (`config_check`) has a finite top: the test sets it absurdly
    /// high and the configuration is refused by that key.
    Setting(&'static str),
    /// Why it ends without a setting.
    Because(&'static str),
}

/// Where a loop is: its file under `src/` and text on the loop's line; `None` for a loop the
/// lifecycle makes through the VSA rather than a `loop`/`while`/`for` in the code.
type At = Option<(&'static str, &'static str)>;

/// Every loop of `src/engine/`: where it is, what it is, and its bound.
const LOOPS: &[(At, &str, Bound)] = &[
    (
        None,
        "recovery re-entry: a failed gate back to Local-/Method-/Design-Refine",
        Bound::Setting("recovery.max_refines"),
    ),
    (
        None,
        "redesign and reset: back to Hypothesis Debate or Problem Scoping",
        Bound::Setting("recovery.max_pivots"),
    ),
    (
        None,
        "a SHOULD_WORK miss retried from Experiment Design",
        Bound::Setting("recovery.should_work_retries"),
    ),
    (
        None,
        "a plan node whose execution failed selected and run again",
        Bound::Setting("plan.max_node_retries"),
    ),
    (
        None,
        "plan search: expansions and executions under the tree's budget",
        Bound::Setting("plan.budget_tokens"),
    ),
    (
        None,
        "plan search: re-expanding a node",
        Bound::Setting("plan.reexpand_limit"),
    ),
    (
        None,
        "outage wait: a model endpoint that does not answer",
        Bound::Setting("llm.outage_wait_s"),
    ),
    (
        None,
        "a model call's retries",
        Bound::Setting("llm.default.max_retries"),
    ),
    (
        None,
        "tool-call rounds of one model call",
        Bound::Setting("tools.max_rounds"),
    ),
    (
        None,
        "an escalation waiting for the researcher",
        Bound::Because(
            "ends on the researcher's decision, or after engine.approval_timeout_s when set; the engine only waits",
        ),
    ),
    (
        None,
        "INCONCLUSIVE's top-ups: the same code on new seeds",
        Bound::Setting("evidence.max_repeats"),
    ),
    (
        Some(("engine/stages/scheduler_wait.rs", "loop {")),
        "a submission waiting for a Slurm controller that does not answer",
        Bound::Setting("exec.slurm.outage_wait_s"),
    ),
    (
        Some(("engine/stages/review_gate.rs", "loop {")),
        "an experiment waiting for review before it runs",
        Bound::Because(
            "ends on the researcher's answer, after engine.approval_timeout_s when set (the waiting policy answers), when workflow.pending_review is cleared, or on the engine's cancel",
        ),
    ),
    (
        Some(("engine/init.rs", "loop {")),
        "copying one data file into data/ while hashing it",
        Bound::Because(
            "reads a file opened without following a link, at most the size it had when checked plus one byte (`take`), and ends at its end",
        ),
    ),
    (
        Some(("engine/run.rs", "loop {")),
        "the engine's main loop",
        Bound::Because(
            "each pass completes, reroutes or stops one step (each bounded here) or waits for the researcher; it returns at COMPLETED, STOPPED, a pause or a cancel",
        ),
    ),
    (
        Some(("engine/run.rs", "for attempt in first..=max")),
        "a stage resumed by the controller",
        Bound::Setting("engine.max_resumes"),
    ),
    (
        Some((
            "engine/controller.rs",
            "0..=ctx.settings.controller_retries",
        )),
        "a controller question retried",
        Bound::Setting("engine.controller_retries"),
    ),
    (
        Some(("engine/stages/coding.rs", "repair_attempts")),
        "coding repair attempts",
        Bound::Setting("engine.repair_attempts"),
    ),
    (
        Some(("engine/stages/coding.rs", "loop {")),
        "a serial Coding & Validation step waiting on its experiment",
        Bound::Setting("engine.experiment_time_limit_s"),
    ),
    (
        Some(("engine/stages/debate.rs", "loop {")),
        "Hypothesis Debate exchanges",
        Bound::Setting("debate.max_exchanges"),
    ),
    (
        Some(("engine/stages/review.rs", "for round in 1..=rounds")),
        "Adversarial Fact Review rounds",
        Bound::Setting("engine.review_max_rounds"),
    ),
    (
        Some(("engine/plan_search.rs", "for _ in 0..4")),
        "plan search: selections before one executes",
        Bound::Because("a literal 4"),
    ),
    (
        Some(("engine/literature.rs", "at.backoff.tries")),
        "a literature search retried with backoff",
        Bound::Because("a fixed count per service (3 or 4 tries)"),
    ),
    (
        Some(("engine/literature.rs", "rest.find(&open)")),
        "scanning a reply for tags",
        Bound::Because("each pass consumes the text it found"),
    ),
    (
        Some(("engine/prompts.rs", "rest.find(")),
        "filling a template's variables",
        Bound::Because("each pass consumes the text it found"),
    ),
    (
        Some(("engine/criteria/planned.rs", "next_op(")),
        "reading a planned criterion's operators",
        Bound::Because("each pass consumes the text it found"),
    ),
    (
        Some(("engine/stages/coding_write.rs", "stack.pop()")),
        "walking the experiment's code folder",
        Bound::Because("a finite tree: links are not followed (DirEntry::file_type)"),
    ),
    (
        Some(("engine/parallel.rs", "drain(..)")),
        "landing the experiments in flight",
        Bound::Because("one pass over the flights in hand"),
    ),
    (
        Some(("engine/run_steer.rs", "loop {")),
        "taking the researcher's pending directives",
        Bound::Because(
            "each pass marks one pending directive taken in the same transaction; it ends when none is pending",
        ),
    ),
    (
        Some(("engine/run_steer.rs", "while stamp() == before")),
        "waiting for the VSA to change",
        Bound::Because("ends on a change, a cancel, or its at_most; a wait, not work"),
    ),
    (
        Some(("engine/signals.rs", "while STOPPING")),
        "holding a killed job's outcome while the process stops",
        Bound::Because("the process is exiting"),
    ),
    (
        Some(("engine/signals.rs", "Instant::now() < until")),
        "the grace before SIGKILL",
        Bound::Because("a deadline: the grace period from the stop"),
    ),
];

/// `line` with the text of its string literals removed (a `while` inside a message is no loop).
fn without_strings(line: &str) -> String {
    let (mut out, mut in_str, mut escaped) = (String::new(), false, false);
    for ch in line.chars() {
        match (in_str, escaped, ch) {
            (true, true, _) => escaped = false,
            (true, false, '\\') => escaped = true,
            (_, false, '"') => {
                in_str = !in_str;
                out.push('"');
            }
            (true, false, _) => {}
            (false, _, c) => out.push(c),
        }
    }
    out
}

/// The loop sites of `crates/engine/src/engine/` outside test modules: (file under the
/// crate's src/, line, text).
fn loop_sites() -> Vec<(String, usize, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/engine/src");
    let mut files = Vec::new();
    let mut stack = vec![root.join("engine")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs")
                && !p.to_string_lossy().ends_with("_tests.rs")
            {
                files.push(p);
            }
        }
    }
    let mut out = Vec::new();
    for f in files {
        let rel = f
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        for (i, line) in std::fs::read_to_string(&f).unwrap().lines().enumerate() {
            if line.trim_start().starts_with("#[cfg(test)]") {
                break;
            }
            let code = without_strings(line.split("//").next().unwrap_or(""));
            let code = code.trim();
            let is_loop = code.contains("loop {")
                || code.starts_with("while ")
                || code.contains(" while ")
                || (code.starts_with("for ") && code.contains(".."));
            if is_loop {
                out.push((rel.clone(), i + 1, code.to_string()));
            }
        }
    }
    out
}

#[test]
fn every_loop_of_the_engine_is_named_with_its_bound() {
    let sites = loop_sites();
    assert!(sites.len() >= 15, "the scan sees the engine: {sites:?}");
    // Every loop in the code has a row; a new one fails here until it is bounded.
    let unnamed: Vec<_> = sites
        .iter()
        .filter(|(file, _, text)| {
            !LOOPS.iter().any(|(at, _, _)| {
                at.is_some_and(|(f, marker)| f == file.as_str() && text.contains(marker))
            })
        })
        .collect();
    assert!(
        unnamed.is_empty(),
        "loops with no bound named in LOOPS: {unnamed:#?}"
    );
    // And every row still names a loop that is there.
    for (at, name, _) in LOOPS {
        if let Some((file, marker)) = at {
            assert!(
                sites
                    .iter()
                    .any(|(f, _, t)| f == file && t.contains(marker)),
                "{name}: no loop at {file} with `{marker}`"
            );
        }
    }
}

/// The effective default configuration as TOML, with `key` set to `value`; `None` when the
/// value does not fit the setting's type.
fn config_with(key: &str, value: toml::Value) -> Option<youra::config::RunConfig> {
    let mut v = toml::Value::try_from(youra::config::RunConfig::default()).unwrap();
    let parts: Vec<&str> = key.split('.').collect();
    let mut cur = &mut v;
    for p in &parts[..parts.len() - 1] {
        cur = cur
            .as_table_mut()
            .unwrap()
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    }
    cur.as_table_mut()
        .unwrap()
        .insert(parts[parts.len() - 1].to_string(), value);
    v.try_into().ok()
}

#[test]
fn each_loops_bound_is_finite_and_cannot_be_configured_away() {
    let defaults = youra::config_check::numbers(&youra::config::RunConfig::default());
    assert!(
        defaults.is_empty(),
        "the defaults are in range: {defaults:?}"
    );
    for (_, name, bound) in LOOPS {
        match bound {
            Bound::Setting(key) => {
                // Times as a century in seconds; counts as the largest their type holds.
                let huge: Vec<toml::Value> = if key.ends_with("_s") {
                    vec![toml::Value::Float(3.2e9)]
                } else {
                    [i64::MAX, i64::from(u32::MAX), i64::from(u16::MAX)]
                        .map(toml::Value::Integer)
                        .to_vec()
                };
                let c = huge
                    .into_iter()
                    .find_map(|v| config_with(key, v))
                    .unwrap_or_else(|| panic!("{name}: {key} is not a setting"));
                let refused = youra::config_check::numbers(&c);
                assert!(
                    refused.iter().any(|(k, _)| k == key),
                    "{name}: {key} accepts an unbounded value: {refused:?}"
                );
            }
            Bound::Because(why) => assert!(why.len() > 10, "{name}: say why it ends"),
        }
    }
}

#[test]
fn the_recovery_loops_end_where_their_rules_say() {
    use youra::reflect::refine_cap::{Capped, cap};
    use youra::reflect::routing::{RoutingAction, Thresholds, budget, route_should_work};
    use youra::reflect::veto::Route;
    use youra::vsa::enums::GateType;
    let t = Thresholds::default();
    assert_eq!(t.max_refines, 3, "the default, YouRA's own retry limit");
    // Refines of one gate: the default lets 3 through and stops the 4th, in either mode.
    for interactive in [false, true] {
        let taken = (0..100)
            .take_while(|&n| {
                cap(
                    "h-e1",
                    Route::Act(RoutingAction::MethodRefine),
                    &GateType::MustWork,
                    n,
                    t.max_refines,
                    interactive,
                ) == Capped::Within
            })
            .count();
        assert_eq!(taken, 3, "interactive = {interactive}");
    }
    // Pivots: MaxPivots = 2, the third stops the run.
    let pivots = (0..100)
        .take_while(|&n| budget(RoutingAction::Pivot, n, t.max_pivots).is_ok())
        .count();
    assert_eq!(pivots, 2);
    // SHOULD_WORK: once no improvement path is left, a limitation, never another retry.
    assert_eq!(
        route_should_work(false),
        youra::reflect::routing::Decision::RecordLimitation
    );
}
