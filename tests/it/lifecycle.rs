//! Whole-lifecycle runs of the engine on replay transcripts: the happy path, a controller
//! MUST_STOP, a bounded resume loop, debates that converge and that hit their maximum, a
//! missing recording, and an output check that sends a stage back.

use crate::common;

use std::path::Path;

use common::script::{PERSONAS, SCOPING, Script, moderator, replay_run};
use youra::engine::RunEnd;
use youra::vsa::store::Store;

fn run(dir: &Path) -> RunEnd {
    common::script::run_engine(dir, true)
}

fn vsa(dir: &Path) -> std::sync::Arc<youra::vsa::store::Snapshot> {
    Store::new(dir.join("verification_state.yaml"))
        .load()
        .expect("VSA reads")
}

fn phase(dir: &Path, key: &str) -> Option<String> {
    let s = vsa(dir);
    let n = s
        .doc
        .root
        .as_ref()?
        .get("phases")?
        .get(key)?
        .get("status")?;
    n.as_str().map(str::to_string)
}

fn count_files(dir: &Path) -> usize {
    std::fs::read_dir(dir).map(|r| r.count()).unwrap_or(0)
}

#[test]
fn happy_path_runs_every_stage_to_the_end_of_implementation_planning() {
    let mut s = Script::default();
    s.through_design();
    let (_g, dir) = replay_run(&s, "");
    let end = run(&dir);
    let RunEnd::Stopped(reason) = &end else {
        panic!("expected the stop at the loop's edge, got {end:?}")
    };
    assert!(reason.contains("Coding & Validation"), "{reason}");
    for key in [
        "problem_scoping",
        "literature_grounding",
        "hypothesis_debate",
        "verification_planning",
    ] {
        assert_eq!(phase(&dir, key).as_deref(), Some("COMPLETED"), "{key}");
    }
    for f in [
        "00_brainstorm_session.md",
        "01_targeted_research.md",
        "discussion_log.md",
        "01_round_table/final_opinions.yaml",
        "02_synthesis.yaml",
        "03_refinement.yaml",
        "02b_verification_plan.md",
        "h-e1/02c_experiment_brief.md",
    ] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    let snap = vsa(&dir);
    let ids: Vec<&str> = snap
        .vsa
        .sub_hypotheses
        .iter()
        .map(|h| h.id.as_str())
        .collect();
    assert_eq!(ids, ["h-e1", "h-m1", "h-c1"]);
    assert_eq!(
        snap.vsa
            .main_hypothesis
            .as_ref()
            .and_then(|m| m.id.as_deref()),
        Some("H-Bill-v1")
    );
    assert_eq!(snap.vsa.sub_hypotheses[0].status.as_str(), "READY");
    assert_eq!(snap.vsa.sub_hypotheses[1].status.as_str(), "NOT_STARTED");
    assert_eq!(
        snap.vsa.workflow.status.as_ref().map(|s| s.as_str()),
        Some("STOPPED")
    );
    // Every exchange was recorded and charged, once ...
    // ... plus the call that found no recording (the coding step), recorded with its error.
    assert_eq!(count_files(&dir.join("transcripts")), s.len() + 1);
    let ledger = std::fs::read_to_string(dir.join("ledger.tsv")).unwrap();
    assert_eq!(ledger.lines().count(), s.len() + 1);
    let log = std::fs::read_to_string(dir.join("discussion_log.md")).unwrap();
    assert!(log.contains("Converged after 6 exchanges"), "{log}");
    let synthesis = std::fs::read_to_string(dir.join("02_synthesis.yaml")).unwrap();
    assert!(synthesis.contains("converged: true"), "{synthesis}");
    let events = youra::rundir::events::read(&dir.join("events.jsonl"));
    let ends = events.iter().filter(|e| e.kind == "stage_end").count();
    assert_eq!(ends, 6, "four stages, one design, one implementation plan");
}

