//! The offline demo's recorded exchanges: a small, honest study of the Palmer penguins
//! (assets/demo/data/penguins.csv, CC0). The bundle in assets/demo/replay.jsonl is generated
//! from this file (`YOURA_UPDATE_DEMO=1 cargo test --test demo`), and a test keeps the two equal.
#![allow(dead_code)]

use super::script::{CENTROID_PY, Script, code_reply, scores, verdict};

const SCOPING: &str = "## Research Question
Can a nearest-centroid classifier on bill length and bill depth alone tell the three Palmer penguin species
(Adelie, Chinstrap, Gentoo) apart with at least 92 % cross-validated accuracy?

## Motivation
Bill measurements are quick to take in the field with calipers; body mass needs a scale and a calm bird.
If the bill alone separates the species, field surveys can skip the weighing.

## Scope
In: the 344 penguins of the Palmer Archipelago data (Gorman et al. 2014), bill length and depth, body mass
and sex as comparisons, a classifier simple enough to explain (nearest centroid), 5-fold cross-validation.
Out: deep models, images, other colonies. Compute: one CPU, seconds per experiment.

## Success Criteria
Accuracy ≥ 0.92 on held-out folds for bill measurements alone; a body-mass gain of at most 0.02 for the
claim that mass is redundant.
";

const LITERATURE: &str = "## Related Work
Gorman, Williams and Fraser (2014) measured the three species across three islands and described the sexual
dimorphism in bill and body size. Horst, Hill and Gorman (2020) released the measurements as the
palmerpenguins data set for teaching classification. Bill depth is known to separate Gentoo from the others;
bill length separates Adelie from Chinstrap.

## Gaps
1. How far bill measurements alone go without any learned model.
2. Whether body mass adds anything once bill length and depth are known.
3. Whether a bill-only classifier holds within each sex, given the dimorphism.

## Sources
- Gorman KB, Williams TD, Fraser WR (2014). PLoS ONE 9(3): e90081.
- Horst AM, Hill AP, Gorman KB (2020). palmerpenguins: Palmer Archipelago (Antarctica) penguin data.
";

const TURNS: [(&str, &str); 6] = [
    (
        "novelty",
        "Species separation from bills is textbook; the new part is the claim that a *centroid* rule with two numbers is enough, and the test of redundancy of mass.\nProposal: claim bill length and depth suffice for ≥ 0.92 accuracy with a nearest-centroid rule.",
    ),
    (
        "falsifiability",
        "Put numbers on it: 5-fold cross-validated accuracy ≥ 0.92 for bills alone; refuted below 0.88. For mass, a gain above 0.02 refutes redundancy.\nProposal: state both thresholds in the gate criteria.",
    ),
    (
        "impact",
        "Field teams weigh birds because they doubt the bill; a clean negative on mass would change practice.\nProposal: report the mass gain as its own sub-hypothesis.",
    ),
    (
        "feasibility",
        "342 complete rows, standard library only, seconds per run. A per-sex check is cheap too.\nProposal: add a per-sex condition as a SHOULD_WORK sub-hypothesis.",
    ),
    (
        "strengthening",
        "The mechanism is niche separation: Gentoo bills are long and shallow, Adelie short and deep, Chinstrap long and deep. Say so, and predict the confusions (Adelie vs Chinstrap).\nProposal: name the mechanism and the expected confusion pair.",
    ),
    (
        "stress_testing",
        "A centroid rule is scale-sensitive: millimetres of length and depth are not on one scale. If the raw rule fails, that is a method problem, not a refutation.\nProposal: keep scaling in mind when judging a failure.",
    ),
];

const SYNTHESIS: &str = r#"{"hypothesis": "Bill length and bill depth alone classify the three Palmer penguin species with a nearest-centroid rule at ≥ 0.92 cross-validated accuracy; body mass adds at most 0.02.", "mechanism": "Dietary niche separation shaped bills: Gentoo long and shallow, Adelie short and deep, Chinstrap long and deep.", "predictions": ["accuracy >= 0.92 on bill length and depth", "gain from body mass <= 0.02", "accuracy >= 0.9 within each sex"], "agreements": ["5-fold cross-validation", "a per-sex check"], "open_objections": ["scale sensitivity of the centroid rule"], "novelty": "A two-number, model-free test of redundancy of body mass."}"#;

