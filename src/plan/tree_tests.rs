//! The tree's changes: backpropagation as running means along the path, pruning once at
//! record time, failures as reward 0, and the refusals.

use super::*;
use crate::plan::values::{DELTA, MAX_CHILDREN, subtree_means};

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
    // r(0.4) ─ a(0.6) ─ b(0.8); then a sibling of a, c(0.2), which is pruned.
    let mut t = PlanTree::new();
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
    // (node, visits, Q) by hand.
    let table = [(&r, 4, 0.5), (&a, 2, 0.7), (&b, 1, 0.8), (&c, 1, 0.2)];
    for (id, visits, mean) in table {
        let (n, got) = q(&t, id);
        assert_eq!(n, visits, "{id}");
        assert!((got - mean).abs() < 1e-12, "{id}: {got}");
    }
    assert_eq!(t.get(&c).unwrap().status, NodeStatus::Pruned);
    // The running means agree with the from-scratch computation the loader uses.
    let order: Vec<usize> = t.preorder_indices().iter().map(|&(_, i)| i).collect();
    let parent: Vec<Option<usize>> = t
        .nodes()
        .iter()
        .map(|n| n.parent.as_ref().and_then(|p| t.position(p)))
        .collect();
    let rewards: Vec<Option<f64>> = t.nodes().iter().map(PlanNode::reward).collect();
    for (n, (visits, mean)) in t
        .nodes()
        .iter()
        .zip(subtree_means(&parent, &order, &rewards))
    {
        assert_eq!(n.stats.visits, visits);
        assert!((n.stats.q - mean).abs() < 1e-12);
    }
    assert_eq!(t.get(&b).unwrap().p(), DEFAULT_PRIOR);
    assert_eq!(t.get(&a).unwrap().expansions, 1);
    assert_eq!(t.get(&r).unwrap().expansions, 2);
}

#[test]
fn failures_count_zero_and_pins_are_never_pruned() {
    let mut t = PlanTree::new();
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
    let (visits, mean) = q(&t, &r);
    assert_eq!(visits, 3);
    assert!((mean - (0.9 + 0.1) / 3.0).abs() < 1e-12, "{mean}");
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
