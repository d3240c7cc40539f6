//! Gap Selection, the first step of Hypothesis Debate (YouRA Appendix A: "Gap Selection
//! chooses the priority research gap and supporting evidence from Literature Grounding").
//! The gaps Literature Grounding listed are numbered by rule; the model picks one by its
//! number, with the evidence for it and why; a number outside the list is refused (the
//! stage resumes with the reason). The choice is written to `00_gap_selection.yaml`, and the
//! personas and the moderator argue about that gap, not about all of them at once.

use serde_json::{Value, json};

use crate::engine::check::section_body;
use crate::engine::ctx::{StageCtx, Vars};
use crate::engine::error::StageError;
use crate::engine::reply::str_field;
use crate::engine::yamlout;
use crate::llm::ReplySchema;
use crate::llm::schema as js;

pub(crate) const ARTIFACT: &str = "00_gap_selection.yaml";

/// The gap the debate is about.
#[derive(Debug, Clone, PartialEq)]
pub struct Gap {
    /// 1-based, in Literature Grounding's order.
    pub number: usize,
    pub text: String,
    pub evidence: Vec<String>,
    pub rationale: String,
}

impl Gap {
    /// The gap as the persona and moderator prompts show it.
    pub(crate) fn prompt_text(&self) -> String {
        let mut out = format!("Gap {}: {}", self.number, self.text);
        if !self.evidence.is_empty() {
            out.push_str("\nSupporting evidence:");
            for e in &self.evidence {
                out.push_str(&format!("\n- {e}"));
            }
        }
        if !self.rationale.is_empty() {
            out.push_str(&format!("\nWhy this gap first: {}", self.rationale));
        }
        out
    }
}

/// The gaps of a `## Gaps` section: each numbered (`1.`, `2)`) or bulleted (`-`, `*`) item
/// with its continuation lines; a section of prose without items is one gap; an empty one
/// none.
pub fn gaps(section: &str) -> Vec<String> {
    let mut items: Vec<String> = Vec::new();
    let mut prose = Vec::new();
    for line in section.lines() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(rest) = item_text(t) {
            items.push(rest.to_string());
        } else if let Some(last) = items.last_mut() {
            last.push(' ');
            last.push_str(t);
        } else {
            prose.push(t);
        }
    }
    if items.is_empty() && !prose.is_empty() {
        items.push(prose.join(" "));
    }
    items.retain(|i| !i.trim().is_empty());
    items
}

/// The text of a list item line (`1. x`, `2) x`, `- x`, `* x`), else `None`.
fn item_text(line: &str) -> Option<&str> {
    if let Some(rest) = line.strip_prefix("- ").or_else(|| line.strip_prefix("* ")) {
        return Some(rest.trim());
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let rest = &line[digits..];
    rest.strip_prefix(". ")
        .or_else(|| rest.strip_prefix(") "))
        .map(str::trim)
}

/// The reply: the gap's number among `n`, its supporting evidence, and why it goes first.
pub fn schema(n: usize) -> ReplySchema {
    ReplySchema::new(
        "gap_selection",
        js::object_with(
            &[
                ("gap", js::integer(1, n.max(1) as i64)),
                ("rationale", js::text()),
            ],
            &[("evidence", js::array(js::string(), 0, None))],
        ),
    )
}

/// The chosen gap, or why the reply cannot be used (a number outside the list).
pub fn chosen(v: &Value, gaps: &[String]) -> Result<Gap, String> {
    let number = v.get("gap").and_then(Value::as_u64).unwrap_or(0) as usize;
    if number == 0 || number > gaps.len() {
        return Err(format!(
            "gap {} is not one of the {} gaps Literature Grounding listed; answer with a number from 1 to {}",
            v.get("gap").map_or("(none)".into(), Value::to_string),
            gaps.len(),
            gaps.len()
        ));
    }
    let evidence = v
        .get("evidence")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default();
    Ok(Gap {
        number,
        text: gaps[number - 1].clone(),
        evidence,
        rationale: str_field(v, "rationale").unwrap_or("").trim().to_string(),
    })
}

/// Select the gap: the listed gaps, the question, and on re-entry the run's memory records
/// (a direction already refuted is not chosen again); the choice is written as its artifact.
pub fn select(
    ctx: &StageCtx<'_>,
    question: &str,
    research: &str,
    memory: &str,
) -> Result<Gap, StageError> {
    let listed = gaps(section_body(research, "Gaps").unwrap_or(""));
    if listed.is_empty() {
        return Err(StageError::MustStop(format!(
            "Literature Grounding's {} lists no research gaps (its \"## Gaps\" section is empty or missing), so the debate has no gap to select; re-run Literature Grounding",
            super::literature::ARTIFACT
        )));
    }
    let numbered = listed
        .iter()
        .enumerate()
        .map(|(i, g)| format!("{}. {g}", i + 1))
        .collect::<Vec<_>>()
        .join("\n");
    let vars: Vars = [
        ("question", question.to_string()),
        ("gaps", numbered),
        (
            "related",
            section_body(research, "Related Work")
                .unwrap_or("(none recorded)")
                .to_string(),
        ),
        ("memory", memory.to_string()),
        ("count", listed.len().to_string()),
    ]
    .into_iter()
    .collect();
    let v = ctx.ask_json(
        "executor",
        "system/executor",
        "debate/gap_selection",
        &vars,
        &schema(listed.len()),
    )?;
    let gap = chosen(&v, &listed)
        .map_err(|e| StageError::Output(format!("debate/gap_selection: {e}")))?;
    let record = json!({
        "selected_gap": {"number": gap.number, "text": gap.text},
        "supporting_evidence": gap.evidence,
        "rationale": gap.rationale,
        "candidates": listed,
    });
    ctx.write(
        ARTIFACT,
        &yamlout::document(
            "Gap Selection: the research gap the Hypothesis Debate argues about.",
            &record,
        ),
    )?;
    Ok(gap)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_are_read_from_numbered_bulleted_or_prose_sections() {
        // (section, the gaps it lists)
        let table: [(&str, &[&str]); 5] = [
            ("1. a\n2. b\n3. c", &["a", "b", "c"]),
            ("- one\n  continued\n* two", &["one continued", "two"]),
            ("1) x\n10. y", &["x", "y"]),
            (
                "Nobody has tested\nthe bill alone.",
                &["Nobody has tested the bill alone."],
            ),
            ("", &[]),
        ];
        for (section, want) in table {
            assert_eq!(gaps(section), want, "{section:?}");
        }
    }

    #[test]
    fn a_gap_outside_the_list_is_refused() {
        let listed = vec!["a".to_string(), "b".to_string()];
        let g = chosen(
            &json!({"gap": 2, "evidence": ["[@x] says so", " "], "rationale": "first"}),
            &listed,
        )
        .unwrap();
        assert_eq!((g.number, g.text.as_str()), (2, "b"));
        assert_eq!(g.evidence, vec!["[@x] says so"]);
        assert!(
            g.prompt_text()
                .contains("Gap 2: b\nSupporting evidence:\n- [@x] says so")
        );
        for bad in [
            json!({"gap": 3}),
            json!({"gap": 0}),
            json!({"rationale": "?"}),
        ] {
            let e = chosen(&bad, &listed).unwrap_err();
            assert!(e.contains("from 1 to 2"), "{e}");
        }
    }
}
