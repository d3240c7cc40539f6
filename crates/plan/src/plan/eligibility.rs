//! Which nodes selection may enter, and what reaching each one means (pure). Computed
//! bottom-up: a node's availability depends on its own status and marks and on its
//! children's availability.

use serde::{Deserialize, Serialize};

use super::files::NodeStatus;
use super::values::may_widen;

/// What descent does on reaching a node, or why it cannot enter it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Avail {
    /// Untested: run the attempt.
    Execute,
    /// An evaluated leaf: the reflector proposes children.
    Expand,
    /// Evaluated, every child out of play (pruned, failed, vetoed, dead): expand again.
    Widen,
    /// Some child can be entered: continue among the children.
    Descend,
    Blocked(Blocked),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Blocked {
    Vetoed,
    Pruned,
    /// Its attempt is in progress.
    Running,
    /// An attempt ended without a reward; selection does not expand it (recovery may).
    Failed,
    /// Nothing to enter below until a running attempt beneath it reports.
    Busy,
    /// Every child out of play and the re-expansions are spent.
    DeadEnd,
}

impl Avail {
    pub(crate) fn eligible(self) -> bool {
        !matches!(self, Avail::Blocked(_))
    }

    /// One phrase for the TUI.
    pub fn describe(self) -> &'static str {
        match self {
            Avail::Execute => "execute",
            Avail::Expand => "expand",
            Avail::Widen => "widen: all children out of play",
            Avail::Descend => "descend",
            Avail::Blocked(Blocked::Vetoed) => "vetoed by the researcher",
            Avail::Blocked(Blocked::Pruned) => "pruned: reward more than δ below its parent's Q",
            Avail::Blocked(Blocked::Running) => "running",
            Avail::Blocked(Blocked::Failed) => "failed: the attempt gave no reward",
            Avail::Blocked(Blocked::Busy) => "waiting: an attempt below is running",
            Avail::Blocked(Blocked::DeadEnd) => {
                "dead end: children out of play, re-expansions spent"
            }
        }
    }
}

/// The rule. `children` holds the children's availability, already computed.
pub fn availability(
    status: NodeStatus,
    vetoed: bool,
    children: &[Avail],
    expansions: u32,
    reexpand_limit: u32,
) -> Avail {
    if vetoed {
        return Avail::Blocked(Blocked::Vetoed);
    }
    match status {
        NodeStatus::Pruned => return Avail::Blocked(Blocked::Pruned),
        NodeStatus::Running => return Avail::Blocked(Blocked::Running),
        NodeStatus::Untested => return Avail::Execute,
        NodeStatus::Evaluated | NodeStatus::Failed => {}
    }
    let failed = status == NodeStatus::Failed;
    if children.is_empty() {
        return if failed {
            Avail::Blocked(Blocked::Failed)
        } else {
            Avail::Expand
        };
    }
    if children.iter().any(|c| c.eligible()) {
        return Avail::Descend;
    }
    let waiting = children
        .iter()
        .any(|c| matches!(c, Avail::Blocked(Blocked::Running | Blocked::Busy)));
    if waiting {
        Avail::Blocked(Blocked::Busy)
    } else if !failed && may_widen(expansions, reexpand_limit) {
        Avail::Widen
    } else {
        Avail::Blocked(Blocked::DeadEnd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Avail::*;
    use NodeStatus as S;

    #[test]
    fn availability_table() {
        let pruned = Blocked(super::Blocked::Pruned);
        let running = Blocked(super::Blocked::Running);
        let dead = Blocked(super::Blocked::DeadEnd);
        let vetoed = Blocked(super::Blocked::Vetoed);
        let busy = Blocked(super::Blocked::Busy);
        let failed = Blocked(super::Blocked::Failed);
        // (status, vetoed, children, expansions, want) with a re-expansion limit of 2.
        let table: &[(S, bool, &[Avail], u32, Avail)] = &[
            (S::Untested, false, &[], 0, Execute),
            (S::Untested, true, &[], 0, vetoed),
            (S::Running, false, &[], 0, running),
            (S::Pruned, false, &[Execute], 1, pruned),
            (S::Evaluated, false, &[], 0, Expand),
            (S::Evaluated, true, &[Execute], 1, vetoed),
            (S::Evaluated, false, &[pruned, Execute], 1, Descend),
            (S::Evaluated, false, &[pruned, Expand], 1, Descend),
            (S::Evaluated, false, &[pruned, pruned], 1, Widen),
            (
                S::Evaluated,
                false,
                &[pruned, vetoed, failed, dead],
                2,
                Widen,
            ),
            (S::Evaluated, false, &[pruned, pruned], 3, dead),
            (S::Evaluated, false, &[pruned, running], 3, busy),
            (S::Evaluated, false, &[pruned, busy], 1, busy),
            (S::Failed, false, &[], 0, failed),
            (S::Failed, false, &[Execute], 1, Descend),
            (S::Failed, false, &[pruned], 1, dead),
        ];
        for &(status, vetoed, children, expansions, want) in table {
            assert_eq!(
                availability(status, vetoed, children, expansions, 2),
                want,
                "{status:?} vetoed={vetoed} {children:?} expansions={expansions}"
            );
        }
    }
}
