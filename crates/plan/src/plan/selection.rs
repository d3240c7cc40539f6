//! What one selection decided and why: the path, the action, and for every level each
//! candidate's weight, probability and a one-line reason. This is what the TUI's plan pane
//! shows, so it serialises (`plan/selection.json`).

use serde::{Deserialize, Serialize};

use super::eligibility::Avail;
use super::id::NodeId;
use super::policy::Policy;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Selection {
    pub policy: Policy,
    /// r at the time of the selection.
    pub remaining_share: f64,
    /// The exponent used, for the policies that have one.
    pub alpha: Option<f64>,
    /// From a root down to the node the action applies to (empty when exhausted).
    pub path: Vec<NodeId>,
    pub action: Action,
    pub levels: Vec<Level>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Action {
    /// Run the untested plan.
    Execute { node: NodeId },
    /// Ask the reflector for children of an evaluated leaf.
    Expand { node: NodeId },
    /// Ask the reflector for more children: every existing child is out of play.
    Widen { node: NodeId },
    /// Nothing can be entered (empty tree, or every branch blocked).
    Exhausted,
}

impl Action {
    pub fn node(&self) -> Option<&NodeId> {
        match self {
            Action::Execute { node } | Action::Expand { node } | Action::Widen { node } => {
                Some(node)
            }
            Action::Exhausted => None,
        }
    }
}

/// One step of the descent: the children of `parent` (the roots when `None`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Level {
    pub parent: Option<NodeId>,
    /// Q(parent) as the unvisited weights used it (at the top: the mean of all rewards,
    /// or 1 before any, so priors alone decide).
    pub parent_q: f64,
    pub candidates: Vec<Candidate>,
    /// Index into `candidates`; `None` when nothing was eligible.
    pub chosen: Option<usize>,
    pub why: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub id: NodeId,
    pub avail: Avail,
    pub pinned: bool,
    /// The policy's weight (adaptive, fixed α, random) or score (greedy, UCT; an unvisited
    /// node's UCT score is infinite). 0 for a blocked candidate.
    #[serde(with = "lenient_f64")]
    pub weight: f64,
    /// The chance the policy gave it (one-hot for the deterministic policies).
    pub probability: f64,
    pub why: String,
}

impl Level {
    pub fn chosen_candidate(&self) -> Option<&Candidate> {
        self.chosen.and_then(|i| self.candidates.get(i))
    }
}

/// JSON has no infinity: write it (and NaN) as a string, read either form back.
mod lenient_f64 {
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        match *x {
            x if x.is_finite() => s.serialize_f64(x),
            x if x.is_nan() => s.serialize_str("nan"),
            x if x > 0.0 => s.serialize_str("inf"),
            _ => s.serialize_str("-inf"),
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Num {
        Number(f64),
        Text(String),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        match Num::deserialize(d)? {
            Num::Number(x) => Ok(x),
            Num::Text(t) => match t.as_str() {
                "inf" => Ok(f64::INFINITY),
                "-inf" => Ok(f64::NEG_INFINITY),
                "nan" => Ok(f64::NAN),
                other => Err(D::Error::custom(format!(
                    "`{other}` is not a number (expected a number, inf, -inf or nan)"
                ))),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infinite_weights_survive_json() {
        let c = Candidate {
            id: NodeId::new("n-0001").unwrap(),
            avail: Avail::Execute,
            pinned: false,
            weight: f64::INFINITY,
            probability: 1.0,
            why: "never visited".into(),
        };
        let text = serde_json::to_string(&c).unwrap();
        assert!(text.contains("\"weight\":\"inf\""), "{text}");
        let back: Candidate = serde_json::from_str(&text).unwrap();
        assert_eq!(back, c);
        assert!(serde_json::from_str::<Candidate>(&text.replace("\"inf\"", "\"lots\"")).is_err());
    }
}
