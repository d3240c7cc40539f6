//! Every rule fixture under tests/fixtures/audit/rules audited in-process, against its
//! expect.json: the verdict, the evidence lines that must appear, each metric's origin.

use super::*;
use std::path::Path;

fn fixtures() -> std::path::PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/fixtures/audit/rules")
}

fn audit_case(dir: &Path) -> Report {
    let paper = std::fs::read_to_string(dir.join("paper.md"))
        .ok()
        .map(|text| TextFile {
            path: "paper.md".into(),
            text,
        });
    audit_folder(
        dir,
        Options {
            paper,
            ..Options::default()
        },
    )
    .expect("fixture folder reads")
}

fn origin_word(o: verdict::Origin) -> String {
    serde_json::to_value(o)
        .unwrap()
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn every_rule_fixture_gets_its_verdict_evidence_and_origins() {
    let mut cases: Vec<_> = std::fs::read_dir(fixtures())
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(cases.len() >= 23, "{cases:?}");
    let mut failures = Vec::new();
    for dir in &cases {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let expect: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("expect.json")).unwrap())
                .unwrap();
        let report = audit_case(dir);
        let verdict = serde_json::to_value(report.verdict).unwrap();
        if verdict != expect["verdict"] {
            failures.push(format!(
                "{name}: verdict {verdict}, want {}",
                expect["verdict"]
            ));
        }
        let cited: Vec<String> = report
            .evidence
            .iter()
            .map(|e| format!("{}:{} {}", e.file, e.line, e.rule))
            .collect();
        for want in expect["evidence"].as_array().unwrap() {
            if !cited.iter().any(|c| c == want.as_str().unwrap()) {
                failures.push(format!("{name}: no evidence {want} in {cited:?}"));
            }
        }
        for (metric, origin) in expect["metrics"].as_object().unwrap() {
            let got: Vec<String> = report
                .metrics
                .iter()
                .filter(|m| &m.metric == metric)
                .map(|m| origin_word(m.origin))
                .collect();
            if got.first().map(String::as_str) != origin.as_str() {
                failures.push(format!("{name}: metric {metric} is {got:?}, want {origin}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn counter_examples_carry_no_fabricated_or_synthetic_evidence() {
    for case in [
        "augmentation",
        "seeding",
        "bootstrap",
        "formula",
        "format_string",
        "docstring",
        "fallback_not_taken",
        "agent_run_shapes",
        "real_plain",
        // Noise added to loaded rows is loaded data, not generated (the data census).
        "census_augmented",
        // `passed * 100` over a re-read results file is no literal metric.
        "scaled_reread",
        // "ERROR … api_key not configured" in a log: the run stopped, it used no stand-in.
        "log_error_not_stand_in",
        // A flag set False, then True when the answer matches, is measured.
        "measured_flag",
        // Tables built from constants beside a loaded file: the file is the data.
        "census_constructed_loads",
        // A file the output writes from loaded data and reads back stays real.
        "self_made_preprocess",
        // A weights dict summing to 1 combines measured metrics; it reports none.
        "weights_dict",
        // A second script whose messages no log prints did not run.
        "printed_script_not_shown",
        // A results file stamped by `time.time()` when its code ran.
        "clock_timestamp",
        // Noise added to rows a function receives is augmentation, not generated data.
        "noise_on_argument",
        // Requirements passed as `constraints={…}`, `performance_thresholds={…}`.
        "thresholds_keyword",
        // `precision 1.0` when nothing was found and nothing was to be found.
        "degenerate_branch",
        // An imported module's `__main__` self-test draws sample numbers, not results.
        "library_self_test",
    ] {
        let report = audit_case(&fixtures().join(case));
        let against: Vec<_> = report
            .evidence
            .iter()
            .filter(|e| {
                matches!(
                    e.weight,
                    verdict::Weight::Fabricated | verdict::Weight::Synthetic
                )
            })
            .collect();
        assert!(against.is_empty(), "{case}: {against:?}");
        assert_eq!(report.verdict, verdict::Verdict::Real, "{case}");
    }
}

fn code(files: &[(&str, &str)]) -> Input {
    Input {
        code: files
            .iter()
            .map(|(p, t)| TextFile {
                path: p.to_string(),
                text: t.to_string(),
            })
            .collect(),
        ..Input::default()
    }
}

#[test]
fn an_empty_folder_is_unknown_and_says_so() {
    let r = analyze(Input::default());
    assert_eq!(r.verdict, verdict::Verdict::Unknown);
    assert!(
        r.notes.iter().any(|n| n.contains("no Python code")),
        "{:?}",
        r.notes
    );
}

#[test]
fn a_mock_class_only_in_tests_is_not_on_the_executed_path() {
    let r = analyze(code(&[
        (
            "tests/test_model.py",
            "class MockLLM:\n    pass\nllm = MockLLM()\n",
        ),
        (
            "main.py",
            "import pandas as pd\ndf = pd.read_csv('d.csv')\nprint({'accuracy': df['y'].mean()})\n",
        ),
    ]));
    assert_eq!(r.verdict, verdict::Verdict::Real, "{:?}", r.evidence);
}

#[test]
fn the_script_a_log_names_is_the_executed_one() {
    let mut input = code(&[
        (
            "real_run.py",
            "import pandas as pd\ndf = pd.read_csv('d.csv')\nprint({'accuracy': df['y'].mean()})\n",
        ),
        ("draft.py", "print({'accuracy': 0.97})\n"),
    ]);
    assert_eq!(analyze(input.clone()).verdict, verdict::Verdict::Fabricated);
    input.logs.push(TextFile {
        path: "run.log".into(),
        text: "$ python real_run.py\naccuracy 0.81\n".into(),
    });
    assert_eq!(analyze(input).verdict, verdict::Verdict::Real);
}

#[test]
fn deep_nesting_is_cut_and_noted_not_a_crash() {
    let deep = format!(
        "x = {}1{}\nacc = 0.9\nprint({{'accuracy': acc}})\n",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    let start = std::time::Instant::now();
    let r = analyze(code(&[("deep.py", &deep)]));
    assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("deep.py:1: nesting deeper than")),
        "{:?}",
        r.notes
    );
    // The rest of the file is still read.
    assert_eq!(r.verdict, verdict::Verdict::Fabricated);
}

/// Data read through a library youra does not know (`h5py`, a lab's `fancyloader` given a
/// data set's name) is neither constructed nor outnumbered by the noise added to it: the
/// census says nothing, and the output stays unknown rather than synthetic (while the same
/// shape built with numpy from the program's own numbers is constructed: `census_constructed_numpy`).
#[test]
fn data_from_an_unknown_reader_is_not_called_generated() {
    for case in [
        "census_unknown_reader",
        "census_unknown_reader_noise",
        "census_unknown_library",
    ] {
        let report = audit_case(&fixtures().join(case));
        assert_eq!(report.verdict, verdict::Verdict::Unknown, "{case}");
        assert!(
            report
                .evidence
                .iter()
                .all(|e| e.weight != verdict::Weight::Synthetic),
            "{case}: {:?}",
            report.evidence
        );
    }
}
