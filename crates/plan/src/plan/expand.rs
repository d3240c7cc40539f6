//! Expansion by the reflector (PrimeScientist §3.3 "Expansion"): the prompt it is given
//! (`prompts/plan_expansion.md`, filled with the node's evidence from `evidence.rs`: its
//! result, log tail, diff, failure analysis and branch) and its reply, parsed and checked by
//! rule into `Draft`s for `PlanTree::expand` (pure).
//!
//! Reply: `{"children": [{"plan": "<markdown>", "prior": {"estimate": P, "hypothesis": …,
//! "rationale": …, "changes": [...], "risks": [...]}}]}` (a bare list of children, and the
//! JSON inside a ```json fence, are accepted too). Rules, each with a note when applied:
//! - P outside [0, 1] is clamped; a missing or non-numeric P is left unset (selection uses 0.5);
//! - a child without a plan is dropped;
//! - a child too similar to its parent, to an existing child or to a sibling kept before it
//!   is dropped: word-bigram Jaccard similarity ≥ `SIMILARITY_LIMIT` (see `similarity`);
//! - at most m children are kept, in the reply's order.

use std::collections::HashSet;

use serde_json::Value;

use super::evidence::Evidence;
use super::files::Prior;
use super::tree::Draft;

/// The prompt the engine renders for an expansion.
pub const EXPANSION_PROMPT: &str = include_str!("../../../../prompts/plan_expansion.md");
/// Word-bigram Jaccard at or above which two plans count as the same plan reworded. 0.6:
/// a plan that changes one paragraph of five stays above it; one that changes the
/// method, the data or the design falls well below (the table test shows both).
pub const SIMILARITY_LIMIT: f64 = 0.6;

/// Children that passed the rules, and one note per rule applied.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Expansion {
    pub drafts: Vec<Draft>,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExpandError {
    #[error(
        "the reflector's expansion reply is not JSON ({message} at line {line}, column {col}); it must be {{\"children\": [{{\"plan\": …, \"prior\": {{…}}}}]}}"
    )]
    NotJson {
        line: usize,
        col: usize,
        message: String,
    },
    #[error(
        "the reflector's expansion reply has no `children` list; it must be {{\"children\": [{{\"plan\": …, \"prior\": {{…}}}}]}}"
    )]
    NoChildren,
    #[error("no usable child plan in the reflector's reply: {}", .0.join("; "))]
    NothingUsable(Vec<String>),
}

/// The prompt with the node's evidence filled in, asking for 1 to `m` children (`m`: the
/// room the tree leaves, `PlanTree::room`). One pass over the template: a plan or a log that
/// contains `{{diff}}` is pasted as it is, never filled in turn.
pub fn expansion_prompt(e: &Evidence, m: usize) -> String {
    let m = m.to_string();
    fill(
        EXPANSION_PROMPT,
        &[
            ("parent_plan", &e.plan),
            ("parent_outcome", &e.result),
            ("log_tail", &e.log_tail),
            ("diff", &e.diff),
            ("failure", &e.failure),
            ("tree_context", &e.branch),
            ("tree", &e.tree),
            ("memory", &e.memory),
            ("m", &m),
        ],
    )
}

