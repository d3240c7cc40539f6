//! The tree's changes: backpropagation as running means along the path (under both tree
//! rules), pruning once at record time, failures as reward 0, and the refusals.

use super::*;
use crate::plan::values::{DELTA, MAX_CHILDREN};

fn tree(rules: TreeRules) -> PlanTree {
    let mut t = PlanTree::new();
    t.set_rules(rules, MAX_CHILDREN);
    t
}

fn draft(p: Option<f64>) -> Draft {
    Draft {
        plan: "# plan\n".into(),
        prior: Prior {
            estimate: p,
            ..Prior::default()
        },
        hypothesis_id: Some("h-e1".into()),
    }
}

fn packet(reward: f64) -> Packet {
    Packet {
        reward,
        cost_tokens: 1200,
        ..Packet::default()
    }
}

fn q(t: &PlanTree, id: &NodeId) -> (u64, f64) {
    let s = t.get(id).unwrap().stats;
    (s.visits, s.q)
}

#[test]
fn backprop_means_along_the_path() {
    // r(0.4) ─ a(0.6) ─ b(0.8); then a sibling of a, c(0.2), which is pruned. (node, visits,
    // Q) by hand: youra folds c into r; the reference keeps it out (c keeps its own).
    let youra = [(4, 0.5), (2, 0.7), (1, 0.8), (1, 0.2)];
    let reference = [(3, 0.6), (2, 0.7), (1, 0.8), (1, 0.2)];
    for (rules, want) in [(TreeRules::Youra, youra), (TreeRules::Reference, reference)] {
        backprop_under(rules, want);
    }
}

fn backprop_under(rules: TreeRules, want: [(u64, f64); 4]) {
    let mut t = tree(rules);
    let r = t.add_root(draft(Some(0.5)), "t");
    t.record_outcome(&r, packet(0.4), DELTA).unwrap();
    let a = t
        .expand(&r, vec![draft(Some(0.7))], MAX_CHILDREN, "t")
        .unwrap()[0]
        .clone();
    t.record_outcome(&a, packet(0.6), DELTA).unwrap();
    let b = t.expand(&a, vec![draft(None)], MAX_CHILDREN, "t").unwrap()[0].clone();
    let rec = t.record_outcome(&b, packet(0.8), DELTA).unwrap();
    assert_eq!(rec.changed, vec![r.clone(), a.clone(), b.clone()]);
    let c = t
        .expand(&r, vec![draft(Some(0.9))], MAX_CHILDREN, "t")
        .unwrap()[0]
        .clone();
    assert!(t.record_outcome(&c, packet(0.2), DELTA).unwrap().pruned);
    for (id, (visits, mean)) in [&r, &a, &b, &c].into_iter().zip(want) {
        let (n, got) = q(&t, id);
        assert_eq!(n, visits, "{rules}: {id}");
        assert!((got - mean).abs() < 1e-12, "{rules}: {id}: {got}");
    }
    assert_eq!(t.get(&c).unwrap().status, NodeStatus::Pruned);
    // The running means agree with the from-scratch computation the loader uses.
    for (n, (visits, mean)) in t.nodes().iter().zip(t.computed_stats()) {
        assert_eq!(n.stats.visits, visits, "{rules}");
        assert!((n.stats.q - mean).abs() < 1e-12, "{rules}");
    }
    // Switching the rules restates Q: the other rules' table, and back.
    let other = match rules {
        TreeRules::Youra => TreeRules::Reference,
        TreeRules::Reference => TreeRules::Youra,
    };
    let changed = t.set_rules(other, MAX_CHILDREN);
    assert_eq!(
        changed,
        vec![r.clone()],
        "{rules}: only the root's Q differs"
    );
    assert!(t.set_rules(other, MAX_CHILDREN).is_empty());
    t.set_rules(rules, MAX_CHILDREN);
    assert_eq!(q(&t, &r).0, want[0].0);
    assert_eq!(t.get(&b).unwrap().p(), DEFAULT_PRIOR);
    assert_eq!(t.get(&a).unwrap().expansions, 1);
    assert_eq!(t.get(&r).unwrap().expansions, 2);
}

#[test]
fn failures_count_zero_and_pins_are_never_pruned() {
    // The root's (visits, Q): youra folds the failure in as 0, the reference leaves it out.
    failures_under(TreeRules::Youra, (3, (0.9 + 0.1) / 3.0));
    failures_under(TreeRules::Reference, (2, (0.9 + 0.1) / 2.0));
}

