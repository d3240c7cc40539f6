//! The curated vocabularies of method provenance, as data: what prose names (datasets,
//! models, metrics, statistical tests, hyperparameters) and how the same thing is spelled in
//! code, configs and logs. Matching is case- and separator-insensitive on both sides
//! (`ResNet-18` ~ `resnet18`, `logistic regression` ~ `LogisticRegression`), so only
//! spellings that differ beyond that are listed under `code` (`t-test` ~ `ttest_ind`).
//! Add a term here; nothing else changes.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum ClaimKind {
    Dataset,
    Model,
    Metric,
    StatTest,
    Hyperparameter,
}

impl ClaimKind {
    pub fn label(self) -> &'static str {
        match self {
            ClaimKind::Dataset => "dataset",
            ClaimKind::Model => "model",
            ClaimKind::Metric => "metric",
            ClaimKind::StatTest => "statistical test",
            ClaimKind::Hyperparameter => "hyperparameter",
        }
    }
}

/// A named thing prose may claim was used.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Term {
    pub kind: ClaimKind,
    /// Canonical name, as findings print it.
    pub name: &'static str,
    /// How prose writes it. All-capital spellings (`MNIST`, `OLS`) match case-sensitively,
    /// the rest case-insensitively; separators (space, `-`, `_`, en dash) are optional.
    pub prose: &'static [&'static str],
    /// Further spellings in code, configs and logs.
    pub code: &'static [&'static str],
    /// Recognised wherever prose names it; `false` for common words (`Iris`, `Adult`),
    /// recognised only as `<Name> dataset`.
    pub standalone: bool,
}

const fn t(
    kind: ClaimKind,
    name: &'static str,
    prose: &'static [&'static str],
    code: &'static [&'static str],
) -> Term {
    Term {
        kind,
        name,
        prose,
        code,
        standalone: true,
    }
}

