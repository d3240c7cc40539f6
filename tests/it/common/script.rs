//! Replay scripts for engine tests: recorded exchanges written as a `.jsonl` bundle, with
//! ordinals counted per key the way the replay provider serves them.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::json;

/// Role, stage, hypothesis, round, attempt, decisions: what a replay serves by.
type Key = (String, String, Option<String>, u32, u32, String);

#[derive(Default)]
pub struct Script {
    /// The recovery round of the replies added next (0 until set).
    round: u32,
    /// The escalation decisions the replies added next come after (`CallKey::decisions`).
    decisions: String,
    lines: Vec<String>,
    ordinals: HashMap<Key, u32>,
    /// Recordings carry no usage: the replay provider counts each exchange's text with its
    /// tokenizer (the demo's bundle). Otherwise every reply claims a fixed 100 in / 50 out,
    /// which keeps token-budget tests independent of prompt wording.
    counted: bool,
}

pub const PERSONAS: [&str; 6] = [
    "novelty",
    "falsifiability",
    "impact",
    "feasibility",
    "strengthening",
    "stress_testing",
];

impl Script {
    /// A script whose replies are charged their counted tokens when replayed.
    pub fn counted() -> Script {
        Script {
            counted: true,
            ..Script::default()
        }
    }

    /// The recorded usage of a reply: none when counted, else the fixed figures.
    fn usage(&self, output: u32) -> serde_json::Value {
        match self.counted {
            true => serde_json::Value::Null,
            false => json!({"input_tokens": 100, "output_tokens": output}),
        }
    }

    pub fn reply(
        &mut self,
        role: &str,
        stage: &str,
        hyp: Option<&str>,
        attempt: u32,
        content: &str,
    ) -> &mut Self {
        let k = (
            role.to_string(),
            stage.to_string(),
            hyp.map(str::to_string),
            self.round,
            attempt,
            self.decisions.clone(),
        );
        let ord = self.ordinals.entry(k).or_insert(0);
        let mut key = json!({"role": role, "stage": stage, "attempt": attempt});
        if let Some(h) = hyp {
            key["hypothesis"] = json!(h);
        }
        if self.round > 0 {
            key["round"] = json!(self.round);
        }
        if !self.decisions.is_empty() {
            key["decisions"] = json!(self.decisions);
        }
        let mut line = json!({
            "key": key, "ordinal": *ord, "provider": "script", "model": "script-model",
            "request": null,
            "response": {"content": content, "model": "script-model", "finish_reason": "stop"}
        });
        *ord += 1;
        let usage = self.usage(50);
        if !usage.is_null() {
            line["response"]["usage"] = usage;
        }
        self.lines.push(line.to_string());
        self
    }

    /// A reply that asks for one tool call (the tool loop answers it and asks again).
    pub fn tool_call(
        &mut self,
        role: &str,
        stage: &str,
        attempt: u32,
        tool: &str,
        args: serde_json::Value,
    ) -> &mut Self {
        let k = (
            role.to_string(),
            stage.to_string(),
            None,
            self.round,
            attempt,
            self.decisions.clone(),
        );
        let ord = self.ordinals.entry(k).or_insert(0);
        let mut line = json!({
            "key": {"role": role, "stage": stage, "attempt": attempt}, "ordinal": *ord, "provider": "script", "model": "script-model", "request": null,
            "response": {"content": "", "tool_calls": [{"id": format!("call-{}", *ord), "name": tool, "arguments": args}], "model": "script-model", "finish_reason": "tool_calls"}
        });
        *ord += 1;
        let usage = self.usage(20);
        if !usage.is_null() {
            line["response"]["usage"] = usage;
        }
        self.lines.push(line.to_string());
        self
    }

    /// Replies added from here on belong to recovery round `n` of their step.
    pub fn round(&mut self, n: u32) -> &mut Self {
        self.round = n;
        self
    }

