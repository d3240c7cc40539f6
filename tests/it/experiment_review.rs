//! Experiment review (issue 42 item 1, decision 0040) on headless replay runs with
//! `[review] before_experiment = "always"`, answered from another process by `youra steer RUN
//! review …` as a script over SSH would: the run waits before the job starts (nothing ran,
//! the record names criteria, command, diff and cost), the answer lets it run on; a rejection
//! prunes the node and its reason is in the reflector's next recorded request; an edit given
//! with `--file` is the node's committed code and what the experiment ran. Real Python in the
//! sandbox, real processes for the answers.

use crate::common;
use crate::plan_code::{commit_files, executed, tree};

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::script::{CENTROID_PY, Script, brief, code_reply, replay_run, verdict, with_data};
use youra::plan::node_code::Repo;

const PLAN_TREE: &str = "[plan]\nbudget_tokens = 1000000\npolicy = \"greedy\"\nafter_pass = 0\n";

/// `[review]` for these runs; `experiment_time_limit_s` sits in `[engine]` (replay_run's).
/// Up to h-e1's gate, its one experiment passing (standardized bills, ≥ 0.9): the run every
/// review test waits in.
pub(crate) fn passing() -> Script {
    let mut s = Script::default();
    s.scoping()
        .literature()
        .debate(6, true)
        .planning()
        .design_and_plan("h-e1", &brief("accuracy", ">=", 0.9))
        .passing_attempt(
            "h-e1",
            &code_reply("centroid.py", CENTROID_PY, &["--standardize"]),
        );
    s
}

pub(crate) fn toml(plan: bool) -> String {
    format!(
        "experiment_time_limit_s = 60\n\n[review]\nbefore_experiment = \"always\"\n\n{}",
        if plan { PLAN_TREE } else { "" }
    )
}

/// One child per expansion, with its own plan text (the second must differ from the first).
fn one_child(plan: &str) -> String {
    serde_json::json!({"children": [{"plan": plan, "prior": {"estimate": 0.6, "hypothesis": "scale", "rationale": "r", "changes": ["c"], "risks": ["r"]}}]}).to_string()
}

pub(crate) fn pending(run: &Path) -> Option<youra::vsa::review::PendingReview> {
    let s = youra::vsa::Store::new(run.join("verification_state.yaml"))
        .load()
        .ok()?;
    s.vsa.workflow.review.clone().filter(|r| r.waits())
}

