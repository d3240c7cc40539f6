//! Synthetic research tasks for `youra bench allocation`, calibrated to what PrimeScientist
//! reports (budget, token costs, attempts, failed executions) and with the properties it
//! does not report (drift, misleading early rewards, prior informativeness, noise) as
//! parameters the sweep varies.
//!
//! - `spec.rs` the parameters and their paper-calibrated defaults
//! - `task.rs` the hidden plans: a reward and a long-run value per node, observed outcomes,
//!   the reflector's prior, costs, a reference best
//! - `search.rs` one search: a tree policy through the real plan-tree code, or
//!   AutoResearch's keep-or-revert loop; each execution an attempt, failed nodes retried and
//!   rewarded ones diagnosed as the engine does (`TaskSpec::engine`)
//!
//! Every hidden quantity is a pure function of (task seed, the node's place in the tree):
//! the k-th child of a node is the same plan whichever searcher reaches it, with the same
//! outcome, failure and costs. Searchers are thus compared on common random numbers, and a
//! run is reproducible from its seed.

mod search;
mod spec;
mod task;

pub use search::{Outcome, run_linear, run_tree};
pub use spec::{D1_STATED, ENGINE_DIAGNOSIS, JOINT_D1, TaskSpec};
pub use task::{Hidden, Task};

use crate::rng::{Draw, XorShift64};

/// splitmix64: decorrelates neighbouring keys. Shared with `reflect::corpus`.
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A standard normal draw (Box–Muller).
pub fn normal(rng: &mut XorShift64) -> f64 {
    let u = 1.0 - rng.draw(); // (0, 1]: ln is finite
    let v = rng.draw();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// Draws that depend on `key` and on what they are for (`salt`) only.
fn stream(key: u64, salt: u64) -> XorShift64 {
    XorShift64::new(mix(key ^ mix(salt)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_and_normal_keep_their_values() {
        // reflect::corpus and reflect::bench draw their corpora from these: a change here
        // silently changes the routing benchmark, so the first values are pinned.
        assert_eq!(mix(0), 0xE220_A839_7B1D_CDAF);
        assert_ne!(mix(1), mix(2));
        let mut r = XorShift64::new(7);
        let z: Vec<f64> = (0..20_000).map(|_| normal(&mut r)).collect();
        let mean = z.iter().sum::<f64>() / z.len() as f64;
        let var = z.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / z.len() as f64;
        assert!(
            mean.abs() < 0.03 && (var - 1.0).abs() < 0.05,
            "{mean} {var}"
        );
    }
}
