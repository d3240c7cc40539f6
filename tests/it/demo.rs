//! The offline demo: the bundled transcript is the one `tests/it/common/demo.rs` generates, and
//! the study runs offline with real experiments on the penguin data (5 seeds x 5 folds, every
//! gate on its interval) and the plan tree on — h-e1's unscaled caliper rule misses, bill
//! depth alone is tried and pruned, standardized calipers pass on a confirmation run on fresh
//! seeds; h-m1's bill-first claim misses (flipper length adds more than 0.01) and its
//! recovery proposes a Pivot that waits. Each
//! answer has its recorded continuation to a paper: the waiting policy's reject (headless),
//! an approve (the redesign) and an override with Proceed (the negative result kept).

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use youra::vsa::store::Store;

const BUNDLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo/replay.jsonl");

#[test]
fn the_bundled_demo_is_the_generated_one() {
    let generated = common::demo::script().text();
    if std::env::var_os("YOURA_UPDATE_DEMO").is_some() {
        std::fs::write(BUNDLE, &generated).expect("write the bundle");
    }
    let bundled = std::fs::read_to_string(BUNDLE).expect("bundle");
    assert!(
        bundled == generated,
        "assets/demo/replay.jsonl is stale: run `YOURA_UPDATE_DEMO=1 cargo test --test it demo::`"
    );
}

fn status(dir: &Path, h: &str) -> String {
    let snap = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    snap.vsa
        .hypothesis(h)
        .map_or("absent".into(), |x| x.status.as_str().to_string())
}

fn events(dir: &Path) -> Vec<youra::rundir::events::Event> {
    youra::rundir::events::read(&dir.join("events.jsonl"))
}

/// The final paper; every answer's continuation also ends with its PDF, figures and
/// references (`tests/it/paper_pdf.rs` reads the headless one's PDF back).
fn paper(dir: &Path) -> String {
    let pdf = std::fs::read(dir.join("paper/paper.pdf")).expect("paper/paper.pdf");
    assert!(pdf.starts_with(b"%PDF-"), "a PDF");
    let figures = youra::paper::figures::load_manifest(dir).expect("figure manifest");
    assert!(
        figures.iter().any(|f| f.file == "figures/gates.svg"),
        "{figures:?}"
    );
    let md = std::fs::read_to_string(dir.join("paper/06_paper_final.md")).expect("a final paper");
    assert!(
        md.contains("[@gorman2014ecological]"),
        "cites the recorded search"
    );
    assert_eq!(
        youra::paper::check(dir, &md),
        Vec::new(),
        "references and figures check"
    );
    md
}

/// The y of the SVG `<text>` element whose content is `label` (plotters writes the text on
/// its own line after the tag).
fn text_y(svg: &str, label: &str) -> f64 {
    let at = svg
        .find(&format!(">\n{label}\n</text>"))
        .unwrap_or_else(|| panic!("no text {label:?} in the figure"));
    let tag = &svg[svg[..at].rfind("<text").expect("a text tag")..at];
    let y = tag
        .split(" y=\"")
        .nth(1)
        .expect("a y")
        .split('"')
        .next()
        .unwrap();
    y.parse().expect("a number")
}

