//! Reflective Memory records in YouRA's shapes, so YouRA's readers, ours
//! ([`crate::rundir::memory`]) and the next Hypothesis Debate all find the same facts:
//!
//! | record | file | title | routing as read back |
//! |---|---|---|---|
//! | failure | `failure_<h>_run<n>.md` | `# Phase 4 Failure Record: <h> (Run <n>)` | `## Routing Decision` → `Outcome` |
//! | pivot | `pivot_<old>_<new>.md` | `# Pivot Record: <old> → <new>` | `## Routing Decision` → `Outcome` |
//! | limitation | `limitation_<h>_run<n>.md` | `# Limitation Record: <h> (Run <n>)` | `Reflection Outcome: LIMITATION_RECORDED` |
//! | superseded | `superseded_<h>.md` | `# Superseded Record: <h>` | — |
//!
//! Rendering is pure ([`render_failure`] …); [`write_record`] is the only I/O and never
//! overwrites: a record is history, and a second failure of the same run is a caller's bug.
//! Values are flattened to one line (a newline would end a `**Key:**` field or a list item)
//! and `|` in table cells is escaped as `\|` (the reader keeps the backslash).

use crate::reflect::attribution::Category;
use crate::reflect::routing::{RoutingAction, youra_level};
use chrono::{DateTime, Utc};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One row of the performance gap table.
#[derive(Debug, Clone, PartialEq)]
pub struct GateCheck {
    pub name: String,
    pub actual: String,
    pub threshold: String,
    pub passed: bool,
}

