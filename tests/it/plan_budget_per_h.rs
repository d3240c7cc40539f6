//! The plan tree as PrimeScientist charges it (issue 41, item 3), on real run folders: each
//! sub-hypothesis searches under its own budget (a later one starts at r = 1) while the run's
//! ledger stays whole and split honestly by sub-hypothesis; a node whose execution failed is
//! left unrun and selected again, from the files, up to its bound.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common;
use youra::plan::{
    Action, Draft, NodeStatus, Packet, PlanTree, Plans, Prior, XorShift64, load, node_code, select,
    spent_now,
};

/// The offline demo, run headless into `dir`.
fn demo(dir: &Path, config_dir: &Path) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["demo", "--headless", "--dir", dir.to_str().unwrap()])
        .env("YOURA_CONFIG_DIR", config_dir)
        .output()
        .expect("youra demo runs");
    let (stdout, stderr) = common::text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
}

/// (sub-hypothesis, r) of each `execute` the engine announced, in order.
fn executions(dir: &Path) -> Vec<(String, f64)> {
    let text = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["kind"] == "plan" && e["action"] == "execute")
        .map(|e| {
            let msg = e["message"].as_str().unwrap().to_string();
            let r = msg
                .rsplit_once("r = ")
                .and_then(|(_, r)| r.trim_end_matches(')').parse::<f64>().ok())
                .unwrap_or_else(|| panic!("no r in {msg}"));
            (e["hypothesis"].as_str().unwrap().to_string(), r)
        })
        .collect()
}

#[test]
fn a_later_sub_hypothesis_starts_at_r_1_and_the_ledger_is_split_by_sub_hypothesis() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    demo(&dir, &tmp.path().join("no-config"));

    // The first execution of each sub-hypothesis is at r = 1 (before issue 41 the second
    // and third started at 0.79 and 0.67: one budget for the run).
    let runs = executions(&dir);
    let mut first: BTreeMap<String, f64> = BTreeMap::new();
    for (h, r) in &runs {
        first.entry(h.clone()).or_insert(*r);
    }
    assert_eq!(first.len(), 3, "{runs:?}");
    for (h, r) in &first {
        assert_eq!(*r, 1.0, "{h} starts at r = {r}: {runs:?}");
    }

    // Each sub-hypothesis's spend is the sum of the ledger's rows whose node is in its
    // subtree, recomputed here from ledger.tsv and the tree; together they are the run's.
    let loaded = load(&dir, Plans::Skip).unwrap();
    let now = spent_now(&dir, &loaded.budget.expect("a plan budget")).unwrap();
    let tree = loaded.tree;
    let mut want: BTreeMap<String, u64> = BTreeMap::new();
    let ledger = std::fs::read_to_string(dir.join("ledger.tsv")).unwrap();
    for c in ledger
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect::<Vec<_>>())
    {
        if c[7] == "-" {
            continue;
        }
        let node = youra::plan::NodeId::new(c[7].trim_start_matches("expand:")).unwrap();
        let h = node_code::node_hypothesis(&tree, &node).expect("a node of a sub-hypothesis");
        *want.entry(h).or_default() += c[4].parse::<u64>().unwrap() + c[5].parse::<u64>().unwrap();
    }
    // The demo's roots are drafted by the reflector (`[plan] root_plan = "reflector"`): each
    // draft is a planning row of the root's own, counted above as its search's planning; the
    // design brief is no longer charged as the root.
    assert!(now.root_tokens.is_empty(), "{:?}", now.root_tokens);
    for h in ["h-e1", "h-m1", "h-c1"] {
        let root = tree
            .roots()
            .find(|r| r.hypothesis_id.as_deref() == Some(h))
            .unwrap_or_else(|| panic!("{h}'s root"));
        let tag = root.id.as_str();
        assert!(
            ledger.lines().any(|l| {
                let c: Vec<&str> = l.split('\t').collect();
                c[1] == "reflector" && c[7] == tag && c[9] == "planning"
            }),
            "{h}: no reflector planning row of {tag}"
        );
        assert_eq!(
            root.prior
                .extra
                .get(youra::plan::DRAFTED_BY)
                .and_then(|v| v.as_str()),
            Some("reflector"),
            "{h}"
        );
    }
    assert_eq!(now.hypothesis_tokens, want);
    assert_eq!(now.hypothesis_tokens.values().sum::<u64>(), now.used_tokens);
    // Each search read only its own spend against its own budget.
    for h in ["h-e1", "h-m1", "h-c1"] {
        let mine = now.for_hypothesis(h);
        assert_eq!(mine.used_tokens, want[h], "{h}");
        assert_eq!(mine.total_tokens, 150_000);
    }
    // `youra status` says the total is each sub-hypothesis's, with what each spent.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["status", dir.to_str().unwrap()])
        .env("YOURA_CONFIG_DIR", tmp.path().join("no-config"))
        .output()
        .unwrap();
    let (status, _) = common::text(&out);
    let each = format!(
        "h-c1 {} · h-e1 {} · h-m1 {} of 150.0k each",
        youra::plan::compact(want["h-c1"]),
        youra::plan::compact(want["h-e1"]),
        youra::plan::compact(want["h-m1"])
    );
    assert!(status.contains(&each), "{each}\n{status}");
    eprintln!(
        "demo: {} of 150000 per sub-hypothesis ({}), {} in all",
        now.by_hypothesis_text(),
        now.split.text(now.used_tokens),
        now.used_tokens
    );
}

