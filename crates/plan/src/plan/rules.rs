//! Which tree rules the plan follows (`[plan] tree_rules`), and the two places they differ,
//! as pure functions with table tests:
//!
//! - **Q.** `reference` (the authors' `run_search.py`): a pruned child is set aside without
//!   backpropagating, and a run that gave no reward is not recorded as a visit, so neither
//!   reaches its ancestors' Q. `youra` (the rule before issue 27): both fold into every
//!   ancestor's Q, a failure as reward 0.
//! - **Widening.** `reference`: a node with fewer than m children in play (not pruned, not
//!   vetoed) is widened once every child in play has been run down to its leaves, and a node
//!   whose children are all pruned is expanded again; a failed child keeps its place.
//!   `youra`: a node is widened only when no child can be entered, failed ones included.
//!
//! Both bound widening by `reexpand_limit`: youra counts the expansions made after the
//! first; the reference, whose partial widenings are expansions too, lets a node hold at most
//! m·(1 + limit) children in all (the reference itself has no bound but the budget).
//! The choice is recorded in `tree.json` (`rules`), because the stored Q depends on it; a
//! tree written before the key existed was built by the youra rules.

use super::eligibility::{Avail, Blocked, availability};
use super::files::NodeStatus;
pub use super::tree_rules::{TreeRules, UnknownRules};

impl TreeRules {
    /// Whether a node with this status (and its subtree) counts toward its ancestors' Q.
    /// Every rewarded node counts toward its own.
    pub(crate) fn counts_upward(self, status: NodeStatus) -> bool {
        match self {
            TreeRules::Youra => true,
            TreeRules::Reference => !matches!(status, NodeStatus::Pruned | NodeStatus::Failed),
        }
    }
}

/// One child as widening sees it: its availability and whether its subtree is settled
/// (no untested or running node in play below it, itself included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChildState {
    pub avail: Avail,
    pub settled: bool,
}

impl ChildState {
    fn in_play(self) -> bool {
        !matches!(
            self.avail,
            Avail::Blocked(Blocked::Pruned | Blocked::Vetoed)
        )
    }
}

/// Whether a node's subtree is settled: its own attempt is over (or it is vetoed) and every
/// child's subtree is settled.
pub fn settled(status: NodeStatus, vetoed: bool, children: &[ChildState]) -> bool {
    vetoed
        || (!matches!(status, NodeStatus::Untested | NodeStatus::Running)
            && children.iter().all(|c| c.settled))
}

/// A node's availability under `rules` (`eligibility::availability` for youra's, and for
/// what both rules decide alike).
pub(crate) fn availability_under(
    rules: TreeRules,
    status: NodeStatus,
    vetoed: bool,
    children: &[ChildState],
    expansions: u32,
    reexpand_limit: u32,
    max_children: usize,
) -> Avail {
    let decided_alike = vetoed
        || children.is_empty()
        || !matches!(status, NodeStatus::Evaluated | NodeStatus::Failed);
    if rules == TreeRules::Youra || decided_alike {
        let avails: Vec<Avail> = children.iter().map(|c| c.avail).collect();
        return availability(status, vetoed, &avails, expansions, reexpand_limit);
    }
    reference_with_children(
        status == NodeStatus::Failed,
        children,
        reexpand_limit,
        max_children,
    )
}

