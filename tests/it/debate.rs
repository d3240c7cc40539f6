//! Hypothesis Debate as YouRA runs it (issue 26 item 6): Gap Selection first, the main
//! hypothesis's predictions numbered into the VSA, up to `[debate] max_exchanges` (20 by
//! default), the moderator reading the compact VSA summary and, on a re-entry, this run's
//! Reflective Memory; the old `[engine] debate_*` keys refused with their new place.

use crate::common;

use std::path::Path;

use common::script::{PERSONAS, REFINEMENT, SYNTHESIS, Script, moderator, replay_run};
use youra::engine::RunEnd;
use youra::vsa::store::Store;

fn run(dir: &Path) -> RunEnd {
    common::script::run_engine(dir, true)
}

/// The prompt of a recorded call, by the end of its transcript name (`controller-a1-0`).
fn prompt(dir: &Path, stage: &str, call: &str) -> String {
    let want = format!("-{stage}-{call}.json");
    let file = std::fs::read_dir(dir.join("transcripts"))
        .unwrap()
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().ends_with(&want))
        .unwrap_or_else(|| panic!("no transcript *{want}"));
    std::fs::read_to_string(file.path()).unwrap()
}

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

/// A debate without convergence of `turns` exchanges, after Gap Selection.
fn endless(s: &mut Script, turns: usize) {
    s.scoping().literature().gap();
    for i in 0..turns {
        s.reply(
            "controller",
            "hypothesis_debate",
            None,
            1,
            &moderator(false, PERSONAS[i % 6]),
        );
        s.reply(
            "persona",
            "hypothesis_debate",
            None,
            1,
            &format!("turn {i}\nProposal: p{i}"),
        );
    }
    s.reply(
        "controller",
        "hypothesis_debate",
        None,
        1,
        &moderator(false, "impact"),
    );
    s.reply("executor", "hypothesis_debate", None, 1, SYNTHESIS)
        .reply("executor", "hypothesis_debate", None, 1, REFINEMENT)
        .ok("hypothesis_debate", None, 1);
}

#[test]
fn gap_selection_comes_first_and_the_moderator_reads_the_state() {
    let mut s = Script::default();
    s.scoping().literature().debate(6, true).planning();
    let (_g, dir) = replay_run(&s, "");
    let RunEnd::Stopped(reason) = run(&dir) else {
        panic!("expected the stop at Experiment Design's missing recording")
    };
    assert!(reason.contains("experiment_design"), "{reason}");
    let gap = std::fs::read_to_string(dir.join("00_gap_selection.yaml")).unwrap();
    assert!(
        gap.contains("number: 1") && gap.contains("text: a"),
        "{gap}"
    );
    // The first call of the stage is Gap Selection, the executor's.
    let first = prompt(&dir, "hypothesis_debate", "executor-a1-0");
    assert!(first.contains("Gap Selection"), "{first}");
    let m = prompt(&dir, "hypothesis_debate", "controller-a1-0");
    for needle in [
        "Gap 1: a",
        "Gorman et al. 2014",
        "The verification state now (compact summary)",
        "workflow: status=ACTIVE phase=Phase 2A",
        "Reflective Memory (first pass)",
        "maximum 20",
    ] {
        assert!(m.contains(needle), "{needle} not in the moderator's prompt");
    }
    let turn = prompt(&dir, "hypothesis_debate", "persona-a1-0");
    assert!(turn.contains("Gap 1: a"), "the personas argue the gap");
    let log = std::fs::read_to_string(dir.join("discussion_log.md")).unwrap();
    assert!(log.contains("**Selected gap:** Gap 1: a"), "{log}");
    // The predictions are numbered into the VSA, and the plan links to them.
    assert_eq!(
        field(&dir, &["main_hypothesis", "predictions", "0", "id"]).as_deref(),
        Some("P1")
    );
    assert_eq!(
        field(&dir, &["main_hypothesis", "predictions", "0", "statement"]).as_deref(),
        Some("accuracy >= 0.9")
    );
    assert_eq!(
        field(&dir, &["sub_hypotheses", "h-e1", "predictions", "0"]).as_deref(),
        Some("P1")
    );
}