fn draft(p: f64, h: Option<&str>) -> Draft {
    Draft {
        plan: format!("# plan p={p}\n"),
        prior: Prior {
            estimate: Some(p),
            ..Prior::default()
        },
        hypothesis_id: h.map(str::to_string),
    }
}

fn failed(key: &str) -> Packet {
    let mut p = Packet {
        cost_tokens: 900,
        ..Packet::default()
    };
    p.extra.insert("attempt".into(), key.into());
    p
}

/// Load the run's tree and select with a greedy budget, as the engine does after a restart.
fn selected(run: &Path) -> (PlanTree, youra::plan::Selection) {
    let t = load(run, Plans::Read).unwrap().tree;
    let mut b = youra::plan::Budget::tokens(1000);
    b.policy = youra::plan::Policy::Greedy;
    let s = select(&t, &b, youra::plan::REEXPAND_LIMIT, &mut XorShift64::new(1));
    (t, s)
}

#[test]
fn a_failed_node_is_selected_again_from_the_files_until_its_retries_are_spent() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path();
    let mut t = PlanTree::new();
    t.set_rules(youra::plan::TreeRules::Reference, 3);
    let r = t.add_root(draft(0.5, Some("h-e1")), "t0");
    t.record_outcome(
        &r,
        Packet {
            reward: 0.6,
            ..Packet::default()
        },
        0.05,
    )
    .unwrap();
    // a has the best prior: greedy picks it while it can run.
    let kids = t
        .expand(&r, vec![draft(0.81, None), draft(0.25, None)], 3, "t1")
        .unwrap();
    let (a, b) = (kids[0].clone(), kids[1].clone());
    t.save(run, &[r.clone(), a.clone(), b.clone()]).unwrap();

    let max = youra::plan::MAX_NODE_RETRIES;
    assert_eq!(max, 2, "the default bound");
    for k in 1..=max + 1 {
        let (mut t, s) = selected(run);
        assert_eq!(
            s.action,
            Action::Execute { node: a.clone() },
            "execution {k}"
        );
        let why = &s.levels[1].candidates[0].why;
        if k > 1 {
            let again = format!("again after {} failed execution(s)", k - 1);
            assert!(why.contains(&again), "{why}");
        }
        let (rec, retry) = t
            .record_failed_attempt(&a, failed(&format!("h-e1#1#{k}")), max)
            .unwrap();
        assert_eq!(retry, k <= max, "execution {k}");
        t.save(run, &rec.changed).unwrap();
    }
    // Three executions, three attempts kept; then Failed for good and b is chosen.
    let (t, s) = selected(run);
    let node = t.get(&a).unwrap();
    assert_eq!(node.status, NodeStatus::Failed);
    let kept: Vec<String> = node
        .failed_attempts()
        .iter()
        .map(|p| p.extra["attempt"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(kept, ["h-e1#1#1", "h-e1#1#2"]);
    assert_eq!(node.packet.as_ref().unwrap().extra["attempt"], "h-e1#1#3");
    assert_eq!(s.action, Action::Execute { node: b });
    // The retries backpropagated nothing; the final failure counts as the reference rules
    // count a failed child: itself, not its parent.
    assert_eq!(t.get(&r).unwrap().stats.visits, 1);
    assert_eq!(t.get(&a).unwrap().stats.visits, 1);
}

/// `youra` with no `YOURA_*` variable of the machine's and an empty user config.
fn youra(args: &[&str], home: &Path) -> std::process::Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_youra"));
    for (k, _) in std::env::vars() {
        if k.starts_with("YOURA_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("YOURA_CONFIG_DIR", home)
        .args(args)
        .output()
        .expect("youra runs")
}

#[test]
fn youra_init_turns_the_plan_tree_on_and_a_run_made_like_it_searches_one() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let r = run.to_str().unwrap();
    let args = [
        "init",
        r,
        "--topic",
        "Penguin bills",
        "--provider",
        "openai",
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
    ];
    let out = youra(&args, tmp.path());
    let (stdout, stderr) = common::text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let out = youra(&["config", "show", r], tmp.path());
    let (shown, stderr) = common::text(&out);
    assert!(out.status.success(), "{stderr}");
    let line = shown
        .lines()
        .find(|l| l.starts_with("plan.budget_tokens = "))
        .unwrap_or_else(|| panic!("no plan budget shown:\n{shown}"));
    // The value, and where it came from: the run's own youra.toml.
    let (value, from) = line.split_once('#').unwrap_or((line, ""));
    assert_eq!(value.trim_end(), "plan.budget_tokens = 150000");
    assert!(from.contains("run/youra.toml"), "{line}");
    assert_eq!(
        youra::config::load(&run).unwrap().plan.budget_tokens,
        youra::config::PlanSettings::INIT_BUDGET_TOKENS
    );

    // A replay run whose [plan] is init's: Coding & Validation is a plan-tree search.
    use common::script::{CENTROID_PY, Script, brief, code_reply, replay_run, run_engine};
    let mut s = Script::default();
    s.scoping()
        .literature()
        .debate(6, true)
        .planning()
        .design_and_plan("h-e1", &brief("accuracy", ">=", 0.92))
        // init's [plan] has the reflector draft the root from the brief.
        .reply("reflector", "coding_validation", Some("h-e1"), 1, ROOT)
        .passing_attempt("h-e1", &code_reply("centroid.py", CENTROID_PY, &[]));
    let extra = format!(
        "experiment_time_limit_s = 60\n\n{}",
        youra::config::PlanSettings::init_toml()
    );
    let (_g, run) = replay_run(&s, &extra);
    common::script::with_data(&run);
    let _ = run_engine(&run, true);
    let loaded = load(&run, Plans::Read).unwrap();
    let root = loaded
        .tree
        .roots()
        .find(|n| n.hypothesis_id.as_deref() == Some("h-e1"))
        .expect("h-e1's root plan in the tree");
    assert_eq!(root.status, NodeStatus::Evaluated, "the root was executed");
    assert!(root.packet.as_ref().is_some_and(|p| p.reward > 0.0));
    let budget = loaded.budget.expect("plan/budget.json");
    assert_eq!(budget.total_tokens, 150_000);
    // The reflector drafted the root, and the root ran that plan: the coder was asked to
    // execute it, and the draft's call was charged to h-e1 as planning.
    assert!(
        root.plan
            .as_deref()
            .unwrap_or("")
            .starts_with("# Nearest centroid, as designed")
    );
    assert_eq!(
        root.prior
            .extra
            .get(youra::plan::DRAFTED_BY)
            .and_then(|v| v.as_str()),
        Some("reflector")
    );
    assert!(budget.root_tokens.is_empty(), "{budget:?}");
    assert!(budget.split.planning > 0, "{budget:?}");
    assert!(budget.spent_by("h-e1") > budget.split.planning);
    let ledger = std::fs::read_to_string(run.join("ledger.tsv")).unwrap();
    assert!(
        ledger
            .lines()
            .any(|l| l.contains("\treflector\tcoding_validation\t")
                && l.contains(&format!("\t{}\t", root.id))
                && l.ends_with("\tplanning")),
        "{ledger}"
    );
}

/// The reflector's first plan for h-e1 (init's `root_plan = "reflector"`).
const ROOT: &str = r##"{"plan": "# Nearest centroid, as designed\n\nThe brief's rule on the bill measurements with 5-fold cross-validation; every open choice decided.", "prior": {"estimate": 0.5, "hypothesis": "the designed rule passes"}}"##;

#[test]
fn the_engine_runs_a_crashed_node_again_and_counts_each_execution() {
    use common::script::{CENTROID_PY, Script, brief, code_reply, replay_run, run_engine};
    let crash = "import sys\nsys.exit(3)\n";
    let mut s = Script::default();
    s.scoping()
        .literature()
        .debate(6, true)
        .planning()
        .design_and_plan("h-e1", &brief("accuracy", ">=", 0.92))
        // Attempt 1 crashes (no repair allowed); attempt 2 of the same step runs the same
        // node again, honestly, and the controller accepts it.
        .reply(
            "executor",
            "coding_validation",
            Some("h-e1"),
            1,
            &code_reply("centroid.py", crash, &[]),
        )
        .reply(
            "executor",
            "coding_validation",
            Some("h-e1"),
            2,
            &code_reply("centroid.py", CENTROID_PY, &[]),
        )
        .reply(
            "judge",
            "coding_validation",
            Some("h-e1"),
            2,
            common::script::CONSISTENT,
        )
        .ok("coding_validation", Some("h-e1"), 2);
    let (_g, run) = replay_run(
        &s,
        "experiment_time_limit_s = 60\nrepair_attempts = 0\n\n[plan]\nbudget_tokens = 1000000\npolicy = \"greedy\"\nafter_pass = 0\n",
    );
    common::script::with_data(&run);
    let _ = run_engine(&run, true);
    let loaded = load(&run, Plans::Read).unwrap();
    let nodes = loaded.tree.nodes();
    let plans: Vec<String> = nodes
        .iter()
        .map(|n| format!("{} {:?}", n.id, n.status))
        .collect();
    let root = &nodes[0];
    let log = std::fs::read_to_string(run.join("events.jsonl")).unwrap_or_default();
    let tail: Vec<&str> = log.lines().rev().take(12).collect();
    let plans = format!("{plans:?}\n{}", tail.join("\n"));
    // One plan, executed twice: the crash left it unrun (kept in failed_attempts), the
    // second execution of the same node passed. No reflector was asked for children.
    assert_eq!(nodes.len(), 1, "{plans:?}");
    assert_eq!(root.status, NodeStatus::Evaluated, "{plans:?}");
    let failed = root.failed_attempts();
    assert_eq!(failed.len(), 1, "{failed:?}");
    let second = root.packet.as_ref().unwrap();
    assert_ne!(failed[0].extra["attempt"], second.extra["attempt"]);
    assert!(second.reward > 0.0);
    // Both executions ran code of their own, each committed.
    assert_ne!(failed[0].extra["commit"], second.extra["commit"]);
    let events = std::fs::read_to_string(run.join("events.jsonl")).unwrap();
    let executes = events
        .lines()
        .filter(|l| l.contains("\"action\":\"execute\"") && l.contains(root.id.as_str()))
        .count();
    assert_eq!(executes, 2, "{events}");
    assert!(events.contains("left unrun to be selected again (1 of 2 retries)"));
}