fn failures_under(rules: TreeRules, want: (u64, f64)) {
    let mut t = tree(rules);
    let r = t.add_root(draft(Some(0.5)), "t");
    t.record_outcome(&r, packet(0.9), DELTA).unwrap();
    let kids = t
        .expand(&r, vec![draft(None), draft(None)], MAX_CHILDREN, "t")
        .unwrap();
    t.set_pinned(&kids[0], true).unwrap();
    assert!(
        !t.record_outcome(&kids[0], packet(0.1), DELTA)
            .unwrap()
            .pruned
    );
    assert_eq!(t.get(&kids[0]).unwrap().status, NodeStatus::Evaluated);
    let f = t.record_failure(&kids[1], packet(0.7)).unwrap();
    assert!(!f.pruned);
    let failed = t.get(&kids[1]).unwrap();
    assert_eq!(failed.status, NodeStatus::Failed);
    assert_eq!(failed.reward(), Some(0.0));
    assert_eq!(
        q(&t, &kids[1]),
        (1, 0.0),
        "{rules}: a failure counts for itself"
    );
    let (visits, mean) = q(&t, &r);
    assert_eq!(visits, want.0, "{rules}");
    assert!((mean - want.1).abs() < 1e-12, "{rules}: {mean}");
}

#[test]
fn the_reference_fills_a_node_up_to_m_children_in_play() {
    // (rules, children already there as (reward or failed), drafts offered, added).
    let table: &[(TreeRules, &[Option<f64>], usize, usize)] = &[
        (TreeRules::Reference, &[], 3, 3),
        (TreeRules::Reference, &[Some(0.9)], 3, 2),
        (TreeRules::Reference, &[Some(0.9), None], 3, 1),
        (TreeRules::Reference, &[Some(0.1), Some(0.1)], 3, 3), // both pruned
        (
            TreeRules::Reference,
            &[Some(0.9), Some(0.9), Some(0.9)],
            3,
            1,
        ),
        (TreeRules::Youra, &[Some(0.9), None], 3, 3),
    ];
    for &(rules, kids, offered, added) in table {
        let mut t = tree(rules);
        let r = t.add_root(draft(None), "t");
        t.record_outcome(&r, packet(0.5), DELTA).unwrap();
        let ids = t
            .expand(&r, vec![draft(None); kids.len()], MAX_CHILDREN, "t")
            .unwrap();
        for (id, k) in ids.iter().zip(kids) {
            match k {
                Some(x) => t.record_outcome(id, packet(*x), DELTA).map(drop),
                None => t.record_failure(id, packet(0.0)).map(drop),
            }
            .unwrap();
        }
        let got = t
            .expand(&r, vec![draft(None); offered], MAX_CHILDREN, "t")
            .unwrap();
        assert_eq!(got.len(), added, "{rules} {kids:?}");
    }
}

#[test]
fn refusals() {
    let mut t = PlanTree::new();
    let r = t.add_root(draft(Some(0.5)), "t");
    let e = t
        .expand(&r, vec![draft(None)], MAX_CHILDREN, "t")
        .unwrap_err();
    assert!(matches!(e, PlanError::NotExpandable { .. }), "{e}");
    t.edit(&r, "# better plan\n".into(), None).unwrap();
    t.set_status(&r, NodeStatus::Running).unwrap();
    let e = t.edit(&r, "late".into(), None).unwrap_err();
    assert!(matches!(e, PlanError::NotEditable { .. }), "{e}");
    t.record_outcome(&r, packet(1.5), DELTA).unwrap();
    assert_eq!(t.get(&r).unwrap().reward(), Some(1.0));
    let e = t.record_outcome(&r, packet(0.5), DELTA).unwrap_err();
    assert!(matches!(e, PlanError::NotRunnable { .. }), "{e}");
    let four = vec![draft(None), draft(None), draft(None), draft(None)];
    let e = t.expand(&r, four, MAX_CHILDREN, "t").unwrap_err();
    assert!(e.to_string().contains("at most 3"), "{e}");
    let ghost = NodeId::new("n-0404").unwrap();
    assert!(matches!(
        t.set_pinned(&ghost, true),
        Err(PlanError::UnknownNode { .. })
    ));
}

#[test]
fn preorder_and_ids() {
    let mut t = PlanTree::new();
    let r1 = t.add_root(draft(None), "t");
    let r2 = t.add_root(draft(None), "t");
    t.record_outcome(&r1, packet(0.5), DELTA).unwrap();
    let kids = t
        .expand(&r1, vec![draft(None), draft(None)], MAX_CHILDREN, "t")
        .unwrap();
    let order: Vec<(usize, String)> = t
        .preorder()
        .iter()
        .map(|(d, n)| (*d, n.id.to_string()))
        .collect();
    let want = vec![
        (0, r1.to_string()),
        (1, kids[0].to_string()),
        (1, kids[1].to_string()),
        (0, r2.to_string()),
    ];
    assert_eq!(order, want);
    assert_eq!(
        [r1.as_str(), r2.as_str(), kids[0].as_str(), kids[1].as_str()],
        ["n-0001", "n-0002", "n-0003", "n-0004"]
    );
    assert_eq!(t.path_to(&kids[1]).unwrap(), vec![r1, kids[1].clone()]);
    assert_eq!(t.next_id().as_str(), "n-0005");
}

