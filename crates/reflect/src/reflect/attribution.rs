//! SAGE's Multi-Hypothesis Failure Attribution, the deterministic half: reading the
//! generator's K ∈ [3,5] candidate causes, applying the critic's severities and
//! re-categorisations, and choosing h* = argmax s. The model calls live in the engine.
//!
//! Evidence rule: a candidate's evidence must point at something observed, or the critic
//! has nothing to check it against. It must contain at least one of
//! - a trajectory feature name: `decay`, `slope`, `volatility`, `signature`, or a signature
//!   (`stagnation`, `saturation`, `instability`, `improving`, `decline`), any case;
//! - a quoted log excerpt: at least [`MIN_QUOTE`] characters inside `"…"`, `“…”` or `` `…` ``;
//! - a log line reference: `line N` (any case, N digits).

use serde::Serialize;
use serde_json::Value;

/// How many candidates the generator must propose (SAGE: K ∈ [3,5]).
pub(crate) const K_MIN: usize = 3;
pub(crate) const K_MAX: usize = 5;
/// A quote shorter than this is a word in quotes, not a log line.
pub(crate) const MIN_QUOTE: usize = 8;

const FEATURE_WORDS: [&str; 9] = [
    "decay",
    "slope",
    "volatility",
    "signature",
    "stagnation",
    "saturation",
    "instability",
    "improving",
    "decline",
];

pub use crate::vocab::{Category, rank};

/// One candidate cause h_i = ⟨description, category, evidence, fix⟩ and, once the critic
/// has scored it, its severity s_i ∈ [0,1].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Attribution {
    pub description: String,
    pub category: Category,
    pub evidence: String,
    pub fix: String,
    pub severity: Option<f64>,
}

/// The critic's result: the scored candidates, and what was clamped or re-categorised.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Critique {
    pub attributions: Vec<Attribution>,
    pub notes: Vec<String>,
}

/// Parses the generator's JSON: an array of candidates, or an object holding one under
/// `candidates`, `attributions` or `hypotheses`. Each needs `description`, `category`,
/// `evidence` (citing per the module's rule) and `fix` (or `proposed_fix`).
pub fn parse_candidates(json: &str) -> Result<Vec<Attribution>, String> {
    let value: Value = serde_json::from_str(json.trim()).map_err(|e| {
        format!(
            "the attribution reply is not valid JSON (line {}, column {}: {e}); ask the generator again for a JSON array of candidates",
            e.line(),
            e.column()
        )
    })?;
    candidates_from_value(&value)
}

/// The generator's reply: K_MIN to K_MAX candidate causes, each Method or Design, with the
/// observation it rests on and a fix (the evidence rule is checked by [`candidates_from_value`]).
pub fn generator_schema() -> crate::llm::ReplySchema {
    use crate::llm::schema as js;
    let candidate = js::object(&[
        ("description", js::text()),
        ("category", js::one_of(&["Method", "Design"])),
        ("evidence", js::text()),
        ("fix", js::text()),
    ]);
    crate::llm::ReplySchema::new(
        "attribution_candidates",
        js::object(&[("candidates", js::array(candidate, K_MIN, Some(K_MAX)))]),
    )
}

/// The critic's reply: one severity in [0, 1] per candidate, numbered from 1, and
/// optionally a changed category.
pub fn critic_schema() -> crate::llm::ReplySchema {
    use crate::llm::schema as js;
    let score = js::object_with(
        &[
            ("candidate", js::integer(1, K_MAX as i64)),
            ("severity", js::number(0.0, 1.0)),
        ],
        &[
            ("category", js::one_of(&["Method", "Design"])),
            ("reason", js::string()),
        ],
    );
    crate::llm::ReplySchema::new(
        "attribution_scores",
        js::object(&[("scores", js::array(score, K_MIN, Some(K_MAX)))]),
    )
}

/// As [`parse_candidates`], for JSON the engine has already extracted from a reply.
pub fn candidates_from_value(value: &Value) -> Result<Vec<Attribution>, String> {
    let list = list_in(value, &["candidates", "attributions", "hypotheses"]).ok_or(
        "the attribution reply holds no list of candidates: expected a JSON array or {\"candidates\": [...]}",
    )?;
    if !(K_MIN..=K_MAX).contains(&list.len()) {
        return Err(format!(
            "the generator proposed {} candidate causes; SAGE asks for {K_MIN} to {K_MAX}: ask it again",
            list.len()
        ));
    }
    list.iter()
        .enumerate()
        .map(|(i, item)| candidate(i + 1, item))
        .collect()
}

fn list_in<'v>(value: &'v Value, keys: &[&str]) -> Option<&'v Vec<Value>> {
    value
        .as_array()
        .or_else(|| keys.iter().find_map(|k| value.get(k)?.as_array()))
}

fn candidate(n: usize, item: &Value) -> Result<Attribution, String> {
    let text = |keys: &[&str]| -> Result<String, String> {
        keys.iter()
            .find_map(|k| item.get(k)?.as_str())
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .ok_or_else(|| format!("candidate {n} has no `{}` text", keys[0]))
    };
    let raw_category = text(&["category"])?;
    let category = Category::parse(&raw_category).ok_or_else(|| {
        format!("candidate {n} has category `{raw_category}`; it must be Method or Design")
    })?;
    let evidence = text(&["evidence"])?;
    if !cites_observation(&evidence) {
        return Err(format!(
            "candidate {n}'s evidence cites no observation: name a trajectory feature (decay, slope, volatility, signature), quote a log line in \"…\" or `…`, or cite `line N`"
        ));
    }
    Ok(Attribution {
        description: text(&["description"])?,
        category,
        evidence,
        fix: text(&["fix", "proposed_fix"])?,
        severity: None,
    })
}

