//! A YAML node as JSON, for the CLI's `--json` output: plain scalars typed by YAML 1.2's
//! core schema (null, booleans, integers, floats), quoted and block scalars as strings,
//! mappings keyed by their keys' text (serde_json orders them by key).

use serde_json::{Map, Number, Value};

use super::scalar::Style;
use super::value::{Node, NodeKind};

pub fn to_json(node: &Node) -> Value {
    match &node.kind {
        NodeKind::Scalar(s) => {
            if s.style != Style::Plain {
                Value::String(s.text.clone())
            } else if s.is_null() {
                Value::Null
            } else if let Some(b) = s.as_bool() {
                Value::Bool(b)
            } else if let Some(i) = s.as_i64() {
                Value::Number(i.into())
            } else if let Some(n) = s.as_f64().and_then(Number::from_f64) {
                Value::Number(n)
            } else {
                Value::String(s.text.clone())
            }
        }
        NodeKind::Seq(items) => Value::Array(items.iter().map(to_json).collect()),
        NodeKind::Map(entries) => {
            let mut m = Map::new();
            for (k, v) in entries {
                let key = match &k.kind {
                    NodeKind::Scalar(s) => s.text.clone(),
                    _ => to_json(k).to_string(),
                };
                m.insert(key, to_json(v));
            }
            Value::Object(m)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_are_typed_as_yaml_reads_them() {
        let doc = crate::yaml::parse(
            b"a: 1\nb: 0.5\nc: true\nd: null\ne: '1'\nf: text\ng: [x, 2]\nh: {k: ~}\ni: .nan\n",
        )
        .unwrap();
        let v = to_json(doc.root.as_ref().unwrap());
        assert_eq!(
            v,
            serde_json::json!({
                "a": 1, "b": 0.5, "c": true, "d": null, "e": "1", "f": "text",
                "g": ["x", 2], "h": {"k": null}, "i": ".nan"
            })
        );
    }
}
