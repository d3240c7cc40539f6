//! What each VSA field may hold, so an edit is type-checked before it touches the file.

use super::enums::{
    ExecutionMode, GateResult, GateType, HypothesisStatus, HypothesisType, Parsed, WorkflowStatus,
};
use super::path::VsaPath;
use super::timestamp::Timestamp;
use crate::yaml::{Node, Scalar11, Style, format_scalar, interpret_plain};

#[derive(Debug, Clone, Copy)]
pub(crate) enum FieldType {
    /// One of a closed set; `canon` maps an accepted spelling to the canonical name.
    Enum {
        names: &'static [&'static str],
        canon: fn(&str) -> Option<String>,
        nullable: bool,
    },
    Bool {
        nullable: bool,
    },
    Number,
    Text,
    Timestamp,
    HypothesisId,
    /// Written by youra itself; never set by hand.
    Managed(&'static str),
    /// A list: its items are set one by one (`path[N]`).
    List,
}

fn canon_of<T: ToString>(p: Parsed<T>) -> Option<String> {
    match p {
        Parsed::Exact(v) | Parsed::Alias(v) => Some(v.to_string()),
        Parsed::Unknown => None,
    }
}

macro_rules! enum_field {
    ($t:ty, $nullable:expr) => {
        FieldType::Enum {
            names: <$t>::NAMES,
            canon: |s| canon_of(<$t>::parse(s)),
            nullable: $nullable,
        }
    };
}

const EPISODE: &[&str] = &["ACTIVE", "COMPLETED", "TERMINATED"];
const STAGE_STATUS: &[&str] = &[
    "NOT_STARTED",
    "IN_PROGRESS",
    "COMPLETED",
    "FAILED",
    "SKIPPED",
];

fn closed(names: &'static [&'static str], raw: &str) -> Option<String> {
    let up = raw.trim().to_ascii_uppercase();
    names.iter().find(|n| **n == up).map(|n| n.to_string())
}

/// The declared type of a field, by path pattern (`*` for any hypothesis id or index).
pub(crate) fn field_type(path: &VsaPath) -> Option<FieldType> {
    let p = path.pattern();
    let p: Vec<&str> = p.iter().map(String::as_str).collect();
    let hyp = matches!(p.first(), Some(&"sub_hypotheses" | &"hypotheses"));
    Some(match p.as_slice() {
        ["revision"] => FieldType::Managed("the revision is bumped by every write"),
        ["history", ..] => {
            FieldType::Managed("history is append-only: youra adds an entry for every change")
        }
        ["workflow", "status"] => enum_field!(WorkflowStatus, false),
        ["workflow", "execution_mode"] => enum_field!(ExecutionMode, false),
        ["workflow", "current_phase" | "next_action" | "stop_reason"] => FieldType::Text,
        ["workflow", "breakpoints"] => FieldType::List,
        ["workflow", "breakpoints", "*"] => FieldType::Text,
        ["episode", "status"] => FieldType::Enum {
            names: EPISODE,
            canon: |s| closed(EPISODE, s),
            nullable: false,
        },
        ["main_hypothesis", "baseline_comparison", "status"] => FieldType::Enum {
            names: STAGE_STATUS,
            canon: |s| closed(STAGE_STATUS, s),
            nullable: false,
        },
        [_, _, "status"] if hyp => enum_field!(HypothesisStatus, false),
        [_, _, "type"] if hyp => enum_field!(HypothesisType, true),
        [_, _, "gate", "type"] if hyp => enum_field!(GateType, false),
        [_, _, "gate", "result"] if hyp => enum_field!(GateResult, true),
        [_, _, "gate", "satisfied"] if hyp => FieldType::Bool { nullable: true },
        [_, _, "prerequisites" | "dependencies"] if hyp => FieldType::List,
        [_, _, "prerequisites" | "dependencies", "*"] if hyp => FieldType::HypothesisId,
        [.., last] if *last == "timestamp" || last.ends_with("_at") => FieldType::Timestamp,
        _ => return None,
    })
}

