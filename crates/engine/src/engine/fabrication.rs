//! Fabrication checks (YouRA §3.4), static part: signs that experiment code reports results
//! it did not measure, found by the analyzer `youra audit` runs (`crate::audit`: Python
//! parsed, each metric followed to its source). Each finding names a file and line; any
//! finding sends the attempt to repair before its evidence moves on. The independent model
//! check (brief vs code vs results) is done by the judge role in Coding & Validation.

use std::collections::BTreeMap;

use crate::audit::{
    self,
    ctx::TextFile,
    verdict::{Verdict, Weight},
};

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

/// Run `youra audit`'s analyzer on the attempt: its Python files (and notebooks) parsed,
/// each judged metric followed to its source, the dataset the brief names checked against
/// what the code loads, and the records checked for typed-in constants. A verdict of
/// Fabricated returns the evidence that decided it, and so does Synthetic when the brief
/// names a real dataset; anything else returns nothing (the judge's independent check
/// follows in Coding & Validation).
pub fn check(e: &Evidence<'_>) -> Vec<Finding> {
    let text = |f: &(String, String)| TextFile {
        path: f.0.clone(),
        text: f.1.clone(),
    };
    let input = audit::Input {
        code: e
            .files
            .iter()
            .filter(|f| f.0.ends_with(".py"))
            .map(text)
            .collect(),
        notebooks: e
            .files
            .iter()
            .filter(|f| f.0.ends_with(".ipynb"))
            .map(text)
            .collect(),
        records: e.records.to_vec(),
        options: audit::Options {
            paper: None,
            datasets: e.real_dataset.map(str::to_string).into_iter().collect(),
            metrics: e.metrics.to_vec(),
        },
        ..audit::Input::default()
    };
    let report = audit::analyze(input);
    // Generated data is refused only where the brief names a real dataset: a study of
    // simulated systems or toy distributions is synthetic by design.
    let real_named = e.real_dataset.is_some_and(|d| {
        let d = d.to_ascii_lowercase();
        !["synthetic", "simulat", "generated", "toy", "random"]
            .iter()
            .any(|w| d.contains(w))
    });
    let deciding = match report.verdict {
        Verdict::Fabricated => Weight::Fabricated,
        Verdict::Synthetic if real_named => Weight::Synthetic,
        Verdict::Synthetic | Verdict::Real | Verdict::Unknown => return Vec::new(),
    };
    report
        .evidence
        .into_iter()
        .filter(|x| x.weight == deciding && x.strength >= 0.5)
        .map(|x| Finding {
            file: if x.file == "--dataset" {
                "the brief's Dataset section".into()
            } else {
                x.file
            },
            line: x.line,
            kind: x.rule,
            detail: if x.excerpt.is_empty() {
                x.detail
            } else {
                format!("{} — `{}`", x.detail, x.excerpt)
            },
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
    fn data_through_a_library_the_audit_does_not_know_is_not_refused() {
        // Issue 44's risk: a real run reading its data through an unknown library, no metric
        // followable, must not be sent to repair as synthetic when the brief names a dataset.
        let lab = "import json\nimport fancyloader\nfrom mylab.models import build_model\nraw = fancyloader.open_split('penguins', 0.8)\ntrain_data = raw[0]\nmodel = build_model(width=8)\nacc = model.fit_and_score(train_data)\njson.dump({'accuracy': acc}, open('results/experiment_results.json', 'w'))\n";
        assert_eq!(run(&[("train.py", lab)], &[rec(0.5), rec(0.7)]), vec![]);
        // The same program building its data from its own numbers is refused.
        let built = "import json\nimport numpy as np\nfrom mylab.models import build_model\ngrid = np.arange(97 * 97)\ntrain_data = np.stack([grid // 97, grid % 97], axis=-1)\nmodel = build_model(width=8)\nacc = model.fit_and_score(train_data)\njson.dump({'accuracy': acc}, open('results/experiment_results.json', 'w'))\n";
        let found = run(&[("train.py", built)], &[rec(0.5), rec(0.7)]);
        assert!(found.iter().any(|f| f.kind == "data-census"), "{found:?}");
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
            f.iter().any(|x| x.kind == "metric-origin" && x.line == 2),
            "{f:?}"
        );
        assert!(f[0].detail.contains("literal 0.93"), "{f:?}");
    }

    #[test]
    fn synthetic_data_for_a_named_dataset_is_caught() {
        let f = run(&[("train.py", SYNTH)], &[]);
        assert_eq!(f[0].kind, "metric-origin");
        assert!(f[0].detail.contains("random.random"), "{f:?}");
        assert!(
            f.iter()
                .any(|x| x.kind == "paper-vs-code" && x.detail.contains("palmer penguins")),
            "{f:?}"
        );
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
        assert_eq!(f[0].kind, "execution");
        assert!(f[0].detail.contains("0.9 in all 5 records"), "{f:?}");
        assert!(run(&[("train.py", HONEST)], &vec![rec(0.9); 4]).is_empty());
        assert!(
            run(&[("train.py", HONEST)], &vec![rec(0.9341); 5]).is_empty(),
            "a flat honest value"
        );
    }

    /// What the keyword check got wrong (issue 44), each from the attacker's side: the
    /// findings an honest experiment must not get, and the fabrications it must not miss.
    #[test]
    fn the_analyzer_reads_code_as_code() {
        let load = "import pandas as pd\ndf = pd.read_csv('../data/penguins.csv')\n";
        for (label, body, flagged) in [
            (
                "f-string format",
                "val = df['y'].mean()\nprint(f'{val:.4f}')\nr = {'accuracy': val}\n",
                false,
            ),
            (
                "formula from a constant",
                "kl = df['kl'].mean()\nr = {'accuracy': 1.0 / (1.0 + kl)}\n",
                false,
            ),
            (
                "docstring",
                "def f(d):\n    \"\"\"accuracy = 0.95, np.random.rand(9)\"\"\"\n    return d['y'].mean()\nr = {'accuracy': f(df)}\n",
                false,
            ),
            (
                "augmentation",
                "x = df.values + np.random.normal(0, 0.1, df.shape)\nr = {'accuracy': x.mean()}\n",
                false,
            ),
            (
                "an unused load_dataset hides a generated set",
                "rng = np.random.default_rng(0)\nX = rng.choice(9, 50)\nr = {'accuracy': X.mean()}\n",
                true,
            ),
            (
                "torch.randint",
                "y = torch.randint(0, 2, (64,))\nr = {'accuracy': y.float().mean()}\n",
                true,
            ),
            (
                "a mock back-end",
                "class MockClassifier:\n    def predict(self, x):\n        return 1\nm = MockClassifier()\nr = {'accuracy': m.predict(df)}\n",
                true,
            ),
            (
                "literal plus noise",
                "r = {'accuracy': 0.91 + random.gauss(0, 0.01)}\n",
                true,
            ),
        ] {
            let code = format!("{load}{body}");
            let f = run(&[("train.py", &code)], &[]);
            assert_eq!(!f.is_empty(), flagged, "{label}: {f:?}");
        }
        // torchvision's datasets are real data, not an unknown call.
        let tv = "import torchvision\nds = torchvision.datasets.MNIST('d', download=True)\nr = {'accuracy': score(ds)}\n";
        let f = check(&Evidence {
            files: &[("train.py".to_string(), tv.to_string())],
            metrics: &["accuracy".into()],
            real_dataset: Some("MNIST"),
            records: &[],
        });
        assert_eq!(f, vec![]);
    }

    #[test]
    fn generated_data_is_refused_only_where_the_brief_names_a_real_dataset() {
        let files = [("sim.py".to_string(), SYNTH.to_string())];
        let with = |dataset| {
            check(&Evidence {
                files: &files,
                metrics: &["accuracy".into()],
                real_dataset: dataset,
                records: &[],
            })
        };
        assert!(!with(Some("palmer penguins")).is_empty());
        assert_eq!(with(Some("synthetic 2-D Gaussian mixtures")), vec![]);
        assert_eq!(with(None), vec![]);
        // A typed-in metric is refused whatever the brief says.
        let literal = [("t.py".to_string(), LITERAL.to_string())];
        let f = check(&Evidence {
            files: &literal,
            metrics: &["accuracy".into()],
            real_dataset: None,
            records: &[],
        });
        assert!(f.iter().any(|x| x.kind == "metric-origin"), "{f:?}");
    }
}
