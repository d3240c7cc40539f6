//! The reflector's evidence: which node's failure analysis is current, the latest recorded
//! node, the bounds on log and diff, and what a branch summary names.

use super::*;
use crate::plan::best::PASSED_KEY;
use crate::plan::files::{Packet, Prior};
use crate::plan::tree::Draft;

fn draft(title: &str, hypothesis: &str) -> Draft {
    Draft {
        plan: format!("# {title}\n\nThe plan body.\n"),
        prior: Prior {
            estimate: Some(0.4),
            hypothesis: format!("{title} helps"),
            ..Prior::default()
        },
        hypothesis_id: Some(hypothesis.into()),
    }
}

/// An attempt's packet as the engine records it: reward, gate, metrics, attempt key, tail.
pub(super) fn packet(reward: f64, passed: bool, key: &str, tail: &str) -> Packet {
    let mut p = Packet {
        reward,
        finished_at: "2026-03-17T10:00:00Z".into(),
        ..Packet::default()
    };
    p.extra.insert(PASSED_KEY.into(), passed.into());
    p.extra.insert(
        MEASURED_KEY.into(),
        serde_json::json!({ "accuracy": reward }),
    );
    p.extra.insert("attempt".into(), key.into());
    p.extra.insert(LOG_TAIL_KEY.into(), tail.into());
    p
}

/// A failed attempt's packet: no reward, no gate, only its key and its log's tail.
pub(super) fn failed_packet(key: &str, tail: &str) -> Packet {
    let mut p = Packet {
        finished_at: "2026-03-17T10:00:00Z".into(),
        ..Packet::default()
    };
    p.extra.insert("attempt".into(), key.into());
    p.extra.insert(LOG_TAIL_KEY.into(), tail.into());
    p
}

