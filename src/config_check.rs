//! What a configured value cannot mean, found at load and named with its key and where it was
//! set: numbers that are not finite or out of range (a `1e20` time limit would panic in the
//! middle of a run, a `4294967295` repair count would wrap), settings that moved, enumerated
//! strings outside their vocabulary, and keys no setting reads (a warning naming the nearest
//! valid key). Typed enums (`sandbox`, `backend`, `policy`, `provider`, `structured`,
//! `approval_default`) are refused by serde itself with the file, line and valid values.

use toml::{Table, Value};

use crate::config::RunConfig;
use crate::config_sources::KeyPath;

/// Settings that moved: (old key path, new key path). Refused with the new place, so a run
/// written for an older youra does not silently lose them.
pub const MOVED: &[(&[&str], &str)] = &[
    (&["engine", "sandbox"], "[exec] sandbox"),
    (
        &["engine", "debate_min_exchanges"],
        "[debate] min_exchanges",
    ),
    (
        &["engine", "debate_max_exchanges"],
        "[debate] max_exchanges",
    ),
];

/// The first moved key set in `table`, with its new place.
pub fn moved_key(table: &Table) -> Option<(KeyPath, &'static str)> {
    MOVED.iter().find_map(|(old, new)| {
        let mut cur = table;
        for (i, part) in old.iter().enumerate() {
            match cur.get(*part) {
                Some(Value::Table(t)) if i + 1 < old.len() => cur = t,
                Some(_) if i + 1 == old.len() => {
                    return Some((old.iter().map(|s| s.to_string()).collect(), *new));
                }
                _ => return None,
            }
        }
        None
    })
}

/// A range a number must fall in, inclusive, with the key it is set under.
struct Range {
    key: String,
    value: f64,
    min: f64,
    max: f64,
}

/// Thirty days, the longest any wait or limit may be (longer is a typo, not a plan).
const MONTH_S: f64 = 30.0 * 24.0 * 3600.0;
/// A day: the longest one model call or notice may take.
const DAY_S: f64 = 24.0 * 3600.0;
/// The most any bounded loop may go round: more is a typo that would run for days.
const MAX_COUNT: f64 = 1000.0;
/// The most tokens one reply may be asked for or capped at.
const MAX_REPLY_TOKENS: f64 = 10_000_000.0;

/// Numbers any value of their type may take, so they have no range (and why): the walk of
/// the schema in the tests below knows them by these keys.
pub const UNBOUNDED: &[(&str, &str)] = &[("plan.seed", "a seed: every value is as good as any")];