/// Wait (at most a minute) until a review waits, and return it.
pub(crate) fn waits(
    run: &Path,
    engine: &std::thread::JoinHandle<youra::engine::RunEnd>,
) -> youra::vsa::review::PendingReview {
    let start = Instant::now();
    loop {
        if let Some(r) = pending(run) {
            return r;
        }
        assert!(
            !engine.is_finished(),
            "the run ended without a review waiting: {:?}",
            common::vsa_field(run, "workflow.stop_reason")
        );
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no review within a minute"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `youra steer RUN review <answer…> --reason R --as NAME [--file F]`, which must succeed.
pub(crate) fn answer(
    run: &Path,
    words: &[&str],
    reason: &str,
    who: &str,
    file: Option<&Path>,
) -> String {
    let mut args = vec!["steer", run.to_str().unwrap(), "review"];
    args.extend_from_slice(words);
    args.extend(["--reason", reason, "--as", who]);
    let f;
    if let Some(p) = file {
        f = p.to_str().unwrap().to_string();
        args.extend(["--file", f.as_str()]);
    }
    let out = common::youra(&args);
    let (o, e) = common::text(&out);
    assert!(out.status.success(), "{args:?}: {o}{e}");
    o
}

pub(crate) fn engine(run: &Path) -> std::thread::JoinHandle<youra::engine::RunEnd> {
    let r: PathBuf = run.to_path_buf();
    std::thread::spawn(move || common::script::run_engine(&r, false))
}

pub(crate) fn review_log(run: &Path) -> Vec<(String, String, String)> {
    let s = youra::vsa::Store::new(run.join("verification_state.yaml"))
        .load()
        .unwrap();
    let log = s
        .doc
        .root
        .as_ref()
        .and_then(|r| r.get("workflow")?.get("review_log")?.as_seq())
        .unwrap_or_default();
    let f = |n: &youra::yaml::Node, k: &str| {
        n.get(k)
            .and_then(|v| v.as_scalar())
            .map(|s| s.text.clone())
            .unwrap_or_default()
    };
    log.iter()
        .map(|i| (f(i, "id"), f(i, "verdict"), f(i, "by")))
        .collect()
}

#[test]
fn a_headless_run_waits_for_review_and_runs_on_the_answer() {
    let s = passing();
    let (_g, run) = replay_run(&s, &toml(false));
    with_data(&run);
    let e = engine(&run);
    let r = waits(&run, &e);
    assert_eq!(r.hypothesis.as_deref(), Some("h-e1"));
    assert_eq!(
        r.command.as_deref(),
        Some("python3 centroid.py --standardize")
    );
    // Nothing ran while it waits: no experiment's end, no results.
    std::thread::sleep(Duration::from_millis(300));
    assert!(common::events_of(&run, "experiment_exit").is_empty());
    assert!(!run.join("h-e1/results/experiment_results.json").exists());
    assert_eq!(common::events_of(&run, "review").len(), 1, "one call");
    // `youra status` names what waits and the command that answers it.
    let (status, _) = common::text(&common::youra(&["status", run.to_str().unwrap()]));
    assert!(
        status.contains("h-e1's experiment waits for review (reviews/rv-")
            && status.contains("review approve|reject|branch|edit"),
        "{status}"
    );
    let notice = youra::notice::notice_for(&common::events_of(&run, "review")[0], &run).unwrap();
    assert!(
        notice.answer.contains("review approve"),
        "{}",
        notice.answer
    );
    // The record: criteria, command, the diff (a first node: every line added), the cost.
    let rec: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run.join(r.record.as_deref().unwrap())).unwrap())
            .unwrap();
    assert_eq!(
        rec["criteria"],
        serde_json::json!(["accuracy >= 0.9"]),
        "{rec}"
    );
    assert_eq!(
        rec["command"],
        serde_json::json!(["python3", "centroid.py", "--standardize"])
    );
    let diff = rec["diff"].as_str().unwrap();
    assert!(
        diff.contains("+++ b/code/centroid.py") && diff.contains("+def main"),
        "{diff}"
    );
    assert_eq!(rec["cost"]["limit_s"], serde_json::json!(60.0));
    assert!(
        rec["cost"]["basis"]
            .as_str()
            .unwrap()
            .contains("nothing similar"),
        "{rec}"
    );
    // A second answer is refused once one is written; the first is ana's.
    let said = answer(&run, &["approve"], "the split is right", "ana", None);
    assert!(said.contains("approved"), "{said}");
    let end = e.join().unwrap();
    assert_eq!(
        common::vsa_field(&run, "sub_hypotheses.h-e1.status").as_deref(),
        Some("VALIDATED"),
        "{end:?}"
    );
    assert_eq!(common::events_of(&run, "experiment_exit").len(), 1);
    let log = review_log(&run);
    assert_eq!(
        log,
        vec![(r.id.clone().unwrap(), "approved".into(), "ana".into())]
    );
    assert_eq!(pending(&run), None, "answered and cleared");
    let out = common::youra(&[
        "steer",
        run.to_str().unwrap(),
        "review",
        "approve",
        "--reason",
        "x",
    ]);
    assert_eq!(out.status.code(), Some(1), "no review waits now");
    assert!(
        common::text(&out)
            .1
            .contains("no experiment waits for review")
    );
}