const fn word(name: &'static str, code: &'static [&'static str]) -> Term {
    Term {
        kind: ClaimKind::Dataset,
        name,
        prose: &[],
        code,
        standalone: false,
    }
}

use ClaimKind::{Dataset as D, Metric as ME, Model as MO, StatTest as S};

#[rustfmt::skip]
pub(crate) const TERMS: &[Term] = &[
    // Datasets.
    t(D, "MNIST", &["MNIST"], &[]),
    t(D, "Fashion-MNIST", &["Fashion-MNIST"], &[]),
    t(D, "CIFAR-10", &["CIFAR-10"], &[]),
    t(D, "CIFAR-100", &["CIFAR-100"], &[]),
    t(D, "ImageNet", &["ImageNet", "ILSVRC"], &["ilsvrc2012"]),
    t(D, "SVHN", &["SVHN"], &[]),
    t(D, "CelebA", &["CelebA"], &[]),
    t(D, "COCO", &["COCO", "MS-COCO"], &["mscoco"]),
    t(D, "SQuAD", &["SQuAD"], &[]),
    t(D, "GLUE", &["GLUE"], &[]),
    t(D, "SuperGLUE", &["SuperGLUE"], &[]),
    t(D, "SST-2", &["SST-2"], &[]),
    t(D, "IMDB", &["IMDB"], &[]),
    t(D, "MMLU", &["MMLU"], &[]),
    t(D, "GSM8K", &["GSM8K"], &[]),
    t(D, "HumanEval", &["HumanEval"], &["openai_humaneval"]),
    t(D, "MBPP", &["MBPP"], &[]),
    t(D, "WikiText-103", &["WikiText-103"], &[]),
    t(D, "WikiText-2", &["WikiText-2"], &[]),
    t(D, "Penn Treebank", &["Penn Treebank", "PTB"], &["ptb"]),
    t(D, "The Pile", &["The Pile"], &["pile"]),
    t(D, "OpenWebText", &["OpenWebText"], &[]),
    t(D, "TinyStories", &["TinyStories"], &[]),
    t(D, "HellaSwag", &["HellaSwag"], &[]),
    t(D, "TruthfulQA", &["TruthfulQA"], &[]),
    t(D, "MovieLens", &["MovieLens"], &["ml-100k", "ml-1m"]),
    t(D, "Open LLM Leaderboard", &["Open LLM Leaderboard"], &[]),
    t(D, "Palmer Penguins", &["Palmer Penguins", "palmerpenguins"], &["load_penguins", "penguins.csv"]),
    word("Iris", &["load_iris"]),
    word("Wine", &["load_wine"]),
    word("Digits", &["load_digits"]),
    word("Breast Cancer", &["load_breast_cancer"]),
    word("California Housing", &["fetch_california_housing"]),
    word("Diabetes", &["load_diabetes"]),
    word("Adult", &["census_income"]),
    word("Penguins", &["palmerpenguins", "load_penguins"]),
    // Models.
    t(MO, "ResNet-18", &["ResNet-18"], &[]),
    t(MO, "ResNet-34", &["ResNet-34"], &[]),
    t(MO, "ResNet-50", &["ResNet-50"], &[]),
    t(MO, "ResNet-101", &["ResNet-101"], &[]),
    t(MO, "VGG-16", &["VGG-16"], &[]),
    t(MO, "ViT", &["ViT", "Vision Transformer"], &["VisionTransformer"]),
    t(MO, "BERT", &["BERT"], &[]),
    t(MO, "RoBERTa", &["RoBERTa"], &[]),
    t(MO, "DistilBERT", &["DistilBERT"], &[]),
    t(MO, "GPT-2", &["GPT-2"], &[]),
    t(MO, "T5", &["T5"], &[]),
    t(MO, "LSTM", &["LSTM"], &[]),
    t(MO, "GRU", &["GRU"], &[]),
    t(MO, "MLP", &["MLP", "multilayer perceptron", "multi-layer perceptron"], &["MLPClassifier", "MLPRegressor"]),
    t(MO, "logistic regression", &["logistic regression"], &["LogisticRegression", "logit"]),
    t(MO, "linear regression", &["linear regression"], &["LinearRegression"]),
    t(MO, "ridge regression", &["ridge regression"], &["Ridge", "RidgeCV"]),
    t(MO, "random forest", &["random forest"], &["RandomForestClassifier", "RandomForestRegressor"]),
    t(MO, "gradient boosting", &["gradient boosting", "gradient-boosted trees"], &["GradientBoostingClassifier", "GradientBoostingRegressor", "HistGradientBoostingClassifier", "xgboost", "lightgbm"]),
    t(MO, "XGBoost", &["XGBoost"], &["XGBClassifier", "XGBRegressor"]),
    t(MO, "LightGBM", &["LightGBM"], &["LGBMClassifier", "LGBMRegressor"]),
    t(MO, "SVM", &["SVM", "support vector machine"], &["SVC", "SVR", "LinearSVC"]),
    t(MO, "k-nearest neighbours", &["k-nearest neighbors", "k-nearest neighbours", "kNN", "k-NN"], &["KNeighborsClassifier", "KNeighborsRegressor", "knn"]),
    t(MO, "decision tree", &["decision tree"], &["DecisionTreeClassifier", "DecisionTreeRegressor"]),
    t(MO, "naive Bayes", &["naive Bayes"], &["GaussianNB", "MultinomialNB", "BernoulliNB"]),
    t(MO, "k-means", &["k-means"], &["KMeans", "MiniBatchKMeans"]),
    t(MO, "OLS", &["OLS", "ordinary least squares"], &["ols", "LinearRegression"]),
    // Metrics.
    t(ME, "accuracy", &["accuracy", "top-1 accuracy"], &["acc", "accuracy_score", "acc1", "top1"]),
    t(ME, "F1", &["F1", "F1 score", "F1-score", "macro-F1"], &["f1_score"]),
    t(ME, "AUROC", &["AUROC", "ROC-AUC", "ROC AUC", "AUC"], &["roc_auc", "roc_auc_score", "auc"]),
    t(ME, "AUPRC", &["AUPRC", "PR-AUC", "average precision"], &["average_precision_score", "pr_auc"]),
    t(ME, "RMSE", &["RMSE", "root mean squared error"], &["rmse", "root_mean_squared_error", "mean_squared_error"]),
    t(ME, "MSE", &["MSE", "mean squared error"], &["mse", "mean_squared_error"]),
    t(ME, "MAE", &["MAE", "mean absolute error"], &["mae", "mean_absolute_error"]),
    t(ME, "R²", &["R²", "R-squared", "R^2", "coefficient of determination"], &["r2", "r2_score", "rsquared", "r_squared"]),
    t(ME, "perplexity", &["perplexity"], &["ppl"]),
    t(ME, "BLEU", &["BLEU"], &["sacrebleu"]),
    t(ME, "ROUGE", &["ROUGE", "ROUGE-L"], &["rouge_score", "rougeL"]),
    t(ME, "exact match", &["exact match"], &["exact_match", "em"]),
    t(ME, "pass@k", &["pass@1", "pass@k", "pass@10"], &["pass_at_k", "pass_at_1"]),
    t(ME, "ECE", &["ECE", "expected calibration error"], &["ece", "calibration_error"]),
    t(ME, "log loss", &["log loss", "log-loss", "cross-entropy loss"], &["log_loss", "cross_entropy", "CrossEntropyLoss"]),
    // Statistical tests.
    t(S, "t-test", &["t-test", "Student's t-test", "t test"], &["ttest", "ttest_ind", "ttest_rel", "ttest_1samp", "t_test", "ttest_ind_from_stats"]),
    t(S, "paired t-test", &["paired t-test", "paired t test"], &["ttest_rel"]),
    t(S, "Welch's t-test", &["Welch's t-test", "Welch t-test", "Welch's test"], &["equal_var=False", "welch"]),
    t(S, "Wilcoxon signed-rank test", &["Wilcoxon", "Wilcoxon signed-rank"], &["wilcoxon"]),
    t(S, "Mann-Whitney U test", &["Mann-Whitney", "Mann-Whitney U", "Wilcoxon rank-sum"], &["mannwhitneyu", "mann_whitney", "ranksums"]),
    t(S, "Kruskal-Wallis test", &["Kruskal-Wallis"], &["kruskal"]),
    t(S, "ANOVA", &["ANOVA", "analysis of variance"], &["f_oneway", "anova_lm", "AnovaRM", "anova"]),
    t(S, "chi-square test", &["chi-square test", "chi-squared test", "χ² test", "chi-square"], &["chi2_contingency", "chisquare", "chi2"]),
    t(S, "Fisher's exact test", &["Fisher's exact test", "Fisher exact test"], &["fisher_exact"]),
    t(S, "bootstrap", &["bootstrap", "bootstrapped", "bootstrapping"], &["bootstrap", "resample", "n_boot", "n_bootstrap"]),
    t(S, "permutation test", &["permutation test"], &["permutation_test", "permutation"]),
    t(S, "Kolmogorov-Smirnov test", &["Kolmogorov-Smirnov", "KS test"], &["ks_2samp", "kstest"]),
    t(S, "Shapiro-Wilk test", &["Shapiro-Wilk"], &["shapiro"]),
    t(S, "Spearman correlation", &["Spearman", "Spearman's rho", "Spearman's ρ"], &["spearmanr", "spearman"]),
    t(S, "Pearson correlation", &["Pearson correlation", "Pearson's r", "Pearson"], &["pearsonr", "corrcoef", "pearson"]),
    t(S, "Kendall's tau", &["Kendall's tau", "Kendall's τ", "Kendall tau"], &["kendalltau"]),
    t(S, "Bonferroni correction", &["Bonferroni"], &["bonferroni"]),
    t(S, "Holm correction", &["Holm-Bonferroni", "Holm correction"], &["holm"]),
    t(S, "Benjamini-Hochberg", &["Benjamini-Hochberg", "false discovery rate"], &["fdr_bh", "benjamini", "fdrcorrection"]),
    t(S, "McNemar's test", &["McNemar", "McNemar's test"], &["mcnemar"]),
    t(S, "Friedman test", &["Friedman test"], &["friedmanchisquare"]),
    t(S, "DeLong test", &["DeLong"], &["delong"]),
];

/// A hyperparameter prose may state with a value.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hyper {
    pub name: &'static str,
    /// Phrases followed by the value: `learning rate of 0.001`, `batch size 32`.
    pub prose: &'static [&'static str],
    /// Nouns that follow the value instead, as `numbers` reads them as units: `100 epochs`,
    /// `500 trees`; `-fold` stands for the compound `5-fold`.
    pub after: &'static [&'static str],
    /// Names in code, configs and logs; the value must follow one on the same line.
    pub code: &'static [&'static str],
    /// A one-letter name (`k`) counts only with `=` (`k = 5`), else it is any letter.
    pub needs_eq: bool,
}

