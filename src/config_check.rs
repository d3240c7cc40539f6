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

/// A range a number must fall in, inclusive, and what it is in words.
struct Range {
    key: &'static str,
    value: f64,
    min: f64,
    max: f64,
}

/// Thirty days, the longest any wait or limit may be (longer is a typo, not a plan).
const MONTH_S: f64 = 30.0 * 24.0 * 3600.0;
/// The most any bounded loop may go round: more is a typo that would run for days.
const MAX_COUNT: f64 = 1000.0;

fn ranges(c: &RunConfig) -> Vec<Range> {
    let e = &c.engine;
    let r = |key, value: f64, min, max| Range {
        key,
        value,
        min,
        max,
    };
    let mut out = vec![
        r("engine.max_resumes", e.max_resumes.into(), 0.0, MAX_COUNT),
        r(
            "debate.min_exchanges",
            c.debate.min_exchanges.into(),
            0.0,
            MAX_COUNT,
        ),
        r(
            "debate.max_exchanges",
            c.debate.max_exchanges.into(),
            1.0,
            MAX_COUNT,
        ),
        r(
            "engine.review_max_rounds",
            e.review_max_rounds.into(),
            1.0,
            MAX_COUNT,
        ),
        r(
            "engine.repair_attempts",
            e.repair_attempts.into(),
            0.0,
            MAX_COUNT,
        ),
        r(
            "engine.controller_retries",
            e.controller_retries.into(),
            0.0,
            MAX_COUNT,
        ),
        r(
            "engine.controller_retry_wait_s",
            e.controller_retry_wait_s,
            0.0,
            3600.0,
        ),
        r(
            "engine.literature_timeout_s",
            e.literature_timeout_s,
            0.1,
            600.0,
        ),
        r("engine.wait_poll_s", e.wait_poll_s, 0.01, 60.0),
        r(
            "engine.experiment_time_limit_s",
            e.experiment_time_limit_s,
            1.0,
            MONTH_S,
        ),
        r(
            "engine.experiment_memory_mb",
            e.experiment_memory_mb as f64,
            0.0,
            1.0e9,
        ),
        r(
            "engine.experiment_max_processes",
            e.experiment_max_processes.into(),
            0.0,
            1.0e6,
        ),
        r("engine.gpus", e.gpus as f64, 0.0, 1024.0),
        r(
            "engine.approval_timeout_s",
            e.approval_timeout_s,
            0.0,
            MONTH_S,
        ),
        r(
            "tools.max_rounds",
            c.tools.max_rounds.into(),
            1.0,
            MAX_COUNT,
        ),
        r("tools.call_timeout_s", c.tools.call_timeout_s, 0.1, MONTH_S),
        r(
            "tools.connect_timeout_s",
            c.tools.connect_timeout_s,
            0.1,
            3600.0,
        ),
        r("exec.slurm.poll_s", c.exec.slurm.poll_s, 0.05, 600.0),
    ];
    if let Some(agent) = &c.tools.coding_agent {
        out.push(r(
            "tools.coding_agent.time_limit_s",
            agent.time_limit_s,
            1.0,
            MONTH_S,
        ));
    }
    if let Some(mb) = c.exec.slurm.mem_mb {
        out.push(r("exec.slurm.mem_mb", mb as f64, 1.0, 1.0e9));
    }
    for s in &c.tools.servers {
        if let Some(t) = s.timeout_s {
            out.push(r("tools.servers.timeout_s", t, 0.1, MONTH_S));
        }
    }
    // `[paper]`'s compile bounds.
    out.push(r(
        "paper.compile_timeout_s",
        c.paper.compile_timeout_s,
        1.0,
        3600.0,
    ));
    out.push(r(
        "paper.compile_memory_mb",
        c.paper.compile_memory_mb as f64,
        256.0,
        1_048_576.0,
    ));
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
}
