//! `youra bench routing` end to end: determinism (same seed, same bytes), the table's shape,
//! and the ordering the corpus guarantees.

use crate::common;

use common::{text, youra};

fn bench(cases: &str, seed: &str) -> String {
    let o = youra(&["bench", "routing", "--cases", cases, "--seed", seed]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    out
}

/// A row as (name, accuracy, recall per level).
fn row(out: &str, name: &str) -> (f64, Vec<f64>) {
    let line = out
        .lines()
        .find(|l| l.starts_with(name) && l[name.len()..].starts_with(' '))
        .unwrap_or_else(|| panic!("no row {name}:\n{out}"));
    let cells: Vec<&str> = line[name.len()..].split_whitespace().collect();
    // accuracy, "[lo,", "hi]", then five recalls.
    assert_eq!(cells.len(), 8, "{line}");
    let num = |s: &str| -> f64 { s.trim_matches(['[', ']', ',']).parse().expect(line) };
    let (acc, lo, hi) = (num(cells[0]), num(cells[1]), num(cells[2]));
    assert!(lo <= acc && acc <= hi, "{line}");
    (acc, cells[3..].iter().map(|c| num(c)).collect())
}

#[test]
fn the_table_is_complete_and_deterministic() {
    let out = bench("300", "7");
    assert_eq!(out, bench("300", "7"), "same seed, same output");
    assert_ne!(out, bench("300", "8"), "another seed, another corpus");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("routing benchmark: 300 failed experiments, seed 7 (bug "),
        "{out}"
    );
    let header = lines
        .iter()
        .position(|l| l.starts_with("router"))
        .expect("a header row");
    let cols: Vec<&str> = lines[header].split_whitespace().collect();
    assert_eq!(
        cols,
        [
            "router", "accuracy", "95%", "interval", "repair", "retry", "design", "redesign",
            "reset"
        ]
    );
    let names = [
        "deterministic",
        "pipeline",
        "always repair",
        "always Method-Refine",
        "always Design-Refine",
        "always Pivot",
        "always Design-Pivot",
    ];
    for (i, name) in names.iter().enumerate() {
        assert!(lines[header + 1 + i].starts_with(name), "{out}");
        let (acc, recall) = row(&out, name);
        assert!((0.0..=1.0).contains(&acc), "{name} {acc}");
        if let Some(k) = i.checked_sub(2) {
            // A fixed verdict recalls its own level and no other.
            let want: Vec<f64> = (0..5).map(|j| if j == k { 1.0 } else { 0.0 }).collect();
            assert_eq!(recall, want, "{name}");
        }
    }
    assert!(
        out.lines().last().is_some_and(
            |l| l.starts_with("pipeline ") && l.contains("vs best single verdict (always ")
        ),
        "{out}"
    );
}

#[test]
fn the_deterministic_part_beats_every_single_verdict() {
    // By construction: the deterministic router is right on every case except where the
    // no-metric rule misfires (a bug that still logged a curve, ~25% of bugs; a method or
    // design run that crashed, ~5% of those), so it scores about 0.9, while a fixed verdict
    // is right only on its own level's share of the corpus, at most 30% (method issues).
    let out = bench("400", "3");
    let (det, recall) = row(&out, "deterministic");
    // π given the true category and band never misses a pivot or a reset.
    assert_eq!(&recall[3..], [1.0, 1.0], "{out}");
    for name in [
        "always repair",
        "always Method-Refine",
        "always Design-Refine",
        "always Pivot",
        "always Design-Pivot",
    ] {
        let (fixed, _) = row(&out, name);
        assert!(
            det > fixed + 0.3,
            "deterministic {det} vs {name} {fixed}\n{out}"
        );
    }
    let (pipeline, _) = row(&out, "pipeline");
    assert!(
        pipeline <= det,
        "replayed critic errors can only cost accuracy here\n{out}"
    );
}

#[test]
fn zero_cases_is_refused_with_a_hint() {
    let o = youra(&["bench", "routing", "--cases", "0"]);
    assert_eq!(o.status.code(), Some(2));
    let (_, err) = text(&o);
    assert!(
        err.contains("--cases 0") && err.contains("hint: give --cases 1 or more"),
        "{err}"
    );
}

#[test]
fn json_carries_the_table_as_data() {
    let o = youra(&[
        "bench", "routing", "--cases", "200", "--seed", "3", "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o).1);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (v["bench"].as_str(), v["cases"].as_u64()),
        (Some("routing"), Some(200))
    );
    assert_eq!(v["levels"][0], "repair");
    let rows = v["rows"].as_array().unwrap();
    assert!(rows.len() >= 3);
    for r in rows {
        let acc = r["accuracy"].as_f64().unwrap();
        let hits = r["hits"].as_f64().unwrap();
        assert!((acc - hits / 200.0).abs() < 1e-9, "{r}");
        assert_eq!(r["recall"].as_array().unwrap().len(), 5);
    }
}