/// `template` with each `{{name}}` of `vars` replaced; other braces are kept.
pub(super) fn fill(template: &str, vars: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() * 2);
    let mut rest = template;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let var = after
            .find("}}")
            .and_then(|j| Some((vars.iter().find(|(k, _)| *k == &after[..j])?.1, j)));
        match var {
            Some((value, j)) => {
                out.push_str(value);
                rest = &after[j + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Parse and check a reply. `existing` are the plans of the parent's current children (a
/// widening must not repeat them); `hypothesis_id` is copied to every draft.
pub fn parse_expansion(
    reply: &str,
    parent_plan: &str,
    existing: &[&str],
    m: usize,
    hypothesis_id: Option<&str>,
) -> Result<Expansion, ExpandError> {
    let children = children(reply)?;
    let mut out = Expansion::default();
    let mut kept: Vec<String> = Vec::new();
    for (i, child) in children.iter().enumerate() {
        let label = format!("child {}", i + 1);
        if out.drafts.len() >= m {
            out.notes.push(format!(
                "{label}: dropped, at most {m} children per expansion"
            ));
            continue;
        }
        let Some(plan) = child
            .get("plan")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|p| !p.is_empty())
        else {
            out.notes
                .push(format!("{label}: dropped, it has no `plan` text"));
            continue;
        };
        if let Some(why) = too_similar(plan, parent_plan, existing, &kept) {
            out.notes.push(format!("{label}: dropped, {why}"));
            continue;
        }
        let prior = prior(child.get("prior"), &label, &mut out.notes);
        kept.push(plan.to_string());
        out.drafts.push(Draft {
            plan: format!("{plan}\n"),
            prior,
            hypothesis_id: hypothesis_id.map(str::to_string),
        });
    }
    if out.drafts.is_empty() {
        return Err(ExpandError::NothingUsable(out.notes));
    }
    Ok(out)
}

/// The list of children: `{"children": [...]}` or a bare list, fenced or not.
fn children(reply: &str) -> Result<Vec<Value>, ExpandError> {
    let text = json_part(reply);
    let value: Value = serde_json::from_str(text).map_err(|e| ExpandError::NotJson {
        line: e.line(),
        col: e.column(),
        message: super::error::json_message(&e),
    })?;
    match value {
        Value::Array(items) => Ok(items),
        Value::Object(mut map) => match map.remove("children") {
            Some(Value::Array(items)) => Ok(items),
            _ => Err(ExpandError::NoChildren),
        },
        _ => Err(ExpandError::NoChildren),
    }
}

/// From the first `{` or `[` to the last matching closer: models wrap JSON in prose or
/// fences however they are asked.
pub(super) fn json_part(reply: &str) -> &str {
    let start = reply.find(['{', '[']);
    let end = reply.rfind(['}', ']']);
    match (start, end) {
        (Some(s), Some(e)) if e > s => &reply[s..=e],
        _ => reply.trim(),
    }
}

pub(super) fn prior(raw: Option<&Value>, label: &str, notes: &mut Vec<String>) -> Prior {
    let Some(Value::Object(map)) = raw else {
        notes.push(format!("{label}: no `prior`; P = 0.5 is used"));
        return Prior::default();
    };
    let text = |k: &str| {
        map.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim()
            .to_string()
    };
    let mut prior = Prior {
        estimate: estimate(map.get("estimate"), label, notes),
        hypothesis: text("hypothesis"),
        rationale: text("rationale"),
        changes: strings(map.get("changes")),
        risks: strings(map.get("risks")),
        ..Prior::default()
    };
    for (k, v) in map {
        if !matches!(
            k.as_str(),
            "estimate" | "hypothesis" | "rationale" | "changes" | "risks"
        ) {
            prior.extra.insert(k.clone(), v.clone());
        }
    }
    prior
}

fn estimate(raw: Option<&Value>, label: &str, notes: &mut Vec<String>) -> Option<f64> {
    let p = match raw {
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::String(s)) => s.trim().trim_end_matches('%').parse::<f64>().ok().map(|p| {
            if s.trim().ends_with('%') {
                p / 100.0
            } else {
                p
            }
        }),
        _ => None,
    };
    match p {
        None => {
            notes.push(format!(
                "{label}: no numeric prior estimate; P = 0.5 is used"
            ));
            None
        }
        Some(p) if !(0.0..=1.0).contains(&p) => {
            let c = p.clamp(0.0, 1.0);
            notes.push(format!(
                "{label}: prior estimate {p} is outside [0, 1]; clamped to {c}"
            ));
            Some(c)
        }
        Some(p) => Some(p),
    }
}

/// A list of strings, or one string as a one-item list.
fn strings(raw: Option<&Value>) -> Vec<String> {
    match raw {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        Some(Value::String(s)) if !s.trim().is_empty() => vec![s.trim().to_string()],
        _ => Vec::new(),
    }
}

/// Why `plan` is not substantively different from the parent, an existing child or a
/// sibling kept before it, if it is not.
fn too_similar(plan: &str, parent: &str, existing: &[&str], kept: &[String]) -> Option<String> {
    let check = |other: &str, what: &str| {
        let s = similarity(plan, other);
        (s >= SIMILARITY_LIMIT).then(|| {
            format!("its plan is {:.0}% the same as {what} (word-bigram overlap ≥ {:.0}%): not a substantive alternative", s * 100.0, SIMILARITY_LIMIT * 100.0)
        })
    };
    check(parent, "its parent's")
        .or_else(|| {
            existing
                .iter()
                .find_map(|e| check(e, "an existing child's"))
        })
        .or_else(|| {
            kept.iter()
                .find_map(|k| check(k, "a sibling's proposed before it"))
        })
}

/// Jaccard similarity of the two texts' sets of word bigrams (lower-cased alphanumeric
/// words), in [0, 1]. Bigrams rather than words: two plans on one topic share most words,
/// but a reworded copy also shares most word pairs. A text of one word counts that word.
pub fn similarity(a: &str, b: &str) -> f64 {
    let (x, y) = (bigrams(a), bigrams(b));
    if x.is_empty() && y.is_empty() {
        return 1.0;
    }
    let shared = x.intersection(&y).count();
    shared as f64 / (x.len() + y.len() - shared) as f64
}

fn bigrams(text: &str) -> HashSet<(String, String)> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    match words.len() {
        0 => HashSet::new(),
        1 => HashSet::from([(words[0].clone(), String::new())]),
        _ => words
            .windows(2)
            .map(|w| (w[0].clone(), w[1].clone()))
            .collect(),
    }
}

#[cfg(test)]
#[path = "expand_tests.rs"]
mod tests;
