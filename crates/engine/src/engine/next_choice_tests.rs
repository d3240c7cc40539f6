//! Table tests of the stage-end choice's bounds: every row of the module's table.

use super::*;

fn named(stage: Option<&str>, h: Option<&str>) -> Named {
    Named {
        stage: stage.map(str::to_string),
        hypothesis: h.map(str::to_string),
    }
}

fn hyp(s: Stage, h: &str) -> Step {
    Step::Hypothesis(s, h.to_string())
}

/// After h-e1's Coding & Validation: h-m1 (file order) and h-c1 are both ready.
fn two_ready() -> Vec<Step> {
    vec![
        hyp(Stage::ExperimentDesign, "h-m1"),
        hyp(Stage::ExperimentDesign, "h-c1"),
    ]
}

#[test]
fn the_bounds_take_a_legal_step_and_veto_the_rest() {
    let mid = vec![hyp(Stage::ImplementationPlanning, "h-m1")];
    let before = vec![Step::Stage(Stage::LiteratureGrounding)];
    let end = vec![Step::Done];
    // (legal steps, what the controller named, the step taken, vetoed)
    let cases: Vec<(&str, Vec<Step>, Named, Step, bool)> = vec![
        (
            "nothing named",
            two_ready(),
            named(None, None),
            two_ready()[0].clone(),
            false,
        ),
        (
            "the rule's step by name",
            before.clone(),
            named(Some("Literature Grounding"), None),
            before[0].clone(),
            false,
        ),
        (
            "the rule's step by key",
            before.clone(),
            named(Some("literature_grounding"), None),
            before[0].clone(),
            false,
        ),
        (
            "another ready hypothesis",
            two_ready(),
            named(Some("Experiment Design"), Some("h-c1")),
            two_ready()[1].clone(),
            false,
        ),
        (
            "a hypothesis alone",
            two_ready(),
            named(None, Some("h-c1")),
            two_ready()[1].clone(),
            false,
        ),
        (
            "the stage alone: the rule's hypothesis",
            two_ready(),
            named(Some("experiment_design"), None),
            two_ready()[0].clone(),
            false,
        ),
        (
            "a skip ahead",
            before.clone(),
            named(Some("Verification Planning"), None),
            before[0].clone(),
            true,
        ),
        (
            "a step back",
            mid.clone(),
            named(Some("Hypothesis Debate"), None),
            mid[0].clone(),
            true,
        ),
        (
            "the loop left mid-way",
            mid.clone(),
            named(Some("Implementation Planning"), Some("h-c1")),
            mid[0].clone(),
            true,
        ),
        (
            "a hypothesis not ready",
            two_ready(),
            named(Some("Experiment Design"), Some("h-m2")),
            two_ready()[0].clone(),
            true,
        ),
        (
            "a hypothesis alone, not ready",
            two_ready(),
            named(None, Some("h-m2")),
            two_ready()[0].clone(),
            true,
        ),
        (
            "no stage at all",
            before.clone(),
            named(Some("Phase 9"), None),
            before[0].clone(),
            true,
        ),
        (
            "the end when it is the end",
            end.clone(),
            named(Some("END"), None),
            Step::Done,
            false,
        ),
        (
            "the end too early",
            before.clone(),
            named(Some("END"), None),
            before[0].clone(),
            true,
        ),
        (
            "blank names nothing",
            before.clone(),
            named(Some("  "), Some("")),
            before[0].clone(),
            false,
        ),
    ];
    for (what, legal, n, want, vetoed) in cases {
        let (got, veto) = bound(&n, &legal);
        assert_eq!(got, want, "{what}");
        assert_eq!(veto.is_some(), vetoed, "{what}: {veto:?}");
        if let Some(v) = veto {
            assert!(
                v.contains(&want.describe()),
                "{what}: the veto names the step taken: {v}"
            );
        }
    }
}

#[test]
fn legal_steps_open_the_choice_only_where_a_loop_begins() {
    let text = "phases:\n  problem_scoping: {status: COMPLETED}\n  literature_grounding: {status: COMPLETED}\n  hypothesis_debate: {status: COMPLETED}\n  verification_planning: {status: COMPLETED}\nsub_hypotheses:\n  h-e1:\n    status: VALIDATED\n    prerequisites: []\n  h-m1:\n    status: READY\n    prerequisites: [h-e1]\n  h-c1:\n    status: READY\n    prerequisites: [h-e1]\n  h-m2:\n    status: NOT_STARTED\n    prerequisites: [h-m1]\n";
    let doc = crate::yaml::parse(text.as_bytes()).unwrap();
    let vsa = crate::vsa::read(&doc).0;
    let after_loop = legal(&doc, &vsa, &hyp(Stage::CodingValidation, "h-e1"), &[]);
    assert_eq!(after_loop, two_ready(), "h-m2 waits for h-m1");
    let busy = legal(&doc, &vsa, &hyp(Stage::CodingValidation, "h-e1"), &["h-m1"]);
    assert_eq!(
        busy,
        vec![hyp(Stage::ExperimentDesign, "h-c1")],
        "h-m1 is in flight"
    );
    let mid = legal(&doc, &vsa, &hyp(Stage::ExperimentDesign, "h-e1"), &[]);
    assert_eq!(
        mid,
        vec![hyp(Stage::ExperimentDesign, "h-m1")],
        "mid-loop: the rule only"
    );
    let planned = legal(&doc, &vsa, &Step::Stage(Stage::VerificationPlanning), &[]);
    assert_eq!(planned, two_ready());
}

#[test]
fn the_prompt_lists_the_options_the_rule_first() {
    let o = options(&two_ready());
    let lines: Vec<&str> = o.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(
        lines[0].contains("\"next_hypothesis\": \"h-m1\"") && lines[0].contains("order"),
        "{o}"
    );
    assert!(
        lines[1].contains("h-c1") && !lines[1].contains("order"),
        "{o}"
    );
    assert!(options(&[Step::Done]).contains("\"END\""));
}