    /// Replies added from here on come after these escalation decisions (the actions
    /// applied, `/`-joined; "" for none): the continuation of one choice.
    pub fn after(&mut self, decisions: &str) -> &mut Self {
        self.decisions = decisions.to_string();
        self
    }

    pub fn ok(&mut self, stage: &str, hyp: Option<&str>, attempt: u32) -> &mut Self {
        self.reply(
            "controller",
            stage,
            hyp,
            attempt,
            r#"{"decision":"PHASE_COMPLETE","reason":"looks complete"}"#,
        )
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// The bundle as `.jsonl` text.
    pub fn text(&self) -> String {
        self.lines.join("\n") + "\n"
    }

    pub fn write(&self, path: &Path) {
        std::fs::write(path, self.lines.join("\n") + "\n").expect("write script");
    }

    pub fn scoping(&mut self) -> &mut Self {
        self.reply("executor", "problem_scoping", None, 1, SCOPING)
            .ok("problem_scoping", None, 1)
    }

    pub fn literature(&mut self) -> &mut Self {
        self.reply("executor", "literature_grounding", None, 1, LITERATURE)
            .ok("literature_grounding", None, 1)
    }

    /// Gap Selection, the debate's first call: the first gap Literature Grounding listed.
    pub fn gap(&mut self) -> &mut Self {
        self.reply("executor", "hypothesis_debate", None, 1, GAP)
    }

    /// A debate of `turns` exchanges whose moderator declares convergence at the end
    /// (or never, when `converge` is false), after Gap Selection.
    pub fn debate(&mut self, turns: usize, converge: bool) -> &mut Self {
        self.debate_ending(turns, converge, REFINEMENT)
    }

    /// A converging debate of six turns whose refinement is `refinement`: a recovery round's
    /// new hypothesis (a re-proposal of a failed statement is refused, `reflect::distinct`).
    pub fn debate_to(&mut self, refinement: &str) -> &mut Self {
        self.debate_ending(6, true, refinement)
    }

    fn debate_ending(&mut self, turns: usize, converge: bool, refinement: &str) -> &mut Self {
        self.gap();
        for i in 0..turns {
            self.reply(
                "controller",
                "hypothesis_debate",
                None,
                1,
                &moderator(false, PERSONAS[i % 6]),
            );
            self.reply(
                "persona",
                "hypothesis_debate",
                None,
                1,
                &format!(
                    "Turn {} from {}.\nProposal: sharpen claim {i}.",
                    i + 1,
                    PERSONAS[i % 6]
                ),
            );
        }
        if converge {
            self.reply(
                "controller",
                "hypothesis_debate",
                None,
                1,
                &moderator(true, "novelty"),
            );
        }
        self.reply("executor", "hypothesis_debate", None, 1, SYNTHESIS);
        self.reply("executor", "hypothesis_debate", None, 1, refinement);
        self.ok("hypothesis_debate", None, 1)
    }

    pub fn planning(&mut self) -> &mut Self {
        self.reply("executor", "verification_planning", None, 1, PLAN)
            .ok("verification_planning", None, 1)
    }

    pub fn design(&mut self, h: &str) -> &mut Self {
        self.reply("executor", "experiment_design", Some(h), 1, BRIEF)
            .ok("experiment_design", Some(h), 1)
    }

    pub fn implementation(&mut self, h: &str) -> &mut Self {
        self.reply("executor", "implementation_planning", Some(h), 1, TASKS)
            .ok("implementation_planning", Some(h), 1)
    }

    /// Everything up to and including the implementation plan of the first sub-hypothesis.
    pub fn through_design(&mut self) -> &mut Self {
        self.scoping()
            .literature()
            .debate(6, true)
            .planning()
            .design("h-e1")
            .implementation("h-e1")
    }
}

pub fn moderator(converged: bool, next: &str) -> String {
    let c = converged;
    json!({"criteria": {"SPECIFIC": c, "MECHANISM": c, "PREDICTIONS": c, "NOVELTY": c, "FEASIBILITY": c, "OBJECTIONS": c}, "next_persona": next, "reason": "moderated"}).to_string()
}

pub const SCOPING: &str = "## Research Question\nDo bill measurements separate the penguin species?\n## Motivation\nField work.\n## Scope\nThree species.\n## Success Criteria\nAccuracy above 0.9.\n";
pub const LITERATURE: &str =
    "## Related Work\nGorman et al. 2014.\n## Gaps\n1. a\n2. b\n3. c\n## Sources\n- Gorman 2014\n";
pub const GAP: &str =
    r#"{"gap": 1, "evidence": ["Gorman et al. 2014"], "rationale": "the gap the data can answer"}"#;
pub const SYNTHESIS: &str = r#"{"hypothesis":"Bill shape separates species","mechanism":"diet niches shape bills","predictions":["accuracy >= 0.9"],"agreements":["use CV"],"open_objections":[],"novelty":"a clean test"}"#;
pub const REFINEMENT: &str = r#"{"main_hypothesis":{"id":"H-Bill-v1","title":"Bills separate species","statement":"Bill length and depth alone classify the three species with accuracy >= 0.9."},"predictions":["accuracy >= 0.9"],"falsification":"accuracy below 0.8","assumptions":["measurement noise is small"]}"#;
pub const PLAN: &str = r#"{"sub_hypotheses":[
 {"id":"h-e1","type":"EXISTENCE","statement":"A nearest-centroid classifier on bill length and depth reaches accuracy >= 0.9.","gate":{"type":"MUST_WORK","criterion":"accuracy >= 0.9"},"prerequisites":[],"predictions":["P1"]},
 {"id":"h-m1","type":"MECHANISM","statement":"Adding body mass does not raise accuracy by more than 0.02.","gate":{"type":"SHOULD_WORK","criterion":"gain <= 0.02"},"prerequisites":["h-e1"]},
 {"id":"h-c1","type":"CONDITION","statement":"The result holds within each island.","gate":{"type":"SHOULD_WORK","criterion":"min_group_accuracy >= 0.85"},"prerequisites":["h-e1"]}
],"rationale":"Existence first, then what adds nothing, then where it holds."}"#;
pub const BRIEF: &str = "## Dataset\nPalmer penguins.\n## Model\nNearest centroid.\n## Metrics\naccuracy\n## Gate Criteria\n```yaml\ncriteria:\n  - metric: accuracy\n    op: \">=\"\n    value: 0.9\n```\n## Procedure\n5-fold CV.\n";

