//! config_check's tables: every number's range, refused non-finite values at load with
//! file:line, and the walk of the schema that keeps a new number from landing unchecked.
use super::*;

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
