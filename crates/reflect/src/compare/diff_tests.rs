//! Table tests of the trail diff: alignment, each aspect that can differ, the first
//! divergence and the end.

use super::*;
use crate::compare::trail::{Check, GateOutcome, Route, Taken};
use crate::stage::Stage;
use crate::steer::RoutingAction;
use crate::vsa::enums::{GateResult, PhaseStatus, WorkflowStatus};

fn key(stage: Stage, h: Option<&str>, attempt: u32) -> StepKey {
    StepKey {
        stage,
        hypothesis: h.map(str::to_string),
        attempt,
    }
}

fn done() -> Outcome {
    Outcome {
        status: Some(PhaseStatus::Completed),
        ..Outcome::default()
    }
}

fn gate(result: GateResult, required: &str, measured: &str) -> Outcome {
    Outcome {
        status: (result == GateResult::Pass).then_some(PhaseStatus::Completed),
        gate: Some(GateOutcome {
            result: Some(result),
            checks: vec![Check {
                metric: "accuracy".into(),
                required: Some(required.into()),
                measured: Some(measured.into()),
            }],
            from_node: None,
            own: None,
        }),
        route: None,
    }
}

fn routed(mut o: Outcome, taken: Taken) -> Outcome {
    o.route = Some(Route {
        attribution: Some(("Method".into(), Some(0.72))),
        proposed: Some(RoutingAction::MethodRefine),
        clamp: Some("valid".into()),
        taken: Some(taken),
        decision: None,
    });
    o
}

fn trail(steps: Vec<(StepKey, Outcome)>) -> Trail {
    Trail {
        steps,
        status: Some(WorkflowStatus::Completed),
        stop_reason: None,
    }
}

const CV: Stage = Stage::CodingValidation;

/// What a row case is about, run a's and b's outcome, and what must differ.
type Case = (&'static str, Option<Outcome>, Option<Outcome>, Vec<Aspect>);

#[test]
fn each_kind_of_difference_is_named_on_its_row() {
    let refine = || {
        routed(
            gate(GateResult::Fail, ">= 0.92", "0.8832"),
            Taken::Action(RoutingAction::MethodRefine),
        )
    };
    let table: Vec<Case> = vec![
        ("same", Some(refine()), Some(refine()), vec![]),
        (
            "numbers equal by value",
            Some(gate(GateResult::Pass, ">= 0.92", "0.9356")),
            Some(gate(GateResult::Pass, ">=0.920", "0.93560")),
            vec![],
        ),
        (
            "threshold edited, the gate passes and nothing is routed",
            Some(refine()),
            Some(gate(GateResult::Pass, ">= 0.85", "0.8832")),
            vec![
                Aspect::Status,
                Aspect::GateResult,
                Aspect::Required,
                Aspect::Route,
            ],
        ),
        (
            "another measurement",
            Some(gate(GateResult::Pass, ">= 0.92", "0.9356")),
            Some(gate(GateResult::Pass, ">= 0.92", "0.94")),
            vec![Aspect::Measured],
        ),
        (
            "same gate, another route",
            Some(refine()),
            Some(routed(
                gate(GateResult::Fail, ">= 0.92", "0.8832"),
                Taken::Action(RoutingAction::Pivot),
            )),
            vec![Aspect::Route],
        ),
        ("only in a", Some(done()), None, vec![Aspect::OnlyA]),
        ("only in b", None, Some(done()), vec![Aspect::OnlyB]),
        (
            "skipped in b",
            Some(done()),
            Some(Outcome {
                status: Some(PhaseStatus::Skipped),
                ..Outcome::default()
            }),
            vec![Aspect::Status],
        ),
    ];
    for (what, a, b, want) in table {
        let k = key(CV, Some("h-e1"), 1);
        let ta = trail(a.into_iter().map(|o| (k.clone(), o)).collect());
        let tb = trail(b.into_iter().map(|o| (k.clone(), o)).collect());
        let c = compare(&ta, &tb);
        assert_eq!(c.rows.len(), 1, "{what}");
        assert_eq!(c.rows[0].differs, want, "{what}");
        assert_eq!(c.first_divergence.is_some(), !want.is_empty(), "{what}");
    }
}

#[test]
fn rows_follow_the_runs_order_and_the_first_divergence_is_marked() {
    let scoping = key(Stage::ProblemScoping, None, 1);
    let e1 = key(CV, Some("h-e1"), 1);
    let e1_again = key(CV, Some("h-e1"), 2);
    let m1 = key(CV, Some("h-m1"), 1);
    let evidence = key(Stage::EvidenceCheck, None, 1);
    // a: h-e1 fails, is refined and passes; b: h-e1 passes at once.
    let a = trail(vec![
        (scoping.clone(), done()),
        (
            e1.clone(),
            routed(
                gate(GateResult::Fail, ">= 0.92", "0.8832"),
                Taken::Action(RoutingAction::MethodRefine),
            ),
        ),
        (
            e1_again.clone(),
            gate(GateResult::Pass, ">= 0.92", "0.9356"),
        ),
        (evidence.clone(), done()),
    ]);
    let b = trail(vec![
        (scoping.clone(), done()),
        (e1.clone(), gate(GateResult::Pass, ">= 0.85", "0.8832")),
        (m1.clone(), gate(GateResult::Pass, ">= 0.5", "0.6")),
        (evidence.clone(), done()),
    ]);
    let c = compare(&a, &b);
    let keys: Vec<&StepKey> = c.rows.iter().map(|r| &r.key).collect();
    assert_eq!(keys, [&scoping, &e1, &e1_again, &m1, &evidence]);
    assert_eq!(c.first_divergence, Some(1));
    assert_eq!(c.rows[2].differs, [Aspect::OnlyA]);
    assert_eq!(c.rows[3].differs, [Aspect::OnlyB]);
    assert!(!c.rows[4].diverges());
    assert_eq!(c.rows_of(CV).count(), 3);
    assert!(c.diverged());
}

#[test]
fn alike_runs_do_not_diverge_unless_they_ended_apart() {
    let steps = vec![(key(Stage::ProblemScoping, None, 1), done())];
    let a = trail(steps.clone());
    assert!(!compare(&a, &a).diverged());
    let mut stopped = trail(steps);
    stopped.status = Some(WorkflowStatus::Stopped);
    stopped.stop_reason = Some("no recording".into());
    let c = compare(&a, &stopped);
    assert_eq!(c.first_divergence, None);
    assert_eq!(c.end, ("COMPLETED".into(), "STOPPED: no recording".into()));
    assert!(c.diverged());
    assert!(!compare(&Trail::default(), &Trail::default()).diverged());
}

#[test]
fn a_step_only_b_took_first_goes_first() {
    let x = key(Stage::ProblemScoping, None, 1);
    let y = key(Stage::LiteratureGrounding, None, 1);
    let c = compare(
        &trail(vec![(y.clone(), done())]),
        &trail(vec![(x.clone(), done()), (y.clone(), done())]),
    );
    let keys: Vec<&StepKey> = c.rows.iter().map(|r| &r.key).collect();
    assert_eq!(keys, [&x, &y]);
    assert_eq!(c.first_divergence, Some(0));
}
