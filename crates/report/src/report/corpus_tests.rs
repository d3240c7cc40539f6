use super::*;

fn file(text: &str) -> CorpusFile {
    CorpusFile::new("f.py".into(), text.into())
}

#[test]
fn spellings_match_across_case_and_separators_at_word_edges() {
    let cases = [
        ("model = torchvision.models.resnet18()", "ResNet-18", true),
        ("stats.ttest_ind(a, b)", "t-test", true),
        ("from scipy.stats import mannwhitneyu", "mannwhitneyu", true),
        (
            "clf = LogisticRegression(C=1.0)",
            "logistic regression",
            true,
        ),
        ("ds = load_dataset('cifar10')", "CIFAR-10", true),
        ("ds = load_dataset('cifar100')", "CIFAR-10", false),
        ("total = accumulate(x)", "acc", false),
        ("metrics['test_acc'] = 0.9", "acc", true),
        ("x = fashion_mnist", "MNIST", true),
        ("x = mnistish", "MNIST", false),
        ("use_bert_base = True", "BERT", true),
        ("robert = 1", "BERT", false),
        ("KFold(n_splits=5)", "kfold", true),
    ];
    for (text, spelling, want) in cases {
        assert_eq!(
            !file(text).find_all(spelling).is_empty(),
            want,
            "{spelling:?} in {text:?}"
        );
    }
}

#[test]
fn find_all_maps_back_to_original_bytes() {
    let f = file("a\nx = ResNet_18(…)");
    let hits = f.find_all("resnet18");
    assert_eq!(hits.len(), 1);
    let (s, e) = hits[0];
    assert_eq!(&f.text[s..e], "ResNet_18");
    assert_eq!(f.line_of(s), 2);
}

#[test]
fn code_numbers_table() {
    let cases: &[(&str, &[f64])] = &[
        ("lr=1e-3, momentum=0.9", &[1e-3, 0.9]),
        ("\"batch_size\": 32,", &[32.0]),
        ("--epochs 100", &[100.0]),
        ("n = 1_000; p = .5", &[1000.0, 0.5]),
        ("conv2d(x86)", &[]),
        ("v = 3.", &[3.0]),
        ("lr: 1.0E-04", &[1e-4]),
    ];
    for (text, want) in cases {
        assert_eq!(code_numbers(text), *want, "{text:?}");
    }
}

#[test]
fn values_follow_their_name_on_the_same_line() {
    let corpus = Corpus::from_texts(vec![
        (
            "train.py".into(),
            "BATCH = 64\nopt = Adam(lr=1e-3)\nbatch_size = 32\n".into(),
        ),
        (
            "cfg.yaml".into(),
            "learning_rate: 0.01\nepochs:\n  100\n".into(),
        ),
    ]);
    let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let hit = corpus.find_value(&names(&["lr", "learning_rate"]), 0.001);
    assert_eq!(
        hit,
        Some(Hit {
            file: "train.py".into(),
            line: 2
        })
    );
    assert!(corpus.find_value(&names(&["batch_size"]), 32.0).is_some());
    assert!(corpus.find_value(&names(&["batch_size"]), 64.0).is_none());
    assert!(
        corpus
            .find_value(&names(&["learning_rate"]), 0.01)
            .is_some()
    );
    assert!(
        corpus.find_value(&names(&["epochs"]), 100.0).is_none(),
        "not on the same line"
    );
}

#[test]
fn load_reads_code_results_and_configs_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dir.path();
    let put = |rel: &str, text: &[u8]| {
        let p = run.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    };
    put("h-e1/code/train.py", b"import sklearn");
    put("h-e1/code/__pycache__/x.pyc", b"cached");
    put("h-e1/code/blob.bin", b"\0\0binary");
    put("h-e1/results/run.log", b"done");
    put("h-e1/results/plot.png", b"png");
    put("h-e1/02c_experiment_brief.md", b"planned, not executed");
    put("configs/base.yaml", b"lr: 0.1");
    let corpus = Corpus::load(run).expect("load");
    let paths: Vec<&str> = corpus.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "configs/base.yaml",
            "h-e1/code/train.py",
            "h-e1/results/run.log"
        ]
    );
    assert_eq!(
        corpus.searched,
        ["configs/**", "h-e1/code/**", "h-e1/results/**"]
    );
}
