//! Shared pieces of the repeats tests (issue 40): the fixture experiment, the settings that
//! ask for repeats, a MUST_WORK brief with its baseline, and h-e1's script up to its gate.
#![allow(dead_code)]

use super::script::{CONSISTENT, Script, brief, code_reply};

/// The fixture experiment: a nearest centroid on one random split per seed
/// (`tests/fixtures/evidence/split.py`).
pub const SPLIT_PY: &str = include_str!("../../fixtures/evidence/split.py");

/// `[engine]` limit and `[evidence]` asking for five repeats (`replay_run`'s extra).
pub const REPEATS: &str = "experiment_time_limit_s = 60\n\n[evidence]\nmin_repeats = 5\n";

/// A MUST_WORK brief where the plan asks for repeats: its criterion and its baseline.
pub fn baseline_brief(threshold: f64) -> String {
    brief("accuracy", ">=", threshold).replace(
        "## Procedure",
        "## Baselines\n- `accuracy_majority`: the majority class\n## Procedure",
    )
}

/// The script up to h-e1's gate on `split.py` at a 50/50 split: its design, one coding
/// reply, `judged` fabrication checks (one per run of the experiment: a top-up or a
/// confirmation runs it again) and the controller's acceptance.
pub fn h_e1(threshold: f64, judged: usize) -> Script {
    let mut s = Script::default();
    s.scoping().literature().debate(6, true).planning();
    s.design_and_plan("h-e1", &baseline_brief(threshold)).reply(
        "executor",
        "coding_validation",
        Some("h-e1"),
        1,
        &code_reply("split.py", SPLIT_PY, &["0.5"]),
    );
    for _ in 0..judged {
        s.reply("judge", "coding_validation", Some("h-e1"), 1, CONSISTENT);
    }
    s.ok("coding_validation", Some("h-e1"), 1);
    s
}

/// `dir`'s run made INTERACTIVE (replay runs are UNATTENDED).
pub fn interactive(dir: &std::path::Path) {
    for (file, from, to) in [
        (
            "verification_state.yaml",
            "execution_mode: UNATTENDED",
            "execution_mode: INTERACTIVE",
        ),
        (
            "youra.toml",
            "execution_mode = \"UNATTENDED\"",
            "execution_mode = \"INTERACTIVE\"",
        ),
    ] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(text.contains(from), "{file}");
        std::fs::write(dir.join(file), text.replace(from, to)).unwrap();
    }
}