const REFINEMENT: &str = r#"{"main_hypothesis": {"id": "H-Bills-v1", "title": "Bills alone separate Palmer penguin species", "statement": "A nearest-centroid rule on bill length and bill depth classifies Adelie, Chinstrap and Gentoo penguins with at least 0.92 cross-validated accuracy, and adding body mass raises accuracy by at most 0.02."}, "predictions": ["accuracy >= 0.92", "gain <= 0.02", "min accuracy within sex >= 0.9"], "falsification": "Accuracy below 0.88 with bills alone, or a body-mass gain above 0.02.", "assumptions": ["rows with missing measurements are missing at random", "the three islands share one species signature"]}"#;

const PLAN: &str = r#"{"sub_hypotheses": [
 {"id": "h-e1", "type": "EXISTENCE", "statement": "A nearest-centroid rule on bill length and depth reaches at least 0.92 accuracy in 5-fold cross-validation.", "gate": {"type": "MUST_WORK", "criterion": "accuracy >= 0.92"}, "prerequisites": []},
 {"id": "h-m1", "type": "MECHANISM", "statement": "Adding body mass to bill length and depth raises accuracy by at most 0.02.", "gate": {"type": "SHOULD_WORK", "criterion": "gain <= 0.02"}, "prerequisites": ["h-e1"]},
 {"id": "h-c1", "type": "CONDITION", "statement": "The bill-only rule keeps at least 0.9 accuracy within each sex.", "gate": {"type": "SHOULD_WORK", "criterion": "min_group_accuracy >= 0.9"}, "prerequisites": ["h-e1"]}
], "rationale": "Existence first (does the bill suffice), then the redundancy of mass, then the condition the dimorphism raises."}"#;

fn brief(what: &str, metric: &str, op: &str, value: f64, procedure: &str) -> String {
    format!(
        "## Dataset\nPalmer penguins (data/penguins.csv, 344 rows, 342 with both bill measurements; CC0).\n\n## Model\nNearest centroid: each species is the mean of its training rows; a bird gets the species of the closest mean (Euclidean).\n\n## Metrics\n{what}\n\n## Gate Criteria\n```yaml\ncriteria:\n  - metric: {metric}\n    op: \"{op}\"\n    value: {value}\n```\n\n## Procedure\n{procedure}\n"
    )
}

const TASKS: &str = r##"{"tasks": [{"id": "T1", "title": "Load and clean the table", "spec_section": "Dataset", "description": "read data/penguins.csv, drop rows with NA in the used columns", "test_first": false}, {"id": "T2", "title": "Nearest-centroid classifier", "spec_section": "Model", "description": "fit means per species on training rows", "test_first": false}, {"id": "T3", "title": "Cross-validation and learning curve", "spec_section": "Procedure", "description": "5 folds, seed 0; curve at 20..100 % of the training rows", "test_first": false}, {"id": "T4", "title": "Report metrics", "spec_section": "Metrics", "description": "stream the curve to YOURA_METRICS_FILE, final metrics to experiment_results.json", "test_first": false}], "prd": "# PRD\nMeasure the gate metric honestly from the CSV.", "architecture": "# Architecture\n`centroid.py`: load, fit, cross-validate, report.", "logic": "# Logic\nShuffle with seed 0, split into 5 folds, fit centroids on 4, score the 5th.", "config": "# Config\nfolds: 5, seed: 0"}"##;

const CANDIDATES: &str = r#"{"candidates": [
 {"description": "The centroid distance is unscaled: bill length (about 44 mm, spread 5.5) outweighs bill depth (about 17 mm, spread 2.0), so depth, which separates Gentoo, barely counts", "category": "Method", "evidence": "signature=saturation: the curve flattens near 0.88 from 20 % of the data on", "fix": "standardize both features on each training fold before computing centroids"},
 {"description": "Adelie and Chinstrap overlap in bill depth, so no bill-only rule can separate them well", "category": "Design", "evidence": "decay: early gains vanish, slope is flat", "fix": "add a third measurement to the claim"},
 {"description": "Five folds of about 68 birds make the accuracy estimate noisy", "category": "Method", "evidence": "volatility across the curve's steps", "fix": "repeat the cross-validation with several seeds"}
]}"#;

const CONTROLLER_OK: &str = r#"{"decision": "PHASE_COMPLETE", "reason": "the artifact has every required part and its claims follow from the state"}"#;

pub const EVIDENCE: &str = "## Mechanism Claims
The bill signature carries the species: once length and depth are put on one scale, the centroid rule reaches
the existence gate. The per-sex condition holds. Body mass is not redundant: it adds more than the 0.02 the
hypothesis allowed, so the mechanism claim that bills carry *all* the species signal is refuted.

