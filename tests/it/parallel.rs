//! Parallel experiments (`[exec] max_parallel`): four independent sub-hypotheses whose
//! experiments take 2 s each run two at a time, and the run ends in the same VSA as the
//! serial one; killed while two experiments run, a resumed run ends there too.

use crate::common;

use std::path::Path;
use std::time::Instant;

use common::script::{Script, brief, code_reply, replay_run, with_data};
use youra::vsa::store::Store;

const IDS: [&str; 4] = ["h-e1", "h-e2", "h-e3", "h-e4"];

/// A 2-second experiment that measures `share` (rows with a bill length) from the data.
const SLOW_PY: &str = r#"import csv, json, os, time
time.sleep(2)
with open(os.path.join("..", "..", "data", "penguins.csv")) as f:
    rows = list(csv.DictReader(f))
share = sum(1 for r in rows if r.get("bill_length_mm") not in (None, "", "NA")) / len(rows)
with open(os.path.join(os.environ.get("YOURA_RESULTS_DIR", "."), "experiment_results.json"), "w") as f:
    json.dump({"share": share}, f)
"#;

fn plan() -> String {
    let hs: Vec<serde_json::Value> = IDS
        .iter()
        .map(|h| serde_json::json!({"id": h, "type": "EXISTENCE", "statement": format!("{h}: most rows have a bill length."), "gate": {"type": if *h == "h-e1" { "MUST_WORK" } else { "SHOULD_WORK" }, "criterion": "share >= 0.5"}, "prerequisites": []}))
        .collect();
    serde_json::json!({"sub_hypotheses": hs, "rationale": "four independent checks"}).to_string()
}

fn script() -> Script {
    let mut s = Script::default();
    s.scoping().literature().debate(6, true);
    s.reply("executor", "verification_planning", None, 1, &plan())
        .ok("verification_planning", None, 1);
    for h in IDS {
        s.loop_for(
            h,
            &brief("share", ">=", 0.5),
            &[code_reply("slow.py", SLOW_PY, &[])],
        );
    }
    s
}

fn run(parallel: usize) -> (tempfile::TempDir, std::path::PathBuf) {
    run_with(parallel, "")
}

fn run_with(parallel: usize, extra: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let toml =
        format!("experiment_time_limit_s = 60\n\n[exec]\nmax_parallel = {parallel}\n{extra}");
    let (g, dir) = replay_run(&script(), &toml);
    with_data(&dir);
    (g, dir)
}

/// What must not depend on how the experiments were scheduled: per sub-hypothesis (file
/// order) its status, gate result, measured values and validation status, and the
/// reasons of its history entries in order.
fn essence(dir: &Path) -> Vec<String> {
    let snap = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    let mut out = vec![format!("workflow {:?}", snap.vsa.workflow.status)];
    for h in &snap.vsa.sub_hypotheses {
        let node = snap
            .doc
            .root
            .as_ref()
            .unwrap()
            .get("sub_hypotheses")
            .unwrap()
            .get(&h.id)
            .unwrap();
        out.push(format!(
            "{} {} {:?} measured={:?} validation={:?}",
            h.id,
            h.status.as_str(),
            h.gate.result,
            node.get("gate")
                .and_then(|g| g.get("measured"))
                .map(|m| format!("{m:?}")),
            youra::engine::progress::loop_status(
                &snap.doc,
                &h.id,
                youra::stage::Stage::CodingValidation
            ),
        ));
    }
    // History reasons that name a sub-hypothesis, grouped by it, in their order.
    let root = snap.doc.root.as_ref().unwrap();
    let history = root.get("history").and_then(|h| h.as_seq()).unwrap();
    for id in IDS {
        let reasons: Vec<String> = history
            .iter()
            .filter_map(|e| e.get("reason")?.as_str().map(str::to_string))
            .filter(|r| r.contains(id))
            .collect();
        let mut reasons = reasons;
        // A restarted step repeats its "start …" marker, never its results.
        reasons.dedup_by(|a, b| a == b && a.starts_with("start "));
        out.push(format!("{id} history {reasons:?}"));
    }
    out
}

/// (hypothesis, start, end) of each experiment, from events.jsonl (RFC 3339 times).
fn spans(
    dir: &Path,
) -> Vec<(
    String,
    chrono::DateTime<chrono::FixedOffset>,
    chrono::DateTime<chrono::FixedOffset>,
)> {
    let text = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    let mut open = std::collections::BTreeMap::new();
    let mut out = Vec::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let (Some(kind), Some(h), Some(t)) = (
            v["kind"].as_str(),
            v["hypothesis"].as_str(),
            v["time"].as_str(),
        ) else {
            continue;
        };
        let t = chrono::DateTime::parse_from_rfc3339(t).unwrap();
        match kind {
            "experiment_start" => {
                open.insert(h.to_string(), t);
            }
            "experiment_exit" => {
                if let Some(s) = open.remove(h) {
                    out.push((h.to_string(), s, t));
                }
            }
            _ => {}
        }
    }
    out
}

