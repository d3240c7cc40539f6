//! The plan verbs through the engine: directives recorded with `youra::steer::apply` on a
//! run that holds a plan tree are taken by the engine's intake, routed to
//! `plan_search::steer`, change `plan/budget.json`, `plan/tree.json` and the nodes' plans,
//! and are marked `applied` (or `rejected` with the reason).

use crate::common;

use std::path::Path;

use common::script::{Script, replay_run};
use youra::engine::{Engine, Options, RunEnd};
use youra::plan::{
    Budget, Draft, NodeId, Packet, PlanTree, Plans, Prior, load, node_dir, save_budget,
};
use youra::rundir::Layout;
use youra::steer::{Directive, DirectiveState, Request, Verb, apply, directives};
use youra::vsa::store::Store;

const AT: &str = "2026-11-28T12:00:00Z";

fn draft(plan: &str) -> Draft {
    Draft {
        plan: plan.into(),
        prior: Prior {
            estimate: Some(0.5),
            ..Prior::default()
        },
        hypothesis_id: Some("h-e1".into()),
    }
}

/// Two roots: n-0001 untested, n-0002 evaluated (so it can no longer be edited).
fn plant_tree(run: &Path) -> (NodeId, NodeId) {
    let mut tree = PlanTree::new();
    let a = tree.add_root(draft("# Old plan\nfive folds\n"), AT);
    let b = tree.add_root(draft("# Other plan\n"), AT);
    let packet = Packet {
        reward: 0.4,
        cost_tokens: 0,
        logs: Vec::new(),
        finished_at: AT.into(),
        extra: Default::default(),
    };
    tree.record_outcome(&b, packet, youra::plan::DELTA)
        .expect("record");
    tree.save_all(run).expect("save the tree");
    save_budget(run, &Budget::tokens(1_000_000)).expect("save the budget");
    (a, b)
}

fn steer(store: &Store, verb: Verb, target: &str, plan: Option<&str>) {
    let mut req = Request::new(verb, Some(target), "test");
    req.plan = plan.map(str::to_string);
    apply(store, &req, Layout::Native).expect("steer");
}

fn by_verb<'a>(all: &'a [Directive], verb: &str, target: &str) -> &'a Directive {
    all.iter()
        .find(|d| d.verb.as_deref() == Some(verb) && d.target.as_deref() == Some(target))
        .unwrap_or_else(|| panic!("no {verb} {target} directive in {all:?}"))
}

#[test]
fn the_engine_applies_every_plan_verb_to_the_tree_and_budget() {
    // No replies: were the engine to start a stage it would stop; the last directive pauses
    // it, so it returns right after taking the directives.
    let (_g, run) = replay_run(&Script::default(), "");
    let (a, b) = plant_tree(&run);
    let store = Store::new(run.join("verification_state.yaml"));
    steer(&store, Verb::Budget, "tokens=2M,time=7200", None);
    steer(&store, Verb::AlphaMax, "3", None);
    steer(
        &store,
        Verb::Edit,
        a.as_str(),
        Some("# New plan\nheld-out island\n"),
    );
    steer(&store, Verb::Edit, b.as_str(), Some("# Too late\n"));
    steer(&store, Verb::Veto, a.as_str(), None);
    steer(&store, Verb::Unveto, a.as_str(), None);
    steer(&store, Verb::Pin, a.as_str(), None);
    steer(&store, Verb::Unpin, a.as_str(), None);
    apply(
        &store,
        &Request::new(Verb::Pause, None, "test"),
        Layout::Native,
    )
    .expect("pause");

    let mut engine = Engine::open(
        &run,
        Options {
            exit_when_paused: true,
            ..Options::default()
        },
    )
    .expect("engine opens");
    assert_eq!(engine.run().expect("engine runs"), RunEnd::Paused);

    let loaded = load(&run, Plans::Read).expect("plan loads");
    let budget = loaded.budget.expect("plan/budget.json");
    assert_eq!(budget.total_tokens, 2_000_000);
    assert_eq!(budget.time_budget_secs, Some(7200.0));
    assert_eq!(budget.alpha_max, 3.0);
    let plan_md = std::fs::read_to_string(node_dir(&run, &a).join(youra::plan::PLAN_MD))
        .expect("the node's plan.md");
    assert_eq!(plan_md, "# New plan\nheld-out island\n");
    let node = loaded.tree.get(&a).expect("node a");
    assert!(
        !node.vetoed && !node.pinned,
        "veto and pin were lifted again"
    );
    assert_eq!(
        std::fs::read_to_string(node_dir(&run, &b).join(youra::plan::PLAN_MD)).unwrap(),
        "# Other plan\n",
        "an evaluated node's plan is kept"
    );

    let snap = store.load().expect("vsa");
    let all = directives(&snap.doc);
    assert_eq!(all.len(), 9);
    let applied = [
        (
            "budget",
            "tokens=2M,time=7200",
            "budget: tokens 1000000 → 2000000",
        ),
        ("alpha-max", "3", "α_max 10 → 3"),
        ("edit", a.as_str(), "plan replaced"),
        ("veto", a.as_str(), "vetoed"),
        ("unveto", a.as_str(), "veto lifted"),
        ("pin", a.as_str(), "pinned"),
        ("unpin", a.as_str(), "unpinned"),
    ];
    for (verb, target, note) in applied {
        let d = by_verb(&all, verb, target);
        assert_eq!(d.state, DirectiveState::Applied, "{verb}: {:?}", d.note);
        let said = d.note.as_deref().unwrap_or_default();
        assert!(said.contains(note), "{verb}: {said}");
    }
    let late = by_verb(&all, "edit", b.as_str());
    assert_eq!(late.state, DirectiveState::Rejected);
    assert!(
        late.note.as_deref().is_some_and(|n| n.contains(b.as_str())),
        "{:?}",
        late.note
    );
}

#[test]
fn an_edit_whose_plan_file_points_outside_plan_edits_is_rejected() {
    let (_g, run) = replay_run(&Script::default(), "");
    let (a, _) = plant_tree(&run);
    let store = Store::new(run.join("verification_state.yaml"));
    steer(&store, Verb::Edit, a.as_str(), Some("# New\n"));
    // A hand edit of the directive: the engine reads only files under plan/edits/.
    let o = common::youra(&[
        "vsa",
        "set",
        run.to_str().unwrap(),
        "workflow.steering[0].plan_file",
        "../verification_state.yaml",
        "--reason",
        "tamper",
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", common::text(&o));
    apply(
        &store,
        &Request::new(Verb::Pause, None, "test"),
        Layout::Native,
    )
    .expect("pause");
    let mut engine = Engine::open(
        &run,
        Options {
            exit_when_paused: true,
            ..Options::default()
        },
    )
    .expect("engine opens");
    assert_eq!(engine.run().expect("engine runs"), RunEnd::Paused);
    let d = directives(&store.load().unwrap().doc).remove(0);
    assert_eq!(d.state, DirectiveState::Rejected);
    let note = d.note.unwrap_or_default();
    assert!(note.contains("is not a file under plan/edits/"), "{note}");
    let plan_md = std::fs::read_to_string(node_dir(&run, &a).join(youra::plan::PLAN_MD)).unwrap();
    assert_eq!(plan_md, "# Old plan\nfive folds\n");
}