#[test]
fn a_controller_must_stop_stops_the_run_with_its_reason() {
    let mut s = Script::default();
    s.scoping();
    s.reply(
        "executor",
        "literature_grounding",
        None,
        1,
        common::script::LITERATURE,
    );
    s.reply(
        "controller",
        "literature_grounding",
        None,
        1,
        r#"{"decision":"MUST_STOP","reason":"the gaps are not gaps"}"#,
    );
    let (_g, dir) = replay_run(&s, "");
    assert_eq!(
        run(&dir),
        RunEnd::Stopped("controller: the gaps are not gaps".into())
    );
    let snap = vsa(&dir);
    assert_eq!(
        snap.vsa.workflow.stop_reason.as_deref(),
        Some("controller: the gaps are not gaps")
    );
    assert_eq!(phase(&dir, "literature_grounding"), None);
    assert_eq!(phase(&dir, "problem_scoping").as_deref(), Some("COMPLETED"));
}

#[test]
fn resume_prompts_are_bounded() {
    let mut s = Script::default();
    for attempt in 1..=3 {
        s.reply("executor", "problem_scoping", None, attempt, SCOPING);
        s.reply(
            "controller",
            "problem_scoping",
            None,
            attempt,
            r#"{"decision":"RESUME","resume_prompt":"be more specific"}"#,
        );
    }
    let (_g, dir) = replay_run(&s, "");
    let RunEnd::Stopped(reason) = run(&dir) else {
        panic!("expected a stop")
    };
    assert!(reason.contains("limit engine.max_resumes = 2"), "{reason}");
    assert_eq!(
        count_files(&dir.join("transcripts")),
        6,
        "three attempts, each judged"
    );
}

#[test]
fn an_incomplete_output_is_sent_back_with_what_is_missing() {
    let mut s = Script::default();
    s.reply(
        "executor",
        "problem_scoping",
        None,
        1,
        "## Research Question\nq\n",
    );
    s.reply("executor", "problem_scoping", None, 2, SCOPING)
        .ok("problem_scoping", None, 2);
    s.reply(
        "executor",
        "literature_grounding",
        None,
        1,
        common::script::LITERATURE,
    );
    s.reply(
        "controller",
        "literature_grounding",
        None,
        1,
        r#"{"decision":"MUST_STOP","reason":"end of test"}"#,
    );
    let (_g, dir) = replay_run(&s, "");
    assert_eq!(run(&dir), RunEnd::Stopped("controller: end of test".into()));
    let t = std::fs::read_dir(dir.join("transcripts"))
        .unwrap()
        .filter_map(|e| e.ok())
        .find(|e| {
            e.file_name()
                .to_string_lossy()
                .contains("problem_scoping-executor-a2")
        })
        .expect("attempt 2 recorded");
    let text = std::fs::read_to_string(t.path()).unwrap();
    assert!(
        text.contains("Motivation"),
        "the resume prompt names the missing section"
    );
}

#[test]
fn a_debate_that_never_converges_stops_at_its_maximum() {
    let mut s2 = Script::default();
    s2.scoping().literature().gap();
    for i in 0..8 {
        s2.reply(
            "controller",
            "hypothesis_debate",
            None,
            1,
            &moderator(false, PERSONAS[i % 6]),
        );
        s2.reply(
            "persona",
            "hypothesis_debate",
            None,
            1,
            &format!("turn {i}\nProposal: p{i}"),
        );
    }
    s2.reply(
        "controller",
        "hypothesis_debate",
        None,
        1,
        &moderator(false, "impact"),
    );
    s2.reply(
        "executor",
        "hypothesis_debate",
        None,
        1,
        common::script::SYNTHESIS,
    );
    s2.reply(
        "executor",
        "hypothesis_debate",
        None,
        1,
        common::script::REFINEMENT,
    );
    s2.ok("hypothesis_debate", None, 1);
    let (_g, dir) = replay_run(&s2, "\n[debate]\nmax_exchanges = 8\n");
    let RunEnd::Stopped(reason) = run(&dir) else {
        panic!("expected a stop")
    };
    assert!(
        reason.contains("missing") || reason.contains("no recorded"),
        "{reason}"
    );
    let log = std::fs::read_to_string(dir.join("discussion_log.md")).unwrap();
    assert!(
        log.contains("Stopped at the maximum without convergence after 8 exchanges"),
        "{log}"
    );
    assert_eq!(log.matches("## Exchange").count(), 8);
    assert_eq!(
        phase(&dir, "hypothesis_debate").as_deref(),
        Some("COMPLETED")
    );
    let synthesis = std::fs::read_to_string(dir.join("02_synthesis.yaml")).unwrap();
    assert!(synthesis.contains("converged: false"), "{synthesis}");
}

