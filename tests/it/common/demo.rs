//! The offline demo's recorded exchanges: a small, honest study of the Palmer penguins
//! (assets/demo/data/penguins.csv, CC0). The bundle in assets/demo/replay.jsonl is generated
//! from this file (`YOURA_UPDATE_DEMO=1 cargo test --test it demo::`), and a test keeps the two equal.
#![allow(dead_code)]

use super::script::{CENTROID_PY, Script, code_reply, verdict};

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
- [@gorman2014ecological] Gorman, Williams and Fraser (2014), PLoS ONE: the measurements.
- [@horst2020palmerpenguins] Horst, Hill and Gorman (2020): the palmerpenguins data package.
- [@fisher1936use] Fisher (1936): linear discriminants.
- [@tibshirani2002diagnosis] Tibshirani et al. (2002): nearest shrunken centroids.
";

/// Gap Selection before the first debate: the bill-only gap, the one the data answers first.
const GAP: &str = r#"{"gap": 1, "evidence": ["Bill depth is known to separate Gentoo from the others; bill length separates Adelie from Chinstrap.", "Horst, Hill and Gorman (2020) released the measurements for teaching classification [@horst2020palmerpenguins]."], "rationale": "The species signal in the bill is documented but never measured without a learned model; body mass (gap 2) is tested as the redundancy the same claim implies."}"#;

/// Gap Selection on the re-entry after the redesign: the memory records that body mass was
/// not redundant, so the debate turns to what mass adds.
const PIVOT_GAP: &str = r#"{"gap": 2, "evidence": ["Gorman, Williams and Fraser (2014) described the sexual dimorphism in bill and body size [@gorman2014ecological].", "This run's failure record: body mass added 0.0323 over standardized bills, above the 0.02 the redundancy claim allowed."], "rationale": "The refuted redundancy claim leaves gap 2 open in the other direction: what body mass adds once the bill is known."}"#;

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
 {"id": "h-e1", "type": "EXISTENCE", "statement": "A nearest-centroid rule on bill length and depth reaches at least 0.92 accuracy in 5-fold cross-validation.", "gate": {"type": "MUST_WORK", "criterion": "accuracy >= 0.92"}, "prerequisites": [], "predictions": ["P1"]},
 {"id": "h-m1", "type": "MECHANISM", "statement": "Adding body mass to bill length and depth raises accuracy by at most 0.02: the bills carry the species signal.", "gate": {"type": "MUST_WORK", "criterion": "gain <= 0.02"}, "prerequisites": ["h-e1"], "predictions": ["P2"]},
 {"id": "h-c1", "type": "CONDITION", "statement": "The bill-only rule keeps at least 0.9 accuracy within each sex.", "gate": {"type": "SHOULD_WORK", "criterion": "min_group_accuracy >= 0.9"}, "prerequisites": ["h-e1"], "predictions": ["P3"]}
], "rationale": "Existence first (does the bill suffice), then the mechanism (the bills carry the signal, so mass is redundant), then the condition the dimorphism raises."}"#;

fn brief(what: &str, metric: &str, op: &str, value: f64, procedure: &str) -> String {
    format!(
        "## Dataset\nPalmer penguins (data/penguins.csv, 344 rows, 342 with both bill measurements; CC0).\n\n## Model\nNearest centroid: each species is the mean of its training rows; a bird gets the species of the closest mean (Euclidean).\n\n## Metrics\n{what}\n\n## Gate Criteria\n```yaml\ncriteria:\n  - metric: {metric}\n    op: \"{op}\"\n    value: {value}\n```\n\n## Procedure\n{procedure}\n"
    )
}

const TASKS: &str = r##"{"tasks": [{"id": "T1", "title": "Load and clean the table", "spec_section": "Dataset", "description": "read data/penguins.csv, drop rows with NA in the used columns", "test_first": false}, {"id": "T2", "title": "Nearest-centroid classifier", "spec_section": "Model", "description": "fit means per species on training rows", "test_first": false}, {"id": "T3", "title": "Cross-validation and learning curve", "spec_section": "Procedure", "description": "5 folds, seed 0; curve at 20..100 % of the training rows", "test_first": false}, {"id": "T4", "title": "Report metrics", "spec_section": "Metrics", "description": "stream the curve to YOURA_METRICS_FILE, final metrics to experiment_results.json", "test_first": false}], "prd": "# PRD\nMeasure the gate metric honestly from the CSV.", "architecture": "# Architecture\n`centroid.py`: load, fit, cross-validate, report.", "logic": "# Logic\nShuffle with seed 0, split into 5 folds, fit centroids on 4, score the 5th.", "config": "# Config\nfolds: 5, seed: 0"}"##;

/// The controller's PHASE_COMPLETE, naming the step that follows (`next_stage`, and where
/// a hypothesis loop opens, `next_hypothesis`): the demo's controller keeps the lifecycle's
/// order, and each choice is bounded by the steps the engine offered it.
fn controller_ok(next_stage: &str, next_hypothesis: Option<&str>) -> String {
    let mut v = serde_json::json!({
        "decision": "PHASE_COMPLETE",
        "reason": "the artifact has every required part and its claims follow from the state",
        "next_stage": next_stage,
    });
    if let Some(h) = next_hypothesis {
        v["next_hypothesis"] = h.into();
    }
    v.to_string()
}
const CONSISTENT: &str = r#"{"consistent": true, "findings": []}"#;
const CV: &str = "5-fold cross-validation, seed 0, with a learning curve over 20, 40, 60, 80 and 100 % of each training fold.";

