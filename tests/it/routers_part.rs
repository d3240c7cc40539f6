//! The two routers part, end to end on one recorded bundle (issue 41: "the demo cannot tell
//! the routers apart"). h-e1's unscaled rule misses 0.95 on a Method cause of severity 0.3
//! under an evidence contradiction: SAGE's table refines the method (Coding & Validation
//! again, where the calipers standardized pass), while the controller redesigns (archive →
//! Hypothesis Debate → a new plan whose sub-hypotheses pass). Both runs complete from the
//! same bundle, each taking its own continuation, and `youra compare` marks h-e1's route as
//! the first divergence.

use crate::common;

use std::path::Path;

use common::evidence::baseline_brief;
use common::script::{
    CENTROID_PY, Script, brief, code_reply, replay_run, route, verdict, with_data,
};
use youra::engine::RunEnd;

const CONFIG: &str = "experiment_time_limit_s = 60\n\n[evidence]\nmin_repeats = 5\n";
const CALIPERS: &str = "bill_length_mm,bill_depth_mm,flipper_length_mm";

/// The controller's redesign: its debate ends on a hypothesis unlike the failed one.
const REFINED: &str = r#"{"main_hypothesis":{"id":"H-Size-v1","title":"Size and shape","statement":"With flipper length beside the two bill measurements, all put on one scale, a centroid rule names the species of at least 95 of 100 held-out penguins."},"predictions":["accuracy >= 0.95"],"falsification":"accuracy below 0.93","assumptions":["the training folds estimate the scale"]}"#;

/// The redesigned plan: new ids, as a redesign writes them.
const REPLAN: &str = r#"{"sub_hypotheses":[
 {"id":"h-e2","type":"EXISTENCE","statement":"A nearest-centroid rule on the three standardized caliper measurements reaches accuracy >= 0.95.","gate":{"type":"MUST_WORK","criterion":"accuracy >= 0.95"},"prerequisites":[],"predictions":["P1"]},
 {"id":"h-m2","type":"MECHANISM","statement":"Adding body mass to the calipers raises accuracy by at most 0.02.","gate":{"type":"SHOULD_WORK","criterion":"gain <= 0.02"},"prerequisites":["h-e2"]},
 {"id":"h-c2","type":"CONDITION","statement":"The caliper rule holds within each sex.","gate":{"type":"SHOULD_WORK","criterion":"min_group_accuracy >= 0.85"},"prerequisites":["h-e2"]}
],"rationale":"The redesign adds the size measurement the failed rule lacked."}"#;

fn code(args: &[&str]) -> String {
    code_reply("centroid.py", CENTROID_PY, args)
}

/// h-m and h-c of one plan: both pass (body mass adds about nothing once the calipers are
/// known; the rule holds for both sexes).
fn rest(s: &mut Script, m: &str, c: &str) {
    s.design_and_plan(m, &brief("gain", "<=", 0.02))
        .passing_attempt(
            m,
            &code(&[
                "--features",
                CALIPERS,
                "--standardize",
                "--compare",
                "body_mass_g",
            ]),
        )
        .design_and_plan(c, &brief("min_group_accuracy", ">=", 0.85))
        .passing_attempt(
            c,
            &code(&["--features", CALIPERS, "--standardize", "--by", "sex"]),
        );
}

