//! JSON Schemas for structured replies: what a role must answer, sent to endpoints that
//! constrain decoding (`super::structured`) and checked again on arrival, because a server
//! may ignore the schema.
//!
//! Each role's schema is declared once, next to its parser (`engine::controller::schema`,
//! `reflect::attribution::generator_schema`, …). The checker here understands the subset of
//! JSON Schema those declarations use — `type`, `properties`, `required`, `enum`, `items`,
//! `minItems`, `maxItems`, `minimum`, `maximum`, `minLength`, `additionalProperties`,
//! `description` — and [`unsupported_keywords`] refuses any other keyword, so a schema can
//! never hold a rule the checker silently skips. The `jsonschema` crate would check every
//! draft, but pulls in a regex engine, URL resolution and dozens of crates for rules youra
//! never writes (docs/ARCHITECTURE.md, "Structured replies").

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A named schema for one reply (the name travels as OpenAI's `json_schema.name` and as the
/// forced tool's name).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplySchema {
    pub name: String,
    pub schema: Value,
}

impl ReplySchema {
    pub fn new(name: &str, schema: Value) -> Self {
        Self {
            name: name.to_string(),
            schema,
        }
    }

    /// Fold enum spellings, then check. The value is changed only where a string matched one
    /// enum member up to case, spaces and dashes (`phase complete` → `PHASE_COMPLETE`), so a
    /// parser downstream sees the canonical word; `SHOCKED` still fails.
    pub fn check(&self, value: &mut Value) -> Result<(), Violation> {
        normalize(&self.schema, value);
        validate(&self.schema, value)
    }
}

/// Where a reply broke its schema, as `$.candidates[1].category` and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// An object schema: every listed property required, no others allowed (the shape OpenAI's
/// strict mode wants), from `(name, schema)` pairs.
pub fn object(props: &[(&str, Value)]) -> Value {
    object_with(props, &[])
}

/// An object schema whose `optional` properties may be left out.
pub fn object_with(props: &[(&str, Value)], optional: &[(&str, Value)]) -> Value {
    let mut properties = serde_json::Map::new();
    for (k, v) in props.iter().chain(optional) {
        properties.insert((*k).to_string(), v.clone());
    }
    json!({
        "type": "object",
        "properties": properties,
        "required": props.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
        "additionalProperties": false,
    })
}

pub fn string() -> Value {
    json!({"type": "string"})
}

/// A non-blank string (`minLength` 1).
pub fn text() -> Value {
    json!({"type": "string", "minLength": 1})
}

pub fn one_of(words: &[&str]) -> Value {
    json!({"type": "string", "enum": words})
}

pub fn number(min: f64, max: f64) -> Value {
    json!({"type": "number", "minimum": min, "maximum": max})
}

pub fn integer(min: i64, max: i64) -> Value {
    json!({"type": "integer", "minimum": min, "maximum": max})
}

pub fn boolean() -> Value {
    json!({"type": "boolean"})
}

pub fn array(items: Value, min: usize, max: Option<usize>) -> Value {
    let mut a = json!({"type": "array", "items": items, "minItems": min});
    if let Some(max) = max {
        a["maxItems"] = json!(max);
    }
    a
}

const KEYWORDS: [&str; 12] = [
    "type",
    "properties",
    "required",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "minLength",
    "additionalProperties",
    "description",
];

/// Keywords in `schema` the checker does not understand (empty for every youra schema; a
/// unit test holds each declaration to it).
pub fn unsupported_keywords(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk_keywords(schema, "$", &mut out);
    out
}

fn walk_keywords(schema: &Value, at: &str, out: &mut Vec<String>) {
    let Some(map) = schema.as_object() else {
        out.push(format!("{at}: a schema must be an object"));
        return;
    };
    for (k, v) in map {
        if !KEYWORDS.contains(&k.as_str()) {
            out.push(format!("{at}: `{k}`"));
        }
        match k.as_str() {
            "properties" => {
                for (name, sub) in v.as_object().into_iter().flatten() {
                    walk_keywords(sub, &format!("{at}.{name}"), out);
                }
            }
            "items" => walk_keywords(v, &format!("{at}[]"), out),
            "additionalProperties" if v.is_object() => walk_keywords(v, &format!("{at}.*"), out),
            _ => {}
        }
    }
}

