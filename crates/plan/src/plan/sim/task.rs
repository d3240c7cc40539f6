//! The hidden plans of one synthetic task. A plan has a true reward (what executing it
//! scores, before noise) and a long-run value (the level its refinements settle at):
//!
//! - a child's long-run value is its parent's + drift + direction_sd·z_L
//! - its reward is its parent's + pull·(parent's long-run value − parent's reward)
//!   + gain_sd·(ρ·z_L + √(1−ρ²)·z_G), with ρ = `early_long_corr`
//!
//! So an immediate gain shows in the child's own score, its long-run value only in its
//! descendants', and ρ sets whether the first predicts the second (ρ < 0: early rewards
//! mislead). With drift 0 a chain of refinements plateaus at its direction's value after a
//! few steps; only choosing among alternatives climbs further.

use super::spec::TaskSpec;
use super::{mix, normal, stream};
use crate::plan::values::MAX_CHILDREN;
use crate::rng::Draw;

const SALT_REWARD: u64 = 1;
const SALT_OBSERVE: u64 = 2;
const SALT_PRIOR: u64 = 3;
const SALT_EXPAND: u64 = 4;
const SALT_EXEC: u64 = 5;
const SALT_FAIL: u64 = 6;
const SALT_ROOT: u64 = 7;
const SALT_DRAFT: u64 = 8;
const SALT_RUN: u64 = 9;

/// One hidden plan: its key (its place in the tree) and what it is worth.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hidden {
    pub key: u64,
    /// The expected score of executing it, in [0, 1].
    pub reward: f64,
    /// What refining it settles at, in [0, 1].
    pub long_run: f64,
    /// The standardised random part of its immediate gain over its parent (0 for a root):
    /// what the reflector's prior can know about.
    pub gain_z: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Task {
    pub seed: u64,
    pub spec: TaskSpec,
}

fn uniform(rng: &mut impl Draw, (lo, hi): (f64, f64)) -> f64 {
    lo + (hi - lo) * rng.draw()
}

fn uniform_u64(rng: &mut impl Draw, (lo, hi): (u64, u64)) -> u64 {
    lo + (rng.draw() * hi.saturating_sub(lo) as f64) as u64
}

impl Task {
    /// The `draft`-th root plan drafted for the task (a later one after every plan in play
    /// failed or was pruned: a redesign, not a refinement of the first).
    pub fn root(&self, draft: u64) -> Hidden {
        let key = match draft {
            0 => mix(self.seed),
            d => mix(self.seed ^ mix(d ^ SALT_ROOT)),
        };
        let mut rng = stream(key, SALT_REWARD);
        let reward = uniform(&mut rng, self.spec.root_reward).clamp(0.0, 1.0);
        let long_run = (reward + uniform(&mut rng, self.spec.headroom)).clamp(0.0, 1.0);
        Hidden {
            key,
            reward,
            long_run,
            gain_z: 0.0,
        }
    }

    /// The `index`-th child ever proposed for `parent`.
    pub fn child(&self, parent: Hidden, index: u64) -> Hidden {
        let s = &self.spec;
        let key = mix(parent.key ^ mix(index.wrapping_add(0x51)));
        let mut rng = stream(key, SALT_REWARD);
        let (z_long, z_gain) = (normal(&mut rng), normal(&mut rng));
        let rho = s.early_long_corr.clamp(-1.0, 1.0);
        let gain_z = rho * z_long + (1.0 - rho * rho).sqrt() * z_gain;
        let pulled = s.pull * (parent.long_run - parent.reward);
        Hidden {
            key,
            reward: (parent.reward + pulled + s.gain_sd * gain_z).clamp(0.0, 1.0),
            long_run: (parent.long_run + s.drift + s.direction_sd * z_long).clamp(0.0, 1.0),
            gain_z,
        }
    }

    /// The `index`-th child a reflector proposes for `parent`: the blind edit of the same
    /// place (`child`), better by `reflect_gain` in reward and long-run value. Same key, so
    /// tree and loop meet the same draws.
    pub(crate) fn reflected(&self, parent: Hidden, index: u64) -> Hidden {
        let g = self.spec.reflect_gain;
        let c = self.child(parent, index);
        Hidden {
            reward: (c.reward + g).clamp(0.0, 1.0),
            long_run: (c.long_run + g).clamp(0.0, 1.0),
            ..c
        }
    }

    /// What `runs` executions of `h` report: the best reward among those that did not fail
    /// (`None` if all failed). The first run is `observe(h)`.
    pub fn observe_runs(&self, h: Hidden, runs: u32) -> Option<f64> {
        (0..u64::from(runs.max(1)))
            .filter_map(|k| self.observe_execution(h, k))
            .reduce(f64::max)
    }

    /// What the `k`-th execution ever of `h` reports (a second run, a retry after a
    /// failure): execution 0 is `observe(h)`, each later one its own draw of noise and
    /// failure on the same plan.
    pub(crate) fn observe_execution(&self, h: Hidden, k: u64) -> Option<f64> {
        let run = match k {
            0 => h,
            k => Hidden {
                key: mix(h.key ^ mix(k ^ SALT_RUN)),
                ..h
            },
        };
        self.observe(run)
    }

    /// The tokens of the `k`-th execution of `h` (execution 0: `exec_cost(h)`).
    pub(crate) fn execution_cost(&self, h: Hidden, k: u64) -> u64 {
        match k {
            0 => self.exec_cost(h),
            k => self.exec_cost(Hidden {
                key: mix(h.key ^ mix(k ^ SALT_RUN)),
                ..h
            }),
        }
    }

    /// Whether executing `h` ends without a reward.
    pub fn fails(&self, h: Hidden) -> bool {
        stream(h.key, SALT_FAIL).draw() < self.spec.fail_rate
    }

