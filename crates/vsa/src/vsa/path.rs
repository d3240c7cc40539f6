//! Field paths such as `sub_hypotheses.h-e1.gate.type`, `history[3]`, `history[-1]` or
//! `metadata.pipeline_phase_task_ids."Phase 6.5"`, resolved against the YAML tree.

use std::fmt;

use crate::yaml::{Node, NodeKind};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    Key(String),
    Index(i64),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VsaPath(pub Vec<Segment>);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("path `{0}` is malformed: {1}")]
    Syntax(String, String),
    #[error("`{path}` does not exist: `{parent}` has no {what}")]
    Missing {
        path: String,
        parent: String,
        what: String,
    },
    #[error("`{path}` goes through `{parent}`, which is a {kind}")]
    NotAContainer {
        path: String,
        parent: String,
        kind: &'static str,
    },
}

impl VsaPath {
    pub fn parse(raw: &str) -> Result<VsaPath, PathError> {
        let err = |m: &str| PathError::Syntax(raw.to_string(), m.to_string());
        let mut segs = Vec::new();
        let mut chars = raw.trim().chars().peekable();
        let mut key = String::new();
        let flush = |key: &mut String, segs: &mut Vec<Segment>| {
            if !key.is_empty() {
                segs.push(Segment::Key(std::mem::take(key)));
            }
        };
        let mut prev = '.';
        while let Some(c) = chars.next() {
            let this = c;
            match c {
                '.' => {
                    if key.is_empty() && prev == '.' {
                        return Err(err("empty segment"));
                    }
                    flush(&mut key, &mut segs);
                }
                '"' => {
                    for q in chars.by_ref() {
                        if q == '"' {
                            break;
                        }
                        key.push(q);
                    }
                    segs.push(Segment::Key(std::mem::take(&mut key)));
                }
                '[' => {
                    flush(&mut key, &mut segs);
                    let num: String = chars.by_ref().take_while(|&c| c != ']').collect();
                    let n = num
                        .trim()
                        .parse::<i64>()
                        .map_err(|_| err("`[...]` must hold a whole number"))?;
                    segs.push(Segment::Index(n));
                }
                c => key.push(c),
            }
            prev = this;
        }
        flush(&mut key, &mut segs);
        if segs.is_empty() {
            return Err(err("the path is empty"));
        }
        Ok(VsaPath(segs))
    }

    /// The keys only, with indices shown as `*`: what the schema matches against.
    pub fn pattern(&self) -> Vec<String> {
        self.0
            .iter()
            .map(|s| match s {
                Segment::Key(k) => k.clone(),
                Segment::Index(_) => "*".into(),
            })
            .collect()
    }

    pub fn prefix(&self, n: usize) -> VsaPath {
        VsaPath(self.0[..n.min(self.0.len())].to_vec())
    }
}

impl fmt::Display for VsaPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.0.iter().enumerate() {
            match s {
                Segment::Key(k) if k.contains(['.', ' ', '[']) => {
                    write!(f, "{}\"{k}\"", if i > 0 { "." } else { "" })?
                }
                Segment::Key(k) => write!(f, "{}{k}", if i > 0 { "." } else { "" })?,
                Segment::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// Where a path ends: the node, or the nearest existing container and the missing keys.
pub enum Resolved<'a> {
    Found(&'a Node),
    /// `container` exists; `missing` are the keys below it that do not (all keys, no indices).
    Missing {
        container: &'a Node,
        depth: usize,
        missing: Vec<String>,
    },
}

/// Walk `path` from the root. A key on a list matches the item whose `id` equals it, so
/// `sub_hypotheses.h-e1` works on the drifted `hypotheses:` list too.
pub fn resolve<'a>(root: &'a Node, path: &VsaPath) -> Result<Resolved<'a>, PathError> {
    let mut node = root;
    let mut segs = path.0.as_slice();
    if let [Segment::Key(first), ..] = segs
        && first == "sub_hypotheses"
        && root.get("sub_hypotheses").is_none()
        && let Some(list) = root.get("hypotheses")
    {
        node = list;
        segs = &segs[1..];
    }
    let offset = path.0.len() - segs.len();
    for (i, seg) in segs.iter().enumerate() {
        let next = match (&node.kind, seg) {
            (NodeKind::Map(_), Segment::Key(k)) => node.get(k),
            (NodeKind::Seq(items), Segment::Index(n)) => {
                let idx = if *n < 0 { items.len() as i64 + n } else { *n };
                usize::try_from(idx).ok().and_then(|i| items.get(i))
            }
            (NodeKind::Seq(items), Segment::Key(k)) => items
                .iter()
                .find(|it| it.get("id").and_then(Node::as_str) == Some(k)),
            (_, _) => {
                return Err(PathError::NotAContainer {
                    path: path.to_string(),
                    parent: path.prefix(offset + i).to_string(),
                    kind: node.kind_name(),
                });
            }
        };
        match next {
            Some(n) => node = n,
            None => {
                let rest = &segs[i..];
                let keys: Option<Vec<String>> = rest
                    .iter()
                    .map(|s| match s {
                        Segment::Key(k) => Some(k.clone()),
                        Segment::Index(_) => None,
                    })
                    .collect();
                return match (keys, &node.kind) {
                    (Some(missing), NodeKind::Map(_)) => Ok(Resolved::Missing {
                        container: node,
                        depth: offset + i,
                        missing,
                    }),
                    _ => Err(PathError::Missing {
                        path: path.to_string(),
                        parent: path.prefix(offset + i).to_string(),
                        what: match seg {
                            Segment::Key(k) => format!("key or id `{k}`"),
                            Segment::Index(n) => format!("item [{n}]"),
                        },
                    }),
                };
            }
        }
    }
    Ok(Resolved::Found(node))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_parse_keys_indices_and_quoted_keys() {
        let p = VsaPath::parse("sub_hypotheses.h-e1.gate.type").unwrap();
        assert_eq!(p.0.len(), 4);
        let p = VsaPath::parse("history[-1].event").unwrap();
        assert_eq!(
            p.0,
            vec![
                Segment::Key("history".into()),
                Segment::Index(-1),
                Segment::Key("event".into())
            ]
        );
        let p = VsaPath::parse("metadata.pipeline_phase_task_ids.\"Phase 6.5\"").unwrap();
        assert_eq!(p.0[2], Segment::Key("Phase 6.5".into()));
        assert_eq!(
            p.to_string(),
            "metadata.pipeline_phase_task_ids.\"Phase 6.5\""
        );
        assert!(VsaPath::parse("").is_err());
        assert!(VsaPath::parse("a..b").is_err());
        assert!(VsaPath::parse("history[x]").is_err());
    }
}
