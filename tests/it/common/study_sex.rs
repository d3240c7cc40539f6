//! The second recorded study (`youra demo --study sex`, issue 41 item 5): can a small neural
//! network tell a Palmer penguin's sex from its measurements, and does the species help?
//! Its experiments train a network for epochs (assets/studies/sex/code/mlp.py), and its path
//! needs what the penguins never do: a SHOULD_WORK miss retried from Experiment Design until
//! the refine cap (`[recovery] max_refines = 1`) makes it a limitation, and
//! a failure where the Independent Controller redesigns (archive → Hypothesis Debate → new
//! sub-hypotheses → their gates) while SAGE's table would reset (archive → Problem Scoping).
//! One bundle carries both continuations, keyed by stage and round, so the study replays
//! under either router to a paper, and `youra compare` shows where they part. The bundle in
//! assets/studies/sex/replay.jsonl is generated from this file
//! (`YOURA_UPDATE_DEMO=1 cargo test --test it study_sex::`), and a test keeps the two equal.
#![allow(dead_code)]

use super::demo::{CONSISTENT, Paper, candidates, controller_ok, debate, paper, severities};
use super::script::{Script, code_reply, verdict};

/// The study's experiment.
pub const MLP_PY: &str = include_str!("../../../assets/studies/sex/code/mlp.py");

const SCOPING: &str = "## Research Question
Can a small neural network tell a Palmer penguin's sex from its bill length, bill depth, flipper length and body
mass, with at least 80 % cross-validated accuracy, and does knowing the species help it?

## Motivation
Sexing penguins in the field needs a blood sample or a long look; the four measurements take a minute. Males are
larger within every species, but the species differ in size more than the sexes do.

## Scope
In: the 333 penguins of the Palmer data with every measurement and a recorded sex (Gorman et al. 2014), a network
with one hidden layer trained for 60 epochs, 5-fold cross-validation repeated over five seeds, the majority-sex
baseline on the same folds. Out: images, other colonies, larger models. Compute: one CPU, seconds per run.

## Success Criteria
Accuracy ≥ 0.80 on held-out folds, decided on its 95 % interval; the species' contribution and the per-species
accuracy as their own claims.
";

const LITERATURE: &str = "## Related Work
Gorman, Williams and Fraser (2014) measured the three species and described their sexual size dimorphism: males
are larger in bill and body within each species. Horst, Hill and Gorman (2020) released the measurements as the
palmerpenguins data set. Discriminant functions on bill measurements are the field's usual sexing rule.

## Gaps
1. Whether a small learned model sexes penguins from the four measurements alone.
2. Whether the species, as an input, adds to the measurements.
3. Whether one model holds within each species, the small Chinstrap colony included.

## Sources
- [@gorman2014ecological] Gorman, Williams and Fraser (2014), PLoS ONE: the measurements and the dimorphism.
- [@horst2020palmerpenguins] Horst, Hill and Gorman (2020): the palmerpenguins data package.
- [@fisher1936use] Fisher (1936): linear discriminants.
";

const GAP: &str = r#"{"gap": 1, "evidence": ["Gorman, Williams and Fraser (2014) described the sexual size dimorphism within each species [@gorman2014ecological].", "Horst, Hill and Gorman (2020) released the measurements [@horst2020palmerpenguins]."], "rationale": "The dimorphism is documented; whether a small learned model turns it into a sexing rule, and whether the species must be known, is not measured."}"#;

const TURNS: [(&str, &str); 6] = [
    (
        "novelty",
        "Sexing from bill measurements is a discriminant-function staple; the new part is a learned model on all four measurements and the question of whether it needs the species.\nProposal: claim ≥ 0.80 accuracy for a one-hidden-layer network.",
    ),
    (
        "falsifiability",
        "Numbers: accuracy ≥ 0.80 on its 95 % interval over five seeds; the species must add at least 0.05 to be worth asking for.\nProposal: state both as gates.",
    ),
    (
        "impact",
        "A rule that holds within each species would let one model serve every colony.\nProposal: claim ≥ 0.90 within each species.",
    ),
    (
        "feasibility",
        "333 complete rows; a network of six tanh units trains in under a second per fold in plain Python.\nProposal: 60 epochs of full-batch gradient descent, the curve streamed.",
    ),
    (
        "strengthening",
        "The mechanism is size dimorphism: within a species, males are larger in every measurement.\nProposal: name it, and expect the species to help because size differs between species.",
    ),
    (
        "stress_testing",
        "Body mass is in grams, about a thousand times the bill's millimetres: unscaled, it saturates the tanh units and the network learns nothing. And Chinstrap has 68 birds; its folds are small.\nProposal: if the raw network fails, that is the method, not the claim.",
    ),
];

