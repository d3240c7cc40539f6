//! A run on simulated data reaches its paper (issue 44 item 4): the engine's guard lets a
//! simulation study run (its brief names no real data set), and the paper's Method says that
//! youra's audit finds its data generated. The experiment
//! (`tests/fixtures/evidence/simulated.py`) draws 400 points per seed; over seeds 0–4 its sign
//! rule scores 0.954 (95% CI 0.9415–0.9665), so h-e1 passes ≥ 0.9 at the first look.

use crate::common;
use common::script::{CONSISTENT, Script, code_reply, replay_run};
use youra::engine::RunEnd;

const SIMULATED_PY: &str = include_str!("../fixtures/evidence/simulated.py");

/// A brief on simulated data with one criterion (and, for a MUST_WORK claim, a baseline).
fn brief(metric: &str, op: &str, value: f64) -> String {
    format!(
        "## Dataset\nA simulated two-class problem: 400 points drawn per seed.\n## Model\nThe sign rule.\n\
         ## Metrics\n{metric}\n## Gate Criteria\n```yaml\ncriteria:\n  - metric: {metric}\n    op: \"{op}\"\n    value: {value}\n```\n\
         ## Baselines\n- `accuracy_majority`: the majority class\n## Procedure\nOne draw per seed.\n"
    )
}

#[test]
fn a_paper_on_generated_data_says_so_in_its_method() {
    let mut s = Script::default();
    s.scoping().literature().debate(6, true).planning();
    s.design_and_plan("h-e1", &brief("accuracy", ">=", 0.9))
        .reply(
            "executor",
            "coding_validation",
            Some("h-e1"),
            1,
            &code_reply("simulated.py", SIMULATED_PY, &[]),
        )
        .reply("judge", "coding_validation", Some("h-e1"), 1, CONSISTENT)
        .ok("coding_validation", Some("h-e1"), 1);
    for (h, metric, op, value) in [
        ("h-m1", "gain", "<=", 0.02),
        ("h-c1", "min_group_accuracy", ">=", 0.85),
    ] {
        s.loop_for(
            h,
            &brief(metric, op, value),
            &[code_reply("simulated.py", SIMULATED_PY, &[])],
        );
    }
    s.paper();
    let (_g, dir) = replay_run(
        &s,
        "experiment_time_limit_s = 60\n\n[recovery]\nshould_work_retries = 0\n\n[evidence]\nmin_repeats = 5\n",
    );
    assert_eq!(common::script::run_engine(&dir, true), RunEnd::Completed);
    let paper = std::fs::read_to_string(dir.join("paper/06_paper_final.md")).unwrap();
    assert!(
        paper.contains(
            "Data: youra's audit of the code behind these results finds the data they are computed from generated"
        ),
        "{paper}"
    );
    let out = common::youra(&["audit", dir.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "not real: {:?}",
        common::text(&out)
    );
}
