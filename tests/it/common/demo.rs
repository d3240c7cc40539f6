//! The offline demo's recorded exchanges: a small, honest study of the Palmer penguins
//! (assets/demo/data/penguins.csv, CC0). The bundle in assets/demo/replay.jsonl is generated
//! from this file (`YOURA_UPDATE_DEMO=1 cargo test --test it demo::`), and a test keeps the two equal.
#![allow(dead_code)]

use super::script::{CENTROID_PY, Script, code_reply, verdict};

const SCOPING: &str = "## Research Question
Can a nearest-centroid classifier on the three caliper measurements (bill length, bill depth and flipper
length) tell the three Palmer penguin species (Adelie, Chinstrap, Gentoo) apart with at least 93 %
cross-validated accuracy, and is it the bill that carries the species signal?

## Motivation
Calipers and a ruler are quick in the field; every extra measurement is another minute with a restless bird.
If the bill alone carries the signal, surveys can skip the flipper too.

## Scope
In: the 344 penguins of the Palmer Archipelago data (Gorman et al. 2014), bill length and depth, flipper
length, sex as a condition, a classifier simple enough to explain (nearest centroid), 5-fold cross-validation
repeated over five seeds, a majority-class and a linear-discriminant baseline on the same folds.
Out: deep models, images, other colonies. Compute: one CPU, seconds per experiment.

## Success Criteria
Accuracy ≥ 0.93 on held-out folds for the three caliper measurements, decided on its 95 % interval; a
flipper-length gain of at most 0.01 over the bill alone for the claim that the bill carries the signal.
";

const LITERATURE: &str = "## Related Work
Gorman, Williams and Fraser (2014) measured the three species across three islands and described the sexual
dimorphism in bill and body size. Horst, Hill and Gorman (2020) released the measurements as the
palmerpenguins data set for teaching classification. Bill depth is known to separate Gentoo from the others;
bill length separates Adelie from Chinstrap. Fisher's linear discriminant is the standard rule for such
measurements.

## Gaps
1. How far the caliper measurements go without any learned model.
2. Whether flipper length, a measure of body size, adds anything once bill length and depth are known.
3. Whether a caliper classifier holds within each sex, given the dimorphism.

## Sources
- [@gorman2014ecological] Gorman, Williams and Fraser (2014), PLoS ONE: the measurements.
- [@horst2020palmerpenguins] Horst, Hill and Gorman (2020): the palmerpenguins data package.
- [@fisher1936use] Fisher (1936): linear discriminants.
- [@tibshirani2002diagnosis] Tibshirani et al. (2002): nearest shrunken centroids.
";

/// Gap Selection before the first debate: the caliper gap, the one the data answers first.
const GAP: &str = r#"{"gap": 1, "evidence": ["Bill depth is known to separate Gentoo from the others; bill length separates Adelie from Chinstrap.", "Horst, Hill and Gorman (2020) released the measurements for teaching classification [@horst2020palmerpenguins]."], "rationale": "The species signal in the calipers is documented but never measured without a learned model; flipper length (gap 2) is tested as the redundancy a bill-first mechanism implies."}"#;

/// Gap Selection on the re-entry after the redesign: the memory records that flipper length
/// was not redundant, so the debate turns to what body size adds.
const PIVOT_GAP: &str = r#"{"gap": 2, "evidence": ["Gorman, Williams and Fraser (2014) described the sexual dimorphism in bill and body size [@gorman2014ecological].", "This run's failure record: flipper length added 0.0369 over standardized bills (95% CI 0.0158 to 0.0579 over five seeds), above the 0.01 the bill-first claim allowed."], "rationale": "The refuted bill-first claim leaves gap 2 open in the other direction: what body size adds once the bill is known."}"#;

const TURNS: [(&str, &str); 6] = [
    (
        "novelty",
        "Species separation from measurements is textbook; the new part is the claim that a *centroid* rule on three caliper numbers is enough, and the test of whether the bill alone carries the signal.\nProposal: claim the three caliper measurements suffice for ≥ 0.93 accuracy with a nearest-centroid rule.",
    ),
    (
        "falsifiability",
        "Put numbers on it: 5-fold cross-validated accuracy ≥ 0.93, decided on its interval over five seeds; refuted below 0.90. For the bill, a flipper-length gain above 0.01 refutes it.\nProposal: state both thresholds in the gate criteria.",
    ),
    (
        "impact",
        "Field teams measure flippers because they doubt the bill; a clean result on flipper length would change practice.\nProposal: report the flipper gain as its own sub-hypothesis.",
    ),
    (
        "feasibility",
        "342 complete rows, standard library only, seconds per run even over five seeds. A per-sex check is cheap too.\nProposal: add a per-sex condition as a SHOULD_WORK sub-hypothesis.",
    ),
    (
        "strengthening",
        "The mechanism is niche separation: Gentoo bills are long and shallow, Adelie short and deep, Chinstrap long and deep. Say so, and predict the confusions (Adelie vs Chinstrap).\nProposal: name the mechanism and the expected confusion pair.",
    ),
    (
        "stress_testing",
        "A centroid rule is scale-sensitive: flipper length (about 201 mm, spread 14) is not on the scale of bill depth (spread 2). If the raw rule fails, that is a method problem, not a refutation. And a rule is only worth its baselines: run the majority class and Fisher's discriminant on the same folds.\nProposal: keep scaling in mind when judging a failure, and name both baselines.",
    ),
];

