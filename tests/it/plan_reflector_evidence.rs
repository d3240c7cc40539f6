//! The reflector's evidence end to end (issue 41, item 3; PrimeScientist's reflector): a plan
//! node whose experiment logs 1000 lines is recorded with the log's first 100 and last 500
//! lines, and the expansion prompt that follows shows both with what was left out, the whole
//! search in outline with the node marked, and the reflector's memory of its proposals.

use crate::common;

use std::path::Path;

use common::script::{CENTROID_PY, Script, brief, replay_run, verdict, with_data};
use youra::plan::{LOG_HEAD_KEY, LOG_TAIL_KEY};

use crate::plan_code::{EXPANSION, SCALED_PY, tree};

/// Prints a set-up line, 1000 progress lines and a last line around the real experiment.
const NOISY_PY: &str = "import runpy, sys\nprint(\"SETUP-FIRST-LINE reading data/penguins.csv\")\nfor i in range(1000):\n    print(f\"progress {i} of 1000\")\nsys.argv = [\"centroid.py\"]\nrunpy.run_path(\"centroid.py\", run_name=\"__main__\")\nprint(\"LAST-LINE-OF-THE-EXPERIMENT\")\n";

/// The reflector's prompt: the user message of its first recorded call for `h`.
fn reflector_prompt(run: &Path, h: &str) -> String {
    let want = format!("-coding_validation-reflector-{h}-");
    let file = std::fs::read_dir(run.join("transcripts"))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().contains(&want))
        .min_by_key(|e| e.file_name())
        .unwrap_or_else(|| panic!("no reflector transcript for {h}"));
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(file.path()).unwrap()).unwrap();
    let text = v.to_string();
    // Every string of the transcript, joined: the prompt's text whatever the record's shape.
    fn strings(v: &serde_json::Value, out: &mut String) {
        match v {
            serde_json::Value::String(s) => {
                out.push_str(s);
                out.push('\n');
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
            serde_json::Value::Object(o) => o.values().for_each(|x| strings(x, out)),
            _ => {}
        }
    }
    let mut out = String::new();
    strings(&v, &mut out);
    assert!(!out.is_empty(), "{text}");
    out
}

#[test]
fn the_reflector_reads_the_logs_head_and_tail_the_whole_search_and_its_memory() {
    let mut s = Script::default();
    s.scoping()
        .literature()
        .debate(6, true)
        .planning()
        .design_and_plan("h-e1", &brief("accuracy", ">=", 0.99));
    let root_code = serde_json::json!({
        "files": [
            {"path": "centroid.py", "content": CENTROID_PY},
            {"path": "noisy.py", "content": NOISY_PY},
        ],
        "command": ["python3", "noisy.py"],
    })
    .to_string();
    s.failing_attempt("h-e1", &root_code, "Method", 0.7, &verdict("NotValid", 0.3));
    s.round(1)
        .reply("reflector", "coding_validation", Some("h-e1"), 1, EXPANSION)
        .passing_attempt(
            "h-e1",
            &common::script::code_reply("scaled.py", SCALED_PY, &[]),
        );
    let (_g, run) = replay_run(
        &s,
        "experiment_time_limit_s = 60\n\n[plan]\nbudget_tokens = 1000000\npolicy = \"greedy\"\nafter_pass = 0\n",
    );
    with_data(&run);
    let _ = common::script::run_engine(&run, true);

    // The root's packet keeps the brief, bounded.
    let tree = tree(&run);
    let root = tree.roots().next().expect("a root");
    let p = root.packet.as_ref().expect("the root ran");
    let head = p.extra[LOG_HEAD_KEY].as_str().unwrap();
    let tail = p.extra[LOG_TAIL_KEY].as_str().unwrap();
    assert!(head.starts_with("SETUP-FIRST-LINE"), "{head}");
    assert_eq!(head.lines().count(), 100);
    assert!(tail.contains("LAST-LINE-OF-THE-EXPERIMENT"), "{tail}");
    assert_eq!(tail.lines().count(), 500);
    assert!(p.extra["log_omitted"].as_u64().unwrap() > 300);
    assert!(!head.contains("progress 300 ") && !tail.contains("progress 300 "));

    // The expansion prompt shows them, the search and the memory.
    let prompt = reflector_prompt(&run, "h-e1");
    for want in [
        "SETUP-FIRST-LINE",
        "lines of the log are left out",
        "LAST-LINE-OF-THE-EXPERIMENT",
        "## The whole search so far",
        &format!("- {} [", root.id),
        "◀ you are expanding this node",
        "## What you proposed before in this search, and how it went",
        "(none: this is your first expansion in this search)",
    ] {
        assert!(prompt.contains(want), "{want}\n{prompt}");
    }
    assert!(
        !prompt.contains("progress 300 of 1000"),
        "the middle is left out"
    );
}
