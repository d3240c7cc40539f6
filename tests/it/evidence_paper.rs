//! A whole run on repeats to its paper (issue 40 item 5): three claims judged on their
//! intervals, and the paper's Method states how many were tested and Holm's correction across
//! them — which PASS holds at a family-wise 5% and which gate was not a pass.
//!
//! `tests/fixtures/evidence/split.py` at a 50/50 split, seeds 0–4 (Python's `statistics`):
//! accuracy 0.9322 (95% CI 0.9190–0.9454) vs ≥ 0.9 → PASS; the gain from body mass 0.0398
//! (0.0258–0.0537) vs ≤ 0.02 → FAIL, a SHOULD_WORK limitation; the lower within-sex accuracy
//! 0.9208 (0.9094–0.9322) vs ≥ 0.85 → PASS.

use crate::common;
use common::evidence::SPLIT_PY;
use common::script::{brief, code_reply, replay_run, with_data};
use youra::engine::RunEnd;

#[test]
fn the_paper_states_how_many_claims_were_tested_and_holms_correction() {
    let mut s = common::evidence::h_e1(0.9, 1);
    s.loop_for(
        "h-m1",
        &brief("gain", "<=", 0.02),
        &[code_reply("split.py", SPLIT_PY, &["0.5", "gain"])],
    );
    s.loop_for(
        "h-c1",
        &brief("min_group_accuracy", ">=", 0.85),
        &[code_reply("split.py", SPLIT_PY, &["0.5", "group"])],
    );
    s.paper();
    let (_g, dir) = replay_run(
        &s,
        "experiment_time_limit_s = 60\n\n[recovery]\nshould_work_retries = 0\n\n[evidence]\nmin_repeats = 5\n",
    );
    with_data(&dir);
    assert_eq!(common::script::run_engine(&dir, true), RunEnd::Completed);
    let paper = std::fs::read_to_string(dir.join("paper/06_paper_final.md")).unwrap();
    let line = paper
        .lines()
        .find(|l| l.starts_with("Multiple claims:"))
        .unwrap_or_else(|| panic!("no multiplicity sentence: {paper}"));
    assert!(
        line.contains("three claims were tested, each decided on its own confidence interval; with Holm's step-down"),
        "{line}"
    );
    assert!(
        line.ends_with(
            "h-e1 (accuracy) holds; h-m1 (gain) was not a pass; h-c1 (min_group_accuracy) holds."
        ),
        "{line}"
    );
    // No bare number of its own and no method the run did not use: `report check` finds
    // nothing to flag in it.
    let check = common::youra(&["report", "check", dir.to_str().unwrap()]);
    let out = common::text(&check);
    assert!(
        !out.0.contains("Multiple claims") && !out.1.contains("Multiple claims"),
        "{out:?}"
    );
}