/// One bundle, both continuations: keyed by stage and round, each router's path finds its own.
fn script() -> Script {
    let mut s = Script::default();
    s.scoping().literature().debate(6, true).planning();
    s.design_and_plan("h-e1", &baseline_brief(0.95));
    // Unscaled bills on five seeds: 0.879 (95% CI 0.829–0.928), below 0.95. A Method cause
    // (s = 0.3): the table refines the method; the controller redesigns instead, which the
    // judge's NotValid at κ = 0.9 (an evidence contradiction) allows.
    s.failing_attempt("h-e1", &code(&[]), "Method", 0.3, &verdict("NotValid", 0.9))
        .reply(
            "controller",
            "coding_validation",
            Some("h-e1"),
            1,
            &route("redesign"),
        );

    // The table's continuation: Coding & Validation of h-e1 again (round 1), the calipers
    // standardized, then the rest of the plan and the paper.
    s.round(1)
        .passing_attempt("h-e1", &code(&["--features", CALIPERS, "--standardize"]));
    s.round(0);
    rest(&mut s, "h-m1", "h-c1");
    s.paper();

    // The controller's continuation: the debate again (round 1), a new plan, its three
    // sub-hypotheses (round 1000: a regenerated sub-hypothesis counts the redesign), the
    // paper (round 1).
    s.round(1);
    s.debate_to(REFINED);
    s.reply("executor", "verification_planning", None, 1, REPLAN)
        .ok("verification_planning", None, 1);
    s.round(1000)
        .design_and_plan("h-e2", &baseline_brief(0.95))
        .passing_attempt("h-e2", &code(&["--features", CALIPERS, "--standardize"]));
    rest(&mut s, "h-m2", "h-c2");
    s.round(1).paper();
    s
}

fn run(router: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let (g, dir) = replay_run(
        &script(),
        &format!("{CONFIG}\n[recovery]\nrouter = \"{router}\"\n"),
    );
    with_data(&dir);
    let end = common::script::run_engine(&dir, true);
    assert_eq!(end, RunEnd::Completed, "{router}: {end:?}");
    (g, dir)
}

fn status(dir: &Path, h: &str) -> Option<String> {
    common::vsa_field(dir, &format!("sub_hypotheses.{h}.status"))
}

#[test]
fn the_controller_and_the_table_part_at_h_e1s_route_and_both_finish() {
    let (_a, table) = run("table");
    let (_b, controller) = run("controller");

    // The table refined: h-e1 itself passed on its second attempt, nothing archived.
    assert_eq!(status(&table, "h-e1").as_deref(), Some("VALIDATED"));
    assert!(youra::rundir::archive::load_archives(&table).is_empty());
    // The controller redesigned: h-e1 archived, the debate's new plan validated.
    assert_eq!(youra::rundir::archive::load_archives(&controller).len(), 1);
    assert_eq!(status(&controller, "h-e2").as_deref(), Some("VALIDATED"));
    assert_eq!(
        common::vsa_field(&controller, "recovery.pivots").as_deref(),
        Some("1")
    );
    let record = std::fs::read_to_string(controller.join("memory/failure_h-e1_run1.md")).unwrap();
    assert!(record.contains("ROUTED_TO_PHASE_2A (Pivot)"), "{record}");

    // `youra compare` marks h-e1's route as where they part.
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let out = common::youra(&["compare", &s(&table), &s(&controller)]);
    let (text, err) = common::text(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{err}");
    let first: Vec<&str> = text.lines().filter(|l| l.starts_with('»')).collect();
    assert_eq!(first.len(), 1, "{text}");
    assert!(
        first[0].contains("Coding & Validation h-e1")
            && first[0].contains("→ Local-Refine")
            && first[0].contains("→ Pivot"),
        "{text}"
    );
    // After it, each run's own path: h-e1's second attempt only in the table's, the debate
    // again only in the controller's.
    assert!(
        text.lines()
            .any(|l| l.contains("Coding & Validation h-e1 #2")
                && l.contains("PASS accuracy 0.9708")
                && l.contains("only in a")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.contains("Hypothesis Debate #2") && l.contains("only in b")),
        "{text}"
    );

    // The controller's paper names the redesign it chose; the table's names none.
    let deviations = |dir: &Path| {
        let p = std::fs::read_to_string(dir.join("paper/06_paper_final.md")).unwrap();
        p[p.find("Deviations from the plan").expect("the section")..].to_string()
    };
    let c = deviations(&controller);
    assert!(
        c.contains("- **redesign**")
            && c.contains(
                "by the controller: `h-e1 failed; back to Hypothesis Debate, its work archived`"
            ),
        "{c}"
    );
    assert!(!deviations(&table).contains("**redesign**"));
}
