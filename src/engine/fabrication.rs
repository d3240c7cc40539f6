//! Fabrication checks (YouRA §3.4), static part: signs that experiment code reports results
//! it did not measure. Each finding names a file and line; any finding sends the attempt to
//! repair before its evidence moves on. The independent model check (brief vs code vs
//! results) is done by the judge role in Coding & Validation.

use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub file: String,
    pub line: usize,
    pub kind: &'static str,
    pub detail: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: {} ({})",
            self.file, self.line, self.detail, self.kind
        )
    }
}

/// What the checks look at: the code files, the metric names the gate judges, whether the
/// brief names a real dataset, and the metric records the run produced.
pub struct Evidence<'a> {
    pub files: &'a [(String, String)],
    pub metrics: &'a [String],
    pub real_dataset: Option<&'a str>,
    pub records: &'a [BTreeMap<String, f64>],
}

const SYNTHETIC: [&str; 8] = [
    "np.random.rand",
    "np.random.randn",
    "random.random(",
    "random.gauss(",
    "make_classification",
    "make_blobs",
    "torch.randn",
    "synthetic",
];
const READS: [&str; 10] = [
    "open(",
    "read_csv",
    "csv.reader",
    "csv.DictReader",
    "np.load",
    "np.loadtxt",
    "json.load",
    "load_dataset",
    "read_text",
    "pd.read",
];
const WRITES: [&str; 4] = [
    "experiment_results",
    "metrics.jsonl",
    "YOURA_METRICS_FILE",
    "YOURA_RESULTS_DIR",
];

pub fn check(e: &Evidence<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for (file, text) in e.files {
        out.extend(metric_literals(file, text, e.metrics));
    }
    let code: Vec<&(String, String)> = e
        .files
        .iter()
        .filter(|(f, _)| f.ends_with(".py") || f.ends_with(".sh") || f.ends_with(".R"))
        .collect();
    let reads = code.iter().any(|(_, t)| reads_data(t));
    if let Some(dataset) = e.real_dataset {
        for (file, text) in &code {
            if let Some((line, what)) = first_line(text, &SYNTHETIC).filter(|_| !reads) {
                out.push(Finding { file: file.clone(), line, kind: "synthetic_data", detail: format!("generates data with `{what}` while the brief names the real dataset {dataset}, and no code reads a data file") });
            }
        }
    }
    let writer = code
        .iter()
        .find_map(|(f, t)| first_line(t, &WRITES).map(|(l, _)| (f.clone(), l)));
    if let Some((file, line)) = writer.filter(|_| !reads) {
        out.push(Finding {
            file,
            line,
            kind: "no_data_read",
            detail: "writes results but no code opens or loads any data".into(),
        });
    }
    out.extend(constant_metrics(e.records, e.metrics));
    out
}

/// Whether the code loads anything: a loader call, or an `open(` that is not a write and
/// not of its own results.
fn reads_data(text: &str) -> bool {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .any(|l| {
            READS
                .iter()
                .filter(|r| **r != "open(")
                .any(|r| l.contains(r))
                || (l.contains("open(")
                    && !["'w'", "\"w\"", "'a'", "\"a\"", "'wb'", "\"wb\""]
                        .iter()
                        .any(|m| l.contains(m))
                    && !WRITES.iter().any(|w| l.contains(w)))
        })
}

fn first_line(text: &str, needles: &[&str]) -> Option<(usize, String)> {
    text.lines().enumerate().find_map(|(i, l)| {
        let code = l.split('#').next().unwrap_or("");
        needles
            .iter()
            .find(|n| code.contains(**n))
            .map(|n| (i + 1, n.to_string()))
    })
}

/// `"accuracy": 0.93` or `accuracy = 0.93` in code: a judged metric given a literal value.
fn metric_literals(file: &str, text: &str, metrics: &[String]) -> Vec<Finding> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = line.split('#').next().unwrap_or("");
        for m in metrics {
            for pat in [format!("\"{m}\""), format!("'{m}'"), m.clone()] {
                let Some(at) = code.find(&pat) else { continue };
                let rest = code[at + pat.len()..].trim_start();
                let Some(rest) = rest
                    .strip_prefix(':')
                    .or_else(|| rest.strip_prefix('=').filter(|r| !r.starts_with('=')))
                else {
                    continue;
                };
                let lit: String = rest
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == '-')
                    .collect();
                if lit.parse::<f64>().is_ok() && !is_init(&lit) {
                    out.push(Finding {
                        file: file.into(),
                        line: i + 1,
                        kind: "metric_literal",
                        detail: format!("`{m}` is given the literal {lit}"),
                    });
                    break;
                }
            }
        }
    }
    out
}

