//! `youra bench …`: benchmarks shipped with the product. `allocation` compares the plan
//! tree's allocation policies on seeded synthetic research tasks (`plan::bench`).

use std::time::Instant;

use clap::Subcommand;
use color_eyre::eyre::Result;

use super::fail;
use crate::plan::bench;

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Every allocation policy (adaptive, greedy, UCT, random, fixed α) and a linear
    /// keep-or-revert loop on the same synthetic research tasks at equal token budget:
    /// mean best reward with a 95% interval, attempts, and attempts to reach 90% of the best.
    /// Deterministic: the same seed prints the same table.
    Allocation {
        /// How many synthetic tasks (at least 1).
        #[arg(long, default_value_t = 200)]
        tasks: usize,
        /// Seed of the tasks and of the policies' draws.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also print how long the benchmark took (on stderr, so stdout stays reproducible).
        #[arg(long)]
        time: bool,
    },
}

pub fn run(cmd: BenchCommand) -> Result<i32> {
    match cmd {
        BenchCommand::Allocation { tasks, seed, time } => {
            if tasks == 0 {
                fail(
                    "--tasks 0: there is nothing to compare",
                    "give --tasks 1 or more (default 200)",
                );
                return Ok(2);
            }
            let start = Instant::now();
            let rows = bench::run(tasks, seed);
            print!("{}", bench::render(&rows, tasks, seed));
            if time {
                eprintln!("took {:.2} s", start.elapsed().as_secs_f64());
            }
            Ok(0)
        }
    }
}