/// Why the run went where it went: h*, its severity, the features it rests on.
#[derive(Debug, Clone, PartialEq)]
pub struct RoutingNote {
    pub action: RoutingAction,
    pub severity: f64,
    pub category: Category,
    /// `trajectory::Features::describe()`, when there was a trajectory.
    pub trajectory: Option<String>,
    pub evidence: String,
    /// The Verdict Clamp's or the researcher's reason, when the action was changed.
    pub note: Option<String>,
    /// The action is proposed and waits for the researcher: the record says so, and is
    /// rewritten ([`with_routing`]) with the route taken once it is decided.
    pub pending: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FailureInput {
    pub hypothesis: String,
    pub run: u32,
    pub date: DateTime<Utc>,
    /// As YouRA writes it: `FAIL`, `PARTIAL`.
    pub final_status: String,
    /// `MUST_WORK_FAIL`, `HYPOTHESIS_ISSUE`, …
    pub failure_type: String,
    pub gate_type: String,
    pub checks: Vec<GateCheck>,
    pub root_causes: Vec<String>,
    pub lessons: Vec<String>,
    pub routing: RoutingNote,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PivotInput {
    pub from: String,
    pub to: String,
    pub date: DateTime<Utc>,
    pub gate_type: String,
    pub gate_result: String,
    pub what_happened: Vec<String>,
    pub lessons: Vec<String>,
    pub routing: RoutingNote,
    /// What the new hypothesis changes.
    pub summary: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LimitationInput {
    pub hypothesis: String,
    pub run: u32,
    pub date: DateTime<Utc>,
    pub gate_type: String,
    pub gate_result: String,
    pub checks: Vec<GateCheck>,
    pub root_causes: Vec<String>,
    pub lessons: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SupersededInput {
    pub hypothesis: String,
    pub superseded_by: String,
    pub date: DateTime<Utc>,
    pub reason: String,
    pub lessons: Vec<String>,
}

/// A record ready to write: its file name under the memory folder and its markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub file_name: String,
    pub text: String,
}

#[derive(Debug, thiserror::Error)]
pub enum MemoryWriteError {
    #[error("`{0}` cannot be part of a record's file name: use letters, digits, `-`, `_` or `.`")]
    BadId(String),
    #[error("{} already exists; Reflective Memory is never overwritten: use the next run number", .0.display())]
    Exists(PathBuf),
    #[error("cannot write {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// A hypothesis id fit for a file name: non-empty, `[A-Za-z0-9._-]`, not starting with `.`.
pub fn check_id(id: &str) -> Result<(), MemoryWriteError> {
    let ok = !id.is_empty()
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if ok {
        Ok(())
    } else {
        Err(MemoryWriteError::BadId(id.to_string()))
    }
}

pub fn render_failure(r: &FailureInput) -> Result<Rendered, MemoryWriteError> {
    check_id(&r.hypothesis)?;
    let h = &r.hypothesis;
    let mut t = format!("# Phase 4 Failure Record: {h} (Run {})\n\n", r.run);
    fields(
        &mut t,
        &[
            ("Date", stamp(r.date)),
            ("Hypothesis", h.clone()),
            ("Run", r.run.to_string()),
            ("Final Status", r.final_status.clone()),
            ("Failure Type", r.failure_type.clone()),
            ("Gate Type", r.gate_type.clone()),
        ],
    );
    gap_table(&mut t, "Experiment Results", &r.checks);
    numbered(&mut t, "Root Cause Analysis", &r.root_causes);
    numbered(&mut t, "Lessons Learned", &r.lessons);
    routing(&mut t, &r.routing);
    footer(&mut t, r.date);
    Ok(Rendered {
        file_name: format!("failure_{h}_run{}.md", r.run),
        text: t,
    })
}

pub fn render_pivot(r: &PivotInput) -> Result<Rendered, MemoryWriteError> {
    check_id(&r.from)?;
    check_id(&r.to)?;
    let mut t = format!("# Pivot Record: {} → {}\n\n", r.from, r.to);
    let modification = r
        .routing
        .action
        .as_str()
        .to_ascii_uppercase()
        .replace('-', "_");
    fields(
        &mut t,
        &[
            ("Date", stamp(r.date)),
            ("Hypothesis", r.from.clone()),
            ("New Hypothesis", r.to.clone()),
            ("Modification Type", modification),
            ("Gate Type", r.gate_type.clone()),
            ("Gate Result", r.gate_result.clone()),
        ],
    );
    bullets(&mut t, "What Happened", &r.what_happened);
    numbered(&mut t, "Lessons Learned", &r.lessons);
    routing(&mut t, &r.routing);
    let _ = write!(t, "## Modification Summary\n\n{}\n", one_line(&r.summary));
    footer(&mut t, r.date);
    Ok(Rendered {
        file_name: format!("pivot_{}_{}.md", r.from, r.to),
        text: t,
    })
}

pub fn render_limitation(r: &LimitationInput) -> Result<Rendered, MemoryWriteError> {
    check_id(&r.hypothesis)?;
    let h = &r.hypothesis;
    let mut t = format!("# Limitation Record: {h} (Run {})\n\n", r.run);
    fields(
        &mut t,
        &[
            ("Date", stamp(r.date)),
            ("Hypothesis", h.clone()),
            ("Run", r.run.to_string()),
            ("Gate Type", r.gate_type.clone()),
            ("Gate Result", r.gate_result.clone()),
            ("Reflection Outcome", "LIMITATION_RECORDED".to_string()),
        ],
    );
    gap_table(&mut t, "Experiment Results", &r.checks);
    numbered(&mut t, "Root Cause", &r.root_causes);
    numbered(&mut t, "Lessons for Future Hypotheses", &r.lessons);
    t.push_str("## Status\n\nLimitation recorded. The gate does not block the hypothesis; the pipeline continues.\n");
    footer(&mut t, r.date);
    Ok(Rendered {
        file_name: format!("limitation_{h}_run{}.md", r.run),
        text: t,
    })
}

pub fn render_superseded(r: &SupersededInput) -> Result<Rendered, MemoryWriteError> {
    check_id(&r.hypothesis)?;
    check_id(&r.superseded_by)?;
    let h = &r.hypothesis;
    let mut t = format!("# Superseded Record: {h}\n\n");
    fields(
        &mut t,
        &[
            ("Date", stamp(r.date)),
            ("Hypothesis", h.clone()),
            ("Superseded By", r.superseded_by.clone()),
            ("Status", "SUPERSEDED".to_string()),
            ("Reason", r.reason.clone()),
        ],
    );
    numbered(&mut t, "Lessons Learned", &r.lessons);
    footer(&mut t, r.date);
    Ok(Rendered {
        file_name: format!("superseded_{h}.md"),
        text: t,
    })
}

/// Writes `record` into `memory_dir` (created if missing), refusing to overwrite.
pub fn write_record(memory_dir: &Path, record: &Rendered) -> Result<PathBuf, MemoryWriteError> {
    let path = memory_dir.join(&record.file_name);
    let io = |source| MemoryWriteError::Io {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(memory_dir).map_err(io)?;
    if path.exists() {
        return Err(MemoryWriteError::Exists(path));
    }
    crate::fsutil::write_atomic(&path, record.text.as_bytes()).map_err(io)?;
    Ok(path)
}

/// YouRA's timestamp shape, `2026-03-17T04:00:00Z`.
fn stamp(date: DateTime<Utc>) -> String {
    date.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Whitespace runs (newlines included) become one space.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn cell(s: &str) -> String {
    one_line(s).replace('|', "\\|")
}

fn fields(t: &mut String, pairs: &[(&str, String)]) {
    for (key, value) in pairs {
        let _ = writeln!(t, "**{key}:** {}", one_line(value));
    }
    t.push('\n');
}

fn gap_table(t: &mut String, title: &str, checks: &[GateCheck]) {
    if checks.is_empty() {
        return;
    }
    let _ = write!(
        t,
        "## {title}\n\n| Check | Actual | Threshold | Passed |\n|-------|--------|-----------|--------|\n"
    );
    for c in checks {
        let mark = if c.passed { "✅" } else { "❌" };
        let _ = writeln!(
            t,
            "| {} | {} | {} | {mark} |",
            cell(&c.name),
            cell(&c.actual),
            cell(&c.threshold)
        );
    }
    let passed = checks.iter().filter(|c| c.passed).count();
    let _ = write!(t, "\n**Pass Rate:** {passed}/{}\n\n", checks.len());
}

/// A numbered section; omitted when there is nothing to list, so a reader finds no items
/// rather than a placeholder sentence. Blank items are dropped.
fn numbered(t: &mut String, title: &str, items: &[String]) {
    let items: Vec<String> = items
        .iter()
        .map(|i| one_line(i))
        .filter(|i| !i.is_empty())
        .collect();
    if items.is_empty() {
        return;
    }
    let _ = write!(t, "## {title}\n\n");
    for (i, item) in items.iter().enumerate() {
        let _ = writeln!(t, "{}. {item}", i + 1);
    }
    t.push('\n');
}

fn bullets(t: &mut String, title: &str, items: &[String]) {
    let items: Vec<String> = items
        .iter()
        .map(|i| one_line(i))
        .filter(|i| !i.is_empty())
        .collect();
    if items.is_empty() {
        return;
    }
    let _ = write!(t, "## {title}\n\n");
    for item in items {
        let _ = writeln!(t, "- {item}");
    }
    t.push('\n');
}

fn routing(t: &mut String, r: &RoutingNote) {
    let level = youra_level(r.action);
    if r.pending {
        let _ = write!(
            t,
            "## Routing Decision\n\n- **Outcome:** AWAITING_DECISION ({} proposed)\n",
            r.action
        );
        let _ = writeln!(
            t,
            "- **Action:** {} (proposed; waiting for the researcher)",
            r.action
        );
    } else {
        let _ = write!(
            t,
            "## Routing Decision\n\n- **Outcome:** {} ({})\n",
            level.outcome(),
            r.action
        );
        let _ = writeln!(t, "- **Action:** {}", r.action);
    }
    let _ = writeln!(
        t,
        "- **Severity:** {:.2} ({})",
        r.severity,
        r.category.as_str()
    );
    if let Some(features) = &r.trajectory {
        let _ = writeln!(t, "- **Trajectory:** {}", one_line(features));
    }
    let _ = writeln!(t, "- **Evidence:** {}", one_line(&r.evidence));
    if let Some(note) = &r.note {
        let _ = writeln!(t, "- **Note:** {}", one_line(note));
    }
    t.push('\n');
}

/// `text` (a rendered record) with its Routing Decision section replaced by `r`'s: the
/// record then states the route actually taken. Idempotent; a record without the section
/// gets it before its footer.
pub fn with_routing(text: &str, r: &RoutingNote) -> String {
    let mut section = String::new();
    routing(&mut section, r);
    let start = text.find("## Routing Decision");
    let end_of = |from: usize| {
        [text[from..].find("\n## "), text[from..].find("\n---\n")]
            .into_iter()
            .flatten()
            .min()
            .map_or(text.len(), |i| from + i + 1)
    };
    match start {
        Some(s) => {
            let e = end_of(s + 1);
            format!("{}{}{}", &text[..s], section, &text[e..])
        }
        None => {
            let at = text.find("---\n*For cross-phase").unwrap_or(text.len());
            format!("{}{}{}", &text[..at], section, &text[at..])
        }
    }
}

fn footer(t: &mut String, date: DateTime<Utc>) {
    let _ = write!(
        t,
        "---\n*For cross-phase reference*\n*Written at: {}*\n",
        stamp(date)
    );
}

#[cfg(test)]
#[path = "memory_writer_tests.rs"]
mod tests;