/// The plan tree's expansion of h-e1's first plan after the unscaled run missed its gate:
/// three substantively different children, with the reflector's (fallible) priors.
const E1_EXPANSION: &str = r##"{"children": [
 {"plan": "# Bill depth alone\n\nDrop bill length, whose millimetres swamp the distance, and classify on bill depth alone, which separates Gentoo; keep the 5-fold protocol.", "prior": {"estimate": 0.6, "hypothesis": "length only adds scale noise", "rationale": "depth carries the Gentoo split", "changes": ["one feature"], "risks": ["Adelie and Chinstrap overlap in depth"]}},
 {"plan": "# Standardize the features\n\nPut bill length and bill depth on one scale (z-scores fitted on each training fold) before computing the centroids; keep the 5-fold protocol.", "prior": {"estimate": 0.55, "hypothesis": "scale is the problem", "rationale": "the saturating curve", "changes": ["z-scores"], "risks": ["none"]}},
 {"plan": "# Flipper length for bill length\n\nReplace bill length by flipper length, a size measure on a similar scale to depth's spread.", "prior": {"estimate": 0.3, "hypothesis": "size separates better than length", "rationale": "Gentoo are larger", "changes": ["a feature"], "risks": ["changes the claim"]}}
]}"##;

/// The expansion of h-m1's plan after its gain missed (the continuation of a rejected pivot).
const M1_EXPANSION: &str = r##"{"children": [
 {"plan": "# Ten folds\n\nUse 10 folds instead of 5, so each classifier trains on more birds and the gain is measured on smaller, more numerous test folds.", "prior": {"estimate": 0.45, "hypothesis": "more training rows shrink the gain", "rationale": "the curve still rises at 100 %", "changes": ["10 folds"], "risks": ["noisier folds"]}},
 {"plan": "# Repeat over ten seeds\n\nRepeat the 5-fold cross-validation with seeds 0 to 9 and judge the mean gain of body mass, with its range: one split of 342 birds may overstate it.", "prior": {"estimate": 0.2, "hypothesis": "the gain is split noise", "rationale": "folds of 68 birds", "changes": ["ten seeds"], "risks": ["the gain may be real"]}}
]}"##;

/// After a pass the search tries one more node (`[plan] after_pass = 1` in the demo): the
/// reflector's children of a passing plan. The first repeats the protocol over ten seeds
/// (a sturdier estimate of the same rule); the second moves to ten folds.
fn refinement(what: &str) -> String {
    format!(
        r##"{{"children": [
 {{"plan": "# Ten seeds\n\nKeep {what} and repeat the 5-fold cross-validation with seeds 0 to 9; report the mean, so one lucky split cannot carry the result.", "prior": {{"estimate": 0.6, "hypothesis": "one split may flatter the rule", "rationale": "folds of about 68 birds", "changes": ["ten seeds"], "risks": ["a lower mean"]}}}},
 {{"plan": "# Ten folds\n\nKeep {what} but score it with 10 folds, so each rule trains on 90 % of the birds.", "prior": {{"estimate": 0.4, "hypothesis": "more training rows help", "rationale": "the curve still rises", "changes": ["10 folds"], "risks": ["noisier folds"]}}}}
]}}"##
    )
}

/// The search's one attempt after a pass: the reflector expands the passing plan, then the
/// node the policy selects runs (`args`: that node's plan as code; for h-e1 it is the
/// flipper-length sibling left from the first expansion, which misses); the best node, not
/// the last, is the gate's result.
/// `next`: the step the controller names once the search settles (a stage, and the
/// sub-hypothesis the loop takes next).
fn refined(s: &mut Script, h: &str, what: &str, args: &[&str], next: (&str, Option<&str>)) {
    s.reply(
        "reflector",
        "coding_validation",
        Some(h),
        1,
        &refinement(what),
    );
    attempt(s, h, args, &controller_ok(next.0, next.1));
}

fn candidates(list: &[(&str, &str, &str, &str)]) -> String {
    let items: Vec<serde_json::Value> = list
        .iter()
        .map(|(category, description, evidence, fix)| {
            serde_json::json!({"description": description, "category": category, "evidence": evidence, "fix": fix})
        })
        .collect();
    serde_json::json!({ "candidates": items }).to_string()
}

fn severities(s: &[f64]) -> String {
    let scores: Vec<serde_json::Value> = s
        .iter()
        .enumerate()
        .map(|(i, v)| serde_json::json!({"candidate": i + 1, "severity": v}))
        .collect();
    serde_json::json!({ "scores": scores }).to_string()
}

