//! The expansion reply rules: shapes accepted, P clamped, at most m, near-copies dropped.

use super::*;
use crate::plan::Evidence;

const PARENT: &str = "# Baseline\n\nTrain a two-layer MLP on the penguins table with Adam at learning \
rate 1e-3 for 50 epochs and report held-out accuracy.";

fn child(plan: &str, estimate: &str) -> String {
    format!(
        r#"{{"plan": {}, "prior": {{"estimate": {estimate}, "hypothesis": "h", "rationale": "r", "changes": ["c"], "risks": "one risk", "confidence_note": "kept"}}}}"#,
        serde_json::to_string(plan).unwrap()
    )
}

const GBM: &str = "# Gradient boosting\n\nReplace the network with gradient-boosted trees, tune depth \
by five-fold cross-validation, compare against the MLP on the same split.";
const AUG: &str = "# Feature engineering\n\nAdd ratios of bill length to depth and flipper length to body \
mass as features, standardise them, keep the MLP unchanged.";
const REWORD: &str = "# Baseline\n\nTrain a two-layer MLP on the penguins table with Adam at learning \
rate 1e-3 for 60 epochs and report held-out accuracy.";

#[test]
fn similarity_table() {
    let table: &[(&str, &str, f64, f64)] = &[
        ("", "", 1.0, 1.0),
        ("a b c", "a b c", 1.0, 1.0),
        ("A, b. C!", "a b c", 1.0, 1.0),
        ("a b c", "x y z", 0.0, 0.0),
        ("a b c d", "a b x y", 1.0 / 5.0, 1.0 / 5.0), // {ab} of {ab bc cd bx xy}
        ("word", "word", 1.0, 1.0),
        ("word", "other", 0.0, 0.0),
        (PARENT, REWORD, SIMILARITY_LIMIT, 1.0),
        (PARENT, GBM, 0.0, 0.1),
        (PARENT, AUG, 0.0, 0.2),
    ];
    for &(a, b, lo, hi) in table {
        let s = similarity(a, b);
        assert!((lo..=hi).contains(&s), "{a:?} vs {b:?}: {s}");
        assert_eq!(s, similarity(b, a), "symmetric");
    }
}

#[test]
fn a_good_reply() {
    let reply = format!(
        "Here you go:\n```json\n{{\"children\": [{}, {}]}}\n```\n",
        child(GBM, "0.35"),
        child(AUG, "1.4")
    );
    let e = parse_expansion(&reply, PARENT, &[], 3, Some("h-e1")).unwrap();
    assert_eq!(e.drafts.len(), 2);
    let d = &e.drafts[0];
    assert!(d.plan.starts_with("# Gradient boosting"));
    assert_eq!(d.prior.estimate, Some(0.35));
    assert_eq!(d.prior.risks, vec!["one risk".to_string()]);
    assert_eq!(d.prior.changes, vec!["c".to_string()]);
    assert_eq!(d.prior.extra["confidence_note"], "kept");
    assert_eq!(d.hypothesis_id.as_deref(), Some("h-e1"));
    assert_eq!(e.drafts[1].prior.estimate, Some(1.0));
    assert_eq!(e.notes.len(), 1, "{:?}", e.notes);
    assert!(e.notes[0].contains("child 2: prior estimate 1.4 is outside [0, 1]; clamped to 1"));
}

#[test]
fn rules_table() {
    let other = "# Smaller model\n\nShrink the network to one hidden layer of 16 units with dropout and \
weight decay, to test whether the baseline overfits.";
    // (children, existing children's plans, m, kept plans' titles, a note fragment)
    type Row<'a> = (Vec<String>, Vec<&'a str>, usize, Vec<&'a str>, &'a str);
    let table: Vec<Row> = vec![
        (
            vec![child(REWORD, "0.5"), child(GBM, "0.5")],
            vec![],
            3,
            vec!["# Gradient"],
            "same as its parent's",
        ),
        (
            vec![child(GBM, "0.5"), child(GBM, "0.6")],
            vec![],
            3,
            vec!["# Gradient"],
            "a sibling's proposed before it",
        ),
        (
            vec![child(GBM, "0.5"), child(AUG, "0.5")],
            vec![GBM],
            3,
            vec!["# Feature"],
            "an existing child's",
        ),
        (
            vec![child(GBM, "0.5"), child(AUG, "0.5"), child(other, "0.2")],
            vec![],
            2,
            vec!["# Gradient", "# Feature"],
            "at most 2 children",
        ),
        (
            vec![r#"{"prior": {"estimate": 0.9}}"#.into(), child(GBM, "0.5")],
            vec![],
            3,
            vec!["# Gradient"],
            "no `plan` text",
        ),
        (
            vec![child(GBM, "\"high\"")],
            vec![],
            3,
            vec!["# Gradient"],
            "P = 0.5 is used",
        ),
        (
            vec![child(GBM, "\"40%\"")],
            vec![],
            3,
            vec!["# Gradient"],
            "",
        ),
        (
            vec![format!(
                r#"{{"plan": {}}}"#,
                serde_json::to_string(GBM).unwrap()
            )],
            vec![],
            3,
            vec!["# Gradient"],
            "no `prior`",
        ),
    ];
    for (kids, existing, m, titles, note) in table {
        let reply = format!("[{}]", kids.join(","));
        let e = parse_expansion(&reply, PARENT, &existing, m, None).unwrap();
        let got: Vec<bool> = e
            .drafts
            .iter()
            .zip(&titles)
            .map(|(d, t)| d.plan.starts_with(t))
            .collect();
        assert_eq!(e.drafts.len(), titles.len(), "{titles:?}: {:?}", e.notes);
        assert!(got.iter().all(|&x| x), "{titles:?}");
        if note.is_empty() {
            assert!(e.notes.is_empty(), "{:?}", e.notes);
        } else {
            assert!(
                e.notes.iter().any(|n| n.contains(note)),
                "{note}: {:?}",
                e.notes
            );
        }
    }
    let pct = parse_expansion(
        &format!("[{}]", child(GBM, "\"40%\"")),
        PARENT,
        &[],
        3,
        None,
    )
    .unwrap();
    assert_eq!(pct.drafts[0].prior.estimate, Some(0.4));
}

