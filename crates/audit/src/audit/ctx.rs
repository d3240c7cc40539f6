//! What every rule reads: the parsed program, the folder's result files and logs, the
//! paper, the datasets named, and each reported metric traced to its roots.

use std::collections::BTreeMap;

use super::flow::{Program, Root, RootKind, Roots};
use super::ir::Module;
use super::verdict::{Evidence, Origin, Weight};

#[derive(Debug, Clone)]
pub struct TextFile {
    pub path: String,
    pub text: String,
}

/// A reported metric followed to its roots.
#[derive(Debug, Clone)]
pub struct Traced {
    pub metric: String,
    pub module: usize,
    pub line: usize,
    /// The literal the site assigns, when it assigns one directly.
    pub literal: Option<String>,
    pub roots: Roots,
    pub origin: Origin,
}

pub struct Ctx {
    /// How many code files and notebooks were parsed.
    pub files: usize,
    pub program: Program,
    /// Per module: on the executed path (not a test, and reached from the script the logs
    /// name when they name one).
    pub executed: Vec<bool>,
    /// Per module: another module of the output imports it (its `__main__` block is a
    /// self-test, not the run).
    pub imported: Vec<bool>,
    pub results: Vec<TextFile>,
    pub logs: Vec<TextFile>,
    /// Names of data files in the folder (too big or not text).
    pub data_files: Vec<String>,
    pub paper: Option<TextFile>,
    pub datasets: Vec<String>,
    /// The engine's metric records (one map per record), when the caller has them.
    pub records: Vec<BTreeMap<String, f64>>,
    pub traced: Vec<Traced>,
}

impl Ctx {
    /// Whether `line` of module `m` is the self-test of a module the run imports.
    pub(crate) fn self_test(&self, m: usize, line: usize) -> bool {
        self.imported[m] && self.module(m).in_main_block(line)
    }

    pub fn module(&self, m: usize) -> &Module {
        &self.program.modules[m]
    }

    /// Evidence at `line` of module `m` (a notebook's line mapped into its file).
    pub fn at(
        &self,
        m: usize,
        line: usize,
        rule: &'static str,
        weight: Weight,
        strength: f64,
        detail: String,
    ) -> Evidence {
        let module = self.module(m);
        Evidence {
            file: module.file.clone(),
            line: module.file_line(line),
            rule,
            excerpt: module.excerpt(line),
            detail,
            weight,
            strength,
        }
    }

    /// `file:line what` of a root, for a metric's sources.
    pub fn describe(&self, r: &Root) -> String {
        let module = self.module(r.module);
        format!("{}:{} {}", module.file, module.file_line(r.line), r.what)
    }
}

/// The origin a metric's roots give it: a mock anywhere wins, then loaded data, then a
/// literal (alone, plus noise, or drawn by `random() < rate`), then generated data.
pub fn origin(roots: &Roots) -> Origin {
    let has = |k: RootKind| roots.iter().any(|r| r.kind == k);
    if has(RootKind::Mock) {
        Origin::Mock
    } else if has(RootKind::Loader) {
        Origin::Loader
    } else if has(RootKind::Noise) || has(RootKind::Outcome) {
        Origin::Literal
    } else if has(RootKind::Generator) {
        Origin::Generator
    } else if has(RootKind::Literal)
        && roots
            .iter()
            .all(|r| matches!(r.kind, RootKind::Literal | RootKind::Constant))
    {
        Origin::Literal
    } else {
        Origin::Unknown
    }
}

const METRIC_WORDS: [&str; 36] = [
    "acc",
    "f1",
    "auc",
    "loss",
    "mae",
    "mse",
    "rmse",
    "score",
    "precision",
    "recall",
    "bleu",
    "rouge",
    "perplexity",
    "ppl",
    "success",
    "reward",
    "win_rate",
    "error",
    "r2",
    "kl",
    "ndcg",
    "mrr",
    "hit",
    "correct",
    "pass",
    "exact_match",
    "iou",
    "dice",
    "psnr",
    "ssim",
    "fid",
    "improvement",
    "gain",
    "speedup",
    "spearman",
    "pearson",
];
/// Keys that hold a setting or a number from elsewhere, not a measurement.
const NOT_MEASURED: [&str; 16] = [
    // `gradient_accumulation_steps` starts with "acc" and measures nothing.
    "accumulation",
    "accumulate",
    "target",
    "threshold",
    "expected",
    "goal",
    "required",
    "paper",
    "reported",
    "baseline_from",
    "published",
    "sota",
    "literature",
    "learning_rate",
    "lr",
    "tolerance",
];
const SETTING_HOLDERS: [&str; 12] = [
    "config",
    "constraints",
    "requirements",
    "cfg",
    "params",
    "hparams",
    "args",
    "settings",
    "thresholds",
    "targets",
    "expected",
    "baselines",
];

/// Whether a string key names a reported metric: one the caller or a result file names, or
/// a metric word, and neither the key nor its dict's name says it is a setting.
pub(crate) fn is_metric_key(key: &str, holder: Option<&str>, wanted: &[String]) -> bool {
    let k = key.to_ascii_lowercase();
    if wanted.iter().any(|w| w.eq_ignore_ascii_case(key)) {
        return true;
    }
    let holder = holder.unwrap_or("").to_ascii_lowercase();
    if SETTING_HOLDERS.iter().any(|h| {
        holder == *h || holder.ends_with(&format!("_{h}")) || holder.starts_with(&format!("{h}_"))
    }) {
        return false;
    }
    METRIC_WORDS.iter().any(|w| {
        k.split(|c: char| !c.is_ascii_alphanumeric())
            .any(|part| part.starts_with(w))
            || k == *w
    }) && !NOT_MEASURED.iter().any(|w| {
        k.split(|c: char| !c.is_ascii_alphanumeric())
            .any(|p| p == *w)
    })
}

/// `0`, `0.0`, `-1`, `1e9`: a running value's start, not a result.
pub(crate) fn is_init(lit: &str) -> bool {
    lit.parse::<f64>()
        .is_ok_and(|x| x == 0.0 || x == -1.0 || x.abs() >= 1e6)
}

#[cfg(test)]
mod tests {
    use super::is_metric_key;

    #[test]
    fn metric_keys_are_told_from_settings_that_share_a_prefix() {
        for (key, holder, want) in [
            ("accuracy", None, true),
            ("val_acc", None, true),
            ("clar_acc", None, true),
            ("f1_macro", None, true),
            ("gradient_accumulation_steps", None, false),
            ("accumulate_grad_batches", None, false),
            ("learning_rate", None, false),
            ("accuracy", Some("config"), false),
            ("target_accuracy", None, false),
            ("recall", Some("performance_thresholds"), false),
            ("min_recall", Some("constraints"), false),
            ("recall", Some("results"), true),
        ] {
            assert_eq!(is_metric_key(key, holder, &[]), want, "{key} in {holder:?}");
        }
    }
}