#[test]
fn a_rejection_prunes_the_node_and_its_reason_reaches_the_next_expansion() {
    const REASON: &str = "z-scores leak the test folds: fit them on the training split only";
    let mut s = Script::default();
    s.scoping()
        .literature()
        .debate(6, true)
        .planning()
        .design_and_plan("h-e1", &brief("accuracy", ">=", 0.92));
    s.failing_attempt(
        "h-e1",
        &code_reply("centroid.py", CENTROID_PY, &[]),
        "Method",
        0.7,
        &verdict("NotValid", 0.3),
    );
    s.round(1)
        .reply(
            "reflector",
            "coding_validation",
            Some("h-e1"),
            1,
            &one_child("# Standardize everything\n\nz-scores over the whole table."),
        )
        .reply(
            "executor",
            "coding_validation",
            Some("h-e1"),
            1,
            &code_reply("leaky.py", "print('never runs')\n", &[]),
        )
        .reply(
            "reflector",
            "coding_validation",
            Some("h-e1"),
            1,
            &one_child("# Standardize on the training folds\n\nz-scores fitted per training fold."),
        )
        .passing_attempt(
            "h-e1",
            &code_reply("scaled.py", crate::plan_code::SCALED_PY, &[]),
        );
    let (_g, run) = replay_run(&s, &toml(true));
    with_data(&run);
    let e = engine(&run);
    let first = waits(&run, &e);
    assert_eq!(first.node.as_deref(), Some("n-0001"));
    answer(&run, &["approve"], "run the plan as designed", "ana", None);
    let second = waits(&run, &e);
    assert_eq!(second.node.as_deref(), Some("n-0002"));
    let rec: serde_json::Value = serde_json::from_slice(
        &std::fs::read(run.join(second.record.as_deref().unwrap())).unwrap(),
    )
    .unwrap();
    let diff = rec["diff"].as_str().unwrap();
    assert!(diff.contains("+++ b/code/leaky.py"), "{diff}");
    assert!(
        !diff.contains("centroid.py"),
        "the parent's file is unchanged: {diff}"
    );
    assert!(
        rec["cost"]["basis"]
            .as_str()
            .unwrap()
            .contains("1 experiments of h-e1"),
        "{rec}"
    );
    answer(&run, &["reject"], REASON, "bo", None);
    let third = waits(&run, &e);
    assert_eq!(third.node.as_deref(), Some("n-0003"));
    answer(&run, &["approve"], "fitted per fold", "ana", None);
    let _ = e.join().unwrap();
    let t = tree(&run);
    let n2 = t.get(&youra::plan::NodeId::new("n-0002").unwrap()).unwrap();
    assert_eq!(n2.status, youra::plan::NodeStatus::Pruned);
    assert_eq!(n2.extra["review_rejected"]["by"], "bo");
    assert!(n2.packet.is_none(), "it never ran");
    let app = common::tui::app_for(&run);
    let rows = &app.data.plan.as_ref().expect("the plan is read").rows;
    let row = rows.iter().find(|r| r.id == "n-0002").unwrap();
    assert_eq!(
        (row.status, row.rejected_by.as_deref()),
        ("pruned", Some("bo"))
    );
    // Cost in the plan (issue 42 item 4): the first node had nothing to forecast from, the
    // third was forecast from the first's cost and shows what it really cost; the branch
    // shows what it spent and the forecast of its next node.
    let cost = |id: &str| {
        t.get(&youra::plan::NodeId::new(id).unwrap())
            .and_then(|n| n.packet.as_ref())
            .map(|p| p.cost_tokens)
    };
    let row = |id: &str| rows.iter().find(|r| r.id == id).unwrap();
    let f1 = row("n-0001").forecast.expect("reviewed, so forecast");
    assert_eq!((f1.tokens, f1.actual), (None, cost("n-0001")));
    let f3 = row("n-0003").forecast.expect("reviewed, so forecast");
    assert_eq!((f3.tokens, f3.actual), (cost("n-0001"), cost("n-0003")));
    assert!(f3.text().starts_with("forecast ~"), "{}", f3.text());
    // …and its wall time, forecast from the first experiment's, against what it took.
    assert!(f3.wall_s.is_some() && f3.actual_wall_s.is_some(), "{f3:?}");
    assert!(f3.text().contains(" s → "), "{}", f3.text());
    let spent = cost("n-0001").unwrap() + cost("n-0003").unwrap();
    assert_eq!(row("n-0001").branch, Some((spent, Some(spent / 2))));
    assert_eq!(row("n-0003").branch, None, "only the branch's root says it");
    let ran: Vec<String> = executed(&run).iter().map(|n| n.0.to_string()).collect();
    assert_eq!(ran, vec!["n-0001", "n-0003"]);
    // The reflector's requests as recorded: the first knows nothing of it, the second names
    // the rejected node and the reason.
    let mut asked: Vec<(String, String)> = std::fs::read_dir(run.join("transcripts"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("reflector"))
        .map(|n| {
            let text = std::fs::read_to_string(run.join("transcripts").join(&n)).unwrap();
            (n, text)
        })
        .collect();
    asked.sort();
    assert_eq!(
        asked.len(),
        2,
        "{:?}",
        asked.iter().map(|a| &a.0).collect::<Vec<_>>()
    );
    assert!(!asked[0].1.contains("z-scores leak the test folds"));
    assert!(
        asked[1].1.contains("z-scores leak the test folds"),
        "{}",
        asked[1].1
    );
    assert!(asked[1].1.contains("n-0002"), "the node named");
    let log = review_log(&run);
    let verdicts: Vec<(&str, &str)> = log.iter().map(|l| (l.1.as_str(), l.2.as_str())).collect();
    assert_eq!(
        verdicts,
        vec![("approved", "ana"), ("rejected", "bo"), ("approved", "ana")]
    );
}

#[test]
fn an_edit_through_the_cli_is_the_nodes_committed_code_and_runs() {
    let s = passing();
    let (g, run) = replay_run(&s, &toml(true));
    with_data(&run);
    // The researcher's version: the same experiment, which also leaves a mark that it ran.
    let mine = format!(
        "{CENTROID_PY}\nimport os as _o\nopen(_o.path.join(_o.environ['YOURA_RESULTS_DIR'], 'edited.txt'), 'w').write('ana ran')\n"
    );
    let file = g.path().join("mine.py");
    std::fs::write(&file, &mine).unwrap();
    let e = engine(&run);
    let r = waits(&run, &e);
    // A path that leaves code/ is refused before anything is written.
    let out = common::youra(&[
        "steer",
        run.to_str().unwrap(),
        "review",
        "edit",
        "../escape.py",
        "--file",
        file.to_str().unwrap(),
        "--reason",
        "x",
        "--as",
        "ana",
    ]);
    assert_ne!(out.status.code(), Some(0));
    assert!(pending(&run).is_some(), "still waits");
    answer(
        &run,
        &["edit", "centroid.py"],
        "leave a mark",
        "ana",
        Some(&file),
    );
    let _ = e.join().unwrap();
    assert_eq!(
        common::vsa_field(&run, "sub_hypotheses.h-e1.status").as_deref(),
        Some("VALIDATED")
    );
    let nodes = executed(&run);
    assert_eq!(nodes.len(), 1);
    let repo = Repo::existing(&run, "h-e1").unwrap();
    let files = commit_files(&repo, &nodes[0].3);
    assert_eq!(
        files.get("code/centroid.py").map(Vec::as_slice),
        Some(mine.as_bytes()),
        "the node's committed code is the researcher's"
    );
    assert_eq!(
        files.get("results/edited.txt").map(Vec::as_slice),
        Some(b"ana ran".as_slice()),
        "and it is what ran"
    );
    let t = tree(&run);
    let n = t.get(&nodes[0].0).unwrap();
    assert_eq!(n.extra["review_edit"]["by"], "ana");
    assert_eq!(n.extra["review_edit"]["path"], "centroid.py");
    // The TUI's Plan pane marks it ✎ with the name.
    let app = common::tui::app_for(&run);
    let rows = &app.data.plan.as_ref().expect("the plan is read").rows;
    let row = rows.iter().find(|r| r.id == nodes[0].0.as_str()).unwrap();
    assert_eq!(
        (row.edited_by.as_deref(), row.rejected_by.as_deref()),
        (Some("ana"), None)
    );
    let rec: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run.join(r.record.as_deref().unwrap())).unwrap())
            .unwrap();
    assert!(
        rec["edit"]["diff"]
            .as_str()
            .unwrap()
            .contains("+open(_o.path.join"),
        "{rec}"
    );
    // On the record as a departure from the plan, by ana, with her reason.
    let store = youra::vsa::Store::new(run.join("verification_state.yaml"));
    let whole = store.whole(&store.load().unwrap()).unwrap();
    let devs = youra::vsa::deviation::read(&whole.doc);
    let d = devs
        .iter()
        .find(|d| d.kind == "code edit")
        .expect("a code edit deviation");
    assert_eq!((d.who.as_str(), d.why.as_str()), ("ana", "leave a mark"));
    assert!(d.what.contains("code/centroid.py"), "{}", d.what);
}

