//! Which fields differ between two versions of a VSA: how a hand edit made in an editor is
//! described in the history entry the next writer records for it.

use crate::yaml::{Node, NodeKind};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub path: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

/// Leaf-level differences, in document order.
pub fn changes(old: Option<&Node>, new: Option<&Node>) -> Vec<Change> {
    let mut out = Vec::new();
    walk("", old, new, &mut out);
    out
}

fn summary(node: Option<&Node>) -> Option<String> {
    let node = node?;
    match &node.kind {
        NodeKind::Scalar(s) if s.is_null() => None,
        NodeKind::Scalar(s) => Some(s.text.clone()),
        NodeKind::Seq(items) => Some(format!("(list of {})", items.len())),
        NodeKind::Map(entries) => Some(format!("(mapping of {})", entries.len())),
    }
}

fn join(prefix: &str, key: &str) -> String {
    let key = if key.contains(['.', ' ', '[']) {
        format!("\"{key}\"")
    } else {
        key.to_string()
    };
    if prefix.is_empty() {
        key
    } else {
        format!("{prefix}.{key}")
    }
}

fn walk(path: &str, old: Option<&Node>, new: Option<&Node>, out: &mut Vec<Change>) {
    match (old.map(|n| &n.kind), new.map(|n| &n.kind)) {
        (Some(NodeKind::Map(a)), Some(NodeKind::Map(b))) => {
            for (k, v) in a {
                let key = k.as_scalar().map_or("?", |s| s.text.as_str());
                let other = new.and_then(|n| n.get(key));
                walk(&join(path, key), Some(v), other, out);
            }
            for (k, v) in b {
                let key = k.as_scalar().map_or("?", |s| s.text.as_str());
                if old.and_then(|n| n.get(key)).is_none() {
                    walk(&join(path, key), None, Some(v), out);
                }
            }
        }
        (Some(NodeKind::Seq(a)), Some(NodeKind::Seq(b))) => {
            for i in 0..a.len().max(b.len()) {
                walk(&format!("{path}[{i}]"), a.get(i), b.get(i), out);
            }
        }
        (Some(NodeKind::Scalar(a)), Some(NodeKind::Scalar(b)))
            if a.text == b.text && a.is_null() == b.is_null() => {}
        (None, None) => {}
        _ => {
            let (o, n) = (summary(old), summary(new));
            if o != n || old.is_none() != new.is_none() {
                out.push(Change {
                    path: path.to_string(),
                    old: o,
                    new: n,
                });
            }
        }
    }
}