const SYNTHESIS: &str = r#"{"hypothesis": "Bill length, bill depth and flipper length classify the three Palmer penguin species with a nearest-centroid rule at ≥ 0.93 cross-validated accuracy; the bill carries the signal, so flipper length adds at most 0.01 to bill length and depth.", "mechanism": "Dietary niche separation shaped bills: Gentoo long and shallow, Adelie short and deep, Chinstrap long and deep.", "predictions": ["accuracy >= 0.93 on the three caliper measurements", "gain from flipper length <= 0.01", "accuracy >= 0.9 within each sex"], "agreements": ["5-fold cross-validation over five seeds", "majority-class and linear-discriminant baselines", "a per-sex check"], "open_objections": ["scale sensitivity of the centroid rule"], "novelty": "A model-free test of whether the bill alone carries the species signal."}"#;

const REFINEMENT: &str = r#"{"main_hypothesis": {"id": "H-Bills-v1", "title": "Calipers separate Palmer penguin species, and the bill carries the signal", "statement": "A nearest-centroid rule on bill length, bill depth and flipper length classifies Adelie, Chinstrap and Gentoo penguins with at least 0.93 cross-validated accuracy, and adding flipper length to the bill raises accuracy by at most 0.01."}, "predictions": ["accuracy >= 0.93", "gain <= 0.01", "min accuracy within sex >= 0.9"], "falsification": "Accuracy below 0.90 on the three measurements, or a flipper-length gain above 0.01.", "assumptions": ["rows with missing measurements are missing at random", "the three islands share one species signature"]}"#;

const PLAN: &str = r#"{"sub_hypotheses": [
 {"id": "h-e1", "type": "EXISTENCE", "statement": "A nearest-centroid rule on bill length, bill depth and flipper length reaches at least 0.93 accuracy in 5-fold cross-validation.", "gate": {"type": "MUST_WORK", "criterion": "accuracy >= 0.93"}, "prerequisites": [], "predictions": ["P1"]},
 {"id": "h-m1", "type": "MECHANISM", "statement": "Adding flipper length to bill length and depth raises accuracy by at most 0.01: the bill carries the species signal.", "gate": {"type": "MUST_WORK", "criterion": "gain <= 0.01"}, "prerequisites": ["h-e1"], "predictions": ["P2"]},
 {"id": "h-c1", "type": "CONDITION", "statement": "The caliper rule keeps at least 0.9 accuracy within each sex.", "gate": {"type": "SHOULD_WORK", "criterion": "min_group_accuracy >= 0.9"}, "prerequisites": ["h-e1"], "predictions": ["P3"]}
], "rationale": "Existence first (do the calipers suffice), then the mechanism (the bill carries the signal, so flipper length is redundant), then the condition the dimorphism raises."}"#;

fn brief(what: &str, metric: &str, op: &str, value: f64, procedure: &str) -> String {
    format!(
        "## Dataset\nPalmer penguins (data/penguins.csv, 344 rows, 342 with the caliper measurements; CC0).\n\n## Model\nNearest centroid: each species is the mean of its training rows; a bird gets the species of the closest mean (Euclidean).\n\n## Metrics\n{what}\n\n## Gate Criteria\n```yaml\ncriteria:\n  - metric: {metric}\n    op: \"{op}\"\n    value: {value}\n```\n\n## Baselines\n- `accuracy_majority`: the majority class of the training folds\n- `accuracy_lda`: Fisher's linear discriminant on the same measurements and folds\n\n## Procedure\n{procedure}\n"
    )
}

const TASKS: &str = r##"{"tasks": [{"id": "T1", "title": "Load and clean the table", "spec_section": "Dataset", "description": "read data/penguins.csv, drop rows with NA in the used columns", "test_first": false}, {"id": "T2", "title": "Nearest-centroid classifier and baselines", "spec_section": "Model", "description": "fit means per species on training rows; the majority class and a linear discriminant on the same rows", "test_first": false}, {"id": "T3", "title": "Cross-validation over the seeds", "spec_section": "Procedure", "description": "5 folds for every seed in YOURA_SEEDS; learning curve at 20..100 % of the training rows for the first seed", "test_first": false}, {"id": "T4", "title": "Report the repeats", "spec_section": "Metrics", "description": "stream the curve to YOURA_METRICS_FILE, one row per seed and fold to experiment_results.json", "test_first": false}], "prd": "# PRD\nMeasure the gate metric and its baselines honestly from the CSV, once per seed and fold.", "architecture": "# Architecture\n`centroid.py`: load, fit, cross-validate, report.", "logic": "# Logic\nFor each seed: shuffle, split into 5 folds, fit centroids on 4, score the 5th, with both baselines on the same fold.", "config": "# Config\nfolds: 5, seeds: YOURA_SEEDS"}"##;