#[test]
fn refusals_say_what_was_wrong() {
    let table: &[(&str, &str)] = &[
        ("I think we should try boosting.", "not JSON"),
        ("{\"children\": [", "not JSON"),
        ("{\"plans\": []}", "no `children` list"),
        ("{\"children\": []}", "no usable child"),
        (r#"{"children": [{"plan": ""}]}"#, "no `plan` text"),
    ];
    for &(reply, want) in table {
        let e = parse_expansion(reply, PARENT, &[], 3, None).unwrap_err();
        assert!(e.to_string().contains(want), "{reply}: {e}");
    }
    let copy = format!("[{}]", child(PARENT, "0.5"));
    let e = parse_expansion(&copy, PARENT, &[], 3, None).unwrap_err();
    assert!(
        e.to_string().contains("100% the same as its parent's"),
        "{e}"
    );
}

fn evidence_of(plan: &str, result: &str) -> Evidence {
    Evidence {
        plan: plan.into(),
        result: result.into(),
        log_tail: "LOG TAIL".into(),
        diff: "DIFF".into(),
        failure: "accuracy short by 0.1".into(),
        branch: "BRANCH".into(),
        tree: "TREE OUTLINE".into(),
        memory: "MEMORY OF PROPOSALS".into(),
    }
}

#[test]
fn the_prompt_names_every_variable() {
    let p = expansion_prompt(&evidence_of("PARENT PLAN", "reward 0.4"), 3);
    for want in [
        "PARENT PLAN",
        "reward 0.4",
        "LOG TAIL",
        "```diff\nDIFF\n```",
        "accuracy short by 0.1",
        "BRANCH",
        "TREE OUTLINE",
        "MEMORY OF PROPOSALS",
        "between 1 and 3 child plans",
        "(1 to 3 children)",
    ] {
        assert!(p.contains(want), "{want}");
    }
    assert!(!p.contains("{{"), "a variable was left unfilled");
    // One pass: a plan that quotes a variable's name is pasted as it is.
    let p = expansion_prompt(&evidence_of("use {{diff}} and {{x}}", "r"), 2);
    assert!(p.contains("use {{diff}} and {{x}}"), "{p}");
    assert!(!p.contains("{{m}}"));
}

/// The reflector's prompt for a failed node, from a tree saved to and loaded from a run
/// folder: its log tail (masked), its diff, its siblings and pruned children.
#[test]
fn the_prompt_for_a_failed_node_shows_its_log_and_diff() {
    let run = tempfile::tempdir().unwrap();
    let fixture = crate::plan::evidence::tests::fixture();
    fixture.save_all(run.path()).unwrap();
    let tree = crate::plan::load(run.path(), crate::plan::Plans::Read)
        .unwrap()
        .tree;
    let failed = tree
        .get(&crate::plan::NodeId::new("n-0002").unwrap())
        .unwrap();
    assert_eq!(failed.status, crate::plan::NodeStatus::Failed);
    let diff = "diff --git a/code/centroid.py b/code/centroid.py
--- a/code/centroid.py
+++ b/code/centroid.py
@@ -38,4 +38,4 @@ def main():
     rows = load(\"data/penguins.csv\")
-    acc = evaluate(rows, features=[\"bill_length_mm\", \"bill_depth_mm\"])
+    acc = evaluate(rows, features=[\"bill_depth_mm\"])
     print(json.dumps({\"accuracy\": acc}))";
    let e = crate::plan::evidence(&tree, failed, Some(diff), Some("scale the features"));
    let prompt = expansion_prompt(&e, tree.room(&failed.id).unwrap());
    assert!(prompt.contains("ValueError: both points must have the same dimension"));
    assert!(prompt.contains("+    acc = evaluate(rows, features=[\"bill_depth_mm\"])"));
    assert!(prompt.contains("HF_TOKEN=[redacted]") && !prompt.contains("hf_abcdef"));
    insta::assert_snapshot!(prompt);
}
