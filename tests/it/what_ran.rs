//! What ran is what is recorded (issue 39, item 3b), from the attacker's side: an experiment
//! that, after measuring honestly, plants `code/statistics.py` (the standard library's module
//! with a forged result), rewrites its own script and leaves nested `.git` folders. Each is a
//! sandbox violation naming the file; `code/` is put back as youra wrote it; the node's
//! commit holds youra's files; the child starts from that commit and measures honestly; the
//! run goes on (a nested `.git` used to end it in MUST_STOP). Real runs on a replay script,
//! real Python in the sandbox.

use crate::common;
use crate::plan_code::{EXPANSION, SCALED_PY, commit_files, executed, tree};

use common::script::{CENTROID_PY, Script, brief, code_reply, replay_run, verdict, with_data};
use youra::plan::node_code::{self, Repo};

/// Run after the honest measurement (appended to the script): plant a `statistics.py` that
/// forges the result of whoever imports it, rewrite this very script, leave `.git` folders.
const POISON_TAIL: &str = r#"
import os as _os
_os.makedirs(".git/objects", exist_ok=True)
open(".git/HEAD", "w").write("ref: refs/heads/main\n")
_os.makedirs(_os.path.join(_os.environ["YOURA_RESULTS_DIR"], "sub", ".git"), exist_ok=True)
open("statistics.py", "w").write(
    "import json, os\n"
    "json.dump({'accuracy': 0.9961}, open(os.path.join(os.environ['YOURA_RESULTS_DIR'], 'experiment_results.json'), 'w'))\n"
    "os._exit(0)\n"
)
with open(__file__, "a") as _f:
    _f.write("\n# rewritten by the experiment\n")
"#;

fn violations(run: &std::path::Path) -> String {
    common::events_of(run, "sandbox_violation")
        .iter()
        .filter_map(|e| e.message.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_poisoned_parent_leaves_no_trace_in_its_commit_nor_in_its_child() {
    let poisoned = format!("{CENTROID_PY}{POISON_TAIL}");
    let mut s = Script::default();
    s.scoping()
        .literature()
        .debate(6, true)
        .planning()
        .design_and_plan("h-e1", &brief("accuracy", ">=", 0.92));
    // The first attempt measures honestly, then poisons; the repair is the honest script.
    s.reply(
        "executor",
        "coding_validation",
        Some("h-e1"),
        1,
        &code_reply("centroid.py", &poisoned, &[]),
    );
    s.failing_attempt(
        "h-e1",
        &code_reply("centroid.py", CENTROID_PY, &[]),
        "Method",
        0.7,
        &verdict("NotValid", 0.3),
    );
    s.round(1)
        .reply("reflector", "coding_validation", Some("h-e1"), 1, EXPANSION)
        .passing_attempt("h-e1", &code_reply("scaled.py", SCALED_PY, &[]));
    let (_g, run) = replay_run(
        &s,
        "experiment_time_limit_s = 60\n\n[plan]\nbudget_tokens = 1000000\npolicy = \"greedy\"\nafter_pass = 0\n",
    );
    with_data(&run);
    let _ = common::script::run_engine(&run, true);
    let seen = violations(&run);
    for named in [
        "code/statistics.py: added by the experiment",
        "code/centroid.py: changed by the experiment",
        "code/.git: a nested git repository",
        "results/sub/.git: a nested git repository",
    ] {
        assert!(seen.contains(named), "{named} in:\n{seen}");
    }
    assert_eq!(
        common::vsa_field(&run, "sub_hypotheses.h-e1.status").as_deref(),
        Some("VALIDATED"),
        "the run went on to the child that passed; violations: {seen}"
    );
    let nodes = executed(&run);
    assert_eq!(nodes.len(), 2, "{nodes:?}");
    let repo = Repo::existing(&run, "h-e1").unwrap();
    let (root, child) = (&nodes[0], &nodes[1]);
    let r = commit_files(&repo, &root.3);
    assert_eq!(
        r.get("code/centroid.py").map(Vec::as_slice),
        Some(CENTROID_PY.as_bytes()),
        "the root's commit holds the script youra wrote"
    );
    let c = commit_files(&repo, &child.3);
    for files in [&r, &c] {
        assert!(
            !files
                .keys()
                .any(|k| k.contains("statistics.py") || k.contains(".git/")),
            "{:?}",
            files.keys()
        );
    }
    assert!(!run.join("h-e1/code/statistics.py").exists());
    assert!(!run.join("h-e1/code/.git").exists());
    // The child's measurement is its own: the forged 0.9961 never reached it.
    let t = tree(&run);
    let packet = t.get(&child.0).unwrap().packet.as_ref().unwrap();
    let accuracy = packet.extra[youra::plan::MEASURED_KEY]["accuracy"]
        .as_f64()
        .unwrap();
    assert!(
        (0.92..0.99).contains(&accuracy),
        "the child's honest accuracy, not the planted one: {accuracy}"
    );
}

#[test]
fn a_script_that_rewrites_itself_is_recorded_as_youra_wrote_it() {
    let rewriting = format!(
        "{CENTROID_PY}\nwith open(__file__, \"w\") as _f:\n    _f.write(\"print('the results came from here')\\n\")\n"
    );
    let mut s = Script::default();
    s.scoping()
        .literature()
        .debate(6, true)
        .planning()
        .design_and_plan("h-e1", &brief("accuracy", ">=", 0.92));
    s.reply(
        "executor",
        "coding_validation",
        Some("h-e1"),
        1,
        &code_reply("centroid.py", &rewriting, &[]),
    );
    let (_g, run) = replay_run(
        &s,
        "experiment_time_limit_s = 60\nrepair_attempts = 0\n\n[plan]\nbudget_tokens = 1000000\npolicy = \"greedy\"\nafter_pass = 0\nmax_node_retries = 0\n",
    );
    with_data(&run);
    let options = youra::engine::Options {
        exit_when_paused: true,
        ..Default::default()
    };
    let mut e = youra::engine::Engine::open(&run, options).expect("engine opens");
    let _ = e.run();
    let seen = violations(&run);
    assert!(
        seen.contains("code/centroid.py: changed by the experiment"),
        "{seen}"
    );
    let nodes = executed(&run);
    assert_eq!(nodes.len(), 1, "{nodes:?}");
    let repo = Repo::existing(&run, "h-e1").unwrap();
    let files = commit_files(&repo, &nodes[0].3);
    assert_eq!(
        String::from_utf8_lossy(&files["code/centroid.py"]),
        rewriting,
        "the commit holds youra's script, not the rewritten one"
    );
    assert_eq!(
        std::fs::read_to_string(run.join("h-e1/code/centroid.py")).unwrap(),
        rewriting,
        "code/ put back as youra wrote it"
    );
    let diff =
        node_code::diff_to_parent(&run, &tree(&run), &nodes[0].0, node_code::SHOWN_LIMIT).unwrap();
    assert!(
        diff.lines()
            .any(|l| l == "+with open(__file__, \"w\") as _f:")
            && !diff
                .lines()
                .any(|l| l == "+print('the results came from here')"),
        "{diff}"
    );
}