fn e1_unscaled_causes() -> String {
    candidates(&[
        (
            "Method",
            "The centroid distance is unscaled: bill length (about 44 mm, spread 5.5) outweighs bill depth (about 17 mm, spread 2.0), so depth, which separates Gentoo, barely counts",
            "signature=saturation: the curve flattens near 0.88 from 20 % of the data on",
            "standardize both features on each training fold before computing centroids",
        ),
        (
            "Design",
            "Adelie and Chinstrap overlap in bill depth, so no bill-only rule can separate them well",
            "decay: early gains vanish, slope is flat",
            "add a third measurement to the claim",
        ),
        (
            "Method",
            "Five folds of about 68 birds make the accuracy estimate noisy",
            "volatility across the curve's steps",
            "repeat the cross-validation with several seeds",
        ),
    ])
}

fn e1_depth_causes() -> String {
    candidates(&[
        (
            "Method",
            "Bill depth alone cannot tell Adelie from Chinstrap: their depths overlap (means 18.3 and 18.4 mm); the length that separates them was dropped",
            "signature=saturation: the curve stays near 0.61 at every training share, slope near 0",
            "keep both bill measurements and standardize them on each training fold",
        ),
        (
            "Design",
            "The existence claim needs a second measurement beyond the bill",
            "slope near 0 over the curve",
            "add flipper length to the claim",
        ),
        (
            "Method",
            "The learning curve starts too small",
            "slope near 0",
            "report the curve from 40 % up",
        ),
    ])
}

fn m1_causes() -> String {
    candidates(&[
        (
            "Design",
            "The mechanism claim is framed wrongly: body mass carries size, which splits Adelie from Chinstrap where their bills overlap, so mass cannot be redundant and no change of method will make it so",
            "slope: the with-mass curve rises above the bill-only curve at every training share; gain 0.0323 with both arms standardized",
            "check the gain over repeated cross-validation seeds; if it holds, reframe the claim: body mass adds information beyond the bills",
        ),
        (
            "Method",
            "One seed of 5-fold cross-validation: a gain of 0.03 is about two birds per fold and may be split noise",
            "volatility across the curve's steps",
            "repeat the cross-validation over ten seeds",
        ),
        (
            "Method",
            "Body mass in grams is standardized with the bills but has outliers that pull its centroids",
            "volatility of the with-mass curve across its steps",
            "use a robust scale for mass",
        ),
    ])
}

fn m1_repeated_causes() -> String {
    candidates(&[
        (
            "Method",
            "The seeds cannot explain the miss: the gain is 0.0321 to 0.0352 over ten seeds",
            "volatility is low: `\"gain_min\": 0.0321` and `\"gain_max\": 0.0352` over ten seeds",
            "none: the gain is stable; the finding stands",
        ),
        (
            "Design",
            "The claim may need a different comparison",
            "slope unchanged from the first run",
            "compare per species pair",
        ),
        (
            "Method",
            "Ten folds might shrink the gain",
            "slope: the curve still rises at 100 %",
            "use 10 folds",
        ),
    ])
}

/// Experiment Design and Implementation Planning of one sub-hypothesis.
fn design(s: &mut Script, h: &str, what: &str, metric: &str, op: &str, value: f64) {
    s.reply(
        "executor",
        "experiment_design",
        Some(h),
        1,
        &brief(what, metric, op, value, CV),
    )
    .reply(
        "controller",
        "experiment_design",
        Some(h),
        1,
        &controller_ok("Implementation Planning", None),
    );
    s.reply("executor", "implementation_planning", Some(h), 1, TASKS)
        .reply(
            "controller",
            "implementation_planning",
            Some(h),
            1,
            &controller_ok("Coding & Validation", None),
        );
}

/// One Coding & Validation attempt whose experiment meets its gate; the search goes on
/// (the stage reopens), so the controller names Coding & Validation again.
fn passing(s: &mut Script, h: &str, args: &[&str]) {
    attempt(s, h, args, &controller_ok("Coding & Validation", None));
}

/// One Coding & Validation attempt whose experiment meets its gate, with the controller's
/// reply.
fn attempt(s: &mut Script, h: &str, args: &[&str], controller: &str) {
    s.reply(
        "executor",
        "coding_validation",
        Some(h),
        1,
        &code_reply("centroid.py", CENTROID_PY, args),
    )
    .reply("judge", "coding_validation", Some(h), 1, CONSISTENT)
    .reply("controller", "coding_validation", Some(h), 1, controller);
}

/// One attempt whose experiment misses its MUST_WORK gate, and the failure attribution:
/// the generator's candidates, the critic's severities, the clamp judge's verdict.
/// The Independent Controller's recovery choices (`[recovery] router = "controller"`, the
/// default): the same levels SAGE's table gives here, with the records they rest on, so the
/// demo reads the same under either router (`router = "table"` makes no such call).
const E1_ROUTE: &str = r#"{"level": "repair", "next_stage": "coding_validation", "cause": 1, "records": [], "reason": "the distance is unscaled, a method fault the same hypothesis can fix: standardize the features and run Coding & Validation again"}"#;
const E1_DEPTH_ROUTE: &str = r#"{"level": "repair", "next_stage": "coding_validation", "cause": 1, "records": ["failure_h-e1_run1"], "reason": "the method is still at fault and the first record's lesson (standardize) is untried; the hypothesis stands"}"#;
const M1_ROUTE: &str = r#"{"level": "redesign", "next_stage": "hypothesis_debate", "cause": 1, "records": [], "reason": "the measured gain contradicts the mechanism as framed (body mass is not redundant): a hypothesis-level fault for a new debate"}"#;
const M1_REPEATED_ROUTE: &str = r#"{"level": "proceed", "next_stage": "experiment_design", "cause": 1, "records": ["failure_h-m1_run1"], "reason": "ten seeds agree on the gain and the critic believes no cause: the refutation is a valid finding; record it and go on"}"#;