const SYNTHESIS: &str = r#"{"hypothesis": "A one-hidden-layer network sexes Palmer penguins from bill length, bill depth, flipper length and body mass with ≥ 0.80 cross-validated accuracy; the species adds at least 0.05, and the rule holds at ≥ 0.90 within each species.", "mechanism": "Sexual size dimorphism: within each species, males are larger in every measurement.", "predictions": ["accuracy >= 0.80", "gain from the species >= 0.05", "accuracy >= 0.90 within each species"], "agreements": ["5-fold cross-validation over five seeds", "the majority-sex baseline"], "open_objections": ["unscaled inputs saturate the network"], "novelty": "A learned sexing rule and the species' part in it."}"#;

const REFINEMENT: &str = r#"{"main_hypothesis": {"id": "H-Sex-v1", "title": "A small network sexes Palmer penguins from four measurements", "statement": "A one-hidden-layer network tells a Palmer penguin's sex from its bill length, bill depth, flipper length and body mass with at least 0.80 cross-validated accuracy, knowing the species raises that by at least 0.05, and the rule keeps at least 0.90 within each species."}, "predictions": ["accuracy >= 0.80", "gain >= 0.05", "min accuracy within species >= 0.90"], "falsification": "Accuracy below 0.75, a species gain below 0.02, or a species below 0.85.", "assumptions": ["rows with missing measurements or sex are missing at random"]}"#;

const PLAN: &str = r#"{"sub_hypotheses": [
 {"id": "h-e1", "type": "EXISTENCE", "statement": "A one-hidden-layer network on the four measurements tells a penguin's sex with at least 0.80 accuracy in 5-fold cross-validation.", "gate": {"type": "MUST_WORK", "criterion": "accuracy >= 0.8"}, "prerequisites": [], "predictions": ["P1"]},
 {"id": "h-m1", "type": "MECHANISM", "statement": "Giving the network the species raises its accuracy by at least 0.05.", "gate": {"type": "SHOULD_WORK", "criterion": "gain >= 0.05"}, "prerequisites": ["h-e1"], "predictions": ["P2"]},
 {"id": "h-c1", "type": "CONDITION", "statement": "The network keeps at least 0.90 accuracy within each species.", "gate": {"type": "MUST_WORK", "criterion": "min_group_accuracy >= 0.9"}, "prerequisites": ["h-e1"], "predictions": ["P3"]}
], "rationale": "Existence first, then what the species adds, then whether one rule holds for every species."}"#;

fn brief(what: &str, metric: &str, op: &str, value: f64, model: &str) -> String {
    format!(
        "## Dataset\nPalmer penguins (data/penguins.csv: the 333 birds with every measurement and a recorded sex; CC0).\n\n## Model\n{model}\n\n## Metrics\n{what}\n\n## Gate Criteria\n```yaml\ncriteria:\n  - metric: {metric}\n    op: \"{op}\"\n    value: {value}\n```\n\n## Baselines\n- `accuracy_majority`: the majority sex of the training folds\n\n## Procedure\n5-fold cross-validation on every seed youra gives (five to start), the baseline on the same folds; the first fold's training curve (loss and training accuracy per epoch) streamed.\n"
    )
}

const NETWORK: &str = "A network with one hidden layer of six tanh units and a logistic output, trained by full-batch gradient descent (learning rate 0.5) for 60 epochs on each training fold.";

