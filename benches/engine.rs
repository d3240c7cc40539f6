//! Engine overhead per stage on the replay provider (target ≤ 5 ms): a whole run of the
//! four stages before the hypothesis loop (32 recorded exchanges: scoping, literature, a
//! six-exchange debate, planning), timed per stage attempt from the engine's own
//! `timings`, which exclude nothing but the (instant) replay itself. Every write goes
//! through the store (lock, fsync, rename), every exchange to `transcripts/` and the ledger.
//!
//! Run: `cargo bench --bench engine`.

#[path = "../tests/common/script.rs"]
mod script;

use std::time::{Duration, Instant};

use youra::engine::{Engine, Options};

const RUNS: usize = 15;

fn main() {
    let mut s = script::Script::default();
    s.scoping().literature().debate(6, true).planning();
    let mut per_stage = Vec::new();
    let mut whole = Vec::new();
    for _ in 0..RUNS {
        let (_g, dir) = script::replay_run(&s, "");
        let t = Instant::now();
        let mut e = Engine::open(
            &dir,
            Options {
                exit_when_paused: true,
                ..Options::default()
            },
        )
        .expect("engine opens");
        let _ = e.run().expect("engine runs");
        whole.push(t.elapsed());
        per_stage.extend(e.timings.iter().copied());
    }
    let med = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let stage = med(&mut per_stage);
    let run = med(&mut whole);
    println!(
        "engine overhead on replay: median {:.2} ms per stage attempt ({} samples); whole 4-stage run median {:.1} ms ({:.2} ms per stage incl. controller, store writes, transcripts, ledger)",
        stage.as_secs_f64() * 1e3,
        per_stage.len(),
        run.as_secs_f64() * 1e3,
        run.as_secs_f64() * 1e3 / 4.0
    );
}
