//! Engine cost per stage on the replay provider, fresh and on a long history (issue 30).
//! A run of the four stages before the hypothesis loop (32 recorded exchanges: scoping,
//! literature, a six-exchange debate, planning) is timed per stage attempt from the
//! engine's own `timings`, which exclude nothing but the (instant) replay itself. Every
//! write goes through the store (lock, journal, fsync, rename), every exchange to
//! `transcripts/` and the ledger.
//!
//! The same run is then repeated on a VSA whose history was grown to ~6 MB before the
//! engine starts (what a study that has lived for weeks carries), interleaved with fresh
//! runs, and the medians are printed as a ratio, with `.youra/`'s size as a ratio to the
//! VSA's (target ≤ 4×). The target (≤ 1.3×) is for a step's cost beyond the file I/O that
//! grows with the file by nature: reading and comparing it under the lock, writing it
//! (journal, file, copies); the new text each write builds (one copy of the file) is
//! printed apart.
//!
//! Run: `cargo bench --bench engine` (`YOURA_BENCH_HISTORY_MB=60` for a larger history).

#[path = "../tests/it/common/script.rs"]
mod script;

use std::path::Path;
use std::time::{Duration, Instant};

use youra::engine::{Engine, Options};

const PAIRS: usize = 7;

/// History entries in the engine's shape until the file holds about `bytes`.
fn grow(vsa: &Path, bytes: usize) {
    let text = std::fs::read_to_string(vsa).expect("VSA");
    let mut hist = String::from("history:\n");
    let mut i = 0;
    while hist.len() < bytes {
        hist.push_str(&format!(
            "- event: stage_completed\n  timestamp: '2026-03-17T17:{:02}:{:02}Z'\n  actor: engine\n  revision: 0\n  stage: Phase {}\n  hypothesis_id: h-x{}\n  reason: 'attempt {i} finished: gate evaluated, n_analyzable=4493 >= 200 (PASS), n_features_with_variance=3 >= 3 (PASS)'\n",
            (i / 60) % 60,
            i % 60,
            i % 5,
            i % 40
        ));
        i += 1;
    }
    let grown = text.replacen("history: []\n", &hist, 1);
    assert_ne!(grown, text, "the skeleton's history is `history: []`");
    std::fs::write(vsa, grown).expect("write the grown VSA");
}

fn dir_bytes(dir: &Path) -> u64 {
    let mut seen = std::collections::HashSet::new();
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let Ok(m) = e.metadata() else { continue };
            if m.is_dir() {
                stack.push(e.path());
            } else if seen.insert(std::os::unix::fs::MetadataExt::ino(&m)) {
                // A hard link costs its bytes once.
                total += m.len();
            }
        }
    }
    total
}

struct Sample {
    stages: Vec<Duration>,
    /// Per step: attempt to completion written; that less the store's file I/O; and that
    /// less the store's copies of the whole text too.
    steps: Vec<Duration>,
    beyond_io: Vec<Duration>,
    beyond_copy: Vec<Duration>,
    whole: Duration,
    vsa: u64,
    side: u64,
}

fn one(s: &script::Script, history: usize) -> Sample {
    let (_g, dir) = script::replay_run(s, "");
    let vsa = dir.join("verification_state.yaml");
    if history > 0 {
        grow(&vsa, history);
    }
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
    Sample {
        whole: t.elapsed(),
        stages: e.timings.clone(),
        steps: e.step_timings.iter().map(|s| s.wall).collect(),
        beyond_io: e
            .step_timings
            .iter()
            .map(|s| s.wall.saturating_sub(s.io))
            .collect(),
        beyond_copy: e
            .step_timings
            .iter()
            .map(|s| s.wall.saturating_sub(s.io + s.copy))
            .collect(),
        vsa: std::fs::metadata(&vsa).map_or(0, |m| m.len()),
        side: dir_bytes(&dir.join(".youra")),
    }
}

fn med(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let mb: f64 = std::env::var("YOURA_BENCH_HISTORY_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6.0);
    let history = (mb * 1e6) as usize;
    let mut s = script::Script::default();
    s.scoping().literature().debate(6, true).planning();
    let (mut fresh_stage, mut fresh_whole) = (Vec::new(), Vec::new());
    let (mut long_stage, mut long_whole) = (Vec::new(), Vec::new());
    let (mut fresh_step, mut long_step) = (Vec::new(), Vec::new());
    let (mut fresh_beyond, mut long_beyond) = (Vec::new(), Vec::new());
    let (mut fresh_copy, mut long_copy) = (Vec::new(), Vec::new());
    let mut side = (0, 0);
    for _ in 0..PAIRS {
        let f = one(&s, 0);
        fresh_stage.extend(f.stages);
        fresh_step.extend(f.steps);
        fresh_beyond.extend(f.beyond_io);
        fresh_copy.extend(f.beyond_copy);
        fresh_whole.push(f.whole);
        let l = one(&s, history);
        long_stage.extend(l.stages);
        long_step.extend(l.steps);
        long_beyond.extend(l.beyond_io);
        long_copy.extend(l.beyond_copy);
        long_whole.push(l.whole);
        side = (l.side, l.vsa);
    }
    let (fs, fw) = (med(&mut fresh_stage), med(&mut fresh_whole));
    let (ls, lw) = (med(&mut long_stage), med(&mut long_whole));
    println!(
        "engine on replay, fresh: median {:.2} ms per stage attempt ({} samples), whole 4-stage run {:.1} ms",
        ms(fs),
        fresh_stage.len(),
        ms(fw)
    );
    println!(
        "engine on replay, {:.1} MB history: median {:.2} ms per stage attempt, whole run {:.1} ms",
        side.1 as f64 / 1e6,
        ms(ls),
        ms(lw)
    );
    let (fp, lp) = (med(&mut fresh_step), med(&mut long_step));
    let (fb, lb) = (med(&mut fresh_beyond), med(&mut long_beyond));
    let (fc, lc) = (med(&mut fresh_copy), med(&mut long_copy));
    println!(
        "whole step (attempt, judgement, preview, completion written): fresh {:.2} ms, long {:.2} ms ({:.2}x)",
        ms(fp),
        ms(lp),
        lp.as_secs_f64() / fp.as_secs_f64(),
    );
    println!(
        "  less the store's file I/O (the file read and compared under the lock; journal, file and copies written): fresh {:.2} ms, long {:.2} ms ({:.2}x, target <= 1.3x)",
        ms(fb),
        ms(lb),
        lb.as_secs_f64() / fb.as_secs_f64()
    );
    println!(
        "  less that and the new text built for each write (a copy of the file): fresh {:.2} ms, long {:.2} ms ({:.2}x)",
        ms(fc),
        ms(lc),
        lc.as_secs_f64() / fc.as_secs_f64()
    );
    println!(
        "ratio to fresh: stage {:.2}x, whole run {:.2}x (target <= 1.3x); .youra/ {:.1} MB = {:.2}x the VSA (target <= 4x)",
        ls.as_secs_f64() / fs.as_secs_f64(),
        lw.as_secs_f64() / fw.as_secs_f64(),
        side.0 as f64 / 1e6,
        side.0 as f64 / side.1.max(1) as f64
    );
}