#[test]
fn a_gap_outside_the_list_is_asked_again() {
    let mut s = Script::default();
    s.scoping().literature();
    s.reply(
        "executor",
        "hypothesis_debate",
        None,
        1,
        r#"{"gap": 9, "rationale": "the ninth"}"#,
    );
    s.debate(6, true);
    let (_g, dir) = replay_run(&s, "");
    let RunEnd::Stopped(reason) = run(&dir) else {
        panic!("expected the stop at Verification Planning's missing recording")
    };
    assert!(reason.contains("verification_planning"), "{reason}");
    let gap = std::fs::read_to_string(dir.join("00_gap_selection.yaml")).unwrap();
    assert!(gap.contains("number: 1"), "the re-asked choice: {gap}");
    let events = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    assert!(events.contains("gap_selection"), "{events}");
}

#[test]
fn the_debate_runs_up_to_twenty_exchanges_by_default() {
    let mut s = Script::default();
    endless(&mut s, 20);
    let (_g, dir) = replay_run(&s, "");
    let _ = run(&dir);
    let log = std::fs::read_to_string(dir.join("discussion_log.md")).unwrap();
    assert!(
        log.contains(
            "Stopped at the maximum without convergence after 20 exchanges (min 6, max 20)"
        ),
        "{log}"
    );
    assert_eq!(log.matches("## Exchange").count(), 20);
}

#[test]
fn on_a_reentry_the_moderator_reads_the_runs_memory() {
    let mut s = Script::default();
    s.scoping().literature().debate(6, true);
    let (_g, dir) = replay_run(&s, "");
    let record = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../shared/fixtures/youra/results/generations/youra/sonnet45/iclr2025_data_problems/.serena/memories/failure_h-m1_run1.md",
    );
    std::fs::create_dir_all(dir.join("memory")).unwrap();
    std::fs::copy(&record, dir.join("memory/failure_h-m1_run1.md")).unwrap();
    let _ = run(&dir);
    let m = prompt(&dir, "hypothesis_debate", "controller-a1-0");
    assert!(m.contains("Reflective Memory (a re-entry"), "{m}");
    assert!(m.contains("h-m1"), "the record is shown: {m}");
    let gap = prompt(&dir, "hypothesis_debate", "executor-a1-0");
    assert!(gap.contains("h-m1"), "Gap Selection reads the memory too");
}

#[test]
fn debate_bounds_live_under_debate_and_are_checked() {
    let run = tempfile::tempdir().unwrap();
    let write = |text: &str| std::fs::write(run.path().join("youra.toml"), text).unwrap();
    write("[debate]\nmax_exchanges = 8\n");
    let c = youra::config::load_with(run.path(), None, &[]).unwrap();
    assert_eq!((c.debate.min_exchanges, c.debate.max_exchanges), (6, 8));
    // (config, what the refusal must name)
    let table = [
        (
            "[engine]\ndebate_max_exchanges = 8\n",
            "[debate] max_exchanges",
        ),
        (
            "[engine]\ndebate_min_exchanges = 2\n",
            "[debate] min_exchanges",
        ),
        ("[debate]\nmax_exchanges = 0\n", "debate.max_exchanges = 0"),
        ("[debate]\nmax_exchanges = 100000\n", "from 1 to 1000"),
        (
            "[debate]\nmin_exchanges = 9\nmax_exchanges = 8\n",
            "debate.min_exchanges = 9 is above debate.max_exchanges = 8",
        ),
    ];
    for (text, want) in table {
        write(text);
        let e = youra::config::load_with(run.path(), None, &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "{text}: {e}");
    }
}