pub const TASKS: &str = r##"{"tasks":[{"id":"T1","title":"Load the CSV","spec_section":"Dataset","description":"drop rows with NA","test_first":false},{"id":"T2","title":"Nearest centroid with 5-fold CV","spec_section":"Procedure","description":"report accuracy per fold","test_first":false}],"prd":"# PRD\nReport accuracy.","architecture":"# Architecture\ntrain.py","logic":"# Logic\ncentroids","config":"# Config\nfolds: 5"}"##;

/// A fresh run folder whose models are served from `script` (written as replay.jsonl).
pub fn replay_run(script: &Script, extra_toml: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dir.path().join("run");
    // These scripts' experiments report one measurement per gate (the demo's
    // `centroid.py`); a test of repeats gives its own `[evidence]`.
    let evidence = match extra_toml.contains("[evidence]") {
        true => "",
        false => "\n[evidence]\nmin_repeats = 1\n",
    };
    let toml = format!(
        "[llm.default]\nprovider = \"replay\"\nreplay = \"replay.jsonl\"\n{evidence}\n[engine]\ncontroller_retry_wait_s = 0.0\nwait_poll_s = 0.02\nliterature_search = false\n{extra_toml}"
    );
    let opts = youra::engine::init::InitOptions {
        topic: "Penguin bills".into(),
        name: Some("t".into()),
        mode: "UNATTENDED".into(),
        llm_toml: toml,
    };
    youra::engine::init::init(&run, &opts).expect("init");
    script.write(&run.join("replay.jsonl"));
    (dir, run)
}