#[allow(clippy::too_many_arguments)]
fn failing(
    s: &mut Script,
    h: &str,
    args: &[&str],
    causes: &str,
    sev: &[f64],
    judge: &str,
    route: &str,
) {
    s.reply(
        "executor",
        "coding_validation",
        Some(h),
        1,
        &code_reply("centroid.py", CENTROID_PY, args),
    )
    .reply("judge", "coding_validation", Some(h), 1, CONSISTENT)
    .reply("generator", "coding_validation", Some(h), 1, causes)
    .reply("critic", "coding_validation", Some(h), 1, &severities(sev))
    .reply("judge", "coding_validation", Some(h), 1, judge)
    .reply("controller", "coding_validation", Some(h), 1, route);
}

fn review(reviewer: &str) -> String {
    match reviewer {
        "Bored Reviewer" => r#"{"findings": [{"severity": "MINOR", "section": "Limitations", "claim": "one seed", "problem": "a single seed is mentioned only at the end", "fix": "say it in the Method too"}]}"#.into(),
        _ => r#"{"findings": []}"#.into(),
    }
}

/// The paper's replies, given its parts: Evidence Check, the four drafting groups, the
/// three reviewers, and the final refinement.
fn paper(s: &mut Script, p: &Paper) {
    let (claims, assumptions) = p
        .evidence
        .split_once("## Assumptions\n")
        .unwrap_or((p.evidence, ""));
    let predictions: Vec<serde_json::Value> = p
        .verdicts
        .iter()
        .enumerate()
        .map(|(i, (verdict, why))| serde_json::json!({"id": format!("P{}", i + 1), "verdict": verdict, "explanation": why}))
        .collect();
    let evidence = serde_json::json!({
        "predictions": predictions,
        "mechanism_claims": claims.trim_start_matches("## Mechanism Claims\n").trim(),
        "assumptions": assumptions.trim(),
    });
    s.reply("executor", "evidence_check", None, 1, &evidence.to_string())
        .reply(
            "controller",
            "evidence_check",
            None,
            1,
            &controller_ok("Manuscript Drafting", None),
        );
    for part in [p.foundation, p.experiments, p.closure, p.abstract_] {
        s.reply("executor", "manuscript_drafting", None, 1, part);
    }
    s.reply(
        "controller",
        "manuscript_drafting",
        None,
        1,
        &controller_ok("Adversarial Fact Review", None),
    );
    for r in ["Accuracy Checker", "Bored Reviewer", "Skeptical Expert"] {
        s.reply("reviewer", "fact_review", None, 1, &review(r));
    }
    s.reply(
        "controller",
        "fact_review",
        None,
        1,
        &controller_ok("Manuscript Refinement", None),
    );
    let final_paper = format!(
        "# {}\n\n{}\n{}\n{}\n{}",
        p.title,
        p.abstract_,
        p.foundation.replace("(seed 0)", "(one seed, 0)"),
        p.experiments,
        p.closure
    );
    s.reply("executor", "manuscript_refinement", None, 1, &final_paper)
        .reply(
            "controller",
            "manuscript_refinement",
            None,
            1,
            &controller_ok("END", None),
        );
}

struct Paper {
    title: &'static str,
    /// Evidence Check's verdict and explanation for P1, P2 and P3.
    verdicts: [(&'static str, &'static str); 3],
    /// Its mechanism claims and assumptions (Markdown, `## Assumptions` between them).
    evidence: &'static str,
    foundation: &'static str,
    experiments: &'static str,
    closure: &'static str,
    abstract_: &'static str,
}

const FOUNDATION: &str = "## Introduction
Field surveys of penguins measure bills with calipers and weigh birds on a scale. We ask whether the bill
alone tells the three Palmer species apart, and whether body mass adds anything once the bill is known.

## Related Work
Gorman et al. (2014) collected the measurements [@gorman2014ecological]; Horst et al. (2020) released them as the
palmerpenguins data [@horst2020palmerpenguins]. A nearest-centroid rule is a close relative of Fisher's linear
discriminant [@fisher1936use]; shrunken centroids carried it to gene expression [@tibshirani2002diagnosis].

## Method
A nearest centroid classifier on standardized bill length and bill depth, fitted on four folds and scored by
accuracy on the fifth, with 5-fold cross-validation (seed 0). A learning curve refits on growing shares of the
training rows. The plan tree searched the method of the first sub-hypothesis: after the unscaled rule missed,
bill depth alone was tried and pruned, and standardized bills met the gate.
";

