//! `youra bench …`: benchmarks shipped with the product. `allocation` compares the plan
//! tree's allocation policies on seeded synthetic research tasks (`plan::bench`); `routing`
//! scores recovery's routing on a seeded labelled corpus of failed experiments
//! (`reflect::bench`).

use std::time::Instant;

use clap::Subcommand;
use color_eyre::eyre::Result;

use super::fail;
use crate::plan::bench;
use crate::reflect::bench as routing_bench;

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Every allocation policy (adaptive, greedy, UCT, random, fixed α) and a linear
    /// keep-or-revert loop on the same synthetic research tasks at equal token budget
    /// (calibrated to PrimeScientist): mean best/reference and max observed reward with 95%
    /// intervals, attempts, and the share of 8-task draws each ranks first.
    /// Deterministic: the same seed prints the same table.
    Allocation {
        /// How many synthetic tasks (at least 1); with --sweep, per setting.
        #[arg(long, default_value_t = 200)]
        tasks: usize,
        /// Repeat the benchmark varying one task property at a time (drift, the early/long-run
        /// reward correlation, the prior's informativeness, noise, headroom, direction spread,
        /// planning cost, budget, the reflector's gain over a blind edit, FIRE's double
        /// execution, D.1's stated costs), with paired intervals per setting: adaptive against
        /// its rival, the loop and greedy, and the reference tree rules against youra's.
        #[arg(long)]
        sweep: bool,
        /// Seed of the tasks and of the policies' draws.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also print how long the benchmark took (on stderr, so stdout stays reproducible).
        #[arg(long)]
        time: bool,
        /// The table as one JSON object (`bench`, the parameters, `rows`).
        #[arg(long)]
        json: bool,
    },
    /// Recovery's routing on a seeded synthetic corpus of failed experiments with known
    /// causes: the deterministic part (no-metric rule + π given the true category), the full
    /// pipeline on replayed attributions, and every single fixed verdict. Accuracy with a 95%
    /// interval and recall per YouRA level. Deterministic: the same seed prints the same table.
    Routing {
        /// How many failed experiments (at least 1).
        #[arg(long, default_value_t = 2000)]
        cases: usize,
        /// Seed of the corpus and of the simulated critic and judge.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also print how long the benchmark took (on stderr, so stdout stays reproducible).
        #[arg(long)]
        time: bool,
        /// The table as one JSON object (`bench`, the parameters, `rows`).
        #[arg(long)]
        json: bool,
    },
}

pub fn run(cmd: BenchCommand) -> Result<i32> {
    match cmd {
        BenchCommand::Allocation {
            tasks,
            sweep,
            seed,
            time,
            json,
        } => {
            if tasks == 0 {
                fail(
                    "--tasks 0: there is nothing to compare",
                    "give --tasks 1 or more (default 200)",
                );
                return Ok(2);
            }
            let start = Instant::now();
            if sweep {
                let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
                let points = bench::sweep::run(tasks, seed, threads);
                if json {
                    let out = serde_json::json!({
                        "bench": "allocation-sweep", "tasks": tasks, "seed": seed,
                        "draw": bench::DRAW, "settings": points,
                    });
                    println!("{out}");
                } else {
                    print!("{}", bench::sweep::render(&points, tasks, seed));
                }
            } else {
                let results = bench::run(tasks, seed);
                if json {
                    let out = serde_json::json!({
                        "bench": "allocation", "tasks": tasks, "seed": seed,
                        "spec": crate::plan::sim::TaskSpec::default(), "rows": results.rows(),
                    });
                    println!("{out}");
                } else {
                    print!("{}", bench::render(&results, seed));
                }
            }
            if time {
                eprintln!("took {:.2} s", start.elapsed().as_secs_f64());
            }
            Ok(0)
        }
        BenchCommand::Routing {
            cases,
            seed,
            time,
            json,
        } => {
            if cases == 0 {
                fail(
                    "--cases 0: there is nothing to route",
                    "give --cases 1 or more (default 2000)",
                );
                return Ok(2);
            }
            let start = Instant::now();
            let report = routing_bench::run(cases, seed);
            if json {
                let rows: Vec<serde_json::Value> = report
                    .rows
                    .iter()
                    .map(|r| {
                        let mut v = serde_json::to_value(r).unwrap_or_default();
                        v["accuracy"] = r.accuracy().into();
                        v
                    })
                    .collect();
                let mut out = serde_json::to_value(&report)?;
                out["bench"] = "routing".into();
                out["rows"] = rows.into();
                out["levels"] = routing_bench::TARGETS
                    .iter()
                    .map(|t| t.as_str())
                    .collect::<Vec<_>>()
                    .into();
                println!("{out}");
            } else {
                print!("{}", routing_bench::render(&report));
            }
            if time {
                eprintln!("took {:.2} s", start.elapsed().as_secs_f64());
            }
            Ok(0)
        }
    }
}