fn overlapping(dir: &Path) -> usize {
    let s = spans(dir);
    let mut n = 0;
    for (i, a) in s.iter().enumerate() {
        for b in &s[i + 1..] {
            if a.1 < b.2 && b.1 < a.2 {
                n += 1;
            }
        }
    }
    n
}

#[test]
fn four_independent_experiments_run_two_at_a_time_and_end_in_the_serial_vsa() {
    let (_g1, serial) = run(1);
    let t = Instant::now();
    let end = common::script::run_engine(&serial, true);
    let serial_s = t.elapsed().as_secs_f64();
    let (_g2, parallel) = run(2);
    let t = Instant::now();
    let end2 = common::script::run_engine(&parallel, true);
    let parallel_s = t.elapsed().as_secs_f64();
    println!(
        "bench parallel: 4 experiments of 2 s: serial {serial_s:.2} s, max_parallel = 2 {parallel_s:.2} s (ratio {:.2})",
        parallel_s / serial_s
    );
    assert_eq!(end, end2);
    let ev = std::fs::read_to_string(serial.join("events.jsonl")).unwrap();
    assert_eq!(
        spans(&serial).len(),
        4,
        "{end:?} {}",
        &ev[ev.len().saturating_sub(1500)..]
    );
    assert_eq!(spans(&serial).len(), 4, "four experiments ran");
    assert_eq!(overlapping(&serial), 0, "serially, no two ran at once");
    assert!(
        overlapping(&parallel) >= 2,
        "two ran at once, twice: {:?}",
        spans(&parallel)
    );
    assert_eq!(essence(&serial), essence(&parallel));
    let e = essence(&parallel);
    assert!(
        e.iter().filter(|l| l.contains(" VALIDATED ")).count() == 4,
        "{e:#?}"
    );
}

#[test]
fn killed_while_two_experiments_run_a_resumed_run_ends_in_the_same_vsa() {
    let (_g1, serial) = run(1);
    let serial_end = common::script::run_engine(&serial, true);
    let (_g2, dir) = run(2);
    let bin = env!("CARGO_BIN_EXE_youra");
    let mut child = std::process::Command::new(bin)
        .args(["run", dir.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until two experiments have started and neither has ended, then SIGKILL.
    let t = Instant::now();
    loop {
        let text = std::fs::read_to_string(dir.join("events.jsonl")).unwrap_or_default();
        let starts = text.matches("\"experiment_start\"").count();
        let exits = text.matches("\"experiment_exit\"").count();
        if starts >= 2 && exits == 0 {
            break;
        }
        assert!(
            t.elapsed().as_secs() < 60,
            "two experiments never ran at once"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let snap = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    assert!(
        snap.vsa
            .sub_hypotheses
            .iter()
            .all(|h| !h.status.is_validated()),
        "killed before any experiment landed"
    );
    assert_eq!(common::script::run_engine(&dir, true), serial_end);
    // A step the kill cut short was started again: its "start …" entry is written twice,
    // as after any restart (tests/kill_sweep.rs); everything else is the serial run's.
    assert_eq!(essence(&serial), essence(&dir));
}

/// Each node's (sub-hypothesis, reward) of the run's plan tree, in id order.
fn rewards(dir: &Path) -> Vec<(Option<String>, Option<f64>)> {
    let tree = youra::plan::load(dir, youra::plan::Plans::Read)
        .unwrap()
        .tree;
    tree.nodes()
        .iter()
        .map(|n| {
            (
                n.hypothesis_id.clone(),
                n.packet.as_ref().map(|p| (p.reward * 1e6).round() / 1e6),
            )
        })
        .collect()
}

#[test]
fn with_the_plan_tree_the_roots_of_independent_sub_hypotheses_run_together() {
    // One node per sub-hypothesis (after_pass = 0: each search ends at its first pass), so
    // the four roots selected in the same round of the loop fly two at a time.
    let plan = "\n[plan]\nbudget_tokens = 100000\nafter_pass = 0\n";
    let (_g1, serial) = run_with(1, plan);
    let end = common::script::run_engine(&serial, true);
    let (_g2, parallel) = run_with(2, plan);
    let end2 = common::script::run_engine(&parallel, true);
    assert_eq!(end, end2);
    assert_eq!(overlapping(&serial), 0);
    assert!(overlapping(&parallel) >= 2, "{:?}", spans(&parallel));
    assert_eq!(essence(&serial), essence(&parallel));
    assert_eq!(rewards(&serial), rewards(&parallel));
    assert_eq!(rewards(&parallel).len(), 4, "one root per sub-hypothesis");
    // Each node's rows in the ledger are its own, also while another node flew.
    let budget = youra::plan::load(&parallel, youra::plan::Plans::Read)
        .unwrap()
        .budget
        .unwrap();
    let serial_budget = youra::plan::load(&serial, youra::plan::Plans::Read)
        .unwrap()
        .budget
        .unwrap();
    assert_eq!(budget.node_tokens, serial_budget.node_tokens);
}
