use super::*;
use crate::report::provenance_match::phrase_at;

fn names(md: &str) -> Vec<(ClaimKind, String, Option<f64>)> {
    extract_claims(md)
        .into_iter()
        .map(|c| (c.kind, c.name, c.value))
        .collect()
}

#[test]
fn phrase_at_table() {
    let cases = [
        ("a ResNet-18 model", 2, "ResNet-18", Some(11)),
        ("a resnet18 model", 2, "ResNet-18", Some(10)),
        ("a ResNet-180", 2, "ResNet-18", None),
        ("the Mann–Whitney U", 4, "Mann-Whitney", Some(18)), // the en dash is 3 bytes
        ("a t test", 2, "t-test", Some(8)),
        ("mnist digits", 0, "MNIST", None), // acronyms match case
        ("Student’s t-test", 0, "Student's t-test", Some(18)),
        ("xBERT", 1, "BERT", None),
    ];
    for (text, at, phrase, want) in cases {
        assert_eq!(phrase_at(text, at, phrase), want, "{phrase:?} in {text:?}");
    }
}

#[test]
fn claims_of_each_kind() {
    use ClaimKind::*;
    let md = "We train a ResNet-18 and logistic regression on CIFAR-10 and the Palmer Penguins dataset, \
              report accuracy and AUROC, and compare with a Wilcoxon signed-rank test and 1,000 bootstrap \
              resamples. We use a learning rate of 0.001, batch size 32, k = 5, 100 epochs and 5-fold \
              cross-validation.";
    let got = names(md);
    let want = [
        (Model, "ResNet-18", None),
        (Model, "logistic regression", None),
        (Dataset, "CIFAR-10", None),
        (Dataset, "Palmer Penguins", None),
        (Metric, "accuracy", None),
        (Metric, "AUROC", None),
        (StatTest, "Wilcoxon signed-rank test", None),
        (StatTest, "bootstrap", None),
        (Hyperparameter, "learning rate", Some(0.001)),
        (Hyperparameter, "batch size", Some(32.0)),
        (Hyperparameter, "k", Some(5.0)),
        (Hyperparameter, "epochs", Some(100.0)),
        (Hyperparameter, "folds", Some(5.0)),
    ];
    for w in want {
        let found = got.iter().any(|g| g.0 == w.0 && g.1 == w.1 && g.2 == w.2);
        assert!(found, "missing {w:?} in {got:?}");
    }
    assert_eq!(got.len(), want.len(), "{got:?}");
}

#[test]
fn not_claims() {
    let md = "Our dataset is new. The top-k list has k entries. We use the same dataset.\n\
              One data set, one simple classifier. Both data sets agree. Every dataset counts.\n\
              ```\nimport mnist\n```\n## References\n[1] ImageNet: a large-scale database.";
    assert_eq!(names(md), vec![]);
}

#[test]
fn repeated_claims_count_once_at_first_mention() {
    let md = "On MNIST we see x.\nAgain on MNIST.\nMNIST once more.";
    let claims = extract_claims(md);
    assert_eq!(claims.len(), 1);
    assert_eq!(
        (claims[0].line, claims[0].column, claims[0].mentions),
        (1, 4, 3)
    );
}

#[test]
fn value_after_table() {
    let cases = [
        (" of 0.001 for", false, Some(0.001)),
        (" 32 and", false, Some(32.0)),
        (" was set to 1e-3", false, Some(1e-3)),
        (" = 5", true, Some(5.0)),
        (" 5", true, None),
        (" schedule decays 10 times", false, None),
        ("s of 3", false, None),
    ];
    for (rest, eq, want) in cases {
        assert_eq!(value_after(rest, eq).map(|v| v.0), want, "{rest:?}");
    }
}

fn run_with(files: &[(&str, &str)]) -> (tempfile::TempDir, Corpus) {
    let dir = tempfile::tempdir().expect("tempdir");
    for (rel, text) in files {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
    let corpus = Corpus::load(dir.path()).expect("load corpus");
    (dir, corpus)
}

fn unmatched(md: &str, corpus: &Corpus) -> Vec<String> {
    check(md, corpus)
        .unmatched()
        .map(|c| c.claim.name.clone())
        .collect()
}

#[test]
fn datasets_tests_and_hyperparameters_against_a_code_tree() {
    let (_dir, corpus) = run_with(&[
        (
            "h-e1/code/train.py",
            "from sklearn.datasets import load_iris\nfrom scipy.stats import mannwhitneyu\n\
             clf = LogisticRegression(max_iter=200)\nopt = SGD(lr=1e-3)\n",
        ),
        ("h-e1/results/run.log", "epoch 1 test_accuracy 0.9\n"),
        ("h-e1/results/config.yaml", "batch_size: 32\n"),
    ]);
    let cases = [
        ("Results on the Iris dataset.", vec![]),
        ("Results on the Wine dataset.", vec!["Wine"]),
        ("We evaluate on CIFAR-10.", vec!["CIFAR-10"]),
        ("A Mann-Whitney U test.", vec![]),
        ("A paired t-test.", vec!["paired t-test"]),
        ("Logistic regression reaches high accuracy.", vec![]),
        ("A random forest.", vec!["random forest"]),
        ("A learning rate of 0.001.", vec![]),
        ("A learning rate of 0.01.", vec!["learning rate"]),
        ("With batch size 32.", vec![]),
        ("With batch size 64.", vec!["batch size"]),
    ];
    for (md, want) in cases {
        assert_eq!(unmatched(md, &corpus), want, "{md:?}");
    }
}

#[test]
fn evidence_names_file_and_line() {
    let (_dir, corpus) = run_with(&[("h-e1/code/stats.py", "x = 1\nttest_ind(a, b)\n")]);
    let report = check("A t-test was used.", &corpus);
    assert_eq!(report.checked.len(), 1);
    assert_eq!(
        report.checked[0].evidence,
        Some(Hit {
            file: "h-e1/code/stats.py".into(),
            line: 2
        })
    );
    assert_eq!(report.searched, ["h-e1/code/**"]);
    assert_eq!(report.files_searched, 1);
}
