//! `youra bench …`: benchmarks shipped with the product. `allocation` compares the plan
//! tree's allocation policies on seeded synthetic research tasks (`plan::bench`); `routing`
//! scores recovery's routing on a seeded labelled corpus of failed experiments
//! (`reflect::bench`); `claims` measures the gates' false-claim rate and power on simulated
//! studies (`evidence::bench`).

use std::time::Instant;

use clap::Subcommand;
use color_eyre::eyre::Result;

use super::fail;
use crate::evidence::bench as evidence_bench;
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
        /// Instead of the synthetic corpus: YouRA's published runs (the folder holding
        /// `analysis/VSA/routing_levels_detail.csv` and `results/`). Each shipped failure
        /// record is replayed through SAGE's table and the Independent Controller, and
        /// compared with the level YouRA took. Needs live endpoints: --config.
        #[arg(long, value_name = "DIR")]
        youra: Option<std::path::PathBuf>,
        /// With --youra: the youra.toml whose [llm.*] endpoints answer the attribution and
        /// the controller (a replay bundle cannot answer records it never recorded).
        #[arg(long, value_name = "FILE", requires = "youra")]
        config: Option<std::path::PathBuf>,
    },
    /// youra's gate logic on simulated studies with a known truth (true effects above, at
    /// and below the threshold, null gains; noise of one repeat from the demo's per-fold
    /// spread): the false-claim rate (PASS where the truth fails) and the power (PASS where it
    /// holds) of one-measurement gating (today's rule) and of interval gating at `[evidence]`'s
    /// defaults. Deterministic: the same seed prints the same table. Decision 0033.
    Claims {
        /// Simulated studies per scenario and gating (at least 1).
        #[arg(long, default_value_t = 4000)]
        studies: u64,
        /// Seed of the studies' draws.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// One repeat's sd of an accuracy (default: the demo's per-fold spread).
        #[arg(long, default_value_t = evidence_bench::ACCURACY_SD)]
        sd: f64,
        /// One repeat's sd of a paired gain (default: the demo's per-fold spread of the gain).
        #[arg(long, default_value_t = evidence_bench::GAIN_SD)]
        gain_sd: f64,
        /// Instead: the coverage of the t and bootstrap intervals at 5, 10 and 20 repeats
        /// (the figures behind `[evidence] interval = "auto"`), over --studies samples.
        #[arg(long)]
        coverage: bool,
        /// Also print how long the benchmark took (on stderr, so stdout stays reproducible).
        #[arg(long)]
        time: bool,
        /// The table as one JSON object (`bench`, the parameters, `rows`).
        #[arg(long)]
        json: bool,
    },
    /// `youra audit` on a labelled corpus (a folder of research outputs and its
    /// `labels.json`: each output's folder, true class — real, synthetic or fabricated — and
    /// the evidence that decided it): the confusion matrix, precision and recall for "not
    /// real" and for fabricated, the share of cited file:lines that exist, and the time to
    /// audit a generated output of --files Python files. tests/fixtures/audit/corpus is
    /// youra's own constructed corpus.
    Audit {
        /// The corpus folder (holding labels.json).
        corpus: std::path::PathBuf,
        /// Python files in the generated output whose audit is timed (0: no timing).
        #[arg(long, default_value_t = 500)]
        files: usize,
        /// The scores as one JSON object.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(cmd: BenchCommand) -> Result<i32> {
    match cmd {
        BenchCommand::Audit {
            corpus,
            files,
            json,
        } => audit(&corpus, files, json),
        BenchCommand::Claims {
            studies,
            seed,
            sd,
            gain_sd,
            coverage,
            time,
            json,
        } => claims(studies, seed, sd, gain_sd, coverage, time, json),
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
            youra: Some(dir),
            config,
            time,
            ..
        } => youra_routing(&dir, config.as_deref(), time),
        BenchCommand::Routing {
            cases,
            seed,
            time,
            json,
            ..
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

/// `youra bench claims`.
fn claims(
    studies: u64,
    seed: u64,
    sd: f64,
    gain_sd: f64,
    coverage: bool,
    time: bool,
    json: bool,
) -> Result<i32> {
    if studies == 0 {
        fail(
            "--studies 0: there is nothing to count",
            "give --studies 1 or more (default 4000)",
        );
        return Ok(2);
    }
    for (flag, v) in [("--sd", sd), ("--gain-sd", gain_sd)] {
        if !(v.is_finite() && v > 0.0 && v <= 1.0) {
            fail(
                format!("{flag} {v}: not the sd of a metric in [0, 1]"),
                &format!(
                    "give {flag} a number in (0, 1], e.g. {}",
                    evidence_bench::ACCURACY_SD
                ),
            );
            return Ok(2);
        }
    }
    let rule = crate::config_evidence::EvidenceSettings::default().rule();
    let start = Instant::now();
    if coverage {
        print!(
            "{}",
            evidence_bench::coverage_table(studies, seed, rule.confidence)
        );
    } else {
        let params = evidence_bench::Params {
            studies,
            seed,
            accuracy_sd: sd,
            gain_sd,
            rule,
        };
        let report = evidence_bench::run(&params);
        if json {
            let mut out = serde_json::to_value(&report)?;
            out["bench"] = "claims".into();
            for g in evidence_bench::gatings(rule) {
                out["worst_false_claims"][g.label] = report.worst_false_claims(g.label).into();
            }
            println!("{out}");
        } else {
            print!("{}", evidence_bench::render(&report));
        }
    }
    if time {
        eprintln!("took {:.2} s", start.elapsed().as_secs_f64());
    }
    Ok(0)
}

/// `youra bench routing --youra DIR --config FILE`.
fn youra_routing(
    dir: &std::path::Path,
    config: Option<&std::path::Path>,
    time: bool,
) -> Result<i32> {
    use crate::engine::youra_bench as yb;
    let csv = dir.join("analysis/VSA/routing_levels_detail.csv");
    let text = match crate::fsutil::read_run_text(&csv) {
        Ok(t) => t,
        Err(e) => {
            fail(
                format!("cannot read {}: {e}", csv.display()),
                "give the folder of YouRA's published runs (it holds analysis/VSA/routing_levels_detail.csv and results/)",
            );
            return Ok(2);
        }
    };
    let rows = match yb::read_levels(&text) {
        Ok(r) => r,
        Err(e) => {
            fail(
                format!("{}: {e}", csv.display()),
                "the file is YouRA's CSV as published; restore it",
            );
            return Ok(2);
        }
    };
    let Some(config) = config else {
        fail(
            "the replay needs live model endpoints for the attribution (generator, critic, judge) and the controller",
            "pass --config youra.toml naming them in [llm.*] (a replay bundle cannot answer records it never recorded)",
        );
        return Ok(2);
    };
    let llm_toml = match crate::fsutil::read_run_text(config) {
        Ok(t) => t,
        Err(e) => {
            fail(
                format!("cannot read {}: {e}", config.display()),
                "give a readable youra.toml",
            );
            return Ok(2);
        }
    };
    let cases = yb::cases(dir, &rows);
    if cases.is_empty() {
        fail(
            format!(
                "no failure record under {}",
                dir.join("results/generations/youra").display()
            ),
            "give the folder of YouRA's published runs",
        );
        return Ok(2);
    }
    let start = Instant::now();
    // One scratch run per record, removed afterwards: the replay writes VSAs, transcripts
    // and ledgers like any run.
    let scratch = std::env::temp_dir().join(format!("youra-bench-youra-{}", std::process::id()));
    let results: Vec<_> = cases
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let out = yb::replay(&c, &scratch.join(format!("case{i}")), &llm_toml);
            (c, out)
        })
        .collect();
    let _ = std::fs::remove_dir_all(&scratch);
    print!("{}", yb::render(&rows, &results));
    if time {
        eprintln!("took {:.2} s", start.elapsed().as_secs_f64());
    }
    Ok(0)
}