/// The figures as a reader needs them (issue 43): a learning curve plotted against the
/// share of the training data, attempts named by what their command changed and which one
/// the run kept, no label every row shares ("base"), the legend under the plot (never over
/// a line), and a gate summary on each metric's own scale with no constant bar.
fn assert_the_figures(dir: &Path) {
    let read = |f: &str| std::fs::read_to_string(dir.join("paper/figures").join(f)).expect(f);
    let curve = read("h-e1_metric.svg");
    for label in [
        "h-e1 (existence): accuracy by share of the training data",
        "share of the training data",
        "attempt 1",
        "attempt 2: bill_depth_mm --standardize",
        "attempt 3: --standardize (kept)",
        "confirmation (fresh seeds)",
        "gate threshold 0.93",
    ] {
        assert!(text_y(&curve, label) > 0.0, "{label}");
    }
    assert!(
        !curve.contains(", base"),
        "a label every row shares is not drawn"
    );
    assert!(!curve.contains(">\nstep\n<"), "not plotted against steps");
    assert!(
        !curve.contains(">\nattempt 5"),
        "the restore of the chosen node is drawn once, as the kept attempt"
    );
    for label in ["attempt 1", "gate threshold 0.93"] {
        assert!(
            text_y(&curve, label) > 400.0,
            "{label}: the legend is under the 400-pixel plot"
        );
    }
    let gates = read("gates.svg");
    for label in [
        "h-e1 (existence) accuracy &gt;= 0.93: measured 0.9708 [0.9497 to 0.9918], pass",
        "h-m1 (mechanism) gain &lt;= 0.01: measured 0.0357 [0.015 to 0.0564], fail",
    ] {
        text_y(&gates, label);
    }
    assert!(
        !gates.contains("#AAAAAA"),
        "no grey bar of a constant height"
    );
}

/// The first line of each executed plan of `h`'s subtree, in id order: the recorded code of
/// each continuation must be the plan the policy chose (`tests/it/common/demo.rs` records the
/// arguments of that plan).
fn executed_plans(dir: &Path, h: &str) -> Vec<String> {
    let tree = youra::plan::load(dir, youra::plan::Plans::Read)
        .unwrap()
        .tree;
    youra::plan::subtree(&tree, h)
        .iter()
        .filter_map(|id| tree.get(id))
        .filter(|n| n.packet.is_some())
        .map(|n| {
            let plan = n.plan.clone().unwrap_or_default();
            plan.lines().next().unwrap_or("").to_string()
        })
        .collect()
}

/// The plan tree the demo searched: several evaluated nodes, one pruned.
fn assert_the_plan_tree(dir: &Path) {
    let loaded = youra::plan::load(dir, youra::plan::Plans::Read).unwrap();
    let nodes = loaded.tree.nodes();
    let evaluated = nodes.iter().filter(|n| n.packet.is_some()).count();
    assert!(evaluated >= 4, "{evaluated} evaluated nodes");
    assert!(
        nodes
            .iter()
            .any(|n| n.status == youra::plan::NodeStatus::Pruned),
        "a pruned node"
    );
    let budget = loaded.budget.expect("a budget");
    assert!(budget.used_tokens > 0 && budget.used_tokens < budget.total_tokens);
}

/// The bundle carries no usage, so each call is charged its text's token count: the first
/// call's reply costs what the tokenizer counts of the recorded reply, and no two stages'
/// prompts cost the same constant.
fn assert_counted_tokens(dir: &Path) {
    let ledger = std::fs::read_to_string(dir.join("ledger.tsv")).unwrap();
    let rows: Vec<Vec<&str>> = ledger
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect();
    let first = &rows[0];
    assert_eq!((first[1], first[2]), ("executor", "problem_scoping"));
    let bundle = std::fs::read_to_string(BUNDLE).unwrap();
    let recorded: serde_json::Value = serde_json::from_str(bundle.lines().next().unwrap()).unwrap();
    assert!(
        recorded["response"]["usage"].is_null(),
        "the bundle carries no usage"
    );
    let content = recorded["response"]["content"].as_str().unwrap();
    assert_eq!(first[5], youra::llm::tokens::count(content).to_string());
    let inputs: std::collections::BTreeSet<&str> = rows.iter().map(|r| r[4]).collect();
    assert!(
        inputs.len() > rows.len() / 2,
        "{} distinct of {}",
        inputs.len(),
        rows.len()
    );
    let total: u64 = rows.iter().map(|r| r[4].parse::<u64>().unwrap()).sum();
    assert!(
        total > 100 * rows.len() as u64,
        "prompts of a realistic size: {total}"
    );
}