/// Whether OpenAI's strict mode takes the schema: every object lists all its properties as
/// required and allows no others.
pub(crate) fn strict_compatible(schema: &Value) -> bool {
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => {
            let props = schema.get("properties").and_then(Value::as_object);
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            schema.get("additionalProperties") == Some(&Value::Bool(false))
                && props.is_some_and(|p| {
                    p.keys().all(|k| required.contains(&k.as_str()))
                        && p.values().all(strict_compatible)
                })
        }
        Some("array") => schema.get("items").is_none_or(strict_compatible),
        _ => true,
    }
}

/// Check `value` against `schema`; the first violation, in document order.
pub fn validate(schema: &Value, value: &Value) -> Result<(), Violation> {
    check_at(schema, value, "$")
}

fn fail(path: &str, message: String) -> Result<(), Violation> {
    Err(Violation {
        path: path.to_string(),
        message,
    })
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn has_type(want: &str, v: &Value) -> bool {
    match want {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "number" => v.is_number(),
        // 3.0 is an integer in JSON Schema; 3.5 is not.
        "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => false,
    }
}

fn check_at(schema: &Value, value: &Value, path: &str) -> Result<(), Violation> {
    if let Some(want) = schema.get("type").and_then(Value::as_str)
        && !has_type(want, value)
    {
        return fail(path, format!("expected {want}, found {}", type_name(value)));
    }
    if let Some(members) = schema.get("enum").and_then(Value::as_array)
        && !members.contains(value)
    {
        let words: Vec<String> = members.iter().map(Value::to_string).collect();
        return fail(path, format!("{value} is not one of {}", words.join(", ")));
    }
    if let Some(n) = value.as_f64() {
        if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
            && n < min
        {
            return fail(path, format!("{n} is below the minimum {min}"));
        }
        if let Some(max) = schema.get("maximum").and_then(Value::as_f64)
            && n > max
        {
            return fail(path, format!("{n} is above the maximum {max}"));
        }
    }
    if let (Some(s), Some(min)) = (
        value.as_str(),
        schema.get("minLength").and_then(Value::as_u64),
    ) && (s.trim().chars().count() as u64) < min
    {
        return fail(
            path,
            format!("the text must have at least {min} character(s)"),
        );
    }
    if let Some(items) = value.as_array() {
        if let Some(min) = schema.get("minItems").and_then(Value::as_u64)
            && (items.len() as u64) < min
        {
            return fail(
                path,
                format!("{} item(s); at least {min} are required", items.len()),
            );
        }
        if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
            && (items.len() as u64) > max
        {
            return fail(
                path,
                format!("{} item(s); at most {max} are allowed", items.len()),
            );
        }
        if let Some(item_schema) = schema.get("items") {
            for (i, item) in items.iter().enumerate() {
                check_at(item_schema, item, &format!("{path}[{i}]"))?;
            }
        }
    }
    if let Some(map) = value.as_object() {
        let props = schema.get("properties").and_then(Value::as_object);
        for key in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if map.get(key).is_none_or(Value::is_null) {
                return fail(path, format!("the required key \"{key}\" is missing"));
            }
        }
        for (k, v) in map {
            let sub = format!("{path}.{k}");
            match props.and_then(|p| p.get(k)) {
                Some(s) => check_at(s, v, &sub)?,
                None => match schema.get("additionalProperties") {
                    // Extra keys are tolerated in what arrives (models add `notes`); the
                    // schema sent still forbids them where strict decoding applies.
                    Some(extra) if extra.is_object() => check_at(extra, v, &sub)?,
                    _ => {}
                },
            }
        }
    }
    Ok(())
}

