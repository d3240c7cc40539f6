//! The recovery actions of SAGE's routing table π(category, severity), as an escalation
//! proposes them, as a researcher may override them (`steer`) and as the store journals a
//! transition (`vsa::transition`).

use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RoutingAction {
    Proceed,
    LocalRefine,
    MethodRefine,
    DesignRefine,
    Pivot,
    DesignPivot,
}

impl RoutingAction {
    pub const ALL: [RoutingAction; 6] = [
        RoutingAction::Proceed,
        RoutingAction::LocalRefine,
        RoutingAction::MethodRefine,
        RoutingAction::DesignRefine,
        RoutingAction::Pivot,
        RoutingAction::DesignPivot,
    ];

    /// The canonical name, as the VSA writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            RoutingAction::Proceed => "Proceed",
            RoutingAction::LocalRefine => "Local-Refine",
            RoutingAction::MethodRefine => "Method-Refine",
            RoutingAction::DesignRefine => "Design-Refine",
            RoutingAction::Pivot => "Pivot",
            RoutingAction::DesignPivot => "Design-Pivot",
        }
    }
}

impl serde::Serialize for RoutingAction {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl fmt::Display for RoutingAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown routing action `{0}`; the actions are: {names}", names = RoutingAction::ALL.map(RoutingAction::as_str).join(", "))]
pub struct UnknownAction(pub String);

/// Case, dashes, underscores and spaces do not matter: `design_refine`, `DESIGN-REFINE`
/// and `Design Refine` all name Design-Refine.
impl FromStr for RoutingAction {
    type Err = UnknownAction;

    fn from_str(s: &str) -> Result<RoutingAction, UnknownAction> {
        let squash = |t: &str| {
            t.chars()
                .filter(|c| !matches!(c, '-' | '_' | ' '))
                .collect::<String>()
                .to_ascii_lowercase()
        };
        let wanted = squash(s);
        RoutingAction::ALL
            .into_iter()
            .find(|a| squash(a.as_str()) == wanted)
            .ok_or_else(|| UnknownAction(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_are_tolerated() {
        for a in RoutingAction::ALL {
            assert_eq!(a.as_str().parse::<RoutingAction>(), Ok(a));
        }
        for raw in [
            "design_refine",
            "DESIGN-REFINE",
            "Design Refine",
            "designrefine",
        ] {
            assert_eq!(raw.parse(), Ok(RoutingAction::DesignRefine), "{raw}");
        }
        let e = "Abandon".parse::<RoutingAction>().unwrap_err().to_string();
        assert!(e.contains("`Abandon`") && e.contains("Design-Pivot"), "{e}");
    }
}