/// The paper when the failed redundancy claim stands (the pivot overridden with Proceed).
const KEPT: Paper = Paper {
    title: "Bills alone separate Palmer penguin species; body mass is not redundant",
    verdicts: [
        ("supported", "h-e1 met its MUST_WORK gate: standardized bills reach an accuracy of 0.9356."),
        ("refuted", "h-m1 missed its MUST_WORK gate: body mass adds 0.0323, above the 0.02 allowed; the researcher kept this negative result."),
        ("supported", "h-c1 met its SHOULD_WORK gate: the lowest accuracy within a sex is 0.9638."),
    ],
    evidence: "## Mechanism Claims
The bill signature carries the species: once length and depth are put on one scale, the centroid rule reaches
the existence gate. The per-sex condition holds. Body mass is not redundant: it adds more than the 0.02 the
hypothesis allowed, so the mechanism claim that bills carry *all* the species signal is refuted; the researcher
kept this negative result instead of redesigning the hypothesis.

## Assumptions
- Rows with missing measurements are missing at random: not tested (2 of 344 rows dropped).
- One species signature across islands: not tested; islands were not used.
",
    foundation: FOUNDATION,
    experiments: concat!(
        "## Experiments
Three experiments ran on penguins.csv in the sandbox: bills alone (h-e1), bills plus body mass (h-m1), and
bills alone within each sex (h-c1). The failure analysis of h-e1 traced its miss to the unscaled distance.

## Results

| Sub-hypothesis | Metric | Value | Gate |
|---|---|---|---|
",
        "| h-e1 (unscaled, first run) | accuracy | 0.8832 | missed |
| h-e1 (bill depth alone, pruned) | accuracy | 0.6137 | missed |
| h-e1 (standardized) | accuracy | 0.9356 | met |
| h-e1 (flipper length, tried after the pass) | accuracy | 0.7746 | missed |",
        "
| h-m1 | gain from body mass | 0.0323 | missed |
| h-c1 | lowest accuracy within a sex | 0.9638 | met |
"
    ),
    closure: "## Discussion
Bills separate the species once their two measurements share a scale; the unscaled rule is a method error, not
a refutation. Body mass still adds a little, so the redundancy claim fails.

## Limitations
One data set, one simple classifier, one seed; islands were not examined.

## Conclusion
Calipers alone give a strong species rule; a scale still helps.
",
    abstract_: "## Abstract
On the Palmer penguins, a nearest-centroid rule on standardized bill length and depth classifies the three
species with cross-validated accuracy above the 0.92 target, and keeps its accuracy within each sex. Body mass
adds more than the 0.02 we allowed, so it is not redundant.
",
};

/// The paper after the pivot was rejected: the method was checked first (ten seeds).
const CHECKED: Paper = Paper {
    title: "Bills alone separate Palmer penguin species; body mass adds a stable three points",
    verdicts: [
        ("supported", "h-e1 met its MUST_WORK gate: standardized bills reach an accuracy of 0.9356."),
        ("refuted", "h-m1 missed its MUST_WORK gate twice: body mass adds 0.0342 on average over ten seeds, above the 0.02 allowed."),
        ("supported", "h-c1 met its SHOULD_WORK gate: the lowest accuracy within a sex is 0.9638."),
    ],
    evidence: "## Mechanism Claims
The bill signature carries the species once length and depth share a scale. The per-sex condition holds. The
redundancy of body mass is refuted, and not by a lucky split: over ten seeds of cross-validation its gain stays
above the 0.02 the hypothesis allowed.

## Assumptions
- Rows with missing measurements are missing at random: not tested (2 of 344 rows dropped).
- One species signature across islands: not tested; islands were not used.
",
    foundation: FOUNDATION,
    experiments: concat!(
        "## Experiments
Four experiments ran on penguins.csv in the sandbox. When body mass missed its gate, the proposed redesign was
rejected and the method checked instead: the cross-validation was repeated over ten seeds.

## Results

| Sub-hypothesis | Metric | Value | Gate |
|---|---|---|---|
",
        "| h-e1 (unscaled, first run) | accuracy | 0.8832 | missed |
| h-e1 (bill depth alone, pruned) | accuracy | 0.6137 | missed |
| h-e1 (standardized) | accuracy | 0.9356 | met |
| h-e1 (flipper length, tried after the pass) | accuracy | 0.7746 | missed |",
        "
| h-m1 (one seed) | gain from body mass | 0.0323 | missed |
| h-m1 (mean of ten seeds) | gain from body mass | 0.0342 | missed |
| h-c1 | lowest accuracy within a sex | 0.9638 | met |
"
    ),
    closure: "## Discussion
Bills separate the species once their two measurements share a scale. The gain of h-m1 from body mass lies
between 0.0321 and 0.0352 over ten seeds, so the redundancy claim fails for a reason, not by chance.

## Limitations
One data set, one simple classifier; islands were not examined.

## Conclusion
Calipers alone give a strong species rule; a scale still helps, by about three points.
",
    abstract_: "## Abstract
On the Palmer penguins, a nearest-centroid rule on standardized bill length and depth classifies the three
species with cross-validated accuracy above the 0.92 target, and keeps it within each sex. Body mass adds a
stable gain over ten seeds of cross-validation, so it is not redundant.
",
};