pub(super) const FAILED_TAIL: &str = "loading data/penguins.csv: 344 rows, 342 complete
fold 1 of 5
Traceback (most recent call last):
  File \"code/centroid.py\", line 41, in <module>
    acc = evaluate(rows, features=[\"bill_depth_mm\"])
  File \"code/centroid.py\", line 27, in evaluate
    d = math.dist(x, c)
ValueError: both points must have the same dimension
HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz0123";

/// h-e1: root n-0001 missed; children n-0002 (failed), n-0003 (missed, pruned), n-0004
/// untested. h-m1: root n-0005 recorded at a later round than anything of h-e1.
pub(crate) fn fixture() -> PlanTree {
    let mut t = PlanTree::new();
    let root = t.add_root(draft("Plan for h-e1", "h-e1"), "t0");
    t.record_outcome(
        &root,
        packet(0.88, false, "h-e1#0#1", "fold 1\nfold 2"),
        0.05,
    )
    .unwrap();
    let kids = t
        .expand(
            &root,
            vec![
                draft("Bill depth alone", "h-e1"),
                draft("Standardize the features", "h-e1"),
                draft("Ten folds", "h-e1"),
            ],
            3,
            "t1",
        )
        .unwrap();
    t.record_failure(&kids[0], failed_packet("h-e1#1#1", FAILED_TAIL))
        .unwrap();
    t.record_outcome(&kids[1], packet(0.61, false, "h-e1#2#1", "done"), 0.05)
        .unwrap();
    let m1 = t.add_root(draft("Plan for h-m1", "h-m1"), "t2");
    t.record_outcome(&m1, packet(0.3, false, "h-m1#7#1", ""), 0.05)
        .unwrap();
    t
}

fn id(s: &str) -> NodeId {
    NodeId::new(s).unwrap()
}

#[test]
fn the_latest_recorded_node_goes_by_the_counters() {
    let t = fixture();
    assert_eq!(latest_recorded(&t, "h-e1"), Some(id("n-0003")));
    assert_eq!(latest_recorded(&t, "h-m1"), Some(id("n-0005")));
    assert_eq!(latest_recorded(&t, "h-x"), None);
    // (key, counters)
    let table = [
        ("h-e1#2#1", Some((2, 1))),
        ("h#10#3", Some((10, 3))),
        ("h-e1#x#1", None),
        ("3", None),
    ];
    for (key, want) in table {
        assert_eq!(attempt_counters(key), want, "{key}");
    }
}

#[test]
fn the_failure_analysis_is_shown_only_while_it_is_this_nodes() {
    let mut t = fixture();
    // (node, applies)
    let table = [
        ("n-0003", true),
        ("n-0001", false),
        ("n-0002", false),
        ("n-0005", false),
    ];
    for (node, want) in table {
        assert_eq!(fix_applies(&t, "h-e1", &id(node)), want, "{node}");
    }
    let fix = Some("scale the features");
    let e = evidence(&t, t.get(&id("n-0003")).unwrap(), None, fix);
    assert_eq!(e.failure, "scale the features");
    let e = evidence(&t, t.get(&id("n-0001")).unwrap(), None, fix);
    assert!(e.failure.contains("about another attempt"), "{}", e.failure);
    // After a pass the analysis on record is stale for every node, the latest included.
    t.record_outcome(&id("n-0004"), packet(0.95, true, "h-e1#3#1", ""), 0.05)
        .unwrap();
    assert!(!fix_applies(&t, "h-e1", &id("n-0004")));
    let e = evidence(&t, t.get(&id("n-0004")).unwrap(), None, fix);
    assert!(
        e.failure.contains("this node passed its gate"),
        "{}",
        e.failure
    );
    let e = evidence(&t, t.get(&id("n-0004")).unwrap(), None, None);
    assert_eq!(e.failure, "(no failure analysis was made)");
}

#[test]
fn result_and_branch_name_outcomes() {
    let t = fixture();
    let e = evidence(&t, t.get(&id("n-0003")).unwrap(), None, None);
    assert_eq!(
        e.result,
        "Reward h = 0.610 in [0, 1]; the gate was missed. Measured: accuracy = 0.61. Pruned: more than δ below its parent's value."
    );
    assert!(
        e.branch
            .contains("n-0002 [failed] Bill depth alone — it tested: Bill depth alone helps"),
        "{}",
        e.branch
    );
    assert!(
        e.branch.contains("n-0004 [untested] Ten folds"),
        "{}",
        e.branch
    );
    assert!(e.branch.contains("Children: none yet."), "{}", e.branch);
    let root = evidence(&t, t.get(&id("n-0001")).unwrap(), None, None);
    assert!(
        root.branch
            .starts_with("Siblings: none (this is the sub-hypothesis's first plan)")
    );
    assert!(
        root.branch
            .contains("n-0003 [pruned, reward 0.610, gate missed]")
    );
    assert!(
        !root.branch.contains("n-0005"),
        "another sub-hypothesis's root is no sibling"
    );
    let failed = evidence(&t, t.get(&id("n-0002")).unwrap(), None, None);
    assert!(
        failed
            .result
            .starts_with("The attempt produced no usable result")
    );
    assert!(
        failed.log_tail.ends_with("HF_TOKEN=[redacted]"),
        "{}",
        failed.log_tail
    );
    let untested = evidence(&t, t.get(&id("n-0004")).unwrap(), None, None);
    assert_eq!(untested.result, "Not executed yet.");
    assert_eq!(untested.log_tail, "(no log recorded for this node)");
    assert_eq!(untested.diff, NO_DIFF);
}

#[test]
fn log_and_diff_are_bounded_masked_and_cannot_close_a_fence() {
    let mut t = fixture();
    let long: Vec<String> = (0..200)
        .map(|i| format!("line {i} {}", "x".repeat(300)))
        .collect();
    let tail = format!(
        "{}\nkey sk-ant-abcdefghijklmnopqrstuvwxyz\n```\nboom",
        long.join("\n")
    );
    let root = id("n-0001");
    let kids = t
        .expand(&root, vec![draft("Another", "h-e1")], 3, "t3")
        .unwrap();
    t.record_outcome(&kids[0], packet(0.9, false, "h-e1#5#1", &tail), 0.05)
        .unwrap();
    let diff = format!("--- a/x.py\n+++ b/x.py\n{}", "+print(1)\n".repeat(2000));
    let e = evidence(&t, t.get(&kids[0]).unwrap(), Some(&diff), None);
    assert!(e.log_tail.chars().count() <= LOG_TAIL_CHARS + 60, "bounded");
    assert!(
        e.log_tail.starts_with("… log cut: its last"),
        "{}",
        &e.log_tail[..80]
    );
    assert!(
        e.log_tail.ends_with("'''\nboom"),
        "the end is kept, the fence broken"
    );
    assert!(!e.log_tail.contains("sk-ant-abc"), "masked");
    assert!(e.log_tail.lines().all(|l| l.chars().count() <= 241));
    assert!(e.diff.starts_with("--- a/x.py"));
    assert!(e.diff.ends_with("characters shown"), "{}", e.diff);
    assert!(e.diff.chars().count() <= DIFF_CHARS + 60);
}