/// `youra bench audit`: the analyzer's scores on a labelled corpus, and its speed.
fn audit(corpus: &std::path::Path, files: usize, json: bool) -> Result<i32> {
    use crate::audit::bench;
    let scores = match bench::score(corpus) {
        Ok(s) => s,
        Err(e) => {
            fail(
                e,
                "give a folder holding labels.json (see tests/fixtures/audit/corpus)",
            );
            return Ok(2);
        }
    };
    let timing = if files > 0 {
        let tmp = std::env::temp_dir().join(format!("youra-bench-audit-{}", std::process::id()));
        let timed = bench::speed(&tmp, files);
        let _ = std::fs::remove_dir_all(&tmp);
        Some(timed?)
    } else {
        None
    };
    if json {
        let out = serde_json::json!({
            "bench": "audit",
            "scores": scores,
            "speed": timing.map(|(d, v)| serde_json::json!({"files": files, "seconds": d.as_secs_f64(), "verdict": v})),
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(0);
    }
    let name = |v: crate::audit::verdict::Verdict| v.label();
    println!(
        "{:<12} {:>10} {:>10} {:>10} {:>10}",
        "true \\ got", "Real", "Synthetic", "Fabricated", "Unknown"
    );
    for (i, row) in scores.matrix.iter().enumerate().take(3) {
        println!(
            "{:<12} {:>10} {:>10} {:>10} {:>10}",
            name(bench::CLASSES[i]),
            row[0],
            row[1],
            row[2],
            row[3]
        );
    }
    println!(
        "not real: precision {:.2}, recall {:.2}",
        scores.not_real_precision, scores.not_real_recall
    );
    println!(
        "fabricated: precision {:.2}, recall {:.2}",
        scores.fabricated_precision, scores.fabricated_recall
    );
    println!(
        "cited file:lines that exist: {} of {} ({:.0}%)",
        scores.cited_exist,
        scores.cited,
        100.0 * scores.cited_exist as f64 / scores.cited.max(1) as f64
    );
    for (source, n, right) in bench::by_source(&scores.rows) {
        let source = if source.is_empty() {
            "(no source)"
        } else {
            &source
        };
        println!("{source}: {right} of {n} audited as labelled");
    }
    for r in scores.rows.iter().filter(|r| r.label != r.predicted) {
        println!(
            "missed: {} is {}, audited {}",
            r.dir,
            name(r.label),
            name(r.predicted)
        );
    }
    if let Some((d, v)) = timing {
        println!(
            "speed: {files} Python files audited in {:.2} s ({})",
            d.as_secs_f64(),
            name(v)
        );
    }
    Ok(0)
}