fn ranges(c: &RunConfig) -> Vec<Range> {
    let mut out = Vec::new();
    let mut r = |key: &str, value: f64, min: f64, max: f64| {
        out.push(Range {
            key: key.to_string(),
            value,
            min,
            max,
        })
    };
    let e = &c.engine;
    r("engine.max_resumes", e.max_resumes.into(), 0.0, MAX_COUNT);
    r(
        "debate.min_exchanges",
        c.debate.min_exchanges.into(),
        0.0,
        MAX_COUNT,
    );
    r(
        "debate.max_exchanges",
        c.debate.max_exchanges.into(),
        1.0,
        MAX_COUNT,
    );
    r(
        "engine.review_max_rounds",
        e.review_max_rounds.into(),
        1.0,
        MAX_COUNT,
    );
    r(
        "engine.repair_attempts",
        e.repair_attempts.into(),
        0.0,
        MAX_COUNT,
    );
    r(
        "engine.controller_retries",
        e.controller_retries.into(),
        0.0,
        MAX_COUNT,
    );
    r(
        "engine.controller_retry_wait_s",
        e.controller_retry_wait_s,
        0.0,
        3600.0,
    );
    r(
        "engine.literature_timeout_s",
        e.literature_timeout_s,
        0.1,
        600.0,
    );
    r("engine.wait_poll_s", e.wait_poll_s, 0.01, 60.0);
    r(
        "engine.experiment_time_limit_s",
        e.experiment_time_limit_s,
        1.0,
        MONTH_S,
    );
    r(
        "engine.experiment_memory_mb",
        e.experiment_memory_mb as f64,
        0.0,
        1.0e9,
    );
    r(
        "engine.experiment_max_processes",
        e.experiment_max_processes.into(),
        0.0,
        1.0e6,
    );
    r("engine.gpus", e.gpus as f64, 0.0, 1024.0);
    r(
        "engine.approval_timeout_s",
        e.approval_timeout_s,
        0.0,
        MONTH_S,
    );
    let t = &c.tools;
    r("tools.max_rounds", t.max_rounds.into(), 1.0, MAX_COUNT);
    r("tools.call_timeout_s", t.call_timeout_s, 0.1, MONTH_S);
    r("tools.connect_timeout_s", t.connect_timeout_s, 0.1, 3600.0);
    if let Some(agent) = &t.coding_agent {
        r(
            "tools.coding_agent.time_limit_s",
            agent.time_limit_s,
            1.0,
            MONTH_S,
        );
    }
    for (i, s) in t.servers.iter().enumerate() {
        if let Some(v) = s.timeout_s {
            // Array items are keyed `servers[i]`, as config_sources finds their lines.
            r(&format!("tools.servers[{i}].timeout_s"), v, 0.1, MONTH_S);
        }
    }
    r("exec.slurm.poll_s", c.exec.slurm.poll_s, 0.05, 600.0);
    if let Some(mb) = c.exec.slurm.mem_mb {
        r("exec.slurm.mem_mb", mb as f64, 1.0, 1.0e9);
    }
    if let Some(n) = c.exec.max_parallel {
        // 0 passes here: the loader refuses it with its own message (it would never run).
        r("exec.max_parallel", n as f64, 0.0, 1024.0);
    }
    r("notify.timeout_s", c.notify.timeout_s, 0.1, 600.0);
    // 0 (stop once the client's retries are spent) up to a week of waiting for a server.
    r("llm.outage_wait_s", c.llm.outage_wait_s, 0.0, 7.0 * 86400.0);
    // Every role's numbers, under the key the file sets them with.
    let roles = std::iter::once(("llm.default".to_string(), &c.llm.default)).chain(
        c.llm
            .roles
            .iter()
            .map(|(name, role)| (format!("llm.roles.{name}"), role)),
    );
    for (at, role) in roles {
        let mut opt = |name: &str, v: Option<f64>, min: f64, max: f64| {
            if let Some(v) = v {
                r(&format!("{at}.{name}"), v, min, max);
            }
        };
        opt("temperature", role.temperature.map(f64::from), 0.0, 2.0);
        opt(
            "max_tokens",
            role.max_tokens.map(f64::from),
            1.0,
            MAX_REPLY_TOKENS,
        );
        opt("timeout_s", role.timeout_s, 0.1, DAY_S);
        opt("call_timeout_s", role.call_timeout_s, 0.1, DAY_S);
        opt(
            "max_retries",
            role.max_retries.map(f64::from),
            0.0,
            MAX_COUNT,
        );
        opt(
            "replay_delay_ms",
            role.replay_delay_ms.map(|v| v as f64),
            0.0,
            3.6e6,
        );
    }
    for (model, price) in &c.llm.prices.0 {
        r(
            &format!("llm.prices.{model}.input"),
            price.input,
            0.0,
            1.0e6,
        );
        r(
            &format!("llm.prices.{model}.output"),
            price.output,
            0.0,
            1.0e6,
        );
    }
    for (key, cap) in &c.llm.caps {
        r(
            &format!("llm.caps.{key}"),
            f64::from(*cap),
            1.0,
            MAX_REPLY_TOKENS,
        );
    }
    let v = &c.recovery;
    for (name, value) in [
        ("proceed_below", v.proceed_below),
        ("method_refine_from", v.method_refine_from),
        ("method_pivot_from", v.method_pivot_from),
        ("design_pivot_from", v.design_pivot_from),
        ("design_reset_from", v.design_reset_from),
        ("kappa_min", v.kappa_min),
    ] {
        r(&format!("recovery.{name}"), value, 0.0, 1.0);
    }
    r("recovery.max_pivots", v.max_pivots.into(), 0.0, MAX_COUNT);
    r(
        "recovery.should_work_retries",
        v.should_work_retries.into(),
        0.0,
        MAX_COUNT,
    );
    let p = &c.plan;
    r("plan.budget_tokens", p.budget_tokens as f64, 0.0, 1.0e12);
    if let Some(secs) = p.budget_secs {
        r("plan.budget_secs", secs, 1.0, MONTH_S);
    }
    r("plan.alpha_max", p.alpha_max, 1.0, 1.0e3);
    r("plan.delta", p.delta, 0.0, 1.0);
    r("plan.max_children", p.max_children as f64, 1.0, 8.0);
    r(
        "plan.reexpand_limit",
        p.reexpand_limit.into(),
        0.0,
        MAX_COUNT,
    );
    if let Some(n) = p.after_pass {
        r("plan.after_pass", n.into(), 0.0, MAX_COUNT);
    }
    // `[evidence]`: one repeat is today's gate; more than MAX_COUNT a typo. A confidence
    // below 0.5 is not a claim and 0.9999 already asks for t(0.99995).
    let ev = &c.evidence;
    r(
        "evidence.min_repeats",
        ev.min_repeats as f64,
        1.0,
        MAX_COUNT,
    );
    r(
        "evidence.max_repeats",
        ev.max_repeats as f64,
        1.0,
        MAX_COUNT,
    );
    r("evidence.confidence", ev.confidence, 0.5, 0.9999);
    // `[paper]`'s compile bounds.
    r(
        "paper.compile_timeout_s",
        c.paper.compile_timeout_s,
        1.0,
        3600.0,
    );
    r(
        "paper.compile_memory_mb",
        c.paper.compile_memory_mb as f64,
        256.0,
        1_048_576.0,
    );
    out
}