/// The evidence rule of the module doc.
pub(crate) fn cites_observation(evidence: &str) -> bool {
    let lower = evidence.to_lowercase();
    FEATURE_WORDS.iter().any(|w| lower.contains(w))
        || has_line_ref(&lower)
        || [('"', '"'), ('“', '”'), ('`', '`')]
            .iter()
            .any(|&(open, close)| has_quote(evidence, open, close))
}

fn has_line_ref(lower: &str) -> bool {
    lower.match_indices("line").any(|(i, _)| {
        // `line` as a word: "pipeline 3" is not a line reference.
        let word_start = !lower[..i].ends_with(|c: char| c.is_alphanumeric());
        let rest = lower[i + 4..].trim_start_matches([' ', '#', ':']);
        word_start && rest.starts_with(|c: char| c.is_ascii_digit())
    })
}

fn has_quote(text: &str, open: char, close: char) -> bool {
    let mut rest = text;
    while let Some(start) = rest.find(open) {
        let after = &rest[start + open.len_utf8()..];
        let Some(end) = after.find(close) else {
            return false;
        };
        if after[..end].trim().chars().count() >= MIN_QUOTE {
            return true;
        }
        rest = &after[end + close.len_utf8()..];
    }
    false
}

/// Applies the critic's JSON: `{"scores": [{"candidate": N, "severity": s, "category": …}]}`
/// (or a bare array), N counting from 1 as the prompt numbers them. Every candidate must be
/// scored exactly once. s outside [0,1] is clamped and noted; a `category` that differs from
/// the generator's re-categorises the candidate and is noted.
pub fn apply_critique(candidates: &[Attribution], critic_json: &str) -> Result<Critique, String> {
    let value: Value = serde_json::from_str(critic_json.trim()).map_err(|e| {
        format!(
            "the critic's reply is not valid JSON (line {}, column {}: {e}); ask the critic again",
            e.line(),
            e.column()
        )
    })?;
    critique_from_value(candidates, &value)
}

/// As [`apply_critique`], for JSON the engine has already extracted.
pub(crate) fn critique_from_value(
    candidates: &[Attribution],
    value: &Value,
) -> Result<Critique, String> {
    let scores = list_in(value, &["scores", "critique", "rankings"]).ok_or(
        "the critic's reply holds no list of scores: expected {\"scores\": [{\"candidate\": 1, \"severity\": 0.7}, ...]}",
    )?;
    let mut out = candidates.to_vec();
    let mut notes = Vec::new();
    for score in scores {
        let n = score
            .get("candidate")
            .and_then(Value::as_u64)
            .filter(|&n| n >= 1 && n as usize <= out.len())
            .ok_or_else(|| {
                format!(
                    "a critic score names no candidate 1..={}: {score}",
                    out.len()
                )
            })? as usize;
        let c = &mut out[n - 1];
        if c.severity.is_some() {
            return Err(format!(
                "the critic scored candidate {n} twice; ask it again"
            ));
        }
        c.severity = Some(severity(n, score, &mut notes)?);
        recategorise(n, c, score, &mut notes)?;
    }
    if let Some(i) = out.iter().position(|c| c.severity.is_none()) {
        return Err(format!(
            "the critic did not score candidate {}; every candidate needs a severity",
            i + 1
        ));
    }
    Ok(Critique {
        attributions: out,
        notes,
    })
}

fn severity(n: usize, score: &Value, notes: &mut Vec<String>) -> Result<f64, String> {
    let s = score
        .get("severity")
        .and_then(Value::as_f64)
        .ok_or_else(|| format!("the critic's score for candidate {n} has no numeric `severity`"))?;
    let clamped = s.clamp(0.0, 1.0);
    if clamped != s {
        notes.push(format!(
            "candidate {n}: severity {s} is outside [0,1]; clamped to {clamped}"
        ));
    }
    Ok(clamped)
}

fn recategorise(
    n: usize,
    c: &mut Attribution,
    score: &Value,
    notes: &mut Vec<String>,
) -> Result<(), String> {
    let Some(raw) = score.get("category").and_then(Value::as_str) else {
        return Ok(());
    };
    let to = Category::parse(raw).ok_or_else(|| {
        format!("the critic gave candidate {n} category `{raw}`; it must be Method or Design")
    })?;
    if to != c.category {
        notes.push(format!(
            "candidate {n}: re-categorised {} → {}",
            c.category.as_str(),
            to.as_str()
        ));
        c.category = to;
    }
    Ok(())
}

/// h* = argmax s over scored candidates. Ties go to Design, then to the earlier candidate:
/// a design cause is the more fundamental one, and refining the method under a flawed design
/// is the localized trial-and-error SAGE sets out to avoid; "earlier" keeps the choice
/// deterministic and honours the generator's own ordering.
pub fn best(candidates: &[Attribution]) -> Option<&Attribution> {
    ranked(candidates)
        .into_iter()
        .next()
        .filter(|c| c.severity.is_some())
}

/// The candidates in [`best`]'s order (h* first; unscored ones last, in their order).
pub fn ranked(candidates: &[Attribution]) -> Vec<&Attribution> {
    let mut out: Vec<&Attribution> = candidates.iter().collect();
    rank(&mut out, |a| (a.severity, a.category == Category::Design));
    out
}

#[cfg(test)]
#[path = "attribution_tests.rs"]
mod tests;