#[test]
fn youra_demo_headless_answers_the_escalation_by_the_waiting_policy() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["demo", "--headless", "--dir", dir.to_str().unwrap()])
        .env("YOURA_CONFIG_DIR", tmp.path().join("no-config"))
        .output()
        .expect("youra demo runs");
    let (stdout, stderr) = common::text(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(stdout.contains("run complete"), "{stdout}");
    assert!(
        stdout.contains("the waiting policy does — reject after 0.5 s"),
        "the output says who answers: {stdout}"
    );
    assert_eq!(
        (
            status(&dir, "h-e1"),
            status(&dir, "h-m1"),
            status(&dir, "h-c1")
        ),
        ("VALIDATED".into(), "FAILED".into(), "VALIDATED".into())
    );
    assert!(
        dir.join("memory/failure_h-e1_run1.md").is_file(),
        "the first h-e1 run failed its gate and was attributed"
    );
    // The search went on after the standardized pass: the flipper-and-depth sibling ran
    // last and missed; the search chose the best node on its selection seeds (0–4) and the
    // gate reads that node's confirmation run on fresh seeds, whose rows the workspace holds.
    let results = results_of(&dir.join("h-e1/results/experiment_results.json"));
    assert_eq!(
        results["repeats"][0]["seed"], 1_000_000,
        "the confirmation run's rows"
    );
    assert_eq!(
        results["repeats"].as_array().unwrap().len(),
        25,
        "5 seeds x 5 folds"
    );
    assert_eq!(round4(mean_of(&results, "accuracy")), 0.9708);
    let snap = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    let e1 = snap
        .doc
        .root
        .as_ref()
        .unwrap()
        .get("sub_hypotheses")
        .unwrap()
        .get("h-e1")
        .unwrap();
    let field = |path: &[&str]| {
        path.iter()
            .try_fold(e1, |n, k| n.get(k))
            .and_then(|n| n.as_str().map(str::to_string))
    };
    let measured: f64 = field(&["gate", "measured", "accuracy"])
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(round4(measured), 0.9708);
    assert_eq!(
        field(&["search", "confirmation_seeds"]).as_deref(),
        Some("1000000,1000001,1000002,1000003,1000004")
    );
    let ev = |k: &str| {
        e1.get("gate")
            .and_then(|g| g.get("evidence"))
            .and_then(|e| e.as_seq())
            .and_then(|s| s.first())
            .and_then(|n| n.get(k))
            .and_then(|n| n.as_str().map(str::to_string))
            .unwrap_or_default()
    };
    assert_eq!(
        (ev("verdict"), ev("n"), ev("repeats"), ev("method")),
        ("PASS".into(), "25".into(), "5".into(), "corrected t".into())
    );
    assert!(
        ev("lo").parse::<f64>().unwrap() > 0.93,
        "PASS: the lower bound clears 0.93"
    );
    assert_eq!(field(&["search", "best_node"]).as_deref(), Some("n-0003"));
    assert_eq!(field(&["search", "settled"]).as_deref(), Some("true"));
    assert!(
        field(&["search", "why"])
            .unwrap()
            .contains("the only passing node of 4 executed"),
        "{:?}",
        field(&["search", "why"])
    );
    // Every attempt is kept, on the selection seeds: unscaled (1), bill depth alone (2),
    // standardized (3), flipper and depth (4); then the current one (the confirmation).
    for (n, acc) in [(1, "0.8953"), (2, "0.6181"), (3, "0.9708"), (4, "0.7853")] {
        let r = results_of(&dir.join(format!("h-e1/results/attempts/{n}/experiment_results.json")));
        assert_eq!(r["repeats"][0]["seed"], 0, "attempt {n}");
        assert_eq!(
            format!("{:.4}", mean_of(&r, "accuracy")),
            acc,
            "attempt {n}"
        );
    }
    assert_the_plan_tree(&dir);
    assert_the_figures(&dir);
    assert_counted_tokens(&dir);
    assert_eq!(
        executed_plans(&dir, "h-e1"),
        [
            // The reflector's draft of the root (`[plan] root_plan = "reflector"`).
            "# Nearest centroid on the three caliper measurements",
            "# Bill depth alone",
            "# Standardize the features",
            "# Flipper length and bill depth"
        ]
    );
    assert_eq!(executed_plans(&dir, "h-c1")[1..], ["# Three folds"]);
    let decision = events(&dir)
        .into_iter()
        .find(|e| e.kind == "decision")
        .expect("a decision event");
    assert_eq!(decision.actor.as_deref(), Some("policy"));
    assert_eq!(decision.action.as_deref(), Some("Method-Refine"));
    let paper = youra::paper::with_gate_intervals(&dir, &paper(&dir));
    let tex = std::fs::read_to_string(dir.join("paper/paper.tex")).unwrap();
    assert!(
        tex.contains("0.8953 {[}0.8711, 0.9194{]} (95\\% CI, n 25, corrected t)"),
        "{tex}"
    );
    // Every value in Results carries youra's interval of its own attempt; the baselines
    // have rows; the gates' table and the statistics paragraph are there.
    for row in [
        "| h-e1 first attempt (unscaled) | accuracy | 0.8953 \\[0.8711, 0.9194\\] (95% CI, n 25, corrected t) | missed |",
        "| h-m1 second attempt (ten folds) | gain from flipper length | 0.0357 \\[0.0149, 0.0564\\] (95% CI, n 50, corrected t) | missed |",
        "| h\\-e1 | accuracy\\_majority | baseline | 0.441 \\[0.376, 0.506\\] (n 25, 95\\% corrected t) | — |",
        "Each gate was decided on a 95% confidence interval",
        "Gate intervals, computed by youra from the repeats",
        "| h\\-e1 | accuracy\\_lda | baseline | 0.981 \\[0.965, 0.996\\] (n 25, 95\\% corrected t) | — |",
        "a confirmation run of that configuration on fresh seeds",
    ] {
        assert!(paper.contains(row), "{row}\n{paper}");
    }
    let check = common::youra(&["report", "check", dir.to_str().unwrap()]);
    let (out, _) = common::text(&check);
    assert!(check.status.success(), "{out}");
    assert!(
        out.contains("0 MAJOR, 0 MINOR"),
        "declared values are not flagged: {out}"
    );
}