/// The paper after the approved pivot: the redesigned hypothesis (mass adds information),
/// stated after the redesign and measured once, so none of its claims is confirmed (issue 40
/// item 5: the gates are INCONCLUSIVE, the paper says so and marks them exploratory).
const REDESIGNED: Paper = Paper {
    title: "Bills classify Palmer penguin species; what body mass adds is not yet confirmed",
    verdicts: [
        ("inconclusive", "h-e2 was stated after the redesign and measured once (accuracy 0.9356): one measurement cannot show it differs from the one that prompted the redesign."),
        ("inconclusive", "h-m2 was stated after the redesign and measured once (gain 0.0323): the same split that prompted the redesign, so it is no confirmation."),
        ("inconclusive", "h-c2 was stated after the redesign and measured once (lowest accuracy within a sex 0.9638): exploratory, not confirmed."),
    ],
    evidence: "## Mechanism Claims
After the redesign, the claims were stated knowing what the first measurements said and were measured once: the
bills may carry most of the species signal once put on one scale, and body mass may add what they miss, but no
claim is confirmed. A pre-registered measurement on fresh seeds would decide them.

## Assumptions
- Rows with missing measurements are missing at random: not tested (2 of 344 rows dropped).
- One species signature across islands: not tested; islands were not used.
",
    foundation: "## Introduction
Field surveys of penguins measure bills with calipers and weigh birds on a scale. A first hypothesis, that body
mass is redundant once the bill is known, failed its gate and was redesigned: we now ask what mass adds, knowing
that the answer was suggested by the measurement that failed the first.

## Related Work
Gorman et al. (2014) collected the measurements [@gorman2014ecological]; Horst et al. (2020) released them as the
palmerpenguins data [@horst2020palmerpenguins]. A nearest-centroid rule is a close relative of Fisher's linear
discriminant [@fisher1936use]; shrunken centroids carried it to gene expression [@tibshirani2002diagnosis].

## Method
A nearest centroid classifier on standardized bill length and bill depth, with and without body mass, fitted on
four folds and scored by accuracy on the fifth, with 5-fold cross-validation (seed 0).
",
    experiments: "## Experiments
Three experiments ran on penguins.csv in the sandbox after the redesign: bills alone (h-e2), bills plus body mass
(h-m2), and bills alone within each sex (h-c2). The work on the first hypothesis is archived.

## Results

| Sub-hypothesis | Metric | Value | Gate |
|---|---|---|---|
| h-e2 | accuracy | 0.9356 | inconclusive (post hoc) |
| h-m2 | gain from body mass | 0.0323 | inconclusive (post hoc) |
| h-c2 | lowest accuracy within a sex | 0.9638 | inconclusive (post hoc) |
",
    closure: "## Discussion
Bills separate the species once their two measurements share a scale, and body mass appears to add what they
miss; but each of these claims was stated after the redesign and measured once on the split that prompted it, so
the run reports them as exploratory rather than confirmed.

## Limitations
One data set, one simple classifier, one seed; the redesigned claims are post hoc; islands were not examined.

## Conclusion
Calipers give a strong species rule; whether body mass adds to it needs a measurement on fresh seeds.
",
    abstract_: "## Abstract
On the Palmer penguins, a nearest-centroid rule on standardized bill length and depth classifies the three
species well; after a failed redundancy claim, the redesigned claims that body mass adds to the bills are
exploratory: stated after the redesign and measured once, none is confirmed.
",
};

/// The debate: Gap Selection, then six exchanges until the moderator finds every criterion
/// settled.
fn debate(s: &mut Script, gap: &str, turns: &[(&str, &str)], synthesis: &str, refinement: &str) {
    s.reply("executor", "hypothesis_debate", None, 1, gap);
    let personas: Vec<&str> = turns.iter().map(|(p, _)| *p).collect();
    for (i, (_, text)) in turns.iter().enumerate() {
        let met = i >= 4;
        let m = serde_json::json!({"criteria": {"SPECIFIC": i >= 1, "MECHANISM": i >= 4, "PREDICTIONS": i >= 1, "NOVELTY": i >= 2, "FEASIBILITY": i >= 3, "OBJECTIONS": met && i >= 5}, "next_persona": personas[i], "reason": format!("{} has not spoken yet", personas[i])});
        s.reply("controller", "hypothesis_debate", None, 1, &m.to_string());
        s.reply("persona", "hypothesis_debate", None, 1, text);
    }
    let all = serde_json::json!({"criteria": {"SPECIFIC": true, "MECHANISM": true, "PREDICTIONS": true, "NOVELTY": true, "FEASIBILITY": true, "OBJECTIONS": true}, "next_persona": "novelty", "reason": "all six criteria are settled"});
    s.reply("controller", "hypothesis_debate", None, 1, &all.to_string());
    s.reply("executor", "hypothesis_debate", None, 1, synthesis)
        .reply("executor", "hypothesis_debate", None, 1, refinement)
        .reply(
            "controller",
            "hypothesis_debate",
            None,
            1,
            &controller_ok("Verification Planning", None),
        );
}

