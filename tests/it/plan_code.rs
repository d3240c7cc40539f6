//! Code per plan node (issue 27): each executed node is a commit of its sub-hypothesis's git
//! repository (`<run>/.youra/code/<h>.git`), a child starts from its parent's code, any node
//! can be checked out byte for byte and diffed against its parent, and the settled search's
//! best node is what `code/` and `results/` hold. On a replay script whose child writes a
//! file of its own (so inheriting the parent's is visible) and on the offline demo; a kill
//! sweep over the demo's search; and a run without git stops with the install hint.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::script::{CENTROID_PY, Script, brief, code_reply, replay_run, verdict, with_data};
use youra::plan::node_code::{self, COMMIT_KEY, ObjectId, Repo};
use youra::plan::{NodeId, PlanTree, Plans};

const BIN: &str = env!("CARGO_BIN_EXE_youra");

/// The child's own change: a new file that runs the parent's script on standardized
/// features. It works only if the parent's `centroid.py` is in the child's code folder.
pub(crate) const SCALED_PY: &str = "import runpy, sys\nsys.argv = [\"centroid.py\", \"--standardize\"]\nrunpy.run_path(\"centroid.py\", run_name=\"__main__\")\n";

pub(crate) const EXPANSION: &str = r##"{"children": [
 {"plan": "# Standardize the features\n\nPut bill length and bill depth on one scale (z-scores fitted on each training fold) before computing the centroids; keep the 5-fold protocol.", "prior": {"estimate": 0.7, "hypothesis": "scale is the problem", "rationale": "the saturating curve", "changes": ["z-scores"], "risks": ["none"]}},
 {"plan": "# Add flipper length\n\nKeep millimetres but add a third measurement, flipper length, so Gentoo separates on size as well as shape; a different design of the feature set.", "prior": {"estimate": 0.3, "hypothesis": "a third feature helps", "rationale": "Gentoo are larger", "changes": ["a feature"], "risks": ["changes the claim"]}}
]}"##;

fn youra(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("youra runs")
}