#[test]
fn a_request_with_no_recording_stops_the_run_naming_the_key() {
    let mut s = Script::default();
    s.scoping();
    let (_g, dir) = replay_run(&s, "");
    let RunEnd::Stopped(reason) = run(&dir) else {
        panic!("expected a stop")
    };
    assert!(
        reason.contains("role=executor stage=literature_grounding attempt=1"),
        "{reason}"
    );
    assert!(reason.contains("no recorded exchange"), "{reason}");
}

#[test]
fn a_plan_that_breaks_the_rules_is_sent_back_then_accepted() {
    let mut s = Script::default();
    s.scoping().literature().debate(6, true);
    // Well-formed (the schema takes it) but against the rules: the first sub-hypothesis
    // must be MUST_WORK, and a prerequisite must come earlier.
    s.reply("executor", "verification_planning", None, 1, r#"{"sub_hypotheses":[{"id":"h-e1","type":"EXISTENCE","statement":"s","gate":{"type":"SHOULD_WORK","criterion":"c"},"prerequisites":[]},{"id":"h-m1","type":"MECHANISM","statement":"s","gate":{"type":"MUST_WORK","criterion":"c"},"prerequisites":["h-z9"]},{"id":"h-c1","type":"CONDITION","statement":"s","gate":{"type":"SHOULD_WORK","criterion":"c"},"prerequisites":[]}]}"#);
    s.reply(
        "executor",
        "verification_planning",
        None,
        2,
        common::script::PLAN,
    )
    .ok("verification_planning", None, 2);
    s.design("h-e1").implementation("h-e1");
    let (_g, dir) = replay_run(&s, "");
    let RunEnd::Stopped(reason) = run(&dir) else {
        panic!("expected the stop at the loop's edge")
    };
    assert!(reason.contains("Coding & Validation"), "{reason}");
    assert_eq!(vsa(&dir).vsa.sub_hypotheses.len(), 3);
}

#[test]
fn a_reply_outside_its_schema_is_asked_once_more_naming_the_violation() {
    let mut s = Script::default();
    s.reply("executor", "problem_scoping", None, 1, SCOPING)
        .reply(
            "controller",
            "problem_scoping",
            None,
            1,
            r#"{"decision": "SHOCKED", "reason": "?"}"#,
        )
        .ok("problem_scoping", None, 1);
    let (_g, dir) = replay_run(&s, "");
    let RunEnd::Stopped(reason) = run(&dir) else {
        panic!("expected the stop at the missing literature recording")
    };
    assert!(reason.contains("stage=literature_grounding"), "{reason}");
    assert_eq!(phase(&dir, "problem_scoping").as_deref(), Some("COMPLETED"));
    let events = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    assert!(
        events.contains("breaks the `controller_decision` schema")
            && events.contains("\\\"SHOCKED\\\" is not one of"),
        "{events}"
    );
    // The re-ask carried the violation back to the model.
    let asked: Vec<serde_json::Value> = std::fs::read_dir(dir.join("transcripts"))
        .unwrap()
        .map(|e| serde_json::from_slice(&std::fs::read(e.unwrap().path()).unwrap()).unwrap())
        .filter(|x: &serde_json::Value| x["key"]["role"] == "controller")
        .collect();
    assert_eq!(asked.len(), 2);
    let last = asked
        .iter()
        .map(|x| x["request"]["messages"].as_array().unwrap().len())
        .max();
    assert_eq!(last, Some(4), "system, user, the bad reply, the correction");
}

#[test]
fn a_reply_that_breaks_its_schema_twice_stops_the_run_naming_it() {
    let mut s = Script::default();
    s.scoping().literature().debate(6, true);
    let bad = r#"{"sub_hypotheses": [{"id": "h-e1", "type": "GUESS", "statement": "s", "gate": {"type": "MUST_WORK", "criterion": "c"}, "prerequisites": []}]}"#;
    s.reply("executor", "verification_planning", None, 1, bad)
        .reply("executor", "verification_planning", None, 1, bad);
    let (_g, dir) = replay_run(&s, "");
    let RunEnd::Stopped(reason) = run(&dir) else {
        panic!("expected a stop")
    };
    assert!(
        reason.contains("breaks the `verification_plan` schema after one re-ask")
            && reason.contains("youra doctor"),
        "{reason}"
    );
    assert!(reason.contains("Verification Planning"), "{reason}");
}
