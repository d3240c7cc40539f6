//! Descent against hand computation. The tree used throughout:
//!
//! ```text
//! r  evaluated, reward 0.6            Q(r) = (0.6 + 0.8) / 2 = 0.7
//! ├─ a  untested, P 0.25
//! ├─ b  untested, P 0.64
//! └─ c  evaluated, reward 0.8, P 0.5
//! ```

use super::*;
use crate::plan::files::{NodeStatus, Packet, Prior};
use crate::plan::rules::TreeRules;
use crate::plan::tree::Draft;
use crate::plan::values::{DELTA, MAX_CHILDREN, REEXPAND_LIMIT};
use crate::rng::{Fixed, XorShift64};

fn draft(p: f64) -> Draft {
    Draft {
        plan: "# plan\n".into(),
        prior: Prior {
            estimate: Some(p),
            ..Prior::default()
        },
        hypothesis_id: None,
    }
}

fn packet(reward: f64) -> Packet {
    Packet {
        reward,
        ..Packet::default()
    }
}

/// A token budget with `used` of 1000 spent, and the given policy.
fn budget(used: u64, policy: Policy) -> Budget {
    let mut b = Budget::tokens(1000);
    b.used_tokens = used;
    b.policy = policy;
    b
}

fn tree() -> (PlanTree, [NodeId; 4]) {
    let mut t = PlanTree::new();
    let r = t.add_root(draft(0.5), "t0");
    t.record_outcome(&r, packet(0.6), DELTA).unwrap();
    let kids = t
        .expand(
            &r,
            vec![draft(0.25), draft(0.64), draft(0.5)],
            MAX_CHILDREN,
            "t1",
        )
        .unwrap();
    let [a, b, c] = [kids[0].clone(), kids[1].clone(), kids[2].clone()];
    t.record_outcome(&c, packet(0.8), DELTA).unwrap();
    (t, [r, a, b, c])
}