#[test]
fn branch_runs_the_rest_of_the_sub_hypothesis_unasked() {
    let mut s = Script::default();
    s.scoping()
        .literature()
        .debate(6, true)
        .planning()
        .design_and_plan("h-e1", &brief("accuracy", ">=", 0.92));
    s.failing_attempt(
        "h-e1",
        &code_reply("centroid.py", CENTROID_PY, &[]),
        "Method",
        0.7,
        &verdict("NotValid", 0.3),
    );
    s.round(1)
        .reply(
            "reflector",
            "coding_validation",
            Some("h-e1"),
            1,
            crate::plan_code::EXPANSION,
        )
        .passing_attempt(
            "h-e1",
            &code_reply("scaled.py", crate::plan_code::SCALED_PY, &[]),
        );
    let (_g, run) = replay_run(&s, &toml(true));
    with_data(&run);
    let e = engine(&run);
    let first = waits(&run, &e);
    assert_eq!(first.node.as_deref(), Some("n-0001"));
    answer(
        &run,
        &["branch"],
        "I trust this sub-hypothesis",
        "ana",
        None,
    );
    let _ = e.join().unwrap();
    assert_eq!(
        common::vsa_field(&run, "sub_hypotheses.h-e1.status").as_deref(),
        Some("VALIDATED")
    );
    assert_eq!(executed(&run).len(), 2, "the child ran too");
    assert_eq!(
        review_log(&run),
        vec![(first.id.clone().unwrap(), "branch".into(), "ana".into())],
        "one review: the child was not asked about"
    );
    let snap = youra::vsa::Store::new(run.join("verification_state.yaml"))
        .load()
        .unwrap();
    assert_eq!(
        youra::vsa::review::approved_branches(&snap.doc),
        vec!["h-e1".to_string()]
    );
}

#[test]
fn an_unanswered_review_follows_the_waiting_policy() {
    let s = passing();
    let (_g, run) = replay_run(
        &s,
        &format!(
            "approval_timeout_s = 0.3\napproval_default = \"approve\"\n{}",
            toml(false)
        ),
    );
    with_data(&run);
    let _ = common::script::run_engine(&run, true);
    assert_eq!(
        common::vsa_field(&run, "sub_hypotheses.h-e1.status").as_deref(),
        Some("VALIDATED")
    );
    let log = review_log(&run);
    assert_eq!(log.len(), 1);
    assert_eq!(
        (log[0].1.as_str(), log[0].2.as_str()),
        ("approved", "policy")
    );
}