/// Every number out of its range or not finite, as (key, message).
pub fn numbers(c: &RunConfig) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = ranges(c)
        .into_iter()
        .filter(|r| !(r.value.is_finite() && r.value >= r.min && r.value <= r.max))
        .map(|r| {
            (
                r.key.to_string(),
                format!(
                    "{} = {}: give a number from {} to {}",
                    r.key, r.value, r.min, r.max
                ),
            )
        })
        .collect();
    if c.debate.min_exchanges > c.debate.max_exchanges {
        out.push((
            "debate.min_exchanges".into(),
            format!(
                "debate.min_exchanges = {} is above debate.max_exchanges = {}",
                c.debate.min_exchanges, c.debate.max_exchanges
            ),
        ));
    }
    if let Some(mode) = c.run.execution_mode.as_deref() {
        use crate::vsa::enums::{ExecutionMode, Parsed};
        if ExecutionMode::parse(mode) == Parsed::Unknown {
            out.push((
                "run.execution_mode".into(),
                format!(
                    "run.execution_mode = {mode:?}: use one of {}",
                    ExecutionMode::NAMES.join(", ")
                ),
            ));
        }
    }
    out
}

/// The valid key closest to `key` among `known` (edit distance at most a third of its
/// length, at least 2), for "did you mean".
pub fn nearest<'a>(key: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (key.chars().count() / 3).max(2);
    known
        .into_iter()
        .map(|k| (distance(key, k), k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance over chars.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The keys a table of the effective configuration has (its defaults serialised), for
/// "did you mean": `path` is the unknown key's parents.
pub fn siblings(effective: &Value, path: &[String]) -> Vec<String> {
    let mut cur = effective;
    for p in path {
        match cur.get(p.as_str()) {
            Some(v) => cur = v,
            None => return Vec::new(),
        }
    }
    cur.as_table()
        .map(|t| t.keys().cloned().collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_keys() {
        let known = ["sandbox", "backend", "max_parallel"];
        assert_eq!(nearest("sandbx", known), Some("sandbox"));
        assert_eq!(nearest("backnd", known), Some("backend"));
        assert_eq!(nearest("zzzzzz", known), None);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn hostile_numbers_are_refused() {
        // (field setter, the key the message must name)
        type Set = fn(&mut RunConfig);
        let table: [(Set, &str); 8] = [
            (
                |c| c.engine.experiment_time_limit_s = 1e20,
                "experiment_time_limit_s",
            ),
            (
                |c| c.engine.experiment_time_limit_s = f64::INFINITY,
                "experiment_time_limit_s",
            ),
            (|c| c.engine.wait_poll_s = f64::NAN, "wait_poll_s"),
            (
                |c| c.engine.literature_timeout_s = 1e20,
                "literature_timeout_s",
            ),
            (|c| c.engine.repair_attempts = u32::MAX, "repair_attempts"),
            (|c| c.engine.approval_timeout_s = -1.0, "approval_timeout_s"),
            (|c| c.exec.slurm.poll_s = 0.0, "poll_s"),
            (
                |c| c.run.execution_mode = Some("SOMETIMES".into()),
                "INTERACTIVE",
            ),
        ];
        assert!(
            numbers(&RunConfig::default()).is_empty(),
            "the defaults hold"
        );
        for (set, want) in table {
            let mut c = RunConfig::default();
            set(&mut c);
            let found = numbers(&c);
            assert_eq!(found.len(), 1, "{want}: {found:?}");
            assert!(found[0].1.contains(want), "{want}: {found:?}");
        }
    }

    #[test]
    fn moved_keys_are_found() {
        let t: Table = toml::from_str("[engine]\nsandbox = \"off\"\n").unwrap();
        let (key, new) = moved_key(&t).unwrap();
        assert_eq!(key, ["engine", "sandbox"]);
        assert_eq!(new, "[exec] sandbox");
        let t: Table = toml::from_str("[exec]\nsandbox = \"off\"\n").unwrap();
        assert!(moved_key(&t).is_none());
        let t: Table = toml::from_str("[engine]\ndebate_max_exchanges = 8\n").unwrap();
        assert_eq!(moved_key(&t).unwrap().1, "[debate] max_exchanges");
    }

    #[test]
    fn debate_bounds_are_range_checked() {
        // (setter, what the message must name)
        type Set = fn(&mut RunConfig);
        let table: [(Set, &str); 3] = [
            (|c| c.debate.max_exchanges = 0, "debate.max_exchanges = 0"),
            (
                |c| c.debate.max_exchanges = 5000,
                "debate.max_exchanges = 5000",
            ),
            (
                |c| {
                    c.debate.min_exchanges = 9;
                    c.debate.max_exchanges = 8;
                },
                "debate.min_exchanges = 9 is above debate.max_exchanges = 8",
            ),
        ];
        for (set, want) in table {
            let mut c = RunConfig::default();
            set(&mut c);
            let found = numbers(&c);
            assert!(
                found.iter().any(|(_, m)| m.contains(want)),
                "{want}: {found:?}"
            );
        }
    }

    /// A youra.toml that sets every optional number too, so the walk below sees them all.
    const FULL: &str = r#"
[llm.default]
temperature = 0.2
max_tokens = 1000
timeout_s = 60.0
max_retries = 2
call_timeout_s = 300.0
replay_delay_ms = 10
[llm.roles.critic]
temperature = 0.5
max_tokens = 2000
timeout_s = 30.0
max_retries = 1
call_timeout_s = 120.0
replay_delay_ms = 0
[llm.prices.mymodel]
input = 1.0
output = 2.0
[llm.caps]
executor = 4000
[exec]
max_parallel = 2
[exec.slurm]
mem_mb = 4096
[plan]
budget_secs = 3600.0
after_pass = 2
[tools]
[[tools.servers]]
name = "s"
command = "true"
timeout_s = 10.0
[tools.coding_agent]
command = ["true"]
"#;

    fn full() -> (RunConfig, Value) {
        let c: RunConfig = toml::from_str(FULL).expect("FULL parses");
        let v = Value::try_from(&c).expect("serialises");
        (c, v)
    }

    /// Numeric leaves of `v` with their dotted keys (array items without their index).
    fn numeric_leaves(v: &Value) -> Vec<(Vec<String>, Value)> {
        fn walk(v: &Value, at: &mut Vec<String>, out: &mut Vec<(Vec<String>, Value)>) {
            match v {
                Value::Table(t) => {
                    for (k, v) in t {
                        at.push(k.clone());
                        walk(v, at, out);
                        at.pop();
                    }
                }
                Value::Array(items) => items.iter().for_each(|i| walk(i, at, out)),
                Value::Integer(_) | Value::Float(_) => out.push((at.clone(), v.clone())),
                _ => {}
            }
        }
        let mut out = Vec::new();
        walk(v, &mut Vec::new(), &mut out);
        out
    }

    #[test]
    fn every_number_in_the_schema_has_a_range() {
        // A new number added to any section without its range fails here, by name.
        let (c, v) = full();
        // `servers[0]` is checked as `servers`: the walk keys array items without an index.
        let unindexed = |k: &str| {
            k.split('.')
                .map(|p| p.split('[').next().unwrap_or(p))
                .collect::<Vec<_>>()
                .join(".")
        };
        let checked: std::collections::BTreeSet<String> =
            ranges(&c).into_iter().map(|r| unindexed(&r.key)).collect();
        let leaves = numeric_leaves(&v);
        assert!(
            leaves.len() > 50,
            "the walk sees the schema: {}",
            leaves.len()
        );
        for (path, _) in leaves {
            let key = path.join(".");
            let exempt = UNBOUNDED.iter().any(|(k, _)| *k == key);
            assert!(
                exempt || checked.contains(&key),
                "{key} is a number with no range in config_check::ranges"
            );
        }
    }

    #[test]
    fn non_finite_numbers_are_refused_at_load_with_file_and_line() {
        // Each float of the schema set to nan, inf and -inf in a run's youra.toml: the
        // loader names the file, the line and the key (it used to panic mid-run).
        let (_, v) = full();
        let floats: Vec<_> = numeric_leaves(&v)
            .into_iter()
            .filter(|(_, v)| v.is_float())
            .collect();
        assert!(floats.len() > 20, "{}", floats.len());
        let dir = tempfile::tempdir().unwrap();
        for (path, _) in floats {
            for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                let mut doc = v.clone();
                set_leaf(&mut doc, &path, Value::Float(bad));
                let text = toml_text(&doc);
                std::fs::write(dir.path().join("youra.toml"), &text).unwrap();
                let key = path.join(".");
                let e = crate::config::load_with(dir.path(), None, &[])
                    .expect_err(&format!("{key} = {bad} must be refused"))
                    .to_string();
                let last = path.last().unwrap();
                assert!(e.contains(last.as_str()), "{key} = {bad}: {e}");
                assert!(
                    e.contains("youra.toml:"),
                    "{key} = {bad}: no file:line in {e}"
                );
            }
        }
    }

    /// `doc` as TOML text (the crate is built without its writer): scalars first, then
    /// tables and arrays of tables, each under its dotted header.
    fn toml_text(doc: &Value) -> String {
        fn scalar(v: &Value) -> String {
            match v {
                Value::String(s) => serde_json::to_string(s).unwrap(),
                Value::Float(f) if f.is_nan() => "nan".into(),
                Value::Float(f) if f.is_infinite() => {
                    if *f > 0.0 {
                        "inf".into()
                    } else {
                        "-inf".into()
                    }
                }
                Value::Float(f) => format!("{f:?}"),
                Value::Integer(i) => i.to_string(),
                Value::Boolean(b) => b.to_string(),
                Value::Array(items) => format!(
                    "[{}]",
                    items.iter().map(scalar).collect::<Vec<_>>().join(", ")
                ),
                other => panic!("no scalar: {other:?}"),
            }
        }
        fn table(t: &toml::Table, at: &str, out: &mut String) {
            let is_tables = |v: &Value| {
                v.as_array()
                    .is_some_and(|a| !a.is_empty() && a.iter().all(Value::is_table))
            };
            for (k, v) in t {
                if !v.is_table() && !is_tables(v) {
                    out.push_str(&format!(
                        "{} = {}\n",
                        serde_json::to_string(k).unwrap(),
                        scalar(v)
                    ));
                }
            }
            for (k, v) in t {
                let path = if at.is_empty() {
                    serde_json::to_string(k).unwrap()
                } else {
                    format!("{at}.{}", serde_json::to_string(k).unwrap())
                };
                if let Value::Table(sub) = v {
                    out.push_str(&format!("[{path}]\n"));
                    table(sub, &path, out);
                } else if is_tables(v) {
                    for item in v.as_array().unwrap() {
                        out.push_str(&format!("[[{path}]]\n"));
                        table(item.as_table().unwrap(), &path, out);
                    }
                }
            }
        }
        let mut out = String::new();
        table(doc.as_table().unwrap(), "", &mut out);
        out
    }

    /// Set the leaf at `path` (the first array item on the way) to `to`.
    fn set_leaf(v: &mut Value, path: &[String], to: Value) {
        let Some((first, rest)) = path.split_first() else {
            *v = to;
            return;
        };
        match v {
            Value::Table(t) => set_leaf(t.get_mut(first).unwrap(), rest, to),
            Value::Array(items) => set_leaf(&mut items[0], path, to),
            _ => panic!("no leaf at {path:?}"),
        }
    }
}