const TASKS: &str = r##"{"tasks": [{"id": "T1", "title": "Load the table", "spec_section": "Dataset", "description": "read data/penguins.csv, keep the rows with every measurement and a sex", "test_first": false}, {"id": "T2", "title": "The network", "spec_section": "Model", "description": "one tanh hidden layer, a logistic output, full-batch gradient descent", "test_first": false}, {"id": "T3", "title": "Cross-validation over the seeds", "spec_section": "Procedure", "description": "5 folds for every seed in YOURA_SEEDS, the majority sex on the same folds", "test_first": false}, {"id": "T4", "title": "Report", "spec_section": "Metrics", "description": "the training curve to YOURA_METRICS_FILE, one row per seed and fold to experiment_results.json", "test_first": false}], "prd": "# PRD\nMeasure the gate metric and its baseline honestly from the CSV, once per seed and fold.", "architecture": "# Architecture\n`mlp.py`: load, train, cross-validate, report.", "logic": "# Logic\nFor each seed: shuffle, split into 5 folds, train on 4 for 60 epochs, score the 5th.", "config": "# Config\nfolds: 5, hidden: 6, epochs: 60, seeds: YOURA_SEEDS"}"##;

fn code(args: &[&str]) -> String {
    code_reply("mlp.py", MLP_PY, args)
}

/// Experiment Design (with the controller's acceptance), Implementation Planning, and the
/// reflector's first plan of the search.
fn design(s: &mut Script, h: &str, brief_text: &str, root: &str) {
    redesign(s, h, brief_text);
    s.reply("reflector", "coding_validation", Some(h), 1, root);
}

/// Experiment Design and Implementation Planning again, for a search that is already open.
fn redesign(s: &mut Script, h: &str, brief_text: &str) {
    s.reply("executor", "experiment_design", Some(h), 1, brief_text)
        .ok("experiment_design", Some(h), 1)
        .reply("executor", "implementation_planning", Some(h), 1, TASKS)
        .ok("implementation_planning", Some(h), 1);
}

fn root(title: &str, body: &str, estimate: f64) -> String {
    serde_json::json!({
        "plan": format!("# {title}\n\n{body}\n\n**Procedure**: 5-fold cross-validation on every seed youra gives, the majority sex on the same folds, the first fold's curve streamed."),
        "prior": {"estimate": estimate, "hypothesis": title, "rationale": "the brief's design, its open choices decided", "changes": ["the brief's open choices decided"], "risks": ["the plain network may miss the gate"]},
    })
    .to_string()
}

/// A passing attempt: the code, the fabrication check; the search settles at its first pass
/// and the chosen node runs again on fresh seeds, checked too; the controller accepts.
fn passing(s: &mut Script, h: &str, args: &[&str]) {
    s.reply("executor", "coding_validation", Some(h), 1, &code(args))
        .reply("judge", "coding_validation", Some(h), 1, CONSISTENT)
        .reply("judge", "coding_validation", Some(h), 1, CONSISTENT)
        .ok("coding_validation", Some(h), 1);
}

/// A failing attempt and its attribution: candidates, severities, the clamp's verdict, and
/// the controller's route (asked only under `router = "controller"`).
fn failing(
    s: &mut Script,
    h: &str,
    args: &[&str],
    causes: &str,
    sev: &[f64],
    judge: &str,
    route: &str,
) {
    s.reply("executor", "coding_validation", Some(h), 1, &code(args))
        .reply("judge", "coding_validation", Some(h), 1, CONSISTENT)
        .reply("generator", "coding_validation", Some(h), 1, causes)
        .reply("critic", "coding_validation", Some(h), 1, &severities(sev))
        .reply("judge", "coding_validation", Some(h), 1, judge)
        .reply("controller", "coding_validation", Some(h), 1, route);
}

fn e1_causes() -> String {
    candidates(&[
        (
            "Method",
            "The inputs are unscaled: body mass in grams (about 4200, spread 800) saturates every tanh unit, so the network outputs one sex for every bird",
            "signature=stagnation: training accuracy flat at the majority share from the first epoch",
            "standardize the four inputs on each training fold",
        ),
        (
            "Method",
            "60 epochs are too few for gradient descent to leave the plateau",
            "slope near 0: the loss curve is flat",
            "train longer",
        ),
        (
            "Design",
            "The measurements carry no sex signal without the species",
            "decay: no gain over the baseline",
            "add the species as an input",
        ),
    ])
}