fn text(o: &Output) -> String {
    format!(
        "exit {:?}\n{}{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

pub(crate) fn tree(run: &Path) -> PlanTree {
    youra::plan::load(run, Plans::Read)
        .expect("tree loads")
        .tree
}

/// (node, parent, hypothesis, commit) of every execution: each node's failed executions
/// left to retry (issue 41), then its recorded one.
pub(crate) fn executed(run: &Path) -> Vec<(NodeId, Option<NodeId>, String, ObjectId)> {
    let t = tree(run);
    t.nodes()
        .iter()
        .flat_map(|n| {
            let packets = n.failed_attempts().into_iter().chain(n.packet.clone());
            packets
                .filter_map(|p| {
                    let commit = ObjectId::parse(p.extra.get(COMMIT_KEY)?.as_str()?)
                        .expect("a recorded commit is an object id");
                    let h = node_code::node_hypothesis(&t, &n.id)?;
                    Some((n.id.clone(), n.parent.clone(), h, commit))
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Every file under `dir`, path relative to it → bytes.
fn files_under(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

pub(crate) fn commit_files(repo: &Repo, commit: &ObjectId) -> BTreeMap<String, Vec<u8>> {
    repo.files(commit).expect("ls-tree").into_iter().collect()
}

fn git_parent(repo: &Repo, commit: &ObjectId) -> Option<ObjectId> {
    let o = Command::new("git")
        .arg("--git-dir")
        .arg(repo.git_dir())
        .args(["rev-parse", "-q", "--verify", &format!("{commit}^")])
        .output()
        .unwrap();
    o.status
        .success()
        .then(|| ObjectId::parse(String::from_utf8_lossy(&o.stdout).trim()).unwrap())
}

/// `youra plan checkout` of every executed node reproduces its commit byte for byte.
fn checkouts_reproduce(run: &Path, scratch: &Path) {
    for (node, _, h, commit) in executed(run) {
        let into = scratch.join(format!("{h}-{node}"));
        let out = youra(&[
            "plan",
            "checkout",
            run.to_str().unwrap(),
            &h,
            node.as_str(),
            "--into",
            into.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", text(&out));
        let repo = Repo::existing(run, &h).unwrap();
        assert_eq!(
            files_under(&into),
            commit_files(&repo, &commit),
            "{node} checked out is its commit"
        );
    }
}

/// The settled search's best node is what `code/` and `results/` (attempts aside) hold; where
/// the gate read a confirmation run (the plan asks for repeats), `results/` is that run's:
/// the node's code on the confirmation seeds.
fn best_is_in_the_workspace(run: &Path, h: &str, best: &str) {
    let confirmed = vsa_field(run, &["sub_hypotheses", h, "search", "confirmation_seeds"]);
    let t = tree(run);
    let node = NodeId::new(best).unwrap();
    let (repo, commit) = node_code::locate(run, &t, &node).unwrap();
    let mut want = commit_files(&repo, &commit);
    let mut have: BTreeMap<String, Vec<u8>> = files_under(&run.join(h).join("code"))
        .into_iter()
        .filter(|(p, _)| !p.contains("__pycache__"))
        .map(|(p, b)| (format!("code/{p}"), b))
        .collect();
    have.extend(
        files_under(&run.join(h).join("results"))
            .into_iter()
            .filter(|(p, _)| !p.starts_with("attempts/"))
            .map(|(p, b)| (format!("results/{p}"), b)),
    );
    // The command record stays in the commit.
    want.retain(|p, _| !p.contains("__pycache__") && p != node_code::COMMAND_FILE);
    if let Some(seeds) = confirmed {
        let results: serde_json::Value =
            serde_json::from_slice(&have["results/experiment_results.json"]).unwrap();
        let first = seeds.split(',').next().unwrap().parse::<i64>().unwrap();
        assert_eq!(
            results["repeats"][0]["seed"], first,
            "{h}: the confirmation's rows"
        );
        have.retain(|p, _| p.starts_with("code/"));
        want.retain(|p, _| p.starts_with("code/"));
    }
    assert_eq!(
        have.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{h}: the workspace holds {best}'s files"
    );
    assert!(have == want, "{h}: the workspace's bytes are {best}'s");
}

fn vsa_field(run: &Path, path: &[&str]) -> Option<String> {
    let s = youra::vsa::Store::new(run.join("verification_state.yaml"))
        .load()
        .unwrap();
    let n = path
        .iter()
        .try_fold(s.doc.root.as_ref()?, |n, k| n.get(k))?;
    n.as_scalar().map(|x| x.text.clone())
}

#[test]
fn a_child_is_its_parents_code_plus_its_own_change() {
    let mut s = Script::default();
    s.scoping()
        .literature()
        .debate(6, true)
        .planning()
        .design_and_plan("h-e1", &brief("accuracy", ">=", 0.92));
    s.failing_attempt(
        "h-e1",
        &code_reply("centroid.py", CENTROID_PY, &[]),
        "Method",
        0.7,
        &verdict("NotValid", 0.3),
    );
    s.round(1)
        .reply("reflector", "coding_validation", Some("h-e1"), 1, EXPANSION)
        .passing_attempt("h-e1", &code_reply("scaled.py", SCALED_PY, &[]));
    let (g, run) = replay_run(
        &s,
        "experiment_time_limit_s = 60\n\n[plan]\nbudget_tokens = 1000000\npolicy = \"greedy\"\nafter_pass = 0\n",
    );
    with_data(&run);
    let _ = common::script::run_engine(&run, true);
    assert_eq!(
        vsa_field(&run, &["sub_hypotheses", "h-e1", "status"]).as_deref(),
        Some("VALIDATED"),
        "the child that runs its parent's script passed"
    );
    let nodes = executed(&run);
    assert_eq!(nodes.len(), 2, "{nodes:?}");
    let (root, child) = (&nodes[0], &nodes[1]);
    assert_eq!(child.1.as_ref(), Some(&root.0), "the child of the root ran");
    let repo = Repo::existing(&run, "h-e1").unwrap();
    assert!(
        repo.git_dir().starts_with(run.join(".youra/code")),
        "outside the workspace the sandbox binds"
    );
    assert_eq!(git_parent(&repo, &root.3), None, "a root commit");
    assert_eq!(git_parent(&repo, &child.3), Some(root.3.clone()));
    assert_eq!(
        repo.node_ref(&child.0),
        Some(child.3.clone()),
        "refs/nodes/<id>"
    );
    let (r, c) = (commit_files(&repo, &root.3), commit_files(&repo, &child.3));
    assert_eq!(r.get("code/centroid.py").unwrap(), CENTROID_PY.as_bytes());
    assert!(!r.contains_key("code/scaled.py"));
    assert_eq!(
        c.get("code/centroid.py"),
        r.get("code/centroid.py"),
        "the parent's file, inherited unchanged"
    );
    assert_eq!(
        c.get("code/scaled.py").unwrap(),
        SCALED_PY.as_bytes(),
        "its own"
    );
    assert!(
        c.contains_key("results/experiment_results.json"),
        "{:?}",
        c.keys()
    );
    assert!(!c.keys().any(|k| k.starts_with("results/attempts/")));
    let command: serde_json::Value =
        serde_json::from_slice(c.get("command.json").unwrap()).unwrap();
    assert_eq!(
        command["argv"],
        serde_json::json!(["python3", "scaled.py"]),
        "what re-runs it"
    );
    assert!(
        !run.join("h-e1/command.json").exists(),
        "the record stays in the commit"
    );
    // The diff to the parent is the child's own change, nothing else.
    let t = tree(&run);
    let diff = node_code::diff_to_parent(&run, &t, &child.0, node_code::DIFF_LIMIT).unwrap();
    assert!(diff.contains("+++ b/code/scaled.py"), "{diff}");
    assert!(!diff.contains("code/centroid.py"), "{diff}");
    assert!(
        diff.contains("+    \"scaled.py\""),
        "the command's change: {diff}"
    );
    let first = node_code::diff_to_parent(&run, &t, &root.0, 300).unwrap();
    assert!(first.contains("+++ b/code/centroid.py"), "{first}");
    assert!(first.contains("… diff cut:"), "bounded: {first}");
    // The CLI: checkout byte for byte; a non-empty folder refused; the diff printed.
    checkouts_reproduce(&run, g.path());
    let busy = g.path().join("busy");
    std::fs::create_dir_all(&busy).unwrap();
    std::fs::write(busy.join("keep.txt"), "mine").unwrap();
    let r = run.to_str().unwrap();
    let out = youra(&[
        "plan",
        "checkout",
        r,
        "h-e1",
        "n-0001",
        "--into",
        busy.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("is not empty"), "{}", text(&out));
    let out = youra(&["plan", "diff", r, "h-e1", child.0.as_str()]);
    assert!(
        text(&out).contains("+++ b/code/scaled.py"),
        "{}",
        text(&out)
    );
    let out = youra(&["plan", "diff", r, "h-m1", child.0.as_str()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let out = youra(&["plan", "diff", r, "../h-e1", child.0.as_str()]);
    assert_eq!(out.status.code(), Some(1), "unsafe id: {}", text(&out));
    best_is_in_the_workspace(&run, "h-e1", child.0.as_str());
}

fn demo(dir: &Path, crash: Option<&str>, path: Option<&str>) -> Output {
    let mut c = Command::new(BIN);
    c.args(["demo", "--headless", "--dir"]).arg(dir);
    if let Some(at) = crash {
        c.env("YOURA_CRASH_AT", at);
    }
    if let Some(p) = path {
        c.env("PATH", p);
    }
    c.output().expect("youra runs")
}

/// What a kill must not change: the tree (ids, parents, statuses, visits, Q), and every
/// node's commit and cost. (The budget is checked by [`charged_once`]: a model call the
/// kill interrupted is asked again on resume, a real second call, so the resumed total may
/// exceed the uninterrupted one by that call; what must hold is that no row counts twice.)
fn search_state(run: &Path) -> Vec<String> {
    let loaded = youra::plan::load(run, Plans::Read).unwrap();
    let out: Vec<String> = loaded
        .tree
        .nodes()
        .iter()
        .map(|n| {
            let p = n.packet.as_ref();
            format!(
                "{} <- {:?} {} visits={} q={:.6} commit={:?} cost={:?}",
                n.id,
                n.parent,
                n.status.name(),
                n.stats.visits,
                n.stats.q,
                p.and_then(|p| p.extra.get(COMMIT_KEY))
                    .and_then(|v| v.as_str()),
                p.map(|p| p.cost_tokens),
            )
        })
        .collect();
    out
}

/// Nothing charged twice: the budget spent (with the rows written since its last charge)
/// is exactly the sum of the ledger's search rows, each counted once.
fn charged_once(run: &Path) -> Result<(), String> {
    let loaded = youra::plan::load(run, Plans::Read).map_err(|e| e.to_string())?;
    let saved = loaded.budget.ok_or("no plan budget")?;
    let now = youra::plan::spent_now(run, &saved).map_err(|e| e.to_string())?;
    let ledger = std::fs::read_to_string(run.join("ledger.tsv")).map_err(|e| e.to_string())?;
    let sum: u64 = ledger
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|c| c.len() == 10 && c[2] == "coding_validation" && c[7] != "-")
        .map(|c| c[4].parse::<u64>().unwrap_or(0) + c[5].parse::<u64>().unwrap_or(0))
        .sum();
    // The root plans' drafting is charged once too (issue 41), from its own record.
    let sum = sum + now.root_tokens.values().sum::<u64>();
    if now.used_tokens == sum && saved.used_tokens <= sum {
        Ok(())
    } else {
        Err(format!(
            "budget spent {} (saved {}) but the ledger's search rows sum to {sum}",
            now.used_tokens, saved.used_tokens
        ))
    }
}

#[test]
fn the_demo_keeps_a_commit_per_node_and_a_kill_changes_none() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("whole");
    let out = demo(&base, None, None);
    assert!(out.status.success(), "{}", text(&out));
    let nodes = executed(&base);
    assert!(nodes.len() >= 3, "the demo searches: {nodes:?}");
    for (node, parent, h, commit) in &nodes {
        let repo = Repo::existing(&base, h).unwrap();
        let t = tree(&base);
        let want = parent
            .as_ref()
            .and_then(|p| node_code::node_commit(&repo, &t, p).unwrap());
        assert_eq!(git_parent(&repo, commit), want, "{node}'s commit's parent");
    }
    checkouts_reproduce(&base, tmp.path());
    let snap = youra::vsa::Store::new(base.join("verification_state.yaml"))
        .load()
        .unwrap();
    let mut settled = 0;
    for h in &snap.vsa.sub_hypotheses {
        if let Some(best) = vsa_field(&base, &["sub_hypotheses", &h.id, "search", "best_node"]) {
            best_is_in_the_workspace(&base, &h.id, &best);
            settled += 1;
        }
    }
    assert!(settled >= 1, "a search settled on its best node");
    // The kill sweep over the search: every revision the plan search's stage writes, killed
    // after it, resumed: the same tree, the same commits, nothing charged twice.
    let want = search_state(&base);
    charged_once(&base).unwrap();
    let mut history: Vec<u64> = snap
        .vsa
        .history
        .iter()
        .filter(|e| {
            matches!(
                e.event.as_deref(),
                Some("gate_evaluated" | "routing" | "plan_search")
            )
        })
        .filter_map(|e| e.revision)
        .collect();
    history.dedup();
    assert!(
        history.len() >= 6,
        "the searches write revisions: {history:?}"
    );
    let points: Vec<u64> = history
        .iter()
        .copied()
        .step_by(history.len().div_ceil(8))
        .collect();
    let mut bad = Vec::new();
    for n in points {
        let dir = tmp.path().join(format!("after_{n}"));
        let first = demo(&dir, Some(&format!("after:{n}")), None);
        if first.status.code().is_some_and(|c| c == 0) {
            bad.push(format!("after:{n}: the crash point was not reached"));
            continue;
        }
        let rc = youra(&["run", dir.to_str().unwrap()]);
        if !rc.status.success() {
            bad.push(format!("after:{n}: resume failed: {}", text(&rc)));
            continue;
        }
        let got = search_state(&dir);
        if got != want {
            bad.push(format!("after:{n}:\n got {got:#?}\nwant {want:#?}"));
        }
        if let Err(e) = charged_once(&dir) {
            bad.push(format!("after:{n}: {e}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// A PATH with the tools the demo needs up to its first experiment, and no git.
fn path_without_git(tmp: &Path) -> PathBuf {
    let bin = tmp.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for tool in ["python3", "bwrap", "sh"] {
        let found = std::env::var_os("PATH").and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(tool))
                .find(|c| c.is_file())
        });
        if let Some(f) = found {
            std::os::unix::fs::symlink(f, bin.join(tool)).unwrap();
        }
    }
    bin
}

#[test]
fn without_git_the_run_stops_with_the_install_hint() {
    let tmp = tempfile::tempdir().unwrap();
    let bin = path_without_git(tmp.path());
    let run = tmp.path().join("run");
    let out = demo(&run, None, Some(bin.to_str().unwrap()));
    let events = std::fs::read_to_string(run.join("events.jsonl")).unwrap_or_default();
    let all = format!("{}\n{events}", text(&out));
    assert!(!out.status.success(), "{all}");
    assert!(all.contains("apt-get install -y git"), "{all}");
    assert!(all.contains("git was not found"), "{all}");
}

/// The example run with node n-0001 of h-e1 committed (a script with an escape sequence the
/// model might have written).
fn example_with_code() -> (tempfile::TempDir, PathBuf) {
    let (g, run) = common::temp_run(&common::example_run());
    let code = run.join("h-e1/code");
    let _ = std::fs::remove_dir_all(&code);
    std::fs::create_dir_all(&code).unwrap();
    std::fs::write(
        code.join("train.py"),
        "import csv\n\tprint('\u{1b}[2Jcleared')\nacc = 0.93\n",
    )
    .unwrap();
    let repo = Repo::open(&run, "h-e1").unwrap();
    let argv = ["python3".to_string(), "train.py".to_string()];
    repo.commit_node(
        &NodeId::new("n-0001").unwrap(),
        None,
        None,
        "# Plan\n",
        Some(&argv),
    )
    .unwrap();
    (g, run)
}

#[test]
fn d_in_the_plan_pane_opens_the_nodes_diff_escaped() {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use youra::tui::app::App;
    use youra::tui::effect::{AppEvent, Effect};
    use youra::tui::keymap::Keymap;
    use youra::tui::theme::{ColorDepth, Theme};
    use youra::tui::update::update;

    let (_g, run) = example_with_code();
    let dir = youra::rundir::discover(&run).unwrap();
    let store = youra::vsa::Store::new(&dir.vsa);
    let theme = Theme::builtin("dark", ColorDepth::TrueColor).unwrap();
    let mut app = App::new(dir.clone(), Keymap::load(&[]).unwrap(), theme.clone());
    update(
        &mut app,
        AppEvent::Loaded(Box::new(youra::tui::run_view::read_run(&dir, &store))),
    );
    let key = |c| AppEvent::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    update(&mut app, key('6'));
    // Focusing the pane puts the cursor on the search's node (the last selection's);
    // Home goes to the root.
    assert_eq!(
        update(&mut app, key('d')),
        vec![Effect::OpenDiff("n-0003".into())]
    );
    update(
        &mut app,
        AppEvent::Key(KeyEvent::new(KeyCode::Home, KeyModifiers::NONE)),
    );
    let effects = update(&mut app, key('d'));
    assert_eq!(effects, vec![Effect::OpenDiff("n-0001".into())]);
    // What the runtime does with the effect, on its worker: read, escape, style.
    let diff = youra::tui::diff_view::read(&run, "n-0001").unwrap();
    assert!(diff.contains("+++ b/code/train.py"), "{diff}");
    update(
        &mut app,
        AppEvent::Opened {
            title: youra::tui::diff_view::title("n-0001"),
            lines: Ok(youra::tui::diff_view::lines(&diff, &theme)),
        },
    );
    let mut term = Terminal::new(TestBackend::new(80, 24)).unwrap();
    term.draw(|f| youra::tui::draw::draw(&app, f)).unwrap();
    let screen = term.backend().to_string();
    assert!(
        !screen.contains('\u{1b}'),
        "no raw escape reaches the terminal"
    );
    assert!(screen.contains("\\u001b[2Jcleared"), "{screen}");
    insta::assert_snapshot!("plan_diff_viewer_80x24", screen);
    // The viewer scrolls and closes like every viewer.
    update(&mut app, key('j'));
    update(&mut app, key('q'));
    assert!(app.overlay.is_none(), "q closes the diff");
    // Nothing selected: a toast, no effect.
    let (_g2, bare) = common::temp_run(&common::example_run());
    let _ = std::fs::remove_dir_all(bare.join("plan"));
    let dir = youra::rundir::discover(&bare).unwrap();
    let mut app = App::new(dir.clone(), Keymap::load(&[]).unwrap(), theme);
    update(
        &mut app,
        AppEvent::Loaded(Box::new(youra::tui::run_view::read_run(
            &dir,
            &youra::vsa::Store::new(&dir.vsa),
        ))),
    );
    update(&mut app, key('6'));
    assert!(update(&mut app, key('d')).is_empty());
    assert!(app.toast.as_ref().is_some_and(|t| t.1), "{:?}", app.toast);
}