## Assumptions
- Rows with missing measurements are missing at random: not tested (2 of 344 rows dropped).
- One species signature across islands: not tested; islands were not used.
";

const FOUNDATION: &str = "## Introduction
Field surveys of penguins measure bills with calipers and weigh birds on a scale. We ask whether the bill
alone tells the three Palmer species apart, and whether body mass adds anything once the bill is known.

## Related Work
Gorman et al. (2014) collected the measurements; Horst et al. (2020) released them as the palmerpenguins data.

## Method
A nearest centroid classifier on standardized bill length and bill depth, fitted on four folds and scored by
accuracy on the fifth, with 5-fold cross-validation (seed 0). A learning curve refits on growing shares of the
training rows.
";

const EVIDENCE_PART: &str = "## Experiments
Three experiments ran on penguins.csv in the sandbox: bills alone (h-e1), bills plus body mass (h-m1), and
bills alone within each sex (h-c1). The first run of h-e1 used unscaled millimetres and missed its gate; the
failure analysis traced it to the unscaled distance and the rerun standardized both features.

## Results

| Sub-hypothesis | Metric | Value | Gate |
|---|---|---|---|
| h-e1 (unscaled, first run) | accuracy | 0.8832 | missed |
| h-e1 | accuracy | 0.9356 | met |
| h-m1 | gain from body mass | 0.0323 | missed |
| h-c1 | lowest accuracy within a sex | 0.9638 | met |
";

const CLOSURE: &str = "## Discussion
Bills separate the species once their two measurements share a scale; the unscaled rule is a method error, not
a refutation. Body mass still adds a little, so the redundancy claim fails.

## Limitations
One data set, one simple classifier, one seed; islands were not examined.

## Conclusion
Calipers alone give a strong species rule; a scale still helps.
";

const ABSTRACT: &str = "## Abstract
On the Palmer penguins, a nearest-centroid rule on standardized bill length and depth classifies the three
species with cross-validated accuracy above the 0.92 target, and keeps its accuracy within each sex. Body mass
adds more than the 0.02 we allowed, so it is not redundant.
";

fn review(reviewer: &str) -> String {
    match reviewer {
        "Bored Reviewer" => r#"{"findings": [{"severity": "MINOR", "section": "Limitations", "claim": "one seed", "problem": "a single seed is mentioned only at the end", "fix": "say it in the Method too"}]}"#.into(),
        _ => r#"{"findings": []}"#.into(),
    }
}

/// The whole demo, in the order the engine asks.
pub fn script() -> Script {
    let mut s = Script::default();
    s.reply("executor", "problem_scoping", None, 1, SCOPING)
        .reply("controller", "problem_scoping", None, 1, CONTROLLER_OK);
    s.reply("executor", "literature_grounding", None, 1, LITERATURE)
        .reply("controller", "literature_grounding", None, 1, CONTROLLER_OK);
    let personas: Vec<&str> = TURNS.iter().map(|(p, _)| *p).collect();
    for (i, (_, text)) in TURNS.iter().enumerate() {
        let met = i >= 4;
        let m = serde_json::json!({"criteria": {"SPECIFIC": i >= 1, "MECHANISM": i >= 4, "PREDICTIONS": i >= 1, "NOVELTY": i >= 2, "FEASIBILITY": i >= 3, "OBJECTIONS": met && i >= 5}, "next_persona": personas[i], "reason": format!("{} has not spoken yet", personas[i])});
        s.reply("controller", "hypothesis_debate", None, 1, &m.to_string());
        s.reply("persona", "hypothesis_debate", None, 1, text);
    }
    let all = serde_json::json!({"criteria": {"SPECIFIC": true, "MECHANISM": true, "PREDICTIONS": true, "NOVELTY": true, "FEASIBILITY": true, "OBJECTIONS": true}, "next_persona": "novelty", "reason": "all six criteria are settled"});
    s.reply("controller", "hypothesis_debate", None, 1, &all.to_string());
    s.reply("executor", "hypothesis_debate", None, 1, SYNTHESIS)
        .reply("executor", "hypothesis_debate", None, 1, REFINEMENT)
        .reply("controller", "hypothesis_debate", None, 1, CONTROLLER_OK);
    s.reply("executor", "verification_planning", None, 1, PLAN)
        .reply(
            "controller",
            "verification_planning",
            None,
            1,
            CONTROLLER_OK,
        );
    hypotheses(&mut s);
    paper(&mut s);
    s
}

