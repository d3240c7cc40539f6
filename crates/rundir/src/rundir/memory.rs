//! Reflective Memory: the markdown records YouRA leaves under `.serena/memories/` when a
//! hypothesis fails, pivots, is superseded or records a limitation, plus completion snapshots.
//!
//! The records are written by an LLM following loose templates, so real files drift: metadata
//! as `- **Key:** value` bullets, YAML front matter, subfolders, date-suffixed names, CRLF,
//! no trailing newline. Every extractor here is best-effort: what cannot be found is `None`
//! or empty, never an error, and no input makes it panic.

use serde::Serialize;

use super::markdown::*;
pub use super::markdown::{Section, Table};
use std::path::{Path, PathBuf};
use std::{fmt, fs, str::FromStr};

/// What a record is. Decided from its file name or folder, the convention YouRA's own readers
/// match on (`failure_` prefix etc.), because titles and fields vary between writers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryKind {
    Failure,
    Pivot,
    Superseded,
    Limitation,
    Phase5Failure,
    Snapshot,
    Other,
}

impl MemoryKind {
    /// Every kind, in display order (for CLI help and filters).
    pub const ALL: [MemoryKind; 7] = [
        Self::Failure,
        Self::Pivot,
        Self::Superseded,
        Self::Limitation,
        Self::Phase5Failure,
        Self::Snapshot,
        Self::Other,
    ];

    /// The lowercase name, as serialized and as accepted by [`FromStr`].
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Failure => "failure",
            Self::Pivot => "pivot",
            Self::Superseded => "superseded",
            Self::Limitation => "limitation",
            Self::Phase5Failure => "phase5_failure",
            Self::Snapshot => "snapshot",
            Self::Other => "other",
        }
    }

    /// Kind from a record id (`dir/stem`): the name prefix wins, then the folder.
    fn from_id(rel_id: &str) -> Self {
        let lower = rel_id.to_ascii_lowercase();
        let (dir, stem) = lower.rsplit_once('/').unwrap_or(("", &lower));
        let folder = dir.rsplit('/').next().unwrap_or("");
        let folder = folder.strip_suffix('s').unwrap_or(folder);
        let prefixed = |p: &str| stem.starts_with(p);
        match () {
            _ if prefixed("phase5_failure") => Self::Phase5Failure,
            _ if prefixed("failure_") || folder == "failure" => Self::Failure,
            _ if prefixed("pivot_") || folder == "pivot" => Self::Pivot,
            _ if prefixed("superseded_") || folder == "superseded" => Self::Superseded,
            _ if prefixed("limitation_") || folder == "limitation" => Self::Limitation,
            _ if prefixed("snapshot") || folder == "snapshot" => Self::Snapshot,
            _ if folder == "phase4" && stem.contains("snapshot") => Self::Snapshot,
            _ => Self::Other,
        }
    }
}

impl fmt::Display for MemoryKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for MemoryKind {
    type Err = String;

    /// Accepts the [`MemoryKind::as_str`] names, any case, `-` or no separator for `_`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let norm = s.trim().to_ascii_lowercase().replace(['-', '_'], "");
        Self::ALL
            .into_iter()
            .find(|k| k.as_str().replace('_', "") == norm)
            .ok_or_else(|| {
                let names: Vec<_> = Self::ALL.iter().map(|k| k.as_str()).collect();
                format!(
                    "unknown memory kind `{s}` (expected one of: {})",
                    names.join(", ")
                )
            })
    }
}