fn results_of(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The mean of `metric` over a results file's repeats.
fn mean_of(results: &serde_json::Value, metric: &str) -> f64 {
    let rows = results["repeats"].as_array().expect("repeats");
    rows.iter()
        .map(|r| r[metric].as_f64().unwrap())
        .sum::<f64>()
        / rows.len() as f64
}

fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

/// A demo run the engine drives in a child process until its escalation waits.
fn waiting_demo(tmp: &Path) -> (PathBuf, std::process::Child) {
    let dir = tmp.join("demo");
    youra::cli::engine_cmd::demo_dir(
        Some(dir.clone()),
        youra::cli::engine_cmd::DemoOptions::default(),
    )
    .unwrap();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["run", dir.to_str().unwrap()])
        .env("YOURA_CONFIG_DIR", tmp.join("no-config"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        let snap = Store::new(dir.join("verification_state.yaml"))
            .load()
            .unwrap();
        if snap.vsa.workflow.status.as_ref().map(|s| s.as_str()) == Some("AWAITING_APPROVAL") {
            let esc = snap.vsa.workflow.escalation.clone().expect("a card");
            assert_eq!(esc.hypothesis.as_deref(), Some("h-m1"));
            assert_eq!(esc.proposed_action.as_deref(), Some("Pivot"));
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the escalation never came"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // It waits: no policy answers a watched demo.
    std::thread::sleep(Duration::from_millis(700));
    assert_eq!(status(&dir, "h-m1"), "FAILED");
    (dir, child)
}

fn finish(dir: &Path, mut child: std::process::Child) {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the run never ended"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let stops: Vec<String> = events(dir)
        .into_iter()
        .filter(|e| e.kind == "stop")
        .filter_map(|e| e.message)
        .collect();
    let log = std::fs::read_to_string(dir.join("youra.log")).unwrap_or_default();
    let tail: Vec<&str> = log.lines().rev().take(12).collect();
    assert!(
        child.wait().unwrap().success(),
        "the run stopped: {stops:?}\nyoura.log, last lines first:\n{}",
        tail.join("\n")
    );
}

fn steer(dir: &Path, args: &[&str]) {
    let mut all = vec!["steer", dir.to_str().unwrap()];
    all.extend_from_slice(args);
    let out = common::youra(&all);
    assert!(out.status.success(), "{:?}", common::text(&out));
}

#[test]
fn approving_the_pivot_archives_and_runs_the_redesigned_hypothesis_to_a_paper() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, child) = waiting_demo(tmp.path());
    steer(
        &dir,
        &[
            "approve",
            "--actor",
            "dana",
            "--reason",
            "the claim is wrong, not the method",
        ],
    );
    finish(&dir, child);
    assert_eq!(
        (
            status(&dir, "h-e2"),
            status(&dir, "h-m2"),
            status(&dir, "h-c2")
        ),
        ("VALIDATED".into(), "VALIDATED".into(), "VALIDATED".into()),
        "the redesigned claims, post hoc, were measured on fresh seeds and pass there"
    );
    assert_eq!(
        status(&dir, "h-m1"),
        "absent",
        "the redesign replaced the plan"
    );
    // Each redesigned search went on after its pass; the code each recorded continuation runs
    // matches the plan of the node the policy chose.
    for (h, after) in [
        ("h-e2", "# Ten folds"),
        ("h-m2", "# Three folds"),
        ("h-c2", "# Ten folds"),
    ] {
        assert_eq!(executed_plans(&dir, h)[1..], [after], "{h}");
    }
    let d = events(&dir)
        .into_iter()
        .find(|e| e.kind == "decision")
        .expect("a decision");
    assert_eq!(d.actor.as_deref(), Some("dana"));
    assert!(
        d.message
            .as_deref()
            .unwrap()
            .contains("the claim is wrong, not the method"),
        "{d:?}"
    );
    // h-m1's failure records still lead to their attempt's log (issue 43): the pivot moved
    // the folder into its archive, and the link follows it there.
    let (records, _) = youra::rundir::memory::load_dir(&dir.join("memory"));
    let archives = youra::rundir::archive::load_archives(&dir);
    let links = youra::rundir::lessons::links(&dir, &records, &archives);
    let mut seen = 0;
    for (r, l) in records.iter().zip(&links) {
        if r.hypothesis.as_deref() == Some("h-m1") {
            let log = l
                .log
                .as_deref()
                .unwrap_or_else(|| panic!("{}: no log", r.id));
            assert!(
                log.is_file() && log.starts_with(dir.join("_archive")),
                "{}: {}",
                r.id,
                log.display()
            );
            seen += 1;
        }
    }
    assert!(seen >= 2, "h-m1 has records: {seen}");
    let p = paper(&dir);
    assert!(
        p.contains("| h-m2 (post hoc, fresh seeds) | gain from flipper length | 0.0358 | met |"),
        "{p}"
    );
    // The redesigned plan's claims are post hoc (issue 40 item 5): marked in the VSA, asked
    // for fresh seeds, and named in the paper's Method.
    assert!(
        p.contains("Post hoc: h-e2, h-m2 and h-c2 were stated after a redesign of the plan"),
        "{p}"
    );
    let snap = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    let field = |k: &str| {
        snap.doc
            .root
            .as_ref()
            .and_then(|r| r.get("sub_hypotheses")?.get("h-m2")?.get(k)?.as_scalar())
            .map(|s| s.text.clone())
    };
    assert_eq!(field("post_hoc").as_deref(), Some("true"));
    // Measured on fresh seeds, so the interval decides: a PASS whose lower bound clears 0.01.
    let h = snap.vsa.hypothesis("h-m2").expect("h-m2");
    assert_eq!(h.gate.result, Some(youra::vsa::enums::GateResult::Pass));
    assert!(
        h.gate.evidence[0].lo.unwrap() > 0.01,
        "{:?}",
        h.gate.evidence
    );
    assert_eq!(field("stated_after_pivots").as_deref(), Some("1"));
    // Its confirmation too ran on seeds no run before the redesign used.
    let confirmed = snap
        .doc
        .root
        .as_ref()
        .and_then(|r| {
            r.get("sub_hypotheses")?
                .get("h-m2")?
                .get("search")?
                .get("confirmation_seeds")?
                .as_scalar()
        })
        .map(|s| s.text.clone());
    // It needed twenty: five, ten and fifteen fresh seeds left its interval across 0.01.
    let seeds: Vec<i64> = confirmed
        .unwrap()
        .split(',')
        .map(|s| s.parse().unwrap())
        .collect();
    assert_eq!(seeds, (1_010_000..1_010_020).collect::<Vec<i64>>());
    assert_eq!(h.gate.evidence[0].n, Some(60), "20 seeds x 3 folds");
    let topups = events(&dir)
        .into_iter()
        .filter(|e| e.kind == "repeats" && e.hypothesis.as_deref() == Some("h-m2"))
        .count();
    assert_eq!(
        topups, 3,
        "INCONCLUSIVE, then more repeats, three times, then a verdict"
    );
    // Every h-m2 attempt's card (the last one's under results/, the others' under
    // results/attempts/<n>/) names the seeds youra asked for.
    let results = dir.join("h-m2/results");
    let mut cards = vec![results.join("run_card.json")];
    for e in std::fs::read_dir(results.join("attempts"))
        .into_iter()
        .flatten()
        .flatten()
    {
        cards.push(e.path().join("run_card.json"));
    }
    let cards: Vec<String> = cards
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    assert!(!cards.is_empty(), "h-m2's attempts left run cards");
    for card in &cards {
        let v: serde_json::Value = serde_json::from_str(card).unwrap();
        let seeds = v.to_string();
        let seeds = seeds
            .split("\"YOURA_SEEDS\":\"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .unwrap_or_else(|| panic!("no YOURA_SEEDS: {card}"));
        for s in seeds.split(',') {
            let s: i64 = s.parse().unwrap();
            // The redesign's stride (10 000), on the selection's range or the confirmation's:
            // never a seed measured before the claim was stated.
            assert!(
                (10_000..11_000).contains(&s) || (1_010_000..1_011_000).contains(&s),
                "a post-hoc claim's experiment gets fresh seeds: {seeds}"
            );
        }
    }
    assert!(
        std::fs::read_dir(dir.join("_archive")).unwrap().count() >= 1,
        "the pivot archived the first hypothesis's work"
    );
}

#[test]
fn overriding_with_proceed_keeps_the_negative_result() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, child) = waiting_demo(tmp.path());
    steer(
        &dir,
        &[
            "override",
            "Proceed",
            "--reason",
            "the refuted redundancy is the finding",
            "--as",
            "lee",
        ],
    );
    finish(&dir, child);
    // The node chosen after h-c1's pass (its recorded code follows it).
    assert_eq!(executed_plans(&dir, "h-c1")[1..], ["# Ten folds"]);
    assert_eq!(
        (
            status(&dir, "h-e1"),
            status(&dir, "h-m1"),
            status(&dir, "h-c1")
        ),
        ("VALIDATED".into(), "FAILED".into(), "VALIDATED".into())
    );
    let p = paper(&dir);
    assert!(
        p.contains("| h-m1 | gain from flipper length | 0.0369 | missed |"),
        "{p}"
    );
    assert!(
        !p.contains("ten folds"),
        "the rejected continuation is not served: {p}"
    );
    // The paper's deviations from the plan name the override, who gave it and why.
    assert!(
        p.contains(
            "by lee: `Pivot proposed for h-m1 (esc-27); Proceed applied instead`; why: `the refuted redundancy is the finding`."
        ),
        "{p}"
    );
}
