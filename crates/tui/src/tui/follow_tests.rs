//! The follower's reads: appends, truncation, per-hypothesis counts, the ledger, thinned
//! metric series.

use super::*;
use std::io::Write;

fn append(path: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

#[test]
fn appended_events_and_metrics_extend_what_was_read() {
    let dir = tempfile::tempdir().unwrap();
    let ev = dir.path().join("events.jsonl");
    append(
        &ev,
        "{\"time\":\"2026-01-01T00:00:00Z\",\"kind\":\"experiment_start\",\"hypothesis\":\"h-e1\"}\n",
    );
    let mut f = Follower::new(dir.path());
    let len = |f: &mut Follower| f.events().rows.map_or(0, |r| r.len());
    assert_eq!(len(&mut f), 1);
    append(
        &ev,
        "{\"kind\":\"note\"}\n{\"time\":\"2026-01-01T00:00:01Z\",\"kind\":\"experiment_exit\",\"hypothesis\":\"h-e1\"}\n",
    );
    let now = f.events();
    assert_eq!(
        now.rows.unwrap().len(),
        3,
        "a row without a time is still a row"
    );
    assert_eq!(now.index.unwrap().of("h-e1").len(), 2);
    assert_eq!(now.counts.unwrap().events, 3);
    std::fs::write(&ev, "{\"kind\":\"stage_start\"}\n").unwrap();
    let now = f.events();
    let n = (now.rows.unwrap().len(), now.index.unwrap().of("h-e1").len());
    assert_eq!(n, (1, 0), "truncated");
    assert_eq!(
        now.counts.unwrap().events,
        1,
        "counted again from the start"
    );

    let m = dir.path().join("metrics.jsonl");
    append(&m, "{\"loss\": 3.0}\n{\"loss\": 2.0}\n");
    let first = f.metrics("h-e1", &m).unwrap();
    assert_eq!(
        (first.x_name.as_str(), first.series[0].1.clone()),
        ("line", vec![(0.0, 3.0), (1.0, 2.0)])
    );
    append(&m, "{\"loss\": 1.0}\n");
    assert_eq!(f.metrics("h-e1", &m).unwrap().series[0].1.len(), 3);
    // A step appears: the whole file is drawn against it, as a one-shot read would.
    append(&m, "{\"step\": 30, \"loss\": 0.5}\n");
    let m2 = f.metrics("h-e1", &m).unwrap();
    assert_eq!(m2.x_name, "step");
    assert_eq!(
        m2.series[0].1,
        vec![(0.0, 3.0), (1.0, 2.0), (2.0, 1.0), (30.0, 0.5)]
    );
}

#[test]
fn events_are_counted_per_hypothesis_by_exact_id_inside_and_beyond_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let ev = dir.path().join("events.jsonl");
    let mut text = String::new();
    let (mut e1, mut e10) = (0, 0);
    for i in 0..(WINDOW + 500) {
        let h = match i % 3 {
            0 => {
                e1 += 1;
                ",\"hypothesis\":\"h-e1\""
            }
            1 => {
                e10 += 1;
                ",\"hypothesis\":\"h-e10\""
            }
            // A message that quotes the key is not a hypothesis of its own.
            _ => ",\"message\":\"no \\\"hypothesis\\\": here\"",
        };
        text.push_str(&format!("{{\"kind\":\"note\"{h}}}\n"));
    }
    append(&ev, &text);
    let mut f = Follower::whole(dir.path());
    let now = f.events();
    let counts = now.counts.unwrap();
    assert_eq!(counts.events, (WINDOW + 500) as u64);
    assert_eq!(
        (counts.of_hypothesis("h-e1"), counts.of_hypothesis("h-e10")),
        (e1, e10)
    );
    assert_eq!(counts.by_hypothesis.len(), 2, "{:?}", counts.by_hypothesis);
    assert_eq!(counts.of_hypothesis("h-e"), 0);
    append(
        &ev,
        "{\"kind\":\"experiment_start\",\"hypothesis\":\"h-e10\"}\n",
    );
    assert_eq!(f.events().counts.unwrap().of_hypothesis("h-e10"), e10 + 1);
}

#[test]
fn the_ledger_is_summed_as_it_grows_and_again_when_it_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.tsv");
    let mut f = Follower::new(dir.path());
    assert_eq!(f.usage(), None, "no ledger yet");
    let header = crate::llm::ledger::HEADER;
    append(&path, &format!("{header}\nt\tr\ts\tm\t10\t5\t0.5\t-\t3\n"));
    let u = f.usage().unwrap();
    assert_eq!((u.calls, u.input_tokens, u.reasoning_tokens), (1, 10, 3));
    // A row torn mid-write counts once it is whole.
    append(&path, "t\tr\ts\tm\t1\t2\t0.25");
    assert_eq!(f.usage().unwrap().calls, 1);
    append(&path, "\t-\n");
    let u = f.usage().unwrap();
    assert_eq!((u.calls, u.output_tokens, u.cost_usd), (2, 7, 0.75));
    assert_eq!(
        Some(u),
        crate::llm::ledger::read_totals(&path),
        "the same sum as a whole read"
    );
    std::fs::write(&path, format!("{header}\nt\tr\ts\tm\t4\t4\tunknown\t-\n")).unwrap();
    let u = f.usage().unwrap();
    assert_eq!(
        (u.calls, u.input_tokens, u.unpriced_calls),
        (1, 4, 1),
        "replaced"
    );
}

#[test]
fn a_long_metric_series_is_thinned_and_keeps_its_extremes() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("metrics.jsonl");
    let rows: String = (0..40_000)
        .map(|i| {
            let y = match i {
                12_345 => 10.0,
                30_000 => -5.0,
                _ => (i % 7) as f64 / 10.0,
            };
            format!("{{\"step\": {i}, \"loss\": {y}}}\n")
        })
        .collect();
    append(&m, &rows);
    assert!(std::fs::metadata(&m).unwrap().len() > TAIL_FIRST_BYTES);
    let mut f = Follower::new(dir.path());
    // The first look reads the file's last rows only; the next read all of it.
    let quick = f.metrics("h-e1", &m).unwrap().series[0].1.clone();
    assert_eq!(quick.len(), METRIC_POINTS / 2);
    assert_eq!(
        quick.first().map(|p| p.0),
        Some((40_000 - METRIC_POINTS / 2) as f64)
    );
    let pts = f.metrics("h-e1", &m).unwrap().series[0].1.clone();
    assert!(pts.len() <= METRIC_POINTS, "{} points", pts.len());
    assert!(pts.contains(&(12_345.0, 10.0)) && pts.contains(&(30_000.0, -5.0)));
    assert_eq!(pts.first().map(|p| p.0), Some(0.0));
    // Appends go on being thinned as they come.
    append(&m, "{\"step\": 40000, \"loss\": 99.0}\n");
    let pts = f.metrics("h-e1", &m).unwrap().series[0].1.clone();
    assert!(pts.len() <= METRIC_POINTS && pts.contains(&(40_000.0, 99.0)));
}