const PIVOT_TURNS: [(&str, &str); 6] = [
    (
        "novelty",
        "The archived claim said mass is redundant; the data said it adds three points. The new question is what mass adds.\nProposal: claim that body mass adds at least 0.02.",
    ),
    (
        "falsifiability",
        "Keep the numbers: bills ≥ 0.92, a mass gain ≥ 0.02, refuted below 0.01.\nProposal: state the thresholds in the gates.",
    ),
    (
        "impact",
        "Telling teams that the scale matters is as useful as telling them it does not.\nProposal: keep the per-sex check.",
    ),
    (
        "feasibility",
        "The same code and data answer it in seconds.\nProposal: reuse the standardized rule.",
    ),
    (
        "strengthening",
        "Mechanism: size splits Adelie from Chinstrap, whose bills overlap in depth.\nProposal: name the species pair.",
    ),
    (
        "stress_testing",
        "Make sure the gain is not the scale artefact again: both arms standardized.\nProposal: standardize both arms.",
    ),
];

const PIVOT_SYNTHESIS: &str = r#"{"hypothesis": "Standardized bill length and depth classify the three Palmer penguin species at ≥ 0.92 with a nearest-centroid rule, and body mass adds at least 0.02 by splitting Adelie from Chinstrap.", "mechanism": "Bill shape carries most of the species signal; size separates the two species whose bills overlap.", "predictions": ["accuracy >= 0.92 on standardized bills", "gain from body mass >= 0.02", "accuracy >= 0.9 within each sex"], "agreements": ["both arms standardized"], "open_objections": [], "novelty": "What body mass adds once the bill is known."}"#;

const PIVOT_REFINEMENT: &str = r#"{"main_hypothesis": {"id": "H-Bills-v2", "title": "Bills classify penguin species and body mass adds what they miss", "statement": "Body mass splits Adelie from Chinstrap where their bills overlap: weighing the birds lifts the species rule by at least 0.02 over standardized bill measurements alone, which already reach 0.92."}, "predictions": ["accuracy >= 0.92", "gain >= 0.02", "min accuracy within sex >= 0.9"], "falsification": "Accuracy below 0.88 on standardized bills, or a body-mass gain below 0.01.", "assumptions": ["rows with missing measurements are missing at random"]}"#;

const PIVOT_PLAN: &str = r#"{"sub_hypotheses": [
 {"id": "h-e2", "type": "EXISTENCE", "statement": "A nearest-centroid rule on standardized bill length and depth reaches at least 0.92 accuracy in 5-fold cross-validation.", "gate": {"type": "MUST_WORK", "criterion": "accuracy >= 0.92"}, "prerequisites": [], "predictions": ["P1"]},
 {"id": "h-m2", "type": "MECHANISM", "statement": "Adding body mass to standardized bill length and depth raises accuracy by at least 0.02.", "gate": {"type": "MUST_WORK", "criterion": "gain >= 0.02"}, "prerequisites": ["h-e2"], "predictions": ["P2"]},
 {"id": "h-c2", "type": "CONDITION", "statement": "The bill-only rule keeps at least 0.9 accuracy within each sex.", "gate": {"type": "SHOULD_WORK", "criterion": "min_group_accuracy >= 0.9"}, "prerequisites": ["h-e2"], "predictions": ["P3"]}
], "rationale": "The redesign keeps the existence and the condition, and turns the refuted redundancy into the prediction that mass adds information."}"#;

/// The study up to h-m1's escalation: scoping, literature, the debate, the plan, h-e1's
/// plan-tree search (the unscaled root misses, bill depth alone is pruned, standardized
/// bills pass) and h-m1's miss, whose attribution proposes a Pivot that waits.
fn until_the_escalation(s: &mut Script) {
    s.reply("executor", "problem_scoping", None, 1, SCOPING)
        .reply(
            "controller",
            "problem_scoping",
            None,
            1,
            &controller_ok("Literature Grounding", None),
        );
    s.reply("executor", "literature_grounding", None, 1, LITERATURE)
        .reply(
            "controller",
            "literature_grounding",
            None,
            1,
            &controller_ok("Hypothesis Debate", None),
        );
    debate(s, GAP, &TURNS, SYNTHESIS, REFINEMENT);
    s.reply("executor", "verification_planning", None, 1, PLAN)
        .reply(
            "controller",
            "verification_planning",
            None,
            1,
            &controller_ok("Experiment Design", Some("h-e1")),
        );
    let accuracy = "accuracy: the share of held-out birds whose species the rule gets right.";
    design(s, "h-e1", accuracy, "accuracy", ">=", 0.92);
    failing(
        s,
        "h-e1",
        &[],
        &e1_unscaled_causes(),
        &[0.72, 0.2, 0.1],
        &verdict("Valid", 0.55),
        E1_ROUTE,
    );
    s.round(1).reply(
        "reflector",
        "coding_validation",
        Some("h-e1"),
        1,
        E1_EXPANSION,
    );
    failing(
        s,
        "h-e1",
        &["--features", "bill_depth_mm"],
        &e1_depth_causes(),
        &[0.66, 0.2, 0.1],
        &verdict("Valid", 0.7),
        E1_DEPTH_ROUTE,
    );
    s.round(2);
    passing(s, "h-e1", &["--standardize"]);
    s.round(3);
    refined(
        s,
        "h-e1",
        "the standardized bill features",
        &["--features", "flipper_length_mm,bill_depth_mm"],
        ("Experiment Design", Some("h-m1")),
    );
    s.round(0);
    design(
        s,
        "h-m1",
        "gain: accuracy with body mass added minus accuracy with bills alone (both standardized).",
        "gain",
        "<=",
        0.02,
    );
    failing(
        s,
        "h-m1",
        &["--standardize", "--compare", "body_mass_g"],
        &m1_causes(),
        &[0.62, 0.35, 0.1],
        &verdict("Valid", 0.55),
        M1_ROUTE,
    );
}