const E1_EXPANSION: &str = r##"{"children": [
 {"plan": "# Standardize the inputs\n\nPut the four measurements on one scale (z-scores fitted on each training fold) before training; keep the network and the protocol.", "prior": {"estimate": 0.7, "hypothesis": "saturated units are the problem", "rationale": "the curve never leaves the majority share", "changes": ["z-scores"], "risks": ["none"]}},
 {"plan": "# Train longer\n\nKeep the raw inputs but train for 600 epochs, so gradient descent can leave the plateau.", "prior": {"estimate": 0.2, "hypothesis": "too few epochs", "rationale": "the loss is flat", "changes": ["600 epochs"], "risks": ["saturated units give no gradient"]}}
]}"##;

const E1_ROUTE: &str = r#"{"level": "repair", "cause": 1, "records": [], "reason": "unscaled inputs saturate the network: a method fault the same hypothesis can fix"}"#;

fn m1_causes() -> String {
    candidates(&[
        (
            "Design",
            "Within a species the sexes differ in size, and the measurements already place a bird's species: the species input repeats what the network has",
            "decay: the species input's gain vanishes, its interval below 0.05",
            "claim a smaller gain, or none",
        ),
        (
            "Method",
            "Six hidden units may be too few to use the extra inputs",
            "volatility across folds",
            "give the network more hidden units",
        ),
        (
            "Method",
            "Five folds of about 67 birds make each fold's accuracy noisy",
            "volatility across folds",
            "score with more folds",
        ),
    ])
}

const M1_EXPANSION: &str = r##"{"children": [
 {"plan": "# A wider network\n\nTwelve hidden units instead of six, so the network can use the species inputs; the same gain, paired fold by fold.", "prior": {"estimate": 0.35, "hypothesis": "six units were too few for the species inputs", "rationale": "the critic's second cause", "changes": ["twelve hidden units"], "risks": ["the species adds nothing to use"]}},
 {"plan": "# Ten folds\n\nThe same networks scored with 10 folds, so the gain is measured on more, smaller test folds.", "prior": {"estimate": 0.15, "hypothesis": "noisy folds hide the gain", "rationale": "volatility across folds", "changes": ["10 folds"], "risks": ["noisier folds"]}}
]}"##;

const M1_AGAIN_ROUTE: &str = r#"{"level": "Design-Refine", "cause": 1, "records": ["failure_h-m1_run1"], "reason": "the wider network changed nothing; another design could still try fewer claims"}"#;

const M1_ROUTE: &str = r#"{"level": "Design-Refine", "cause": 2, "records": [], "reason": "a SHOULD_WORK miss the design may still fix: try a wider network from Experiment Design"}"#;

fn c1_causes() -> String {
    candidates(&[
        (
            "Design",
            "One rule cannot hold at 0.90 in every species: Chinstrap's 68 birds give small, noisy folds, and its sexes overlap more than Gentoo's",
            "volatility: the lowest species' accuracy swings across its small folds, its interval wholly below 0.90",
            "state the condition with the species known, at a level the small colony supports",
        ),
        (
            "Method",
            "The network is not given the species, so it cannot shift its size threshold per species",
            "volatility across folds",
            "add the species as an input",
        ),
        (
            "Method",
            "60 epochs may stop early for the small species",
            "slope: the held-out curve still moves at epoch 60",
            "train longer",
        ),
    ])
}

/// The controller resets (the question itself assumed one rule for every species, and the
/// literature was read for it); SAGE's table redesigns (a Pivot: Hypothesis Debate again)
/// for a Design cause under an evidence contradiction. The two part here.
const C1_ROUTE: &str = r#"{"level": "reset", "cause": 1, "records": [], "reason": "the contradiction is in the question, which asked for one rule across species: scope it again, with the species known, before debating a claim"}"#;

const PIVOT_GAP: &str = r#"{"gap": 3, "evidence": ["This run's failure record: the lowest per-species accuracy was below 0.90 on every seed.", "Gorman, Williams and Fraser (2014) report the dimorphism per species [@gorman2014ecological]."], "rationale": "The refuted condition leaves gap 3 open with the species known: how well one network does within each species when it is told the species."}"#;