/// The controller's PHASE_COMPLETE, naming the step that follows (`next_stage`, and where
/// a hypothesis loop opens, `next_hypothesis`): the demo's controller keeps the lifecycle's
/// order, and each choice is bounded by the steps the engine offered it.
pub(crate) fn controller_ok(next_stage: &str, next_hypothesis: Option<&str>) -> String {
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
pub(crate) const CONSISTENT: &str = r#"{"consistent": true, "findings": []}"#;
const CV: &str = "5-fold cross-validation on every seed youra gives (five to start), the baselines on the same folds, with a learning curve over 20, 40, 60, 80 and 100 % of each training fold of the first seed.";

/// The three caliper measurements of h-e1's claim.
const CALIPERS: &str = "bill_length_mm,bill_depth_mm,flipper_length_mm";

/// The plan tree's expansion of h-e1's first plan after the unscaled run missed its gate:
/// three substantively different children, with the reflector's (fallible) priors.
const E1_EXPANSION: &str = r##"{"children": [
 {"plan": "# Bill depth alone\n\nDrop the two long measurements, whose millimetres swamp the distance, and classify on bill depth alone, which separates Gentoo; keep the protocol.", "prior": {"estimate": 0.6, "hypothesis": "the long measurements only add scale noise", "rationale": "depth carries the Gentoo split", "changes": ["one feature"], "risks": ["Adelie and Chinstrap overlap in depth"]}},
 {"plan": "# Standardize the features\n\nPut the three measurements on one scale (z-scores fitted on each training fold) before computing the centroids; keep the protocol.", "prior": {"estimate": 0.55, "hypothesis": "scale is the problem", "rationale": "the flat curve", "changes": ["z-scores"], "risks": ["none"]}},
 {"plan": "# Flipper length and bill depth\n\nDrop bill length and classify on standardized flipper length and bill depth, one size and one shape measure.", "prior": {"estimate": 0.3, "hypothesis": "size and depth separate better than length", "rationale": "Gentoo are larger", "changes": ["a feature"], "risks": ["changes the claim"]}}
]}"##;

/// The expansion of h-m1's plan after its gain missed (the continuation of a rejected pivot).
const M1_EXPANSION: &str = r##"{"children": [
 {"plan": "# Ten folds\n\nUse 10 folds instead of 5, so each classifier trains on more birds and the gain is measured on smaller, more numerous test folds.", "prior": {"estimate": 0.45, "hypothesis": "more training rows shrink the gain", "rationale": "the bill-only curve still moves at 100 %", "changes": ["10 folds"], "risks": ["noisier folds"]}},
 {"plan": "# Three folds\n\nUse 3 folds, so each test fold holds a third of the birds and the gain is measured on larger test folds.", "prior": {"estimate": 0.2, "hypothesis": "small test folds inflate the gain", "rationale": "folds of about 68 birds", "changes": ["3 folds"], "risks": ["less training data per rule"]}}
]}"##;

/// After a pass the search tries one more node (`[plan] after_pass = 1` in the demo): the
/// reflector's children of a passing plan, the same rule scored with 10 folds or with 3.
fn refinement(what: &str) -> String {
    format!(
        r##"{{"children": [
 {{"plan": "# Ten folds\n\nKeep {what} but score it with 10 folds, so each rule trains on 90 % of the birds.", "prior": {{"estimate": 0.6, "hypothesis": "more training rows help", "rationale": "the curve still moves at 100 %", "changes": ["10 folds"], "risks": ["noisier folds"]}}}},
 {{"plan": "# Three folds\n\nKeep {what} but score it with 3 folds, so each test fold holds a third of the birds.", "prior": {{"estimate": 0.4, "hypothesis": "larger test folds give a steadier score", "rationale": "folds of about 68 birds", "changes": ["3 folds"], "risks": ["less training data per rule"]}}}}
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
    // The search settles: the chosen node runs again on fresh seeds (the confirmation run),
    // and its output is checked for fabrication like any run.
    s.reply("judge", "coding_validation", Some(h), 1, CONSISTENT);
}

pub(crate) fn candidates(list: &[(&str, &str, &str, &str)]) -> String {
    let items: Vec<serde_json::Value> = list
        .iter()
        .map(|(category, description, evidence, fix)| {
            serde_json::json!({"description": description, "category": category, "evidence": evidence, "fix": fix})
        })
        .collect();
    serde_json::json!({ "candidates": items }).to_string()
}

pub(crate) fn severities(s: &[f64]) -> String {
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
            "The centroid distance is unscaled: flipper length (about 201 mm, spread 14) outweighs bill depth (about 17 mm, spread 2.0), so depth, which separates Gentoo, barely counts",
            "signature=saturation: the curve stays near 0.89 from 20 % of the data on",
            "standardize the three features on each training fold before computing centroids",
        ),
        (
            "Design",
            "Adelie and Chinstrap overlap in bill depth and flipper length, so no caliper rule can separate them well",
            "decay: early gains vanish, slope is flat",
            "add body mass to the claim",
        ),
        (
            "Method",
            "Five folds of about 68 birds make each fold's accuracy noisy",
            "volatility across the curve's steps",
            "score the rule with more folds",
        ),
    ])
}

