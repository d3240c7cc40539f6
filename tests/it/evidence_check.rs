//! Evidence Check per prediction (issue 26 item 5), end to end on the offline demo (real
//! experiments on the penguin data, the waiting policy's reject): each prediction of the main
//! hypothesis gets a row with its verdict and the sub-hypotheses and measured values it rests
//! on, the verdicts go into the VSA, the draft's Discussion opens with them, and a verdict
//! the gates do not allow is refused (the stage resumes with the reason) before anything is
//! written. The rule itself is table-tested beside it (`engine/stages/evidence_rule_tests.rs`).

use crate::common;

use std::path::Path;

use serde_json::{Value, json};
use youra::vsa::store::Store;

fn field(dir: &Path, path: &[&str]) -> Option<String> {
    let snap = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    let mut n = snap.doc.root.as_ref()?;
    for p in path {
        n = match p.parse::<usize>() {
            Ok(i) => n.as_seq()?.get(i)?,
            Err(_) => n.get(p)?,
        };
    }
    n.as_str().map(str::to_string)
}

/// The demo's bundle with Evidence Check's first reply (after the rejected pivot) claiming
/// that the refuted redundancy (P2) is supported; its recorded reply comes at attempt 2.
fn overclaiming(bundle: &str) -> String {
    let mut out = Vec::new();
    for line in bundle.lines() {
        let mut row: Value = serde_json::from_str(line).unwrap();
        let key = row["key"].clone();
        let ours = key["stage"] == "evidence_check" && key["decisions"] == "Method-Refine";
        if ours {
            let mut retry = row.clone();
            retry["key"]["attempt"] = json!(2);
            if key["role"] == "executor" {
                let content = row["response"]["content"].as_str().unwrap();
                let mut reply: Value = serde_json::from_str(content).unwrap();
                reply["predictions"][1]["verdict"] = json!("supported");
                row["response"]["content"] = json!(reply.to_string());
                out.push(row.to_string());
            }
            out.push(retry.to_string());
            continue;
        }
        out.push(row.to_string());
    }
    out.join("\n") + "\n"
}

#[test]
fn the_demo_judges_each_prediction_and_refuses_an_overclaim() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    youra::cli::engine_cmd::demo_dir(
        Some(dir.clone()),
        youra::cli::engine_cmd::DemoOptions {
            headless: true,
            ..Default::default()
        },
    )
    .unwrap();
    // The bundle as the repository has it (the same as the one compiled in).
    let recorded = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo/replay.jsonl");
    let bundle = dir.join("replay/demo.jsonl");
    let edited = overclaiming(&std::fs::read_to_string(recorded).unwrap());
    std::fs::write(&bundle, edited).unwrap();
    // In process (the shared target folder's binary may be another checkout's build).
    let end = common::script::run_engine(&dir, false);
    let events = std::fs::read_to_string(dir.join("events.jsonl")).unwrap_or_default();
    let ours: Vec<&str> = events
        .lines()
        .filter(|l| l.contains("Evidence Check") && !l.contains("llm_call"))
        .collect();
    assert_eq!(end, youra::engine::RunEnd::Completed, "{ours:#?}");

    // Refused, with the reason, and resumed: the second attempt's prompt names it.
    let refusal = "P2: supported is not what the evidence allows (refuted or inconclusive); rests on h-m1 (MUST_WORK FAIL: gain = 0.0357)";
    let retry = std::fs::read_dir(dir.join("transcripts"))
        .unwrap()
        .filter_map(Result::ok)
        .find(|e| {
            e.file_name()
                .to_string_lossy()
                .ends_with("-evidence_check-executor-a2-0.json")
        })
        .expect("attempt 2 recorded");
    let prompt = std::fs::read_to_string(retry.path()).unwrap();
    assert!(prompt.contains("This is attempt 2"), "{prompt}");
    assert!(prompt.contains(refusal), "{prompt}");

    // One row per prediction, bound to the measured values.
    let evidence = std::fs::read_to_string(dir.join("045_validated_hypothesis.md")).unwrap();
    for row in [
        "| P1 | accuracy >= 0.93 | h-e1 (MUST_WORK PASS: accuracy = 0.9708) | supported |",
        "| P2 | gain <= 0.01 | h-m1 (MUST_WORK FAIL: gain = 0.0357) | refuted |",
        "| P3 | min accuracy within sex >= 0.9 | h-c1 (SHOULD_WORK PASS: min_group_accuracy = 0.9603) | supported |",
    ] {
        assert!(evidence.contains(row), "{row}\n--\n{evidence}");
    }
    assert!(evidence.contains("## Sub-Hypothesis Gates"), "{evidence}");

    // The verdicts in the VSA, with what they rest on.
    let p = |i: &str, k: &str| field(&dir, &["main_hypothesis", "predictions", i, k]);
    assert_eq!(p("1", "id").as_deref(), Some("P2"));
    assert_eq!(p("1", "verdict").as_deref(), Some("refuted"));
    assert_eq!(
        field(
            &dir,
            &["main_hypothesis", "predictions", "1", "rests_on", "0"]
        )
        .as_deref(),
        Some("h-m1")
    );
    assert_eq!(p("0", "verdict").as_deref(), Some("supported"));

    // The draft's Discussion follows the table.
    let draft = std::fs::read_to_string(dir.join("paper/06_paper.md")).unwrap();
    let discussion = draft.split("## Discussion").nth(1).expect("a Discussion");
    let at = |s: &str| discussion.find(s).unwrap_or(usize::MAX);
    assert!(
        at("- **P1** (accuracy >= 0.93): supported") < at("- **P2** (gain <= 0.01): refuted")
            && at("- **P2** (gain <= 0.01): refuted")
                < at("- **P3** (min accuracy within sex >= 0.9): supported")
            && at("- **P3**") < usize::MAX,
        "{discussion}"
    );
    assert!(!discussion.contains("**Prediction**"), "no header row");
}