const PIVOT_TURNS: [(&str, &str); 6] = [
    (
        "novelty",
        "Tell the network the species and ask what it does within each.\nProposal: the species as an input.",
    ),
    (
        "falsifiability",
        "Thresholds the small colony supports: ≥ 0.85 overall, ≥ 0.78 within each species, and the species adding at most 0.06.\nProposal: state them as gates.",
    ),
    (
        "impact",
        "One network per colony is simpler to ship than three.\nProposal: keep a single network.",
    ),
    (
        "feasibility",
        "The same network and protocol; three one-hot inputs more.\nProposal: no other change.",
    ),
    (
        "strengthening",
        "Size dimorphism within species is the mechanism; the species input sets the size scale.\nProposal: say so.",
    ),
    (
        "stress_testing",
        "These claims come after a failure: measure them on seeds no earlier run used.\nProposal: fresh seeds, as youra gives them.",
    ),
];

const PIVOT_SYNTHESIS: &str = r#"{"hypothesis": "Told the species, a one-hidden-layer network sexes Palmer penguins with ≥ 0.85 accuracy and keeps ≥ 0.78 within each species; the species adds at most 0.06.", "mechanism": "Sexual size dimorphism within each species; the species sets the size scale.", "predictions": ["accuracy >= 0.85 with the species", "gain from the species <= 0.06", "accuracy >= 0.78 within each species"], "agreements": ["fresh seeds"], "open_objections": [], "novelty": "A single network for every species."}"#;

const PIVOT_REFINEMENT: &str = r#"{"main_hypothesis": {"id": "H-Sex-v2", "title": "Told the species, a small network sexes every Palmer penguin species", "statement": "Given the species beside the four measurements, a one-hidden-layer network tells a Palmer penguin's sex with at least 0.85 cross-validated accuracy and keeps at least 0.78 within each species, and the species adds at most 0.06 to the measurements alone."}, "predictions": ["accuracy >= 0.85", "gain <= 0.06", "min accuracy within species >= 0.78"], "falsification": "Accuracy below 0.80, or a species below 0.72.", "assumptions": ["rows with missing measurements or sex are missing at random"]}"#;

const PIVOT_PLAN: &str = r#"{"sub_hypotheses": [
 {"id": "h-e2", "type": "EXISTENCE", "statement": "Given the species, a one-hidden-layer network tells a penguin's sex with at least 0.85 accuracy.", "gate": {"type": "MUST_WORK", "criterion": "accuracy >= 0.85"}, "prerequisites": [], "predictions": ["P1"]},
 {"id": "h-m2", "type": "MECHANISM", "statement": "The species adds at most 0.06 to the four measurements.", "gate": {"type": "SHOULD_WORK", "criterion": "gain <= 0.06"}, "prerequisites": ["h-e2"], "predictions": ["P2"]},
 {"id": "h-c2", "type": "CONDITION", "statement": "Given the species, the network keeps at least 0.78 accuracy within each species.", "gate": {"type": "MUST_WORK", "criterion": "min_group_accuracy >= 0.78"}, "prerequisites": ["h-e2"], "predictions": ["P3"]}
], "rationale": "The redesigned claims, each measured on fresh seeds."}"#;

/// Scoping again, after the controller resets the run (unused under SAGE's table, which
/// redesigns from the debate instead).
const RESCOPING: &str = "## Research Question
Can a small neural network, told the species, sex Palmer penguins from their measurements within every species?

## Motivation
The first round's single threshold failed for the small Chinstrap colony (the failure's lesson).

## Scope
In: the same 333 birds and network, the species as an input, fresh seeds. Out: as before.

## Success Criteria
Accuracy ≥ 0.85 with the species, ≥ 0.78 within each species, on their 95 % intervals.
";