    /// The reward an execution of `h` reports; `None` if it fails.
    pub fn observe(&self, h: Hidden) -> Option<f64> {
        if self.fails(h) {
            return None;
        }
        let e = self.spec.noise * normal(&mut stream(h.key, SALT_OBSERVE));
        Some((h.reward + e).clamp(0.0, 1.0))
    }

    /// The reflector's prior estimate P for `child`: mean + sd·(κ·gain_z + √(1−κ²)·z),
    /// κ = `prior_corr`, so P ranks siblings with correlation κ to their immediate gain.
    pub fn prior(&self, child: Hidden) -> f64 {
        let s = &self.spec;
        let k = s.prior_corr.clamp(0.0, 1.0);
        let z = normal(&mut stream(child.key, SALT_PRIOR));
        let p = s.prior_mean + s.prior_sd * (k * child.gain_z + (1.0 - k * k).sqrt() * z);
        p.clamp(0.02, 0.98)
    }

    /// The `expansion`-th reflector call on `parent` (`u64::MAX`: drafting it as a root).
    pub fn expand_cost(&self, parent: Hidden, expansion: u64) -> u64 {
        uniform_u64(
            &mut stream(parent.key ^ expansion, SALT_EXPAND),
            self.spec.expand_cost,
        )
    }

    /// Drafting `root` (a reflector call from the task alone).
    pub fn draft_cost(&self, root: Hidden) -> u64 {
        uniform_u64(&mut stream(root.key, SALT_DRAFT), self.spec.draft_cost)
    }

    pub fn exec_cost(&self, h: Hidden) -> u64 {
        uniform_u64(&mut stream(h.key, SALT_EXEC), self.spec.exec_cost)
    }

    /// The best true reward among the first m reflected children of every node down to
    /// `depth` below the first root: a reference for what the task allows (a search can find more).
    pub(crate) fn reference_best(&self, depth: u32) -> f64 {
        let mut level = vec![self.root(0)];
        let mut best = level[0].reward;
        for _ in 0..depth {
            level = level
                .iter()
                .flat_map(|&p| (0..MAX_CHILDREN as u64).map(move |i| (p, i)))
                .map(|(p, i)| self.reflected(p, i))
                .collect();
            best = level.iter().map(|h| h.reward).fold(best, f64::max);
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_plans_are_a_function_of_their_place() {
        let t = Task {
            seed: 9,
            spec: TaskSpec::default(),
        };
        let r = t.root(0);
        assert_eq!(t.child(r, 2), t.child(r, 2));
        assert_ne!(t.child(r, 2).key, t.child(r, 1).key);
        assert_ne!(t.root(1).key, r.key);
        assert_eq!(t.observe(r), t.observe(r));
        let other = Task { seed: 10, ..t };
        assert_ne!(other.root(0).key, r.key);
        for i in 0..200 {
            let c = t.child(r, i);
            assert!((0.0..=1.0).contains(&c.reward) && (0.0..=1.0).contains(&c.long_run));
            assert!(t.observe(c).is_none_or(|o| (0.0..=1.0).contains(&o)));
            assert!((0.02..=0.98).contains(&t.prior(c)));
        }
        assert!(t.reference_best(3) >= r.reward);
    }

    #[test]
    fn a_reflected_child_is_the_blind_edit_plus_the_gain() {
        let spec = TaskSpec {
            reflect_gain: 0.05,
            ..TaskSpec::default()
        };
        let t = Task { seed: 2, spec };
        let r = t.root(0);
        for i in 0..50 {
            let (blind, seen) = (t.child(r, i), t.reflected(r, i));
            assert_eq!(blind.key, seen.key);
            assert!((seen.reward - (blind.reward + 0.05).min(1.0)).abs() < 1e-12);
            assert!((seen.long_run - (blind.long_run + 0.05).min(1.0)).abs() < 1e-12);
        }
        let flat = Task {
            spec: TaskSpec::default(),
            ..t
        };
        assert_eq!(flat.reflected(r, 3), flat.child(r, 3));
    }

    #[test]
    fn double_execution_keeps_the_best_run() {
        let t = Task {
            seed: 5,
            spec: TaskSpec::default(),
        };
        let (mut better, mut rescued) = (0, 0);
        for i in 0..400 {
            let h = t.child(t.root(0), i);
            let (one, two) = (t.observe_runs(h, 1), t.observe_runs(h, 2));
            assert_eq!(one, t.observe(h));
            match (one, two) {
                (Some(a), Some(b)) => {
                    assert!(b >= a);
                    better += usize::from(b > a);
                }
                (None, Some(_)) => rescued += 1,
                (Some(_), None) => panic!("a second run cannot lose the first"),
                (None, None) => {}
            }
        }
        assert!(better > 50 && rescued > 20, "{better} {rescued}");
    }

    #[test]
    fn a_child_follows_the_rule() {
        // No spread: the child closes `pull` of its parent's gap and moves its value by drift.
        let spec = TaskSpec {
            gain_sd: 0.0,
            direction_sd: 0.0,
            drift: 0.02,
            ..TaskSpec::default()
        };
        let t = Task { seed: 1, spec };
        let parent = Hidden {
            key: 5,
            reward: 0.4,
            long_run: 0.6,
            gain_z: 0.0,
        };
        let c = t.child(parent, 0);
        assert!((c.reward - 0.5).abs() < 1e-12, "{c:?}");
        assert!((c.long_run - 0.62).abs() < 1e-12, "{c:?}");
        let top = Hidden {
            long_run: 0.995,
            ..parent
        };
        assert_eq!(t.child(top, 0).long_run, 1.0, "clamped");
    }
}
