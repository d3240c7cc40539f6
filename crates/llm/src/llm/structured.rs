//! How an endpoint is told the shape of a structured reply: its *dialect*. Every server that
//! constrains decoding does it under a different field, so the dialect is a per-endpoint
//! setting (`structured = "…"` in a role's table) whose `auto` value `youra doctor` decides
//! by probing and remembers in the run (`.youra/structured.json`).
//!
//! | dialect       | sent as                                                        | servers             |
//! |---------------|----------------------------------------------------------------|---------------------|
//! | `json_schema` | `response_format: {type: json_schema, json_schema: {name, strict, schema}}` | OpenAI, vLLM, Ollama ≥0.5, llama-server |
//! | `json_object` | `response_format: {type: json_object, schema}`                 | llama-cpp-python, llama-server |
//! | `guided_json` | `guided_json: schema` beside `response_format: json_object`     | vLLM (older)        |
//! | `format`      | `format: schema`                                               | Ollama's own field  |
//! | `tool`        | one forced tool call whose parameters are the schema           | Anthropic; OpenAI-style tool servers |
//! | `none`        | nothing: the prompt asks for JSON, the reply is checked         | anything            |

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::schema::{ReplySchema, strict_compatible};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Structured {
    /// Decided by `youra doctor` (remembered in the run), else by the provider's kind.
    #[default]
    Auto,
    JsonSchema,
    JsonObject,
    GuidedJson,
    Format,
    Tool,
    None,
}

impl Structured {
    pub(crate) const CONCRETE: [Structured; 6] = [
        Structured::JsonSchema,
        Structured::JsonObject,
        Structured::GuidedJson,
        Structured::Format,
        Structured::Tool,
        Structured::None,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Structured::Auto => "auto",
            Structured::JsonSchema => "json_schema",
            Structured::JsonObject => "json_object",
            Structured::GuidedJson => "guided_json",
            Structured::Format => "format",
            Structured::Tool => "tool",
            Structured::None => "none",
        }
    }

    /// Whether the endpoint is told the schema (so a reply cannot leave a key out).
    pub fn constrains(self) -> bool {
        !matches!(self, Structured::None | Structured::Auto)
    }

    /// The OpenAI-compatible request fields for a reply of `schema` (`None`: plain JSON mode,
    /// used for a request that asks for JSON without a schema).
    pub(crate) fn openai_fields(self, schema: Option<&ReplySchema>, body: &mut Value) {
        let Some(s) = schema else {
            if self != Structured::None && self != Structured::Tool {
                body["response_format"] = json!({"type": "json_object"});
            }
            return;
        };
        match self {
            Structured::JsonSchema => {
                body["response_format"] = json!({"type": "json_schema", "json_schema": {
                    "name": s.name, "strict": strict_compatible(&s.schema), "schema": s.schema,
                }});
            }
            Structured::JsonObject => {
                body["response_format"] = json!({"type": "json_object", "schema": s.schema});
            }
            Structured::GuidedJson => {
                body["response_format"] = json!({"type": "json_object"});
                body["guided_json"] = s.schema.clone();
            }
            Structured::Format => body["format"] = s.schema.clone(),
            Structured::Tool => {
                body["tools"] = json!([{"type": "function", "function": {
                    "name": s.name,
                    "description": "Give your answer as this function's arguments.",
                    "parameters": s.schema,
                }}]);
                body["tool_choice"] = json!({"type": "function", "function": {"name": s.name}});
            }
            Structured::None | Structured::Auto => {}
        }
    }
}

impl std::str::FromStr for Structured {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        [Structured::Auto]
            .into_iter()
            .chain(Structured::CONCRETE)
            .find(|d| d.as_str() == s.trim())
            .ok_or_else(|| {
                format!(
                    "unknown structured dialect `{s}` (expected auto, json_schema, json_object, guided_json, format, tool or none)"
                )
            })
    }
}

/// The dialects `youra doctor` chose, by endpoint (`base_url model`), in
/// `<run>/.youra/structured.json`.
pub const MEMORY: &str = ".youra/structured.json";

pub(crate) fn endpoint_key(base_url: &str, model: &str) -> String {
    format!("{} {model}", base_url.trim_end_matches('/'))
}

pub fn remembered(run: &Path) -> BTreeMap<String, Structured> {
    crate::fsutil::read_run_file(run.join(MEMORY))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

pub fn remember(run: &Path, choices: &BTreeMap<String, Structured>) -> std::io::Result<()> {
    let path = run.join(MEMORY);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut text = serde_json::to_string_pretty(choices).map_err(std::io::Error::other)?;
    text.push('\n');
    crate::fsutil::write_atomic(&path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> ReplySchema {
        ReplySchema::new(
            "decision",
            super::super::schema::object(&[("d", super::super::schema::string())]),
        )
    }

    #[test]
    fn each_dialect_puts_the_schema_where_its_servers_read_it() {
        let s = schema();
        let body = |d: Structured| {
            let mut b = json!({});
            d.openai_fields(Some(&s), &mut b);
            b
        };
        let b = body(Structured::JsonSchema);
        assert_eq!(b["response_format"]["type"], "json_schema");
        assert_eq!(b["response_format"]["json_schema"]["name"], "decision");
        assert_eq!(b["response_format"]["json_schema"]["strict"], true);
        assert_eq!(b["response_format"]["json_schema"]["schema"], s.schema);
        let b = body(Structured::JsonObject);
        assert_eq!(
            b["response_format"],
            json!({"type": "json_object", "schema": s.schema})
        );
        let b = body(Structured::GuidedJson);
        assert_eq!(b["guided_json"], s.schema);
        assert_eq!(body(Structured::Format)["format"], s.schema);
        let b = body(Structured::Tool);
        assert_eq!(b["tools"][0]["function"]["parameters"], s.schema);
        assert_eq!(b["tool_choice"]["function"]["name"], "decision");
        assert_eq!(body(Structured::None), json!({}));
        for d in Structured::CONCRETE {
            assert_eq!(d.as_str().parse::<Structured>(), Ok(d));
        }
        assert!(
            "xml"
                .parse::<Structured>()
                .unwrap_err()
                .contains("json_schema")
        );
    }

    #[test]
    fn memory_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = BTreeMap::new();
        m.insert(endpoint_key("http://h/v1/", "m"), Structured::JsonObject);
        remember(dir.path(), &m).unwrap();
        assert_eq!(
            remembered(dir.path())[&endpoint_key("http://h/v1", "m")],
            Structured::JsonObject
        );
    }
}