fn design(s: &mut Script, h: &str, brief_text: &str) {
    s.reply("executor", "experiment_design", Some(h), 1, brief_text)
        .reply("controller", "experiment_design", Some(h), 1, CONTROLLER_OK);
    s.reply("executor", "implementation_planning", Some(h), 1, TASKS)
        .reply(
            "controller",
            "implementation_planning",
            Some(h),
            1,
            CONTROLLER_OK,
        );
}

const CONSISTENT: &str = r#"{"consistent": true, "findings": []}"#;

fn hypotheses(s: &mut Script) {
    let cv = "5-fold cross-validation, seed 0, with a learning curve over 20, 40, 60, 80 and 100 % of each training fold.";
    design(
        s,
        "h-e1",
        &brief(
            "accuracy: the share of held-out birds whose species the rule gets right.",
            "accuracy",
            ">=",
            0.92,
            cv,
        ),
    );
    s.reply(
        "executor",
        "coding_validation",
        Some("h-e1"),
        1,
        &code_reply("centroid.py", CENTROID_PY, &[]),
    );
    s.reply("judge", "coding_validation", Some("h-e1"), 1, CONSISTENT);
    s.reply(
        "generator",
        "coding_validation",
        Some("h-e1"),
        1,
        CANDIDATES,
    );
    s.reply(
        "critic",
        "coding_validation",
        Some("h-e1"),
        1,
        &scores(0.72),
    );
    s.reply(
        "judge",
        "coding_validation",
        Some("h-e1"),
        1,
        &verdict("Valid", 0.55),
    );
    s.round(1);
    s.reply(
        "executor",
        "coding_validation",
        Some("h-e1"),
        1,
        &code_reply("centroid.py", CENTROID_PY, &["--standardize"]),
    );
    s.reply("judge", "coding_validation", Some("h-e1"), 1, CONSISTENT)
        .reply(
            "controller",
            "coding_validation",
            Some("h-e1"),
            1,
            CONTROLLER_OK,
        );
    s.round(0);
    design(
        s,
        "h-m1",
        &brief(
            "gain: accuracy with body mass added minus accuracy with bills alone (both standardized).",
            "gain",
            "<=",
            0.02,
            cv,
        ),
    );
    s.reply(
        "executor",
        "coding_validation",
        Some("h-m1"),
        1,
        &code_reply(
            "centroid.py",
            CENTROID_PY,
            &["--standardize", "--compare", "body_mass_g"],
        ),
    );
    s.reply("judge", "coding_validation", Some("h-m1"), 1, CONSISTENT)
        .reply(
            "controller",
            "coding_validation",
            Some("h-m1"),
            1,
            CONTROLLER_OK,
        );
    design(
        s,
        "h-c1",
        &brief(
            "min_group_accuracy: the lower of the two within-sex accuracies.",
            "min_group_accuracy",
            ">=",
            0.9,
            cv,
        ),
    );
    s.reply(
        "executor",
        "coding_validation",
        Some("h-c1"),
        1,
        &code_reply(
            "centroid.py",
            CENTROID_PY,
            &["--standardize", "--by", "sex"],
        ),
    );
    s.reply("judge", "coding_validation", Some("h-c1"), 1, CONSISTENT)
        .reply(
            "controller",
            "coding_validation",
            Some("h-c1"),
            1,
            CONTROLLER_OK,
        );
}

fn paper(s: &mut Script) {
    s.reply("executor", "evidence_check", None, 1, EVIDENCE)
        .reply("controller", "evidence_check", None, 1, CONTROLLER_OK);
    for part in [FOUNDATION, EVIDENCE_PART, CLOSURE, ABSTRACT] {
        s.reply("executor", "manuscript_drafting", None, 1, part);
    }
    s.reply("controller", "manuscript_drafting", None, 1, CONTROLLER_OK);
    for r in ["Accuracy Checker", "Bored Reviewer", "Skeptical Expert"] {
        s.reply("reviewer", "fact_review", None, 1, &review(r));
    }
    s.reply("controller", "fact_review", None, 1, CONTROLLER_OK);
    let final_paper = format!(
        "# Bills alone separate Palmer penguin species\n\n{ABSTRACT}\n{}\n{EVIDENCE_PART}\n{CLOSURE}",
        FOUNDATION.replace("(seed 0)", "(one seed, 0)")
    );
    s.reply("executor", "manuscript_refinement", None, 1, &final_paper)
        .reply(
            "controller",
            "manuscript_refinement",
            None,
            1,
            CONTROLLER_OK,
        );
}