fn e1_depth_causes() -> String {
    candidates(&[
        (
            "Method",
            "Bill depth alone cannot tell Adelie from Chinstrap: their depths overlap (means 18.3 and 18.4 mm); the length that separates them was dropped",
            "signature=saturation: the curve stays near 0.62 at every training share, slope near 0",
            "keep the three measurements and standardize them on each training fold",
        ),
        (
            "Design",
            "The existence claim needs a measurement beyond the calipers",
            "slope near 0 over the curve",
            "add body mass to the claim",
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
            "The mechanism claim is framed wrongly: flipper length carries body size, which splits Adelie from Chinstrap where their bills overlap, so it cannot be redundant and no change of method will make it so",
            "slope: the with-flipper curve lies above the bill-only curve at every training share; the gain's interval over five seeds lies above 0.01",
            "reframe the claim: flipper length adds information beyond the bills",
        ),
        (
            "Method",
            "Five folds of about 68 birds: each fold's gain is two or three birds and may vary with the split",
            "volatility across the curve's steps",
            "score the gain with more folds",
        ),
        (
            "Method",
            "Flipper length is standardized with the bills but differs by sex, which may pull its centroids",
            "volatility of the with-flipper curve across its steps",
            "standardize within each sex",
        ),
    ])
}

fn m1_repeated_causes() -> String {
    candidates(&[
        (
            "Method",
            "The folds cannot explain the miss: scored with ten folds over five seeds, the gain's interval still lies above 0.01",
            "volatility is low: the with-flipper curve stays above the bill-only curve at every share",
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
            "Three folds might shrink the gain",
            "slope: the curve still moves at 100 %",
            "use 3 folds",
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
    // The search opens: the reflector drafts its first plan from the brief (`[plan]
    // root_plan = "reflector"`).
    s.reply("reflector", "coding_validation", Some(h), 1, &root_plan(h));
}

/// The reflector's first plan of `h`'s search: what the brief leaves open decided, the
/// plan the coder's recorded reply then implements.
fn root_plan(h: &str) -> String {
    let (title, method, estimate, tests) = match h {
        "h-e1" | "h-e2" => (
            "Nearest centroid on the three caliper measurements",
            "Nearest class centroid on bill length, bill depth and flipper length. The brief fixes no scaling: the plain rule on millimetres first, so that any later change is measured against it.",
            if h == "h-e1" { 0.5 } else { 0.7 },
            "the caliper rule reaches the brief's accuracy",
        ),
        "h-m1" | "h-m2" => (
            "Flipper length's gain over the standardized bills",
            "Two nearest-centroid rules on z-scores fitted on each training fold: bill length and depth alone, and the same with flipper length added; the gain is their accuracy difference, paired fold by fold.",
            0.45,
            "flipper length adds little once the bills are known",
        ),
        _ => (
            "The standardized caliper rule within each sex",
            "The standardized nearest-centroid rule on the three calipers, scored separately on female and male birds; the smaller of the two accuracies is the metric.",
            0.6,
            "the rule holds for both sexes",
        ),
    };
    serde_json::json!({
        "plan": format!("# {title}\n\n**Data**: data/penguins.csv, the birds with every caliper measurement (and a recorded sex where the claim is per sex).\n\n**Method**: {method}\n\n**Procedure**: 5-fold cross-validation on every seed youra gives, the majority-class and LDA baselines on the same folds, and a learning curve over 20–100 % of each training fold of the first seed."),
        "prior": {
            "estimate": estimate,
            "hypothesis": tests,
            "rationale": "the brief's design, with its open choices decided",
            "changes": ["the brief's open choices decided"],
            "risks": ["the plain rule may miss the gate"],
        },
    })
    .to_string()
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
const M1_ROUTE: &str = r#"{"level": "redesign", "next_stage": "hypothesis_debate", "cause": 1, "records": [], "reason": "the measured gain contradicts the mechanism as framed (flipper length is not redundant): a hypothesis-level fault for a new debate"}"#;
const M1_REPEATED_ROUTE: &str = r#"{"level": "proceed", "next_stage": "experiment_design", "cause": 1, "records": ["failure_h-m1_run1"], "reason": "ten folds agree with five on the gain and the critic believes no cause: the refutation is a valid finding; record it and go on"}"#;

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

pub(crate) fn review(reviewer: &str) -> String {
    match reviewer {
        "Bored Reviewer" => r#"{"findings": [{"severity": "MINOR", "section": "Limitations", "claim": "one data set", "problem": "that all birds come from one data set is mentioned only at the end", "fix": "say it in the Method too"}]}"#.into(),
        _ => r#"{"findings": []}"#.into(),
    }
}

/// The paper's replies, given its parts: Evidence Check, the four drafting groups, the
/// three reviewers, and the final refinement.
pub(crate) fn paper(s: &mut Script, p: &Paper) {
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
        p.foundation
            .replace("over five seeds.", "over five seeds, on one data set."),
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

pub(crate) struct Paper {
    pub title: &'static str,
    /// Evidence Check's verdict and explanation for P1, P2 and P3.
    pub verdicts: [(&'static str, &'static str); 3],
    /// Its mechanism claims and assumptions (Markdown, `## Assumptions` between them).
    pub evidence: &'static str,
    pub foundation: &'static str,
    pub experiments: &'static str,
    pub closure: &'static str,
    pub abstract_: &'static str,
}

const FOUNDATION: &str = "## Introduction
Field surveys of penguins measure bills with calipers and flippers with a ruler. We ask whether these caliper
measurements tell the three Palmer species apart, and whether the bill alone carries the species signal.

## Related Work
Gorman et al. (2014) collected the measurements [@gorman2014ecological]; Horst et al. (2020) released them as the
palmerpenguins data [@horst2020palmerpenguins]. A nearest-centroid rule is a close relative of Fisher's linear
discriminant [@fisher1936use], the standard rule for such measurements and our second baseline; shrunken
centroids carried it to gene expression [@tibshirani2002diagnosis].

## Method
A nearest centroid classifier on standardized bill length, bill depth and flipper length, fitted on four folds and
scored by accuracy on the fifth, with 5-fold cross-validation repeated over five seeds. The
majority class and Fisher's linear discriminant are scored on the same folds as baselines. A learning curve refits
on growing shares of the training rows. The plan tree searched the method of the first sub-hypothesis: after the
unscaled rule missed, bill depth alone was tried and pruned, and standardized measurements met the gate.
";

/// The paper when the failed bill-first claim stands (the pivot overridden with Proceed).
const KEPT: Paper = Paper {
    title: "Calipers separate Palmer penguin species; flipper length is not redundant",
    verdicts: [
        ("supported", "h-e1 met its MUST_WORK gate: on fresh seeds, standardized caliper measurements reach an accuracy of 0.9708, the whole 95% interval above 0.93."),
        ("refuted", "h-m1 missed its MUST_WORK gate: flipper length adds 0.0369 over the bills, the whole 95% interval above the 0.01 allowed; the researcher kept this negative result."),
        ("supported", "h-c1 met its SHOULD_WORK gate: on fresh seeds the lowest accuracy within a sex is 0.9576, the whole 95% interval above 0.9."),
    ],
    evidence: "## Mechanism Claims
The calipers carry the species: once the three measurements are put on one scale, the centroid rule clears the
existence gate on its interval, though Fisher's discriminant stays ahead of it. The per-sex condition holds.
Flipper length is not redundant: it adds more than the 0.01 the hypothesis allowed, so the mechanism claim that
the bill carries *all* the species signal is refuted; the researcher kept this negative result instead of
redesigning the hypothesis.

## Assumptions
- Rows with missing measurements are missing at random: not tested (2 of 344 rows dropped).
- One species signature across islands: not tested; islands were not used.
",
    foundation: FOUNDATION,
    experiments: concat!(
        "## Experiments
Three experiments ran on penguins.csv in the sandbox, each over five seeds of 5-fold cross-validation: the three
caliper measurements (h-e1), the bills with and without flipper length (h-m1), and the caliper rule within each
sex (h-c1). The failure analysis of h-e1 traced its miss to the unscaled distance.

## Results

| Sub-hypothesis | Metric | Value | Gate |
|---|---|---|---|
",
        "| h-e1 first attempt (unscaled) | accuracy | 0.8953 | missed |
| h-e1 second attempt (depth alone) | accuracy | 0.6181 | missed |
| h-e1 fourth attempt (flipper, depth) | accuracy | 0.7853 | missed |
| h-e1 fifth attempt (fresh seeds) | accuracy | 0.9708 | met |",
        "
| h-m1 | gain from flipper length | 0.0369 | missed |
| h-c1 third attempt (fresh seeds) | lowest accuracy within a sex | 0.9576 | met |
"
    ),
    closure: "## Discussion
The calipers separate the species once their three measurements share a scale; the unscaled rule is a method
error, not a refutation. Fisher's discriminant, which also weighs how the measurements vary together, stays ahead
of the centroid rule. Flipper length adds about four points over the bills, so the bill-first claim fails.

## Limitations
One data set, one simple classifier; islands were not examined.

## Conclusion
Calipers give a strong species rule; the flipper, not only the bill, carries part of the signal.
",
    abstract_: "## Abstract
On the Palmer penguins, a nearest-centroid rule on standardized bill length, bill depth and flipper length
classifies the three species with a cross-validated accuracy whose interval on fresh seeds clears the target, and keeps its
accuracy within each sex. Flipper length adds more than the 0.01 we allowed over the bills, so it is not redundant.
",
};

/// The paper after the pivot was rejected: the method was checked first (ten folds).
const CHECKED: Paper = Paper {
    title: "Calipers separate Palmer penguin species; flipper length adds a stable four points",
    verdicts: [
        ("supported", "h-e1 met its MUST_WORK gate: on fresh seeds, standardized caliper measurements reach an accuracy of 0.9708, the whole 95% interval above 0.93."),
        ("refuted", "h-m1 missed its MUST_WORK gate twice: flipper length adds 0.0357 with ten folds (0.0369 with five), the whole 95% interval above the 0.01 allowed."),
        ("supported", "h-c1 met its SHOULD_WORK gate: on fresh seeds the lowest accuracy within a sex is 0.9603, the whole 95% interval above 0.9."),
    ],
    evidence: "## Mechanism Claims
The calipers carry the species once the three measurements share a scale. The per-sex condition holds. The
claim that flipper length is redundant is refuted, and not by the choice of folds: with ten folds as with five,
the interval of its gain lies above the 0.01 the hypothesis allowed.

## Assumptions
- Rows with missing measurements are missing at random: not tested (2 of 344 rows dropped).
- One species signature across islands: not tested; islands were not used.
",
    foundation: FOUNDATION,
    experiments: concat!(
        "## Experiments
Four experiments ran on penguins.csv in the sandbox, each over five seeds. When flipper length missed its gate,
the proposed redesign was rejected and the method checked instead: the gain was scored again with ten folds.

## Results

| Sub-hypothesis | Metric | Value | Gate |
|---|---|---|---|
",
        "| h-e1 first attempt (unscaled) | accuracy | 0.8953 | missed |
| h-e1 second attempt (depth alone) | accuracy | 0.6181 | missed |
| h-e1 fourth attempt (flipper, depth) | accuracy | 0.7853 | missed |
| h-e1 fifth attempt (fresh seeds) | accuracy | 0.9708 | met |",
        "
| h-m1 first attempt (five folds) | gain from flipper length | 0.0369 | missed |
| h-m1 second attempt (ten folds) | gain from flipper length | 0.0357 | missed |
| h-c1 third attempt (fresh seeds) | lowest accuracy within a sex | 0.9603 | met |
"
    ),
    closure: "## Discussion
The calipers separate the species once their three measurements share a scale, though Fisher's discriminant
stays ahead of the centroid rule. The gain of h-m1 from flipper length is 0.0357 with ten folds
and 0.0369 with five folds, each interval above 0.01, so the bill-first claim fails for a reason, not by chance.

## Limitations
One data set, one simple classifier; islands were not examined.

## Conclusion
Calipers give a strong species rule; the flipper adds about four points to the bill.
",
    abstract_: "## Abstract
On the Palmer penguins, a nearest-centroid rule on standardized bill length, bill depth and flipper length
classifies the three species with a cross-validated accuracy whose interval on fresh seeds clears the target, and keeps it
within each sex. Flipper length adds a gain whose interval stays above 0.01 with five folds and with ten, so it is
not redundant.
",
};

/// The paper after the approved pivot: the redesigned hypothesis (flipper length adds
/// information), stated after the redesign and so measured on fresh seeds only (issue 40
/// item 5): its claims are post hoc, and the paper says so.
const REDESIGNED: Paper = Paper {
    title: "Calipers classify Palmer penguin species, and flipper length adds what the bill misses",
    verdicts: [
        ("supported", "h-e2, stated after the redesign, met its MUST_WORK gate on fresh seeds: standardized caliper measurements reach an accuracy of 0.9707."),
        ("supported", "h-m2, stated after the redesign, met its MUST_WORK gate on fresh seeds: flipper length adds 0.0358 over the bills; five, ten and fifteen seeds left it undecided, twenty put its whole interval above 0.01."),
        ("supported", "h-c2, stated after the redesign, met its SHOULD_WORK gate on fresh seeds: the lowest accuracy within a sex is 0.9596."),
    ],
    evidence: "## Mechanism Claims
After the redesign, the claims were stated knowing what the first measurements said, so youra measured them on
seeds no earlier run had used: there the caliper rule clears 0.93, flipper length adds more than 0.01 over the
bills, and the rule holds within each sex. The claims are post hoc; the fresh seeds are what make them evidence.

## Assumptions
- Rows with missing measurements are missing at random: not tested (2 of 344 rows dropped).
- One species signature across islands: not tested; islands were not used.
",
    foundation: "## Introduction
Field surveys of penguins measure bills with calipers and flippers with a ruler. A first hypothesis, that the bill
carries the species signal and flipper length is redundant, failed its gate and was redesigned: we now ask what
flipper length adds, knowing that the answer was suggested by the measurement that failed the first.

## Related Work
Gorman et al. (2014) collected the measurements [@gorman2014ecological]; Horst et al. (2020) released them as the
palmerpenguins data [@horst2020palmerpenguins]. A nearest-centroid rule is a close relative of Fisher's linear
discriminant [@fisher1936use], our second baseline; shrunken centroids carried it to gene expression
[@tibshirani2002diagnosis].

## Method
A nearest centroid classifier on standardized bill length and bill depth, with and without flipper length,
fitted on four folds and scored by accuracy on the fifth, with 5-fold cross-validation repeated over five seeds,
fresh ones for the redesigned claims. The majority class and Fisher's linear discriminant are scored on the same
folds as baselines.
",
    experiments: "## Experiments
Three experiments ran on penguins.csv in the sandbox after the redesign, each on fresh seeds: the three caliper
measurements (h-e2), the bills with and without flipper length (h-m2), and the caliper rule within each sex
(h-c2). The work on the first hypothesis is archived.

## Results

| Sub-hypothesis | Metric | Value | Gate |
|---|---|---|---|
| h-e2 (post hoc, fresh seeds) | accuracy | 0.9707 | met |
| h-m2 (post hoc, fresh seeds) | gain from flipper length | 0.0358 | met |
| h-c2 (post hoc, fresh seeds) | lowest accuracy within a sex | 0.9596 | met |
",
    closure: "## Discussion
The calipers separate the species once their three measurements share a scale, and flipper length adds what the
bill misses. Each of these claims was stated after the redesign; each was measured on seeds no earlier run had
used, so the first measurement's split cannot be what confirms it.

## Limitations
One data set, one simple classifier; the redesigned claims are post hoc; islands were not examined.

## Conclusion
Calipers give a strong species rule, and the flipper is part of it.
",
    abstract_: "## Abstract
On the Palmer penguins, a nearest-centroid rule on standardized bill length, bill depth and flipper length
classifies the three species well; after a failed bill-first claim, the redesigned claim that flipper length adds
to the bills was measured on fresh seeds and holds: its gain's interval lies above 0.01.
",
};

/// The debate: Gap Selection, then six exchanges until the moderator finds every criterion
/// settled.
pub(crate) fn debate(
    s: &mut Script,
    gap: &str,
    turns: &[(&str, &str)],
    synthesis: &str,
    refinement: &str,
) {
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
        "The archived claim said flipper length is redundant; the data said it adds about four points. The new question is what body size adds.\nProposal: claim that flipper length adds at least 0.01.",
    ),
    (
        "falsifiability",
        "Keep the numbers: the calipers ≥ 0.93, a flipper gain ≥ 0.01, each on its interval; refuted below 0.005.\nProposal: state the thresholds in the gates.",
    ),
    (
        "impact",
        "Telling teams that the flipper matters is as useful as telling them it does not.\nProposal: keep the per-sex check.",
    ),
    (
        "feasibility",
        "The same code and data answer it in seconds, on seeds no earlier run used.\nProposal: reuse the standardized rule.",
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

const PIVOT_SYNTHESIS: &str = r#"{"hypothesis": "Standardized bill length, bill depth and flipper length classify the three Palmer penguin species at ≥ 0.93 with a nearest-centroid rule, and flipper length adds at least 0.01 to the bills by splitting Adelie from Chinstrap.", "mechanism": "Bill shape carries most of the species signal; size separates the two species whose bills overlap.", "predictions": ["accuracy >= 0.93 on the standardized calipers", "gain from flipper length >= 0.01", "accuracy >= 0.9 within each sex"], "agreements": ["both arms standardized", "fresh seeds"], "open_objections": [], "novelty": "What body size adds once the bill is known."}"#;

const PIVOT_REFINEMENT: &str = r#"{"main_hypothesis": {"id": "H-Bills-v2", "title": "Calipers classify penguin species and flipper length adds what the bill misses", "statement": "Flipper length splits Adelie from Chinstrap where their bills overlap: it lifts the species rule by at least 0.01 over standardized bill measurements alone, and the three calipers reach 0.93."}, "predictions": ["accuracy >= 0.93", "gain >= 0.01", "min accuracy within sex >= 0.9"], "falsification": "Accuracy below 0.90 on the standardized calipers, or a flipper-length gain below 0.005.", "assumptions": ["rows with missing measurements are missing at random"]}"#;

const PIVOT_PLAN: &str = r#"{"sub_hypotheses": [
 {"id": "h-e2", "type": "EXISTENCE", "statement": "A nearest-centroid rule on standardized bill length, bill depth and flipper length reaches at least 0.93 accuracy in 5-fold cross-validation.", "gate": {"type": "MUST_WORK", "criterion": "accuracy >= 0.93"}, "prerequisites": [], "predictions": ["P1"]},
 {"id": "h-m2", "type": "MECHANISM", "statement": "Adding flipper length to standardized bill length and depth raises accuracy by at least 0.01.", "gate": {"type": "MUST_WORK", "criterion": "gain >= 0.01"}, "prerequisites": ["h-e2"], "predictions": ["P2"]},
 {"id": "h-c2", "type": "CONDITION", "statement": "The caliper rule keeps at least 0.9 accuracy within each sex.", "gate": {"type": "SHOULD_WORK", "criterion": "min_group_accuracy >= 0.9"}, "prerequisites": ["h-e2"], "predictions": ["P3"]}
], "rationale": "The redesign keeps the existence and the condition, and turns the refuted redundancy into the prediction that flipper length adds information."}"#;

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
    design(s, "h-e1", accuracy, "accuracy", ">=", 0.93);
    failing(
        s,
        "h-e1",
        &["--features", CALIPERS],
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
        &["--features", "bill_depth_mm", "--standardize"],
        &e1_depth_causes(),
        &[0.66, 0.2, 0.1],
        &verdict("Valid", 0.7),
        E1_DEPTH_ROUTE,
    );
    s.round(2);
    passing(s, "h-e1", &["--features", CALIPERS, "--standardize"]);
    s.round(3);
    refined(
        s,
        "h-e1",
        "the standardized caliper features",
        &[
            "--features",
            "flipper_length_mm,bill_depth_mm",
            "--standardize",
        ],
        ("Experiment Design", Some("h-m1")),
    );
    s.round(0);
    design(
        s,
        "h-m1",
        "gain: accuracy with flipper length added minus accuracy with the bills alone (both standardized), paired fold by fold.",
        "gain",
        "<=",
        0.01,
    );
    failing(
        s,
        "h-m1",
        &["--standardize", "--compare", "flipper_length_mm"],
        &m1_causes(),
        &[0.62, 0.35, 0.1],
        &verdict("Valid", 0.55),
        M1_ROUTE,
    );
}

/// The per-sex rule's arguments followed by `more`.
fn sexed(more: &[&'static str]) -> Vec<&'static str> {
    let mut v = vec!["--features", CALIPERS, "--standardize", "--by", "sex"];
    v.extend_from_slice(more);
    v
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
    passing(
        s,
        "h-c1",
        &["--features", CALIPERS, "--standardize", "--by", "sex"],
    );
    s.round(1);
    refined(
        s,
        "h-c1",
        "the standardized caliper rule within each sex",
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
            "flipper_length_mm",
            "--folds",
            "10",
        ],
        &m1_repeated_causes(),
        &[0.1, 0.08, 0.05],
        &verdict("Valid", 0.8),
        M1_REPEATED_ROUTE,
    );
    s.round(0);
    h_c1(&mut s, &sexed(&["--folds", "3"]));
    paper(&mut s, &CHECKED);
    // Overridden with Proceed: the failure stands as the finding.
    s.after("Proceed").round(0);
    h_c1(&mut s, &sexed(&["--folds", "10"]));
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
    design(&mut s, "h-e2", accuracy, "accuracy", ">=", 0.93);
    passing(&mut s, "h-e2", &["--features", CALIPERS, "--standardize"]);
    s.round(1001);
    refined(
        &mut s,
        "h-e2",
        "the standardized caliper features",
        &["--features", CALIPERS, "--standardize", "--folds", "10"],
        ("Experiment Design", Some("h-m2")),
    );
    s.round(1000);
    design(
        &mut s,
        "h-m2",
        "gain: accuracy with flipper length added minus accuracy with the bills alone (both standardized), paired fold by fold.",
        "gain",
        ">=",
        0.01,
    );
    passing(
        &mut s,
        "h-m2",
        &["--standardize", "--compare", "flipper_length_mm"],
    );
    s.round(1001);
    refined(
        &mut s,
        "h-m2",
        "the standardized comparison with flipper length",
        &[
            "--standardize",
            "--compare",
            "flipper_length_mm",
            "--folds",
            "3",
        ],
        ("Experiment Design", Some("h-c2")),
    );
    // The confirmation's first five fresh seeds straddle 0.01 (INCONCLUSIVE): youra runs the
    // same code on five more seeds at a time (each look at a stricter confidence) until the
    // interval decides, at twenty; each run is checked too.
    for _ in 0..3 {
        s.reply("judge", "coding_validation", Some("h-m2"), 1, CONSISTENT);
    }
    s.round(1000);
    design(
        &mut s,
        "h-c2",
        "min_group_accuracy: the lower of the two within-sex accuracies.",
        "min_group_accuracy",
        ">=",
        0.9,
    );
    passing(
        &mut s,
        "h-c2",
        &["--features", CALIPERS, "--standardize", "--by", "sex"],
    );
    s.round(1001);
    refined(
        &mut s,
        "h-c2",
        "the standardized caliper rule within each sex",
        &sexed(&["--folds", "10"]),
        ("Evidence Check", None),
    );
    s.round(1);
    paper(&mut s, &REDESIGNED);
    s
}
