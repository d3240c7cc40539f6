//! Per-node snapshot cost (issue 27: ≤ 50 ms each): on the demo's code (`assets/demo/code/`)
//! and a results file, the median of taking `code/` before a run (`CodeSnapshot::take`),
//! checking it after the run (`CodeSnapshot::after_run`), committing a node
//! (`Repo::commit_node`: each file hashed as data, a temporary index from the list,
//! write-tree, commit-tree, update-ref) and of checking a node out into the workspace
//! (`Repo::start_from` of its parent, `Repo::restore` of the best: blobs written by youra),
//! each node a child of the last with one line of its code changed, as a search makes them.
//!
//! Run: `cargo bench --bench plan_code`.

use std::path::Path;
use std::time::{Duration, Instant};

use youra::plan::NodeId;
use youra::plan::code_snapshot::CodeSnapshot;
use youra::plan::node_code::{ObjectId, Repo};

const NODES: usize = 31;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn copy_demo(code: &Path) {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/code");
    std::fs::create_dir_all(code).expect("code folder");
    for e in std::fs::read_dir(&demo).expect("assets/demo/code") {
        let e = e.expect("an entry");
        std::fs::copy(e.path(), code.join(e.file_name())).expect("copy");
    }
}

fn main() {
    let run = tempfile::tempdir().expect("a temp folder");
    let ws = run.path().join("h-e1");
    copy_demo(&ws.join("code"));
    std::fs::create_dir_all(ws.join("results/attempts/1")).expect("results");
    let repo = Repo::open(run.path(), "h-e1").expect("git is installed");
    let argv: Vec<String> = ["python3", "centroid.py", "--standardize"]
        .map(String::from)
        .to_vec();
    let (mut commits, mut commit_t, mut start_t, mut restore_t) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut take_t, mut check_t) = (Vec::new(), Vec::new());
    let mut parent: Option<ObjectId> = None;
    for i in 0..NODES {
        let node = NodeId::new(&format!("n-{:04}", i + 1)).expect("id");
        // The node's own change: one line of the script, and its measured result.
        let script = ws.join("code/centroid.py");
        let mut text = std::fs::read_to_string(&script).expect("centroid.py");
        text.push_str(&format!("# node {i}: tried variant {i}\n"));
        std::fs::write(&script, text).expect("write");
        std::fs::write(
            ws.join("results/experiment_results.json"),
            format!("{{\"accuracy\": 0.9{i:02}}}"),
        )
        .expect("results");
        let t = Instant::now();
        let snapshot = CodeSnapshot::take(&ws).expect("snapshot");
        take_t.push(t.elapsed());
        let t = Instant::now();
        assert!(snapshot.after_run(&ws).expect("check").is_empty());
        check_t.push(t.elapsed());
        let t = Instant::now();
        let c = repo
            .commit_node(
                &node,
                parent.as_ref(),
                Some(&snapshot),
                "# Plan\n\ntry a variant",
                Some(&argv),
            )
            .expect("commit")
            .commit;
        commit_t.push(t.elapsed());
        // The next node starts from this one's code, as a child does.
        let t = Instant::now();
        repo.start_from(Some(&c)).expect("checkout");
        start_t.push(t.elapsed());
        commits.push(c.clone());
        parent = Some(c);
    }
    for c in commits.iter().step_by(3) {
        let t = Instant::now();
        repo.restore(c).expect("restore");
        restore_t.push(t.elapsed());
    }
    let (commit_m, start_m, restore_m) = (median(commit_t), median(start_t), median(restore_t));
    let (take_m, check_m) = (median(take_t), median(check_t));
    println!("\n== youra node-code snapshot benchmark ({NODES} nodes, demo code, median) ==");
    println!(
        "take code/ before the run:                   {}",
        ms(take_m)
    );
    println!(
        "check code/ after the run:                   {}",
        ms(check_m)
    );
    println!(
        "commit a node (code/ + results/):            {}",
        ms(commit_m)
    );
    println!(
        "check out a parent's code/ (child's start):  {}",
        ms(start_m)
    );
    println!(
        "restore a node's code/ + results/ (settle): {}",
        ms(restore_m)
    );
    println!(
        "snapshot per node (commit + checkout):       {} (target ≤ 50 ms each)",
        ms(commit_m + start_m)
    );
}
