//! The paper against the code: every dataset the paper (or `--dataset`) names must be
//! loaded by code whose data reaches a reported metric; a "-style" dataset is one generated
//! in the image of the real one, which the paper itself calls synthetic.

use crate::audit::ctx::Ctx;
use crate::audit::flow::{Root, RootKind};
use crate::audit::verdict::{Evidence, Origin, Weight};

pub(crate) const RULE: &str = "paper-vs-code";

const NOT_NAMES: [&str; 44] = [
    "the",
    "a",
    "an",
    "our",
    "this",
    "that",
    "these",
    "those",
    "its",
    "their",
    "which",
    "synthetic",
    "new",
    "public",
    "real",
    "standard",
    "same",
    "each",
    "every",
    "training",
    "test",
    "evaluation",
    "benchmark",
    "dataset",
    "and",
    "of",
    "one",
    "two",
    "three",
    "single",
    "another",
    "any",
    "no",
    "full",
    "entire",
    "original",
    "whole",
    "small",
    "large",
    "first",
    "second",
    "toy",
    "tabular",
    "such",
];

fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase()
}

/// The dataset names a paper states: up to two name-like words before "dataset",
/// "benchmark" or "corpus" (`the CIFAR-10 dataset`, `on Palmer Penguins data set`).
pub(crate) fn named_datasets(paper: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    for (i, line) in paper.lines().enumerate() {
        let words: Vec<&str> = line
            .split_whitespace()
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-'))
            .collect();
        for (j, w) in words.iter().enumerate() {
            let lw = w.to_ascii_lowercase();
            let data_set = lw == "data"
                && words
                    .get(j + 1)
                    .is_some_and(|n| n.eq_ignore_ascii_case("set"));
            if !matches!(lw.as_str(), "dataset" | "datasets" | "benchmark" | "corpus") && !data_set
            {
                continue;
            }
            let mut name: Vec<&str> = Vec::new();
            for w in words[..j].iter().rev().take(2) {
                let looks = w
                    .chars()
                    .any(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
                    && !w.ends_with("-style");
                if !looks || NOT_NAMES.contains(&w.to_ascii_lowercase().as_str()) {
                    break;
                }
                name.insert(0, w);
            }
            let name = name.join(" ");
            if norm(&name).len() >= 3 && !out.iter().any(|(_, n)| norm(n) == norm(&name)) {
                out.push((i + 1, name));
            }
        }
    }
    out
}

fn tokens(name: &str) -> Vec<String> {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .map(|t| t.to_ascii_lowercase())
        .filter(|t| t.len() >= 3 && !["data", "dataset", "the", "set"].contains(&t.as_str()))
        .collect()
}

/// A loader whose data reaches a metric and whose call, module strings or the folder's
/// data files name `dataset`.
fn loader_of<'c>(ctx: &'c Ctx, dataset: &str) -> Option<&'c Root> {
    let toks = tokens(dataset);
    let joined = norm(dataset);
    let hit = |text: &str| {
        let t = norm(text);
        t.contains(&joined) || toks.iter().any(|k| t.contains(k.as_str()))
    };
    ctx.traced
        .iter()
        .flat_map(|t| t.roots.iter())
        .filter(|r| r.kind == RootKind::Loader)
        .find(|r| {
            let m = ctx.module(r.module);
            hit(&m.excerpt(r.line))
                || m.strings.iter().any(|(_, s)| hit(s))
                || ctx.data_files.iter().any(|f| hit(f))
        })
}

pub fn check(ctx: &Ctx) -> Vec<Evidence> {
    let mut out = Vec::new();
    let generated = ctx.traced.iter().any(|t| t.origin == Origin::Generator);
    let paper_path = ctx
        .paper
        .as_ref()
        .map(|p| p.path.clone())
        .unwrap_or_default();
    let mut names: Vec<(Option<usize>, String)> =
        ctx.datasets.iter().map(|d| (None, d.clone())).collect();
    if let Some(p) = &ctx.paper {
        names.extend(
            named_datasets(&p.text)
                .into_iter()
                .map(|(l, n)| (Some(l), n)),
        );
    }
    for (line, name) in names {
        let at = |weight, strength, detail: String| match line {
            Some(l) => Evidence {
                file: paper_path.clone(),
                line: l,
                rule: RULE,
                excerpt: ctx
                    .paper
                    .as_ref()
                    .and_then(|p| p.text.lines().nth(l - 1))
                    .unwrap_or("")
                    .trim()
                    .chars()
                    .take(100)
                    .collect(),
                detail,
                weight,
                strength,
            },
            None => Evidence {
                file: "--dataset".into(),
                line: 0,
                rule: RULE,
                excerpt: name.clone(),
                detail,
                weight,
                strength,
            },
        };
        if let Some(r) = loader_of(ctx, &name) {
            out.push(ctx.at(
                r.module,
                r.line,
                RULE,
                Weight::Real,
                0.85,
                format!(
                    "`{name}`, named by the {}, is loaded here and reaches a reported metric",
                    if line.is_some() { "paper" } else { "caller" }
                ),
            ));
        } else if generated {
            out.push(at(Weight::Synthetic, 0.85, format!("names `{name}`, but no code whose data reaches a metric loads it; the metrics come from generated data")));
        } else {
            out.push(at(
                Weight::Doubt,
                0.6,
                format!("names `{name}`, but no code whose data reaches a metric loads it"),
            ));
        }
    }
    if let Some(p) = &ctx.paper {
        for (i, line) in p.text.lines().enumerate() {
            let Some(word) = line.split_whitespace().find(|w| {
                w.to_ascii_lowercase()
                    .trim_end_matches(|c: char| !c.is_alphanumeric())
                    .ends_with("-style")
            }) else {
                continue;
            };
            let base = word.to_ascii_lowercase();
            let base = base.split("-style").next().unwrap_or("");
            if loader_of(ctx, base).is_none() {
                out.push(Evidence {
                    file: p.path.clone(),
                    line: i + 1,
                    rule: RULE,
                    excerpt: line.trim().chars().take(100).collect(),
                    detail: format!("the paper's data is `{word}`: made in the image of a dataset, not the dataset (synthetic)"),
                    weight: Weight::Synthetic,
                    strength: 0.7,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dataset_names_are_read_from_the_paper() {
        let got: Vec<String> = named_datasets(
            "We evaluate on the CIFAR-10 dataset and the Palmer Penguins data set.\nOur synthetic dataset has 5 rows.\nThe IMDB benchmark. One data set, one classifier.",
        )
        .into_iter()
        .map(|(_, n)| n)
        .collect();
        assert_eq!(got, ["CIFAR-10", "Palmer Penguins", "IMDB"]);
    }
}
