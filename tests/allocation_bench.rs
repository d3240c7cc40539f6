//! `youra bench allocation` end to end: the table's shape, the comparison with the paper,
//! determinism (same seed, same bytes), and a refused argument.

mod common;

use common::{text, youra};

fn bench(tasks: &str, seed: &str) -> String {
    let o = youra(&["bench", "allocation", "--tasks", tasks, "--seed", seed]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    out
}

#[test]
fn the_table_is_complete_and_deterministic() {
    let out = bench("6", "7");
    assert_eq!(out, bench("6", "7"), "same seed, same output");
    assert_ne!(out, bench("6", "8"), "another seed, other tasks");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("allocation benchmark: 6 synthetic tasks, seed 7"),
        "{out}"
    );
    let header = lines.iter().position(|l| l.starts_with("policy")).unwrap();
    for col in ["best/ref", "±95%", "attempts", "to 90%", "reached"] {
        assert!(lines[header].contains(col), "{}", lines[header]);
    }
    let names = [
        "adaptive",
        "greedy",
        "uct",
        "random",
        "fixed:1",
        "fixed:3",
        "fixed:10",
        "keep-or-revert",
    ];
    for (i, name) in names.iter().enumerate() {
        let row: Vec<&str> = lines[header + 1 + i].split_whitespace().collect();
        assert_eq!(row[0], *name, "{out}");
        assert_eq!(row.len(), 7, "{}", lines[header + 1 + i]);
        let best: f64 = row[1].parse().unwrap();
        assert!((0.0..=1.0).contains(&best), "normalised best {best}");
        let attempts: f64 = row[4].parse().unwrap();
        assert!(attempts >= 1.0, "{attempts}");
    }
    assert!(out.contains(
        "PrimeScientist (Table 5): adaptive 0.598 > greedy 0.563 > uct 0.551 > random 0.546"
    ));
    assert!(
        out.contains("ordering agrees") || out.contains("ordering disagrees"),
        "{out}"
    );
}

#[test]
fn zero_tasks_is_refused_with_a_hint() {
    let o = youra(&["bench", "allocation", "--tasks", "0"]);
    assert_eq!(o.status.code(), Some(2));
    let (_, err) = text(&o);
    assert!(
        err.contains("--tasks 0") && err.contains("hint: give --tasks 1 or more"),
        "{err}"
    );
}

#[test]
fn json_carries_the_table_as_data() {
    let o = youra(&[
        "bench",
        "allocation",
        "--tasks",
        "3",
        "--seed",
        "2",
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o).1);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (v["bench"].as_str(), v["tasks"].as_u64()),
        (Some("allocation"), Some(3))
    );
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 8, "every searcher");
    assert_eq!(rows[0]["name"], "adaptive");
    for r in rows {
        assert!(r["mean"].is_number() && r["ci95"].is_number() && r["attempts"].is_number());
    }
    // The text table shows the same numbers.
    let table = bench("3", "2");
    let mean = rows[0]["mean"].as_f64().unwrap();
    assert!(table.contains(&format!("{mean:.3}")), "{table}");
}