/// One Reflective Memory record, with the facts a reader needs pulled out of its markdown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemoryRecord {
    /// Path relative to the memory root, `/`-separated, without `.md`.
    pub id: String,
    pub path: PathBuf,
    pub kind: MemoryKind,
    pub title: Option<String>,
    /// Lowercase hypothesis id (`h-e1`); for pivots, the hypothesis pivoted from.
    pub hypothesis: Option<String>,
    /// The replacement hypothesis of a pivot (`New Hypothesis`/`To`/`Superseded By`).
    pub to_hypothesis: Option<String>,
    /// `**Run:**`, else `_run{N}` in the file name.
    pub run: Option<u32>,
    /// As written: an ISO timestamp from the fields, or the date token of the file name.
    pub date: Option<String>,
    /// As written (`FAIL`, `PARTIAL (MUST_WORK)`): Final Status, else Gate Result, Status, Result.
    pub final_status: Option<String>,
    pub failure_type: Option<String>,
    pub gate_type: Option<String>,
    /// The failure's category, for grouping lessons across hypotheses and runs: a `Failure
    /// Category` / `Category` field, else the leading token of `Failure Type`
    /// (`IMPLEMENTATION_BUG - …` → `IMPLEMENTATION_BUG`), else the gate type and its result
    /// (`MUST_WORK` + `FAIL` → `MUST_WORK_FAIL`); upper case, `None` when the record says none.
    pub category: Option<String>,
    /// Where the record came from when `youra memory import` copied it into this run's
    /// prior; `None` for the run's own records.
    pub provenance: Option<super::provenance::Provenance>,
    /// Where the pipeline went next, as written (`ROUTED_TO_PHASE_0`, `SELF_MODIFY → h-e1-v2`,
    /// or free text): a Routing section's `Outcome`, else a Reflection Outcome / Routing /
    /// Routed To / Reflection field, else a Reflection section's `Outcome`, else the first
    /// line of a Routing section.
    pub routing_decision: Option<String>,
    /// Every `**Key:** value` line (also as a `-`/`*`/`+` bullet), in document order.
    pub fields: Vec<(String, String)>,
    /// Simple `key: value` lines of a leading `---` block, quotes removed.
    pub front_matter: Vec<(String, String)>,
    /// The first table outside code blocks (usually metrics vs. thresholds).
    pub results_table: Option<Table>,
    pub sections: Vec<Section>,
    /// Top-level list items (bold labels kept) under headings or `**Root Causes:**`-style
    /// labels mentioning "root cause", subsections included; a numbered `### 1. Topic`
    /// subheading becomes one item `Topic — a; b`; a matching section without a list gives
    /// its paragraphs; elsewhere, `Root cause: …` items.
    pub root_causes: Vec<String>,
    /// As `root_causes`, for "lesson" (Lessons Learned, Important Lessons, …).
    pub lessons: Vec<String>,
    /// The whole record, BOM removed and line endings normalized to `\n`.
    pub body: String,
}

impl MemoryRecord {
    /// First non-empty value of a bold field, keys compared case-insensitively.
    pub fn field(&self, key: &str) -> Option<&str> {
        lookup(&self.fields, &[key])
    }
}

/// Parses one record. Pure: `path` is only stored, never read.
pub fn parse_record(rel_id: &str, path: &Path, text: &str) -> MemoryRecord {
    let body = normalize(text);
    let (front_matter, markdown) = split_front_matter(&body);
    let lines = mark_code(markdown);
    let fields = fields_of(&lines);
    let kind = MemoryKind::from_id(rel_id);
    let (name_hyp, name_to) = ids_from_name(rel_id, kind);
    let pick = |keys: &[&str]| lookup(&fields, keys).map(str::to_string);
    let hyp_keys = ["Hypothesis ID", "Hypothesis", "Original Hypothesis", "From"];
    let date = pick(&["Date", "Timestamp", "Written at"])
        .or_else(|| italic_value(&lines, "written at"))
        .or_else(|| date_from_name(rel_id));
    MemoryRecord {
        id: rel_id.to_string(),
        path: path.to_path_buf(),
        kind,
        title: lines
            .iter()
            .filter(|l| !l.1)
            .find_map(|l| heading(l.0).filter(|h| h.0 == 1))
            .map(|h| h.1.to_string()),
        hypothesis: lookup(&fields, &hyp_keys).and_then(id_token).or(name_hyp),
        to_hypothesis: lookup(&fields, &["New Hypothesis", "To", "Superseded By"])
            .and_then(id_token)
            .or(name_to),
        run: lookup(&fields, &["Run"])
            .and_then(leading_u32)
            .or_else(|| run_from_name(rel_id)),
        date,
        final_status: pick(&["Final Status", "Gate Result", "Status", "Result"]),
        category: category(&fields),
        provenance: super::provenance::Provenance::from_front_matter(&front_matter),
        failure_type: pick(&["Failure Type"]),
        gate_type: pick(&["Gate Type"]),
        routing_decision: routing(&lines, &fields),
        results_table: first_table(&lines),
        sections: sections(&lines),
        root_causes: collect_items(&lines, "root cause"),
        lessons: collect_items(&lines, "lesson"),
        front_matter,
        fields,
        body,
    }
}