#[test]
fn pruning_compares_with_the_parents_q_before_the_child_is_folded_in() {
    // (parent's reward, child's reward, pruned). With the child folded in first, the
    // parent's Q would be the mean of the two and the third and fourth rows would survive.
    let table: &[(f64, f64, bool)] = &[
        (0.5, 0.46, false), // within δ
        (0.5, 0.45, false), // exactly δ below: kept
        (0.5, 0.42, true),  // (0.5 + 0.42) / 2 = 0.46 would keep it
        (0.2, 0.14, true),  // (0.2 + 0.14) / 2 = 0.17 would keep it
        (0.5, 0.9, false),
        (0.0, 0.0, false), // a parent at 0 has nothing to fall below
    ];
    for &(parent, child, want) in table {
        let mut t = PlanTree::new();
        let r = t.add_root(draft(Some(0.5)), "t");
        t.record_outcome(&r, packet(parent), DELTA).unwrap();
        let c = t.expand(&r, vec![draft(None)], MAX_CHILDREN, "t").unwrap()[0].clone();
        let rec = t.record_outcome(&c, packet(child), DELTA).unwrap();
        assert_eq!(rec.pruned, want, "parent {parent} child {child}");
    }
}

#[test]
fn a_failed_execution_is_left_unrun_until_its_retries_are_spent() {
    // (max retries, status after each of three failed executions, failed_attempts kept)
    let table: &[(u32, [NodeStatus; 3], usize)] = &[
        (0, [NodeStatus::Failed; 3], 0),
        (
            1,
            [NodeStatus::Untested, NodeStatus::Failed, NodeStatus::Failed],
            1,
        ),
        (
            2,
            [
                NodeStatus::Untested,
                NodeStatus::Untested,
                NodeStatus::Failed,
            ],
            2,
        ),
        (5, [NodeStatus::Untested; 3], 3),
    ];
    for &(max, statuses, kept) in table {
        let mut t = tree(TreeRules::Reference);
        let r = t.add_root(draft(Some(0.5)), "t0");
        t.record_outcome(&r, packet(0.6), DELTA).unwrap();
        let a = t
            .expand(&r, vec![draft(Some(0.5))], MAX_CHILDREN, "t1")
            .unwrap()[0]
            .clone();
        for (k, want) in statuses.iter().enumerate() {
            let key = format!("h-e1#1#{}", k + 1);
            let mut p = packet(0.0);
            p.extra.insert("attempt".into(), key.clone().into());
            let got = t.record_failed_attempt(&a, p, max);
            if k > 0 && statuses[k - 1] == NodeStatus::Failed {
                // Failed for good: not runnable again.
                assert!(
                    matches!(got, Err(PlanError::NotRunnable { .. })),
                    "{max} {k}"
                );
                continue;
            }
            let (rec, retry) = got.unwrap();
            let n = t.get(&a).unwrap();
            assert_eq!(n.status, *want, "max {max}, execution {}", k + 1);
            assert_eq!(retry, *want == NodeStatus::Untested, "max {max} {k}");
            if retry {
                // Left unrun: nothing backpropagated (the reference), no packet, only the
                // node itself saved.
                assert_eq!(q(&t, &r), (1, 0.6), "max {max} {k}");
                assert_eq!(q(&t, &a), (0, 0.0));
                assert!(n.packet.is_none());
                assert_eq!(rec.changed, vec![a.clone()]);
                let last = n.failed_attempts().pop().unwrap();
                assert_eq!(last.extra["attempt"], key.as_str());
                assert_eq!(last.cost_tokens, 1200, "the execution's cost is kept");
            } else {
                // Failed: reward 0 recorded; under the reference rules it stays out of r's Q.
                assert_eq!(q(&t, &a), (1, 0.0));
                assert_eq!(q(&t, &r), (1, 0.6));
            }
        }
        assert_eq!(
            t.get(&a).unwrap().failed_attempts().len(),
            kept,
            "max {max}"
        );
    }
    // Only a runnable node can fail.
    let mut t = tree(TreeRules::Reference);
    let r = t.add_root(draft(None), "t0");
    t.record_outcome(&r, packet(0.6), DELTA).unwrap();
    assert!(t.record_failed_attempt(&r, packet(0.0), 2).is_err());
}
