//! What a configured value cannot mean, found at load and named with its key and where it was
//! set: numbers that are not finite or out of range (a `1e20` time limit would panic in the
//! middle of a run, a `4294967295` repair count would wrap), settings that moved, enumerated
//! strings outside their vocabulary, and keys no setting reads (a warning naming the nearest
//! valid key). Typed enums (`sandbox`, `backend`, `policy`, `provider`, `structured`,
//! `approval_default`) are refused by serde itself with the file, line and valid values.

use toml::{Table, Value};

use crate::config_model::RunConfig;
use crate::config_sources::KeyPath;

/// Settings that moved: (old key path, new key path). Refused with the new place, so a run
/// written for an older youra does not silently lose them.
pub(crate) const MOVED: &[(&[&str], &str)] = &[
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
pub(crate) fn moved_key(table: &Table) -> Option<(KeyPath, &'static str)> {
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
    r(
        "exec.slurm.outage_wait_s",
        c.exec.slurm.outage_wait_s,
        0.0,
        7.0 * 24.0 * 3600.0,
    );
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
    // 0 is allowed: every refine escalates (or stops) at once. More than a hundred refines of
    // one gate is a typo: each is a full Coding & Validation round.
    r("recovery.max_refines", v.max_refines.into(), 0.0, 100.0);
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
    // 0: a failed node is Failed at once (the rule before issue 41); more than ten
    // re-executions of one crashing plan is spend, not search.
    r(
        "plan.max_node_retries",
        p.max_node_retries.into(),
        0.0,
        10.0,
    );
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
    // `[review]`'s `over_cost` thresholds (0: off): a node past a trillion tokens or a month
    // of wall time is a typo.
    r(
        "review.over_cost_tokens",
        c.review.over_cost_tokens as f64,
        0.0,
        1.0e12,
    );
    r(
        "review.over_cost_wall_s",
        c.review.over_cost_wall_s,
        0.0,
        MONTH_S,
    );
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

pub use crate::config_words::nearest;

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
#[path = "config_check_tests.rs"]
mod tests;