/// Reads every `*.md` under `root` (recursively, not following directory links), sorted by id.
/// A missing root yields nothing; unreadable files and folders become warnings.
pub fn load_dir(root: &Path) -> (Vec<MemoryRecord>, Vec<String>) {
    load_dir_keeping(root, &|_| None)
}

/// As [`load_dir`], taking a record from `kept` (a reader that follows the folder: the last
/// read's record when nothing named its file since) instead of reading its file again.
pub fn load_dir_keeping(
    root: &Path,
    kept: &dyn Fn(&Path) -> Option<MemoryRecord>,
) -> (Vec<MemoryRecord>, Vec<String>) {
    let (mut files, mut warnings) = (Vec::new(), Vec::new());
    walk(root, 0, &mut files, &mut warnings);
    let mut records = Vec::new();
    for path in files {
        if let Some(r) = kept(&path) {
            records.push(r);
            continue;
        }
        match crate::fsutil::read_run_file(&path) {
            Ok(bytes) => {
                let id = rel_id(root, &path);
                records.push(parse_record(&id, &path, &String::from_utf8_lossy(&bytes)));
            }
            Err(e) => warnings.push(format!("cannot read {}: {e}", path.display())),
        }
    }
    records.sort_by(|a, b| a.id.cmp(&b.id));
    (records, warnings)
}

const MAX_DEPTH: usize = 16;

fn walk(dir: &Path, depth: usize, files: &mut Vec<PathBuf>, warnings: &mut Vec<String>) {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if depth == 0 && e.kind() == std::io::ErrorKind::NotFound => return,
        Err(e) => return warnings.push(format!("cannot list {}: {e}", dir.display())),
    };
    for entry in entries {
        let Ok(entry) = entry else {
            warnings.push(format!("cannot list an entry of {}", dir.display()));
            continue;
        };
        let path = entry.path();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && depth < MAX_DEPTH {
            walk(&path, depth + 1, files, warnings);
        } else if !is_dir
            && path
                .extension()
                .is_some_and(|x| x.eq_ignore_ascii_case("md"))
        {
            files.push(path);
        }
    }
}

fn rel_id(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path).with_extension("");
    let parts: Vec<_> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect();
    parts.join("/")
}

/// Drops a UTF-8 BOM and turns CRLF / lone CR into LF.
fn stem(rel_id: &str) -> String {
    rel_id
        .rsplit('/')
        .next()
        .unwrap_or(rel_id)
        .to_ascii_lowercase()
}

const NAME_PREFIXES: [&str; 8] = [
    "phase5_failure_",
    "phase5_comparison_",
    "failure_",
    "limitation_",
    "superseded_",
    "snapshot_",
    "lessons_",
    "experiment_log_",
];

/// Hypothesis ids encoded in the file name: `failure_{h}_run{N}`, `limitation_{h}_{date}`,
/// `pivot_{old}_{new}`, `pivot/{old}_to_{new}_…`, and `{h}_…` inside subfolders.
fn ids_from_name(rel_id: &str, kind: MemoryKind) -> (Option<String>, Option<String>) {
    let stem = stem(rel_id);
    let first = |s: &str| id_token(s.split('_').next().unwrap_or(""));
    let pair = match stem.strip_prefix("pivot_") {
        Some(rest) => rest.split_once("_to_").or_else(|| rest.split_once('_')),
        None if kind == MemoryKind::Pivot => stem.split_once("_to_"),
        None => None,
    };
    if let Some((from, to)) = pair {
        return (id_token(from), first(to));
    }
    if let Some(rest) = NAME_PREFIXES.iter().find_map(|p| stem.strip_prefix(p)) {
        return (first(rest), None);
    }
    // Without a known prefix only an `h-…`/`h1…`-shaped leading token counts as an id.
    let id_like = |s: &String| {
        s.starts_with("h-")
            || s.starts_with('h') && s[1..].starts_with(|c: char| c.is_ascii_digit())
    };
    (first(&stem).filter(id_like), None)
}

