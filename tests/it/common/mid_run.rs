//! A run the engine is in the middle of, written by the test: YouRA phase statuses, loop
//! statuses per hypothesis, tool calls in events.jsonl, configured MCP servers with health,
//! lessons for three hypotheses, and a drafted paper with its ground-truth registry.

use std::path::Path;

use youra::report::registry::{Entry, Registry};

const VSA: &str = "\
revision: 12
metadata:
  project_name: Grokking, mid-run
workflow:
  status: ACTIVE
  current_phase: Phase 2C
  execution_mode: INTERACTIVE
  next_action: Experiment Design for h-m1
phases:
  problem_scoping: {status: COMPLETED, completed_at: '2026-12-01T09:05:00Z'}
  literature_grounding: {status: SKIPPED}
  hypothesis_debate: {status: COMPLETED}
  verification_planning: {status: COMPLETED}
  evidence_check: {status: NOT_STARTED}
sub_hypotheses:
  h-e1:
    type: EXISTENCE
    statement: The model groks within 20k steps at weight decay 1.0.
    status: VALIDATED
    gate: {type: MUST_WORK, satisfied: true, result: PASS, failed_checks: []}
    prerequisites: []
    experiment_design: {status: COMPLETED}
    implementation_planning: {status: COMPLETED}
    validation: {status: COMPLETED}
  h-m1:
    type: MECHANISM
    statement: Onset falls as weight decay rises.
    status: IN_PROGRESS
    gate: {type: MUST_WORK, satisfied: null, failed_checks: []}
    prerequisites: [h-e1]
    experiment_design: {status: IN_PROGRESS}
history: []
";

const EVENTS: &str = r#"{"time":"2026-12-01T09:00:00Z","kind":"engine_start","actor":"engine"}
{"time":"2026-12-01T09:01:00Z","kind":"stage_start","stage":"Problem Scoping","actor":"engine"}
{"time":"2026-12-01T09:02:00Z","kind":"tool_call","stage":"Problem Scoping","action":"search_papers","message":"scholar: 12 results","actor":"engine"}
{"time":"2026-12-01T09:03:00Z","kind":"llm_call","stage":"Problem Scoping","message":"planner 1.2k tokens","actor":"engine"}
{"time":"2026-12-01T09:05:00Z","kind":"stage_end","stage":"Problem Scoping","actor":"engine"}
{"time":"2026-12-01T10:00:00Z","kind":"error","stage":"Experiment Design","message":"code server timed out","actor":"engine"}
"#;

const TOML: &str = r#"[run]
name = "grokking-mid"
execution_mode = "INTERACTIVE"

[[tools.servers]]
name = "scholar"
command = "npx"
args = ["-y", "scholar-mcp"]

[[tools.servers]]
name = "code-nav"
url = "http://127.0.0.1:8931/mcp"

[[tools.servers]]
name = "arxiv"
command = "arxiv-mcp"
"#;

const HEALTH: &str = r#"[{"name":"scholar","state":"up","tools":4},
 {"name":"code-nav","state":"down","tools":0,"error":"connection refused"}]"#;

pub const PAPER: &str = "\
# Grokking under weight decay

## Results

The model grokked at step 11,200 with test accuracy 0.991 (weight decay 1.0).
Onset fell to 9,000 steps at decay 3.0, a 20% speed-up.

| decay | onset step | test acc |
|---|---|---|
| 0.3 | 12,900 | 0.985 |
| 3.0 | 11,900 | 0.97 |
";

fn record(hyp: &str, run: u32, status: &str) -> String {
    format!(
        "# Phase 4 Failure Record: {hyp} (Run {run})\n\n**Hypothesis:** {hyp}\n**Run:** {run}\n\
         **Final Status:** {status}\n\n## Lessons Learned\n\n1. Lesson of {hyp}, run {run}.\n"
    )
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("a parent")).expect("create folder");
    std::fs::write(p, text).expect("write fixture file");
}

fn registry() -> Registry {
    let m = "h-e1/results/metrics.jsonl";
    let e = |k: &str, v: f64, path: &str| Entry::new(k.into(), v).with_origin(m, path.into());
    Registry {
        entries: vec![
            e("h-e1.results.onset_step", 11200.0, "line 2: /step"),
            e(
                "h-e1.results.test_accuracy",
                0.991,
                "line 2: /test_accuracy",
            ),
            e("h-e1.config.weight_decay", 1.0, "config.yaml#/weight_decay"),
            e("h-m1.config.weight_decay_max", 3.0, "config.yaml#/decay/3"),
            e("h-m1.config.weight_decay_low", 0.3, "config.yaml#/decay/1"),
            e("h-m1.results.onset_decay_0_3", 12900.0, "line 2: /onset"),
            e("h-m1.results.onset_decay_3_0", 11900.0, "line 4: /onset"),
        ],
        ..Registry::empty()
    }
}

pub fn mid_run() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "verification_state.yaml", VSA);
    write(root, "events.jsonl", EVENTS);
    write(root, "youra.toml", TOML);
    write(root, ".youra/tools_health.json", HEALTH);
    write(
        root,
        "memory/failure_h-m1_run1.md",
        &record("h-m1", 1, "FAIL"),
    );
    write(
        root,
        "memory/failure_h-e1_run1.md",
        &record("h-e1", 1, "FAIL"),
    );
    write(
        root,
        "memory/limitation_h-m2.md",
        &record("h-m2", 1, "PARTIAL"),
    );
    write(
        root,
        "memory/failure_h-m1_run2.md",
        &record("h-m1", 2, "FAIL"),
    );
    write(root, "paper/06_paper.md", PAPER);
    let yaml = youra::report::registry_yaml::to_yaml(&registry(), "2026-12-01T12:00:00Z");
    write(root, "paper/065_ground_truth.yaml", &yaml);
    dir
}