/// The demo's experiment script (honest: computes every metric from the CSV).
pub const CENTROID_PY: &str = include_str!("../../../assets/demo/code/centroid.py");

/// A brief whose gate is one criterion.
pub fn brief(metric: &str, op: &str, value: f64) -> String {
    format!(
        "## Dataset\nPalmer penguins (data/penguins.csv).\n## Model\nNearest centroid.\n## Metrics\n{metric}\n## Gate Criteria\n```yaml\ncriteria:\n  - metric: {metric}\n    op: \"{op}\"\n    value: {value}\n```\n## Procedure\n5-fold CV.\n"
    )
}

/// The executor's coding reply: one file and the command that runs it.
pub fn code_reply(file: &str, content: &str, args: &[&str]) -> String {
    let mut command = vec!["python3".to_string(), file.to_string()];
    command.extend(args.iter().map(|a| a.to_string()));
    serde_json::json!({"files": [{"path": file, "content": content}], "command": command})
        .to_string()
}

pub const CONSISTENT: &str = r#"{"consistent": true, "findings": []}"#;

impl Script {
    /// Design, plan, one coding reply per entry of `attempts` (all but the last are
    /// expected to need repair), the judge's check and the controller's acceptance.
    pub fn loop_for(&mut self, h: &str, brief_text: &str, attempts: &[String]) -> &mut Self {
        self.reply("executor", "experiment_design", Some(h), 1, brief_text)
            .ok("experiment_design", Some(h), 1)
            .implementation(h);
        for a in attempts {
            self.reply("executor", "coding_validation", Some(h), 1, a);
        }
        self.reply("judge", "coding_validation", Some(h), 1, CONSISTENT)
            .ok("coding_validation", Some(h), 1)
    }
}

/// A run folder with the demo's data copied in.
pub fn with_data(run: &Path) {
    std::fs::create_dir_all(run.join("data")).expect("data folder");
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo/data/penguins.csv"),
        run.join("data/penguins.csv"),
    )
    .expect("copy the penguins");
}

pub const EVIDENCE: &str = r#"{"predictions": [{"id": "P1", "verdict": "supported", "explanation": "h-e1 passed its MUST_WORK gate on measured accuracy."}], "mechanism_claims": "Bill length and depth carry most of the species signal once both are put on one scale.", "assumptions": "- Rows with missing measurements are missing at random (not tested)."}"#;

pub const FOUNDATION: &str = "## Introduction\nCan bill measurements alone tell the three Palmer penguin species apart?\n\n## Related Work\nGorman et al. (2014) collected the measurements.\n\n## Method\nA nearest centroid classifier on standardized bill length and bill depth, scored by accuracy with cross-validation over five folds.\n";
pub const EVIDENCE_SECTIONS: &str = "## Experiments\nEach sub-hypothesis ran as its own experiment on the penguins.csv table.\n\n## Results\n\n| Sub-hypothesis | Metric | Value |\n|---|---|---|\n| h-e1 | accuracy | 0.9356 |\n| h-m1 | gain | 0.0323 |\n| h-c1 | min_group_accuracy | 0.9638 |\n";
pub const CLOSURE: &str = "## Discussion\nBill shape separates the species well; body mass still adds a little.\n\n## Limitations\nOne table, one classifier.\n\n## Conclusion\nBill measurements suffice for a strong baseline.\n";
pub const ABSTRACT: &str =
    "## Abstract\nWe test whether bill measurements alone classify penguin species.\n";
pub const NO_FINDINGS: &str = r#"{"findings": []}"#;