fn run_from_name(rel_id: &str) -> Option<u32> {
    stem(rel_id)
        .split('_')
        .find_map(|s| s.strip_prefix("run").and_then(|n| n.parse().ok()))
}

/// `…_20260317`, `…_20260317T110000`, `…_20260511_031944` → the date token as written.
fn date_from_name(rel_id: &str) -> Option<String> {
    let stem = rel_id.rsplit('/').next().unwrap_or(rel_id);
    let parts: Vec<&str> = stem.split('_').collect();
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    let is_date = |s: &str| {
        digits(s.get(..8).unwrap_or(""), 8) && (s.len() == 8 || s.as_bytes().get(8) == Some(&b'T'))
    };
    let i = parts
        .iter()
        .position(|p| p.starts_with("20") && is_date(p))?;
    match parts.get(i + 1) {
        Some(time) if parts[i].len() == 8 && digits(time, 6) => {
            Some(format!("{}_{time}", parts[i]))
        }
        _ => Some(parts[i].to_string()),
    }
}

/// See [`MemoryRecord::category`].
fn category(fields: &[(String, String)]) -> Option<String> {
    let token = |v: &str| {
        let t: String = v
            .trim()
            .chars()
            .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ' '))
            .collect();
        // `MUST_WORK_FAIL - Complete…`: the category ends where the explanation starts.
        let t = t
            .split(" - ")
            .next()
            .unwrap_or("")
            .trim()
            .replace([' ', '-'], "_");
        (!t.is_empty()).then(|| t.to_ascii_uppercase())
    };
    if let Some(c) = lookup(fields, &["Failure Category", "Category", "Failure Type"]) {
        return token(c);
    }
    let gate = lookup(fields, &["Gate Type"]).and_then(token)?;
    let result =
        lookup(fields, &["Gate Result", "Final Status", "Status", "Result"]).and_then(token);
    Some(match result {
        Some(r) => format!("{gate}_{r}"),
        None => gate,
    })
}

/// Routing: a Routing section's `Outcome`, else a routing-ish field, else a Reflection
/// section's `Outcome`, else the first line of a Routing section (free text like `→ Phase 0`).
fn routing(lines: &[Line], fields: &[(String, String)]) -> Option<String> {
    let (mut in_routing, mut in_reflection) = (None, None);
    let (mut section, mut first_line) = (String::new(), None);
    for &(line, code) in lines {
        if let Some((_, title)) = heading(line).filter(|_| !code) {
            section = title.to_ascii_lowercase();
            continue;
        }
        let kv = bold_field(line)
            .or_else(|| plain_kv(line).map(|(k, v)| (k.to_string(), v.to_string())));
        let outcome =
            kv.filter(|(k, v)| !code && k.eq_ignore_ascii_case("outcome") && !v.is_empty());
        if section.contains("routing") {
            in_routing = in_routing.or_else(|| outcome.clone().map(|o| o.1));
            let text = line.trim();
            let usable = !code && !text.is_empty();
            first_line = first_line.or_else(|| usable.then(|| text.to_string()));
        } else if section.contains("reflection") {
            in_reflection = in_reflection.or(outcome.map(|o| o.1));
        }
    }
    let keys = [
        "Reflection Outcome",
        "Routing Decision",
        "Routing",
        "Routed To",
        "Route To",
        "Reflection",
    ];
    in_routing
        .or_else(|| lookup(fields, &keys).map(str::to_string))
        .or(in_reflection)
        .or(first_line)
}

#[cfg(test)]
#[path = "memory_tests.rs"]
mod tests;
