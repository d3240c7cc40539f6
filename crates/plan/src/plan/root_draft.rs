//! Who drafts a search's root plan (`[plan] root_plan`). PrimeScientist's reflector writes
//! the root from the task's instruction and the insights of other tasks before anything
//! runs; youra's root was the design brief itself (the executor's, at Experiment Design).
//! With `reflector`, the reflector drafts the root from the brief and what the run's other
//! searches found (`evidence_search::insights`): the prompt, its reply's parsing and the
//! setting are here; the engine makes the call (`engine::plan_root`).

use std::fmt;
use std::str::FromStr;

use serde_json::Value;

use super::expand::{ExpandError, fill, json_part, prior};
use super::tree::Draft;

/// The root-plan prompt, compiled in (`prompts/plan_root.md`).
pub const ROOT_PROMPT: &str = include_str!("../../../../prompts/plan_root.md");

/// The prior key that marks a root the reflector drafted (a kill before the draft's save
/// leaves it unmarked, and it is drafted again).
pub const DRAFTED_BY: &str = "drafted_by";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum RootPlan {
    /// The design brief is the root plan, as written at Experiment Design (no call).
    #[default]
    Design,
    /// The reflector drafts the root from the brief and the other searches' findings.
    Reflector,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a root plan's author: use design or reflector")]
pub struct UnknownRootPlan(pub String);

impl FromStr for RootPlan {
    type Err = UnknownRootPlan;
    fn from_str(s: &str) -> Result<RootPlan, UnknownRootPlan> {
        match s.trim().to_ascii_lowercase().as_str() {
            "design" => Ok(RootPlan::Design),
            "reflector" => Ok(RootPlan::Reflector),
            _ => Err(UnknownRootPlan(s.to_string())),
        }
    }
}

impl fmt::Display for RootPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RootPlan::Design => "design",
            RootPlan::Reflector => "reflector",
        })
    }
}

impl TryFrom<String> for RootPlan {
    type Error = UnknownRootPlan;
    fn try_from(s: String) -> Result<RootPlan, UnknownRootPlan> {
        s.parse()
    }
}

impl From<RootPlan> for String {
    fn from(r: RootPlan) -> String {
        r.to_string()
    }
}

/// The prompt for `hypothesis`'s root: its statement, its brief, the other searches'
/// findings. One pass: a brief that quotes `{{insights}}` is pasted as it is.
pub fn root_prompt(hypothesis: &str, statement: &str, brief: &str, insights: &str) -> String {
    fill(
        ROOT_PROMPT,
        &[
            ("hypothesis", hypothesis),
            ("statement", statement),
            ("brief", brief),
            ("insights", insights),
        ],
    )
}

/// The reflector's root: `{"plan": …, "prior": {…}}` (or a one-child `children` list), the
/// prior marked as the reflector's. A reply without a plan text is an error naming it.
pub fn parse_root(reply: &str, hypothesis: &str) -> Result<(Draft, Vec<String>), ExpandError> {
    let value: Value =
        serde_json::from_str(json_part(reply)).map_err(|e| ExpandError::NotJson {
            line: e.line(),
            col: e.column(),
            message: super::error::json_message(&e),
        })?;
    let root = match &value {
        Value::Object(m) if m.contains_key("plan") => &value,
        Value::Object(m) => match m.get("children").and_then(Value::as_array) {
            Some(list) if !list.is_empty() => &list[0],
            _ => return Err(ExpandError::NoChildren),
        },
        _ => return Err(ExpandError::NoChildren),
    };
    let Some(plan) = root
        .get("plan")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|p| !p.is_empty())
    else {
        return Err(ExpandError::NothingUsable(vec![
            "the root plan has no `plan` text".into(),
        ]));
    };
    let mut notes = Vec::new();
    let mut prior = prior(root.get("prior"), "the root plan", &mut notes);
    prior.extra.insert(DRAFTED_BY.into(), "reflector".into());
    Ok((
        Draft {
            plan: format!("{plan}\n"),
            prior,
            hypothesis_id: Some(hypothesis.to_string()),
        },
        notes,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_setting_reads_its_two_values_and_names_them_otherwise() {
        // (text, parsed)
        let table = [
            ("design", Some(RootPlan::Design)),
            (" Reflector ", Some(RootPlan::Reflector)),
            ("reflect", None),
            ("", None),
        ];
        for (text, want) in table {
            assert_eq!(text.parse::<RootPlan>().ok(), want, "{text:?}");
        }
        let e = "reflect".parse::<RootPlan>().unwrap_err().to_string();
        assert!(e.contains("design or reflector"), "{e}");
        assert_eq!(RootPlan::default(), RootPlan::Design);
    }

    #[test]
    fn a_root_reply_parses_to_a_marked_draft_and_a_bad_one_says_why() {
        let (d, notes) = parse_root(
            "Here it is:\n{\"plan\": \"# Raw centroids\\n\\nAll three features.\", \"prior\": {\"estimate\": 0.4, \"hypothesis\": \"raw works\"}}",
            "h-e1",
        )
        .unwrap();
        assert!(d.plan.starts_with("# Raw centroids"), "{}", d.plan);
        assert_eq!(d.prior.estimate, Some(0.4));
        assert_eq!(d.prior.extra[DRAFTED_BY], "reflector");
        assert_eq!(d.hypothesis_id.as_deref(), Some("h-e1"));
        assert!(notes.is_empty(), "{notes:?}");
        let (one, _) = parse_root(r##"{"children": [{"plan": "# A"}]}"##, "h").unwrap();
        assert_eq!(one.plan, "# A\n");
        // (reply, what the error says)
        let table = [
            ("not json", "not JSON"),
            (r#"{"plan": "  "}"#, "no `plan` text"),
            (r#"{"children": []}"#, "no `children`"),
            (r#"[1, 2]"#, "no `children`"),
        ];
        for (reply, want) in table {
            let e = parse_root(reply, "h").unwrap_err().to_string();
            assert!(e.contains(want), "{reply}: {e}");
        }
    }

    #[test]
    fn the_prompt_fills_every_variable_once() {
        let p = root_prompt("h-e1", "STATEMENT", "BRIEF with {{insights}}", "INSIGHTS");
        for want in ["h-e1", "STATEMENT", "BRIEF with {{insights}}", "INSIGHTS"] {
            assert!(p.contains(want), "{want}");
        }
        assert_eq!(p.matches("INSIGHTS").count(), 1);
        assert!(!p.contains("{{hypothesis}}") && !p.contains("{{brief}}"));
    }
}