/// A value ready to splice in, and how history shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypedValue {
    pub rendered: String,
    /// `None` for null.
    pub display: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{path}` cannot be set to `{value}`: {expected}")]
pub struct TypeError {
    pub path: String,
    pub value: String,
    pub expected: String,
}

fn null_value() -> TypedValue {
    TypedValue {
        rendered: "null".into(),
        display: None,
    }
}

/// Check `raw` against the field's type (or, for fields outside the schema, against the
/// type of the value it replaces) and render it in the old value's quoting.
pub fn check(
    path: &VsaPath,
    raw: &str,
    old: Option<&Node>,
    ids: &[String],
) -> Result<TypedValue, TypeError> {
    let fail = |expected: String| TypeError {
        path: path.to_string(),
        value: raw.to_string(),
        expected,
    };
    let style = old
        .and_then(Node::as_scalar)
        .map_or(Style::Plain, |s| match s.style {
            Style::Literal | Style::Folded => Style::Plain,
            st => st,
        });
    let is_null = interpret_plain(raw.trim()) == Scalar11::Null && raw.trim() != "";
    let text = |v: &str| TypedValue {
        rendered: format_scalar(v, style),
        display: Some(v.to_string()),
    };
    let ty = field_type(path).or_else(|| inferred(old));
    match ty {
        Some(FieldType::Managed(why)) => Err(fail(why.to_string())),
        Some(FieldType::List) => Err(fail(format!("it is a list: set its items as {path}[N]"))),
        Some(FieldType::Enum {
            names,
            canon,
            nullable,
        }) => {
            if is_null && nullable {
                return Ok(null_value());
            }
            let v =
                canon(raw).ok_or_else(|| fail(format!("expected one of {}", names.join(", "))))?;
            Ok(text(&v))
        }
        Some(FieldType::Bool { nullable }) => match raw.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(TypedValue {
                rendered: "true".into(),
                display: Some("true".into()),
            }),
            "false" => Ok(TypedValue {
                rendered: "false".into(),
                display: Some("false".into()),
            }),
            _ if is_null && nullable => Ok(null_value()),
            _ => Err(fail(format!(
                "expected true or false{}",
                if nullable { " (or null)" } else { "" }
            ))),
        },
        Some(FieldType::Number) => match interpret_plain(raw.trim()) {
            Scalar11::Int | Scalar11::Float => Ok(TypedValue {
                rendered: raw.trim().into(),
                display: Some(raw.trim().into()),
            }),
            Scalar11::Null => Ok(null_value()),
            _ => Err(fail("expected a number".into())),
        },
        Some(FieldType::Timestamp) if is_null => Ok(null_value()),
        Some(FieldType::Timestamp) => match Timestamp::parse(raw) {
            Some(_) => Ok(text(raw.trim())),
            None => Err(fail(
                "expected a timestamp such as 2026-03-17T10:30:00Z".into(),
            )),
        },
        Some(FieldType::HypothesisId) if ids.iter().any(|i| i == raw.trim()) => {
            Ok(text(raw.trim()))
        }
        Some(FieldType::HypothesisId) => Err(fail(format!(
            "expected a sub-hypothesis id: {}",
            ids.join(", ")
        ))),
        Some(FieldType::Text) if is_null => Ok(null_value()),
        Some(FieldType::Text) => Ok(text(raw)),
        None => Ok(untyped(raw, style)),
    }
}

/// Outside the schema, a field keeps the type of the value it holds.
fn inferred(old: Option<&Node>) -> Option<FieldType> {
    let s = old?.as_scalar()?;
    if s.style != Style::Plain {
        return Some(FieldType::Text);
    }
    match interpret_plain(&s.text) {
        Scalar11::Bool(_) => Some(FieldType::Bool { nullable: true }),
        Scalar11::Int | Scalar11::Float => Some(FieldType::Number),
        Scalar11::Str => Some(FieldType::Text),
        Scalar11::Null => None,
    }
}

/// A field that holds null and has no declared type: the value is read as YAML would.
fn untyped(raw: &str, style: Style) -> TypedValue {
    let t = raw.trim();
    match interpret_plain(t) {
        Scalar11::Null if !t.is_empty() => null_value(),
        Scalar11::Bool(_) | Scalar11::Int | Scalar11::Float => TypedValue {
            rendered: t.into(),
            display: Some(t.into()),
        },
        _ => TypedValue {
            rendered: format_scalar(raw, style),
            display: Some(raw.to_string()),
        },
    }
}
