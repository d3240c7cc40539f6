use serde_json::json;

use super::*;

/// h-e1's three runs and h-m1's two, as the demo's results files and code describe them.
fn index() -> RunIndex {
    let mut ix = RunIndex {
        runs: vec![
            describe(
                "h-e1.attempt1",
                "h-e1",
                Some(1),
                &json!({"metrics": {"accuracy": 0.8832, "n": 342},
                        "features": ["bill_length_mm", "bill_depth_mm"], "standardized": false}),
            ),
            describe(
                "h-e1.attempt2",
                "h-e1",
                Some(2),
                &json!({"metrics": {"accuracy": 0.6137, "n": 342},
                        "features": ["bill_depth_mm"], "standardized": false}),
            ),
            describe(
                "h-e1",
                "h-e1",
                Some(3),
                &json!({"metrics": {"accuracy": 0.9356, "n": 342},
                        "features": ["bill_length_mm", "bill_depth_mm"], "standardized": true}),
            ),
            describe(
                "h-m1.attempt1",
                "h-m1",
                Some(1),
                &json!({"metrics": {"gain": 0.0323, "n": 342}}),
            ),
            describe(
                "h-m1",
                "h-m1",
                Some(2),
                &json!({"metrics": {"gain": 0.0342, "n": 342, "repeats": 10}}),
            ),
        ],
        count_words: Vec::new(),
    };
    let code = "final = {\"n\": len(rows)}\n\
                p.add_argument(\"--repeats\", type=int, help=\"repeat with seeds seed, seed+1\")\n";
    ix.learn_count_words("h-e1", code);
    ix.learn_count_words("h-m1", code);
    ix
}

#[test]
fn describe_reads_flags_items_and_counts() {
    let ix = index();
    let r = &ix.runs[2];
    assert_eq!(r.flags, [("standardized".to_string(), true)]);
    assert_eq!(
        r.items,
        [(
            "features".to_string(),
            vec!["bill length".to_string(), "bill depth".to_string()]
        )]
    );
    assert_eq!(r.counts, [("n".to_string(), 342)]);
    // `n` is the same in every run: it tells none apart, so no word counts it.
    assert!(ix.count_words.iter().all(|(_, _, f)| f == "repeats"));
    assert!(
        ix.count_words
            .contains(&("h-m1".into(), "seed".into(), "repeats".into()))
    );
}

#[test]
fn which_runs_a_text_names() {
    let ix = index();
    // (text, the runs of its sub-hypothesis it names best with nothing against: labels)
    let cases: &[(&str, &str, &[&str])] = &[
        ("h-e1 (unscaled, first run)", "h-e1", &["h-e1.attempt1"]),
        ("h-e1, attempt 2", "h-e1", &["h-e1.attempt2"]),
        ("h-e1 (standardized)", "h-e1", &["h-e1"]),
        ("h-e1 standardizes its features", "h-e1", &["h-e1"]),
        (
            "h-e1, not standardized",
            "h-e1",
            &["h-e1.attempt1", "h-e1.attempt2"],
        ),
        (
            "h-e1 (bill depth alone, pruned)",
            "h-e1",
            &["h-e1.attempt2"],
        ),
        (
            "h-e1 on bill length and bill depth",
            "h-e1",
            &["h-e1.attempt1", "h-e1"],
        ),
        ("h-m1 (one seed)", "h-m1", &["h-m1.attempt1"]),
        ("h-m1 (mean of ten seeds)", "h-m1", &["h-m1"]),
        ("h-m1 over 10 repeats", "h-m1", &["h-m1"]),
        // Nothing said of runs: every run stays.
        ("h-m1's gain", "h-m1", &["h-m1.attempt1", "h-m1"]),
        // "5-fold" counts nothing the runs differ in.
        (
            "h-m1 with 5-fold cross-validation",
            "h-m1",
            &["h-m1.attempt1", "h-m1"],
        ),
    ];
    for (text, h, want) in cases {
        let words = ix.words(text);
        let fits: Vec<(&str, Fit)> = ix
            .runs
            .iter()
            .filter(|r| r.hypothesis == *h)
            .map(|r| (r.label.as_str(), ix.fit(r, &words)))
            .collect();
        let best = fits
            .iter()
            .filter(|(_, f)| !f.contradicted)
            .map(|(_, f)| f.named)
            .max()
            .unwrap_or(0);
        let got: Vec<&str> = fits
            .iter()
            .filter(|(_, f)| !f.contradicted && f.named == best)
            .map(|(l, _)| *l)
            .collect();
        assert_eq!(got, *want, "{text}: {words:?}");
    }
}

#[test]
fn run_of_a_key_is_its_longest_label_before_a_measured_part() {
    let ix = index();
    let label = |key: &str| ix.run_of(key).map(|i| ix.runs[i].label.as_str());
    assert_eq!(
        label("h-e1.attempt1.results.metrics.accuracy"),
        Some("h-e1.attempt1")
    );
    assert_eq!(label("h-e1.results.metrics.accuracy"), Some("h-e1"));
    assert_eq!(label("h-e1.metrics.accuracy.final"), Some("h-e1"));
    // A gate's or a config's value is no run's.
    assert_eq!(label("h-e1.gate.criteria.0.result"), None);
    assert_eq!(label("h-e1.config.seed"), None);
}

#[test]
fn tokens_and_words_table() {
    assert_eq!(
        tokens("0.0352 over ten-seeds"),
        ["0.0352", "over", "ten", "seeds"]
    );
    assert_eq!(singular("seeds"), "seed");
    assert_eq!(singular("class"), "class");
    assert_eq!(stem("standardized"), stem("standardize"));
}

#[test]
fn a_number_word_after_a_run_noun_counts_what_follows_it() {
    let mut ix = RunIndex::default();
    ix.runs.push(describe(
        "h-m1",
        "h-m1",
        Some(2),
        &json!({"partitions": 10}),
    ));
    let cases: &[(&str, &[u32])] = &[
        ("h-m1 attempt 2", &[2]),
        ("h-m1, second attempt", &[2]),
        ("h-m1 first attempt, five folds", &[1]),
        ("h-m1 attempt five", &[]),
    ];
    for (text, want) in cases {
        assert_eq!(ix.words(text).ordinals, *want, "{text}");
    }
}
