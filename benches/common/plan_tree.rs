//! A plan tree written straight to a run folder for the benches (no fsync, no store: a
//! fixture, not a run): a complete 3-ary tree whose inner nodes are evaluated and whose
//! leaves are untested, each with its prior, stats and (when evaluated) packet file, the
//! 15,000-odd small files a long study's plan tree costs a reader.

use std::path::Path;

/// `nodes` nodes under `run/plan/`, ids `n-` and `digits` digits; `hypothesis` stamps each
/// node's `hypothesis_id` when given.
pub fn write_ternary(run: &Path, nodes: usize, digits: usize, hypothesis: Option<&str>) {
    let plan = run.join("plan");
    let id = |i: usize| format!("n-{i:0digits$}");
    let mut tree = Vec::with_capacity(nodes);
    for i in 1..=nodes {
        let children: Vec<String> = (1..=3)
            .map(|k| 3 * (i - 1) + 1 + k)
            .filter(|&c| c <= nodes)
            .map(id)
            .collect();
        let status = if children.is_empty() {
            "untested"
        } else {
            "evaluated"
        };
        let mut node = serde_json::json!({"id": id(i), "parent": (i > 1).then(|| id((i - 2) / 3 + 1)),
            "children": children, "status": status, "created_at": "2026-11-27T10:00:00Z"});
        if let Some(h) = hypothesis {
            node["hypothesis_id"] = h.into();
        }
        tree.push(node);
        let nd = plan.join("nodes").join(id(i));
        std::fs::create_dir_all(&nd).unwrap();
        let prior = format!("{{\"estimate\": {:.2}}}", 0.3 + (i % 7) as f64 / 10.0);
        std::fs::write(nd.join("prior.json"), prior).unwrap();
        std::fs::write(
            nd.join("stats.json"),
            "{\"visits\": 1, \"Q\": 0.5, \"P\": 0.5}",
        )
        .unwrap();
        if status == "evaluated" {
            std::fs::write(nd.join("packet.json"), "{\"reward\": 0.5}").unwrap();
        }
    }
    std::fs::write(
        plan.join("tree.json"),
        serde_json::json!({"version": 1, "nodes": tree}).to_string(),
    )
    .unwrap();
}
