//! `youra memory …`: list and show Reflective Memory records, and import records from an
//! earlier run into a new run's prior (`rundir::prior` decides names and provenance).

use std::path::{Path, PathBuf};

use clap::Subcommand;
use color_eyre::eyre::Result;

use super::memory_records::records;
use super::{abs, fail};
use crate::rundir::memory::{MemoryKind, MemoryRecord};

#[derive(Debug, Subcommand)]
pub enum MemoryCommand {
    /// List records: id, kind, hypothesis, date, status, routing.
    List {
        dir: PathBuf,
        /// Only this kind: failure, pivot, superseded, limitation, phase5_failure, snapshot, other.
        #[arg(long)]
        kind: Option<MemoryKind>,
        /// Only records about this sub-hypothesis (e.g. h-e1).
        #[arg(long)]
        hypothesis: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show one record (by id as `list` prints it, or a unique part of it) with its
    /// extracted fields, root causes and lessons, then the full text.
    Show { dir: PathBuf, record: String },
    /// Copy records of an earlier run into another run's prior (`memory/prior/from-<run>/`),
    /// with their provenance (source run, original id, import time) and ids that cannot
    /// collide with the run's own; the next Hypothesis Debate reads them as lessons from
    /// earlier runs.
    Import {
        /// The run the records come from.
        from: PathBuf,
        /// Records by id or file name, as `youra memory list <from>` shows them.
        #[arg(required = true)]
        records: Vec<String>,
        /// The run that receives them.
        #[arg(long, value_name = "RUN")]
        into: PathBuf,
    },
}

pub fn run(cmd: MemoryCommand) -> Result<i32> {
    match cmd {
        MemoryCommand::List {
            dir,
            kind,
            hypothesis,
            json,
        } => list(&dir, kind, hypothesis.as_deref(), json),
        MemoryCommand::Show { dir, record } => show(&dir, &record),
        MemoryCommand::Import {
            from,
            records,
            into,
        } => super::memory_import::run(&abs(from), &records, &abs(into)),
    }
}

fn list(dir: &Path, kind: Option<MemoryKind>, hypothesis: Option<&str>, json: bool) -> Result<i32> {
    let all = match records(dir) {
        Ok(r) => r,
        Err(code) => return Ok(code),
    };
    let hyp = hypothesis.map(str::to_ascii_lowercase);
    let shown: Vec<&MemoryRecord> = all
        .iter()
        .filter(|r| kind.as_ref().is_none_or(|k| &r.kind == k))
        .filter(|r| {
            hyp.as_ref().is_none_or(|h| {
                r.hypothesis.as_deref() == Some(h.as_str())
                    || r.to_hypothesis.as_deref() == Some(h.as_str())
            })
        })
        .collect();
    if json {
        println!("{}", serde_json::to_string_pretty(&shown)?);
        return Ok(0);
    }
    if shown.is_empty() {
        println!(
            "no memory records{}",
            if all.is_empty() {
                " in this run"
            } else {
                " match"
            }
        );
        return Ok(0);
    }
    println!(
        "{:<50} {:<14} {:<16} {:<26} {:<10} ROUTING",
        "ID", "KIND", "HYP", "DATE", "STATUS"
    );
    for r in shown {
        let o = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
        let hyp = match (&r.hypothesis, &r.to_hypothesis) {
            (Some(a), Some(b)) => format!("{a}→{b}"),
            (h, _) => o(h),
        };
        println!(
            "{:<50} {:<14} {:<16} {:<26} {:<10} {}",
            r.id,
            r.kind.as_str(),
            hyp,
            o(&r.date),
            o(&r.final_status),
            clip(&o(&r.routing_decision), 48)
        );
    }
    Ok(0)
}

fn show(dir: &Path, wanted: &str) -> Result<i32> {
    let all = match records(dir) {
        Ok(r) => r,
        Err(code) => return Ok(code),
    };
    let exact = all
        .iter()
        .find(|r| r.id == wanted || r.id.trim_end_matches(".md") == wanted.trim_end_matches(".md"));
    let partial: Vec<&MemoryRecord> = all.iter().filter(|r| r.id.contains(wanted)).collect();
    let rec: &MemoryRecord = match (exact, partial.as_slice()) {
        (Some(r), _) => r,
        (None, [r]) => r,
        (None, []) => {
            return Ok(fail(
                format!("no memory record `{wanted}`"),
                "`youra memory list <dir>` shows the ids",
            ));
        }
        (None, many) => {
            let ids: Vec<&str> = many.iter().map(|r| r.id.as_str()).collect();
            return Ok(fail(
                format!("`{wanted}` matches several records: {}", ids.join(", ")),
                "give more of the id",
            ));
        }
    };
    println!("{} ({})", rec.id, rec.kind.as_str());
    println!("file: {}", rec.path.display());
    let o = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    println!(
        "hypothesis: {}  run: {}  date: {}",
        o(&rec.hypothesis),
        rec.run.map_or("-".into(), |n| n.to_string()),
        o(&rec.date)
    );
    println!(
        "final status: {}  failure type: {}  routing: {}",
        o(&rec.final_status),
        o(&rec.failure_type),
        o(&rec.routing_decision)
    );
    if !rec.root_causes.is_empty() {
        println!("\nRoot causes:");
        rec.root_causes
            .iter()
            .enumerate()
            .for_each(|(i, c)| println!("  {}. {c}", i + 1));
    }
    if !rec.lessons.is_empty() {
        println!("\nLessons:");
        rec.lessons
            .iter()
            .enumerate()
            .for_each(|(i, c)| println!("  {}. {c}", i + 1));
    }
    println!("\n{}", rec.body);
    Ok(0)
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n - 1).collect::<String>())
    }
}