/// `best_acc = 0` or `= 0.0` initialises a running value; that is not a reported result.
fn is_init(lit: &str) -> bool {
    lit.parse::<f64>().is_ok_and(|x| x == 0.0 || x == -1.0)
}

/// A judged metric that never moves across five or more records and is a round number
/// (at most two decimals): the mark of a typed-in value. An honest metric can be flat
/// (a centroid classifier barely changes with more data), but rarely flat at 0.95 exactly.
fn constant_metrics(records: &[BTreeMap<String, f64>], metrics: &[String]) -> Vec<Finding> {
    metrics
        .iter()
        .filter_map(|m| {
            let vals: Vec<f64> = records.iter().filter_map(|r| r.get(m).copied()).collect();
            let round = vals
                .first()
                .is_some_and(|v| ((v * 100.0).round() - v * 100.0).abs() < 1e-9);
            (vals.len() >= 5 && round && vals.windows(2).all(|w| w[0] == w[1])).then(|| Finding {
                file: "results/metrics.jsonl".into(),
                line: 1,
                kind: "constant_metric",
                detail: format!("`{m}` is {} in all {} records", vals[0], vals.len()),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const HONEST: &str = "import csv, json, os\nrows = list(csv.DictReader(open('../data/penguins.csv')))\nbest_acc = 0\nacc = evaluate(rows)\njson.dump({'accuracy': acc}, open(os.environ['YOURA_RESULTS_DIR'] + '/experiment_results.json', 'w'))\n";
    const LITERAL: &str = "import json\nresults = {\"accuracy\": 0.93}\njson.dump(results, open('results/experiment_results.json','w'))\n";
    const SYNTH: &str = "import random, json\nX = [random.random() for _ in range(100)]\njson.dump({'accuracy': score(X)}, open('results/experiment_results.json','w'))\n";

    fn run(files: &[(&str, &str)], records: &[BTreeMap<String, f64>]) -> Vec<Finding> {
        let files: Vec<(String, String)> = files
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        check(&Evidence {
            files: &files,
            metrics: &["accuracy".into()],
            real_dataset: Some("palmer penguins"),
            records,
        })
    }

    fn rec(acc: f64) -> BTreeMap<String, f64> {
        [("accuracy".to_string(), acc)].into_iter().collect()
    }

    #[test]
    fn honest_code_has_no_findings() {
        assert_eq!(
            run(&[("train.py", HONEST)], &[rec(0.5), rec(0.7), rec(0.9)]),
            vec![]
        );
    }

    #[test]
    fn a_metric_literal_is_caught_with_its_line() {
        let f = run(&[("train.py", LITERAL)], &[]);
        assert!(
            f.iter().any(|x| x.kind == "metric_literal" && x.line == 2),
            "{f:?}"
        );
        assert!(f.iter().any(|x| x.kind == "no_data_read"), "{f:?}");
    }

    #[test]
    fn synthetic_data_for_a_named_dataset_is_caught() {
        let f = run(&[("train.py", SYNTH)], &[]);
        assert_eq!(f[0].kind, "synthetic_data");
        assert_eq!(f[0].line, 2);
        assert_eq!(
            f[0].to_string().split(':').take(2).collect::<Vec<_>>(),
            ["train.py", "2"]
        );
    }

    #[test]
    fn round_constant_metrics_are_caught_but_short_or_precise_ones_are_not() {
        let f = run(&[("train.py", HONEST)], &vec![rec(0.9); 5]);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].kind, "constant_metric");
        assert!(run(&[("train.py", HONEST)], &vec![rec(0.9); 4]).is_empty());
        assert!(
            run(&[("train.py", HONEST)], &vec![rec(0.9341); 5]).is_empty(),
            "a flat honest value"
        );
    }
}
