//! Plan-tree speed (the TUI draws a plan pane of 10,000 nodes). Prints medians for: saving
//! the whole tree, loading it from disk (without plan texts, as the TUI does), one descent
//! with its per-level weights and reasons, and the display order.
//!
//! Run: `cargo bench --bench plan`.

use std::time::{Duration, Instant};

use youra::plan::{
    Budget, DELTA, Draft, Draw, MAX_CHILDREN, NodeStatus, Packet, PlanTree, Plans, Prior,
    REEXPAND_LIMIT, XorShift64, load, select,
};

const NODES: usize = 10_000;

/// Breadth first: each node is evaluated with a seeded reward and, unless pruned, expanded
/// into three children, until the tree holds `NODES`; the last ones stay untested. Rewards
/// rise as the tree grows (a search that pays) and one node in five is a dead end far below
/// its parent, so it is pruned: with rewards drawn alike at every depth, pruning against the
/// parent's Q (δ) ended the search after ten nodes.
fn generated(rng: &mut XorShift64) -> PlanTree {
    let mut t = PlanTree::new();
    let draft = |p: f64, i: usize| Draft {
        plan: format!("# Plan {i}\n\nTry variant {i}.\n"),
        prior: Prior {
            estimate: Some(p),
            hypothesis: format!("variant {i} helps"),
            ..Prior::default()
        },
        hypothesis_id: Some("h-e1".into()),
    };
    let root = t.add_root(draft(0.5, 0), "2026-03-17T10:00:00Z");
    let mut queue = std::collections::VecDeque::from([root]);
    while let Some(id) = queue.pop_front() {
        if t.len() >= NODES {
            break;
        }
        let rising = 0.3 + 0.6 * t.len() as f64 / NODES as f64;
        let reward = if rng.draw() < 0.2 {
            0.05
        } else {
            rising + 0.05 * rng.draw()
        };
        let packet = Packet {
            reward,
            cost_tokens: 20_000,
            ..Packet::default()
        };
        if t.record_outcome(&id, packet, DELTA).unwrap().pruned {
            continue;
        }
        let n = (NODES - t.len()).min(MAX_CHILDREN);
        let drafts = (0..n).map(|i| draft(rng.draw(), t.len() + i)).collect();
        queue.extend(
            t.expand(&id, drafts, MAX_CHILDREN, "2026-03-17T11:00:00Z")
                .unwrap(),
        );
    }
    t
}

fn median(mut f: impl FnMut(), n: usize) -> Duration {
    let mut times: Vec<Duration> = (0..n)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[n / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    let mut rng = XorShift64::new(2026);
    let tree = generated(&mut rng);
    let save = median(
        || {
            let fresh = tempfile::tempdir().expect("a temp folder");
            tree.save_all(fresh.path()).expect("save");
        },
        1,
    );
    let dir = tempfile::tempdir().expect("a temp folder");
    tree.save_all(dir.path()).expect("save");
    // The engine's usual save: one outcome recorded, the node and its ancestors written.
    let untested: Vec<_> = tree
        .nodes()
        .iter()
        .filter(|n| n.status == NodeStatus::Untested)
        .map(|n| n.id.clone())
        .collect();
    let mut next = untested.iter();
    let mut work = tree.clone();
    let step = median(
        || {
            let id = next.next().expect("enough untested nodes");
            let packet = Packet {
                reward: 0.5,
                ..Packet::default()
            };
            let changed = work
                .record_outcome(id, packet, DELTA)
                .expect("record")
                .changed;
            work.save(dir.path(), &changed).expect("save");
        },
        21,
    );
    let mut loaded = None;
    let load_t = median(
        || loaded = Some(load(dir.path(), Plans::Skip).expect("load")),
        7,
    );
    let loaded = loaded.expect("loaded once");
    assert_eq!(loaded.tree.len(), tree.len());
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings.first());
    let mut budget = Budget::tokens(1_500_000);
    budget.used_tokens = 600_000;
    let mut depth = 0;
    let sel = median(
        || {
            depth = select(&loaded.tree, &budget, REEXPAND_LIMIT, &mut rng)
                .levels
                .len()
        },
        201,
    );
    let pre = median(|| assert_eq!(loaded.tree.preorder().len(), tree.len()), 51);
    println!(
        "\n== youra plan-tree benchmark ({} nodes, median) ==",
        tree.len()
    );
    println!(
        "save_all into an empty run folder (once):      {}",
        ms(save)
    );
    println!(
        "record one outcome and save what it changed:   {}",
        ms(step)
    );
    println!(
        "load from disk, plan texts skipped:            {}",
        ms(load_t)
    );
    println!(
        "one descent ({depth} levels, weights + reasons):   {}",
        ms(sel)
    );
    println!("display order (preorder):                      {}", ms(pre));
}
