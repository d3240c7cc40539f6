//! JSON values (what models reply) as YAML: `NewNode`s for store mutations, and whole
//! block documents for YAML artifacts (`02_synthesis.yaml`, `03_refinement.yaml`).

use serde_json::Value;

use crate::yaml::splice::render_entry;
use crate::yaml::{NewNode, Style, format_scalar};

pub fn node(v: &Value) -> NewNode {
    match v {
        Value::Null => NewNode::Scalar("null".into()),
        Value::Bool(b) => NewNode::Scalar(b.to_string()),
        Value::Number(n) => NewNode::Scalar(n.to_string()),
        Value::String(s) => NewNode::Scalar(format_scalar(s, Style::Plain)),
        Value::Array(a) => NewNode::Seq(a.iter().map(node).collect()),
        Value::Object(m) => NewNode::Map(m.iter().map(|(k, v)| (key(k), node(v))).collect()),
    }
}

/// A string scalar node, quoted as needed.
pub fn text(s: &str) -> NewNode {
    NewNode::Scalar(format_scalar(s, Style::Plain))
}

pub fn now() -> NewNode {
    let t = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    NewNode::Scalar(format_scalar(&t, Style::SingleQuoted))
}

fn key(k: &str) -> String {
    let plain = !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if plain {
        k.to_string()
    } else {
        format_scalar(k, Style::DoubleQuoted)
    }
}

/// A block YAML document with a leading comment.
pub fn document(comment: &str, v: &Value) -> String {
    let mut out: String = comment.lines().map(|l| format!("# {l}\n")).collect();
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                out.push_str(&render_entry(&key(k), &node(v), 0));
                out.push('\n');
            }
        }
        other => {
            out.push_str(&crate::yaml::splice::render_flow(&node(other)));
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_read_back_with_the_same_values() {
        let v = serde_json::json!({"hypothesis": "a: b # not a comment", "n": 3, "list": ["x", "y: z"], "nested": {"ok": true, "none": null}, "multi": "line one\nline two"});
        let text = document("made by a test", &v);
        let doc = crate::yaml::parse(text.as_bytes()).unwrap();
        let root = doc.root.unwrap();
        assert_eq!(
            root.get("hypothesis").unwrap().as_str(),
            Some("a: b # not a comment")
        );
        assert_eq!(
            root.get("list").unwrap().as_seq().unwrap()[1].as_str(),
            Some("y: z")
        );
        assert_eq!(
            root.get("multi").unwrap().as_str(),
            Some("line one\nline two")
        );
        assert!(root.get("nested").unwrap().get("none").unwrap().is_null());
    }
}