const PAPER: Paper = Paper {
    title: "Told the species, a small network sexes Palmer penguins",
    verdicts: [
        ("supported", "h-e2, stated after the first round failed, met its MUST_WORK gate on fresh seeds."),
        ("supported", "h-m2, stated after the first round failed, met its SHOULD_WORK gate on fresh seeds."),
        ("supported", "h-c2, stated after the first round failed, met its MUST_WORK gate on fresh seeds."),
    ],
    evidence: "## Mechanism Claims
The claims were stated after the first round's condition failed, so youra measured them on seeds no earlier run
had used: there the network, told the species, sexes the birds and holds within each species. The claims are post
hoc; the fresh seeds are what make them evidence.

## Assumptions
- Rows with missing measurements or sex are missing at random: not tested.
",
    foundation: "## Introduction
Sexing penguins in the field takes a blood sample or a long look; four measurements take a minute. A first claim,
that one network holds at 0.90 within every species, failed for the small Chinstrap colony, and the claims were
stated again with the species known.

## Related Work
Gorman et al. (2014) measured the birds and their dimorphism [@gorman2014ecological]; Horst et al. (2020) released
the data [@horst2020palmerpenguins]; discriminant functions are the usual sexing rule [@fisher1936use].

## Method
A network with one hidden layer of six tanh units and a logistic output, trained by full-batch gradient descent for
60 epochs on standardized measurements and the species, with 5-fold cross-validation repeated over five seeds,
fresh ones for the restated claims; the majority sex is scored on the same folds.
",
    experiments: "## Experiments
Three experiments ran on penguins.csv in the sandbox after the restatement, each on fresh seeds: the network told
the species (h-e2), the network with and without the species (h-m2), and the network within each species (h-c2).
The first round's work is archived.

## Results

| Sub-hypothesis | Metric | Value | Gate |
|---|---|---|---|
| h-e2 (post hoc, fresh seeds) | accuracy | 0.9092 | met |
| h-m2 (post hoc, fresh seeds) | gain from the species | 0.0162 | met |
| h-c2 (post hoc, fresh seeds) | lowest accuracy within a species | 0.8525 | met |
",
    closure: "## Discussion
Told the species, the small network sexes the birds and holds within each species at the level the small colony
supports. Each claim was stated after a failure and measured on seeds no earlier run had used.

## Limitations
One data set, one small network; the restated claims are post hoc; the Chinstrap colony is small.

## Conclusion
Four measurements and the species sex a penguin well enough to screen a colony.
",
    abstract_: "## Abstract
On the Palmer penguins, a small network given the four measurements and the species tells a bird's sex, and holds
within each species at the level the smallest colony supports; the claims were restated after a failure and
measured on fresh seeds.
",
};

