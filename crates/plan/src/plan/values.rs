//! Value rules (PrimeScientist §3.3, §4.1) as pure functions: Q as the running mean of the
//! rewards in a subtree, pruning against the parent's Q, and the bound on re-expansion.

/// Pruning threshold δ.
pub const DELTA: f64 = 0.05;
/// Children proposed per expansion at most (m).
pub const MAX_CHILDREN: usize = 3;
/// Re-expansions of a node whose children were all pruned, after its first expansion.
pub const REEXPAND_LIMIT: u32 = 2;

/// Times a node whose execution failed (no reward: a crash, repairs exhausted) is left
/// unrun to be selected again before it is recorded Failed. The reference re-selects such a
/// node with no bound but the budget; 2 is its one retry constant (`MAX_REFLECT_RETRIES`,
/// for the reflector), so a plan gets at most three executions.
pub const MAX_NODE_RETRIES: u32 = 2;

/// Float noise in a difference of rewards must not decide a pruning at exactly δ.
const TOLERANCE: f64 = 1e-9;

/// One more reward folded into a mean: (Q', visits').
pub fn running_mean(q: f64, visits: u64, reward: f64) -> (f64, u64) {
    let n = visits.saturating_add(1);
    (q + (reward - q) / n as f64, n)
}

/// A child whose reward is more than δ below its parent's current Q is excluded from
/// selection, when that Q is positive (a parent at 0 has nothing to fall below).
/// Exactly δ below is kept.
pub fn should_prune(reward: f64, parent_q: f64, delta: f64) -> bool {
    parent_q > 0.0 && parent_q - reward > delta + TOLERANCE
}

/// Whether a node whose children are all out of play may be expanded again: the first
/// expansion plus `limit` re-expansions. A node that gained children some other way
/// (`expansions == 0`, e.g. written by hand) may widen too.
pub fn may_widen(expansions: u32, limit: u32) -> bool {
    expansions.saturating_sub(1) < limit
}

/// A reward as stored: clamped into [0, 1], NaN as 0 (with a warning from the loader).
pub fn clamp_reward(r: f64) -> f64 {
    if r.is_nan() { 0.0 } else { r.clamp(0.0, 1.0) }
}

/// (visits, Q) of every node from scratch: visits = rewarded nodes in its subtree, Q their
/// mean. `parent[i]` indexes into the same slices; `preorder` lists every node with each
/// parent before its children; `upward[i]` is false for a node whose subtree stays out of
/// its ancestors' means (the reference rules' pruned and failed nodes, `rules.rs`). Used to
/// check `stats.json` after a load and when the rules change.
pub fn subtree_means(
    parent: &[Option<usize>],
    preorder: &[usize],
    reward: &[Option<f64>],
    upward: &[bool],
) -> Vec<(u64, f64)> {
    let mut count: Vec<u64> = reward.iter().map(|r| u64::from(r.is_some())).collect();
    let mut sum: Vec<f64> = reward.iter().map(|r| r.unwrap_or(0.0)).collect();
    for &i in preorder.iter().rev() {
        if let Some(p) = parent[i].filter(|_| upward.get(i).copied().unwrap_or(true)) {
            count[p] += count[i];
            sum[p] += sum[i];
        }
    }
    count
        .iter()
        .zip(&sum)
        .map(|(&n, &s)| (n, if n == 0 { 0.0 } else { s / n as f64 }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_mean_is_the_mean() {
        let table: &[(&[f64], f64)] = &[
            (&[0.5], 0.5),
            (&[0.5, 0.7], 0.6),
            (&[0.2, 0.4, 0.9], 0.5),
            (&[0.0, 0.0, 1.0, 1.0], 0.5),
        ];
        for &(rewards, want) in table {
            let (q, n) = rewards
                .iter()
                .fold((0.0, 0), |(q, n), &r| running_mean(q, n, r));
            assert_eq!(n as usize, rewards.len());
            assert!((q - want).abs() < 1e-12, "{rewards:?}: {q}");
        }
    }

    #[test]
    fn pruning_at_the_delta_edges() {
        let table: &[(f64, f64, bool)] = &[
            (0.45, 0.5, false),  // exactly δ below: kept
            (0.25, 0.3, false),  // exactly δ, float noise included
            (0.55, 0.6, false),  // exactly δ, float noise the other way
            (0.4499, 0.5, true), // just past δ
            (0.46, 0.5, false),
            (0.6, 0.5, false), // above the parent
            (0.0, 0.5, true),
            (0.0, 0.0, false),   // parent Q = 0: never pruned
            (0.0, 0.04, false),  // less than δ below
            (0.0, 0.0501, true), // more than δ below a small positive Q
            (-0.1, 0.0, false),
        ];
        for &(reward, parent_q, want) in table {
            assert_eq!(
                should_prune(reward, parent_q, DELTA),
                want,
                "reward {reward} parent {parent_q}"
            );
        }
    }

    #[test]
    fn widening_is_bounded() {
        let table: &[(u32, u32, bool)] = &[
            (0, 2, true),
            (1, 2, true),
            (2, 2, true),
            (3, 2, false),
            (1, 0, false),
            (0, 0, false),
        ];
        for &(expansions, limit, want) in table {
            assert_eq!(may_widen(expansions, limit), want, "{expansions} {limit}");
        }
    }

    #[test]
    fn subtree_means_by_hand() {
        // 0 ─┬─ 1 (0.4) ── 3 (0.8)
        //    └─ 2 (untested)
        // 0 has reward 0.6: Q(0) = (0.6+0.4+0.8)/3, Q(1) = 0.6, Q(2) = 0 with 0 visits.
        let parent = [None, Some(0), Some(0), Some(1)];
        let rewards = [Some(0.6), Some(0.4), None, Some(0.8)];
        let got = subtree_means(&parent, &[0, 1, 3, 2], &rewards, &[true; 4]);
        let want = [(3, 0.6), (2, 0.6), (0, 0.0), (1, 0.8)];
        for (g, w) in got.iter().zip(want) {
            assert_eq!(g.0, w.0);
            assert!((g.1 - w.1).abs() < 1e-12, "{got:?}");
        }
        // 3 kept out of its ancestors (pruned under the reference rules): it keeps its own
        // reward, 1 and 0 lose it.
        let got = subtree_means(&parent, &[0, 1, 3, 2], &rewards, &[true, true, true, false]);
        let want = [(2, 0.5), (1, 0.4), (0, 0.0), (1, 0.8)];
        for (g, w) in got.iter().zip(want) {
            assert_eq!(g.0, w.0);
            assert!((g.1 - w.1).abs() < 1e-12, "{got:?}");
        }
    }

    #[test]
    fn rewards_are_clamped() {
        for (r, want) in [(0.3, 0.3), (-1.0, 0.0), (1.5, 1.0), (f64::NAN, 0.0)] {
            assert_eq!(clamp_reward(r), want);
        }
    }
}