fn pick(t: &PlanTree, b: &Budget, draws: &[f64]) -> Selection {
    select(t, b, REEXPAND_LIMIT, &mut Fixed::new(draws))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn adaptive_weights_and_probabilities_by_hand() {
    let (t, [r, a, b, c]) = tree();
    assert!(close(t.get(&r).unwrap().stats.q, 0.7));
    // r = 0.5 → α = 2: a (0.7·0.5)² = 0.1225, b (0.7·0.8)² = 0.3136, c 0.8² = 0.64.
    let s = pick(&t, &budget(500, Policy::Adaptive), &[0.05]);
    assert_eq!(s.alpha, Some(2.0));
    assert_eq!(s.levels.len(), 2);
    assert_eq!(s.levels[0].chosen, Some(0));
    assert!(
        s.levels[0].why.contains("only eligible"),
        "{}",
        s.levels[0].why
    );
    let lvl = &s.levels[1];
    assert_eq!(lvl.parent.as_ref(), Some(&r));
    let total = 0.1225 + 0.3136 + 0.64;
    for (cand, (id, w)) in lvl
        .candidates
        .iter()
        .zip([(&a, 0.1225), (&b, 0.3136), (&c, 0.64)])
    {
        assert_eq!(&cand.id, id);
        assert!(close(cand.weight, w), "{cand:?}");
        assert!(close(cand.probability, w / total), "{cand:?}");
    }
    assert!(
        lvl.candidates[1]
            .why
            .contains("(Q(parent) 0.700 × √P 0.640)^2.00"),
        "{}",
        lvl.candidates[1].why
    );
    assert!(
        lvl.candidates[2].why.starts_with("expand: Q 0.800^2.00"),
        "{}",
        lvl.candidates[2].why
    );
    // The draw 0.05 falls in a's share (0.1138).
    assert_eq!(s.action, Action::Execute { node: a.clone() });
    assert_eq!(s.path, vec![r.clone(), a]);
    assert!(lvl.why.contains("sampled with p 0.114"), "{}", lvl.why);
    // Draws in b's share (0.1138..0.4053) and in c's.
    assert_eq!(
        pick(&t, &budget(500, Policy::Adaptive), &[0.2]).action,
        Action::Execute { node: b }
    );
    assert_eq!(
        pick(&t, &budget(500, Policy::Adaptive), &[0.5]).action,
        Action::Expand { node: c }
    );
}

#[test]
fn alpha_at_the_budget_edges() {
    let (t, _) = tree();
    // (tokens used of 1000, α, weight of c = 0.8^α)
    let table: &[(u64, f64)] = &[(0, 1.0), (500, 2.0), (900, 10.0), (990, 10.0), (1000, 10.0)];
    for &(used, alpha) in table {
        let s = pick(&t, &budget(used, Policy::Adaptive), &[0.0]);
        assert!(close(s.alpha.unwrap(), alpha), "used {used}: {:?}", s.alpha);
        assert!(
            close(s.levels[1].candidates[2].weight, 0.8f64.powf(alpha)),
            "used {used}"
        );
    }
    let fixed = pick(&t, &budget(0, Policy::FixedAlpha { alpha: 3.0 }), &[0.0]);
    assert_eq!(fixed.alpha, Some(3.0));
    assert!(close(fixed.levels[1].candidates[2].weight, 0.512));
}

#[test]
fn veto_pin_and_running() {
    let (mut t, [_, a, b, c]) = tree();
    t.set_vetoed(&c, true).unwrap();
    let s = pick(&t, &budget(500, Policy::Adaptive), &[0.99]);
    let lvl = &s.levels[1];
    assert_eq!(
        (lvl.candidates[2].weight, lvl.candidates[2].probability),
        (0.0, 0.0)
    );
    assert_eq!(lvl.candidates[2].why, "vetoed by the researcher");
    assert!(close(
        lvl.candidates[0].probability,
        0.1225 / (0.1225 + 0.3136)
    ));
    assert_eq!(s.action, Action::Execute { node: b.clone() });

    t.set_pinned(&a, true).unwrap();
    let s = pick(&t, &budget(500, Policy::Adaptive), &[0.99]);
    assert_eq!(s.action, Action::Execute { node: a.clone() });
    assert!(
        s.levels[1].why.contains("pinned by the researcher"),
        "{}",
        s.levels[1].why
    );

    t.set_status(&a, NodeStatus::Running).unwrap();
    let s = pick(&t, &budget(500, Policy::Adaptive), &[0.0]);
    assert_eq!(s.levels[1].candidates[0].why, "running");
    assert_eq!(s.action, Action::Execute { node: b });
}

#[test]
fn a_deep_pin_draws_descent_to_it() {
    let (mut t, [r, _, _, c]) = tree();
    let grand = t.expand(&c, vec![draft(0.1), draft(0.9)], 3, "t2").unwrap();
    t.set_pinned(&grand[0], true).unwrap();
    let s = pick(&t, &budget(0, Policy::Greedy), &[]);
    assert_eq!(s.path, vec![r, c, grand[0].clone()]);
    assert!(
        s.levels[1].why.contains("leads to a pinned node"),
        "{}",
        s.levels[1].why
    );
}

#[test]
fn pruning_widening_and_exhaustion() {
    // youra's earlier rules: pruned children fold into Q, widening only when every child is
    // out of play, twice at most.
    let (mut t, [r, a, b, c]) = tree();
    t.set_rules(TreeRules::Youra, MAX_CHILDREN);
    // b at 0.3: Q(r) = (0.6 + 0.8 + 0.3) / 3 = 0.5667, 0.27 below → pruned.
    assert!(t.record_outcome(&b, packet(0.3), DELTA).unwrap().pruned);
    // a at 0.55: Q(r) = 2.25 / 4 = 0.5625, 0.0125 below → kept.
    assert!(!t.record_outcome(&a, packet(0.55), DELTA).unwrap().pruned);
    assert!(close(t.get(&r).unwrap().stats.q, 0.5625));
    let s = pick(&t, &budget(0, Policy::Greedy), &[]);
    assert!(s.levels[1].candidates[1].why.starts_with("pruned"));
    assert_eq!(s.action, Action::Expand { node: c.clone() });

    // Out of play: a vetoed, c failed-like (vetoed too) → the root widens, twice at most.
    t.set_vetoed(&a, true).unwrap();
    t.set_vetoed(&c, true).unwrap();
    assert_eq!(
        pick(&t, &budget(0, Policy::Greedy), &[]).action,
        Action::Widen { node: r.clone() }
    );
    for _ in 0..REEXPAND_LIMIT {
        let kid = t.expand(&r, vec![draft(0.5)], 3, "t3").unwrap();
        t.set_vetoed(&kid[0], true).unwrap();
    }
    // Expanded 1 + 2 times, every child out of play: nothing left to choose.
    let s = pick(&t, &budget(0, Policy::Greedy), &[]);
    assert_eq!(s.action, Action::Exhausted);
    assert!(s.path.is_empty());
    assert_eq!(s.levels[0].chosen, None);
    assert!(s.levels[0].candidates[0].why.starts_with("dead end"));
}

#[test]
fn greedy_uct_and_random() {
    let (mut t, [_, a, b, c]) = tree();
    let g = pick(&t, &budget(0, Policy::Greedy), &[]);
    let ws: Vec<f64> = g.levels[1].candidates.iter().map(|c| c.weight).collect();
    assert!(
        close(ws[0], 0.35) && close(ws[1], 0.56) && close(ws[2], 0.8),
        "{ws:?}"
    );
    assert_eq!(g.action, Action::Expand { node: c.clone() });
    assert_eq!(g.levels[1].candidates[2].probability, 1.0);

    // UCT: unvisited children first, in order; then Q + √2·√(ln N / n).
    let uct = Policy::Uct {
        c: std::f64::consts::SQRT_2,
    };
    let u = pick(&t, &budget(0, uct), &[]);
    assert_eq!(u.action, Action::Execute { node: a.clone() });
    assert!(u.levels[1].candidates[0].weight.is_infinite());
    t.record_outcome(&a, packet(0.7), DELTA).unwrap();
    t.record_outcome(&b, packet(0.72), DELTA).unwrap();
    // N(r) = 4: a 0.7 + √2·√(ln 4) = 2.3651, b 2.3851, c 2.4651.
    let u = pick(&t, &budget(0, uct), &[]);
    let want = |q: f64| q + std::f64::consts::SQRT_2 * 4f64.ln().sqrt();
    for (cand, q) in u.levels[1].candidates.iter().zip([0.7, 0.72, 0.8]) {
        assert!(close(cand.weight, want(q)), "{cand:?}");
    }
    assert_eq!(u.action, Action::Expand { node: c });

    let r = pick(&t, &budget(0, Policy::Random), &[0.5]);
    for cand in &r.levels[1].candidates {
        assert!(close(cand.probability, 1.0 / 3.0));
    }
    assert!(
        r.levels[1].why.contains("uniformly among 3"),
        "{}",
        r.levels[1].why
    );
}

#[test]
fn roots_are_weighed_with_the_tree_mean_or_one() {
    let mut t = PlanTree::new();
    t.add_root(draft(0.25), "t0");
    t.add_root(draft(0.81), "t0");
    // No reward yet: Q above the roots is 1, so weights are √P: 0.5 and 0.9 at α = 1.
    let s = pick(&t, &budget(0, Policy::Adaptive), &[0.0]);
    assert_eq!(s.levels[0].parent_q, 1.0);
    assert!(close(s.levels[0].candidates[0].probability, 0.5 / 1.4));
    assert!(close(s.levels[0].candidates[1].probability, 0.9 / 1.4));
    assert_eq!(
        pick(&PlanTree::new(), &budget(0, Policy::Adaptive), &[0.0]).levels[0].why,
        "the tree is empty: draft a root plan"
    );
}

#[test]
fn seeded_selection_is_reproducible() {
    let (t, _) = tree();
    let b = budget(300, Policy::Adaptive);
    let run = |seed| {
        let mut rng = XorShift64::new(seed);
        (0..20)
            .map(|_| select(&t, &b, REEXPAND_LIMIT, &mut rng).action)
            .collect::<Vec<_>>()
    };
    assert_eq!(run(42), run(42));
}

#[test]
fn forcing_names_the_path() {
    let (t, [r, _, b, _]) = tree();
    let s = force(&t, &budget(0, Policy::Adaptive), REEXPAND_LIMIT, &b).unwrap();
    assert_eq!(s.path, vec![r.clone(), b.clone()]);
    assert_eq!(s.action, Action::Execute { node: b.clone() });
    assert_eq!(s.levels[1].chosen_candidate().map(|c| &c.id), Some(&b));
    assert!(s.levels[1].why.contains("forced by the researcher"));
    assert_eq!(
        force(&t, &budget(0, Policy::Adaptive), REEXPAND_LIMIT, &r)
            .unwrap()
            .action,
        Action::Widen { node: r }
    );
    let missing = NodeId::new("n-0999").unwrap();
    assert!(force(&t, &budget(0, Policy::Adaptive), REEXPAND_LIMIT, &missing).is_err());
}

#[test]
fn pruning_widening_and_exhaustion_under_the_reference_rules() {
    let (mut t, [r, a, b, c]) = tree();
    assert_eq!(t.rules(), TreeRules::Reference);
    // Q(r) = (0.6 + 0.8) / 2 = 0.7; b at 0.3 is pruned and stays out of it.
    assert!(t.record_outcome(&b, packet(0.3), DELTA).unwrap().pruned);
    assert!(close(t.get(&r).unwrap().stats.q, 0.7));
    assert_eq!(t.get(&r).unwrap().stats.visits, 2);
    // a at 0.68: 0.02 below → kept; Q(r) = (0.6 + 0.8 + 0.68) / 3.
    assert!(!t.record_outcome(&a, packet(0.68), DELTA).unwrap().pruned);
    assert!(close(t.get(&r).unwrap().stats.q, 2.08 / 3.0));
    // Two children in play, both run: the root is filled up to m before anything deeper
    // (youra would expand c, the greedy pick).
    let s = pick(&t, &budget(0, Policy::Greedy), &[]);
    assert_eq!(s.action, Action::Widen { node: r.clone() });
    assert_eq!(t.room(&r).unwrap(), 1);
    let mut youra = t.clone();
    youra.set_rules(TreeRules::Youra, MAX_CHILDREN);
    let s = pick(&youra, &budget(0, Policy::Greedy), &[]);
    assert_eq!(s.action, Action::Expand { node: c.clone() });

    // Every child out of play: widened one child at a time until the root holds
    // m·(1 + limit) = 9 children, then a dead end.
    t.set_vetoed(&a, true).unwrap();
    t.set_vetoed(&c, true).unwrap();
    let mut widenings = 0;
    while pick(&t, &budget(0, Policy::Greedy), &[]).action == (Action::Widen { node: r.clone() }) {
        let kid = t.expand(&r, vec![draft(0.5)], 3, "t3").unwrap();
        t.set_vetoed(&kid[0], true).unwrap();
        widenings += 1;
        assert!(widenings < 20, "widening must end");
    }
    assert_eq!(widenings, 6);
    let s = pick(&t, &budget(0, Policy::Greedy), &[]);
    assert_eq!(s.action, Action::Exhausted);
    assert!(s.levels[0].candidates[0].why.starts_with("dead end"));
}

#[test]
fn a_parent_evaluated_at_zero_falls_back_to_the_prior() {
    // r evaluated at 0: its untested children weigh √P, not ε each (the reference).
    let mut t = PlanTree::new();
    let r = t.add_root(draft(0.5), "t0");
    t.record_outcome(&r, packet(0.0), DELTA).unwrap();
    let kids = t
        .expand(
            &r,
            vec![draft(0.09), draft(0.81), draft(0.25)],
            MAX_CHILDREN,
            "t1",
        )
        .unwrap();
    // (policy, draws, chosen child, weights at the children's level)
    let table: &[(Policy, &[f64], usize, [f64; 3])] = &[
        // Greedy: the largest √P, not the first of three ties at 0.
        (Policy::Greedy, &[], 1, [0.3, 0.9, 0.5]),
        // Adaptive at r = 1 (α = 1): sampled ∝ √P, p = 0.176, 0.529, 0.294; a draw of 0.2
        // passes the first and lands on the second, 0.1 lands on the first. (The root is the
        // only candidate of its level: no draw there.)
        (Policy::Adaptive, &[0.2], 1, [0.3, 0.9, 0.5]),
        (Policy::Adaptive, &[0.1], 0, [0.3, 0.9, 0.5]),
    ];
    for (policy, draws, want, weights) in table {
        let s = pick(&t, &budget(0, *policy), draws);
        let level = &s.levels[1];
        assert_eq!(level.chosen, Some(*want), "{policy:?}: {}", level.why);
        assert_eq!(
            s.action,
            Action::Execute {
                node: kids[*want].clone()
            }
        );
        for (c, &w) in level.candidates.iter().zip(weights) {
            assert!(close(c.weight, w), "{policy:?} {}: {}", c.id, c.weight);
            assert!(c.why.contains("Q(parent) 0 → √P"), "{}", c.why);
            assert!(!c.why.contains("floor"), "{}", c.why);
        }
        let sum: f64 = level.candidates.iter().map(|c| c.probability).sum();
        assert!(close(sum, 1.0));
    }
    // A parent at a positive Q keeps Q(parent)·√P (nothing recorded changes).
    let (t, [_, a, ..]) = tree();
    let s = pick(&t, &budget(0, Policy::Greedy), &[]);
    let c = s.levels[1].candidates.iter().find(|c| c.id == a).unwrap();
    assert!(c.why.contains("Q(parent) 0.700 × √P 0.250"), "{}", c.why);
}
