//! `youra bench audit`: the analyzer measured on a labelled corpus — a folder of research
//! outputs and a `labels.json` giving each one's true class (real, synthetic, fabricated)
//! and the evidence that decided it. It reports the confusion matrix, precision and recall
//! for "not real" and for fabricated, the share of cited `file:line`s that exist, and the
//! time to audit a generated 500-file output.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::ctx::TextFile;
use super::verdict::Verdict;
use super::{Options, audit_folder};

/// One labelled output of `labels.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct Label {
    /// The output's folder, relative to the corpus.
    pub dir: String,
    /// real, synthetic or fabricated.
    pub label: Verdict,
    /// What decided the label (`file:line` and why), for a reader checking it.
    pub evidence: String,
    /// The output's paper, relative to its folder.
    #[serde(default)]
    pub paper: Option<String>,
    /// Where the output came from (a system's name, or "constructed").
    #[serde(default)]
    pub source: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Labels {
    pub outputs: Vec<Label>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub dir: String,
    /// The system that wrote the output (`labels.json`'s `source`).
    pub source: String,
    pub label: Verdict,
    pub predicted: Verdict,
    pub confidence: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Scores {
    pub rows: Vec<Row>,
    /// `matrix[true][predicted]` over real, synthetic, fabricated, unknown.
    pub matrix: [[usize; 4]; 4],
    pub not_real_precision: f64,
    pub not_real_recall: f64,
    pub fabricated_precision: f64,
    pub fabricated_recall: f64,
    pub cited: usize,
    pub cited_exist: usize,
}

pub const CLASSES: [Verdict; 4] = [
    Verdict::Real,
    Verdict::Synthetic,
    Verdict::Fabricated,
    Verdict::Unknown,
];

fn index(v: Verdict) -> usize {
    CLASSES.iter().position(|c| *c == v).unwrap_or(3)
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        f64::NAN
    } else {
        a as f64 / b as f64
    }
}

/// Whether `file:line` names a line that exists under `base`.
fn line_exists(base: &Path, file: &str, line: usize) -> bool {
    let path = if Path::new(file).is_absolute() {
        PathBuf::from(file)
    } else {
        base.join(file)
    };
    crate::fsutil::read_capped_string(&path, 64 << 20)
        .is_ok_and(|t| line >= 1 && line <= t.lines().count().max(1))
}

/// Audit every labelled output of `corpus` and score the verdicts.
pub fn score(corpus: &Path) -> Result<Scores, String> {
    let labels_path = corpus.join("labels.json");
    let text = crate::fsutil::read_capped_string(&labels_path, 8 << 20)
        .map_err(|e| format!("cannot read {}: {e}", labels_path.display()))?;
    let labels: Labels = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not a labels file: {e}", labels_path.display()))?;
    let mut s = Scores {
        rows: vec![],
        matrix: [[0; 4]; 4],
        not_real_precision: 0.0,
        not_real_recall: 0.0,
        fabricated_precision: 0.0,
        fabricated_recall: 0.0,
        cited: 0,
        cited_exist: 0,
    };
    for l in &labels.outputs {
        let dir = corpus.join(&l.dir);
        let paper = match &l.paper {
            Some(p) => Some(TextFile {
                path: p.clone(),
                text: crate::fsutil::read_capped_string(dir.join(p), 8 << 20)
                    .map_err(|e| format!("{}: cannot read its paper {p}: {e}", l.dir))?,
            }),
            None => None,
        };
        let report = audit_folder(
            &dir,
            Options {
                paper,
                ..Options::default()
            },
        )
        .map_err(|e| format!("{}: {e}", dir.display()))?;
        for e in report
            .evidence
            .iter()
            .filter(|e| e.line >= 1 && e.file != "--dataset")
        {
            s.cited += 1;
            s.cited_exist += usize::from(line_exists(&dir, &e.file, e.line));
        }
        s.matrix[index(l.label)][index(report.verdict)] += 1;
        s.rows.push(Row {
            dir: l.dir.clone(),
            source: l.source.clone(),
            label: l.label,
            predicted: report.verdict,
            confidence: report.confidence,
        });
    }
    let not_real = |v: Verdict| matches!(v, Verdict::Synthetic | Verdict::Fabricated);
    let count = |f: &dyn Fn(&Row) -> bool| s.rows.iter().filter(|r| f(r)).count();
    let tp = count(&|r| not_real(r.label) && not_real(r.predicted));
    s.not_real_precision = ratio(tp, count(&|r| not_real(r.predicted)));
    s.not_real_recall = ratio(tp, count(&|r| not_real(r.label)));
    let fab = |v: Verdict| v == Verdict::Fabricated;
    let tp = count(&|r| fab(r.label) && fab(r.predicted));
    s.fabricated_precision = ratio(tp, count(&|r| fab(r.predicted)));
    s.fabricated_recall = ratio(tp, count(&|r| fab(r.label)));
    Ok(s)
}

