//! The plan tree on disk: a round trip, tolerant loading (a malformed file is a warning with
//! file:line:col and the rest loads; an unsafe id is refused), and kill safety: after any
//! prefix of a save's write sequence the run loads, `tree.json` names only folders that
//! exist, and the search resumes from there.

use std::fs;
use std::path::Path;

use youra::plan::{
    Action, Budget, DELTA, Draft, MAX_CHILDREN, NodeId, NodeStatus, Packet, PlanError, PlanTree,
    Plans, Policy, Prior, REEXPAND_LIMIT, XorShift64, load, node_dir, save_budget, select,
};

fn draft(p: f64, n: usize) -> Draft {
    let mut prior = Prior {
        estimate: Some(p),
        hypothesis: format!("variant {n} lowers the loss"),
        rationale: "the parent's curve was still falling".into(),
        changes: vec![format!("lr x{n}")],
        risks: vec!["divergence".into()],
        ..Prior::default()
    };
    prior
        .extra
        .insert("model_note".into(), serde_json::json!({"k": n}));
    Draft {
        plan: format!("# Plan {n}\n\nChange the learning rate.\n"),
        prior,
        hypothesis_id: Some("h-e1".into()),
    }
}

fn packet(reward: f64, n: usize) -> Packet {
    Packet {
        reward,
        cost_tokens: 10_000 + n as u64,
        logs: vec![format!("h-e1/results/run{n}.log")],
        finished_at: "2026-03-17T12:00:00Z".into(),
        ..Packet::default()
    }
}

/// A tree with every status and mark: evaluated, pruned, failed, untested, pinned, vetoed.
fn sample() -> PlanTree {
    let mut t = PlanTree::new();
    let r = t.add_root(draft(0.5, 0), "2026-03-17T10:00:00Z");
    t.record_outcome(&r, packet(0.6, 0), DELTA).unwrap();
    let kids = t
        .expand(
            &r,
            vec![draft(0.3, 1), draft(0.7, 2), draft(0.9, 3)],
            MAX_CHILDREN,
            "2026-03-17T11:00:00Z",
        )
        .unwrap();
    t.record_outcome(&kids[0], packet(0.2, 1), DELTA).unwrap(); // pruned
    t.record_outcome(&kids[1], packet(0.75, 2), DELTA).unwrap();
    t.record_failure(&kids[2], packet(0.0, 3)).unwrap();
    let grand = t
        .expand(
            &kids[1],
            vec![draft(0.6, 4), draft(0.4, 5)],
            MAX_CHILDREN,
            "t",
        )
        .unwrap();
    t.set_pinned(&grand[0], true).unwrap();
    t.set_vetoed(&grand[1], true).unwrap();
    t
}

#[test]
fn round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let t = sample();
    assert_eq!(
        t.get(&NodeId::new("n-0002").unwrap()).unwrap().status,
        NodeStatus::Pruned
    );
    t.save_all(dir.path()).unwrap();
    let mut b = Budget::tokens(1_500_000);
    b.used_tokens = 420_000;
    b.time_budget_secs = Some(7200.0);
    b.used_secs = 600.5;
    b.policy = Policy::FixedAlpha { alpha: 3.0 };
    save_budget(dir.path(), &b).unwrap();

    let loaded = load(dir.path(), Plans::Read).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert_eq!(loaded.tree, t);
    assert_eq!(loaded.budget, Some(b));
    // Without plan texts, everything else is the same.
    let skim = load(dir.path(), Plans::Skip).unwrap().tree;
    assert!(skim.nodes().iter().all(|n| n.plan.is_none()));
    assert_eq!(skim.len(), t.len());
    // Saving again is byte-for-byte stable.
    let before = fs::read(dir.path().join("plan/tree.json")).unwrap();
    loaded.tree.save_all(dir.path()).unwrap();
    assert_eq!(fs::read(dir.path().join("plan/tree.json")).unwrap(), before);
}

