//! `youra audit FOLDER`: is the data behind a research output's results real, synthetic or
//! fabricated? Any layout (a youra run, a YouRA research folder, another agent's output, a
//! plain repository). Exit 0 real, 1 not real (synthetic or fabricated), 3 unknown, 2 for a
//! usage error (no such folder, an unreadable paper). Every line goes through the CLI's
//! escaping print macros (`crate::term::escape`); `--json` is serde_json's.

use std::path::PathBuf;

use clap::Args;
use color_eyre::eyre::Result;

use crate::audit::ctx::TextFile;
use crate::audit::verdict::{Report, Weight};
use crate::audit::{self, Options};

/// The exit status of a usage error (as clap's own).
pub const USAGE: i32 = 2;
/// The most of a paper `--paper` reads.
const PAPER_CAP: u64 = 8 << 20;

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// The research output to audit (any folder; nothing outside it is read, no link followed).
    pub folder: PathBuf,
    /// The paper that reports the results: every dataset it names must be loaded and used,
    /// and a "-style" dataset it names is generated.
    #[arg(long, value_name = "PATH")]
    pub paper: Option<PathBuf>,
    /// A dataset the results should come from (repeatable).
    #[arg(long = "dataset", value_name = "NAME")]
    pub datasets: Vec<String>,
    /// Print the report as one JSON object (`verdict`, `confidence`, `evidence`, `metrics`,
    /// `skipped`, `notes`).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: AuditArgs) -> Result<i32> {
    if !args.folder.is_dir() {
        super::fail(
            format!("{} is not a folder", args.folder.display()),
            "give the folder that holds the research output's code and results",
        );
        return Ok(USAGE);
    }
    let paper = match &args.paper {
        Some(p) => match crate::fsutil::read_capped_string(p, PAPER_CAP) {
            Ok(text) => Some(TextFile {
                path: p.display().to_string(),
                text,
            }),
            Err(e) => {
                super::fail(
                    format!("cannot read the paper {}: {e}", p.display()),
                    "give --paper the manuscript's Markdown or text file",
                );
                return Ok(USAGE);
            }
        },
        None => None,
    };
    let options = Options {
        paper,
        datasets: args.datasets.clone(),
        metrics: vec![],
    };
    let report = match audit::audit_folder(&args.folder, options) {
        Ok(r) => r,
        Err(e) => {
            super::fail(
                format!("cannot read {}: {e}", args.folder.display()),
                "check that the folder is readable, then run the audit again",
            );
            return Ok(USAGE);
        }
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_text(&report);
    }
    Ok(report.verdict.exit_code())
}

fn print_text(r: &Report) {
    println!(
        "verdict: {} (confidence {:.2})",
        r.verdict.label(),
        r.confidence
    );
    let deciding: Vec<_> = r
        .evidence
        .iter()
        .filter(|e| e.weight != Weight::Note)
        .collect();
    if !deciding.is_empty() {
        println!("evidence:");
        for e in deciding {
            println!("  {e} [{}]", weight(e.weight));
        }
    }
    let notes: Vec<_> = r
        .evidence
        .iter()
        .filter(|e| e.weight == Weight::Note)
        .collect();
    if !notes.is_empty() {
        println!("noted (not deciding):");
        for e in notes {
            println!("  {e}");
        }
    }
    if !r.metrics.is_empty() {
        println!("metrics:");
        for m in &r.metrics {
            let origin = serde_json::to_value(m.origin)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            println!(
                "  {} ({}:{}): {origin} {}",
                m.metric,
                m.file,
                m.line,
                m.sources.join(", ")
            );
        }
    }
    for s in &r.skipped {
        println!("skipped: {} — {}", s.path, s.why);
    }
    for n in &r.notes {
        println!("note: {n}");
    }
    println!("{} code files analysed", r.files_analysed);
}

fn weight(w: Weight) -> &'static str {
    match w {
        Weight::Real => "real",
        Weight::Synthetic => "synthetic",
        Weight::Fabricated => "fabricated",
        Weight::Doubt => "doubt",
        Weight::Note => "note",
    }
}