/// Per source, in order of first appearance: outputs, and how many were audited as labelled.
pub fn by_source(rows: &[Row]) -> Vec<(String, usize, usize)> {
    let mut out: Vec<(String, usize, usize)> = Vec::new();
    for r in rows {
        let i = match out.iter().position(|(s, _, _)| *s == r.source) {
            Some(i) => i,
            None => {
                out.push((r.source.clone(), 0, 0));
                out.len() - 1
            }
        };
        out[i].1 += 1;
        out[i].2 += usize::from(r.label == r.predicted);
    }
    out
}

/// Write an output of `files` Python files into `dir` (a package of data loaders, models
/// and experiments importing each other, and a results file) and time its audit.
pub fn speed(dir: &Path, files: usize) -> std::io::Result<(Duration, Verdict)> {
    let pkg = dir.join("pkg");
    std::fs::create_dir_all(&pkg)?;
    std::fs::write(pkg.join("__init__.py"), "")?;
    for i in 0..files.saturating_sub(2) {
        let body = match i % 3 {
            0 => format!(
                "import pandas as pd\n\n\ndef load_{i}(path):\n    \"\"\"Rows of split {i}.\"\"\"\n    df = pd.read_csv(path)\n    return df.dropna()\n"
            ),
            1 => format!(
                "import numpy as np\nfrom pkg.m{prev} import load_{prev}\n\n\ndef score_{i}(path, seed={i}):\n    rng = np.random.default_rng(seed)\n    df = load_{prev}(path)\n    noise = rng.normal(0, 0.01, len(df))\n    return float(((df['y'] + noise) > 0.5).mean())\n",
                prev = i - 1
            ),
            _ => format!(
                "import json\nfrom pkg.m{prev} import score_{prev}\n\n\ndef main_{i}():\n    acc = score_{prev}('data/d{i}.csv')\n    print(f'acc_{i}: {{acc:.4f}}')\n    json.dump({{'accuracy_{i}': acc}}, open('results_{i}.json', 'w'))\n",
                prev = i - 1
            ),
        };
        std::fs::write(pkg.join(format!("m{i}.py")), format!("{body}{}", filler(i)))?;
    }
    std::fs::write(dir.join("results.json"), "{\"accuracy_2\": 0.8123}\n")?;
    let start = Instant::now();
    let report = audit_folder(dir, Options::default())?;
    Ok((start.elapsed(), report.verdict))
}

/// Forty lines of ordinary code per generated file (a class with methods, a docstring, a
/// loop), so the timed output reads like an agent's and not like a list of one-liners.
fn filler(i: usize) -> String {
    format!(
        r#"

class Helper{i}:
    """Keeps running statistics for split {i}."""

    def __init__(self, window=10):
        self.window = window
        self.values = []
        self.best = float("inf")

    def update(self, value):
        self.values.append(value)
        if len(self.values) > self.window:
            self.values = self.values[-self.window:]
        self.best = min(self.best, value)
        return self.mean()

    def mean(self):
        if not self.values:
            return 0.0
        return sum(self.values) / len(self.values)

    def summary(self):
        return {{"mean_{i}": self.mean(), "best_{i}": self.best, "n": len(self.values)}}


def schedule_{i}(step, warmup=100, total=1000):
    if step < warmup:
        return step / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return 0.5 * (1.0 + progress)


def batches_{i}(rows, size=32):
    for start in range(0, len(rows), size):
        yield rows[start:start + size]
"#
    )
}