#[test]
fn a_malformed_stats_file_is_a_warning_with_its_position() {
    let dir = tempfile::tempdir().unwrap();
    let t = sample();
    t.save_all(dir.path()).unwrap();
    let id = NodeId::new("n-0003").unwrap();
    let stats = node_dir(dir.path(), &id).join("stats.json");
    fs::write(&stats, "{\n  \"visits\": 2,\n  \"Q\": oops\n}\n").unwrap();

    let loaded = load(dir.path(), Plans::Read).unwrap();
    assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
    let w = &loaded.warnings[0];
    assert_eq!(w.path, stats);
    assert_eq!(w.at, Some((3, 8)));
    let shown = w.to_string();
    assert!(
        shown.starts_with(&format!("{}:3:8: ", stats.display())),
        "{shown}"
    );
    assert!(shown.contains("recomputed from the tree"), "{shown}");
    // The rest loads, and the broken node's stats are recomputed from the tree.
    assert_eq!(loaded.tree, t);
}

#[test]
fn tolerant_of_missing_folders_and_orphans_refuses_unsafe_ids() {
    let dir = tempfile::tempdir().unwrap();
    sample().save_all(dir.path()).unwrap();
    let gone = NodeId::new("n-0005").unwrap();
    fs::remove_dir_all(node_dir(dir.path(), &gone)).unwrap();
    fs::create_dir_all(dir.path().join("plan/nodes/n-0042")).unwrap();
    let loaded = load(dir.path(), Plans::Skip).unwrap();
    let text: Vec<String> = loaded.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(text.len(), 2, "{text:?}");
    assert!(text[0].contains("n-0005: missing"), "{text:?}");
    assert!(text[1].contains("n-0042: not in tree.json"), "{text:?}");
    assert_eq!(loaded.tree.len(), 6);
    assert_eq!(loaded.tree.get(&gone).unwrap().p(), 0.5);
    // The orphan's name is never reused.
    assert_eq!(loaded.tree.next_id().as_str(), "n-0043");

    let tree = dir.path().join("plan/tree.json");
    let text = fs::read_to_string(&tree)
        .unwrap()
        .replace("\"n-0006\"", "\"../../etc\"");
    fs::write(&tree, text).unwrap();
    match load(dir.path(), Plans::Skip) {
        Err(PlanError::Parse { message, line, .. }) => {
            assert!(message.contains("refused"), "{message}");
            assert!(line > 1);
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// One search step as the engine will take it: select, then execute (a reward from a fixed
/// function of the node's number) or expand. Returns the nodes whose files changed.
fn step(t: &mut PlanTree, budget: &mut Budget, rng: &mut XorShift64) -> Option<Vec<NodeId>> {
    let s = select(t, budget, REEXPAND_LIMIT, rng);
    budget.charge(20_000, 0.0);
    match s.action {
        Action::Execute { node } => {
            let n = node.number().unwrap_or(0) as usize;
            let reward = ((n * 37) % 100) as f64 / 100.0;
            Some(
                t.record_outcome(&node, packet(reward, n), DELTA)
                    .unwrap()
                    .changed,
            )
        }
        Action::Expand { node } | Action::Widen { node } => {
            let drafts = vec![draft(0.4, 1), draft(0.8, 2)];
            let mut ids = t.expand(&node, drafts, MAX_CHILDREN, "t").unwrap();
            ids.push(node);
            Some(ids)
        }
        Action::Exhausted => None,
    }
}

/// What must survive a kill, with Q to 9 places (a from-scratch mean may differ from the
/// running mean in the last bit).
fn shape(t: &PlanTree) -> Vec<String> {
    t.nodes()
        .iter()
        .map(|n| {
            format!(
                "{} {:?} {:?} {} {} {} {} {} {:.9} {:?} {:?}",
                n.id,
                n.parent,
                n.children,
                n.status.name(),
                n.pinned,
                n.vetoed,
                n.expansions,
                n.stats.visits,
                n.stats.q,
                n.reward(),
                n.prior,
            )
        })
        .collect()
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            fs::copy(e.path(), target).unwrap();
        }
    }
}

#[test]
fn kill_after_any_prefix_of_a_save_then_resume() {
    let run = tempfile::tempdir().unwrap();
    let mut budget = Budget::tokens(1_000_000);
    let mut rng = XorShift64::new(7);
    let mut t = PlanTree::new();
    t.add_root(draft(0.5, 0), "t");
    t.save_all(run.path()).unwrap();
    let mut prefixes = 0;
    for _ in 0..12 {
        let before = load(run.path(), Plans::Read).unwrap().tree;
        let mut after = before.clone();
        let Some(changed) = step(&mut after, &mut budget, &mut rng) else {
            break;
        };
        let writes = after.writes(&changed).unwrap();
        assert!(writes.last().unwrap().path.ends_with("plan/tree.json"));
        for k in 0..=writes.len() {
            let killed = tempfile::tempdir().unwrap();
            copy_dir(run.path(), killed.path());
            youra::plan::apply_writes(killed.path(), &writes[..k]).unwrap();
            let mut l = load(killed.path(), Plans::Read).unwrap();
            for w in &l.warnings {
                assert!(!w.message.contains("missing"), "prefix {k}: {w}");
            }
            for n in l.tree.nodes() {
                assert!(
                    node_dir(killed.path(), &n.id).is_dir(),
                    "prefix {k}: {}",
                    n.id
                );
            }
            let expect = if k == writes.len() { &after } else { &before };
            assert_eq!(
                shape(&l.tree),
                shape(expect),
                "prefix {k} of {}",
                writes.len()
            );
            // Restart: the search goes on from what was on disk, and saves cleanly.
            let mut b = budget.clone();
            if let Some(ids) = step(&mut l.tree, &mut b, &mut XorShift64::new(k as u64 + 1)) {
                l.tree.save(killed.path(), &ids).unwrap();
            }
            let again = load(killed.path(), Plans::Read).unwrap();
            assert_eq!(
                shape(&again.tree),
                shape(&l.tree),
                "resumed after prefix {k}"
            );
            prefixes += 1;
        }
        youra::plan::apply_writes(run.path(), &writes).unwrap();
    }
    assert!(prefixes > 40, "only {prefixes} prefixes exercised");
    let end = load(run.path(), Plans::Read).unwrap();
    assert!(end.warnings.is_empty(), "{:?}", end.warnings);
    assert!(end.tree.len() > 5);
}

/// Actions completed in a committed tree: outcomes recorded plus expansions. A step's draws
/// come from (seed, this count), so a step redone after a kill draws what it drew before.
fn actions_done(t: &PlanTree) -> u64 {
    t.nodes()
        .iter()
        .map(|n| u64::from(n.status.has_reward()) + u64::from(n.expansions))
        .sum()
}

/// A node's place: the child indices from the root (`0.2.1`). Ids are not comparable across
/// a kill (the names of folders an interrupted expansion left are never reused), places are.
fn place(t: &PlanTree, id: &NodeId) -> String {
    let path = t.path_to(id).unwrap();
    let mut out = vec!["0".to_string()];
    for pair in path.windows(2) {
        let parent = t.get(&pair[0]).unwrap();
        let i = parent.children.iter().position(|c| *c == pair[1]).unwrap();
        out.push(i.to_string());
    }
    out.join(".")
}

/// `shape` by place instead of id, in display order.
fn placed_shape(t: &PlanTree) -> Vec<String> {
    t.preorder()
        .into_iter()
        .map(|(depth, n)| {
            format!(
                "{depth} {} {} {} {} {} {} {:.9} {:?} {:?}",
                place(t, &n.id),
                n.status.name(),
                n.pinned,
                n.vetoed,
                n.expansions,
                n.stats.visits,
                n.stats.q,
                n.reward(),
                n.prior.estimate,
            )
        })
        .collect()
}

/// One step whose draws come from (seed, actions done) and whose rewards come from the
/// executed node's place: a deterministic function of the committed tree.
fn seeded_step(t: &mut PlanTree, seed: u64) -> Option<Vec<NodeId>> {
    let k = actions_done(t);
    let mut budget = Budget::tokens(400_000);
    budget.used_tokens = k * 20_000;
    let mut rng = XorShift64::new(seed ^ (k + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    match select(t, &budget, REEXPAND_LIMIT, &mut rng).action {
        Action::Execute { node } => {
            let h = place(t, &node)
                .bytes()
                .fold(seed, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
            let reward = (h % 100) as f64 / 100.0;
            Some(
                t.record_outcome(&node, packet(reward, 0), DELTA)
                    .unwrap()
                    .changed,
            )
        }
        Action::Expand { node } | Action::Widen { node } => {
            let drafts = vec![draft(0.4, 1), draft(0.8, 2)];
            let mut ids = t.expand(&node, drafts, MAX_CHILDREN, "t").unwrap();
            ids.push(node);
            Some(ids)
        }
        Action::Exhausted => None,
    }
}

fn fresh(run: &Path) -> PlanTree {
    let mut t = PlanTree::new();
    t.add_root(draft(0.5, 0), "t");
    t.save_all(run).unwrap();
    t
}

#[test]
fn a_killed_search_resumes_to_the_same_result_as_an_uninterrupted_one() {
    const SEED: u64 = 7;
    let clean = tempfile::tempdir().unwrap();
    let mut t = fresh(clean.path());
    while let Some(ids) = seeded_step(&mut t, SEED) {
        t.save(clean.path(), &ids).unwrap();
        if actions_done(&t) >= 16 {
            break;
        }
    }
    let want = load(clean.path(), Plans::Read).unwrap().tree;
    let target = actions_done(&want);
    assert!(target >= 16 && want.len() > 8, "{target} {}", want.len());

    for kill_at in [1, 4, 9, 13] {
        let run = tempfile::tempdir().unwrap();
        let mut t = fresh(run.path());
        for _ in 0..kill_at {
            let ids = seeded_step(&mut t, SEED).unwrap();
            t.save(run.path(), &ids).unwrap();
        }
        // The kill: half of the next save lands, a temp file of an interrupted replace is
        // left behind, and a node file that is not the commit point is torn.
        let mut next = t.clone();
        let ids = seeded_step(&mut next, SEED).unwrap();
        let writes = next.writes(&ids).unwrap();
        youra::plan::apply_writes(run.path(), &writes[..writes.len() / 2]).unwrap();
        let root = node_dir(run.path(), &NodeId::new("n-0001").unwrap());
        fs::write(root.join(".stats.json.4242.0.tmp"), "{\"vis").unwrap();
        let stats = fs::read(root.join("stats.json")).unwrap();
        fs::write(root.join("stats.json"), &stats[..stats.len() / 2]).unwrap();
        drop((t, next));

        // The restart reads what is on disk and carries on.
        let mut l = load(run.path(), Plans::Read).unwrap().tree;
        assert_eq!(
            actions_done(&l),
            kill_at as u64,
            "the torn step is not counted"
        );
        while actions_done(&l) < target {
            let ids = seeded_step(&mut l, SEED).unwrap();
            l.save(run.path(), &ids).unwrap();
        }
        assert_eq!(
            placed_shape(&l),
            placed_shape(&want),
            "killed after step {kill_at}"
        );
        let back = load(run.path(), Plans::Read).unwrap().tree;
        assert_eq!(
            placed_shape(&back),
            placed_shape(&want),
            "reloaded, step {kill_at}"
        );
    }
}

/// (id, visits, Q) of every node.
fn stats(t: &PlanTree) -> Vec<(String, u64, f64)> {
    t.nodes()
        .iter()
        .map(|n| (n.id.to_string(), n.stats.visits, n.stats.q))
        .collect()
}

#[test]
fn the_rules_are_written_with_the_tree_and_a_tree_without_them_is_youra_s() {
    use youra::plan::TreeRules;
    let dir = tempfile::tempdir().unwrap();
    // The sample under the reference rules: the pruned child (0.2) and the failure stay out
    // of the root's Q, which is then the mean of 0.6 and 0.75.
    let t = sample();
    assert_eq!(t.rules(), TreeRules::Reference);
    let root = &stats(&t)[0];
    assert_eq!((root.1, (root.2 * 1e6).round()), (2, 675_000.0), "{root:?}");
    t.save_all(dir.path()).unwrap();
    let text = fs::read_to_string(dir.path().join("plan/tree.json")).unwrap();
    assert!(text.contains("\"rules\": \"reference\""), "{text}");
    let loaded = load(dir.path(), Plans::Read).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert_eq!(loaded.tree.rules(), TreeRules::Reference);
    assert_eq!(stats(&loaded.tree), stats(&t));

    // The same tree.json without the key was written before the setting: youra's rules,
    // under which its stats.json files disagree (recomputed, with one warning per file).
    let mut legacy: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(legacy.as_object_mut().unwrap().remove("rules").is_some());
    fs::write(dir.path().join("plan/tree.json"), legacy.to_string()).unwrap();
    let old = load(dir.path(), Plans::Read).unwrap();
    assert_eq!(old.tree.rules(), TreeRules::Youra);
    let root = &stats(&old.tree)[0];
    assert_eq!((root.1, (root.2 * 1e6).round()), (4, 387_500.0), "{root:?}");
    assert_eq!(old.warnings.len(), 1, "{:?}", old.warnings);
    assert!(old.warnings[0].to_string().contains("recomputed"));

    // The engine restates it under the configured rules and saves: a clean load again.
    let mut tree = old.tree;
    let changed = tree.set_rules(TreeRules::Reference, MAX_CHILDREN);
    assert_eq!(changed.len(), 1);
    tree.save(dir.path(), &changed).unwrap();
    let again = load(dir.path(), Plans::Read).unwrap();
    assert!(again.warnings.is_empty(), "{:?}", again.warnings);
    assert_eq!(stats(&again.tree), stats(&t));

    // An unknown value is an error that names the valid ones, not a silent default.
    let bad = text.replace("\"rules\": \"reference\"", "\"rules\": \"paper\"");
    fs::write(dir.path().join("plan/tree.json"), bad).unwrap();
    let e = load(dir.path(), Plans::Read).unwrap_err();
    assert!(matches!(e, PlanError::Parse { .. }), "{e}");
    assert!(e.to_string().contains("use reference or youra"), "{e}");
}

#[test]
fn under_the_reference_rules_a_failed_child_is_not_widened_past() {
    use youra::plan::TreeRules;
    // A root with three children that all failed: youra widens it (every child out of
    // play), the reference does not (three children in play, m = 3) and redrafts instead.
    for (rules, want_widen) in [(TreeRules::Youra, true), (TreeRules::Reference, false)] {
        let mut t = PlanTree::new();
        t.set_rules(rules, MAX_CHILDREN);
        let r = t.add_root(draft(0.5, 0), "t");
        t.record_outcome(&r, packet(0.5, 0), DELTA).unwrap();
        let kids = t
            .expand(
                &r,
                (1..=3).map(|n| draft(0.5, n)).collect(),
                MAX_CHILDREN,
                "t",
            )
            .unwrap();
        for (n, k) in kids.iter().enumerate() {
            t.record_failure(k, packet(0.0, n)).unwrap();
        }
        let b = Budget::tokens(1_000_000);
        let got = select(&t, &b, REEXPAND_LIMIT, &mut XorShift64::new(3)).action;
        let widened = matches!(got, Action::Widen { .. });
        assert_eq!(widened, want_widen, "{rules}: {got:?}");
    }
}

#[test]
fn tree_rules_and_the_policy_are_read_from_the_config_and_a_typo_is_an_error() {
    use youra::plan::TreeRules;
    let run = tempfile::tempdir().unwrap();
    let c = youra::config::load_with(run.path(), None, &[]).unwrap();
    // The defaults the allocation sweep chose (docs/decisions/0005-plan-tree-rules.md).
    assert_eq!(c.plan.tree_rules, TreeRules::Reference);
    assert_eq!(c.plan.policy, Policy::Greedy);
    let toml = run.path().join("youra.toml");
    fs::write(
        &toml,
        "[plan]\ntree_rules = \"youra\"\npolicy = \"adaptive\"\n",
    )
    .unwrap();
    let c = youra::config::load_with(run.path(), None, &[]).unwrap();
    assert_eq!(
        (c.plan.tree_rules, c.plan.policy),
        (TreeRules::Youra, Policy::Adaptive)
    );
    fs::write(&toml, "[plan]\ntree_rules = \"paper\"\n").unwrap();
    let e = youra::config::load_with(run.path(), None, &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("use reference or youra"), "{e}");
}