const fn h(
    name: &'static str,
    prose: &'static [&'static str],
    after: &'static [&'static str],
    code: &'static [&'static str],
) -> Hyper {
    Hyper {
        name,
        prose,
        after,
        code,
        needs_eq: false,
    }
}

#[rustfmt::skip]
pub(crate) const HYPERS: &[Hyper] = &[
    h("learning rate", &["learning rate", "learning-rate", "lr", "step size"], &[], &["lr", "learning_rate", "eta", "base_lr"]),
    h("batch size", &["batch size", "mini-batch size", "minibatch size"], &[], &["batch_size", "bs", "batchsize", "per_device_train_batch_size", "train_batch_size"]),
    h("weight decay", &["weight decay"], &[], &["weight_decay", "wd"]),
    h("dropout", &["dropout", "dropout rate", "dropout probability"], &[], &["dropout", "p_drop", "drop_rate", "dropout_rate"]),
    h("epochs", &["number of epochs", "training epochs"], &["epochs"], &["epochs", "num_epochs", "n_epochs", "max_epochs", "num_train_epochs", "epoch"]),
    h("momentum", &["momentum"], &[], &["momentum"]),
    h("warmup steps", &["warmup steps", "warm-up steps"], &[], &["warmup_steps", "num_warmup_steps", "warmup"]),
    h("hidden size", &["hidden size", "hidden dimension", "hidden units"], &[], &["hidden_size", "hidden_dim", "d_model", "hidden_units", "n_hidden"]),
    h("temperature", &["temperature"], &[], &["temperature", "temp"]),
    h("max depth", &["max depth", "maximum depth", "max_depth"], &[], &["max_depth"]),
    h("trees", &["number of trees", "n_estimators"], &["trees"], &["n_estimators", "num_trees", "ntree"]),
    h("folds", &["number of folds"], &["-fold"], &["n_splits", "n_folds", "folds", "cv", "kfold"]),
    Hyper { name: "k", prose: &["k"], after: &[], code: &["k", "n_neighbors", "n_splits", "n_folds", "top_k", "cv", "n_clusters"], needs_eq: true },
];