impl Script {
    /// Evidence Check, drafting, a clean review and the final refinement.
    pub fn paper(&mut self) -> &mut Self {
        self.reply("executor", "evidence_check", None, 1, EVIDENCE)
            .ok("evidence_check", None, 1);
        for part in [FOUNDATION, EVIDENCE_SECTIONS, CLOSURE, ABSTRACT] {
            self.reply("executor", "manuscript_drafting", None, 1, part);
        }
        self.ok("manuscript_drafting", None, 1);
        for _ in 0..3 {
            self.reply("reviewer", "fact_review", None, 1, NO_FINDINGS);
        }
        self.ok("fact_review", None, 1);
        let final_paper = format!(
            "# Bills separate species\n\n{ABSTRACT}\n{FOUNDATION}\n{EVIDENCE_SECTIONS}\n{CLOSURE}"
        );
        self.reply("executor", "manuscript_refinement", None, 1, &final_paper)
            .ok("manuscript_refinement", None, 1)
    }
}

/// The generator's three candidates, h* first, with the category the critic will keep.
pub fn candidates(first: &str) -> String {
    serde_json::json!({"candidates": [
        {"description": "Bill length (~44 mm) outweighs bill depth (~17 mm) in the unscaled distance", "category": first, "evidence": "signature=saturation: the curve flattens at 0.88", "fix": "standardize both features on the training folds"},
        {"description": "Too few training rows per species at small fractions", "category": "Method", "evidence": "slope near 0 over the curve", "fix": "report the curve from 40 % up"},
        {"description": "Adelie and Chinstrap overlap in bill length", "category": "Design", "evidence": "decay: gains vanish early", "fix": "add bill depth interactions"}
    ]}).to_string()
}

pub fn scores(s1: f64) -> String {
    serde_json::json!({"scores": [{"candidate": 1, "severity": s1}, {"candidate": 2, "severity": 0.2}, {"candidate": 3, "severity": 0.1}]}).to_string()
}

/// The controller's recovery choice: `level`, resting on cause 1 and no record.
pub fn route(level: &str) -> String {
    serde_json::json!({"level": level, "cause": 1, "records": [], "reason": format!("chose {level}")})
        .to_string()
}

pub fn verdict(v: &str, kappa: f64) -> String {
    serde_json::json!({"verdict": v, "kappa": kappa, "reason": "judged"}).to_string()
}

impl Script {
    /// One failed attempt of `h` that goes to recovery: the coding reply, the judge's
    /// fabrication check, the generator, the critic and the clamp's judge.
    pub fn failing_attempt(
        &mut self,
        h: &str,
        code: &str,
        category: &str,
        severity: f64,
        judge: &str,
    ) -> &mut Self {
        self.reply("executor", "coding_validation", Some(h), 1, code)
            .reply("judge", "coding_validation", Some(h), 1, CONSISTENT)
            .reply(
                "generator",
                "coding_validation",
                Some(h),
                1,
                &candidates(category),
            )
            .reply("critic", "coding_validation", Some(h), 1, &scores(severity))
            .reply("judge", "coding_validation", Some(h), 1, judge)
    }

    /// A passing attempt of `h` and the controller's acceptance.
    pub fn passing_attempt(&mut self, h: &str, code: &str) -> &mut Self {
        self.reply("executor", "coding_validation", Some(h), 1, code)
            .reply("judge", "coding_validation", Some(h), 1, CONSISTENT)
            .ok("coding_validation", Some(h), 1)
    }

    pub fn design_and_plan(&mut self, h: &str, brief_text: &str) -> &mut Self {
        self.reply("executor", "experiment_design", Some(h), 1, brief_text)
            .ok("experiment_design", Some(h), 1)
            .implementation(h)
    }
}

/// Run the engine on `dir` until it completes, stops, or (with `exit_when_paused`) pauses.
pub fn run_engine(dir: &Path, exit_when_paused: bool) -> youra::engine::RunEnd {
    let options = youra::engine::Options {
        exit_when_paused,
        ..Default::default()
    };
    let mut e = youra::engine::Engine::open(dir, options).expect("engine opens");
    e.run().expect("engine runs")
}