/// h-c1's design, its passing root and one node after the pass; `after` is the code of the
/// node the policy chooses in this branch's tree (the trees differ after a reject and after an
/// override, and so do the seeded draws).
fn h_c1(s: &mut Script, after: &[&str]) {
    design(
        s,
        "h-c1",
        "min_group_accuracy: the lower of the two within-sex accuracies.",
        "min_group_accuracy",
        ">=",
        0.9,
    );
    passing(s, "h-c1", &["--standardize", "--by", "sex"]);
    s.round(1);
    refined(
        s,
        "h-c1",
        "the standardized bill rule within each sex",
        after,
        ("Evidence Check", None),
    );
    s.round(0);
}

/// The whole demo: the study to the escalation, then a recorded continuation for each
/// answer — reject (the waiting policy's default: Method-Refine under the plan tree, ten
/// seeds, the failure stands), override with Proceed (the negative result is kept), and
/// approve (the Pivot: archived, debated again, a redesigned hypothesis that passes).
pub fn script() -> Script {
    let mut s = Script::counted();
    until_the_escalation(&mut s);
    // Rejected: δ(Pivot) = Method-Refine, so Coding & Validation of h-m1 again.
    s.after("Method-Refine").round(1).reply(
        "reflector",
        "coding_validation",
        Some("h-m1"),
        1,
        M1_EXPANSION,
    );
    failing(
        &mut s,
        "h-m1",
        &[
            "--standardize",
            "--compare",
            "body_mass_g",
            "--repeats",
            "10",
        ],
        &m1_repeated_causes(),
        &[0.1, 0.08, 0.05],
        &verdict("Valid", 0.8),
        M1_REPEATED_ROUTE,
    );
    s.round(0);
    h_c1(&mut s, &["--standardize", "--by", "sex", "--folds", "10"]);
    paper(&mut s, &CHECKED);
    // Overridden with Proceed: the failure stands as the finding.
    s.after("Proceed").round(0);
    h_c1(&mut s, &["--standardize", "--by", "sex", "--repeats", "10"]);
    paper(&mut s, &KEPT);
    // Approved: the Pivot archives the work from the debate on and debates again.
    s.after("Pivot").round(1);
    debate(
        &mut s,
        PIVOT_GAP,
        &PIVOT_TURNS,
        PIVOT_SYNTHESIS,
        PIVOT_REFINEMENT,
    );
    s.reply("executor", "verification_planning", None, 1, PIVOT_PLAN)
        .reply(
            "controller",
            "verification_planning",
            None,
            1,
            &controller_ok("Experiment Design", Some("h-e2")),
        );
    // A regenerated sub-hypothesis counts the redesign in its round (progress::round).
    s.round(1000);
    let accuracy = "accuracy: the share of held-out birds whose species the rule gets right.";
    design(&mut s, "h-e2", accuracy, "accuracy", ">=", 0.92);
    passing(&mut s, "h-e2", &["--standardize"]);
    s.round(1001);
    refined(
        &mut s,
        "h-e2",
        "the standardized bill features",
        &["--standardize", "--repeats", "10"],
        ("Experiment Design", Some("h-m2")),
    );
    s.round(1000);
    design(
        &mut s,
        "h-m2",
        "gain: accuracy with body mass added minus accuracy with bills alone (both standardized).",
        "gain",
        ">=",
        0.02,
    );
    passing(
        &mut s,
        "h-m2",
        &["--standardize", "--compare", "body_mass_g"],
    );
    s.round(1001);
    refined(
        &mut s,
        "h-m2",
        "the standardized comparison with body mass",
        &["--standardize", "--compare", "body_mass_g", "--folds", "10"],
        ("Experiment Design", Some("h-c2")),
    );
    s.round(1000);
    design(
        &mut s,
        "h-c2",
        "min_group_accuracy: the lower of the two within-sex accuracies.",
        "min_group_accuracy",
        ">=",
        0.9,
    );
    passing(&mut s, "h-c2", &["--standardize", "--by", "sex"]);
    s.round(1001);
    refined(
        &mut s,
        "h-c2",
        "the standardized bill rule within each sex",
        &["--standardize", "--by", "sex", "--repeats", "10"],
        ("Evidence Check", None),
    );
    s.round(1);
    paper(&mut s, &REDESIGNED);
    s
}