/// Fold each string that names exactly one member of its enum up to case, spaces, dashes
/// and underscores onto that member.
pub fn normalize(schema: &Value, value: &mut Value) {
    if let (Some(members), Some(s)) = (schema.get("enum").and_then(Value::as_array), value.as_str())
    {
        let fold = |t: &str| t.trim().to_ascii_lowercase().replace([' ', '-', '_'], "");
        let want = fold(s);
        let hits: Vec<&Value> = members
            .iter()
            .filter(|m| m.as_str().is_some_and(|m| fold(m) == want))
            .collect();
        if let [one] = hits.as_slice() {
            *value = (*one).clone();
        }
        return;
    }
    match value {
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for item in items {
                    normalize(item_schema, item);
                }
            }
        }
        Value::Object(map) => {
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (k, v) in map.iter_mut() {
                    if let Some(s) = props.get(k) {
                        normalize(s, v);
                    }
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ReplySchema {
        ReplySchema::new(
            "sample",
            object(&[
                (
                    "decision",
                    one_of(&["PHASE_COMPLETE", "RESUME", "MUST_STOP"]),
                ),
                ("severity", number(0.0, 1.0)),
                ("items", array(object(&[("n", integer(1, 5))]), 1, Some(2))),
            ]),
        )
    }

    #[test]
    fn valid_replies_pass_and_enum_spellings_fold() {
        let mut v = json!({"decision": "phase complete", "severity": 0.5, "items": [{"n": 3}], "notes": "x"});
        sample().check(&mut v).unwrap();
        assert_eq!(v["decision"], "PHASE_COMPLETE");
        let mut v = json!({"decision": "RESUME", "severity": 1, "items": [{"n": 1.0}]});
        sample().check(&mut v).unwrap();
    }

    #[test]
    fn each_broken_rule_names_its_place() {
        let cases = [
            (
                json!({"decision": "SHOCKED", "severity": 0.5, "items": [{"n": 1}]}),
                "$.decision",
                "not one of",
            ),
            (
                json!({"severity": 0.5, "items": [{"n": 1}]}),
                "$",
                "\"decision\" is missing",
            ),
            (
                json!({"decision": "RESUME", "severity": 1.5, "items": [{"n": 1}]}),
                "$.severity",
                "above the maximum",
            ),
            (
                json!({"decision": "RESUME", "severity": "high", "items": [{"n": 1}]}),
                "$.severity",
                "expected number",
            ),
            (
                json!({"decision": "RESUME", "severity": 0.1, "items": []}),
                "$.items",
                "at least 1",
            ),
            (
                json!({"decision": "RESUME", "severity": 0.1, "items": [{"n": 1}, {"n": 2}, {"n": 3}]}),
                "$.items",
                "at most 2",
            ),
            (
                json!({"decision": "RESUME", "severity": 0.1, "items": [{"n": 9}]}),
                "$.items[0].n",
                "above",
            ),
            (
                json!({"decision": "RESUME", "severity": 0.1, "items": [{"n": 1.5}]}),
                "$.items[0].n",
                "expected integer",
            ),
            (
                json!({"decision": null, "severity": 0.1, "items": [{"n": 1}]}),
                "$",
                "missing",
            ),
        ];
        for (mut v, path, words) in cases {
            let e = sample().check(&mut v).unwrap_err();
            assert_eq!(e.path, path, "{v}: {e}");
            assert!(e.message.contains(words), "{v}: {e}");
        }
        let mut blank = json!("  ");
        assert!(ReplySchema::new("t", text()).check(&mut blank).is_err());
    }

    #[test]
    fn strictness_and_keywords_are_reported() {
        assert!(strict_compatible(&sample().schema));
        let loose = object_with(&[("a", string())], &[("b", string())]);
        assert!(!strict_compatible(&loose));
        assert!(unsupported_keywords(&sample().schema).is_empty());
        let odd =
            json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "x"}}});
        assert_eq!(
            unsupported_keywords(&odd),
            vec!["$.a: `pattern`".to_string()]
        );
    }
}
