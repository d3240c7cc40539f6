use super::*;

const FAILED: [&str; 3] = [
    "Source-aware TracIn attribution outperforms standard TracIn in high-KL regimes by at least 0.05 LDS",
    "Curriculum ordering by perplexity reduces the number of training steps needed to reach target accuracy",
    "Deduplicating the pretraining corpus lowers benchmark contamination rates across model families",
];

#[test]
fn paraphrases_are_caught() {
    let table = [
        (
            "In high-KL regimes, standard TracIn is outperformed by source-aware TracIn attribution by 0.05 LDS or more",
            0,
        ),
        (
            "Source-aware TracIn attribution outperforms standard TracIn in high-KL regimes when using OLMo-7B checkpoints",
            0,
        ),
        (
            "Ordering the curriculum by perplexity reduces training steps needed to reach the target accuracy",
            1,
        ),
        (
            "Deduplication of the pretraining corpus lowers contamination rates of benchmarks across model families",
            2,
        ),
        (
            "DEDUPLICATING THE PRETRAINING CORPUS LOWERS BENCHMARK CONTAMINATION RATES ACROSS MODEL FAMILIES.",
            2,
        ),
    ];
    for (new, want) in table {
        let got = too_similar(new, &FAILED, THRESHOLD);
        assert_eq!(
            got.map(|g| g.0),
            Some(want),
            "{new}: {got:?} / {:?}",
            score_all(new)
        );
    }
}

#[test]
fn genuinely_different_hypotheses_pass() {
    let table = [
        "Low-rank gradient compression preserves influence ranking quality while reducing storage fivefold",
        "Model cards of larger families document decontamination more often than those of smaller families",
        "TracIn scores computed on early checkpoints predict data value better than scores from final checkpoints",
        "Perplexity filtering removes low-quality documents without reducing downstream accuracy",
        "",
    ];
    for new in table {
        let got = too_similar(new, &FAILED, THRESHOLD);
        assert_eq!(got, None, "{new}: {:?}", score_all(new));
        assert!(
            score_all(new).iter().all(|&s| s <= 0.4),
            "{new}: {:?}",
            score_all(new)
        );
    }
}

fn score_all(new: &str) -> Vec<f64> {
    FAILED.iter().map(|f| similarity(new, f)).collect()
}

#[test]
fn similarity_properties() {
    let a = FAILED[0];
    assert!((similarity(a, a) - 1.0).abs() < 1e-12);
    assert_eq!(similarity(a, FAILED[1]), similarity(FAILED[1], a));
    assert_eq!(similarity("", a), 0.0);
    assert_eq!(
        similarity("the of and", "the of and"),
        0.0,
        "stop words only"
    );
}

#[test]
fn too_similar_picks_the_closest_and_respects_threshold() {
    let failed = [
        "alpha beta gamma delta",
        "alpha beta gamma epsilon",
        "zeta eta",
    ];
    let got = too_similar("alpha beta gamma epsilon", &failed, 0.5);
    assert_eq!(got.map(|g| g.0), Some(1));
    assert_eq!(too_similar("alpha beta gamma epsilon", &failed, 1.01), None);
    assert_eq!(too_similar("anything", &[], 0.0), None);
}

#[test]
fn stemming_and_tokens() {
    let words = content_words("Regimes, training-steps and the LDS's reduced");
    assert_eq!(words, ["regime", "training-step", "lds", "reduc"]);
}

#[test]
#[ignore = "prints the table's scores, for choosing THRESHOLD"]
fn print_scores() {
    for new in [
        "In high-KL regimes, standard TracIn is outperformed by source-aware TracIn attribution by 0.05 LDS or more",
        "Source-aware TracIn attribution outperforms standard TracIn in high-KL regimes when using OLMo-7B checkpoints",
        "Ordering the curriculum by perplexity reduces training steps needed to reach the target accuracy",
        "Deduplication of the pretraining corpus lowers contamination rates of benchmarks across model families",
        "Low-rank gradient compression preserves influence ranking quality while reducing storage fivefold",
        "Model cards of larger families document decontamination more often than those of smaller families",
        "TracIn scores computed on early checkpoints predict data value better than scores from final checkpoints",
        "Perplexity filtering removes low-quality documents without reducing downstream accuracy",
    ] {
        println!("{:?} {new}", score_all(new));
    }
}
