//! Plan-node ids. An id names a folder (`plan/nodes/<id>/`), so it must be one plain path
//! segment (the rule in `crate::ids`); youra generates `n-0001`, `n-0002`, … and accepts
//! any safe id a person wrote.

use std::fmt;

/// A path-safe plan-node id. Deserialising refuses an unsafe one, so a hand-edited
/// `tree.json` can never make youra read or write outside `plan/nodes/`.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "String", into = "String")]
pub struct NodeId(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("plan-node id `{id}` refused: {why}")]
pub struct BadNodeId {
    pub id: String,
    pub why: &'static str,
}

/// Why `raw` is not a safe single path segment, if it is not: the crate's one safe-id rule
/// (`crate::ids`), which plan-node ids follow with dots allowed inside a name.
pub fn unsafe_reason(raw: &str) -> Option<&'static str> {
    crate::ids::unsafe_segment(raw)
}

impl NodeId {
    pub fn new(raw: &str) -> Result<NodeId, BadNodeId> {
        match unsafe_reason(raw) {
            Some(why) => Err(BadNodeId {
                id: raw.to_string(),
                why,
            }),
            None => Ok(NodeId(raw.to_string())),
        }
    }

    /// The generated id for sequence number `n`: `n-0001` (more digits past 9999).
    pub fn numbered(n: u64) -> NodeId {
        NodeId(format!("n-{n:04}"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The sequence number of a generated id (`n-0042` → 42); hand-named ids have none.
    pub fn number(&self) -> Option<u64> {
        sequence_number(&self.0)
    }
}

/// `n-<digits>` → the number; used both for ids and for orphan folder names.
pub(crate) fn sequence_number(raw: &str) -> Option<u64> {
    let digits = raw.strip_prefix("n-")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The next free generated id after every name already taken (ids in the tree and
/// folders on disk that the tree does not reference: a reused name could inherit a stale file).
pub(crate) fn next_free<'a>(taken: impl IntoIterator<Item = &'a str>) -> NodeId {
    let max = taken
        .into_iter()
        .filter_map(sequence_number)
        .max()
        .unwrap_or(0);
    NodeId::numbered(max.saturating_add(1))
}

impl TryFrom<String> for NodeId {
    type Error = BadNodeId;
    fn try_from(s: String) -> Result<NodeId, BadNodeId> {
        NodeId::new(&s)
    }
}

impl From<NodeId> for String {
    fn from(id: NodeId) -> String {
        id.0
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_and_unsafe_ids() {
        let long = "x".repeat(65);
        let table: &[(&str, bool)] = &[
            ("n-0001", true),
            ("n-3.b_2", true),
            ("Root", true),
            ("", false),
            ("..", false),
            ("../etc", false),
            ("a/b", false),
            ("a\\b", false),
            (".hidden", false),
            ("a b", false),
            ("é", false),
            (&long, false),
        ];
        for &(raw, ok) in table {
            assert_eq!(NodeId::new(raw).is_ok(), ok, "{raw:?}");
        }
    }

    #[test]
    fn generated_ids_follow_the_largest_taken() {
        let table: &[(&[&str], &str)] = &[
            (&[], "n-0001"),
            (&["n-0001", "n-0002"], "n-0003"),
            (&["n-0007", "root", "n-0002"], "n-0008"),
            (&["n-9999"], "n-10000"),
            (&["n-", "n-x1", "m-0004"], "n-0001"),
        ];
        for &(taken, want) in table {
            assert_eq!(next_free(taken.iter().copied()).as_str(), want, "{taken:?}");
        }
        assert_eq!(NodeId::numbered(12).number(), Some(12));
    }

    #[test]
    fn deserialising_refuses_unsafe_ids() {
        let ok: NodeId = serde_json::from_str("\"n-0004\"").unwrap();
        assert_eq!(ok.as_str(), "n-0004");
        let err = serde_json::from_str::<NodeId>("\"../x\"").unwrap_err();
        assert!(err.to_string().contains("refused"), "{err}");
    }
}