/// The study, both continuations: after h-c1's failure the controller's reset (Problem
/// Scoping, round 1) and the table's redesign (Hypothesis Debate, round 1) meet again at the
/// debate, so the new plan, its sub-hypotheses and the paper serve both.
pub fn script() -> Script {
    let mut s = Script::counted();
    s.reply("executor", "problem_scoping", None, 1, SCOPING)
        .ok("problem_scoping", None, 1)
        .reply("executor", "literature_grounding", None, 1, LITERATURE)
        .ok("literature_grounding", None, 1);
    debate(&mut s, GAP, &TURNS, SYNTHESIS, REFINEMENT);
    s.reply("executor", "verification_planning", None, 1, PLAN)
        .ok("verification_planning", None, 1);

    // h-e1: the raw network outputs one sex for every bird (0.47); both routers repair;
    // the reflector's first child standardizes the inputs (0.89) and passes.
    let accuracy = "accuracy: the share of held-out birds whose sex the network gets right.";
    design(
        &mut s,
        "h-e1",
        &brief(accuracy, "accuracy", ">=", 0.8, NETWORK),
        &root(
            "The network on the raw measurements",
            "The brief's network on bill length, bill depth, flipper length and body mass as measured: the plain network first.",
            0.5,
        ),
    );
    failing(
        &mut s,
        "h-e1",
        &[],
        &e1_causes(),
        &[0.75, 0.2, 0.1],
        &verdict("Valid", 0.6),
        E1_ROUTE,
    );
    s.round(1).reply(
        "reflector",
        "coding_validation",
        Some("h-e1"),
        1,
        E1_EXPANSION,
    );
    passing(&mut s, "h-e1", &["--standardize"]);
    s.round(0);

    // h-m1 (SHOULD_WORK): the species adds 0.019, not 0.05: retried from Experiment Design
    // with a wider network, it misses again, reaches the refine cap, and is recorded as a
    // limitation.
    let gain =
        "gain: accuracy with the species as an input minus accuracy without, paired fold by fold.";
    design(
        &mut s,
        "h-m1",
        &brief(gain, "gain", ">=", 0.05, NETWORK),
        &root(
            "The species' gain",
            "Two networks on standardized measurements, with and without the species as one-hot inputs; the gain is their accuracy difference on the same folds.",
            0.4,
        ),
    );
    failing(
        &mut s,
        "h-m1",
        &["--standardize", "--compare-species"],
        &m1_causes(),
        &[0.6, 0.3, 0.1],
        &verdict("Valid", 0.6),
        M1_ROUTE,
    );
    // The retry: the design again under the failure, then the search goes on from the
    // failed root, which the reflector expands; the wider network is its first child.
    s.round(1);
    redesign(
        &mut s,
        "h-m1",
        &brief(
            gain,
            "gain",
            ">=",
            0.05,
            "The same network with twelve hidden units, so it can use the species inputs.",
        ),
    );
    s.reply(
        "reflector",
        "coding_validation",
        Some("h-m1"),
        1,
        M1_EXPANSION,
    );
    // It misses again; its retries (2) would allow another, but the refine cap (1) does
    // not: a limitation.
    failing(
        &mut s,
        "h-m1",
        &["--standardize", "--compare-species", "--hidden", "12"],
        &m1_causes(),
        &[0.6, 0.3, 0.1],
        &verdict("Valid", 0.6),
        M1_AGAIN_ROUTE,
    );
    s.round(0);

    // h-c1 (MUST_WORK): the lowest species is far below 0.90. The controller resets; the
    // table would redesign.
    let within = "min_group_accuracy: the lowest of the three within-species accuracies.";
    design(
        &mut s,
        "h-c1",
        &brief(within, "min_group_accuracy", ">=", 0.9, NETWORK),
        &root(
            "The network within each species",
            "The standardized network, scored separately on each species; the lowest of the three accuracies is the metric.",
            0.5,
        ),
    );
    failing(
        &mut s,
        "h-c1",
        &["--standardize", "--by", "species"],
        &c1_causes(),
        &[0.7, 0.2, 0.1],
        &verdict("NotValid", 0.9),
        C1_ROUTE,
    );

    // The controller's reset: Problem Scoping and the literature again (round 1).
    s.round(1)
        .reply("executor", "problem_scoping", None, 1, RESCOPING)
        .ok("problem_scoping", None, 1)
        .reply("executor", "literature_grounding", None, 1, LITERATURE)
        .ok("literature_grounding", None, 1);
    // Both: the debate again (round 1), the new plan, its sub-hypotheses on fresh seeds.
    debate(
        &mut s,
        PIVOT_GAP,
        &PIVOT_TURNS,
        PIVOT_SYNTHESIS,
        PIVOT_REFINEMENT,
    );
    s.reply("executor", "verification_planning", None, 1, PIVOT_PLAN)
        .ok("verification_planning", None, 1);
    s.round(1000);
    let told = "The same network with the species as three one-hot inputs beside the standardized measurements.";
    design(
        &mut s,
        "h-e2",
        &brief(accuracy, "accuracy", ">=", 0.85, told),
        &root(
            "The network told the species",
            "Standardized measurements and the species as one-hot inputs.",
            0.7,
        ),
    );
    passing(&mut s, "h-e2", &["--standardize", "--species"]);
    design(
        &mut s,
        "h-m2",
        &brief(gain, "gain", "<=", 0.06, NETWORK),
        &root(
            "The species' gain, bounded",
            "Two networks with and without the species; the gain is their paired difference.",
            0.6,
        ),
    );
    passing(&mut s, "h-m2", &["--standardize", "--compare-species"]);
    design(
        &mut s,
        "h-c2",
        &brief(within, "min_group_accuracy", ">=", 0.78, told),
        &root(
            "The network told the species, within each species",
            "The network with the species inputs, scored within each species.",
            0.6,
        ),
    );
    passing(
        &mut s,
        "h-c2",
        &["--standardize", "--species", "--by", "species"],
    );
    s.round(1);
    paper(&mut s, &PAPER);
    let _ = controller_ok;
    s
}