/// The reference's availability of an evaluated or failed node that has children (the
/// other cases are the same under both rules; `eligibility::availability` decides them).
pub(crate) fn reference_with_children(
    failed: bool,
    children: &[ChildState],
    reexpand_limit: u32,
    max_children: usize,
) -> Avail {
    let in_play: Vec<&ChildState> = children.iter().filter(|c| c.in_play()).collect();
    let cap = max_children.saturating_mul(1 + reexpand_limit as usize);
    let may_widen = !failed && children.len() < cap;
    if in_play.is_empty() {
        // Every child pruned or vetoed: the reference expands again.
        return if may_widen {
            Avail::Widen
        } else {
            Avail::Blocked(Blocked::DeadEnd)
        };
    }
    if may_widen && in_play.len() < max_children && in_play.iter().all(|c| c.settled) {
        return Avail::Widen;
    }
    if children.iter().any(|c| c.avail.eligible()) {
        return Avail::Descend;
    }
    let waiting = children
        .iter()
        .any(|c| matches!(c.avail, Avail::Blocked(Blocked::Running | Blocked::Busy)));
    if waiting {
        Avail::Blocked(Blocked::Busy)
    } else {
        Avail::Blocked(Blocked::DeadEnd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Avail::*;

    #[test]
    fn names_round_trip_and_unknown_is_an_error() {
        for r in [TreeRules::Reference, TreeRules::Youra] {
            assert_eq!(r.to_string().parse::<TreeRules>(), Ok(r));
        }
        assert_eq!(" Youra ".parse::<TreeRules>(), Ok(TreeRules::Youra));
        let e = "paper".parse::<TreeRules>().unwrap_err();
        assert!(e.to_string().contains("use reference or youra"), "{e}");
        assert_eq!(TreeRules::default(), TreeRules::Reference);
    }

    #[test]
    fn what_reaches_the_ancestors() {
        use NodeStatus as S;
        let table = [
            (S::Evaluated, true, true),
            (S::Pruned, true, false),
            (S::Failed, true, false),
            (S::Untested, true, true),
        ];
        for (status, youra, reference) in table {
            assert_eq!(TreeRules::Youra.counts_upward(status), youra, "{status:?}");
            assert_eq!(
                TreeRules::Reference.counts_upward(status),
                reference,
                "{status:?}"
            );
        }
    }

    #[test]
    fn reference_widening_table() {
        let c = |avail, settled| ChildState { avail, settled };
        let pruned = c(Blocked(super::Blocked::Pruned), true);
        let vetoed = c(Blocked(super::Blocked::Vetoed), false);
        let failed = c(Blocked(super::Blocked::Failed), true);
        let leaf = c(Expand, true); // evaluated leaf: run, nothing below
        let untested = c(Execute, false);
        let running = c(Blocked(super::Blocked::Running), false);
        let dead = c(Blocked(super::Blocked::DeadEnd), true);
        let deep = c(Descend, false); // something untested below
        let busy = Blocked(super::Blocked::Busy);
        let nine_pruned = [pruned; 9];
        let eight_pruned_one_leaf = [
            pruned, pruned, pruned, pruned, pruned, pruned, pruned, pruned, leaf,
        ];
        // (node failed, children, want) with m = 3 and a re-expansion limit of 2: at most
        // 3·(1 + 2) = 9 children in all.
        let table: &[(bool, &[ChildState], Avail)] = &[
            // Fewer than m in play, all run: widen before descending (breadth first).
            (false, &[leaf, leaf], Widen),
            (false, &[leaf], Widen),
            // A failed child keeps its place: three in play, no widening.
            (
                false,
                &[failed, failed, failed],
                Blocked(super::Blocked::DeadEnd),
            ),
            (false, &[failed, leaf, leaf], Descend),
            // Under m but a child is untested or has an untested descendant: descend.
            (false, &[leaf, untested], Descend),
            (false, &[leaf, deep], Descend),
            (false, &[running, leaf], Descend),
            (false, &[running, failed], busy),
            // Pruned and vetoed children are out of play.
            (false, &[pruned, leaf, leaf], Widen),
            (false, &[pruned, vetoed, leaf], Widen),
            (false, &[pruned, pruned, pruned], Widen),
            (false, &nine_pruned, Blocked(super::Blocked::DeadEnd)),
            (false, &eight_pruned_one_leaf, Descend),
            // m in play, all run down: descend into the ones that can grow.
            (false, &[leaf, leaf, leaf], Descend),
            (
                false,
                &[dead, dead, failed],
                Blocked(super::Blocked::DeadEnd),
            ),
            // A failed node is never widened.
            (true, &[leaf], Descend),
            (true, &[pruned], Blocked(super::Blocked::DeadEnd)),
        ];
        for &(node_failed, children, want) in table {
            assert_eq!(
                reference_with_children(node_failed, children, 2, 3),
                want,
                "failed={node_failed} {children:?}"
            );
        }
    }

    #[test]
    fn settled_table() {
        use NodeStatus as S;
        let yes = ChildState {
            avail: Expand,
            settled: true,
        };
        let no = ChildState {
            avail: Execute,
            settled: false,
        };
        let table: &[(S, bool, &[ChildState], bool)] = &[
            (S::Evaluated, false, &[], true),
            (S::Failed, false, &[], true),
            (S::Pruned, false, &[], true),
            (S::Untested, false, &[], false),
            (S::Running, false, &[], false),
            (S::Untested, true, &[], true),
            (S::Evaluated, false, &[yes, no], false),
            (S::Evaluated, false, &[yes, yes], true),
        ];
        for &(status, vetoed, children, want) in table {
            assert_eq!(
                settled(status, vetoed, children),
                want,
                "{status:?} {vetoed}"
            );
        }
    }
}
